#include "kube/model/json_root.h"

#include <simdjson.h>

#include <string>

namespace tailor::kube::json {

void decode_root(std::string_view json, const std::function<void(od::value&)>& read_root) {
  // The documents read this way (policies, the actuator's inputs) are few and small: a fresh
  // padded copy per document keeps this simple.
  simdjson::padded_string padded(json);
  thread_local od::parser parser;
  od::document doc;
  if (auto error = parser.iterate(padded).get(doc)) fail_syntax(error);
  od::json_type type;
  if (auto error = doc.type().get(type)) fail_syntax(error);
  if (type != od::json_type::object) {
    fail("expected an object, got " + std::string(type_name(type)));
  }
  od::value root;
  if (auto error = doc.get_value().get(root)) fail_syntax(error);
  read_root(root);
  const char* location = nullptr;
  if (!doc.current_location().get(location)) {
    fail("unexpected content after the JSON document");
  }
}

}  // namespace tailor::kube::json
