// YAML to JSON for the manifests the demo sends (the chart's CRDs): the API takes JSON, and the
// demo must not depend on kubectl. Scalars follow YAML 1.2's core schema: quoted ones are
// strings, plain ones are null, booleans, integers or floats when they read as such.
#pragma once

#include <string>
#include <vector>

namespace tailor::cli::demo {

// One JSON document per non-empty YAML document. Throws std::runtime_error with the line of a
// syntax error.
std::vector<std::string> yaml_documents_to_json(const std::string& yaml);

}  // namespace tailor::cli::demo
