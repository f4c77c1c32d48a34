// One default for acting on VPA objects: the chart's controller.watchVPA and tailor-controller's
// --watch-vpa (ClusterViewOptions::watch_vpa, as the binary's own flag parsing leaves it for an
// empty command line) agree, and both are off (an upstream VPA in the cluster would act on the
// same objects; docs/migrating-from-vpa.md says how to turn it on).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "controller/app/cluster_view.h"
#include "controller/app/controller_flags.h"
#include "kube/observe/options.h"

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

// What tailor-controller's main() parses argv with (controller/main/main.cpp), on an empty
// command line: watch-vpa resolves to false. And the flag is the one bound to watch_vpa (the same
// parse with --watch-vpa turns it on), so the first check reads the right field.
TEST(WatchVpaDefault, TheControllersFlagParsingLeavesItOffOnAnEmptyCommandLine) {
  ProcessOptions empty;
  kube::config::Schema schema("tailor-controller", "");
  add_controller_options(schema, empty);
  ASSERT_EQ(schema.parse(std::vector<std::string>{}), kube::config::ParseResult::Run);
  EXPECT_FALSE(empty.controller.view.watch_vpa);

  ProcessOptions given;
  kube::config::Schema with_flag("tailor-controller", "");
  add_controller_options(with_flag, given);
  ASSERT_EQ(with_flag.parse(std::vector<std::string>{"--watch-vpa"}),
            kube::config::ParseResult::Run);
  EXPECT_TRUE(given.controller.view.watch_vpa);
}

}  // namespace
}  // namespace tailor::controller
