#include "embedded/api/field_validation.h"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "embedded/storage/status_error.h"
#include "kube/observe/log_entry.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

// runtime.NewStrictDecodingError's text.
std::string strict_decoding_error(const std::vector<std::string>& errors) {
  std::string all;
  for (const std::string& e : errors) all += (all.empty() ? "" : ", ") + e;
  return "strict decoding error: " + all;
}

// Go's %v of a float64 (strconv's shortest 'g'): exponent form below 1e-4 and from 1e6 on.
std::string go_float(double d) {
  char buf[64];
  auto end = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific).ptr;
  std::string s(buf, end);
  std::size_t e = s.find('e');
  int exp = std::stoi(s.substr(e + 1));
  std::string sign = s[0] == '-' ? "-" : "";
  std::string digits;
  for (char ch : s.substr(sign.size(), e - sign.size())) {
    if (ch != '.') digits += ch;
  }
  if (exp < -4 || exp >= 6) {
    std::string mantissa = digits.substr(0, 1);
    if (digits.size() > 1) mantissa += "." + digits.substr(1);
    char ebuf[16];  // room for any int exponent, so the compiler can prove no truncation
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    return sign + mantissa + ebuf;
  }
  if (exp < 0) return sign + "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
  auto whole = static_cast<std::size_t>(exp) + 1;
  if (digits.size() <= whole) return sign + digits + std::string(whole - digits.size(), '0');
  return sign + digits.substr(0, whole) + "." + digits.substr(whole);
}

}  // namespace

FieldValidation parse_field_validation(const std::string& value) {
  if (value.empty() || value == "Warn") return FieldValidation::Warn;
  if (value == "Strict") return FieldValidation::Strict;
  if (value == "Ignore") return FieldValidation::Ignore;
  throw bad_request("fieldValidation must be one of \"Ignore\", \"Warn\", or \"Strict\", got \"" +
                    value + "\"");
}

std::vector<std::string> report_decoding_errors(const ResourceInfo& r,
                                                const std::vector<std::string>& errors,
                                                FieldValidation mode) {
  if (mode == FieldValidation::Ignore || errors.empty()) return {};
  if (mode == FieldValidation::Warn) return errors;
  // The serializer's decode error, as the create and update handlers wrap it.
  throw bad_request(r.kind + " in version \"" + r.version + "\" cannot be handled as a " + r.kind +
                    ": " + strict_decoding_error(errors));
}

std::vector<std::string> unknown_field_errors(const std::vector<std::string>& paths) {
  std::vector<std::string> errors;
  for (const std::string& p : paths) errors.push_back("unknown field \"" + p + "\"");
  return errors;
}

std::vector<std::string> report_patch_errors(const std::vector<std::string>& errors,
                                             FieldValidation mode, const std::string& patched) {
  if (mode == FieldValidation::Ignore || errors.empty()) return {};
  if (mode == FieldValidation::Warn) return errors;
  // The patch handler's errors.NewInvalid(schema.GroupKind{}, "", field.Invalid("patch", ...)).
  throw invalid(
      "", "", "",
      {{"FieldValueInvalid",
        "Invalid value: " + kube::log::go_quote(patched) + ": " + strict_decoding_error(errors),
        "patch"}});
}

std::string go_printed(const bj::value& v) {
  switch (v.kind()) {
    case bj::kind::null:
      return "<nil>";
    case bj::kind::bool_:
      return v.get_bool() ? "true" : "false";
    case bj::kind::int64:
      return std::to_string(v.get_int64());
    case bj::kind::uint64:  // beyond int64: Go decodes it as a float64
      return go_float(static_cast<double>(v.get_uint64()));
    case bj::kind::double_:
      return go_float(v.get_double());
    case bj::kind::string:
      return std::string(v.get_string());
    case bj::kind::array: {
      std::string out = "[";
      for (const bj::value& e : v.get_array()) out += (out.size() > 1 ? " " : "") + go_printed(e);
      return out + "]";
    }
    case bj::kind::object: {
      std::vector<std::pair<std::string, const bj::value*>> sorted;
      for (const auto& [k, e] : v.get_object()) sorted.emplace_back(std::string(k), &e);
      std::sort(sorted.begin(), sorted.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      std::string out = "map[";
      for (std::size_t i = 0; i < sorted.size(); ++i) {
        out += (i ? " " : "") + sorted[i].first + ":" + go_printed(*sorted[i].second);
      }
      return out + "]";
    }
  }
  return "";
}

}  // namespace tailor::embedded
