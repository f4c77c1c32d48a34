#include "embedded/crd/rule_types.h"

#include <boost/json.hpp>
#include <set>

#include "embedded/storage/object_meta.h"

namespace tailor::embedded::crd {
namespace {

namespace bj = boost::json;
using cel::Type;
using cel::TypePtr;
using Fields = std::vector<std::pair<std::string, TypePtr>>;

bool flag(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_bool() && v->as_bool();
}

TypePtr of(const bj::object& s, bool root, const std::string& name);

void add_field(Fields& fields, const std::string& property, TypePtr type) {
  std::optional<std::string> cel_name = escaped_property(property);
  if (!cel_name || !type) return;
  for (auto& [n, t] : fields) {
    if (n == *cel_name) {
      t = std::move(type);
      return;
    }
  }
  fields.emplace_back(*cel_name, std::move(type));
}

TypePtr object_type(const bj::object& s, bool root, const std::string& name) {
  if (const bj::object* additional = object_field(s, "additionalProperties")) {
    TypePtr value = of(*additional, flag(*additional, "x-kubernetes-embedded-resource"), name);
    return value ? Type::map(Type::of(Type::Kind::String), value) : nullptr;
  }
  Fields fields;
  if (const bj::object* props = object_field(s, "properties")) {
    for (const auto& [k, v] : *props) {
      if (!v.is_object()) continue;
      const bj::object& p = v.as_object();
      std::string property(k);
      add_field(fields, property,
                of(p, flag(p, "x-kubernetes-embedded-resource"), name + "." + property));
    }
  }
  if (root) {  // always visible at a resource's root, whatever the schema says
    TypePtr str = Type::of(Type::Kind::String);
    const TypePtr* meta = nullptr;
    for (const auto& f : fields)
      if (f.first == "metadata") meta = &f.second;
    bool full_meta = meta && (*meta)->is(Type::Kind::Object) && (*meta)->field("name") &&
                     (*meta)->field("generateName");
    add_field(fields, "apiVersion", str);
    add_field(fields, "kind", str);
    if (!full_meta)
      add_field(fields, "metadata",
                Type::object(name + ".metadata", {{"name", str}, {"generateName", str}}));
  }
  return Type::object(name, std::move(fields));
}

TypePtr of(const bj::object& s, bool root, const std::string& name) {
  if (flag(s, "x-kubernetes-int-or-string")) return Type::dyn();
  std::string type = string_at(s, "type");
  if (type == "object" || (root && type.empty())) return object_type(s, root, name);
  if (type == "array") {
    const bj::object* items = object_field(s, "items");
    if (!items) return nullptr;
    TypePtr elem = of(*items, flag(*items, "x-kubernetes-embedded-resource"), name + ".@idx");
    return elem ? Type::list(elem) : nullptr;
  }
  if (type == "integer") return Type::of(Type::Kind::Int);
  if (type == "number") return Type::of(Type::Kind::Double);
  if (type == "boolean") return Type::of(Type::Kind::Bool);
  if (type == "string") {
    static const std::set<std::string> untyped = {"byte", "duration", "date", "date-time"};
    return untyped.count(string_at(s, "format")) ? Type::dyn() : Type::of(Type::Kind::String);
  }
  return nullptr;
}

}  // namespace

TypePtr rule_type(const bj::object& schema, bool resource_root, const std::string& name) {
  return of(schema, resource_root || flag(schema, "x-kubernetes-embedded-resource"), name);
}

std::optional<std::string> escaped_property(std::string_view name) {
  static const std::set<std::string, std::less<>> reserved = {
      "true",     "false",   "null",      "in",       "as",  "break",  "const",
      "continue", "else",    "for",       "function", "if",  "import", "let",
      "loop",     "package", "namespace", "return",   "var", "void",   "while"};
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return std::nullopt;
  if (reserved.count(name)) return "__" + std::string(name) + "__";
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (plain) {
      out += c;
    } else if (c == '_' && i + 1 < name.size() && name[i + 1] == '_') {
      out += "__underscores__";
      ++i;
    } else if (c == '_') {
      out += c;
    } else if (c == '.') {
      out += "__dot__";
    } else if (c == '-') {
      out += "__dash__";
    } else if (c == '/') {
      out += "__slash__";
    } else {
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace tailor::embedded::crd
