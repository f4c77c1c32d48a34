// CEL's grammar into the tree of embedded/cel/ast.h, with the macros expanded and names resolved.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "embedded/cel/ast.h"

namespace tailor::embedded::cel {

struct SyntaxError : std::runtime_error {
  SyntaxError(std::size_t at, const std::string& what) : std::runtime_error(what), pos(at) {}
  std::size_t pos;
};

// Throws SyntaxError (with the offset it concerns) for bad syntax, nesting deeper than max_depth,
// undeclared names and misused macros.
std::unique_ptr<Node> parse(std::string_view source, int max_depth);

}  // namespace tailor::embedded::cel
