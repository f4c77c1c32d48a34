// The pod-level cgroup reader/writer over fake cgroup trees (this machine is cgroup v1 without
// systemd, so v2 files and systemd names are covered here; v1 also runs against the real tree in
// the containerd suite).
#include "node-agent/cri/pod_cgroup.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace tailor::node::cri {
namespace {

constexpr std::int64_t kMi = 1024 * 1024;
const std::string kUid = "1f0e7a52-8c5d-4a8e-9b3c-2d7f6e5a4b31";

TEST(PodCgroupName, FollowsKubeletQosLayout) {
  EXPECT_EQ(cgroup_path(pod_cgroup_name(kUid, kube::QosClass::Guaranteed), CgroupDriver::Cgroupfs),
            "/kubepods/pod" + kUid);
  EXPECT_EQ(cgroup_path(pod_cgroup_name(kUid, kube::QosClass::Burstable), CgroupDriver::Cgroupfs),
            "/kubepods/burstable/pod" + kUid);
  EXPECT_EQ(cgroup_path(pod_cgroup_name(kUid, kube::QosClass::BestEffort), CgroupDriver::Cgroupfs),
            "/kubepods/besteffort/pod" + kUid);
}

TEST(PodCgroupName, SystemdSlices) {
  EXPECT_EQ(cgroup_path(pod_cgroup_name(kUid, kube::QosClass::Burstable), CgroupDriver::Systemd),
            "/kubepods.slice/kubepods-burstable.slice/"
            "kubepods-burstable-pod1f0e7a52_8c5d_4a8e_9b3c_2d7f6e5a4b31.slice");
  EXPECT_EQ(cgroup_path(pod_cgroup_name(kUid, kube::QosClass::Guaranteed), CgroupDriver::Systemd),
            "/kubepods.slice/kubepods-pod1f0e7a52_8c5d_4a8e_9b3c_2d7f6e5a4b31.slice");
  EXPECT_THROW(pod_cgroup_name("", kube::QosClass::Burstable), std::invalid_argument);
}

// A directory tree with the files a cgroup hierarchy would have.
class FakeCgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("tailor-cgroup-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void put(const std::filesystem::path& relative, const std::string& content) {
    std::filesystem::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << content << "\n";
  }
  std::string get(const std::filesystem::path& relative) {
    std::ifstream in(root_ / relative);
    std::string text;
    std::getline(in, text);
    return text;
  }
  void v1_pod(std::int64_t memory_limit, std::int64_t usage) {
    const std::string dir = "kubepods/pod" + kUid + "/";
    put("cpu/" + dir + "cpu.shares", "1024");
    put("cpu/" + dir + "cpu.cfs_period_us", "100000");
    put("cpu/" + dir + "cpu.cfs_quota_us", "-1");
    put("memory/" + dir + "memory.limit_in_bytes", std::to_string(memory_limit));
    put("memory/" + dir + "memory.usage_in_bytes", std::to_string(usage));
  }
  void v2_pod(const std::string& memory_max, std::int64_t usage) {
    const std::string dir = "kubepods/burstable/pod" + kUid + "/";
    put(dir + "cpu.weight", "39");
    put(dir + "cpu.max", "max 100000");
    put(dir + "memory.max", memory_max);
    put(dir + "memory.current", std::to_string(usage));
  }
  CgroupFiles v1() { return CgroupFiles({root_, CgroupVersion::V1}, "/kubepods/pod" + kUid); }
  CgroupFiles v2() {
    return CgroupFiles({root_, CgroupVersion::V2}, "/kubepods/burstable/pod" + kUid);
  }

  std::filesystem::path root_;
};

TEST_F(FakeCgroupTree, V1ReadsUnlimitedAndWritesValues) {
  v1_pod(9223372036854771712, 10 * kMi);
  EXPECT_EQ(v1().read(), (CgroupValues{1024, kUnlimitedQuota, 100000, std::nullopt}));
  v1().write({2048, 200000, 100000, 512 * kMi});
  EXPECT_EQ(get("cpu/kubepods/pod" + kUid + "/cpu.shares"), "2048");
  EXPECT_EQ(get("cpu/kubepods/pod" + kUid + "/cpu.cfs_quota_us"), "200000");
  EXPECT_EQ(get("memory/kubepods/pod" + kUid + "/memory.limit_in_bytes"),
            std::to_string(512 * kMi));
  EXPECT_EQ(v1().read(), (CgroupValues{2048, 200000, 100000, 512 * kMi}));
}

TEST_F(FakeCgroupTree, V1WritesOnlyTheFieldsThatAreSet) {
  v1_pod(256 * kMi, 10 * kMi);
  v1().write({std::nullopt, 50000, std::nullopt, std::nullopt});
  EXPECT_EQ(v1().read(), (CgroupValues{1024, 50000, 100000, 256 * kMi}));
}

TEST_F(FakeCgroupTree, MemoryDecreaseBelowUsageIsRefusedAndNothingWritten) {
  v1_pod(256 * kMi, 100 * kMi);
  try {
    v1().write({std::nullopt, std::nullopt, std::nullopt, 64 * kMi});
    FAIL() << "decrease below usage was written";
  } catch (const MemoryBelowUsageError& e) {
    EXPECT_EQ(e.limit_bytes, 64 * kMi);
    EXPECT_EQ(e.usage_bytes, 100 * kMi);
    EXPECT_EQ(std::string(e.what()), "pod cgroup /kubepods/pod" + kUid +
                                         ": memory limit (67108864) below current usage "
                                         "(104857600)");
  }
  EXPECT_EQ(v1().read().memory_limit_bytes, 256 * kMi);
  // Above usage the decrease goes through; an increase never looks at usage.
  v1().write({std::nullopt, std::nullopt, std::nullopt, 128 * kMi});
  EXPECT_EQ(v1().read().memory_limit_bytes, 128 * kMi);
  put("memory/kubepods/pod" + kUid + "/memory.usage_in_bytes", std::to_string(900 * kMi));
  v1().write({std::nullopt, std::nullopt, std::nullopt, 1024 * kMi});
  EXPECT_EQ(v1().read().memory_limit_bytes, 1024 * kMi);
}

TEST_F(FakeCgroupTree, V2ConvertsWeightCpuMaxAndMemoryMax) {
  v2_pod("max", 10 * kMi);
  EXPECT_EQ(v2().read(), (CgroupValues{998, kUnlimitedQuota, 100000, std::nullopt}));
  v2().write({512, 150000, 100000, 300 * kMi});
  const std::string dir = "kubepods/burstable/pod" + kUid + "/";
  EXPECT_EQ(get(dir + "cpu.weight"), "20");
  EXPECT_EQ(get(dir + "cpu.max"), "150000 100000");
  EXPECT_EQ(get(dir + "memory.max"), std::to_string(300 * kMi));
  v2().write({std::nullopt, kUnlimitedQuota, 100000, std::nullopt});
  EXPECT_EQ(get(dir + "cpu.max"), "max 100000");
}

TEST_F(FakeCgroupTree, V2MemoryDecreaseChecksMemoryCurrent) {
  v2_pod(std::to_string(300 * kMi), 200 * kMi);
  EXPECT_THROW(v2().write({std::nullopt, std::nullopt, std::nullopt, 100 * kMi}),
               MemoryBelowUsageError);
  EXPECT_EQ(get("kubepods/burstable/pod" + kUid + "/memory.max"), std::to_string(300 * kMi));
}

TEST_F(FakeCgroupTree, MissingUnwritableAndGarbledFilesAreClearErrors) {
  EXPECT_THROW(
      {
        try {
          v1().read();
        } catch (const CgroupError& e) {
          EXPECT_NE(std::string(e.what()).find("reading " + root_.string() + "/cpu/kubepods/pod"),
                    std::string::npos)
              << e.what();
          throw;
        }
      },
      CgroupError);
  v1_pod(256 * kMi, 10 * kMi);
  put("cpu/kubepods/pod" + kUid + "/cpu.cfs_quota_us", "fifty");
  EXPECT_THROW(
      {
        try {
          v1().read();
        } catch (const CgroupError& e) {
          EXPECT_NE(std::string(e.what()).find("unexpected content \"fifty\" in"),
                    std::string::npos);
          throw;
        }
      },
      CgroupError);
  // A file that cannot be opened for writing (a directory here; root ignores file modes).
  const auto shares = root_ / "cpu/kubepods" / ("pod" + kUid) / "cpu.shares";
  std::filesystem::remove(shares);
  std::filesystem::create_directory(shares);
  EXPECT_THROW(
      {
        try {
          v1().write({4096, std::nullopt, std::nullopt, std::nullopt});
        } catch (const CgroupError& e) {
          EXPECT_NE(std::string(e.what()).find("writing 4096 to " + shares.string()),
                    std::string::npos)
              << e.what();
          throw;
        }
      },
      CgroupError);
}

TEST(CgroupFiles, RejectsRelativePaths) {
  EXPECT_THROW(CgroupFiles({}, "kubepods/pod1"), std::invalid_argument);
}

}  // namespace
}  // namespace tailor::node::cri

namespace tailor::node::cri {
namespace {

TEST(ContainerCgroupPath, AsContainerdNamesIt) {
  EXPECT_EQ(container_cgroup_path("/kubepods/podu1", "abc", CgroupDriver::Cgroupfs),
            "/kubepods/podu1/abc");
  EXPECT_EQ(
      container_cgroup_path("/kubepods.slice/kubepods-podu1.slice", "abc", CgroupDriver::Systemd),
      "/kubepods.slice/kubepods-podu1.slice/cri-containerd-abc.scope");
  EXPECT_THROW(container_cgroup_path("/kubepods/podu1", "", CgroupDriver::Cgroupfs),
               std::invalid_argument);
}

}  // namespace
}  // namespace tailor::node::cri
