// CEL's operators and standard functions on values: overflow-checked arithmetic, comparisons
// across numeric kinds, membership, indexing and the conversions.
#include "embedded/cel/operators.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <map>

namespace tailor::embedded::cel {
namespace {

using Int = std::int64_t;
using Uint = std::uint64_t;
using ListPtr = std::shared_ptr<const List>;
using MapPtr = std::shared_ptr<const Map>;

const char* kNoOverload = "no such overload";

}  // namespace

Value no_overload() { return Value::error(kNoOverload); }

static std::string format_double(double d) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

Value arithmetic_int(const std::string& op, Int a, Int b) {
  Int r = 0;
  bool overflow = false;
  if (op == "+") overflow = __builtin_add_overflow(a, b, &r);
  if (op == "-") overflow = __builtin_sub_overflow(a, b, &r);
  if (op == "*") overflow = __builtin_mul_overflow(a, b, &r);
  if (op == "/" || op == "%") {
    if (b == 0) return Value::error(op == "/" ? "division by zero" : "modulus by zero");
    if (a == std::numeric_limits<Int>::min() && b == -1) return Value::error("integer overflow");
    r = op == "/" ? a / b : a % b;
  }
  return overflow ? Value::error("integer overflow") : Value::integer(r);
}

static Value arithmetic_uint(const std::string& op, Uint a, Uint b) {
  Uint r = 0;
  bool overflow = false;
  if (op == "+") overflow = __builtin_add_overflow(a, b, &r);
  if (op == "-") overflow = __builtin_sub_overflow(a, b, &r);
  if (op == "*") overflow = __builtin_mul_overflow(a, b, &r);
  if (op == "/" || op == "%") {
    if (b == 0) return Value::error(op == "/" ? "division by zero" : "modulus by zero");
    r = op == "/" ? a / b : a % b;
  }
  return overflow ? Value::error("unsigned integer overflow") : Value::unsigned_integer(r);
}

Value arithmetic(const std::string& op, const Value& a, const Value& b) {
  if (a.is<Int>() && b.is<Int>()) return arithmetic_int(op, a.as<Int>(), b.as<Int>());
  if (a.is<Uint>() && b.is<Uint>()) return arithmetic_uint(op, a.as<Uint>(), b.as<Uint>());
  if (a.is<double>() && b.is<double>() && op != "%") {
    double x = a.as<double>(), y = b.as<double>();
    return Value::real(op == "+" ? x + y : op == "-" ? x - y : op == "*" ? x * y : x / y);
  }
  if (op == "+" && a.is<std::string>() && b.is<std::string>())
    return Value::string(a.as<std::string>() + b.as<std::string>());
  if (op == "+" && a.is<ListPtr>() && b.is<ListPtr>()) {
    List l = a.items();
    l.insert(l.end(), b.items().begin(), b.items().end());
    return Value::list(std::move(l));
  }
  return no_overload();
}

Value relation(const std::string& op, const Value& a, const Value& b) {
  if (op == "==") return Value::boolean(equal(a, b));
  if (op == "!=") return Value::boolean(!equal(a, b));
  std::optional<int> c = compare(a, b);
  if (!c) {
    bool nan = (a.is<double>() && std::isnan(a.as<double>())) ||
               (b.is<double>() && std::isnan(b.as<double>()));
    bool numbers = (a.is<Int>() || a.is<Uint>() || a.is<double>()) &&
                   (b.is<Int>() || b.is<Uint>() || b.is<double>());
    return nan && numbers ? Value::boolean(false) : no_overload();
  }
  if (op == "<") return Value::boolean(*c < 0);
  if (op == "<=") return Value::boolean(*c <= 0);
  if (op == ">") return Value::boolean(*c > 0);
  return Value::boolean(*c >= 0);
}

Value membership(const Value& item, const Value& container) {
  if (container.is<ListPtr>()) {
    for (const Value& e : container.items())
      if (equal(e, item)) return Value::boolean(true);
    return Value::boolean(false);
  }
  if (container.is<MapPtr>()) return Value::boolean(find_key(container.entries(), item) != nullptr);
  return no_overload();
}

static std::string key_text(const Value& key) {
  return key.is<std::string>() ? key.as<std::string>() : to_string(key);
}

Value index(const Value& container, const Value& key) {
  if (container.is<MapPtr>()) {
    if (!(key.is<std::string>() || key.is<Int>() || key.is<Uint>() || key.is<bool>() ||
          key.is<double>()))
      return no_overload();
    const Value* v = find_key(container.entries(), key);
    return v ? *v : Value::error("no such key: " + key_text(key));
  }
  if (!container.is<ListPtr>()) return no_overload();
  const List& l = container.items();
  Int i = 0;
  if (key.is<Int>()) {
    i = key.as<Int>();
  } else if (key.is<Uint>() && key.as<Uint>() <= static_cast<Uint>(INT64_MAX)) {
    i = static_cast<Int>(key.as<Uint>());
  } else if (key.is<double>() && std::trunc(key.as<double>()) == key.as<double>() &&
             std::fabs(key.as<double>()) < 9.2e18) {
    i = static_cast<Int>(key.as<double>());
  } else {
    return key.is<Uint>() || key.is<double>() ? Value::error("unsupported index value")
                                              : no_overload();
  }
  if (i < 0 || static_cast<Uint>(i) >= l.size())
    return Value::error("index '" + std::to_string(i) + "' out of range in list size '" +
                        std::to_string(l.size()) + "'");
  return l[static_cast<std::size_t>(i)];
}

// int(string) and uint(string): the whole string, in base 10, or CEL's conversion error.
template <typename T>
Value parse_whole(const std::string& s, const char* type, Value (*make)(T)) {
  T out = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty())
    return Value::error("cannot convert \"" + s + "\" to " + type);
  return make(out);
}

Value to_int(const Value& v) {
  if (v.is<Int>()) return v;
  if (v.is<Uint>())
    return v.as<Uint>() > static_cast<Uint>(INT64_MAX)
               ? Value::error("range error")
               : Value::integer(static_cast<Int>(v.as<Uint>()));
  if (v.is<double>()) {
    double d = v.as<double>();
    if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0))
      return Value::error("range error");
    return Value::integer(static_cast<Int>(d));
  }
  if (v.is<std::string>()) return parse_whole<Int>(v.as<std::string>(), "int", Value::integer);
  return no_overload();
}

Value to_uint(const Value& v) {
  if (v.is<Uint>()) return v;
  if (v.is<Int>())
    return v.as<Int>() < 0 ? Value::error("range error")
                           : Value::unsigned_integer(static_cast<Uint>(v.as<Int>()));
  if (v.is<double>()) {
    double d = v.as<double>();
    if (!(d > -1.0 && d < 18446744073709551616.0)) return Value::error("range error");
    return Value::unsigned_integer(static_cast<Uint>(d));
  }
  if (v.is<std::string>())
    return parse_whole<Uint>(v.as<std::string>(), "uint", Value::unsigned_integer);
  return no_overload();
}

Value to_double(const Value& v) {
  if (v.is<double>()) return v;
  if (v.is<Int>()) return Value::real(static_cast<double>(v.as<Int>()));
  if (v.is<Uint>()) return Value::real(static_cast<double>(v.as<Uint>()));
  if (v.is<std::string>()) {
    const std::string& s = v.as<std::string>();
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size())
      return Value::error("cannot convert \"" + s + "\" to double");
    return Value::real(d);
  }
  return no_overload();
}

Value to_text(const Value& v) {
  if (v.is<std::string>()) return v;
  if (v.is<Int>()) return Value::string(std::to_string(v.as<Int>()));
  if (v.is<Uint>()) return Value::string(std::to_string(v.as<Uint>()));
  if (v.is<double>()) return Value::string(format_double(v.as<double>()));
  if (v.is<bool>()) return Value::string(v.as<bool>() ? "true" : "false");
  return no_overload();
}

Value to_bool(const Value& v) {
  if (v.is<bool>()) return v;
  if (v.is<std::string>()) {
    static const std::map<std::string, bool> names = {
        {"1", true},  {"t", true},  {"true", true},   {"TRUE", true},   {"True", true},
        {"0", false}, {"f", false}, {"false", false}, {"FALSE", false}, {"False", false}};
    auto it = names.find(v.as<std::string>());
    if (it != names.end()) return Value::boolean(it->second);
    return Value::error("cannot convert \"" + v.as<std::string>() + "\" to bool");
  }
  return no_overload();
}

std::string ascii_case(std::string s, bool upper) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x80)
      c = static_cast<char>(upper ? std::toupper(c) : std::tolower(c));
  return s;
}

}  // namespace tailor::embedded::cel
