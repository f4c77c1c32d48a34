// The fault campaign of issue 16 at length (tests/e2e/fault_campaign.h says what a run is and
// which invariants are checked after each): brings up its own `tailor cluster up` environment
// with the e2e suite's two nodes, does N seeded runs spread over both nodes, prints one line a
// run, the faults injected by kind, every invariant break with its details, and exits 1 on any
// break (2 on bad arguments or when the environment does not come up). Needs root.
//
//   bench_fault_campaign [--runs N] [--seed S] [--settle-timeout SECONDS]
#include "tests/e2e/fault_campaign.h"

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace tailor::e2e;

const char* kUsage =
    "usage: bench_fault_campaign [--runs N] [--seed S] [--settle-timeout SECONDS]\n";

// The options, or nullopt (usage printed) on a bad argument.
std::optional<CampaignOptions> parse(int argc, char** argv) {
  CampaignOptions o{.seed = 1, .runs = 200, .nodes = {kSmallNode, kBigNode}};
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return std::nullopt;
    try {
      const long long value = std::stoll(argv[++i]);
      if (value < 1) return std::nullopt;
      if (flag == "--runs")
        o.runs = static_cast<int>(value);
      else if (flag == "--seed")
        o.seed = static_cast<std::uint64_t>(value);
      else if (flag == "--settle-timeout")
        o.settle_timeout = std::chrono::seconds(value);
      else
        return std::nullopt;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<CampaignOptions> options = parse(argc, argv);
  if (!options) {
    std::cerr << kUsage;
    return 2;
  }
  // E2eCluster reports its setup failures as GoogleTest assertions: give them a printer.
  int gtest_argc = 1;
  ::testing::InitGoogleTest(&gtest_argc, argv);
  E2eCluster& cluster = E2eCluster::get_unchecked();
  cluster.up();
  if (!cluster.is_up()) {
    std::cerr << "bench_fault_campaign: the environment did not come up\n";
    return 2;
  }
  options->log = &std::cout;
  const auto started = std::chrono::steady_clock::now();
  const CampaignResult r = run_fault_campaign(cluster, *options);
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started)
          .count();
  int faults = 0;
  for (const auto& [kind, n] : r.faults) faults += n;
  std::cout << "\nseed " << options->seed << ": " << r.runs << " runs, " << faults
            << " faults injected, " << r.breaks.size() << " invariant breaks, " << seconds
            << " s (settling " << r.settle_total.count() / 1000 << " s)\n";
  for (const auto& [kind, n] : r.faults) std::cout << "  " << kind << ": " << n << "\n";
  for (const std::string& b : r.breaks) std::cout << "BREAK " << b << "\n";
  cluster.down(!r.breaks.empty());
  return r.breaks.empty() ? 0 : 1;
}
