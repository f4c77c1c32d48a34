// The chart's files as the tests read them: charts/tailor of this checkout, its values, and its
// templates reduced to YAML documents (chart_template.h).
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/charts/chart_template.h"

namespace tailor::charts {

inline std::filesystem::path chart_dir() {
  return std::filesystem::path(TAILOR_SOURCE_DIR) / "charts" / "tailor";
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Files of a chart folder with this extension, sorted.
inline std::vector<std::filesystem::path> chart_files(const std::string& folder,
                                                      const std::string& extension) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(chart_dir() / folder)) {
    if (entry.path().extension() == extension) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline const YAML::Node& chart_values() {
  static const YAML::Node values = YAML::LoadFile((chart_dir() / "values.yaml").string());
  return values;
}

struct RenderedDocument {
  std::string file;  // e.g. "controller-deployment.yaml"
  YAML::Node node;
};

// Every non-empty document of every templates/*.yaml after the substitution with these values.
// Throws std::runtime_error naming the file, with its substituted text, when one does not parse.
inline std::vector<RenderedDocument> render_documents(const YAML::Node& values) {
  std::vector<RenderedDocument> out;
  for (const auto& path : chart_files("templates", ".yaml")) {
    const std::string yaml = substitute_actions(read_file(path), values);
    try {
      for (const YAML::Node& doc : YAML::LoadAll(yaml)) {
        if (!doc.IsNull()) out.push_back({path.filename().string(), doc});
      }
    } catch (const YAML::Exception& e) {
      throw std::runtime_error(path.filename().string() + ": " + e.what() + "\n" + yaml);
    }
  }
  return out;
}

// The same with values.yaml as it is (rendered once).
inline const std::vector<RenderedDocument>& rendered_documents() {
  static const std::vector<RenderedDocument> documents = render_documents(chart_values());
  return documents;
}

// values.yaml with some values set, as `helm install --set` or `-f` would: `overrides` is YAML
// whose maps merge into the values and whose other nodes replace theirs.
inline void merge_values(YAML::Node into, const YAML::Node& overrides) {
  for (const auto& entry : overrides) {
    const std::string key = entry.first.as<std::string>();
    if (entry.second.IsMap() && into[key].IsMap()) {
      merge_values(into[key], entry.second);
    } else {
      into[key] = entry.second;
    }
  }
}
inline YAML::Node values_with(const std::string& overrides) {
  YAML::Node values = YAML::Clone(chart_values());
  merge_values(values, YAML::Load(overrides));
  return values;
}

// The one rendered document of this kind in the template files whose name starts with
// `file_prefix` (names of objects are mostly TEMPLATE after the substitution).
inline YAML::Node document_in(const std::vector<RenderedDocument>& documents,
                              const std::string& kind, const std::string& file_prefix = "") {
  std::vector<YAML::Node> found;
  for (const auto& doc : documents) {
    if (doc.node["kind"].as<std::string>("") == kind && doc.file.rfind(file_prefix, 0) == 0) {
      found.push_back(doc.node);
    }
  }
  if (found.size() != 1) {
    throw std::runtime_error(std::to_string(found.size()) + " documents of kind " + kind +
                             " in templates/" + file_prefix + "*");
  }
  return found.front();
}
inline YAML::Node document(const std::string& kind, const std::string& file_prefix = "") {
  return document_in(rendered_documents(), kind, file_prefix);
}

}  // namespace tailor::charts
