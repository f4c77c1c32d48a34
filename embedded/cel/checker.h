// CEL's static type check, as cel-go's checker does it for the subset tailor-cluster supports:
// every expression typed from the declared variables, field selection against object types, calls
// resolved against the overloads of embedded/cel/functions.h (type parameters unified), list and
// map literals homogeneous (Kubernetes' HomogeneousAggregateLiterals), macros' ranges and bodies.
// Pure: the tree in, the result type and cel-go's messages out.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "embedded/cel/ast.h"
#include "embedded/cel/types.h"

namespace tailor::embedded::cel {

struct TypeError {
  std::size_t pos;  // offset in the source
  std::string message;
};

struct Checked {
  TypePtr type;  // the expression's type; Error when errors is not empty
  std::vector<TypeError> errors;
};

using Variables = std::vector<std::pair<std::string, TypePtr>>;

Checked check(const Node& root, const Variables& variables);

}  // namespace tailor::embedded::cel
