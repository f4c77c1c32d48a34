#include "controller/app/measured_window.h"

#include <gtest/gtest.h>

namespace tailor::controller {
namespace {

TEST(MeasuredWindow, AgentWindowKeepsItsSpanPeaksAndTheLargerMemory) {
  const usage::UsageWindow w{.ns = "shop",
                             .pod = "web-0",
                             .pod_uid = "u1",
                             .container = "app",
                             .start_unix_ms = 5'000,
                             .end_unix_ms = 15'000,
                             .samples = 3,
                             .cpu_cores_mean = 0.5,
                             .cpu_cores_max = 1.5,
                             .memory_working_set_max_bytes = 300,
                             .memory_peak_bytes = 200};
  EXPECT_EQ(measured_window(w), (recommender::MeasuredWindow{5'000, 15'000, 0.5, 1.5, 300}));
  EXPECT_EQ(window_source(w), "shop/web-0/u1");
}

TEST(MeasuredWindow, OneReadingStandsForTheSecondBeforeIt) {
  usage::UsageWindow w{.start_unix_ms = 7'000, .end_unix_ms = 7'000, .samples = 1};
  EXPECT_EQ(measured_window(w).start_ms, 6'000);
  EXPECT_EQ(measured_window(w).end_ms, 7'000);
  w.start_unix_ms = 6'500;  // under a second: the same
  EXPECT_EQ(measured_window(w).start_ms, 6'000);
  w.start_unix_ms = 4'000;  // longer windows keep their span
  EXPECT_EQ(measured_window(w).start_ms, 4'000);
}

}  // namespace
}  // namespace tailor::controller
