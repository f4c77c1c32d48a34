#include "kube/observe/duration.h"

#include <cstdint>
#include <limits>
#include <stdexcept>

namespace tailor::kube {
namespace {

struct Unit {
  std::string_view name;
  std::uint64_t nanos;
};

constexpr Unit kUnits[] = {
    {"ns", 1},           {"us", 1000},      {"\xC2\xB5s", 1000},  // U+00B5 micro sign
    {"\xCE\xBCs", 1000},                                          // U+03BC Greek mu
    {"ms", 1000000},     {"s", 1000000000}, {"m", 60ULL * 1000000000}, {"h", 3600ULL * 1000000000},
};

[[noreturn]] void fail(std::string_view text, std::string_view why) {
  throw std::invalid_argument("invalid duration \"" + std::string(text) +
                              "\": " + std::string(why));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Leading decimal digits of s, consumed; overflow is reported by setting overflow.
std::uint64_t take_integer(std::string_view& s, bool& overflow, int& digits) {
  std::uint64_t v = 0;
  digits = 0;
  while (!s.empty() && is_digit(s.front())) {
    if (v > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) overflow = true;
    if (!overflow) v = v * 10 + static_cast<std::uint64_t>(s.front() - '0');
    s.remove_prefix(1);
    ++digits;
  }
  return v;
}

// Fraction digits as value/scale, keeping precision only while it fits.
void take_fraction(std::string_view& s, std::uint64_t& value, double& scale, int& digits) {
  value = 0;
  scale = 1;
  digits = 0;
  bool saturated = false;
  while (!s.empty() && is_digit(s.front())) {
    if (!saturated && value <= (std::numeric_limits<std::int64_t>::max() - 9) / 10) {
      value = value * 10 + static_cast<std::uint64_t>(s.front() - '0');
      scale *= 10;
    } else {
      saturated = true;  // further digits cannot change the nanosecond result meaningfully
    }
    s.remove_prefix(1);
    ++digits;
  }
}

const Unit& take_unit(std::string_view text, std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && s[n] != '.' && !is_digit(s[n])) ++n;
  if (n == 0) fail(text, "missing unit");
  std::string_view name = s.substr(0, n);
  for (const Unit& u : kUnits) {
    if (u.name == name) {
      s.remove_prefix(n);
      return u;
    }
  }
  fail(text, "unknown unit \"" + std::string(name) + "\"");
}

}  // namespace

Duration parse_duration(std::string_view text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Duration::zero();
  if (s.empty()) fail(text, "empty");
  constexpr std::uint64_t kMax =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t total = 0;
  while (!s.empty()) {
    bool overflow = false;
    int int_digits = 0, frac_digits = 0;
    std::uint64_t whole = take_integer(s, overflow, int_digits);
    std::uint64_t frac = 0;
    double scale = 1;
    if (!s.empty() && s.front() == '.') {
      s.remove_prefix(1);
      take_fraction(s, frac, scale, frac_digits);
    }
    if (int_digits == 0 && frac_digits == 0) fail(text, "expected a number");
    const Unit& unit = take_unit(text, s);
    if (overflow || whole > kMax / unit.nanos) fail(text, "out of range");
    std::uint64_t v = whole * unit.nanos;
    if (frac > 0)
      v += static_cast<std::uint64_t>(static_cast<double>(frac) *
                                      (static_cast<double>(unit.nanos) / scale));
    if (v > kMax || total > kMax - v) fail(text, "out of range");
    total += v;
  }
  auto count = static_cast<std::int64_t>(total);
  return Duration(negative ? -count : count);
}

namespace {

// Appends v/10^prec with trailing fractional zeros removed, e.g. (1500, 3) -> "1.5".
std::string fixed_point(std::uint64_t v, int prec) {
  std::uint64_t pow = 1;
  for (int i = 0; i < prec; ++i) pow *= 10;
  std::string out = std::to_string(v / pow);
  std::uint64_t frac = v % pow;
  if (frac == 0) return out;
  std::string digits = std::to_string(frac);
  digits.insert(0, static_cast<std::size_t>(prec) - digits.size(), '0');
  while (digits.back() == '0') digits.pop_back();
  return out + "." + digits;
}

}  // namespace

std::string format_duration(Duration d) {
  std::int64_t n = d.count();
  if (n == 0) return "0s";
  std::string sign = n < 0 ? "-" : "";
  std::uint64_t u = n < 0 ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  if (u < 1000) return sign + std::to_string(u) + "ns";
  if (u < 1000000) return sign + fixed_point(u, 3) + "\xC2\xB5s";
  if (u < 1000000000) return sign + fixed_point(u, 6) + "ms";
  std::uint64_t secs_nanos = u % 60000000000ULL;
  std::uint64_t minutes = u / 60000000000ULL;
  std::string out = sign;
  if (minutes >= 60) out += std::to_string(minutes / 60) + "h";
  if (minutes > 0) out += std::to_string(minutes % 60) + "m";
  return out + fixed_point(secs_nanos, 9) + "s";
}

}  // namespace tailor::kube
