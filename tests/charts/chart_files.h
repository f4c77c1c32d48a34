// The chart's files as the tests read them: charts/tailor of this checkout, its values, and its
// templates rendered by Helm's own engine (tests/tools/helm-render: Go text/template, sprig,
// sigs.k8s.io/yaml and gojsonschema, as `helm template` renders them).
#pragma once

#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/charts/chart_paths.h"

namespace tailor::charts {

inline const YAML::Node& chart_values() {
  static const YAML::Node values = YAML::LoadFile((chart_dir() / "values.yaml").string());
  return values;
}

// A directory of this process for values files, chart copies and the renderer's error output,
// removed when the process ends.
class ScratchDir {
 public:
  ScratchDir() {
    char tmpl[] = "/tmp/tailor-chart-render-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};
inline const std::filesystem::path& scratch_dir() {
  static const ScratchDir dir;
  return dir.path();
}

inline std::string write_scratch(const std::string& name, const std::string& content) {
  const auto path = scratch_dir() / name;
  std::ofstream(path) << content;
  return path.string();
}

// One run of helm-render: its exit code, the manifests (stdout) and its error (stderr).
struct HelmRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `helm-render <args>`, arguments passed through the shell.
inline HelmRun run_helm_render(const std::string& args) {
  static int runs = 0;
  const std::string err_file = (scratch_dir() / ("stderr-" + std::to_string(++runs))).string();
  const std::string command = std::string(TAILOR_HELM_RENDER) + " " + args + " 2>" + err_file;
  HelmRun r;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + command);
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_file(err_file);
  return r;
}

// `helm template tailor charts/tailor -n kube-system -f <values>` with `values` (YAML merged
// over values.yaml as Helm merges a -f file; "" for none). --strict: a template reading a
// value that does not exist fails (as `helm lint --strict`), instead of rendering it empty.
inline HelmRun helm_template(const std::string& values = "", const std::string& chart = "") {
  static int files = 0;
  std::string args =
      "--strict -n kube-system tailor " + (chart.empty() ? chart_dir().string() : chart);
  if (!values.empty()) {
    args += " -f " + write_scratch("values-" + std::to_string(++files) + ".yaml", values);
  }
  return run_helm_render(args);
}

struct RenderedDocument {
  std::string file;  // e.g. "controller-deployment.yaml"
  YAML::Node node;
  std::string text;  // as helm-render printed it
};

// The documents of helm template's output ("---\n# Source: tailor/templates/x.yaml\n...").
inline std::vector<RenderedDocument> parse_manifests(const std::string& manifests) {
  static const std::string kSource = "# Source: tailor/templates/";
  std::vector<RenderedDocument> out;
  std::size_t at = 0;
  while ((at = manifests.find("---\n" + kSource, at)) != std::string::npos) {
    const std::size_t name_at = at + 4 + kSource.size();
    const std::size_t body_at = manifests.find('\n', name_at) + 1;
    const std::size_t end = manifests.find("---\n" + kSource, body_at);
    const std::string body = manifests.substr(body_at, end - body_at);
    out.push_back({manifests.substr(name_at, body_at - 1 - name_at), YAML::Load(body), body});
    at = body_at;
  }
  return out;
}

// Every document of the chart rendered with these values; throws with helm-render's error.
inline std::vector<RenderedDocument> render_documents(const std::string& values = "") {
  const HelmRun r = helm_template(values);
  if (r.exit_code != 0) {
    throw std::runtime_error("helm-render failed (exit " + std::to_string(r.exit_code) +
                             "): " + r.err);
  }
  return parse_manifests(r.out);
}

// The same with values.yaml as it is (rendered once).
inline const std::vector<RenderedDocument>& rendered_documents() {
  static const std::vector<RenderedDocument> documents = render_documents();
  return documents;
}

// The one rendered document of this kind in the template files whose name starts with
// `file_prefix`.
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
