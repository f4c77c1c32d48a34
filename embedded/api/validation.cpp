#include "embedded/api/validation.h"

#include <boost/json.hpp>

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
  bool ok = !name.empty();
  for (std::size_t start = 0; ok && start <= name.size();) {
    std::size_t dot = name.find('.', start);
    if (dot == std::string_view::npos) dot = name.size();
    std::string_view part = name.substr(start, dot - start);
    ok = !part.empty() && alnum(part.front()) && alnum(part.back()) &&
         part.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string_view::npos;
    start = dot + 1;
  }
  if (ok) return "";
  return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
         "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
         "regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
}

void validate_create(const ResourceInfo& r, const bj::object& object) {
  std::string name = meta_string(object, "name");
  if (name.empty()) return;  // generateName: the store names it
  std::string why =
      r.resource == "namespaces" ? dns1123_label_error(name) : dns1123_subdomain_error(name);
  std::vector<FieldCause> causes;
  if (!why.empty())
    causes.push_back({"FieldValueInvalid", quoted_invalid(name, why), "metadata.name"});
  if (r.group.empty() && r.resource == "pods") {
    const bj::value* containers = find_path(object, "spec.containers");
    if (!containers || !containers->is_array() || containers->as_array().empty()) {
      causes.push_back({"FieldValueRequired", "Required value", "spec.containers"});
    }
  }
  if (!causes.empty()) throw invalid(r.group, r.kind, name, std::move(causes));
}

}  // namespace tailor::embedded
