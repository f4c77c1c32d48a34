// How `tailor` finds the checkout's files above its binary (charts/tailor/crds for cluster up
// and the demo, scripts/containerd for the nodes).
#include "cli/source_tree.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace tailor::cli {
namespace {
namespace fs = std::filesystem;

const fs::path kSource = TAILOR_SOURCE_DIR;

TEST(SourceTree, FindsTheNearestDirectoryHoldingIt) {
  EXPECT_EQ(find_above(kSource / "build/bin", "charts/tailor/crds"),
            kSource / "charts/tailor/crds");
  EXPECT_EQ(find_above(kSource / "cli", "scripts/containerd/start.sh"),
            kSource / "scripts/containerd/start.sh");
  // The nearest wins: a copy below the checkout shadows the checkout's.
  const fs::path dir = fs::temp_directory_path() / ("tailor-tree-" + std::to_string(::getpid()));
  fs::create_directories(dir / "a/b/c");
  std::ofstream(dir / "a/marker") << "";
  std::ofstream(dir / "marker") << "";
  EXPECT_EQ(find_above(dir / "a/b/c", "marker"), dir / "a/marker");
  EXPECT_EQ(find_above(dir / "a/b/c", "elsewhere"), std::nullopt);
  fs::remove_all(dir);
}

TEST(SourceTree, NothingAboveTheRoot) {
  EXPECT_EQ(find_above("/", "charts/tailor/crds"), std::nullopt);
  EXPECT_EQ(find_above("/", "usr"), fs::path("/usr"));
}

TEST(SourceTree, SelfDirIsTheRunningBinarysDirectory) {
  EXPECT_TRUE(fs::exists(self_dir() / "cli_demo_tests")) << self_dir();
}

}  // namespace
}  // namespace tailor::cli
