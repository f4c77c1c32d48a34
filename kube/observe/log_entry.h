// One structured log entry and the two ways Kubernetes components print it: klog's text header
// format and the JSON format of k8s.io/component-base/logs/json (zapr). Pure functions, so the
// exact output (quoting, escaping, key order) is tested directly.
#pragma once

#include <chrono>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "kube/observe/duration.h"

namespace tailor::kube::log {

// A reference to a namespaced object, printed "ns/name" in text and {"name","namespace"} in
// JSON, like klog.KObj.
struct ObjectRef {
  std::string namespace_;
  std::string name;
};
inline ObjectRef kobj(std::string_view namespace_, std::string_view name) {
  return ObjectRef{std::string(namespace_), std::string(name)};
}

using Value =
    std::variant<std::nullptr_t, bool, std::int64_t, std::uint64_t, double, std::string, ObjectRef>;

template <class T>
Value to_value(T&& v) {
  using D = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<D, std::nullptr_t>) {
    return nullptr;
  } else if constexpr (std::is_same_v<D, bool>) {
    return v;
  } else if constexpr (std::is_same_v<D, ObjectRef>) {
    return ObjectRef(std::forward<T>(v));
  } else if constexpr (std::is_convertible_v<T, std::string_view>) {
    return std::string(std::string_view(v));
  } else if constexpr (std::is_floating_point_v<D>) {
    return static_cast<double>(v);
  } else if constexpr (std::is_integral_v<D> && std::is_signed_v<D>) {
    return static_cast<std::int64_t>(v);
  } else if constexpr (std::is_integral_v<D>) {
    return static_cast<std::uint64_t>(v);
  } else if constexpr (requires { std::chrono::duration_cast<Duration>(v); }) {
    return format_duration(std::chrono::duration_cast<Duration>(v));  // like zap: "5s"
  } else {
    static_assert(sizeof(D) == 0, "unsupported log value type");
  }
}

// A key/value pair: {"pod", kobj(ns, name)}, {"count", 3}, {"after", 5s}.
struct KV {
  std::string key;
  Value value;
  template <class T>
  KV(std::string_view k, T&& v) : key(k), value(to_value(std::forward<T>(v))) {}
};
// The pairs of one call. Built from a braced list only, so a lone {"key", "value"} cannot be
// mistaken for a range of characters.
class KVs {
 public:
  KVs() = default;
  KVs(std::initializer_list<KV> kvs) : items_(kvs) {}
  void push_back(KV kv) { items_.push_back(std::move(kv)); }
  void append(const KVs& other) { items_.insert(items_.end(), other.begin(), other.end()); }
  bool empty() const { return items_.empty(); }
  std::vector<KV>::const_iterator begin() const { return items_.begin(); }
  std::vector<KV>::const_iterator end() const { return items_.end(); }

 private:
  std::vector<KV> items_;
};

enum class Severity { Info, Warning, Error };

struct Entry {
  Severity severity = Severity::Info;
  std::chrono::system_clock::time_point time;
  int pid = 0;
  std::string_view file;  // as from std::source_location (may be an absolute path)
  std::uint_least32_t line = 0;
  std::string_view msg;
  int verbosity = 0;               // V level of an info entry
  std::optional<std::string> err;  // error entries: the error's text, when there is one
  const KVs* context = nullptr;    // with_values() pairs of the logger, may be null
  const KVs* kvs = nullptr;        // the call's pairs, may be null
};

// klog text: `I1122 00:20:21.123456   12345 file.cpp:42] "message" key="value"` plus "\n".
// The header uses local time, like klog.
std::string format_text(const Entry& e);

// One JSON line plus "\n": {"ts":<ms since epoch>,"caller":"dir/file.cpp:42","msg":...,
// context pairs, "v":N (info only), call pairs, "err":... (errors only)}.
std::string format_json(const Entry& e);

// Go's strconv.Quote: printable UTF-8 stays, control and invisible characters become escapes.
std::string go_quote(std::string_view s);
// JSON string literal as zap writes it (UTF-8 kept; invalid bytes become \ufffd).
std::string json_quote(std::string_view s);

}  // namespace tailor::kube::log
