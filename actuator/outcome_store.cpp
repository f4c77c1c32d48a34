// ResizeState checkpoints: a JSON array, times in RFC 3339 with microseconds.
#include <boost/json.hpp>

#include "actuator/outcome.h"

namespace tailor::actuator {
namespace {

namespace bj = boost::json;

[[noreturn]] void fail(std::size_t index, std::string_view what) {
  throw std::invalid_argument("resize states[" + std::to_string(index) + "]: " + std::string(what));
}

const bj::value& member(const bj::object& o, std::string_view key, std::size_t index) {
  const bj::value* v = o.if_contains(key);
  if (!v) fail(index, std::string(key) + " is missing");
  return *v;
}

std::string string_member(const bj::object& o, std::string_view key, std::size_t index) {
  const bj::value& v = member(o, key, index);
  if (!v.is_string()) fail(index, std::string(key) + " must be a string");
  return std::string(v.get_string());
}

kube::TimePoint time_member(const bj::object& o, std::string_view key, std::size_t index) {
  std::string text = string_member(o, key, index);
  auto t = kube::try_parse_rfc3339(text);
  if (!t) fail(index, std::string(key) + " is not an RFC 3339 time: \"" + text + "\"");
  return *t;
}

ResizeState parse_state(const bj::value& v, std::size_t index) {
  if (!v.is_object()) fail(index, "must be an object");
  const bj::object& o = v.get_object();
  ResizeState s;
  s.pod_uid = string_member(o, "podUID", index);
  const bj::value& generation = member(o, "generation", index);
  if (!generation.is_int64()) fail(index, "generation must be an integer");
  s.generation = generation.get_int64();
  std::string status = string_member(o, "status", index);
  auto parsed = parse_resize_status(status);
  if (!parsed) fail(index, "unknown status \"" + status + "\"");
  s.status = *parsed;
  if (o.contains("message")) s.message = string_member(o, "message", index);
  s.since = time_member(o, "since", index);
  s.requested = time_member(o, "requested", index);
  if (const bj::value* totals = o.if_contains("requestedTotals")) {
    if (!totals->is_object()) fail(index, "requestedTotals must be an object");
    for (const auto& [name, quantity] : totals->get_object()) {
      if (!quantity.is_string()) fail(index, "requestedTotals values must be strings");
      std::string error;
      auto q = kube::Quantity::try_parse(std::string(quantity.get_string()), &error);
      if (!q) fail(index, "requestedTotals." + std::string(name) + ": " + error);
      s.requested_totals.insert_or_assign(name, *q);
    }
  }
  return s;
}

}  // namespace

std::string serialize_states(const std::vector<ResizeState>& states) {
  bj::array out;
  for (const auto& s : states) {
    bj::object totals;
    for (const auto& [name, q] : s.requested_totals) totals[name] = q.to_string();
    bj::object o{{"podUID", s.pod_uid},
                 {"generation", s.generation},
                 {"status", to_string(s.status)},
                 {"since", kube::format_rfc3339_micro(s.since)},
                 {"requested", kube::format_rfc3339_micro(s.requested)}};
    if (!s.message.empty()) o["message"] = s.message;
    if (!totals.empty()) o["requestedTotals"] = std::move(totals);
    out.emplace_back(std::move(o));
  }
  return bj::serialize(out);
}

std::vector<ResizeState> parse_states(std::string_view json) {
  bj::error_code ec;
  bj::value root = bj::parse(json, ec);
  if (ec) throw std::invalid_argument("resize states: malformed JSON: " + ec.message());
  if (!root.is_array()) throw std::invalid_argument("resize states: expected a JSON array");
  std::vector<ResizeState> out;
  const bj::array& items = root.get_array();
  for (std::size_t i = 0; i < items.size(); ++i) out.push_back(parse_state(items[i], i));
  return out;
}

}  // namespace tailor::actuator
