#include "embedded/api/patch.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

#include "embedded/storage/object_meta.h"
#include "embedded/storage/status_error.h"

namespace tailor::embedded {

bj::value merge_patch(const bj::value& target, const bj::value& patch) {
  if (!patch.is_object()) return patch;
  bj::object result = target.is_object() ? target.as_object() : bj::object{};
  for (const auto& [key, value] : patch.as_object()) {
    if (value.is_null()) {
      result.erase(key);
    } else {
      const bj::value* current = result.if_contains(key);
      result[key] = merge_patch(current ? *current : bj::value(), value);
    }
  }
  return result;
}

// ---- JSON patch

namespace {

std::vector<std::string> pointer_tokens(std::string_view pointer) {
  if (pointer.empty()) return {};
  if (pointer.front() != '/')
    throw bad_request("invalid JSON pointer \"" + std::string(pointer) + "\"");
  std::vector<std::string> tokens;
  std::string token;
  for (std::size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      tokens.push_back(token);
      token.clear();
    } else if (pointer[i] == '~' && i + 1 < pointer.size() &&
               (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
      token += pointer[++i] == '0' ? '~' : '/';
    } else {
      token += pointer[i];
    }
  }
  return tokens;
}

std::size_t array_index(const bj::array& a, const std::string& token, bool allow_end,
                        std::string_view path) {
  if (allow_end && token == "-") return a.size();
  // Past the array's size whenever it is not a plain index, or one too large for size_t (stoul
  // threw out_of_range there, a 500; found by fuzz/embedded_patches).
  std::size_t i = a.size() + 1;
  const bool digits = !token.empty() && std::all_of(token.begin(), token.end(),
                                                    [](char c) { return c >= '0' && c <= '9'; });
  if (digits) {
    std::size_t parsed = 0;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), parsed);
    if (ec == std::errc() && end == token.data() + token.size()) i = parsed;
  }
  if (i > a.size() || (!allow_end && i == a.size())) {
    throw StatusError(
        422, "Invalid",
        "the server rejected our request due to an error in our request: index out of range at \"" +
            std::string(path) + "\"");
  }
  return i;
}

StatusError missing_path(std::string_view path) {
  return StatusError(422, "Invalid",
                     "the server rejected our request due to an error in our request: missing "
                     "value at \"" +
                         std::string(path) + "\"");
}

// The container holding the last token.
bj::value& parent_of(bj::value& doc, const std::vector<std::string>& tokens,
                     std::string_view path) {
  bj::value* v = &doc;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (v->is_object()) {
      bj::value* next = v->as_object().if_contains(tokens[i]);
      if (!next) throw missing_path(path);
      v = next;
    } else if (v->is_array()) {
      v = &v->as_array()[array_index(v->as_array(), tokens[i], false, path)];
    } else {
      throw missing_path(path);
    }
  }
  return *v;
}

bj::value get_at(bj::value& doc, std::string_view path) {
  std::vector<std::string> tokens = pointer_tokens(path);
  if (tokens.empty()) return doc;
  bj::value& parent = parent_of(doc, tokens, path);
  if (parent.is_object()) {
    bj::value* v = parent.as_object().if_contains(tokens.back());
    if (!v) throw missing_path(path);
    return *v;
  }
  if (parent.is_array())
    return parent.as_array()[array_index(parent.as_array(), tokens.back(), false, path)];
  throw missing_path(path);
}

void add_at(bj::value& doc, std::string_view path, bj::value value, bool replace) {
  std::vector<std::string> tokens = pointer_tokens(path);
  if (tokens.empty()) {
    doc = std::move(value);
    return;
  }
  bj::value& parent = parent_of(doc, tokens, path);
  if (parent.is_object()) {
    if (replace && !parent.as_object().contains(tokens.back())) throw missing_path(path);
    parent.as_object()[tokens.back()] = std::move(value);
  } else if (parent.is_array()) {
    bj::array& a = parent.as_array();
    std::size_t i = array_index(a, tokens.back(), !replace, path);
    if (replace) {
      a[i] = std::move(value);
    } else {
      a.insert(a.begin() + static_cast<std::ptrdiff_t>(i), std::move(value));
    }
  } else {
    throw missing_path(path);
  }
}

void remove_at(bj::value& doc, std::string_view path) {
  std::vector<std::string> tokens = pointer_tokens(path);
  if (tokens.empty()) throw bad_request("cannot remove the whole document");
  bj::value& parent = parent_of(doc, tokens, path);
  if (parent.is_object()) {
    if (!parent.as_object().erase(tokens.back())) throw missing_path(path);
  } else if (parent.is_array()) {
    bj::array& a = parent.as_array();
    a.erase(a.begin() + static_cast<std::ptrdiff_t>(array_index(a, tokens.back(), false, path)));
  } else {
    throw missing_path(path);
  }
}

std::string op_string(const bj::object& op, std::string_view key) {
  const bj::value* v = op.if_contains(key);
  if (!v || !v->is_string())
    throw bad_request("json patch operation lacks \"" + std::string(key) + "\"");
  return std::string(v->as_string());
}

}  // namespace

bj::value json_patch(const bj::value& target, const bj::value& ops) {
  if (!ops.is_array()) throw bad_request("json patch must be an array of operations");
  // kube-apiserver's maxJSONPatchOperations, checked before any operation applies.
  constexpr std::size_t kMaxOperations = 10000;
  if (std::size_t n = ops.as_array().size(); n > kMaxOperations) {
    throw StatusError(
        413, "RequestEntityTooLarge",
        "Request entity too large: The allowed maximum operations in a JSON patch is " +
            std::to_string(kMaxOperations) + ", got " + std::to_string(n));
  }
  bj::value doc = target;
  for (const bj::value& entry : ops.as_array()) {
    if (!entry.is_object()) throw bad_request("json patch operation must be an object");
    const bj::object& op = entry.as_object();
    std::string name = op_string(op, "op"), path = op_string(op, "path");
    const bj::value* value = op.if_contains("value");
    auto need_value = [&]() -> const bj::value& {
      if (!value) throw bad_request("json patch " + name + " operation lacks \"value\"");
      return *value;
    };
    if (name == "add") {
      add_at(doc, path, need_value(), false);
    } else if (name == "replace") {
      add_at(doc, path, need_value(), true);
    } else if (name == "remove") {
      remove_at(doc, path);
    } else if (name == "move" || name == "copy") {
      std::string from = op_string(op, "from");
      bj::value moved = get_at(doc, from);
      if (name == "move") remove_at(doc, from);
      add_at(doc, path, std::move(moved), false);
    } else if (name == "test") {
      if (get_at(doc, path) != need_value()) {
        throw StatusError(422, "Invalid",
                          "the server rejected our request due to an error in our request: "
                          "testing value " +
                              path + " failed");
      }
    } else {
      throw bad_request("unexpected json patch operation \"" + name + "\"");
    }
  }
  return doc;
}

// ---- Strategic merge patch

namespace {

// patchMergeKey of list fields in the built-in kinds served (by field name; the same key
// everywhere it appears).
const std::map<std::string, std::string, std::less<>>& merge_keys() {
  static const std::map<std::string, std::string, std::less<>> kKeys = {
      {"containers", "name"},
      {"initContainers", "name"},
      {"ephemeralContainers", "name"},
      {"env", "name"},
      {"volumes", "name"},
      {"volumeMounts", "mountPath"},
      {"ports", "containerPort"},
      {"conditions", "type"},
      {"imagePullSecrets", "name"},
      {"resourceClaims", "name"},
      {"hostAliases", "ip"},
      {"ownerReferences", "uid"},
      {"containerStatuses", "name"},
      {"initContainerStatuses", "name"},
      {"addresses", "type"},
      {"volumeDevices", "devicePath"},
      {"topologySpreadConstraints", "topologyKey"},
      // admissionregistration/v1 (Mutating|Validating)WebhookConfiguration.webhooks.
      {"webhooks", "name"},
  };
  return kKeys;
}

bj::value smp(const bj::value& target, const bj::value& patch);

// The merge key of a list field. "ports" is the one name with two keys among the kinds served:
// a container's ports merge by containerPort, a Service's spec.ports by port. Every element of
// either carries its own required key (a patch element too, since the key finds its match), so
// the elements tell the two apart.
std::optional<std::string_view> merge_key(std::string_view field, const bj::array& elements) {
  auto mk = merge_keys().find(field);
  if (mk == merge_keys().end()) return std::nullopt;
  if (field != "ports") return mk->second;
  for (const bj::value& e : elements) {
    if (!e.is_object()) continue;
    if (e.as_object().contains("containerPort")) return "containerPort";
    if (e.as_object().contains("port")) return "port";
  }
  return mk->second;
}

const bj::value* element_key(const bj::value& element, std::string_view key) {
  return element.is_object() ? element.as_object().if_contains(key) : nullptr;
}

bj::array merge_list(const bj::array& target, const bj::array& patch, std::string_view key) {
  bj::array result = target;
  for (const bj::value& item : patch) {
    const bj::value* k = element_key(item, key);
    auto same = [&](const bj::value& e) {
      const bj::value* ek = element_key(e, key);
      return k && ek && *ek == *k;
    };
    auto it = std::find_if(result.begin(), result.end(), same);
    const bj::value* directive =
        item.is_object() ? item.as_object().if_contains("$patch") : nullptr;
    if (directive && directive->is_string() && directive->as_string() == "delete") {
      if (it != result.end()) result.erase(it);
    } else if (it != result.end()) {
      *it = smp(*it, item);
    } else {
      result.push_back(smp(bj::object{}, item));
    }
  }
  return result;
}

// $setElementOrder/<field>: the patch's order of merge keys first, others after, as kubectl
// expects after a re-apply.
bj::array reorder(const bj::array& list, const bj::array& order, std::string_view key) {
  bj::array result;
  std::vector<bool> used(list.size(), false);
  for (const bj::value& want : order) {
    const bj::value* k = key.empty() ? &want : element_key(want, key);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const bj::value* have = key.empty() ? &list[i] : element_key(list[i], key);
      if (!used[i] && k && have && *have == *k) {
        result.push_back(list[i]);
        used[i] = true;
        break;
      }
    }
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!used[i]) result.push_back(list[i]);
  }
  return result;
}

bj::value smp(const bj::value& target, const bj::value& patch) {
  if (!patch.is_object()) return patch;
  const bj::object& p = patch.as_object();
  const bj::value* directive = p.if_contains("$patch");
  if (directive && directive->is_string() && directive->as_string() == "replace") {
    bj::object replaced = p;
    replaced.erase("$patch");
    return replaced;
  }
  bj::object result = target.is_object() ? target.as_object() : bj::object{};
  if (const bj::value* retain = p.if_contains("$retainKeys"); retain && retain->is_array()) {
    std::vector<std::string> keep;
    for (const bj::value& k : retain->as_array()) {
      if (k.is_string()) keep.emplace_back(k.as_string());
    }
    std::vector<std::string> drop;
    for (const auto& [k, v] : result) {
      if (std::find(keep.begin(), keep.end(), std::string_view(k)) == keep.end())
        drop.emplace_back(k);
    }
    for (const std::string& k : drop) result.erase(k);
  }
  for (const auto& [key, value] : p) {
    std::string_view k = key;
    if (k.starts_with("$")) continue;
    if (value.is_null()) {
      result.erase(key);
      continue;
    }
    const bj::value* current = result.if_contains(key);
    auto mk = value.is_array() ? merge_key(k, value.as_array()) : std::nullopt;
    if (mk && current && current->is_array()) {
      result[key] = merge_list(current->as_array(), value.as_array(), *mk);
    } else if (value.is_array()) {
      bj::array items;
      for (const bj::value& e : value.as_array()) {
        if (!e.is_object()) {
          items.push_back(e);
        } else if (!e.as_object().contains("$patch")) {
          items.push_back(smp(bj::object{}, e));  // a null inside means absent, as anywhere
        }
      }
      result[key] = std::move(items);
    } else {
      result[key] = smp(current ? *current : bj::value(), value);
    }
  }
  for (const auto& [key, value] : p) {
    std::string_view k = key;
    if (k.starts_with("$deleteFromPrimitiveList/") && value.is_array()) {
      std::string field(k.substr(std::string_view("$deleteFromPrimitiveList/").size()));
      if (bj::value* list = result.if_contains(field); list && list->is_array()) {
        bj::array& a = list->as_array();
        for (const bj::value& gone : value.as_array()) {
          a.erase(std::remove(a.begin(), a.end(), gone), a.end());
        }
      }
    } else if (k.starts_with("$setElementOrder/") && value.is_array()) {
      std::string field(k.substr(std::string_view("$setElementOrder/").size()));
      if (bj::value* list = result.if_contains(field); list && list->is_array()) {
        *list = reorder(list->as_array(), value.as_array(),
                        merge_key(field, value.as_array()).value_or(std::string_view()));
      }
    }
  }
  return result;
}

}  // namespace

bj::value strategic_merge_patch(const bj::value& target, const bj::value& patch) {
  if (!patch.is_object()) throw bad_request("a strategic merge patch must be a JSON object");
  return smp(target, patch);
}

}  // namespace tailor::embedded
