// Construction, arithmetic, comparison and int64 accessors of Quantity, following apimachinery:
//  - Add/Sub: a zero receiver takes the other operand's format, otherwise the receiver keeps its
//    own (Quantity.Add / Quantity.Sub); negation keeps the format.
//  - Value/MilliValue/ScaledValue round away from zero and saturate at the int64 range.
// Unlike apimachinery we cannot fall back to an arbitrary-precision decimal, so results outside
// ±(2^127-1) nano-units throw QuantityError instead of growing.
#include "kube/model/quantity.h"

#include <limits>

#include "kube/model/quantity_detail.h"

namespace tailor::kube {
namespace {

using quantity_detail::kMaxMagnitude;
using quantity_detail::kPow10;
using quantity_detail::u128;

std::string describe_scaled(std::int64_t value, int scale) {
  return "Quantity::from_scaled(" + std::to_string(value) + ", " + std::to_string(scale) + ")";
}

// |value| / 10^places rounded away from zero.
u128 divide_away_from_zero(u128 magnitude, std::int64_t places) {
  if (places > quantity_detail::kMaxPow10) return magnitude == 0 ? 0 : 1;
  const u128 divisor = kPow10[static_cast<std::size_t>(places)];
  return magnitude / divisor + (magnitude % divisor != 0 ? 1 : 0);
}

std::int64_t saturate_to_int64(u128 magnitude, bool negative) {
  constexpr auto kMax = static_cast<u128>(std::numeric_limits<std::int64_t>::max());
  if (!negative)
    return magnitude > kMax ? std::numeric_limits<std::int64_t>::max()
                            : static_cast<std::int64_t>(magnitude);
  if (magnitude > kMax + 1) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(-static_cast<Quantity::nano_t>(magnitude));
}

void check_in_range(Quantity::nano_t result, bool overflowed, const char* operation,
                    const Quantity& a, const Quantity& b) {
  if (overflowed || result < -Quantity::kMaxNano) {
    throw QuantityError("quantity overflow: " + a.to_string() + " " + operation + " " +
                        b.to_string() + " is outside the supported range (|value| < 1.7e29)");
  }
}

}  // namespace

Quantity Quantity::from_nano(nano_t nano, QuantityFormat format) {
  if (nano < -kMaxNano)
    throw QuantityError("Quantity::from_nano: value outside the supported range");
  Quantity quantity;
  quantity.nano_ = nano;
  quantity.format_ = format;
  return quantity;
}

Quantity Quantity::from_scaled(std::int64_t value, int scale, QuantityFormat format) {
  const bool negative = value < 0;
  u128 magnitude =
      negative ? static_cast<u128>(-(static_cast<nano_t>(value))) : static_cast<u128>(value);
  const std::int64_t places = std::int64_t{scale} + 9;  // nano = value × 10^places
  if (places >= 0) {
    if (!quantity_detail::scale_up_checked(magnitude, places)) {
      throw QuantityError(describe_scaled(value, scale) +
                          ": value outside the supported range (|value| < 1.7e29)");
    }
  } else if (magnitude != 0) {
    const bool divisible = -places <= quantity_detail::kMaxPow10 &&
                           magnitude % kPow10[static_cast<std::size_t>(-places)] == 0;
    if (!divisible) {
      throw QuantityError(describe_scaled(value, scale) + ": finer than 1n, cannot be represented");
    }
    magnitude /= kPow10[static_cast<std::size_t>(-places)];
  }
  return from_nano(quantity_detail::with_sign(magnitude, negative), format);
}

std::int64_t Quantity::scaled_value(int scale) const {
  if (nano_ == 0) return 0;
  const bool negative = nano_ < 0;
  u128 magnitude = quantity_detail::magnitude(nano_);
  const std::int64_t places = std::int64_t{scale} + 9;  // result = nano / 10^places
  if (places >= 0) {
    magnitude = divide_away_from_zero(magnitude, places);
  } else if (!quantity_detail::scale_up_checked(magnitude, -places)) {
    magnitude = kMaxMagnitude;  // saturates below
  }
  return saturate_to_int64(magnitude, negative);
}

double Quantity::as_double() const {
  constexpr auto kNanoPerUnit = static_cast<nano_t>(quantity_detail::kNanoPerUnit);
  // Whole values convert exactly (up to 2^53) instead of rounding twice.
  if (nano_ % kNanoPerUnit == 0) return static_cast<double>(nano_ / kNanoPerUnit);
  return static_cast<double>(nano_) / 1e9;
}

int Quantity::sign() const { return (nano_ > 0) - (nano_ < 0); }

Quantity& Quantity::operator+=(const Quantity& other) {
  nano_t result = 0;
  const bool overflowed = __builtin_add_overflow(nano_, other.nano_, &result);
  check_in_range(result, overflowed, "+", *this, other);
  if (nano_ == 0) format_ = other.format_;
  nano_ = result;
  return *this;
}

Quantity& Quantity::operator-=(const Quantity& other) {
  nano_t result = 0;
  const bool overflowed = __builtin_sub_overflow(nano_, other.nano_, &result);
  check_in_range(result, overflowed, "-", *this, other);
  if (nano_ == 0) format_ = other.format_;
  nano_ = result;
  return *this;
}

Quantity Quantity::operator-() const {
  Quantity negated = *this;
  negated.nano_ = -nano_;
  return negated;
}

std::strong_ordering Quantity::operator<=>(const Quantity& other) const {
  if (nano_ < other.nano_) return std::strong_ordering::less;
  if (nano_ > other.nano_) return std::strong_ordering::greater;
  return std::strong_ordering::equal;
}

}  // namespace tailor::kube
