#include "embedded/cel/parser.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "embedded/cel/functions.h"
#include "embedded/cel/lexer.h"
#include "embedded/cel/types.h"

namespace tailor::embedded::cel {
namespace {

using NodePtr = std::unique_ptr<Node>;

NodePtr make(Node::Kind kind, std::size_t pos, std::string name = "") {
  auto n = std::make_unique<Node>();
  n->kind = kind;
  n->pos = pos;
  n->name = std::move(name);
  return n;
}

NodePtr call(std::string name, std::size_t pos, NodePtr a, NodePtr b = nullptr,
             NodePtr c = nullptr) {
  NodePtr n = make(Node::Kind::Call, pos, std::move(name));
  for (NodePtr* k : {&a, &b, &c})
    if (*k) n->kids.push_back(std::move(*k));
  return n;
}

const std::set<std::string> kMacros = {"all", "exists", "exists_one", "map", "filter"};

class Parser {
 public:
  Parser(std::string_view s, int max_depth) : lex_(s), max_depth_(max_depth) { advance(); }

  NodePtr parse() {
    NodePtr e = expr();
    if (tok_.kind != Tok::End) unexpected();
    return e;
  }

 private:
  struct Depth {
    explicit Depth(Parser& p) : p_(p) {
      if (++p_.depth_ > p_.max_depth_)
        throw SyntaxError(p_.tok_.pos, "expression recursion limit exceeded: nesting deeper than " +
                                           std::to_string(p_.max_depth_) + " levels");
    }
    ~Depth() { --p_.depth_; }
    Parser& p_;
  };

  // A left-associative chain (a + b + c, a.b.c) nests one level per link.
  struct Chain {
    explicit Chain(Parser& p) : p_(p) {}
    void link() {
      ++added_;
      if (++p_.depth_ > p_.max_depth_)
        throw SyntaxError(p_.tok_.pos, "expression recursion limit exceeded: nesting deeper than " +
                                           std::to_string(p_.max_depth_) + " levels");
    }
    ~Chain() { p_.depth_ -= added_; }
    Parser& p_;
    int added_ = 0;
  };

  void advance() { tok_ = lex_.next(); }
  bool is(const char* punct) const { return tok_.kind == Tok::Punct && tok_.text == punct; }
  bool accept(const char* punct) {
    if (!is(punct)) return false;
    advance();
    return true;
  }
  void expect(const char* punct) {
    if (!accept(punct)) unexpected(std::string(" expecting '") + punct + "'");
  }
  [[noreturn]] void unexpected(const std::string& expecting = "") const {
    std::string what = tok_.kind == Tok::End ? "<EOF>" : "'" + shown() + "'";
    throw SyntaxError(tok_.pos, "Syntax error: mismatched input " + what + expecting);
  }
  std::string shown() const {
    return tok_.kind == Tok::String ? "\"" + tok_.value.as<std::string>() + "\"" : tok_.text;
  }

  NodePtr expr() {
    Depth d(*this);
    NodePtr cond = logical("||");
    if (!is("?")) return cond;
    std::size_t pos = tok_.pos;
    advance();
    NodePtr yes = logical("||");
    expect(":");
    NodePtr no = expr();
    return call("_?_:_", pos, std::move(cond), std::move(yes), std::move(no));
  }

  NodePtr logical(const char* op) {
    bool is_or = std::string(op) == "||";
    NodePtr left = is_or ? logical("&&") : relation();
    Chain chain(*this);
    while (is(op)) {
      std::size_t pos = tok_.pos;
      advance();
      chain.link();
      NodePtr right = is_or ? logical("&&") : relation();
      left = call(op, pos, std::move(left), std::move(right));
    }
    return left;
  }

  NodePtr relation() {
    NodePtr left = binary(0);
    static const char* ops[] = {"<", "<=", ">", ">=", "==", "!="};
    Chain chain(*this);
    while (true) {
      std::string op;
      for (const char* o : ops)
        if (is(o)) op = o;
      if (op.empty() && tok_.kind == Tok::Ident && tok_.text == "in") op = "in";
      if (op.empty()) return left;
      std::size_t pos = tok_.pos;
      advance();
      chain.link();
      left = call(op, pos, std::move(left), binary(0));
    }
  }

  // level 0: + -, level 1: * / %
  NodePtr binary(int level) {
    NodePtr left = level == 0 ? binary(1) : unary();
    const char* ops = level == 0 ? "+-" : "*/%";
    Chain chain(*this);
    while (tok_.kind == Tok::Punct && tok_.text.size() == 1 &&
           std::string_view(ops).find(tok_.text[0]) != std::string_view::npos) {
      std::string op = tok_.text;
      std::size_t pos = tok_.pos;
      advance();
      chain.link();
      left = call(op, pos, std::move(left), level == 0 ? binary(1) : unary());
    }
    return left;
  }

  NodePtr unary() {
    std::size_t pos = tok_.pos;
    if (accept("!")) {
      Depth d(*this);
      return call("!_", pos, unary());
    }
    if (accept("-")) {
      Depth d(*this);
      if (tok_.kind == Tok::Int) return negative_literal(pos);
      return call("-_", pos, unary());
    }
    return member();
  }

  NodePtr negative_literal(std::size_t pos) {
    std::uint64_t u = tok_.value.as<std::uint64_t>();
    if (u > 9223372036854775808ULL) throw SyntaxError(tok_.pos, "invalid int literal");
    advance();
    NodePtr n = make(Node::Kind::Literal, pos);
    n->value =
        Value::integer(u == 9223372036854775808ULL ? INT64_MIN : -static_cast<std::int64_t>(u));
    return member_suffix(std::move(n));
  }

  NodePtr member() { return member_suffix(primary()); }

  NodePtr member_suffix(NodePtr e) {
    Chain chain(*this);
    while (true) {
      std::size_t pos = tok_.pos;
      if (is(".") || is("[")) chain.link();
      if (accept(".")) {
        if (tok_.kind != Tok::Ident) unexpected(" expecting IDENTIFIER");
        std::string name = tok_.text;
        advance();
        if (is("(")) {
          std::size_t at = tok_.pos;
          advance();
          e = receiver_call(name, at, std::move(e), arguments(")"));
        } else {
          NodePtr s = make(Node::Kind::Select, pos, name);
          s->kids.push_back(std::move(e));
          e = std::move(s);
        }
      } else if (accept("[")) {
        NodePtr index = expr();
        expect("]");
        e = call("_[_]", pos, std::move(e), std::move(index));
      } else {
        return e;
      }
    }
  }

  std::vector<NodePtr> arguments(const char* close) {
    std::vector<NodePtr> args;
    if (accept(close)) return args;
    do {
      if (is(close)) break;  // trailing comma
      args.push_back(expr());
    } while (accept(","));
    expect(close);
    return args;
  }

  NodePtr receiver_call(const std::string& name, std::size_t pos, NodePtr target,
                        std::vector<NodePtr> args) {
    if (kMacros.count(name) && (args.size() == 2 || (args.size() == 3 && name == "map")))
      return macro(name, pos, std::move(target), std::move(args));
    // A qualified function name (sets.contains) is one global function, as cel-go resolves it.
    if (target->kind == Node::Kind::Ident &&
        known_function(target->name + "." + name, false, args.size())) {
      NodePtr n = make(Node::Kind::Call, pos, target->name + "." + name);
      n->kids = std::move(args);
      return n;
    }
    NodePtr n = make(Node::Kind::Call, pos, name);
    n->receiver = true;
    n->kids.push_back(std::move(target));
    for (NodePtr& a : args) n->kids.push_back(std::move(a));
    return n;
  }

  NodePtr macro(const std::string& name, std::size_t pos, NodePtr range,
                std::vector<NodePtr> args) {
    if (args[0]->kind != Node::Kind::Ident)
      throw SyntaxError(args[0]->pos, "argument must be a simple name");
    NodePtr n = make(Node::Kind::Macro, pos, name);
    n->var = args[0]->name;
    n->kids.push_back(std::move(range));
    for (std::size_t i = 1; i < args.size(); ++i) n->kids.push_back(std::move(args[i]));
    return n;
  }

  NodePtr primary() {
    Token t = tok_;
    switch (t.kind) {
      case Tok::Int: {
        advance();
        std::uint64_t u = t.value.as<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(INT64_MAX))
          throw SyntaxError(t.pos, "invalid int literal");
        return literal(t.pos, Value::integer(static_cast<std::int64_t>(u)));
      }
      case Tok::Uint:
      case Tok::Double:
      case Tok::String:
        advance();
        return literal(t.pos, t.value);
      case Tok::Ident:
        advance();
        return identifier(t);
      case Tok::Punct:
        break;
      case Tok::End:
        unexpected();
    }
    if (accept("(")) {
      NodePtr e = expr();
      expect(")");
      return e;
    }
    if (accept("[")) {
      NodePtr l = make(Node::Kind::List, t.pos);
      l->kids = arguments("]");
      return l;
    }
    if (accept("{")) return map_literal(t.pos);
    if (accept(".")) {  // a leading dot names the root scope: .self
      if (tok_.kind != Tok::Ident) unexpected(" expecting IDENTIFIER");
      Token id = tok_;
      advance();
      return identifier(id);
    }
    unexpected();
  }

  NodePtr literal(std::size_t pos, Value v) {
    NodePtr n = make(Node::Kind::Literal, pos);
    n->value = std::move(v);
    return n;
  }

  NodePtr identifier(const Token& t) {
    if (t.text == "true" || t.text == "false")
      return literal(t.pos, Value::boolean(t.text == "true"));
    if (t.text == "null") return literal(t.pos, Value::null());
    if (t.text == "in") throw SyntaxError(t.pos, "Syntax error: mismatched input 'in'");
    if (!is("(")) return make(Node::Kind::Ident, t.pos, t.text);
    std::size_t at = tok_.pos;
    advance();
    std::vector<NodePtr> args = arguments(")");
    if (t.text == "has") return presence(at, std::move(args));
    NodePtr n = make(Node::Kind::Call, at, t.text);
    n->kids = std::move(args);
    return n;
  }

  NodePtr presence(std::size_t pos, std::vector<NodePtr> args) {
    if (args.size() != 1 || args[0]->kind != Node::Kind::Select)
      throw SyntaxError(pos, "invalid argument to has() macro");
    args[0]->kind = Node::Kind::Has;
    return std::move(args[0]);
  }

  NodePtr map_literal(std::size_t pos) {
    NodePtr m = make(Node::Kind::Map, pos);
    while (!is("}")) {
      m->kids.push_back(expr());
      expect(":");
      m->kids.push_back(expr());
      if (!accept(",")) break;
    }
    expect("}");
    return m;
  }

  Lexer lex_;
  Token tok_;
  int depth_ = 0;
  int max_depth_;
};

// Every name must be self, oldSelf or a macro's variable; every call a known function.
void resolve(const Node& n, std::vector<std::string>& scope) {
  if (n.kind == Node::Kind::Ident) {
    bool bound = n.name == "self" || n.name == "oldSelf" || named_type(n.name) ||
                 std::find(scope.begin(), scope.end(), n.name) != scope.end();
    if (!bound)
      throw SyntaxError(n.pos, "undeclared reference to '" + n.name + "' (in container '')");
  }
  if (n.kind == Node::Kind::Call && !known_function(n.name, n.receiver, n.kids.size()))
    throw SyntaxError(n.pos, "undeclared reference to '" + n.name + "' (in container '')");
  for (std::size_t i = 0; i < n.kids.size(); ++i) {
    bool in_body = n.kind == Node::Kind::Macro && i > 0;
    if (in_body) scope.push_back(n.var);
    resolve(*n.kids[i], scope);
    if (in_body) scope.pop_back();
  }
}

}  // namespace

std::unique_ptr<Node> parse(std::string_view source, int max_depth) {
  std::unique_ptr<Node> root = Parser(source, max_depth).parse();
  std::vector<std::string> scope;
  resolve(*root, scope);
  return root;
}

}  // namespace tailor::embedded::cel
