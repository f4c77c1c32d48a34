// watch=true: a chunked stream of {"type","object"} events. Selectors are applied to both the
// old and the new object, so an object leaving the selection is DELETED and one entering it is
// ADDED, as kube-apiserver's watch cache does.
#include <charconv>

#include "embedded/api/rest.h"
#include "embedded/api/selectors.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPollClosed = std::chrono::milliseconds(250);

std::chrono::seconds watch_timeout(const RestContext& c) {
  std::string t = c.request.query_param("timeoutSeconds").value_or("");
  long long v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || v <= 0) {
    return c.options.default_watch_timeout;
  }
  return std::chrono::seconds(v);
}

class EventWriter {
 public:
  EventWriter(const RestContext& c, kube::http::Exchange& exchange)
      : c_(c),
        exchange_(exchange),
        table_(wants_table(c.request)),
        labels_(LabelSelector::parse(c.request.query_param("labelSelector").value_or(""))),
        fields_(FieldSelector::parse(c.request.query_param("fieldSelector").value_or(""),
                                     *c.target.resource)) {}

  // false once the client has gone.
  bool write(const StoredEvent& e) {
    bool now = selected(e.object.get());
    bool before = e.type == EventType::Modified && selected(e.previous.get());
    std::string_view type = event_type_name(e.type);
    if (e.type == EventType::Modified && now != before) {
      type = now ? "ADDED" : "DELETED";
    } else if (!now && !(e.type == EventType::Modified && before)) {
      return true;
    }
    if (table_) return send(type, render_table(e.object));
    if (c_.target.served) return send(type, to_served(c_.target, e.object->object()));
    return send_line(type, e.object->json());
  }

  bool bookmark(std::uint64_t resource_version) {
    const ResourceInfo& r = c_.target.url_resource();
    return send(
        "BOOKMARK",
        bj::object{{"kind", r.kind},
                   {"apiVersion", r.api_version()},
                   {"metadata", bj::object{{"resourceVersion", std::to_string(resource_version)},
                                           {"creationTimestamp", nullptr}}}});
  }

  bool error(const StatusError& e) { return send("ERROR", bj::parse(e.to_json())); }

 private:
  bool selected(const StoredObject* o) const {
    return o && labels_.matches(*o) && fields_.matches(*o);
  }

  bj::object render_table(const StoredPtr& o) {
    TableRequest t = table_request(c_);
    t.column_definitions = first_;
    first_ = false;
    bj::object table = make_table(*c_.target.resource, {o}, t);
    table["metadata"] = bj::object{{"resourceVersion", std::to_string(o->resource_version())}};
    served_table(c_.target, table);
    return table;
  }

  bool send(std::string_view type, const bj::value& object) {
    return send_line(type, bj::serialize(object));
  }

  // The event envelope around the object's JSON text, which every watcher shares as stored: the
  // text is written as it is, not copied into a line per watcher.
  bool send_line(std::string_view type, std::string_view object_json) {
    const std::string_view line[] = {R"({"type":")", type, R"(","object":)", object_json, "}\n"};
    return exchange_.write_pieces(line);
  }

  const RestContext& c_;
  kube::http::Exchange& exchange_;
  bool table_;
  bool first_ = true;
  LabelSelector labels_;
  FieldSelector fields_;
};

}  // namespace

void watch_objects(const RestContext& c, kube::http::Exchange& exchange) {
  EventWriter writer(c, exchange);  // parses selectors: errors before the stream starts
  std::optional<std::uint64_t> start = requested_resource_version(c.request);
  bool bookmarks = c.request.query_param("allowWatchBookmarks").value_or("") == "true";
  std::shared_ptr<Watch> watch;
  std::optional<StatusError> failure;
  try {
    watch = c.store.watch(*c.target.resource, c.target.ns, start);
  } catch (const StatusError& e) {
    failure = e;  // kube-apiserver reports an expired resourceVersion as an ERROR event
  }
  exchange.start_stream(200, {{"Content-Type", "application/json"}});
  if (failure) {
    writer.error(*failure);
    exchange.finish();
    return;
  }
  const auto deadline = Clock::now() + watch_timeout(c);
  auto next_bookmark = Clock::now() + c.options.bookmark_interval;
  while (true) {
    auto wake = std::min({deadline, next_bookmark, Clock::now() + kPollClosed});
    for (const StoredEvent& e : watch->next(wake)) {
      if (!writer.write(e)) return;
    }
    if (watch->stopped() || exchange.closed()) break;
    auto now = Clock::now();
    if (now >= deadline) break;
    if (now >= next_bookmark) {
      if (bookmarks && !writer.bookmark(watch->progress())) return;
      next_bookmark = now + c.options.bookmark_interval;
    }
  }
  exchange.finish();
}

}  // namespace tailor::embedded
