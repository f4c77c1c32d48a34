// Serving a second version of stored objects (Target::served): bodies are converted to the stored
// version before the verbs see them, and what the verbs answer back to the served one.
#include "embedded/api/rest.h"
#include "embedded/storage/json_text.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

bool converts(const Target& t) { return t.served && t.served->from_storage; }

// The item list of a list response, whose items the verbs send as pieces (see list_response).
std::string joined_body(const kube::http::ServerResponse& response) {
  std::string body = response.body;
  for (std::string_view piece : response.more_body.pieces) body += piece;
  return body;
}

}  // namespace

void served_table(const Target& t, bj::object& table) {
  if (!converts(t)) return;
  bj::value* rows = table.if_contains("rows");
  if (!rows || !rows->is_array()) return;
  for (bj::value& row : rows->as_array()) {
    bj::value* object = row.is_object() ? row.as_object().if_contains("object") : nullptr;
    // includeObject=Object embeds the object itself (Metadata: a PartialObjectMetadata).
    if (object && object->is_object() &&
        string_at(object->as_object(), "kind") == t.resource->kind) {
      *object = to_served(t, std::move(object->as_object()));
    }
  }
}

bj::object to_stored(const Target& t, bj::object object) {
  return t.served && t.served->to_storage ? t.served->to_storage(object) : std::move(object);
}

bj::object to_served(const Target& t, bj::object object) {
  return converts(t) ? t.served->from_storage(object) : std::move(object);
}

kube::http::ServerResponse served_response(const Target& t, kube::http::ServerResponse response) {
  // Errors are Status objects, as they are; Tables were converted when built (served_table).
  std::string_view type = kube::http::find_header(response.headers, "Content-Type");
  if (!converts(t) || response.status >= 300 || !type.starts_with("application/json") ||
      type == kTableType) {
    return response;
  }
  bj::value body = parse_json_text(joined_body(response));
  if (!body.is_object()) return response;
  bj::object& o = body.as_object();
  std::string kind = string_at(o, "kind");
  if (kind == t.resource->list_kind()) {
    o["apiVersion"] = t.served->api_version();
    if (bj::value* items = o.if_contains("items"); items && items->is_array()) {
      for (bj::value& item : items->as_array()) {
        if (item.is_object()) item = to_served(t, std::move(item.as_object()));
      }
    }
  } else if (kind == t.resource->kind) {
    o = to_served(t, std::move(o));
  }
  response.body = bj::serialize(o);
  response.more_body = {};
  return response;
}

}  // namespace tailor::embedded
