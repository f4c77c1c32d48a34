// Evaluation of the parsed tree: CEL's runtime semantics for the supported subset, with errors as
// values (so && and || can absorb them) and a step budget.
#include <algorithm>
#include <optional>
#include <stdexcept>

#include "embedded/cel/ast.h"
#include "embedded/cel/cel.h"
#include "embedded/cel/library.h"
#include "embedded/cel/operators.h"
#include "embedded/cel/parser.h"
#include "embedded/cel/regexp.h"

namespace tailor::embedded::cel {
namespace {

using Int = std::int64_t;
using Uint = std::uint64_t;
using ListPtr = std::shared_ptr<const List>;
using MapPtr = std::shared_ptr<const Map>;

struct CostExceeded {};

class Evaluator {
 public:
  Evaluator(const Value& self, const Value* old_self, std::uint64_t limit)
      : self_(self), old_self_(old_self), limit_(limit) {}

  std::uint64_t cost() const { return cost_; }

  Value eval(const Node& n) {
    spend(1);
    switch (n.kind) {
      case Node::Kind::Literal:
        return n.value;
      case Node::Kind::Ident:
        return lookup(n.name);
      case Node::Kind::Select:
        return select(n, false);
      case Node::Kind::Has:
        return select(n, true);
      case Node::Kind::List:
        return list(n);
      case Node::Kind::Map:
        return map(n);
      case Node::Kind::Macro:
        return macro(n);
      case Node::Kind::Call:
        return call(n);
    }
    return no_overload();
  }

 private:
  void spend(std::uint64_t n) {
    cost_ += n;
    if (cost_ > limit_) throw CostExceeded{};
  }

  Value lookup(const std::string& name) {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it)
      if (it->first == name) return it->second;
    if (name == "self") return self_;
    if (name == "oldSelf" && old_self_) return *old_self_;
    if (named_type(name)) return Value::type(name);
    return Value::error("no such attribute: " + name);
  }

  Value select(const Node& n, bool presence) {
    Value target = eval(*n.kids[0]);
    if (target.is_error()) return target;
    if (!target.is<MapPtr>()) {
      return Value::error("type '" + type_name(target) + "' does not support field selection");
    }
    const Value* v = find_key(target.entries(), Value::string(n.name));
    if (presence) return Value::boolean(v != nullptr);
    return v ? *v : Value::error("no such key: " + n.name);
  }

  Value list(const Node& n) {
    List l;
    for (const auto& k : n.kids) {
      Value v = eval(*k);
      if (v.is_error()) return v;
      l.push_back(std::move(v));
    }
    return Value::list(std::move(l));
  }

  Value map(const Node& n) {
    Map m;
    for (std::size_t i = 0; i + 1 < n.kids.size(); i += 2) {
      Value k = eval(*n.kids[i]);
      if (k.is_error()) return k;
      Value v = eval(*n.kids[i + 1]);
      if (v.is_error()) return v;
      if (!(k.is<std::string>() || k.is<Int>() || k.is<Uint>() || k.is<bool>()))
        return Value::error("unsupported key type");
      if (find_key(m, k)) return Value::error("Failed with repeated key");
      m.emplace_back(std::move(k), std::move(v));
    }
    return Value::map(std::move(m));
  }

  // The elements a macro ranges over: a list's items, a map's keys.
  static std::optional<List> range_of(const Value& v) {
    if (v.is<ListPtr>()) return v.items();
    if (!v.is<MapPtr>()) return std::nullopt;
    List keys;
    for (const auto& [k, e] : v.entries()) keys.push_back(k);
    return keys;
  }

  Value with_var(const std::string& var, const Value& x, const Node& body) {
    locals_.emplace_back(var, x);
    Value r = eval(body);
    locals_.pop_back();
    return r;
  }

  Value macro(const Node& n) {
    Value range = eval(*n.kids[0]);
    if (range.is_error()) return range;
    std::optional<List> items = range_of(range);
    if (!items) return no_overload();
    const std::string& m = n.name;
    if (m == "all" || m == "exists") return quantifier(n, *items, m == "all");
    if (m == "exists_one") {
      int count = 0;
      for (const Value& x : *items) {
        Value r = with_var(n.var, x, *n.kids[1]);
        if (r.is_error()) return r;
        if (!r.is<bool>()) return no_overload();
        count += r.as<bool>();
      }
      return Value::boolean(count == 1);
    }
    List out;
    for (const Value& x : *items) {
      if (m == "filter" || n.kids.size() == 3) {
        Value keep = with_var(n.var, x, *n.kids[1]);
        if (keep.is_error()) return keep;
        if (!keep.is<bool>()) return no_overload();
        if (!keep.as<bool>()) continue;
      }
      if (m == "filter") {
        out.push_back(x);
        continue;
      }
      Value r = with_var(n.var, x, *n.kids.back());
      if (r.is_error()) return r;
      out.push_back(std::move(r));
    }
    return Value::list(std::move(out));
  }

  // all: false wins over errors; exists: true wins over errors (CEL's commutative logic).
  Value quantifier(const Node& n, const List& items, bool all) {
    std::optional<Value> error;
    for (const Value& x : items) {
      Value r = with_var(n.var, x, *n.kids[1]);
      if (r.is<bool>()) {
        if (r.as<bool>() != all) return Value::boolean(!all);
      } else if (!error) {
        error = r.is_error() ? r : no_overload();
      }
    }
    return error ? *error : Value::boolean(all);
  }

  Value logic(const Node& n) {
    bool is_and = n.name == "&&";
    Value a = eval(*n.kids[0]);
    if (a.is<bool>() && a.as<bool>() != is_and) return a;
    Value b = eval(*n.kids[1]);
    if (b.is<bool>() && b.as<bool>() != is_and) return b;
    if (a.is_error()) return a;
    if (b.is_error()) return b;
    if (!a.is<bool>() || !b.is<bool>()) return no_overload();
    return Value::boolean(is_and);
  }

  Value call(const Node& n) {
    if (n.name == "&&" || n.name == "||") return logic(n);
    if (n.name == "_?_:_") {
      Value c = eval(*n.kids[0]);
      if (c.is_error()) return c;
      if (!c.is<bool>()) return no_overload();
      return eval(*n.kids[c.as<bool>() ? 1 : 2]);
    }
    std::vector<Value> args;
    for (const auto& k : n.kids) {
      args.push_back(eval(*k));
      if (args.back().is_error()) return args.back();
    }
    return apply(n.name, args);
  }

  Value apply(const std::string& f, const std::vector<Value>& a) {
    if (f == "!_") return a[0].is<bool>() ? Value::boolean(!a[0].as<bool>()) : no_overload();
    if (f == "-_") {
      if (a[0].is<Int>()) return arithmetic_int("-", 0, a[0].as<Int>());
      if (a[0].is<double>()) return Value::real(-a[0].as<double>());
      return no_overload();
    }
    if (f == "+" || f == "-" || f == "*" || f == "/" || f == "%") {
      if (a[0].is<std::string>() || a[0].is<ListPtr>()) spend(size_of(a[0]) + size_of(a[1]));
      return arithmetic(f, a[0], a[1]);
    }
    if (f == "==" || f == "!=" || f == "<" || f == "<=" || f == ">" || f == ">=")
      return relation(f, a[0], a[1]);
    if (f == "in") {
      spend(size_of(a[1]));
      return membership(a[0], a[1]);
    }
    if (f == "_[_]") return index(a[0], a[1]);
    if (f == "size") return size(a[0]);
    if (f == "int") return to_int(a[0]);
    if (f == "uint") return to_uint(a[0]);
    if (f == "double") return to_double(a[0]);
    if (f == "string") return to_text(a[0]);
    if (f == "bool") return to_bool(a[0]);
    if (f == "dyn") return a[0];
    if (f == "type") return Value::type(type_name(a[0]));
    return strings(f, a);
  }

  static Uint size_of(const Value& v) {
    if (v.is<std::string>()) return v.as<std::string>().size();
    if (v.is<ListPtr>()) return v.items().size();
    if (v.is<MapPtr>()) return v.entries().size();
    return 0;
  }

  static Value size(const Value& v) {
    if (v.is<std::string>())
      return Value::integer(static_cast<Int>(code_points(v.as<std::string>())));
    if (v.is<ListPtr>() || v.is<MapPtr>()) return Value::integer(static_cast<Int>(size_of(v)));
    return no_overload();
  }

  Value strings(const std::string& f, const std::vector<Value>& a) {
    if (f == "join") return join(a);
    std::uint64_t steps = 0;
    std::optional<Value> extension = library_call(f, a, steps);
    spend(steps);
    if (extension) return *extension;
    if (!a[0].is<std::string>()) return no_overload();
    const std::string& s = a[0].as<std::string>();
    spend(s.size() / 10 + 1);
    if (f == "lowerAscii" || f == "upperAscii")
      return Value::string(ascii_case(s, f == "upperAscii"));
    if (f == "trim") {
      std::size_t b = s.find_first_not_of(" \t\n\v\f\r"), e = s.find_last_not_of(" \t\n\v\f\r");
      return Value::string(b == std::string::npos ? "" : s.substr(b, e - b + 1));
    }
    if (!a[1].is<std::string>()) return no_overload();
    const std::string& t = a[1].as<std::string>();
    if (f == "startsWith")
      return Value::boolean(s.compare(0, t.size(), t) == 0 && s.size() >= t.size());
    if (f == "endsWith")
      return Value::boolean(s.size() >= t.size() &&
                            s.compare(s.size() - t.size(), t.size(), t) == 0);
    if (f == "contains") return Value::boolean(s.find(t) != std::string::npos);
    if (f == "matches") {
      spend(s.size() * (t.size() + 1) / 10);
      if (std::optional<bool> found = regexp_matches(t, s)) return Value::boolean(*found);
      return Value::error("invalid regular expression: " + regexp_error(t));
    }
    return no_overload();
  }

  Value join(const std::vector<Value>& a) {
    if (!a[0].is<ListPtr>() || (a.size() == 2 && !a[1].is<std::string>())) return no_overload();
    std::string sep = a.size() == 2 ? a[1].as<std::string>() : "", out;
    for (const Value& e : a[0].items()) {
      if (!e.is<std::string>()) return no_overload();
      if (&e != &a[0].items().front()) out += sep;
      out += e.as<std::string>();
      spend(e.as<std::string>().size() / 10 + 1);
    }
    return Value::string(out);
  }

  const Value& self_;
  const Value* old_self_;
  std::uint64_t limit_;
  std::uint64_t cost_ = 0;
  std::vector<std::pair<std::string, Value>> locals_;
};

bool names_old_self(const Node& n) {
  if (n.kind == Node::Kind::Ident && n.name == "oldSelf") return true;
  for (const auto& k : n.kids)
    if (names_old_self(*k)) return true;
  return false;
}

// cel-go's report: position (line:column, 1-based) and the source line with a caret under it.
std::string located(std::string_view source, std::size_t pos, const std::string& message) {
  pos = std::min(pos, source.size());
  std::size_t line_start = source.rfind('\n', pos == 0 ? 0 : pos - 1);
  line_start = (line_start == std::string_view::npos || pos == 0) ? 0 : line_start + 1;
  if (pos > 0 && source[pos - 1] == '\n') line_start = pos;
  std::size_t line =
      1 + static_cast<std::size_t>(std::count(
              source.begin(), source.begin() + static_cast<std::ptrdiff_t>(line_start), '\n'));
  std::size_t column = pos - line_start;
  std::size_t end = source.find('\n', line_start);
  std::string_view text =
      source.substr(line_start, end == std::string_view::npos ? end : end - line_start);
  return "ERROR: <input>:" + std::to_string(line) + ":" + std::to_string(column + 1) + ": " +
         message + "\n | " + std::string(text) + "\n | " + std::string(column, '.') + "^";
}

// Every error, in source order (cel-go sorts by line, then column).
std::string report(std::string_view source, std::vector<TypeError> errors) {
  std::stable_sort(errors.begin(), errors.end(),
                   [](const TypeError& a, const TypeError& b) { return a.pos < b.pos; });
  std::string out;
  for (const TypeError& e : errors)
    out += (out.empty() ? "" : "\n") + located(source, e.pos, e.message);
  return out;
}

}  // namespace

Program::Program(std::shared_ptr<const Node> root, bool uses_old_self, Limits limits)
    : root_(std::move(root)), uses_old_self_(uses_old_self), limits_(limits) {}

Value Program::evaluate(const Value& self, const Value* old_self, std::uint64_t* cost) const {
  Evaluator evaluator(self, old_self, limits_.cost_limit);
  Value result;
  try {
    result = evaluator.eval(*root_);
  } catch (const CostExceeded&) {
    result = Value::error("operation cancelled: actual cost limit exceeded");
  }
  if (cost) *cost = evaluator.cost();
  return result;
}

Compiled compile(std::string_view source, const Limits& limits) {
  return compile(source, Variables{}, limits);
}

Compiled compile(std::string_view source, const Variables& variables, const Limits& limits) {
  if (source.size() > limits.max_source_bytes) {
    return {nullptr,
            "ERROR: <input>:1:1: expression code point size exceeds limit: size: " +
                std::to_string(source.size()) + ", limit " +
                std::to_string(limits.max_source_bytes),
            Type::dyn()};
  }
  std::shared_ptr<const Node> root;
  try {
    root = parse(source, limits.max_depth);
  } catch (const SyntaxError& e) {
    return {nullptr, located(source, e.pos, e.what()), Type::dyn()};
  }
  TypePtr type = Type::dyn();
  if (!variables.empty()) {
    Checked checked = check(*root, variables);
    if (!checked.errors.empty()) return {nullptr, report(source, checked.errors), checked.type};
    type = checked.type;
  }
  return {std::make_shared<const Program>(root, names_old_self(*root), limits), "", type};
}

}  // namespace tailor::embedded::cel
