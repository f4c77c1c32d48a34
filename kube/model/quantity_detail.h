// Internal helpers shared by the quantity_*.cpp files: unsigned 128-bit magnitudes of nano-units,
// powers of ten and overflow-checked scaling. Not part of the public Quantity API.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "kube/model/quantity.h"

namespace tailor::kube::quantity_detail {

using u128 = unsigned __int128;

inline constexpr u128 kMaxMagnitude = static_cast<u128>(Quantity::kMaxNano);
inline constexpr u128 kNanoPerUnit = 1'000'000'000;
inline constexpr int kMaxPow10 = 38;  // 10^38 < 2^127 < 10^39

inline constexpr std::array<u128, kMaxPow10 + 1> kPow10 = [] {
  std::array<u128, kMaxPow10 + 1> table{};
  u128 power = 1;
  for (auto& entry : table) {
    entry = power;
    power *= 10;
  }
  return table;
}();

inline u128 magnitude(Quantity::nano_t nano) {
  return nano < 0 ? static_cast<u128>(-nano) : static_cast<u128>(nano);
}

inline Quantity::nano_t with_sign(u128 magnitude, bool negative) {
  const auto value = static_cast<Quantity::nano_t>(magnitude);
  return negative ? -value : value;
}

// value *= factor; false when the product exceeds kMaxMagnitude (value is then unspecified).
inline bool multiply_checked(u128& value, u128 factor) {
  return !__builtin_mul_overflow(value, factor, &value) && value <= kMaxMagnitude;
}

// value *= 10^exponent for exponent >= 0; false when the product exceeds kMaxMagnitude.
inline bool scale_up_checked(u128& value, std::int64_t exponent) {
  if (value == 0) return true;
  if (exponent > kMaxPow10) return false;
  return multiply_checked(value, kPow10[static_cast<std::size_t>(exponent)]);
}

// Appends the decimal digits of value.
void append_decimal(std::string& out, u128 value);

// The input quoted for an error message: control and non-ASCII bytes escaped, long input cut.
std::string quote_for_error(std::string_view text);

}  // namespace tailor::kube::quantity_detail
