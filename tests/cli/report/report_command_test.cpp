// `tailor report`'s command line: what is refused before the cluster is asked anything.
#include "cli/report_command.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace tailor::cli {
namespace {

struct Outcome {
  int code;
  std::string out, err;
};

Outcome report(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = run_report(args, out, err, false);
  return {code, out.str(), err.str()};
}

void expect_usage_error(const std::vector<std::string>& args, const std::string& message) {
  const Outcome r = report(args);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("tailor report: " + message + "\nUsage: tailor report", 0), 0u) << r.err;
}

TEST(ReportCommand, PricesThatAreNotNumbers) {
  expect_usage_error({"--cpu-price", "cheap"},
                     "--cpu-price: 'cheap' is not a price (a number >= 0, USD per core-hour)");
  expect_usage_error({"--memory-price=0.01x"},
                     "--memory-price: '0.01x' is not a price (a number >= 0, USD per GiB-hour)");
  expect_usage_error({"--cpu-price", "-1"},
                     "--cpu-price: '-1' is not a price (a number >= 0, USD per core-hour)");
  expect_usage_error({"--cpu-price", "nan"},
                     "--cpu-price: 'nan' is not a price (a number >= 0, USD per core-hour)");
  expect_usage_error({"--cpu-price"}, "--cpu-price needs a value");
}

TEST(ReportCommand, FormatsAndFlags) {
  expect_usage_error({"-o", "yaml"}, "--output: 'yaml' is not one of table, json, csv, html");
  expect_usage_error({"--wide"}, "unknown argument '--wide'");
  expect_usage_error({"--all"}, "--all needs --prometheus URL");
  expect_usage_error({"--all", "--prometheus", "http://p:9090", "-o", "csv"},
                     "--all reports in table, json or html, not csv");
  expect_usage_error({"--history", "a week"},
                     "--history: 'a week' is not a duration in whole seconds (e.g. 8d, 5m)");
  expect_usage_error({"--resolution", "500ms"},
                     "--resolution: '500ms' is not a duration in whole seconds (e.g. 8d, 5m)");
}

TEST(ReportCommand, HelpNamesTheDefaultPrices) {
  const Outcome r = report({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--cpu-price P        USD per core-hour (default 0.021811)"),
            std::string::npos);
  EXPECT_NE(r.out.find("--memory-price P     USD per GiB-hour (default 0.002923)"),
            std::string::npos);
}

TEST(ReportCommand, AKubeconfigThatCannotBeReadPrintsNothing) {
  const Outcome r = report({"--kubeconfig", "/nonexistent/kubeconfig"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("tailor report: kubeconfig: ", 0), 0u) << r.err;
}

}  // namespace
}  // namespace tailor::cli
