// list and get, as JSON or as a server-side Table.
#include <charconv>

#include "embedded/api/rest.h"
#include "embedded/api/selectors.h"
#include "embedded/storage/object_meta.h"

namespace tailor::kube::embedded {
namespace {

constexpr const char* kTableType = "application/json;as=Table;v=v1;g=meta.k8s.io";

std::size_t parse_limit(const std::optional<std::string>& text) {
  if (!text || text->empty()) return 0;
  long long v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size() || v < 0) {
    throw bad_request("invalid limit \"" + *text + "\"");
  }
  return static_cast<std::size_t>(v);
}

// The list's head object ({"kind",...,"metadata":{...}}) with "items" appended: the stored JSON
// texts joined as they are, never re-serialised.
std::string list_body(std::string head, const std::vector<StoredPtr>& items) {
  std::size_t size = head.size() + 16;
  for (const StoredPtr& o : items) size += o->json().size() + 1;
  std::string body = std::move(head);
  body.reserve(size);
  body.pop_back();  // the head's closing brace
  body += R"(,"items":[)";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) body += ',';
    body += items[i]->json();
  }
  body += "]}";
  return body;
}

}  // namespace

TimePoint RestContext::now() const {
  return options.clock ? options.clock() : TimePoint(std::chrono::system_clock::now());
}

http::ServerResponse json_response(int status, std::string body, std::string content_type) {
  return {status, {{"Content-Type", std::move(content_type)}}, std::move(body)};
}

http::ServerResponse error_response(const StatusError& error) {
  return json_response(error.code(), error.to_json());
}

bool wants_table(const http::ServerRequest& request) {
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

http::ServerResponse list_objects(const RestContext& c) {
  const ResourceInfo& r = *c.target.resource;
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
    return json_response(200, bj::serialize(table), kTableType);
  }
  bj::object head{{"kind", r.list_kind()}, {"apiVersion", r.api_version()}, {"metadata", meta}};
  return json_response(200, list_body(bj::serialize(head), page.items));
}

http::ServerResponse get_object(const RestContext& c) {
  const ResourceInfo& r = *c.target.resource;
  StoredPtr o = c.store.get_stored(r, c.target.ns, c.target.name);
  if (wants_table(c.request)) {
    bj::object table = make_table(r, {o}, table_request(c));
    table["metadata"] = bj::object{{"resourceVersion", std::to_string(o->resource_version())}};
    return json_response(200, bj::serialize(table), kTableType);
  }
  return json_response(200, o->json());
}

}  // namespace tailor::kube::embedded
