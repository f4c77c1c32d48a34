// Canonical printing, as apimachinery's Quantity.String() / CanonicalizeBytes:
//  - zero prints "0" whatever the format;
//  - DecimalSI / DecimalExponent: the mantissa loses its trailing zeros into the exponent, then the
//    exponent is lowered to a multiple of 3 (1.5 -> 1500m, 1e3 -> 1e3, 80e-3). DecimalSI has no
//    suffix above E (10^18), so larger exponents print as "e21" like current apimachinery
//    (older releases dropped the exponent, printing 10^21 as "1");
//  - BinarySI: a whole value of at least 1024 prints with the largest binary suffix that divides it
//    (1536Mi, 1Gi); other binary values print as DecimalSI (0.5Ki -> 512, 1.5 -> 1500m).
//    Above Ei the mantissa keeps the remaining factors of 1024 ("1024Ei"); apimachinery has no
//    suffix there and prints just the mantissa, which we do not copy.
#include <ostream>

#include "kube/model/quantity.h"
#include "kube/model/quantity_detail.h"

namespace tailor::kube {
namespace quantity_detail {

void append_decimal(std::string& out, u128 value) {
  char buffer[40];  // 2^128 has 39 digits
  char* end = buffer + sizeof(buffer);
  char* begin = end;
  do {
    *--begin = static_cast<char>('0' + static_cast<int>(value % 10));
    value /= 10;
  } while (value != 0);
  out.append(begin, end);
}

std::string quote_for_error(std::string_view text) {
  constexpr std::size_t kMaxShown = 64;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += text.size() > kMaxShown ? "\"..." : "\"";
  return out;
}

}  // namespace quantity_detail

namespace {

using quantity_detail::kNanoPerUnit;
using quantity_detail::u128;

std::string_view decimal_si_suffix(std::int64_t exponent) {
  switch (exponent) {
    case -9:
      return "n";
    case -6:
      return "u";
    case -3:
      return "m";
    case 0:
      return "";
    case 3:
      return "k";
    case 6:
      return "M";
    case 9:
      return "G";
    case 12:
      return "T";
    case 15:
      return "P";
    case 18:
      return "E";
    default:
      return {};
  }
}

void append_exponent(std::string& out, std::int64_t exponent) {
  if (exponent == 0) return;
  out += 'e';
  if (exponent < 0) out += '-';
  quantity_detail::append_decimal(out, static_cast<u128>(exponent < 0 ? -exponent : exponent));
}

// magnitude × 10^-9 as <mantissa><suffix> with the exponent a multiple of 3.
void append_decimal_form(std::string& out, u128 magnitude, bool exponent_form) {
  std::int64_t exponent = -9;
  while (magnitude % 10 == 0) {
    magnitude /= 10;
    ++exponent;
  }
  // Lowering the exponent to a multiple of 3 restores at most the zeros just removed
  // (-9 is a multiple of 3), so this never exceeds the original magnitude.
  const std::int64_t excess = ((exponent % 3) + 3) % 3;
  magnitude *= quantity_detail::kPow10[static_cast<std::size_t>(excess)];
  exponent -= excess;
  quantity_detail::append_decimal(out, magnitude);
  const bool has_si_suffix = exponent <= 18;
  if (exponent_form || !has_si_suffix) {
    append_exponent(out, exponent);
  } else {
    out += decimal_si_suffix(exponent);
  }
}

void append_binary_form(std::string& out, u128 units) {
  static constexpr std::string_view kSuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  std::size_t power = 0;
  while (power + 1 < std::size(kSuffixes) && units % 1024 == 0) {
    units /= 1024;
    ++power;
  }
  quantity_detail::append_decimal(out, units);
  out += kSuffixes[power];
}

}  // namespace

std::string Quantity::to_string() const {
  if (nano_ == 0) return "0";
  const u128 magnitude = quantity_detail::magnitude(nano_);
  std::string out;
  out.reserve(24);
  if (nano_ < 0) out += '-';
  const bool whole = magnitude % kNanoPerUnit == 0;
  if (format_ == QuantityFormat::BinarySI && whole && magnitude >= 1024 * kNanoPerUnit) {
    append_binary_form(out, magnitude / kNanoPerUnit);
  } else {
    append_decimal_form(out, magnitude, format_ == QuantityFormat::DecimalExponent);
  }
  return out;
}

std::ostream& operator<<(std::ostream& out, const Quantity& quantity) {
  return out << quantity.to_string();
}

std::ostream& operator<<(std::ostream& out, QuantityFormat format) {
  switch (format) {
    case QuantityFormat::DecimalSI:
      return out << "DecimalSI";
    case QuantityFormat::BinarySI:
      return out << "BinarySI";
    case QuantityFormat::DecimalExponent:
      return out << "DecimalExponent";
  }
  return out << "QuantityFormat(" << static_cast<int>(format) << ")";
}

}  // namespace tailor::kube
