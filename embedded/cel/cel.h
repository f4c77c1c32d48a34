// A Common Expression Language (CEL) interpreter for CRD validation rules: the core language
// (literals, lists, maps, field selection, operators with CEL's error absorption in && and ||,
// conditionals, overflow-checked arithmetic, `in`, size and the string functions) and the macros
// has, all, exists, exists_one, map and filter, over the variables `self` and `oldSelf`.
// Expressions are checked for syntax and undeclared names when compiled, and refused when longer
// or deeper than the limits; given the variables' types they are also type-checked as cel-go does
// (embedded/cel/checker.h). Evaluation stops once it has spent its cost limit; a type mismatch an
// unchecked expression meets is an evaluation error ("no such overload"), never a crash.
// Libraries: cel-go's strings and sets extensions, Kubernetes' lists, regex and quantity
// (embedded/cel/functions.h).
// type(x) and the type names (int, string, list, ...) are values.
// Not covered: bytes, timestamps and durations, optionals,
// unknowns (partial evaluation), string formatting (format) and Kubernetes' url, ip, cidr,
// semver and authorizer libraries.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "embedded/cel/checker.h"
#include "embedded/cel/types.h"
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
  // The expression's type: dyn when compiled without variables' types.
  TypePtr type = Type::dyn();
};

Compiled compile(std::string_view source, const Limits& limits = {});
// Also type-checked against the variables' types (self, oldSelf); cel-go's report of every error,
// in source order, one "ERROR: ..." block per error joined by newlines.
Compiled compile(std::string_view source, const Variables& variables, const Limits& limits = {});

}  // namespace tailor::embedded::cel
