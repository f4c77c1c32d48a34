// CEL's operators and standard functions on values, shared by the evaluator: each returns a value
// or an Error value (no such overload, overflow, division by zero, no such key, range error).
#pragma once

#include <cstdint>
#include <string>

#include "embedded/cel/value.h"

namespace tailor::embedded::cel {

Value no_overload();
std::size_t code_points(const std::string& utf8);
Value arithmetic_int(const std::string& op, std::int64_t a, std::int64_t b);
// op: + - * / % on two ints, two uints, two doubles (no %), strings and lists (+).
Value arithmetic(const std::string& op, const Value& a, const Value& b);
// op: == != < <= > >=.
Value relation(const std::string& op, const Value& a, const Value& b);
Value membership(const Value& item, const Value& container);
Value index(const Value& container, const Value& key);
Value to_int(const Value& v);
Value to_uint(const Value& v);
Value to_double(const Value& v);
Value to_text(const Value& v);
Value to_bool(const Value& v);
std::string ascii_case(std::string s, bool upper);

}  // namespace tailor::embedded::cel
