// Parsing of quantity strings with apimachinery's grammar and rounding (ParseQuantity):
//
//   <quantity> ::= <sign>? <digits>? ("." <digits>?)? <suffix>
//   <suffix>   ::= "" | n | u | m | k | M | G | T | P | E | Ki | Mi | Gi | Ti | Pi | Ei
//                | (e | E) <sign>? <digits>
//
// As in apimachinery the number may be empty ("." , "-", "Ki" and "m" all parse as zero), values
// finer than 1n are rounded away from zero to the next nano, and binary-suffixed values are
// capped at 2^63-1 (a BinarySI value between 0 and 1 becomes DecimalSI).
//
// Deliberate differences, each where apimachinery is silently wrong or unbounded:
//  - apimachinery keeps decimal values of any size in an inf.Dec ("1e100" parses). We hold
//    nano-units in 128 bits and reject |value| >= 2^127 nano (~1.7e29) with a QuantityError:
//    no Kubernetes resource comes near that, and silently clamping would change the value.
//  - apimachinery truncates an exponent to int32 ("1e4294967296" parses as 1); we reject
//    exponents outside the int32 range instead.
//  - Some apimachinery versions fail on a 19-digit integer above 2^63-1 ("9999999999999999999");
//    newer ones keep the exact value, as we do.
//
// Allocation-free unless an error message is requested: the scanner works on string_views and
// the arithmetic on 128-bit integers.
#include <limits>

#include "kube/model/quantity.h"
#include "kube/model/quantity_detail.h"

namespace tailor::kube {
namespace {

using quantity_detail::kMaxMagnitude;
using quantity_detail::kNanoPerUnit;
using quantity_detail::u128;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Characters apimachinery lets start a suffix (before an optional sign and exponent digits).
bool is_suffix_letter(char c) {
  switch (c) {
    case 'e':
    case 'E':
    case 'i':
    case 'n':
    case 'u':
    case 'm':
    case 'k':
    case 'K':
    case 'M':
    case 'G':
    case 'T':
    case 'P':
      return true;
    default:
      return false;
  }
}

enum class Failure { kNone, kEmpty, kBadCharacter, kUnknownSuffix, kExponentRange, kTooLarge };

struct ParseResult {
  Failure failure = Failure::kNone;
  std::size_t offset = 0;  // of the bad character or of the suffix
};

// The pieces of "<sign><num>.<denom><suffix>"; num has its leading zeros stripped.
struct Pieces {
  bool negative = false;
  std::string_view num;
  std::string_view denom;
  std::string_view suffix;
};

std::size_t skip_digits(std::string_view text, std::size_t pos) {
  while (pos < text.size() && is_digit(text[pos])) ++pos;
  return pos;
}

// Splits text into Pieces; on a character that cannot belong to a quantity, fails with its offset.
ParseResult split(std::string_view text, Pieces& pieces) {
  std::size_t pos = 0;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) {
    pieces.negative = text[pos] == '-';
    ++pos;
  }
  while (pos < text.size() && text[pos] == '0') ++pos;
  std::size_t end = skip_digits(text, pos);
  pieces.num = text.substr(pos, end - pos);
  pos = end;
  if (pos < text.size() && text[pos] == '.') {
    end = skip_digits(text, pos + 1);
    pieces.denom = text.substr(pos + 1, end - pos - 1);
    pos = end;
  }
  const std::size_t suffix_start = pos;
  while (pos < text.size() && is_suffix_letter(text[pos])) ++pos;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) ++pos;
  pos = skip_digits(text, pos);
  if (pos < text.size()) return {Failure::kBadCharacter, pos};
  pieces.suffix = text.substr(suffix_start);
  return {};
}

// What a suffix means: value × 10^exp10 × 2^exp2, printed in format.
struct SuffixMeaning {
  std::int64_t exp10 = 0;
  int exp2 = 0;
  QuantityFormat format = QuantityFormat::DecimalSI;
};

bool lookup_si_suffix(std::string_view suffix, SuffixMeaning& meaning) {
  static constexpr struct {
    std::string_view name;
    int exp10;
    int exp2;
  } kSuffixes[] = {
      {"", 0, 0},    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},  {"k", 3, 0},   {"M", 6, 0},
      {"G", 9, 0},   {"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 10}, {"Mi", 0, 20},
      {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
  };
  for (const auto& entry : kSuffixes) {
    if (entry.name == suffix) {
      meaning.exp10 = entry.exp10;
      meaning.exp2 = entry.exp2;
      meaning.format = entry.exp2 != 0 ? QuantityFormat::BinarySI : QuantityFormat::DecimalSI;
      return true;
    }
  }
  return false;
}

// "e<int>" / "E<int>" as Go's strconv.ParseInt reads <int>: optional sign, at least one digit.
Failure parse_exponent_suffix(std::string_view suffix, SuffixMeaning& meaning) {
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return Failure::kUnknownSuffix;
  std::string_view digits = suffix.substr(1);
  const bool negative = digits[0] == '-';
  if (digits[0] == '-' || digits[0] == '+') digits.remove_prefix(1);
  if (digits.empty()) return Failure::kUnknownSuffix;
  std::int64_t value = 0;
  for (char c : digits) {
    if (!is_digit(c)) return Failure::kUnknownSuffix;
    value = value * 10 + (c - '0');
    if (value > std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1) {
      return Failure::kExponentRange;
    }
  }
  value = negative ? -value : value;
  if (value > std::numeric_limits<std::int32_t>::max()) return Failure::kExponentRange;
  meaning = {value, 0, QuantityFormat::DecimalExponent};
  return Failure::kNone;
}

Failure interpret_suffix(std::string_view suffix, SuffixMeaning& meaning) {
  if (lookup_si_suffix(suffix, meaning)) return Failure::kNone;
  return parse_exponent_suffix(suffix, meaning);
}

// The digits of num followed by those of denom, read as one integer D.
class Digits {
 public:
  Digits(std::string_view num, std::string_view denom) : num_(num), denom_(denom) {}
  std::size_t size() const { return num_.size() + denom_.size(); }
  unsigned operator[](std::size_t i) const {
    return static_cast<unsigned>((i < num_.size() ? num_[i] : denom_[i - num_.size()]) - '0');
  }
  // The integer formed by digits [0, count); false when it exceeds kMaxMagnitude.
  bool leading_value(std::size_t count, u128& value) const {
    value = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (!quantity_detail::multiply_checked(value, 10)) return false;
      value += (*this)[i];
      if (value > kMaxMagnitude) return false;
    }
    return true;
  }

 private:
  std::string_view num_;
  std::string_view denom_;
};

// floor(L × 2^exp2 / 10^places) where L is digits [first, size) and places >= size - first
// (the missing high places are zeros), and whether that division left a remainder.
u128 divide_tail(const Digits& digits, std::size_t first, int exp2, std::int64_t places,
                 bool& inexact) {
  u128 carry = 0;  // stays below 2^exp2, so shifting a digit by exp2 <= 60 cannot overflow
  for (std::size_t i = digits.size(); i > first; --i) {
    const u128 t = (static_cast<u128>(digits[i - 1]) << exp2) + carry;
    inexact = inexact || t % 10 != 0;
    carry = t / 10;
  }
  // Dividing by the remaining powers of ten only matters until the carry runs out; this keeps
  // "1e-2147483647" from looping two billion times.
  for (std::int64_t pad = places - static_cast<std::int64_t>(digits.size() - first);
       pad > 0 && carry != 0; --pad) {
    inexact = inexact || carry % 10 != 0;
    carry /= 10;
  }
  return carry;
}

// |D × 2^exp2 × 10^exp10| in nano-units, rounded away from zero; false when above kMaxMagnitude.
bool nano_magnitude(const Digits& digits, int exp2, std::int64_t exp10, u128& nano) {
  const std::int64_t shift = exp10 + 9;
  if (shift >= 0) {
    return digits.leading_value(digits.size(), nano) &&
           quantity_detail::multiply_checked(nano, u128{1} << exp2) &&
           quantity_detail::scale_up_checked(nano, shift);
  }
  const std::int64_t places = -shift;
  const std::size_t head = static_cast<std::int64_t>(digits.size()) > places
                               ? digits.size() - static_cast<std::size_t>(places)
                               : 0;
  if (!digits.leading_value(head, nano) ||
      !quantity_detail::multiply_checked(nano, u128{1} << exp2)) {
    return false;
  }
  bool inexact = false;
  nano += divide_tail(digits, head, exp2, places, inexact);
  nano += inexact ? 1 : 0;
  return nano <= kMaxMagnitude;
}

// apimachinery's cap for binary-suffixed values: 2^63-1 units.
constexpr u128 kBinaryCapNano =
    static_cast<u128>(std::numeric_limits<std::int64_t>::max()) * kNanoPerUnit;

ParseResult parse_into(std::string_view text, Quantity::nano_t& nano, QuantityFormat& format) {
  if (text.empty()) return {Failure::kEmpty, 0};
  Pieces pieces;
  if (auto result = split(text, pieces); result.failure != Failure::kNone) return result;
  SuffixMeaning meaning;
  if (auto failure = interpret_suffix(pieces.suffix, meaning); failure != Failure::kNone) {
    return {failure, static_cast<std::size_t>(pieces.suffix.data() - text.data())};
  }
  const Digits digits(pieces.num, pieces.denom);
  const std::int64_t exp10 = meaning.exp10 - static_cast<std::int64_t>(pieces.denom.size());
  u128 magnitude = 0;
  const bool fits = nano_magnitude(digits, meaning.exp2, exp10, magnitude);
  format = meaning.format;
  if (format == QuantityFormat::BinarySI) {
    if (!fits || magnitude > kBinaryCapNano) magnitude = kBinaryCapNano;
    if (magnitude > 0 && magnitude < kNanoPerUnit) format = QuantityFormat::DecimalSI;
  } else if (!fits) {
    return {Failure::kTooLarge, 0};
  }
  nano = quantity_detail::with_sign(magnitude, pieces.negative);
  return {};
}

std::string describe(std::string_view text, ParseResult result) {
  std::string message = "invalid quantity " + quantity_detail::quote_for_error(text) + ": ";
  switch (result.failure) {
    case Failure::kEmpty:
      return message + "empty string";
    case Failure::kBadCharacter:
      return message + "unexpected character " +
             quantity_detail::quote_for_error(text.substr(result.offset, 1)) + " at offset " +
             std::to_string(result.offset) +
             " (expected <sign><digits>.<digits><suffix>, e.g. 100m, 1.5Gi, 1e3)";
    case Failure::kUnknownSuffix:
      return message + "unknown suffix " +
             quantity_detail::quote_for_error(text.substr(result.offset)) +
             " (expected one of n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei "
             "or an exponent such as e3)";
    case Failure::kExponentRange:
      return message + "exponent " + quantity_detail::quote_for_error(text.substr(result.offset)) +
             " out of range";
    case Failure::kTooLarge:
      return message + "magnitude too large (Tailor supports |value| < 1.7e29)";
    case Failure::kNone:
      break;
  }
  return message + "unknown error";
}

}  // namespace

std::optional<Quantity> Quantity::try_parse(std::string_view text, std::string* error) {
  Quantity quantity;
  const ParseResult result = parse_into(text, quantity.nano_, quantity.format_);
  if (result.failure == Failure::kNone) return quantity;
  if (error != nullptr) *error = describe(text, result);
  return std::nullopt;
}

Quantity Quantity::parse(std::string_view text) {
  Quantity quantity;
  const ParseResult result = parse_into(text, quantity.nano_, quantity.format_);
  if (result.failure != Failure::kNone) throw QuantityError(describe(text, result));
  return quantity;
}

}  // namespace tailor::kube
