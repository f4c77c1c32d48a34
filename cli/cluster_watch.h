// What `tailor cluster-dns` and `tailor cluster-proxy` are built around: informers on two resource
// types, and a rebuild from both lists after a change, plus the JSON field readers their decoders
// share.
#pragma once

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "kube/client/informer.h"
#include "kube/client/list_watch.h"
#include "kube/client/rest_client.h"

namespace tailor::cli {

// Informers on `a_type` and `b_type`; `rebuild` is called with both lists (on this thread) when
// either changed since its last call and both have synced, looked at every `period` (so changes
// arriving together make one rebuild). Returns the reason `done` (asked each time round) gives
// first; exceptions of `rebuild` propagate.
template <typename A, typename B>
std::string watch_pair(
    kube::RestClient& client, const kube::ResourceType& a_type,
    typename kube::cache::Informer<A>::Decode decode_a, const kube::ResourceType& b_type,
    typename kube::cache::Informer<B>::Decode decode_b, std::chrono::milliseconds period,
    const std::function<std::string()>& done,
    const std::function<void(const std::vector<A>&, const std::vector<B>&)>& rebuild) {
  using kube::cache::Informer;
  using kube::cache::RestListerWatcher;
  // Before the informers, so that it outlives their threads' last handler call.
  std::atomic<std::uint64_t> changes{1};
  Informer<A> a(std::make_shared<RestListerWatcher>(client, a_type), std::move(decode_a),
                {.name = a_type.resource});
  Informer<B> b(std::make_shared<RestListerWatcher>(client, b_type), std::move(decode_b),
                {.name = b_type.resource});
  auto count_changes = [&changes](auto& informer) {
    auto count = [&changes] { changes.fetch_add(1); };
    informer.add_handlers({.on_add = [count](const auto&) { count(); },
                           .on_update = [count](const auto&, const auto&) { count(); },
                           .on_delete = [count](const auto&, bool) { count(); }});
  };
  count_changes(a);
  count_changes(b);
  a.start();
  b.start();
  std::uint64_t seen = 0;
  for (;;) {
    if (std::string reason = done(); !reason.empty()) return reason;
    const std::uint64_t now = changes.load();
    if (now != seen && a.has_synced() && b.has_synced()) {
      seen = now;
      std::vector<A> a_list;
      for (const auto& x : a.store().list()) a_list.push_back(*x);
      std::vector<B> b_list;
      for (const auto& x : b.store().list()) b_list.push_back(*x);
      rebuild(a_list, b_list);
    }
    std::this_thread::sleep_for(period);
  }
}

// JSON fields as the decoders read them: absent or of another type reads as empty.
inline const boost::json::object& object_at(const boost::json::object& parent,
                                            std::string_view key) {
  static const boost::json::object kEmpty;
  const boost::json::value* v = parent.if_contains(key);
  return v && v->is_object() ? v->as_object() : kEmpty;
}

inline const boost::json::array& array_at(const boost::json::object& parent, std::string_view key) {
  static const boost::json::array kEmpty;
  const boost::json::value* v = parent.if_contains(key);
  return v && v->is_array() ? v->as_array() : kEmpty;
}

inline std::string string_at(const boost::json::object& parent, std::string_view key) {
  const boost::json::value* v = parent.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

// One object's JSON; std::invalid_argument when it is not an object.
inline boost::json::object parse_object(std::string_view json) {
  boost::json::value root = boost::json::parse(json);
  if (!root.is_object()) throw std::invalid_argument("not a JSON object");
  return std::move(root.as_object());
}

}  // namespace tailor::cli
