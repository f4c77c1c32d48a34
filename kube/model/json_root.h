// Private to .cpp files (pulls in simdjson): decodes one JSON object document with the kube
// model's readers, so that every error carries its JSON path.
#pragma once

#include <functional>
#include <string_view>

#include "kube/model/json_reader.h"

namespace tailor::kube::json {

// Calls read(root) for the document's root object; throws DecodeError for malformed JSON,
// a root that is not an object, or content after it.
void decode_root(std::string_view json,
                 const std::function<void(simdjson::ondemand::value&)>& read);

}  // namespace tailor::kube::json
