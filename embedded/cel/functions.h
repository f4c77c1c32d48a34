// The functions and operators tailor-cluster's CEL knows, with their signatures: CEL's standard
// definitions, cel-go's strings and sets extensions and Kubernetes' lists, regex and quantity
// libraries. The
// parser resolves names against it, the checker types calls with it; the evaluator implements each.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "embedded/cel/types.h"

namespace tailor::embedded::cel {

struct Overload {
  std::string name;       // as the parser names calls: "+", "in", "_[_]", "startsWith"
  bool receiver = false;  // x.f(...): params[0] is the target
  std::vector<TypePtr> params;
  TypePtr result;
};

const std::vector<Overload>& overloads();

// Whether some overload has this name, style and argument count (the receiver counted).
bool known_function(const std::string& name, bool receiver, std::size_t args);

// cel-go's name of an operator in messages ("+" is "_+_", "in" is "@in"); others unchanged.
std::string cel_name(const std::string& name);

}  // namespace tailor::embedded::cel
