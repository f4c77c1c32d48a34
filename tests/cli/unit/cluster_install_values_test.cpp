// The values `tailor cluster up --install-tailor` (and so `tailor demo --in-cluster`, which runs
// it) renders Tailor's chart with: watchVPA is left to the chart's default (false,
// WatchVpaDefault.ChartAndBinaryAgreeAndAreOff), unlike the host-process controller `cluster up`
// starts with --watch-vpa=true, because no VPA CRD is installed there (only the chart's CRDs:
// ClusterCrds.TheChartsCrdsAboveTheBinary, ChartYamlTest.InstallsNoVpaCrd).
#include "cli/cluster_install_values.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

namespace tailor::cli {
namespace {
namespace bj = boost::json;

TEST(InstallValues, LeaveWatchVpaToTheChartsDefault) {
  const std::vector<std::string> controller_args{"--pass-interval=2s", "--sample-period=2s"};
  const bj::value values = bj::parse(install_values(controller_args, {}));
  const bj::object& controller = values.at("controller").as_object();
  EXPECT_FALSE(controller.contains("watchVPA")) << bj::serialize(controller);
  // The controller's extra flags are the given ones only: no --watch-vpa added.
  EXPECT_EQ(controller.at("extraArgs"), bj::value_from(controller_args));
}

}  // namespace
}  // namespace tailor::cli
