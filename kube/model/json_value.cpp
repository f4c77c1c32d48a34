#include "kube/model/json_value.h"

#include <algorithm>
#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/error.hpp>
#include <boost/json/value_stack.hpp>
#include <charconv>
#include <cmath>
#include <optional>

namespace tailor::kube::json {
namespace {

namespace bj = boost::json;

class JsonValueCategory : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "tailor.kube.json_value"; }
  std::string message(int) const override { return "number out of range"; }
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A JSON number's digits before its exponent are all zeros: strconv.ParseFloat gives ±0 for any
// exponent (0 × 10^n), where Boost.JSON computes 0 × inf = NaN.
bool zero_mantissa(std::string_view number) {
  for (char c : number) {
    if (c == 'e' || c == 'E') break;
    if (is_digit(c) && c != '0') return false;
  }
  return true;
}

// The number's text as strconv.ParseFloat reads it: correctly rounded (Boost.JSON 1.81's default
// parse is not: about a third of 17-digit mantissas land an ulp or more away), an underflow is ±0,
// and none when past float64's range. approx, Boost.JSON's reading, tells an underflow from an
// overflow (from_chars reports both as out of range).
std::optional<double> parse_float(double approx, std::string_view number) {
  const bool negative = number.front() == '-';
  if (zero_mantissa(number)) return negative ? -0.0 : 0.0;
  double d = 0;
  auto [end, err] = std::from_chars(number.data(), number.data() + number.size(), d);
  if (err == std::errc() && end == number.data() + number.size()) return d;
  if (err == std::errc::result_out_of_range && std::abs(approx) < 1) return negative ? -0.0 : 0.0;
  return std::nullopt;
}

// Boost.JSON's value-building handler (detail::handler) with encoding/json's reading of numbers.
struct KubeValueHandler {
  static constexpr std::size_t max_object_size = bj::object::max_size();
  static constexpr std::size_t max_array_size = bj::array::max_size();
  static constexpr std::size_t max_key_size = bj::string::max_size();
  static constexpr std::size_t max_string_size = bj::string::max_size();

  bj::value_stack st;
  std::string number;               // the parts of a number the parser delivered before its last
  bool refuse_out_of_range = true;  // false: read the syntax only

  KubeValueHandler(bj::storage_ptr sp, unsigned char* buffer, std::size_t size)
      : st(std::move(sp), buffer, size) {}

  bool on_document_begin(bj::error_code&) { return true; }
  bool on_document_end(bj::error_code&) { return true; }
  bool on_object_begin(bj::error_code&) { return true; }
  bool on_object_end(std::size_t n, bj::error_code&) { return st.push_object(n), true; }
  bool on_array_begin(bj::error_code&) { return true; }
  bool on_array_end(std::size_t n, bj::error_code&) { return st.push_array(n), true; }
  bool on_key_part(bj::string_view s, std::size_t, bj::error_code&) {
    return st.push_chars(s), true;
  }
  bool on_key(bj::string_view s, std::size_t, bj::error_code&) { return st.push_key(s), true; }
  bool on_string_part(bj::string_view s, std::size_t, bj::error_code&) {
    return st.push_chars(s), true;
  }
  bool on_string(bj::string_view s, std::size_t, bj::error_code&) {
    return st.push_string(s), true;
  }
  bool on_number_part(bj::string_view s, bj::error_code&) {
    return number.append(s.data(), s.size()), true;
  }
  bool on_int64(std::int64_t i, bj::string_view, bj::error_code&) {
    number.clear();
    return st.push_int64(i), true;
  }
  bool on_uint64(std::uint64_t u, bj::string_view, bj::error_code&) {
    number.clear();
    return st.push_uint64(u), true;
  }
  bool on_double(double d, bj::string_view last, bj::error_code& ec) {
    std::string_view text(last.data(), last.size());
    if (!number.empty()) text = number.append(text);
    std::optional<double> value = parse_float(d, text);
    number.clear();
    if (!value && refuse_out_of_range) {
      ec = number_out_of_range();
      return false;
    }
    return st.push_double(value.value_or(d)), true;
  }
  bool on_bool(bool b, bj::error_code&) { return st.push_bool(b), true; }
  bool on_null(bj::error_code&) { return st.push_null(), true; }
  bool on_comment_part(bj::string_view, bj::error_code&) { return true; }
  bool on_comment(bj::string_view, bj::error_code&) { return true; }
};

bj::value parse_once(std::string_view text, boost::system::error_code& ec,
                     const bj::parse_options& options, bool refuse_out_of_range) {
  unsigned char temp[BOOST_JSON_STACK_BUFFER_SIZE];
  bj::basic_parser<KubeValueHandler> parser(options, bj::storage_ptr(), temp, sizeof temp);
  parser.handler().st.reset();
  parser.handler().refuse_out_of_range = refuse_out_of_range;
  std::size_t used = parser.write_some(false, text.data(), text.size(), ec);
  if (!ec && used < text.size()) ec = bj::error::extra_data;
  if (ec) return nullptr;
  return parser.handler().st.release();
}

// Where the number starting at i ends, by JSON's grammar (-?digits(.digits)?([eE][+-]?digits)?):
// what the parser reads as the number, and no more ("1e5-2" and "1ee5" are a number and junk).
std::size_t number_end(std::string_view text, std::size_t i) {
  auto digits = [&] {
    while (i < text.size() && is_digit(text[i])) ++i;
  };
  if (text[i] == '-') ++i;
  digits();
  if (i < text.size() && text[i] == '.') ++i, digits();
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    digits();
  }
  return i;
}

// Calls fn(number) for each number of JSON text, in order, until fn returns true.
template <class Fn>
void find_number(std::string_view text, Fn fn) {
  scan_outside_strings(text, [&](std::size_t i) {
    if (text[i] != '-' && !is_digit(text[i])) return i;
    std::size_t end = number_end(text, i);
    return fn(text.substr(i, end - i)) ? std::string_view::npos : std::max(end, i + 1) - 1;
  });
}

// Exponents of nine digits or more (Boost.JSON refuses those past 214748364: 0e999999999) cut to
// 100000000: as far out of float64's range, and past the digits any body holds, so each number
// reads as before.
std::string with_exponents_cut(std::string_view text) {
  constexpr std::string_view kCut = "100000000";
  std::string out;
  std::size_t copied = 0;
  find_number(text, [&](std::string_view number) {
    std::size_t e = number.find_first_of("eE");
    if (e == std::string_view::npos) return false;
    std::size_t digits = number.find_first_not_of("+-0", e + 1);
    if (digits == std::string_view::npos || number.size() - digits < kCut.size()) return false;
    std::size_t at = static_cast<std::size_t>(number.data() - text.data()) + digits;
    out.append(text.substr(copied, at - copied)).append(kCut);
    copied = static_cast<std::size_t>(number.data() - text.data()) + number.size();
    return false;
  });
  return out.append(text.substr(copied));
}

}  // namespace

boost::system::error_code number_out_of_range() {
  static const JsonValueCategory category;
  return {1, category};
}

// encoding/json checks the syntax of the whole text before it converts a number: "[1e999,x]" is
// a syntax error, not a number out of range.
static bj::value parse_syntax_first(std::string_view text, boost::system::error_code& ec,
                                    const bj::parse_options& options) {
  bj::value v = parse_once(text, ec, options, true);
  if (ec != number_out_of_range()) return v;
  boost::system::error_code syntax;
  (void)parse_once(text, syntax, options, false);
  if (syntax) ec = syntax;
  return v;
}

boost::json::value parse_value(std::string_view text, boost::system::error_code& ec,
                               const boost::json::parse_options& options) {
  bj::value v = parse_syntax_first(text, ec, options);
  if (ec != bj::error::exponent_overflow) return v;
  ec.clear();
  return parse_syntax_first(with_exponents_cut(text), ec, options);
}

std::optional<std::int64_t> integer_of(const boost::json::value& v) {
  if (v.is_int64()) return v.get_int64();
  if (!v.is_double()) return std::nullopt;
  constexpr double kSafe = 9007199254740991.0;  // 2^53 − 1
  const double d = v.get_double();
  if (!(std::fabs(d) <= kSafe) || std::trunc(d) != d) return std::nullopt;
  return static_cast<std::int64_t>(d);
}

std::string out_of_range_number(std::string_view text) {
  std::string found;
  find_number(text, [&](std::string_view number) {
    boost::system::error_code ec;
    (void)parse_value(number, ec);
    if (ec == number_out_of_range()) found = number;
    return !found.empty();
  });
  return found;
}

}  // namespace tailor::kube::json
