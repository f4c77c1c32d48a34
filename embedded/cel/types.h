// CEL's static types, as cel-go's checker names them: the primitives, list(E), map(K, V), dyn,
// object types (a schema node with declared properties: only those fields may be selected) and
// the type parameters of function signatures.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tailor::embedded::cel {

struct Type;
using TypePtr = std::shared_ptr<const Type>;

struct Type {
  enum class Kind {
    Dyn,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    List,
    Map,
    Object,
    Param,
    Type,
    Error
  };
  Kind kind = Kind::Dyn;
  TypePtr elem;      // a list's element, a map's value
  TypePtr key;       // a map's key
  std::string name;  // an object type's or a type parameter's name
  std::vector<std::pair<std::string, TypePtr>> fields;  // an object's, by CEL name

  static TypePtr of(Kind kind);
  static TypePtr dyn() { return of(Kind::Dyn); }
  static TypePtr list(TypePtr elem);
  static TypePtr map(TypePtr key, TypePtr value);
  static TypePtr object(std::string name, std::vector<std::pair<std::string, TypePtr>> fields);
  static TypePtr param(std::string name);
  static TypePtr type_of(TypePtr named);  // type(int), what `int` and type(1) are
  bool is(Kind k) const { return kind == k; }
  // Dyn and Error accept anything (an error is reported once, where it arose).
  bool open() const { return kind == Kind::Dyn || kind == Kind::Error; }
  const TypePtr* field(const std::string& name) const;
};

// cel-go's rendering: "int", "list(string)", "map(string, int)", "null_type", "type(int)", an
// object's name.
std::string format(const Type& t);

// A signature's type from its text: "int", "list(A)", "map(K, V)", "type(A)", "quantity"
// (kubernetes.Quantity); one capital letter is a type parameter.
TypePtr parse_type(const std::string& text);

// The type a type name denotes where a rule names it (`int`, `list`, ...); nullptr for no type
// name.
TypePtr named_type(const std::string& name);

}  // namespace tailor::embedded::cel
