// Quantity: Kubernetes' resource quantity (k8s.io/apimachinery/pkg/api/resource) with the same
// parsing, canonical printing, rounding and comparison semantics, in exact integer arithmetic.
#pragma once

#include <compare>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tailor::kube {

// The kind of suffix a quantity was written with; it is kept so that printing
// uses the same family (1Gi stays binary, 1e3 stays an exponent).
enum class QuantityFormat { DecimalSI, BinarySI, DecimalExponent };

class QuantityError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class Quantity {
 public:
  // Zero, DecimalSI (what apimachinery's zero Quantity prints: "0").
  Quantity() = default;

  // Parses a quantity string; throws QuantityError with a clear message for invalid input.
  // Values finer than 1n are rounded up (away from zero), as apimachinery does, and
  // binary-suffixed values are capped at 2^63-1 like apimachinery's. Grammar, quirks kept
  // (".", "Ki" parse as zero) and deliberate differences: see quantity_parse.cpp.
  // Allocation-free for valid input.
  static Quantity parse(std::string_view text);
  // As parse, without exceptions; on failure returns nullopt and sets *error when given.
  static std::optional<Quantity> try_parse(std::string_view text, std::string* error = nullptr);

  // value × 10^scale, e.g. (250, -3) is 250m. Throws QuantityError when it cannot be represented
  // (finer than 1n, or |value| >= ~1.7e29).
  static Quantity from_scaled(std::int64_t value, int scale,
                              QuantityFormat format = QuantityFormat::DecimalSI);
  static Quantity from_milli(std::int64_t milli,
                             QuantityFormat format = QuantityFormat::DecimalSI) {
    return from_scaled(milli, -3, format);
  }
  static Quantity from_int(std::int64_t value, QuantityFormat format = QuantityFormat::DecimalSI) {
    return from_scaled(value, 0, format);
  }

  // Canonical string in this quantity's format, as apimachinery's Quantity.String().
  std::string to_string() const;
  QuantityFormat format() const { return format_; }

  // apimachinery's Value()/MilliValue()/ScaledValue(scale): "rounded up" to the given power
  // of ten in apimachinery's sense, i.e. away from zero (-9.01 -> -10, 0.001 -> 1,
  // -0.001 -> -1); saturates at the int64 range.
  std::int64_t value() const { return scaled_value(0); }
  std::int64_t milli_value() const { return scaled_value(-3); }
  std::int64_t scaled_value(int scale) const;
  // Approximate value as a double, for estimators and metrics only (never for comparisons).
  double as_double() const;

  int sign() const;
  bool is_zero() const { return sign() == 0; }

  Quantity& operator+=(const Quantity& other);
  Quantity& operator-=(const Quantity& other);
  friend Quantity operator+(Quantity a, const Quantity& b) { return a += b; }
  friend Quantity operator-(Quantity a, const Quantity& b) { return a -= b; }
  Quantity operator-() const;

  // Compares values only; the format does not take part (1Ki == 1024).
  std::strong_ordering operator<=>(const Quantity& other) const;
  bool operator==(const Quantity& other) const { return (*this <=> other) == 0; }

  // Exact representation: an integer number of nano-units (value × 10^-9), 128 bits wide.
  // Parsing rejects anything that does not fit (|value| ≥ ~1.7e29) with a clear error;
  // arithmetic that would leave that range throws QuantityError.
  using nano_t = __int128;
  // Largest magnitude held, in nano-units: 2^127 - 1 (so negation never overflows).
  static constexpr nano_t kMaxNano =
      static_cast<nano_t>((static_cast<unsigned __int128>(1) << 127) - 1);
  nano_t nano() const { return nano_; }
  static Quantity from_nano(nano_t nano, QuantityFormat format = QuantityFormat::DecimalSI);

 private:
  nano_t nano_ = 0;
  QuantityFormat format_ = QuantityFormat::DecimalSI;
};

// Prints to_string() (used by test frameworks and log lines).
std::ostream& operator<<(std::ostream& out, const Quantity& quantity);
std::ostream& operator<<(std::ostream& out, QuantityFormat format);

}  // namespace tailor::kube
