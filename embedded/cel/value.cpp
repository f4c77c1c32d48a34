#include "embedded/cel/value.h"

#include <boost/json.hpp>
#include <cmath>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>

namespace tailor::embedded::cel {
namespace {

// Numbers compare by value across int, uint and double (no rounding of large ints into doubles
// when both are integers).
std::optional<int> compare_numbers(const Value& a, const Value& b) {
  auto sign = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if (a.is<std::int64_t>() && b.is<std::int64_t>())
    return sign(a.as<std::int64_t>(), b.as<std::int64_t>());
  if (a.is<std::uint64_t>() && b.is<std::uint64_t>())
    return sign(a.as<std::uint64_t>(), b.as<std::uint64_t>());
  if (a.is<std::int64_t>() && b.is<std::uint64_t>()) {
    std::int64_t i = a.as<std::int64_t>();
    return i < 0 ? -1 : sign(static_cast<std::uint64_t>(i), b.as<std::uint64_t>());
  }
  if (a.is<std::uint64_t>() && b.is<std::int64_t>()) {
    std::optional<int> r = compare_numbers(b, a);
    return r ? std::optional<int>(-*r) : std::nullopt;
  }
  auto real = [](const Value& v) -> std::optional<double> {
    if (v.is<double>()) return v.as<double>();
    if (v.is<std::int64_t>()) return static_cast<double>(v.as<std::int64_t>());
    if (v.is<std::uint64_t>()) return static_cast<double>(v.as<std::uint64_t>());
    return std::nullopt;
  };
  std::optional<double> x = real(a), y = real(b);
  if (!x || !y || std::isnan(*x) || std::isnan(*y)) return std::nullopt;
  return sign(*x, *y);
}

bool numeric(const Value& v) {
  return v.is<std::int64_t>() || v.is<std::uint64_t>() || v.is<double>();
}

}  // namespace

std::optional<int> compare(const Value& a, const Value& b) {
  auto sign = [](const auto& x, const auto& y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if (a.is<std::string>() && b.is<std::string>())
    return sign(a.as<std::string>(), b.as<std::string>());
  if (a.is<bool>() && b.is<bool>()) return sign(a.as<bool>(), b.as<bool>());
  if (numeric(a) && numeric(b)) return compare_numbers(a, b);
  return std::nullopt;
}

std::string type_name(const Value& v) {
  static constexpr const char* names[] = {"null_type",
                                          "bool",
                                          "int",
                                          "uint",
                                          "double",
                                          "string",
                                          "list",
                                          "map",
                                          "error",
                                          "type",
                                          "kubernetes.Quantity"};
  static_assert(std::size(names) == std::variant_size_v<decltype(v.v)>);
  return names[v.v.index()];
}

bool equal(const Value& a, const Value& b) {
  if (numeric(a) && numeric(b)) {
    std::optional<int> c = compare_numbers(a, b);
    return c && *c == 0;
  }
  if (a.v.index() != b.v.index()) return false;
  if (a.is<Null>()) return true;
  if (a.is<bool>()) return a.as<bool>() == b.as<bool>();
  if (a.is<std::string>()) return a.as<std::string>() == b.as<std::string>();
  if (a.is<TypeValue>()) return a.as<TypeValue>().name == b.as<TypeValue>().name;
  if (a.is<kube::Quantity>()) return a.as<kube::Quantity>() == b.as<kube::Quantity>();
  if (a.is<std::shared_ptr<const List>>()) {
    const List &x = a.items(), &y = b.items();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!equal(x[i], y[i])) return false;
    return true;
  }
  if (a.is<std::shared_ptr<const Map>>()) {
    const Map &x = a.entries(), &y = b.entries();
    if (x.size() != y.size()) return false;
    for (const auto& [k, v] : x) {
      const Value* other = find_key(y, k);
      if (!other || !equal(v, *other)) return false;
    }
    return true;
  }
  return false;  // errors are never equal
}

const Value* find_key(const Map& map, const Value& key) {
  for (const auto& [k, v] : map)
    if (equal(k, key)) return &v;
  return nullptr;
}

Value from_json(const boost::json::value& json) {
  switch (json.kind()) {
    case boost::json::kind::null:
      return Value::null();
    case boost::json::kind::bool_:
      return Value::boolean(json.get_bool());
    case boost::json::kind::int64:
      return Value::integer(json.get_int64());
    case boost::json::kind::uint64: {
      std::uint64_t u = json.get_uint64();
      if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return Value::integer(static_cast<std::int64_t>(u));
      return Value::unsigned_integer(u);
    }
    case boost::json::kind::double_:
      return Value::real(json.get_double());
    case boost::json::kind::string:
      return Value::string(std::string(json.get_string()));
    case boost::json::kind::array: {
      List l;
      for (const boost::json::value& e : json.get_array()) l.push_back(from_json(e));
      return Value::list(std::move(l));
    }
    case boost::json::kind::object: {
      Map m;
      for (const auto& [k, e] : json.get_object())
        m.emplace_back(Value::string(std::string(k)), from_json(e));
      return Value::map(std::move(m));
    }
  }
  return Value::null();
}

std::string to_string(const Value& v) {
  if (v.is<Null>()) return "null";
  if (v.is<bool>()) return v.as<bool>() ? "true" : "false";
  if (v.is<std::int64_t>()) return std::to_string(v.as<std::int64_t>());
  if (v.is<std::uint64_t>()) return std::to_string(v.as<std::uint64_t>()) + "u";
  if (v.is<double>()) {
    std::ostringstream out;
    out << v.as<double>();
    return out.str();
  }
  if (v.is<std::string>()) return boost::json::serialize(boost::json::value(v.as<std::string>()));
  if (v.is<Error>()) return "error: " + v.as<Error>().message;
  if (v.is<TypeValue>()) return v.as<TypeValue>().name;
  if (v.is<kube::Quantity>()) return "quantity(" + v.as<kube::Quantity>().to_string() + ")";
  std::string out;
  if (v.is<std::shared_ptr<const List>>()) {
    for (const Value& e : v.items()) out += (out.empty() ? "" : ", ") + to_string(e);
    return "[" + out + "]";
  }
  for (const auto& [k, e] : v.entries())
    out += (out.empty() ? "" : ", ") + to_string(k) + ": " + to_string(e);
  return "{" + out + "}";
}

}  // namespace tailor::embedded::cel
