#include "embedded/cel/types.h"

#include <map>
#include <stdexcept>

namespace tailor::embedded::cel {

TypePtr Type::of(Kind kind) {
  static const std::map<Kind, TypePtr> simple = [] {
    std::map<Kind, TypePtr> m;
    for (Kind k : {Kind::Dyn, Kind::Null, Kind::Bool, Kind::Int, Kind::Uint, Kind::Double,
                   Kind::String, Kind::Error}) {
      auto t = std::make_shared<Type>();
      t->kind = k;
      m.emplace(k, t);
    }
    return m;
  }();
  return simple.at(kind);
}

TypePtr Type::list(TypePtr elem) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::List;
  t->elem = std::move(elem);
  return t;
}

TypePtr Type::map(TypePtr key, TypePtr value) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::Map;
  t->key = std::move(key);
  t->elem = std::move(value);
  return t;
}

TypePtr Type::object(std::string name, std::vector<std::pair<std::string, TypePtr>> fields) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::Object;
  t->name = std::move(name);
  t->fields = std::move(fields);
  return t;
}

TypePtr Type::param(std::string name) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::Param;
  t->name = std::move(name);
  return t;
}

TypePtr Type::type_of(TypePtr named) {
  auto t = std::make_shared<Type>();
  t->kind = Kind::Type;
  t->elem = std::move(named);
  return t;
}

const TypePtr* Type::field(const std::string& n) const {
  for (const auto& [k, v] : fields)
    if (k == n) return &v;
  return nullptr;
}

std::string format(const Type& t) {
  switch (t.kind) {
    case Type::Kind::Dyn:
      return "dyn";
    case Type::Kind::Null:
      return "null_type";
    case Type::Kind::Bool:
      return "bool";
    case Type::Kind::Int:
      return "int";
    case Type::Kind::Uint:
      return "uint";
    case Type::Kind::Double:
      return "double";
    case Type::Kind::String:
      return "string";
    case Type::Kind::List:
      return "list(" + format(*t.elem) + ")";
    case Type::Kind::Map:
      return "map(" + format(*t.key) + ", " + format(*t.elem) + ")";
    case Type::Kind::Object:
    case Type::Kind::Param:
      return t.name;
    case Type::Kind::Type:
      return "type(" + format(*t.elem) + ")";
    case Type::Kind::Error:
      return "*error*";
  }
  return "dyn";
}

TypePtr parse_type(const std::string& s) {
  static const std::map<std::string, Type::Kind> names = {
      {"dyn", Type::Kind::Dyn},      {"null", Type::Kind::Null}, {"bool", Type::Kind::Bool},
      {"int", Type::Kind::Int},      {"uint", Type::Kind::Uint}, {"double", Type::Kind::Double},
      {"string", Type::Kind::String}};
  if (auto it = names.find(s); it != names.end()) return Type::of(it->second);
  if (s.size() == 1 && s[0] >= 'A' && s[0] <= 'Z') return Type::param(s);
  if (s == "quantity") {
    static const TypePtr quantity = Type::object("kubernetes.Quantity", {});
    return quantity;
  }
  if (s.rfind("list(", 0) == 0 && s.back() == ')')
    return Type::list(parse_type(s.substr(5, s.size() - 6)));
  if (s.rfind("type(", 0) == 0 && s.back() == ')')
    return Type::type_of(parse_type(s.substr(5, s.size() - 6)));
  if (s.rfind("map(", 0) == 0 && s.back() == ')') {
    std::size_t comma = s.find(',');
    std::size_t value = s.find_first_not_of(' ', comma + 1);
    return Type::map(parse_type(s.substr(4, comma - 4)),
                     parse_type(s.substr(value, s.size() - 1 - value)));
  }
  throw std::invalid_argument("unknown CEL type in a signature: " + s);
}

TypePtr named_type(const std::string& name) {
  static const std::map<std::string, std::string> names = {
      {"bool", "bool"},      {"int", "int"},           {"uint", "uint"},
      {"double", "double"},  {"string", "string"},     {"null_type", "null"},
      {"list", "list(dyn)"}, {"map", "map(dyn, dyn)"}, {"type", "dyn"}};
  auto it = names.find(name);
  return it == names.end() ? nullptr : Type::type_of(parse_type(it->second));
}

}  // namespace tailor::embedded::cel
