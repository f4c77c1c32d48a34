// The chart's folder of this checkout and its files by folder and extension (what the dashboard
// tests read; the end-to-end tests too, without the Helm engine chart_files.h runs).
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

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

}  // namespace tailor::charts
