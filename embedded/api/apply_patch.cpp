#include "embedded/api/apply_patch.h"

#include <algorithm>
#include <boost/json.hpp>

#include "embedded/api/field_validation.h"
#include "embedded/api/known_fields_parts.h"
#include "embedded/storage/object_meta.h"
#include "embedded/storage/status_error.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

// structured-merge-diff's value.ToString of a key: strings as Go's %q, numbers and booleans as %v.
std::string key_value(const bj::value& v) {
  if (!v.is_string()) return go_printed(v);
  std::string out = "\"";
  for (char ch : v.get_string()) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

// An element of a list with map keys is named by them ([containerPort=80,protocol="TCP"]), an
// element of any other list by its index. (Upstream fails an element that lacks a key without
// default with "associative list with keys has an element that omits key field"; here it is
// named by its index.)
std::string element_name(const KnownFields& known, const bj::object& item, std::size_t index) {
  std::string name;
  for (const ListKey& key : known.keys) {
    std::string value;
    if (const bj::value* v = item.if_contains(key.name)) {
      value = key_value(*v);
    } else if (!key.default_value.empty()) {
      value = key_value(bj::value(key.default_value));
    } else {
      return "[" + std::to_string(index) + "]";
    }
    name += (name.empty() ? "[" : ",") + key.name + "=" + value;
  }
  return name.empty() ? "[" + std::to_string(index) + "]" : name + "]";
}

void walk(const KnownFields& known, const bj::object& o, std::string& path,
          std::vector<std::string>& undeclared);

void walk_value(const KnownFields& known, const bj::value& v, std::string& path,
                std::vector<std::string>& undeclared) {
  if (v.is_object()) {
    walk(known, v.get_object(), path, undeclared);
    return;
  }
  if (!v.is_array()) return;
  const bj::array& items = v.get_array();
  const std::size_t at = path.size();
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_object()) continue;
    path += element_name(known, items[i].get_object(), i);
    walk(known, items[i].get_object(), path, undeclared);
    path.resize(at);
  }
}

void walk(const KnownFields& known, const bj::object& o, std::string& path,
          std::vector<std::string>& undeclared) {
  const std::size_t at = path.size();
  for (const auto& [key, value] : o) {
    auto it = known.fields.find(std::string_view(key));
    if (it != known.fields.end() && !it->second) continue;
    path.append(".").append(key.data(), key.size());
    if (it == known.fields.end()) {
      undeclared.push_back(path);
    } else {
      walk_value(*it->second, value, path, undeclared);
    }
    path.resize(at);
  }
}

// objectGVKNN: the patch's own namespace, name, group, version and kind, as sent.
std::string patch_object_name(const bj::object& patch) {
  std::string api_version = string_at(patch, "apiVersion");
  std::size_t slash = api_version.find('/');
  std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  return meta_string(patch, "namespace") + "/" + meta_string(patch, "name") + "; " + group + "/" +
         version + ", Kind=" + string_at(patch, "kind");
}

}  // namespace

std::vector<std::string> undeclared_fields(const KnownFields& known, const bj::object& patch) {
  std::vector<std::string> undeclared;
  std::string path;
  walk(known, patch, path, undeclared);
  std::sort(undeclared.begin(), undeclared.end());
  return undeclared;
}

namespace {

void fail_undeclared(std::vector<std::string> undeclared, const bj::object& patch) {
  if (undeclared.empty()) return;
  std::sort(undeclared.begin(), undeclared.end());
  // structured-merge-diff's ValidationErrors: one error on its own, more on lines of their own.
  std::string errors = undeclared.size() == 1 ? "" : "errors:";
  for (const std::string& path : undeclared) {
    errors += (errors.empty() ? "" : "\n  ") + path + ": field not declared in schema";
  }
  // Not a Status error upstream: the handler answers it as an internal error with no reason.
  throw StatusError(
      500, "", "failed to create typed patch object (" + patch_object_name(patch) + "): " + errors);
}

}  // namespace

void check_apply_patch_fields(const KnownFields& known, const bj::object& patch) {
  fail_undeclared(undeclared_fields(known, patch), patch);
}

void check_pruned_apply_fields(std::vector<std::string> pruned, const bj::object& patch) {
  for (std::string& path : pruned) path.insert(0, ".");
  // The schema's metadata is ObjectMeta's (pruning leaves metadata alone).
  if (const bj::value* meta = patch.if_contains("metadata"); meta && meta->is_object()) {
    std::string path = ".metadata";
    walk(known::object_meta(), meta->get_object(), path, pruned);
  }
  fail_undeclared(std::move(pruned), patch);
}

namespace {

// A JSON object or list being scanned for repeated keys.
struct Scope {
  bool object = false;
  bool expect_key = false;
  std::vector<std::string> keys{};
};

// The end of the string whose opening quote is at `at` (just past its closing quote).
std::size_t string_end(std::string_view json, std::size_t at) {
  std::size_t i = at + 1;
  while (i < json.size() && json[i] != '"') i += json[i] == '\\' ? 2 : 1;
  return std::min(i + 1, json.size());
}

}  // namespace

std::vector<std::string> repeated_key_errors(std::string_view json) {
  std::vector<std::string> errors;
  std::vector<Scope> stack;
  std::string repeated;  // a repeated key whose value is still to come
  int line = 1;
  for (std::size_t i = 0; i < json.size(); ++i) {
    char ch = json[i];
    if (ch == '\n') ++line;
    if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == ':' || ch == ',') {
      if (ch == ',' && !stack.empty() && stack.back().object) stack.back().expect_key = true;
      continue;
    }
    if (!repeated.empty()) {  // go-yaml names the line of the value
      errors.push_back("line " + std::to_string(line) + ": key " + key_value(bj::value(repeated)) +
                       " already set in map");
      repeated.clear();
    }
    if (ch == '"') {
      std::size_t end = string_end(json, i);
      if (!stack.empty() && stack.back().object && stack.back().expect_key) {
        Scope& scope = stack.back();
        std::string key(json.substr(i + 1, end - i - 2));
        if (std::find(scope.keys.begin(), scope.keys.end(), key) != scope.keys.end()) {
          repeated = key;
        } else {
          scope.keys.push_back(std::move(key));
        }
        scope.expect_key = false;
      }
      i = end - 1;
    } else if (ch == '{' || ch == '[') {
      stack.push_back(Scope{ch == '{', ch == '{'});
    } else if ((ch == '}' || ch == ']') && !stack.empty()) {
      stack.pop_back();
    }
  }
  return errors;
}

std::vector<std::string> report_repeated_keys(std::string_view json, bool strict) {
  std::vector<std::string> errors = repeated_key_errors(json);
  if (!strict || errors.empty()) return errors;
  std::string all = "error converting YAML to JSON: yaml: unmarshal errors:";
  for (const std::string& e : errors) all += "\n  " + e;
  throw bad_request("error strict decoding YAML: " + all);
}

}  // namespace tailor::embedded
