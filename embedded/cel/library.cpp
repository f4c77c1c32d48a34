#include "embedded/cel/library.h"

#include <algorithm>

#include "embedded/cel/operators.h"
#include "embedded/cel/regexp.h"

namespace tailor::embedded::cel {
namespace {

using Int = std::int64_t;
using ListPtr = std::shared_ptr<const List>;

// Byte offsets of each code point of s, and s.size() at the end.
std::vector<std::size_t> code_point_offsets(const std::string& s) {
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) at.push_back(i);
  at.push_back(s.size());
  return at;
}

Value out_of_range(Int i) { return Value::error("index out of range: " + std::to_string(i)); }

bool in_range(Int i, const std::vector<std::size_t>& at) {
  return i >= 0 && static_cast<std::size_t>(i) < at.size();
}

// The code-point index of byte offset b.
Int point_of(const std::vector<std::size_t>& at, std::size_t b) {
  return static_cast<Int>(std::lower_bound(at.begin(), at.end(), b) - at.begin());
}

Value index_of(const std::string& s, const std::string& t, std::optional<Int> from, bool last) {
  std::vector<std::size_t> at = code_point_offsets(s);
  Int start = from.value_or(last ? static_cast<Int>(at.size() - 1) : 0);
  if (!in_range(start, at)) return out_of_range(start);
  std::size_t b = at[static_cast<std::size_t>(start)];
  std::size_t found = last ? s.rfind(t, b) : s.find(t, b);
  return Value::integer(found == std::string::npos ? -1 : point_of(at, found));
}

Value substring(const std::string& s, Int begin, std::optional<Int> end) {
  std::vector<std::size_t> at = code_point_offsets(s);
  Int stop = end.value_or(static_cast<Int>(at.size() - 1));
  if (!in_range(begin, at)) return out_of_range(begin);
  if (!in_range(stop, at)) return out_of_range(stop);
  if (begin > stop)
    return Value::error("invalid substring range. start: " + std::to_string(begin) +
                        ", end: " + std::to_string(stop));
  std::size_t b = at[static_cast<std::size_t>(begin)], e = at[static_cast<std::size_t>(stop)];
  return Value::string(s.substr(b, e - b));
}

Value replace(const std::string& s, const std::string& from, const std::string& to, Int n) {
  std::string out;
  std::size_t i = 0;
  for (Int done = 0; n < 0 || done < n; ++done) {
    std::size_t found = s.find(from, i);
    if (found == std::string::npos) break;
    out += s.substr(i, found - i) + to;
    if (from.empty()) {  // Go inserts between code points
      if (found >= s.size()) return Value::string(out);
      std::size_t next = found + 1;
      while (next < s.size() && (static_cast<unsigned char>(s[next]) & 0xC0) == 0x80) ++next;
      out += s.substr(found, next - found);
      i = next;
    } else {
      i = found + from.size();
    }
  }
  return Value::string(out + (i < s.size() ? s.substr(i) : ""));
}

Value split(const std::string& s, const std::string& sep, Int n) {
  List parts;
  if (n == 0) return Value::list(parts);
  if (sep.empty()) {
    std::vector<std::size_t> at = code_point_offsets(s);
    for (std::size_t i = 0; i + 1 < at.size(); ++i) {
      if (n > 0 && static_cast<Int>(parts.size()) == n - 1) {
        parts.push_back(Value::string(s.substr(at[i])));
        return Value::list(std::move(parts));
      }
      parts.push_back(Value::string(s.substr(at[i], at[i + 1] - at[i])));
    }
    return Value::list(std::move(parts));
  }
  std::size_t i = 0;
  while (n < 0 || static_cast<Int>(parts.size()) < n - 1) {
    std::size_t found = s.find(sep, i);
    if (found == std::string::npos) break;
    parts.push_back(Value::string(s.substr(i, found - i)));
    i = found + sep.size();
  }
  parts.push_back(Value::string(s.substr(i)));
  return Value::list(std::move(parts));
}

std::optional<Value> string_call(const std::string& f, const std::vector<Value>& a) {
  const std::string& s = a[0].as<std::string>();
  auto str = [&](std::size_t i) { return i < a.size() && a[i].is<std::string>(); };
  auto num = [&](std::size_t i) { return i < a.size() && a[i].is<Int>(); };
  auto opt = [&](std::size_t i) -> std::optional<Int> {
    return i < a.size() ? std::optional<Int>(a[i].as<Int>()) : std::nullopt;
  };
  if (f == "charAt" && num(1)) {
    std::vector<std::size_t> at = code_point_offsets(s);
    Int i = a[1].as<Int>();
    if (!in_range(i, at)) return out_of_range(i);
    std::size_t b = at[static_cast<std::size_t>(i)];
    std::size_t e =
        static_cast<std::size_t>(i) + 1 < at.size() ? at[static_cast<std::size_t>(i) + 1] : b;
    return Value::string(s.substr(b, e - b));
  }
  if ((f == "indexOf" || f == "lastIndexOf") && str(1) && (a.size() == 2 || num(2)))
    return index_of(s, a[1].as<std::string>(), opt(2), f == "lastIndexOf");
  if (f == "substring" && num(1) && (a.size() == 2 || num(2)))
    return substring(s, a[1].as<Int>(), opt(2));
  if (f == "replace" && str(1) && str(2) && (a.size() == 3 || num(3)))
    return replace(s, a[1].as<std::string>(), a[2].as<std::string>(), opt(3).value_or(-1));
  if (f == "split" && str(1) && (a.size() == 2 || num(2)))
    return split(s, a[1].as<std::string>(), opt(2).value_or(-1));
  if ((f == "find" || f == "findAll") && str(1) && (a.size() == 2 || num(2))) {
    Int limit = f == "find" ? 1 : opt(2).value_or(-1);
    auto found = regexp_find_all(a[1].as<std::string>(), s, static_cast<long>(limit));
    if (!found) return Value::error(regexp_error(a[1].as<std::string>()));
    if (f == "find") return Value::string(found->empty() ? "" : found->front());
    List l;
    for (std::string& m : *found) l.push_back(Value::string(std::move(m)));
    return Value::list(std::move(l));
  }
  return std::nullopt;
}

Value extreme(const std::string& f, const List& l) {
  if (l.empty()) return Value::error(f + "(list) argument must not be empty");
  Value best = l.front();
  for (const Value& v : l) {
    std::optional<int> c = compare(v, best);
    if (!c) return no_overload();
    if ((f == "min" && *c < 0) || (f == "max" && *c > 0)) best = v;
  }
  return best;
}

std::optional<Value> list_call(const std::string& f, const std::vector<Value>& a) {
  const List& l = a[0].items();
  if (f == "isSorted" && a.size() == 1) {
    for (std::size_t i = 1; i < l.size(); ++i) {
      std::optional<int> c = compare(l[i - 1], l[i]);
      if (!c) return no_overload();
      if (*c > 0) return Value::boolean(false);
    }
    return Value::boolean(true);
  }
  if (f == "sum" && a.size() == 1) {
    Value total = Value::integer(0);
    if (!l.empty() && l[0].is<std::uint64_t>()) total = Value::unsigned_integer(0);
    if (!l.empty() && l[0].is<double>()) total = Value::real(0);
    for (const Value& v : l) {
      total = arithmetic("+", total, v);
      if (total.is_error()) return total;
    }
    return total;
  }
  if ((f == "min" || f == "max") && a.size() == 1) return extreme(f, l);
  if ((f == "indexOf" || f == "lastIndexOf") && a.size() == 2) {
    for (std::size_t k = 0; k < l.size(); ++k) {
      std::size_t i = f == "indexOf" ? k : l.size() - 1 - k;
      if (equal(l[i], a[1])) return Value::integer(static_cast<Int>(i));
    }
    return Value::integer(-1);
  }
  return std::nullopt;
}

// apimachinery's ErrFormatWrong, what quantity() fails with.
const char* kQuantityFormat =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

// The quantity's value as an int64 when it is a whole number in range (apimachinery's AsInt64).
std::optional<Int> as_integer(const kube::Quantity& q) {
  constexpr kube::Quantity::nano_t kNano = 1000000000;
  kube::Quantity::nano_t n = q.nano();
  if (n % kNano != 0) return std::nullopt;
  kube::Quantity::nano_t whole = n / kNano;
  if (whole > INT64_MAX || whole < INT64_MIN) return std::nullopt;
  return static_cast<Int>(whole);
}

std::optional<Value> quantity_call(const std::string& f, const std::vector<Value>& a) {
  const kube::Quantity& q = a[0].as<kube::Quantity>();
  if (a.size() == 1) {
    if (f == "sign") return Value::integer(q.sign());
    if (f == "isInteger") return Value::boolean(as_integer(q).has_value());
    if (f == "asInteger") {
      std::optional<Int> i = as_integer(q);
      return i ? Value::integer(*i) : Value::error("cannot convert value to integer");
    }
    if (f == "asApproximateFloat") return Value::real(q.as_double());
    return std::nullopt;
  }
  std::optional<kube::Quantity> other;
  if (a[1].is<kube::Quantity>()) other = a[1].as<kube::Quantity>();
  if (a[1].is<Int>()) other = kube::Quantity::from_int(a[1].as<Int>());
  if (!other) return std::nullopt;
  try {
    if (f == "add") return Value::quantity(q + *other);
    if (f == "sub") return Value::quantity(q - *other);
  } catch (const kube::QuantityError& e) {
    return Value::error(e.what());
  }
  if (!a[1].is<kube::Quantity>()) return std::nullopt;
  if (f == "isLessThan") return Value::boolean(q < *other);
  if (f == "isGreaterThan") return Value::boolean(q > *other);
  if (f == "compareTo") return Value::integer(q < *other ? -1 : q > *other ? 1 : 0);
  return std::nullopt;
}

// sets.contains: every element of b is in a; intersects: some is; equivalent: contains both ways.
std::optional<Value> set_call(const std::string& f, const std::vector<Value>& a) {
  if (a.size() != 2 || !a[0].is<ListPtr>() || !a[1].is<ListPtr>()) return std::nullopt;
  auto holds = [](const List& in, const Value& x) {
    return std::any_of(in.begin(), in.end(), [&](const Value& e) { return equal(e, x); });
  };
  auto contains = [&](const List& x, const List& y) {
    return std::all_of(y.begin(), y.end(), [&](const Value& e) { return holds(x, e); });
  };
  const List &x = a[0].items(), &y = a[1].items();
  if (f == "sets.contains") return Value::boolean(contains(x, y));
  if (f == "sets.equivalent") return Value::boolean(contains(x, y) && contains(y, x));
  if (f == "sets.intersects")
    return Value::boolean(
        std::any_of(y.begin(), y.end(), [&](const Value& e) { return holds(x, e); }));
  return std::nullopt;
}

}  // namespace

std::optional<Value> library_call(const std::string& f, const std::vector<Value>& a,
                                  std::uint64_t& steps) {
  if (a.empty()) return std::nullopt;
  if (a[0].is<std::string>() && a.size() == 1 && (f == "quantity" || f == "isQuantity")) {
    std::optional<kube::Quantity> q = kube::Quantity::try_parse(a[0].as<std::string>());
    if (f == "isQuantity") return Value::boolean(q.has_value());
    return q ? Value::quantity(*q) : Value::error(kQuantityFormat);
  }
  if (a[0].is<std::string>()) {
    // Charged only when handled here: CEL's own string functions are charged by their caller.
    std::optional<Value> r = string_call(f, a);
    if (r) steps += a[0].as<std::string>().size() / 10 + 1;
    return r;
  }
  if (a[0].is<kube::Quantity>()) return quantity_call(f, a);
  if (f.rfind("sets.", 0) == 0) {
    if (a.size() == 2 && a[0].is<ListPtr>() && a[1].is<ListPtr>())
      steps += a[0].items().size() * a[1].items().size() + 1;
    return set_call(f, a);
  }
  if (a[0].is<ListPtr>()) {
    steps += a[0].items().size() + 1;
    return list_call(f, a);
  }
  return std::nullopt;
}

}  // namespace tailor::embedded::cel
