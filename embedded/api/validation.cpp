#include "embedded/api/validation.h"

#include <boost/json.hpp>

#include "embedded/api/pod_validation.h"
#include "embedded/storage/object_meta.h"
#include "embedded/storage/status_error.h"

namespace tailor::embedded {
namespace {

bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool valid_label(std::string_view s) {
  if (s.empty() || s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s) {
    if (!alnum(c) && c != '-') return false;
  }
  return true;
}

bool qualified_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'
bool qualified_name_part(std::string_view s) {
  if (s.empty() || !qualified_char(s.front()) || !qualified_char(s.back())) return false;
  for (char c : s) {
    if (!qualified_char(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// Every dot-separated label is '[a-z0-9]([-a-z0-9]*[a-z0-9])?', or with `underscore`
// '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?'.
bool subdomain_labels(std::string_view name, bool underscore) {
  bool ok = !name.empty();
  for (std::size_t start = 0; ok && start <= name.size();) {
    std::size_t dot = name.find('.', start);
    if (dot == std::string_view::npos) dot = name.size();
    std::string_view part = name.substr(start, dot - start);
    if (underscore && !part.empty() && part.front() == '_') part.remove_prefix(1);
    ok = !part.empty() && alnum(part.front()) && alnum(part.back()) &&
         part.find_first_not_of(underscore ? "abcdefghijklmnopqrstuvwxyz0123456789-_"
                                           : "abcdefghijklmnopqrstuvwxyz0123456789-") ==
             std::string_view::npos;
    start = dot + 1;
  }
  return ok;
}

constexpr const char* kQualifiedNameRegexError =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

std::string quoted_invalid(std::string_view value, const std::string& why) {
  return "Invalid value: \"" + std::string(value) + "\": " + why;
}

}  // namespace

std::string dns1123_label_error(std::string_view name) {
  if (name.size() > 63) return "must be no more than 63 characters";
  if (valid_label(name)) return "";
  return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
         "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
         "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
}

std::string dns1123_subdomain_error(std::string_view name) {
  if (name.size() > 253) return "must be no more than 253 characters";
  if (subdomain_labels(name, false)) return "";
  return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
         "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
         "regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
}

std::string dns1123_subdomain_with_underscore_error(std::string_view name) {
  if (name.size() > 253) return "must be no more than 253 characters";
  if (subdomain_labels(name, true)) return "";
  return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', "
         "'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
         "regex used for validation is "
         "'_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*')";
}

std::vector<std::string> qualified_name_errors(std::string_view value) {
  std::vector<std::string> errors;
  std::string_view name = value;
  std::size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      return {std::string("a qualified name ") + kQualifiedNameRegexError +
              " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"};
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errors.push_back("prefix part must be non-empty");
    } else if (std::string why = dns1123_subdomain_error(prefix); !why.empty()) {
      errors.push_back("prefix part " + why);
    }
  }
  if (name.empty()) {
    errors.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errors.push_back("name part must be no more than 63 characters");
  }
  if (!qualified_name_part(name))
    errors.push_back(std::string("name part ") + kQualifiedNameRegexError);
  return errors;
}

void validate_create(const ResourceInfo& r, const bj::object& object) {
  const bool pod = r.group.empty() && r.resource == "pods";
  std::string name = meta_string(object, "name");
  std::vector<FieldCause> causes;
  if (!name.empty()) {  // else generateName: the store names it
    std::string why =
        r.resource == "namespaces" ? dns1123_label_error(name) : dns1123_subdomain_error(name);
    if (!why.empty())
      causes.push_back({"FieldValueInvalid", quoted_invalid(name, why), "metadata.name"});
  }
  if (pod) {
    std::vector<FieldCause> spec = validate_pod_spec(object);
    causes.insert(causes.end(), spec.begin(), spec.end());
  }
  if (!causes.empty()) throw invalid(r.group, r.kind, name, std::move(causes));
}

}  // namespace tailor::embedded
