#include "kube/client/list_watch.h"

#include <simdjson.h>

#include <optional>

#include "kube/client/store_meta.h"

namespace tailor::kube::cache {
namespace {

namespace od = simdjson::ondemand;

std::string_view string_of(od::value value, std::string_view where) {
  std::string_view text;
  if (value.get_string().get(text) != simdjson::SUCCESS) {
    throw DecodeError(std::string(where) + ": expected a string");
  }
  return text;
}

void read_list_metadata(od::value value, ListPage& page) {
  for (auto field : value.get_object()) {
    std::string_view key = field.unescaped_key();
    if (key == "resourceVersion") {
      page.resource_version = string_of(field.value(), "List metadata.resourceVersion");
    } else if (key == "continue") {
      page.continue_token = string_of(field.value(), "List metadata.continue");
    }
  }
}

void read_items(od::value value, ListPage& page) {
  od::array items;
  if (value.get_array().get(items) != simdjson::SUCCESS) {
    throw DecodeError("List items: expected an array");
  }
  for (auto item : items) {
    od::object object;
    if (item.get_object().get(object) != simdjson::SUCCESS) {
      throw DecodeError("List items[" + std::to_string(page.items.size()) +
                        "]: expected an object");
    }
    page.items.emplace_back(std::string_view(object.raw_json()));
  }
}

// A parser sized for a page of 500 pods holds tens of MB of structural indexes; kept per informer
// thread between relists it is dead weight (bench/RESULTS.md "Scale"), so documents above this
// size get a parser of their own, freed with the page. Small documents (watch events, Status
// bodies, small pages) reuse the thread's parser.
constexpr std::size_t kSharedParserLimit = 1 << 20;

// Runs `read` over the top-level fields of a JSON object, turning simdjson errors into
// DecodeError that says which document was malformed.
template <class Read>
void for_each_field(std::string_view json, std::string_view what, Read read) {
  try {
    thread_local od::parser shared;
    std::optional<od::parser> own;
    od::parser& parser = json.size() > kSharedParserLimit ? own.emplace() : shared;
    simdjson::padded_string padded(json);
    od::document doc = parser.iterate(padded);
    for (auto field : doc.get_object())
      read(std::string_view(field.unescaped_key()), field.value());
  } catch (const simdjson::simdjson_error& e) {
    throw DecodeError(std::string(what) + " JSON is malformed: " + e.what());
  }
}

}  // namespace

ListPage parse_list_page(std::string_view list_json) {
  ListPage page;
  bool has_items = false;
  for_each_field(list_json, "List", [&](std::string_view key, od::value value) {
    if (key == "metadata") {
      read_list_metadata(value, page);
    } else if (key == "items") {
      // A List with no objects may carry "items": null.
      bool null = value.is_null();
      if (!null) read_items(value, page);
      has_items = true;
    }
  });
  if (!has_items) throw DecodeError("List has no items field");
  return page;
}

StatusInfo parse_status(std::string_view status_json) {
  StatusInfo status;
  for_each_field(status_json, "Status", [&](std::string_view key, od::value value) {
    if (key == "code") {
      std::int64_t code = 0;
      if (value.get_int64().get(code) != simdjson::SUCCESS || code < 0 || code > 999) {
        throw DecodeError("Status code: expected an HTTP status number");
      }
      status.code = static_cast<int>(code);
    } else if (key == "reason") {
      status.reason = string_of(value, "Status reason");
    } else if (key == "message") {
      status.message = string_of(value, "Status message");
    }
  });
  return status;
}

std::string parse_resource_version(std::string_view object_json) {
  std::string resource_version;
  for_each_field(object_json, "object", [&](std::string_view key, od::value value) {
    if (key != "metadata") return;
    for (auto field : value.get_object()) {
      if (std::string_view(field.unescaped_key()) == "resourceVersion") {
        resource_version = string_of(field.value(), "metadata.resourceVersion");
      }
    }
  });
  if (resource_version.empty()) throw DecodeError("object has no metadata.resourceVersion");
  return resource_version;
}

RestListerWatcher::RestListerWatcher(RestClient& client, ResourceType type, std::string namespace_,
                                     std::string label_selector, std::string field_selector)
    : client_(client),
      ref_{std::move(type), std::move(namespace_), "", ""},
      label_selector_(std::move(label_selector)),
      field_selector_(std::move(field_selector)) {}

ListOptions RestListerWatcher::with_selectors(ListOptions options) const {
  options.label_selector = label_selector_;
  options.field_selector = field_selector_;
  return options;
}

ListPage RestListerWatcher::list(const ListOptions& options) {
  return parse_list_page(client_.list(ref_, with_selectors(options)));
}

void RestListerWatcher::watch(const ListOptions& options,
                              const std::function<bool(const RawWatchEvent&)>& on_event,
                              const StopToken& stop) {
  client_.watch(ref_, with_selectors(options), on_event, stop);
}

}  // namespace tailor::kube::cache
