#include "kube/observe/process_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <stdexcept>

#include "kube/observe/metrics.h"

namespace tailor::kube::metrics {
namespace {

using ::testing::HasSubstr;

TEST(ProcStatTest, ParsesFieldsAfterTheCommand) {
  // A command with spaces and a ')' in it, as proc(5) allows.
  std::string stat =
      "4242 (tailor) (x) y) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 150 0 0 20 0 9 0 "
      "123400 104857600 2560 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  ProcStat s = parse_proc_stat(stat, 100, 4096);
  EXPECT_DOUBLE_EQ(s.cpu_seconds, 4.0);
  EXPECT_DOUBLE_EQ(s.start_seconds_after_boot, 1234.0);
  EXPECT_DOUBLE_EQ(s.virtual_memory_bytes, 104857600.0);
  EXPECT_DOUBLE_EQ(s.resident_memory_bytes, 2560.0 * 4096);
}

TEST(ProcStatTest, RejectsOtherText) {
  EXPECT_THROW(parse_proc_stat("garbage", 100, 4096), std::invalid_argument);
  EXPECT_THROW(parse_proc_stat("1 (x) S 1 2", 100, 4096), std::invalid_argument);
}

double sample(const std::string& text, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("\n" + name + " ([^\n]+)\n"))) {
    throw std::runtime_error(name + " missing");
  }
  return std::strtod(m[1].str().c_str(), nullptr);
}

TEST(ProcessCollectorTest, ReportsThisProcess) {
  Registry r;
  r.add_collector(make_process_collector());
  std::string text = r.serialize();
  EXPECT_THAT(text, HasSubstr("# TYPE process_cpu_seconds_total counter\n"));
  EXPECT_GT(sample(text, "process_resident_memory_bytes"), 1e6);
  EXPECT_GE(sample(text, "process_virtual_memory_bytes"),
            sample(text, "process_resident_memory_bytes"));
  EXPECT_GE(sample(text, "process_open_fds"), 3);  // stdin, stdout, stderr at least
  double start = sample(text, "process_start_time_seconds");
  double now = static_cast<double>(std::time(nullptr));
  EXPECT_LE(start, now + 1);
  EXPECT_GT(start, now - 3600);  // this test binary started recently
}

}  // namespace
}  // namespace tailor::kube::metrics
