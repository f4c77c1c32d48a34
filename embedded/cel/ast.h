// The parsed form of a CEL expression, shared by the parser and the evaluator.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "embedded/cel/value.h"

namespace tailor::embedded::cel {

struct Node {
  enum class Kind {
    Literal,  // value
    Ident,    // name
    Select,   // kids[0].name
    Has,      // has(kids[0].name)
    Call,     // name(kids...): operators ("&&", "_[_]", "-_", ...) and functions; receiver
              // calls (x.f(a)) have the target as kids[0]
    List,     // [kids...]
    Map,      // {kids[0]: kids[1], ...}
    Macro,    // name in all, exists, exists_one, map, filter: kids = range, [filter], body;
              // var = the iteration variable
  };
  Kind kind = Kind::Literal;
  std::string name;
  std::string var;
  Value value;
  bool receiver = false;
  std::size_t pos = 0;  // offset in the source, for messages
  std::vector<std::unique_ptr<Node>> kids;
};

}  // namespace tailor::embedded::cel
