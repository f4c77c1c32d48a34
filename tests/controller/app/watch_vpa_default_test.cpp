// One default for acting on VPA objects: the chart's controller.watchVPA and tailor-controller's
// --watch-vpa (ClusterViewOptions::watch_vpa) agree, and both are off (an upstream VPA in the
// cluster would act on the same objects; docs/migrating-from-vpa.md says how to turn it on).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "controller/app/cluster_view.h"

namespace tailor::controller {
namespace {

// The value of `key:` in charts/tailor/values.yaml (its first occurrence).
std::string chart_value(const std::string& key) {
  std::ifstream in(std::string(TAILOR_SOURCE_DIR) + "/charts/tailor/values.yaml");
  EXPECT_TRUE(in) << "charts/tailor/values.yaml is missing";
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find(key + ":");
    if (at == std::string::npos || line.find('#') < at) continue;
    std::string value = line.substr(at + key.size() + 1);
    value.erase(0, value.find_first_not_of(' '));
    return value.substr(0, value.find_first_of(" #"));
  }
  ADD_FAILURE() << key << " is not in charts/tailor/values.yaml";
  return "";
}

TEST(WatchVpaDefault, ChartAndBinaryAgreeAndAreOff) {
  EXPECT_EQ(chart_value("watchVPA"), "false");
  EXPECT_FALSE(ClusterViewOptions{}.watch_vpa);
}

}  // namespace
}  // namespace tailor::controller
