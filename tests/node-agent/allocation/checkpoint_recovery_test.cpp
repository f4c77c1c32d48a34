#include "node-agent/allocation/checkpoint_recovery.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "node-agent/allocation/allocation_state.h"
#include "tests/node-agent/allocation/resize_manager_fakes.h"
#include "tests/node-agent/cri/fake_cri.h"

namespace tailor::node::allocation {
namespace {

namespace fs = std::filesystem;
using testing::container;
using testing::make_pod;

const kube::TimePoint kNow = kube::parse_rfc3339("2026-11-27T15:00:00Z");

Checkpoint one_pod() {
  Checkpoint checkpoint;
  const AllocatedPod pod =
      desired_allocation(make_pod("web", {container("app", {"250m", "", "64Mi", ""})}));
  checkpoint.pods[pod.uid] = pod;
  return checkpoint;
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

struct Damage {
  std::string name;
  std::function<std::string(const std::string& good)> damage;
  CheckpointState state;
  std::string error;  // part of the message
};

// gtest prints the name, not the bytes (ctest's test names stay stable).
void PrintTo(const Damage& value, std::ostream* out) { *out << value.name; }

class DamagedCheckpoint : public ::testing::TestWithParam<Damage> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tailor-recovery-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_P(DamagedCheckpoint, IsKeptAsideByteForByteAndReportedNotLoaded) {
  const CheckpointStore store(dir_);
  const std::string bytes = GetParam().damage(encode_checkpoint(one_pod()));
  std::ofstream(store.path(), std::ios::binary) << bytes;
  const LoadedCheckpoint loaded = load_or_set_aside(store, kNow);
  EXPECT_EQ(loaded.state, GetParam().state);
  EXPECT_TRUE(loaded.checkpoint.pods.empty());
  EXPECT_NE(loaded.error.find(GetParam().error), std::string::npos) << loaded.error;
  ASSERT_TRUE(loaded.set_aside);
  EXPECT_EQ(*loaded.set_aside, dir_ / "allocation_checkpoint.corrupt-1795791600");
  EXPECT_EQ(read_all(*loaded.set_aside), bytes);
  EXPECT_FALSE(fs::exists(store.path()));  // the next save writes a fresh one
  EXPECT_FALSE(store.load());
}

INSTANTIATE_TEST_SUITE_P(
    Damages, DamagedCheckpoint,
    ::testing::Values(
        Damage{"Garbage",
               [](const std::string&) {
                 return std::string(
                     "\x7f"
                     "ELF garbage\n{");
               },
               CheckpointState::Corrupt, "not a node-agent checkpoint header"},
        Damage{"Truncated", [](const std::string& good) { return good.substr(0, good.size() / 2); },
               CheckpointState::Corrupt, "checksum mismatch"},
        Damage{"WrongChecksum",
               [](const std::string& good) {
                 std::string out = good;
                 out[out.find("fnv1a64:") + 8] = out[out.find("fnv1a64:") + 8] == '0' ? '1' : '0';
                 return out;
               },
               CheckpointState::Corrupt, "checksum mismatch"},
        Damage{"Empty", [](const std::string&) { return std::string(); }, CheckpointState::Corrupt,
               "no header line"},
        Damage{"UnknownVersion",
               [](const std::string& good) {
                 std::string out = good;
                 out.replace(out.find(" v1 "), 4, " v9 ");
                 return out;
               },
               CheckpointState::UnknownVersion, "unknown version \"v9\""}),
    [](const auto& info) { return info.param.name; });

TEST(CheckpointRecovery, AnIntactCheckpointIsLoadedAndLeftInPlace) {
  char tmpl[] = "/tmp/tailor-recovery-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const CheckpointStore store{fs::path(tmpl)};
  store.save(one_pod());
  const LoadedCheckpoint loaded = load_or_set_aside(store, kNow);
  EXPECT_EQ(loaded.state, CheckpointState::Intact);
  EXPECT_EQ(loaded.checkpoint, one_pod());
  EXPECT_FALSE(loaded.set_aside);
  EXPECT_TRUE(fs::exists(store.path()));
  fs::remove(store.path());
  const LoadedCheckpoint missing = load_or_set_aside(store, kNow);
  EXPECT_EQ(missing.state, CheckpointState::Missing);
  EXPECT_FALSE(missing.set_aside);
  fs::remove_all(tmpl);
}

TEST(CheckpointRecovery, AFileThatCannotBeReadIsAnErrorNotARebuild) {
  char tmpl[] = "/tmp/tailor-recovery-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const CheckpointStore store{fs::path(tmpl)};
  fs::create_directory(store.path());  // reading a directory fails with EISDIR
  try {
    load_or_set_aside(store, kNow);
    ADD_FAILURE() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_EQ(e.kind(), CheckpointErrorKind::Io) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(store.path()));  // nothing moved
  fs::remove_all(tmpl);
}

TEST(CheckpointRecovery, ObservesTheNewestRunningAttemptOfEachLabelledContainer) {
  cri::testing::FakeCri cri;
  const std::string sandbox = cri.run_pod_sandbox({.name = "web"});
  auto start = [&](const std::string& uid, const std::string& name, std::uint32_t attempt,
                   std::int64_t shares) {
    cri::ContainerSpec spec{.name = name, .attempt = attempt, .image = "busybox"};
    if (!uid.empty()) spec.labels["io.kubernetes.pod.uid"] = uid;
    spec.resources = cri::LinuxResources{.cpu_shares = shares};
    const std::string id = cri.create_container(sandbox, spec, {});
    cri.start_container(id);
    return id;
  };
  cri.exit(start("uid-web", "app", 0, 100), 1, "");
  start("uid-web", "app", 1, 256);
  cri.exit(start("uid-web", "sidecar", 0, 50), 0, "");  // exited: not running
  start("", "stray", 0, 10);                            // not the agent's: no pod uid
  start("uid-db", "db", 0, 512);
  const NodeRuntimeView view = observe_runtime(cri);
  ASSERT_EQ(view.size(), 2u);
  ASSERT_EQ(view.at("uid-web").size(), 1u);
  EXPECT_EQ(view.at("uid-web").at("app")->cpu_shares, 256);
  EXPECT_EQ(view.at("uid-db").at("db")->cpu_shares, 512);
}

TEST(CheckpointRecovery, TheConditionSaysWhatHappenedAndToWhichPods) {
  const kube::Pod pod = make_pod("web", {container("app", {"250m", "", "", ""})});
  PodRuntimeView view;
  view["app"] = cri::LinuxResources{.cpu_shares = 256};
  RebuildResult rebuild;
  rebuild.rebuilt.push_back(rebuild_allocation(pod, &view));

  LoadedCheckpoint corrupt;
  corrupt.state = CheckpointState::Corrupt;
  corrupt.error = "checkpoint /c: checksum mismatch";
  corrupt.set_aside = "/c.corrupt-1";
  EXPECT_EQ(recovery_condition(corrupt, rebuild),
            (RecoveryCondition{"True", "CheckpointCorrupt",
                               "allocation checkpoint corrupt (checkpoint /c: checksum mismatch); "
                               "kept as /c.corrupt-1; 1 pod allocation(s) rebuilt from the "
                               "runtime and the pod status; default/web"}));
  EXPECT_EQ(rebuilt_pod_message(corrupt, rebuild.rebuilt[0]),
            "allocation rebuilt from what runs (allocation checkpoint corrupt): app=runtime");
  // Corrupt on an empty node: still worth saying.
  EXPECT_EQ(recovery_condition(corrupt, {}).status, "True");

  LoadedCheckpoint missing;  // a removed file, pods running
  EXPECT_EQ(recovery_condition(missing, rebuild).reason, "CheckpointMissing");
  LoadedCheckpoint intact;
  intact.state = CheckpointState::Intact;
  EXPECT_EQ(recovery_condition(intact, rebuild).reason, "CheckpointIncomplete");
  // A new node, or an intact record that holds every pod: nothing to tell.
  EXPECT_EQ(recovery_condition(missing, {}).status, "False");
  EXPECT_EQ(recovery_condition(intact, {}),
            (RecoveryCondition{"False", "CheckpointUsable",
                               "the allocation checkpoint was read at the last start"}));
}

}  // namespace
}  // namespace tailor::node::allocation
