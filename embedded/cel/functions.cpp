#include "embedded/cel/functions.h"

#include <set>

namespace tailor::embedded::cel {
namespace {

struct Row {
  const char* name;
  bool receiver;
  const char* params;  // separated by ';'
  const char* result;
};

// Comparisons across numeric kinds are declared, as Kubernetes enables them
// (CrossTypeNumericComparisons); equality is not: `1 == 1.0` is refused when checked.
const Row kRows[] = {
    // Logic and conditionals.
    {"!_", false, "bool", "bool"},
    {"&&", false, "bool;bool", "bool"},
    {"||", false, "bool;bool", "bool"},
    {"_?_:_", false, "bool;A;A", "A"},
    // Arithmetic.
    {"-_", false, "int", "int"},
    {"-_", false, "double", "double"},
    {"+", false, "int;int", "int"},
    {"+", false, "uint;uint", "uint"},
    {"+", false, "double;double", "double"},
    {"+", false, "string;string", "string"},
    {"+", false, "list(A);list(A)", "list(A)"},
    {"-", false, "int;int", "int"},
    {"-", false, "uint;uint", "uint"},
    {"-", false, "double;double", "double"},
    {"*", false, "int;int", "int"},
    {"*", false, "uint;uint", "uint"},
    {"*", false, "double;double", "double"},
    {"/", false, "int;int", "int"},
    {"/", false, "uint;uint", "uint"},
    {"/", false, "double;double", "double"},
    {"%", false, "int;int", "int"},
    {"%", false, "uint;uint", "uint"},
    // Equality, membership, indexing, size.
    {"==", false, "A;A", "bool"},
    {"!=", false, "A;A", "bool"},
    {"in", false, "A;list(A)", "bool"},
    {"in", false, "A;map(A, B)", "bool"},
    {"_[_]", false, "list(A);int", "A"},
    {"_[_]", false, "map(A, B);A", "B"},
    {"size", false, "string", "int"},
    {"size", false, "list(A)", "int"},
    {"size", false, "map(A, B)", "int"},
    {"size", true, "string", "int"},
    {"size", true, "list(A)", "int"},
    {"size", true, "map(A, B)", "int"},
    // Conversions.
    {"int", false, "int", "int"},
    {"int", false, "uint", "int"},
    {"int", false, "double", "int"},
    {"int", false, "string", "int"},
    {"uint", false, "uint", "uint"},
    {"uint", false, "int", "uint"},
    {"uint", false, "double", "uint"},
    {"uint", false, "string", "uint"},
    {"double", false, "double", "double"},
    {"double", false, "int", "double"},
    {"double", false, "uint", "double"},
    {"double", false, "string", "double"},
    {"string", false, "string", "string"},
    {"string", false, "int", "string"},
    {"string", false, "uint", "string"},
    {"string", false, "double", "string"},
    {"string", false, "bool", "string"},
    {"bool", false, "bool", "bool"},
    {"bool", false, "string", "bool"},
    {"dyn", false, "A", "dyn"},
    {"type", false, "A", "type(A)"},
    // Strings: CEL's and cel-go's strings extension.
    {"contains", true, "string;string", "bool"},
    {"startsWith", true, "string;string", "bool"},
    {"endsWith", true, "string;string", "bool"},
    {"matches", true, "string;string", "bool"},
    {"matches", false, "string;string", "bool"},
    {"lowerAscii", true, "string", "string"},
    {"upperAscii", true, "string", "string"},
    {"trim", true, "string", "string"},
    {"charAt", true, "string;int", "string"},
    {"indexOf", true, "string;string", "int"},
    {"indexOf", true, "string;string;int", "int"},
    {"lastIndexOf", true, "string;string", "int"},
    {"lastIndexOf", true, "string;string;int", "int"},
    {"replace", true, "string;string;string", "string"},
    {"replace", true, "string;string;string;int", "string"},
    {"split", true, "string;string", "list(string)"},
    {"split", true, "string;string;int", "list(string)"},
    {"substring", true, "string;int", "string"},
    {"substring", true, "string;int;int", "string"},
    {"join", true, "list(string)", "string"},
    {"join", true, "list(string);string", "string"},
    // Kubernetes' regex library.
    {"find", true, "string;string", "string"},
    {"findAll", true, "string;string", "list(string)"},
    {"findAll", true, "string;string;int", "list(string)"},
    // Kubernetes' quantity library.
    {"isQuantity", false, "string", "bool"},
    {"quantity", false, "string", "quantity"},
    {"sign", true, "quantity", "int"},
    {"isInteger", true, "quantity", "bool"},
    {"asInteger", true, "quantity", "int"},
    {"asApproximateFloat", true, "quantity", "double"},
    {"add", true, "quantity;quantity", "quantity"},
    {"add", true, "quantity;int", "quantity"},
    {"sub", true, "quantity;quantity", "quantity"},
    {"sub", true, "quantity;int", "quantity"},
    {"isLessThan", true, "quantity;quantity", "bool"},
    {"isGreaterThan", true, "quantity;quantity", "bool"},
    {"compareTo", true, "quantity;quantity", "int"},
    // cel-go's sets extension.
    {"sets.contains", false, "list(A);list(A)", "bool"},
    {"sets.equivalent", false, "list(A);list(A)", "bool"},
    {"sets.intersects", false, "list(A);list(A)", "bool"},
    // Kubernetes' lists library.
    {"isSorted", true, "list(A)", "bool"},
    {"sum", true, "list(int)", "int"},
    {"sum", true, "list(uint)", "uint"},
    {"sum", true, "list(double)", "double"},
    {"min", true, "list(A)", "A"},
    {"max", true, "list(A)", "A"},
    {"indexOf", true, "list(A);A", "int"},
    {"lastIndexOf", true, "list(A);A", "int"},
};

std::vector<TypePtr> params_of(const std::string& text) {
  std::vector<TypePtr> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(parse_type(text.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

std::vector<Overload> build() {
  std::vector<Overload> out;
  for (const Row& r : kRows)
    out.push_back({r.name, r.receiver, params_of(r.params), parse_type(r.result)});
  // Ordering across numeric kinds and of strings and bools.
  const char* ordered[] = {"int", "uint", "double"};
  for (const char* op : {"<", "<=", ">", ">="}) {
    for (const char* a : ordered)
      for (const char* b : ordered)
        out.push_back({op, false, params_of(std::string(a) + ";" + b), parse_type("bool")});
    out.push_back({op, false, params_of("string;string"), parse_type("bool")});
    out.push_back({op, false, params_of("bool;bool"), parse_type("bool")});
  }
  return out;
}

}  // namespace

const std::vector<Overload>& overloads() {
  static const std::vector<Overload> all = build();
  return all;
}

bool known_function(const std::string& name, bool receiver, std::size_t args) {
  for (const Overload& o : overloads())
    if (o.name == name && o.receiver == receiver && o.params.size() == args) return true;
  return false;
}

std::string cel_name(const std::string& name) {
  static const std::set<std::string> binary = {
      "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||"};
  if (binary.count(name)) return "_" + name + "_";
  if (name == "in") return "@in";
  return name;
}

}  // namespace tailor::embedded::cel
