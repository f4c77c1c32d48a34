// list and get, as JSON or as a server-side Table.
#include <charconv>

#include "embedded/api/rest.h"
#include "embedded/api/selectors.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

// How long a read waits for a resourceVersion the store has not reached (the watch cache's
// blockTimeout); then 504 Too large resource version.
constexpr std::chrono::seconds kFreshWait(3);

// A read of resourceVersion=N returns data at least as new as N (kube-apiserver's
// NotOlderThan, and Exact's newest case): a client that saw N from a server whose history this
// one has not got (a restart from a lost database) waits, then gets 504 and retries.
void wait_until_fresh(const RestContext& c) {
  std::optional<std::uint64_t> wanted = requested_resource_version(c.request);
  if (!wanted || *wanted <= c.store.resource_version()) return;
  std::uint64_t current = c.store.wait_for_version(*wanted, kFreshWait);
  if (current < *wanted) throw too_large_resource_version(*wanted, current);
}

std::size_t parse_limit(const std::optional<std::string>& text) {
  if (!text || text->empty()) return 0;
  long long v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size() || v < 0) {
    throw bad_request("invalid limit \"" + *text + "\"");
  }
  return static_cast<std::size_t>(v);
}

// What a list body points into while it is written: its head and the stored revisions.
struct ListText {
  std::string head;
  std::vector<StoredPtr> items;
};

// The list's head object ({"kind",...,"metadata":{...}}) with "items" appended: the stored JSON
// texts as they are, never re-serialised nor joined into one string (100k pods are over 1 GB):
// the server writes the pieces straight from the store's shared texts.
kube::http::ServerResponse list_response(std::string head, std::vector<StoredPtr> items) {
  auto text = std::make_shared<ListText>(ListText{std::move(head), std::move(items)});
  text->head.pop_back();  // the head's closing brace
  text->head += R"(,"items":[)";
  kube::http::ServerResponse response = json_response(200, "");
  std::vector<std::string_view>& pieces = response.more_body.pieces;
  pieces.reserve(2 * text->items.size() + 2);
  pieces.emplace_back(text->head);
  for (std::size_t i = 0; i < text->items.size(); ++i) {
    if (i) pieces.emplace_back(",");
    pieces.emplace_back(text->items[i]->json());
  }
  pieces.emplace_back("]}");
  response.more_body.owner = std::move(text);
  return response;
}

}  // namespace

kube::TimePoint RestContext::now() const {
  return options.clock ? options.clock() : kube::TimePoint(std::chrono::system_clock::now());
}

kube::http::ServerResponse json_response(int status, std::string body, std::string content_type) {
  return {status, {{"Content-Type", std::move(content_type)}}, std::move(body)};
}

kube::http::ServerResponse error_response(const StatusError& error) {
  return json_response(error.code(), error.to_json());
}

bool wants_table(const kube::http::ServerRequest& request) {
  std::string_view accept = request.header("Accept");
  return accept.find("as=Table") != std::string_view::npos &&
         accept.find("g=meta.k8s.io") != std::string_view::npos;
}

TableRequest table_request(const RestContext& c) {
  TableRequest t;
  t.now = c.now();
  std::string include = c.request.query_param("includeObject").value_or("Metadata");
  if (include == "None") {
    t.include = IncludeObject::None;
  } else if (include == "Object") {
    t.include = IncludeObject::Object;
  } else if (include != "Metadata") {
    throw bad_request("includeObject must be one of None, Metadata, Object");
  }
  return t;
}

std::optional<std::uint64_t> requested_resource_version(const kube::http::ServerRequest& request) {
  std::string rv = request.query_param("resourceVersion").value_or("");
  if (rv.empty() || rv == "0") return std::nullopt;
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  if (ec != std::errc() || end != rv.data() + rv.size()) {
    throw bad_request("resourceVersion: Invalid value: \"" + rv +
                      "\": must be a non-negative integer");
  }
  return v;
}

kube::http::ServerResponse list_objects(const RestContext& c) {
  const ResourceInfo& r = *c.target.resource;
  wait_until_fresh(c);
  LabelSelector labels = LabelSelector::parse(c.request.query_param("labelSelector").value_or(""));
  FieldSelector fields =
      FieldSelector::parse(c.request.query_param("fieldSelector").value_or(""), r);
  std::size_t limit = parse_limit(c.request.query_param("limit"));
  std::string start_after;
  if (std::string token = c.request.query_param("continue").value_or(""); !token.empty()) {
    auto [key, rv] = decode_continue(token);
    if (rv < c.store.oldest_resumable()) {
      throw expired(
          "The provided continue parameter is too old to display a consistent list result. You "
          "can start a new list without the continue parameter, or use the continue value from "
          "the response to issue a subsequent list.");
    }
    start_after = key;
  }
  ObjectFilter filter;
  if (!labels.empty() || !fields.empty()) {
    filter = [&](const StoredObject& o) { return labels.matches(o) && fields.matches(o); };
  }
  ListPage page = c.store.list(r, c.target.ns, filter, limit, start_after);
  bj::object meta{{"resourceVersion", std::to_string(page.resource_version)}};
  if (!page.last_key.empty()) {
    meta["continue"] = encode_continue(page.last_key, page.resource_version);
    if (!filter) meta["remainingItemCount"] = page.remaining;
  }
  if (wants_table(c.request)) {
    bj::object table = make_table(r, page.items, table_request(c));
    table["metadata"] = std::move(meta);
    served_table(c.target, table);
    return json_response(200, bj::serialize(table), kTableType);
  }
  bj::object head{{"kind", r.list_kind()}, {"apiVersion", r.api_version()}, {"metadata", meta}};
  return list_response(bj::serialize(head), std::move(page.items));
}

kube::http::ServerResponse get_object(const RestContext& c) {
  const ResourceInfo& r = *c.target.resource;
  wait_until_fresh(c);
  StoredPtr o = c.store.get_stored(r, c.target.ns, c.target.name);
  if (wants_table(c.request)) {
    bj::object table = make_table(r, {o}, table_request(c));
    table["metadata"] = bj::object{{"resourceVersion", std::to_string(o->resource_version())}};
    served_table(c.target, table);
    return json_response(200, bj::serialize(table), kTableType);
  }
  return json_response(200, o->json());
}

}  // namespace tailor::embedded
