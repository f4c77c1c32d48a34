#include "embedded/auth/request_attributes.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace tailor::embedded {
namespace {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string verb_of_method(const std::string& method) {
  if (method == "POST") return "create";
  if (method == "GET" || method == "HEAD") return "get";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return "";
}

// The name a field selector pins with metadata.name=x (or ==), alone or among others.
std::string selected_name(const std::optional<std::string>& selector) {
  if (!selector) return "";
  std::string found;
  std::size_t start = 0;
  while (start <= selector->size()) {
    std::size_t comma = selector->find(',', start);
    if (comma == std::string::npos) comma = selector->size();
    std::string term = selector->substr(start, comma - start);
    for (const char* prefix : {"metadata.name==", "metadata.name="}) {
      if (term.starts_with(prefix)) {
        found = term.substr(std::string_view(prefix).size());
        break;
      }
    }
    start = comma + 1;
  }
  return found.find('/') == std::string::npos ? found : "";
}

bool truthy(const std::optional<std::string>& v) { return v && (*v == "true" || *v == "1"); }

}  // namespace

RequestAttributes request_attributes(const HttpRequestLine& request) {
  RequestAttributes a;
  a.path = request.path;
  a.verb = lower(request.method);
  std::vector<std::string> parts = split_path(request.path);
  if (parts.size() < 3 || (parts[0] != "api" && parts[0] != "apis")) return a;
  const bool grouped = parts[0] == "apis";
  if (grouped && parts.size() < 4) return a;
  a.resource_request = true;
  std::size_t i = 1;
  if (grouped) a.api_group = parts[i++];
  a.api_version = parts[i++];
  std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(i), parts.end());
  a.verb = verb_of_method(request.method);
  if (rest[0] == "namespaces" && rest.size() > 1) {
    a.ns = rest[1];
    if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize")
      rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.size() >= 3) a.subresource = rest[2];
  if (rest.size() >= 2) a.name = rest[1];
  a.resource = rest[0];
  if (a.name.empty() && a.verb == "get") {
    a.verb = truthy(request.watch) ? "watch" : "list";
    a.name = selected_name(request.field_selector);
  }
  if (a.name.empty() && a.verb == "delete") a.verb = "deletecollection";
  return a;
}

}  // namespace tailor::embedded
