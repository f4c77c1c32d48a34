#include "cli/source_tree.h"

namespace tailor::cli {
namespace fs = std::filesystem;

fs::path self_dir() {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::current_path() : exe.parent_path();
}

std::optional<fs::path> find_above(const fs::path& from, const fs::path& relative) {
  for (fs::path dir = from;; dir = dir.parent_path()) {
    std::error_code error;
    if (fs::exists(dir / relative, error)) return dir / relative;
    if (!dir.has_relative_path()) return std::nullopt;  // the root was the last to look in
  }
}

}  // namespace tailor::cli
