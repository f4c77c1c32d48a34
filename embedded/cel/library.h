// CEL's extension functions on values: cel-go's strings extension (charAt, indexOf, lastIndexOf,
// replace, split, substring; indices in code points), Kubernetes' regex library (find, findAll)
// lists library (isSorted, sum, min, max, indexOf, lastIndexOf) and quantity library (quantity,
// isQuantity; sign, isInteger, asInteger, asApproximateFloat, add, sub, isLessThan,
// isGreaterThan, compareTo) and cel-go's sets extension (sets.contains, sets.equivalent,
// sets.intersects), with their error messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "embedded/cel/value.h"

namespace tailor::embedded::cel {

// The call's value (an Error value when it fails), or nullopt when f is no library function for
// these arguments. steps receives the work done, for the evaluator's cost.
std::optional<Value> library_call(const std::string& f, const std::vector<Value>& args,
                                  std::uint64_t& steps);

}  // namespace tailor::embedded::cel
