// A Common Expression Language (CEL) interpreter for CRD validation rules: the core language
// (literals, lists, maps, field selection, operators with CEL's error absorption in && and ||,
// conditionals, overflow-checked arithmetic, `in`, size and the string functions) and the macros
// has, all, exists, exists_one, map and filter, over the variables `self` and `oldSelf`.
// Expressions are checked for syntax and undeclared names when compiled, and refused when longer
// or deeper than the limits; evaluation stops once it has spent its cost limit. There is no static
// type checker: a type mismatch is an evaluation error ("no such overload"), never a crash.
// Not covered: bytes, timestamps and durations, type values (type(), int == type(1)), optionals,
// unknowns (partial evaluation), string formatting and most of Kubernetes' libraries (quantity,
// url, ip, lists, sets); matches() uses ECMAScript regular expressions where cel-go uses RE2.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "embedded/cel/value.h"

namespace tailor::embedded::cel {

struct Limits {
  std::size_t max_source_bytes = 100 * 1024;
  int max_depth = 100;                 // nesting of operators, calls, lists, maps, parentheses
  std::uint64_t cost_limit = 1000000;  // steps of one evaluation (Kubernetes' per-call limit)
};

struct Node;  // the parsed expression (embedded/cel/ast.h)

class Program {
 public:
  explicit Program(std::shared_ptr<const Node> root, bool uses_old_self, Limits limits);
  // True when the expression names oldSelf: a transition rule, run only on updates.
  bool uses_old_self() const { return uses_old_self_; }
  // The expression's value with self (and oldSelf, when not null) bound; an Error value when
  // evaluation fails (no such key, no such overload, overflow, cost limit exceeded, ...).
  // cost, when given, receives the steps spent (the limit plus one when it was exceeded).
  Value evaluate(const Value& self, const Value* old_self, std::uint64_t* cost = nullptr) const;

 private:
  std::shared_ptr<const Node> root_;
  bool uses_old_self_;
  Limits limits_;
};

struct Compiled {
  std::shared_ptr<const Program> program;  // null when error is set
  // cel-go's wording: "ERROR: <input>:1:5: <message>\n | <source line>\n | ....^".
  std::string error;
};

Compiled compile(std::string_view source, const Limits& limits = {});

}  // namespace tailor::embedded::cel
