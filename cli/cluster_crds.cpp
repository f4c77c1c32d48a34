#include "cli/cluster_crds.h"

#include <algorithm>
#include <stdexcept>

#include "cli/demo_api.h"
#include "cli/source_tree.h"

namespace tailor::cli {
namespace fs = std::filesystem;

fs::path chart_crds_dir(const std::string& given, const fs::path& from) {
  if (!given.empty()) return given;
  if (auto dir = find_above(from, "charts/tailor/crds")) return *dir;
  throw std::runtime_error("cannot find charts/tailor/crds above " + from.string() +
                           "; pass --crds-dir");
}

std::vector<std::string> chart_crd_files(const fs::path& dir) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") {
      files.push_back(entry.path().string());
    }
  }
  if (files.empty()) throw std::runtime_error("no CRD (*.yaml) in " + dir.string());
  std::sort(files.begin(), files.end());
  return files;
}

void install_chart_crds(const fs::path& kubeconfig, const std::vector<std::string>& files) {
  demo::Api(kubeconfig.string()).apply_crds(files);
}

}  // namespace tailor::cli
