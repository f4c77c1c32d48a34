#include "embedded/cel/checker.h"

#include <map>

#include "embedded/cel/functions.h"

namespace tailor::embedded::cel {
namespace {

using Kind = Type::Kind;
using Bindings = std::map<std::string, TypePtr>;

bool assignable(const TypePtr& param, const TypePtr& actual, Bindings& b);

// A type parameter takes the first type it meets, widened when a later one is more general
// (null, then an object).
bool bind(const TypePtr& param, const TypePtr& actual, Bindings& b) {
  auto it = b.find(param->name);
  if (it == b.end()) {
    b.emplace(param->name, actual->open() ? Type::dyn() : actual);
    return true;
  }
  TypePtr bound = it->second;
  if (assignable(bound, actual, b)) return true;
  Bindings trial = b;
  if (!assignable(actual, bound, trial)) return false;
  b[param->name] = actual;
  return true;
}

bool assignable(const TypePtr& param, const TypePtr& actual, Bindings& b) {
  if (param->is(Kind::Param)) return bind(param, actual, b);
  if (param->open() || actual->open()) return true;
  if (param->kind != actual->kind) return param->is(Kind::Object) && actual->is(Kind::Null);
  switch (param->kind) {
    case Kind::List:
    case Kind::Type:
      return assignable(param->elem, actual->elem, b);
    case Kind::Map:
      return assignable(param->key, actual->key, b) && assignable(param->elem, actual->elem, b);
    case Kind::Object:
      return param->name == actual->name;
    default:
      return true;
  }
}

TypePtr substitute(const TypePtr& t, const Bindings& b) {
  if (t->is(Kind::Param)) {
    auto it = b.find(t->name);
    return it == b.end() ? Type::dyn() : it->second;
  }
  if (t->is(Kind::List)) return Type::list(substitute(t->elem, b));
  if (t->is(Kind::Type)) return Type::type_of(substitute(t->elem, b));
  if (t->is(Kind::Map)) return Type::map(substitute(t->key, b), substitute(t->elem, b));
  return t;
}

bool compatible(const TypePtr& a, const TypePtr& b) {
  Bindings none;
  return assignable(a, b, none) || assignable(b, a, none);
}

std::string joined(const std::vector<TypePtr>& types, std::size_t from) {
  std::string out;
  for (std::size_t i = from; i < types.size(); ++i)
    out += (i == from ? "" : ", ") + format(*types[i]);
  return out;
}

TypePtr literal_type(const Value& v) {
  if (v.is<bool>()) return Type::of(Kind::Bool);
  if (v.is<std::int64_t>()) return Type::of(Kind::Int);
  if (v.is<std::uint64_t>()) return Type::of(Kind::Uint);
  if (v.is<double>()) return Type::of(Kind::Double);
  if (v.is<std::string>()) return Type::of(Kind::String);
  if (v.is<Null>()) return Type::of(Kind::Null);
  return Type::dyn();
}

class Checker {
 public:
  explicit Checker(const Variables& variables) : variables_(variables) {}

  std::vector<TypeError> errors;

  TypePtr check(const Node& n) {
    switch (n.kind) {
      case Node::Kind::Literal:
        return literal_type(n.value);
      case Node::Kind::Ident:
        return lookup(n);
      case Node::Kind::Select:
      case Node::Kind::Has:
        return select(n);
      case Node::Kind::List:
        return list(n);
      case Node::Kind::Map:
        return map(n);
      case Node::Kind::Macro:
        return macro(n);
      case Node::Kind::Call:
        return call(n);
    }
    return Type::dyn();
  }

 private:
  TypePtr fail(std::size_t pos, std::string message) {
    errors.push_back({pos, std::move(message)});
    return Type::of(Kind::Error);
  }

  TypePtr lookup(const Node& n) {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it)
      if (it->first == n.name) return it->second;
    for (const auto& [name, type] : variables_)
      if (name == n.name) return type;
    if (TypePtr named = named_type(n.name)) return named;
    return fail(n.pos, "undeclared reference to '" + n.name + "' (in container '')");
  }

  TypePtr select(const Node& n) {
    TypePtr target = check(*n.kids[0]);
    bool presence = n.kind == Node::Kind::Has;
    TypePtr result;
    if (target->is(Kind::Error)) return target;
    if (target->is(Kind::Dyn)) {
      result = Type::dyn();
    } else if (target->is(Kind::Map)) {
      result = target->elem;
    } else if (target->is(Kind::Object)) {
      const TypePtr* f = target->field(n.name);
      if (!f) return fail(n.pos, "undefined field '" + n.name + "'");
      result = *f;
    } else {
      return fail(n.pos, "type '" + format(*target) + "' does not support field selection");
    }
    return presence ? Type::of(Kind::Bool) : result;
  }

  // Each element must agree with the first (cel-go's "expected type 'int' but found 'string'").
  TypePtr homogeneous(const Node& n, std::size_t first, std::size_t step) {
    TypePtr seen;
    for (std::size_t i = first; i < n.kids.size(); i += step) {
      TypePtr t = check(*n.kids[i]);
      if (!seen || seen->open()) {
        seen = t;
      } else if (!compatible(seen, t)) {
        fail(n.kids[i]->pos,
             "expected type '" + format(*seen) + "' but found '" + format(*t) + "'");
      }
    }
    return seen && !seen->is(Kind::Error) ? seen : Type::dyn();
  }

  TypePtr list(const Node& n) { return Type::list(homogeneous(n, 0, 1)); }

  TypePtr map(const Node& n) {
    TypePtr key = homogeneous(n, 0, 2);
    TypePtr value = homogeneous(n, 1, 2);
    return Type::map(key, value);
  }

  TypePtr macro(const Node& n) {
    TypePtr range = check(*n.kids[0]);
    TypePtr var = Type::dyn();
    if (range->is(Kind::List)) {
      var = range->elem;
    } else if (range->is(Kind::Map)) {
      var = range->key;
    } else if (!range->open()) {
      fail(n.kids[0]->pos, "expression of type '" + format(*range) +
                               "' cannot be range of a comprehension (must be list, map, or "
                               "dynamic)");
    }
    locals_.emplace_back(n.var, var);
    std::vector<TypePtr> bodies;
    for (std::size_t i = 1; i < n.kids.size(); ++i) bodies.push_back(check(*n.kids[i]));
    locals_.pop_back();
    return macro_result(n, var, bodies);
  }

  // The macros expand, in cel-go, to comprehensions whose steps call && (all), || (exists) or a
  // conditional (exists_one, filter, map's filter): a body of the wrong type is reported as that
  // call's missing overload.
  TypePtr macro_result(const Node& n, const TypePtr& var, const std::vector<TypePtr>& bodies) {
    auto is_bool = [](const TypePtr& t) { return t->is(Kind::Bool) || t->open(); };
    const std::string& m = n.name;
    if (m == "all" || m == "exists") {
      if (!is_bool(bodies[0]))
        fail(n.pos, "found no matching overload for '" + std::string(m == "all" ? "_&&_" : "_||_") +
                        "' applied to '(bool, " + format(*bodies[0]) + ")'");
      return Type::of(Kind::Bool);
    }
    TypePtr out = m == "exists_one" ? Type::of(Kind::Int)
                  : m == "filter"   ? Type::list(var)
                                    : Type::list(bodies.back());
    if (bodies.size() == 2 || m != "map") {
      if (!is_bool(bodies[0]))
        fail(n.pos, "found no matching overload for '_?_:_' applied to '(" + format(*bodies[0]) +
                        ", " + format(*out) + ", " + format(*out) + ")'");
    }
    return m == "exists_one" ? Type::of(Kind::Bool) : out;
  }

  TypePtr call(const Node& n) {
    std::vector<TypePtr> args;
    bool erroneous = false;
    for (const auto& k : n.kids) {
      args.push_back(check(*k));
      erroneous = erroneous || args.back()->is(Kind::Error);
    }
    std::vector<TypePtr> results;
    for (const Overload& o : overloads()) {
      if (o.name != n.name || o.receiver != n.receiver || o.params.size() != args.size()) continue;
      Bindings b;
      bool fits = true;
      for (std::size_t i = 0; fits && i < args.size(); ++i)
        fits = assignable(o.params[i], args[i], b);
      if (fits) results.push_back(substitute(o.result, b));
    }
    if (erroneous) return Type::of(Kind::Error);
    if (results.empty()) {
      std::string applied = n.receiver ? format(*args[0]) + ".(" + joined(args, 1) + ")"
                                       : "(" + joined(args, 0) + ")";
      return fail(n.pos, "found no matching overload for '" + cel_name(n.name) + "' applied to '" +
                             applied + "'");
    }
    for (const TypePtr& r : results)
      if (format(*r) != format(*results[0])) return Type::dyn();
    return results[0];
  }

  const Variables& variables_;
  std::vector<std::pair<std::string, TypePtr>> locals_;
};

}  // namespace

Checked check(const Node& root, const Variables& variables) {
  Checker checker(variables);
  TypePtr type = checker.check(root);
  if (!checker.errors.empty()) type = Type::of(Kind::Error);
  return {type, std::move(checker.errors)};
}

}  // namespace tailor::embedded::cel
