// CEL's tokens: numbers (int, uint with u, double; decimal or hex), strings (quoted, triple-quoted,
// raw; with CEL's escapes), identifiers (reserved words refused), punctuation and comments.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "embedded/cel/value.h"

namespace tailor::embedded::cel {

enum class Tok { Int, Uint, Double, String, Ident, Punct, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;  // identifier, punctuation, or the string literal's value
  Value value;
  std::size_t pos = 0;
};

// Throws SyntaxError (embedded/cel/parser.h) for what is no token.
class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}
  Token next();

 private:
  void skip_space();
  Token number(Token& t);
  Token string(Token& t, bool raw);
  std::string escape();
  std::string code_point(std::size_t at, std::size_t digits, int base);
  static std::string utf8(unsigned long cp);
  Token ident(Token& t);

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace tailor::embedded::cel
