#include "embedded/cel/lexer.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <set>

#include "embedded/cel/parser.h"

namespace tailor::embedded::cel {
namespace {

const std::set<std::string> kReserved = {
    "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
    "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};

}  // namespace

Token Lexer::next() {
  skip_space();
  Token t;
  t.pos = i_;
  if (i_ >= s_.size()) return t;
  char c = s_[i_];
  if (std::isdigit(static_cast<unsigned char>(c)) ||
      (c == '.' && i_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_ + 1]))))
    return number(t);
  bool raw =
      (c == 'r' || c == 'R') && i_ + 1 < s_.size() && (s_[i_ + 1] == '"' || s_[i_ + 1] == '\'');
  if (c == '"' || c == '\'' || raw) return string(t, raw);
  if ((c == 'b' || c == 'B') && i_ + 1 < s_.size() && (s_[i_ + 1] == '"' || s_[i_ + 1] == '\''))
    throw SyntaxError(i_, "Syntax error: bytes literals are not supported");
  if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return ident(t);
  static const char* two[] = {"==", "!=", "<=", ">=", "&&", "||"};
  for (const char* op : two) {
    if (s_.substr(i_, 2) == op) {
      t.kind = Tok::Punct;
      t.text = op;
      i_ += 2;
      return t;
    }
  }
  if (std::string_view("<>!+-*/%?:.,()[]{}").find(c) == std::string_view::npos)
    throw SyntaxError(i_, std::string("Syntax error: token recognition error at: '") + c + "'");
  t.kind = Tok::Punct;
  t.text = std::string(1, c);
  ++i_;
  return t;
}

void Lexer::skip_space() {
  while (i_ < s_.size()) {
    if (std::isspace(static_cast<unsigned char>(s_[i_]))) {
      ++i_;
    } else if (s_.substr(i_, 2) == "//") {
      while (i_ < s_.size() && s_[i_] != '\n') ++i_;
    } else {
      return;
    }
  }
}

Token Lexer::number(Token& t) {
  std::size_t start = i_;
  bool hex = s_.substr(i_, 2) == "0x" || s_.substr(i_, 2) == "0X";
  bool real = false;
  if (hex) {
    i_ += 2;
    while (i_ < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
  } else {
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (i_ + 1 < s_.size() && s_[i_] == '.' &&
        std::isdigit(static_cast<unsigned char>(s_[i_ + 1]))) {
      real = true;
      ++i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      std::size_t e = i_ + 1;
      if (e < s_.size() && (s_[e] == '+' || s_[e] == '-')) ++e;
      if (e < s_.size() && std::isdigit(static_cast<unsigned char>(s_[e]))) {
        real = true;
        i_ = e;
        while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      }
    }
  }
  std::string text(s_.substr(start, i_ - start));
  t.text = text;
  if (real) {
    t.kind = Tok::Double;
    t.value = Value::real(std::strtod(text.c_str(), nullptr));
    return t;
  }
  bool is_unsigned = i_ < s_.size() && (s_[i_] == 'u' || s_[i_] == 'U');
  if (is_unsigned) ++i_;
  errno = 0;
  unsigned long long u =
      std::strtoull(hex ? text.c_str() + 2 : text.c_str(), nullptr, hex ? 16 : 10);
  if (errno == ERANGE || (hex && text.size() == 2)) throw SyntaxError(start, "invalid int literal");
  t.kind = is_unsigned ? Tok::Uint : Tok::Int;
  t.value = is_unsigned ? Value::unsigned_integer(u) : Value::null();
  if (!is_unsigned) t.value = Value::unsigned_integer(u);  // range checked by the parser (sign)
  return t;
}

Token Lexer::string(Token& t, bool raw) {
  if (raw) ++i_;
  char q = s_[i_];
  bool triple = s_.substr(i_, 3) == std::string(3, q);
  std::string close = triple ? std::string(3, q) : std::string(1, q);
  i_ += close.size();
  std::string out;
  while (true) {
    if (i_ >= s_.size() || (!triple && s_[i_] == '\n'))
      throw SyntaxError(
          t.pos, "Syntax error: token recognition error at: '" +
                     std::string(s_.substr(t.pos, std::min<std::size_t>(i_ - t.pos, 20))) + "'");
    if (s_.substr(i_, close.size()) == close) break;
    if (s_[i_] == '\\' && !raw) {
      out += escape();
    } else {
      out += s_[i_++];
    }
  }
  i_ += close.size();
  t.kind = Tok::String;
  t.value = Value::string(out);
  return t;
}

std::string Lexer::escape() {
  std::size_t at = i_++;
  if (i_ >= s_.size()) throw SyntaxError(at, "Syntax error: invalid escape sequence");
  char c = s_[i_++];
  switch (c) {
    case 'a':
      return "\a";
    case 'b':
      return "\b";
    case 'f':
      return "\f";
    case 'n':
      return "\n";
    case 'r':
      return "\r";
    case 't':
      return "\t";
    case 'v':
      return "\v";
    case '\\':
    case '\'':
    case '"':
    case '`':
    case '?':
      return std::string(1, c);
    case 'x':
    case 'X':
      return code_point(at, 2, 16);
    case 'u':
      return code_point(at, 4, 16);
    case 'U':
      return code_point(at, 8, 16);
    default:
      if (c >= '0' && c <= '3') {
        --i_;
        return code_point(at, 3, 8);
      }
      throw SyntaxError(at, "Syntax error: invalid escape sequence");
  }
}

std::string Lexer::code_point(std::size_t at, std::size_t digits, int base) {
  if (i_ + digits > s_.size()) throw SyntaxError(at, "Syntax error: invalid escape sequence");
  std::string d(s_.substr(i_, digits));
  char* end = nullptr;
  unsigned long cp = std::strtoul(d.c_str(), &end, base);
  if (end != d.c_str() + digits || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    throw SyntaxError(at, "Syntax error: invalid escape sequence");
  i_ += digits;
  return utf8(cp);
}

std::string Lexer::utf8(unsigned long cp) {
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

Token Lexer::ident(Token& t) {
  std::size_t start = i_;
  while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
    ++i_;
  t.text = std::string(s_.substr(start, i_ - start));
  if (kReserved.count(t.text))
    throw SyntaxError(start, "Syntax error: reserved identifier: " + t.text);
  t.kind = Tok::Ident;
  return t;
}

}  // namespace tailor::embedded::cel
