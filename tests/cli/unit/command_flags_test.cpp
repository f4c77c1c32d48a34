// How `tailor cluster up` and `tailor demo` read their flags: "--flag value", "--flag=value",
// and a flag whose value is missing.
#include "cli/command_flags.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tailor::cli {
namespace {

TEST(FlagReader, ReadsSeparateAndInlineValues) {
  const std::vector<std::string> args{"--dir", "/tmp/a", "--nodes=3", "--keep"};
  FlagReader flags(args);
  ASSERT_TRUE(flags.next());
  EXPECT_EQ(flags.flag(), "--dir");
  EXPECT_EQ(flags.value(), "/tmp/a");
  ASSERT_TRUE(flags.next());
  EXPECT_EQ(flags.flag(), "--nodes");
  EXPECT_EQ(flags.value(), "3");
  ASSERT_TRUE(flags.next());
  EXPECT_EQ(flags.flag(), "--keep");
  EXPECT_FALSE(flags.next());
}

TEST(FlagReader, KeepsAnEqualsSignInsideAnInlineValue) {
  const std::vector<std::string> args{"--node-allocatable=cpu=2,memory=4Gi"};
  FlagReader flags(args);
  ASSERT_TRUE(flags.next());
  EXPECT_EQ(flags.flag(), "--node-allocatable");
  EXPECT_EQ(flags.value(), "cpu=2,memory=4Gi");
}

TEST(FlagReader, AnArgumentWithoutDashesIsAFlagAsWritten) {
  const std::vector<std::string> args{"a=b"};
  FlagReader flags(args);
  ASSERT_TRUE(flags.next());
  EXPECT_EQ(flags.flag(), "a=b");
}

TEST(FlagReader, AMissingValueNamesTheFlag) {
  const std::vector<std::string> args{"--timeout"};
  FlagReader flags(args);
  ASSERT_TRUE(flags.next());
  try {
    flags.value();
    FAIL() << "no error for a missing value";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--timeout: missing value");
  }
  EXPECT_FALSE(flags.next());
}

}  // namespace
}  // namespace tailor::cli
