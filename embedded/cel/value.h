// CEL's runtime values (the subset tailor-cluster's CRD rules meet): null, bool, int, uint, double,
// string, list, map, type and Kubernetes' Quantity, plus the error value that CEL's logical
// operators absorb.
#pragma once

#include <boost/json/fwd.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "kube/model/quantity.h"

namespace tailor::embedded::cel {

struct Value;
using List = std::vector<Value>;
using Map = std::vector<std::pair<Value, Value>>;  // insertion order; keys unique
struct Null {};
struct Error {
  std::string message;
};
// A type as a value: what type(x) returns and `int`, `string`, `list`, ... name.
struct TypeValue {
  std::string name;  // "int", "list", "map", "null_type", "type", ...
};

struct Value {
  std::variant<Null, bool, std::int64_t, std::uint64_t, double, std::string,
               std::shared_ptr<const List>, std::shared_ptr<const Map>, Error, TypeValue,
               kube::Quantity>
      v;

  static Value null() { return {Null{}}; }
  static Value boolean(bool b) { return {b}; }
  static Value integer(std::int64_t i) { return {i}; }
  static Value unsigned_integer(std::uint64_t u) { return {u}; }
  static Value real(double d) { return {d}; }
  static Value string(std::string s) { return {std::move(s)}; }
  static Value list(List l) { return {std::make_shared<const List>(std::move(l))}; }
  static Value map(Map m) { return {std::make_shared<const Map>(std::move(m))}; }
  static Value error(std::string message) { return {Error{std::move(message)}}; }
  static Value type(std::string name) { return {TypeValue{std::move(name)}}; }
  static Value quantity(kube::Quantity q) { return {q}; }

  template <class T>
  bool is() const {
    return std::holds_alternative<T>(v);
  }
  template <class T>
  const T& as() const {
    return std::get<T>(v);
  }
  bool is_error() const { return is<Error>(); }
  const List& items() const { return *as<std::shared_ptr<const List>>(); }
  const Map& entries() const { return *as<std::shared_ptr<const Map>>(); }
};

// CEL's type names: null_type, bool, int, uint, double, string, list, map, type,
// kubernetes.Quantity (and "error").
std::string type_name(const Value& v);
// CEL equality: numbers compare across int, uint and double; other kinds must match; lists and
// maps element-wise.
bool equal(const Value& a, const Value& b);
// Order of two ints, uints, doubles (across kinds), strings or bools: -1, 0 or 1; nullopt when
// they do not compare (other kinds, mixed kinds, NaN).
std::optional<int> compare(const Value& a, const Value& b);
// The entry of map under key (numeric keys compare across kinds); null when absent.
const Value* find_key(const Map& map, const Value& key);
// JSON into CEL: integers as int (uint above int64's range), other numbers as double, objects as
// maps with string keys.
Value from_json(const boost::json::value& json);
// A readable rendering ("[1, \"a\"]"); for messages and tests.
std::string to_string(const Value& v);

}  // namespace tailor::embedded::cel
