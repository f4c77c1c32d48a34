// Which CRDs `tailor cluster up` installs: the chart's, found above the binary or given.
#include "cli/cluster_crds.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace tailor::cli {
namespace {
namespace fs = std::filesystem;

const fs::path kSource = TAILOR_SOURCE_DIR;

TEST(ClusterCrds, TheChartsCrdsAboveTheBinary) {
  const fs::path dir = chart_crds_dir("", kSource / "build/bin");
  EXPECT_EQ(dir, kSource / "charts/tailor/crds");
  const std::vector<std::string> files = chart_crd_files(dir);
  ASSERT_GE(files.size(), 2u);
  auto has = [&](const char* name) {
    return std::find(files.begin(), files.end(), (dir / name).string()) != files.end();
  };
  EXPECT_TRUE(has("verticalscalingpolicies.yaml"));
  EXPECT_TRUE(has("verticalscalingcheckpoints.yaml"));
  EXPECT_TRUE(std::is_sorted(files.begin(), files.end()));
}

TEST(ClusterCrds, GivenDirectoryWinsAndMustHoldYaml) {
  const fs::path dir = fs::temp_directory_path() / ("tailor-crds-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  EXPECT_EQ(chart_crds_dir(dir.string(), "/"), dir);
  std::ofstream(dir / "README.md") << "not a CRD";
  EXPECT_THROW(chart_crd_files(dir), std::runtime_error);
  std::ofstream(dir / "b.yaml") << "kind: CustomResourceDefinition";
  std::ofstream(dir / "a.yaml") << "kind: CustomResourceDefinition";
  EXPECT_EQ(chart_crd_files(dir),
            (std::vector<std::string>{(dir / "a.yaml").string(), (dir / "b.yaml").string()}));
  fs::remove_all(dir);
}

TEST(ClusterCrds, NoChartAboveSaysWhatToPass) {
  try {
    chart_crds_dir("", "/");
    FAIL() << "no charts/tailor/crds above /";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--crds-dir"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tailor::cli
