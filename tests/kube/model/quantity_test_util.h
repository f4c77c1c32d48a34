// Helpers shared by the quantity_*_test.cpp files.
#pragma once

#include <cstdint>
#include <string>

#include "kube/model/quantity.h"

namespace tailor::kube::quantity_test {

inline constexpr QuantityFormat kDec = QuantityFormat::DecimalSI;
inline constexpr QuantityFormat kBin = QuantityFormat::BinarySI;
inline constexpr QuantityFormat kExp = QuantityFormat::DecimalExponent;

// mantissa × 10^exponent in nano-units, computed independently of Quantity (exponent >= -9 or
// divisible), as apimachinery's tests write decQuantity(mantissa, exponent, format).
inline Quantity::nano_t nano_of(std::int64_t mantissa, int exponent) {
  Quantity::nano_t nano = mantissa;
  for (int e = exponent + 9; e > 0; --e) nano *= 10;
  for (int e = exponent + 9; e < 0; ++e) nano /= 10;
  return nano;
}

// Decimal text of a 128-bit value (GoogleTest cannot print __int128).
inline std::string text(Quantity::nano_t value) {
  if (value == 0) return "0";
  const bool negative = value < 0;
  std::string digits;
  while (value != 0) {
    const int digit = static_cast<int>(value % 10);
    digits.insert(digits.begin(), static_cast<char>('0' + (digit < 0 ? -digit : digit)));
    value /= 10;
  }
  return negative ? "-" + digits : digits;
}

}  // namespace tailor::kube::quantity_test
