// Issue 16, finding 4: the real tailor-node-agent restarted over a damaged or missing allocation
// checkpoint, with two pods running on the real containerd and one of them holding a Deferred
// resize. Before, a corrupt file made the agent admit nothing (pods Pending, Node Ready, one
// event), and a missing one re-admitted the Deferred pod with the resources it asks for: it was
// failed (OutOfcpu) while its container kept running. Now the allocation is rebuilt from what
// runs: both pods keep running in the same containers, unrestarted, the rebuilt allocation is
// what the runtime applied, the resize is still Deferred, the node says what happened, the
// damaged file is kept aside, and a pod created afterwards is admitted and runs.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "kube/model/encode.h"
#include "kube/model/node.h"
#include "node-agent/allocation/checkpoint.h"
#include "node-agent/allocation/checkpoint_recovery.h"
#include "tests/node-agent/containerd/agent_binary_fixture.h"

namespace tailor::node::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kNode = "recovery-node";

kube::ResourceRequirements guaranteed(const char* cpu, const char* memory) {
  const kube::ResourceList list{{"cpu", kube::Quantity::parse(cpu)},
                                {"memory", kube::Quantity::parse(memory)}};
  return {.limits = list, .requests = list};
}

std::string pod_json(const std::string& name, const char* cpu, const char* memory) {
  const boost::json::object amounts{{"cpu", cpu}, {"memory", memory}};
  const boost::json::object pod{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}}},
      {"spec",
       {{"nodeName", kNode},
        // No control loops here: no "default" ServiceAccount.
        {"automountServiceAccountToken", false},
        {"terminationGracePeriodSeconds", 1},
        {"containers",
         boost::json::array{{{"name", "app"},
                             {"image", "busybox"},
                             {"command", {"sleep", "3600"}},
                             {"resources", {{"requests", amounts}, {"limits", amounts}}}}}}}}};
  return boost::json::serialize(pod);
}

struct Damage {
  std::string name;
  std::function<void(const std::filesystem::path& file)> apply;
  std::string reason;  // of the node condition
};

// gtest prints the name, not the bytes (ctest's test names stay stable).
void PrintTo(const Damage& value, std::ostream* out) { *out << value.name; }

std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

class CheckpointRecoveryTest : public AgentBinaryTest,
                               public ::testing::WithParamInterface<Damage> {
 protected:
  CheckpointRecoveryTest() : AgentBinaryTest(kNode, "cpu=2,memory=2Gi") {}

  kube::Pod run_pod(const std::string& name, const char* cpu, const char* memory) {
    create_pod(name, pod_json(name, cpu, memory));
    kube::Pod pod;
    wait_until(name + " runs with its resources reported", 60s, [&] {
      pod = *find_pod(name);
      const kube::ContainerStatus* s = kube::find_container_status(pod.status, "app");
      return s && s->state.running && s->resources;
    });
    return pod;
  }

  std::optional<kube::NodeCondition> node_condition() {
    const kube::Node node =
        kube::decode_node(client_->get(kube::ObjectRef{kube::resources::kNodes, "", kNode, ""}));
    for (const kube::NodeCondition& c : node.status.conditions) {
      if (c.type == allocation::kCheckpointConditionType) return c;
    }
    return std::nullopt;
  }

  const kube::PodCondition* deferred(const kube::Pod& pod) {
    const kube::PodCondition* c = kube::find_condition(pod.status, kube::kPodResizePending);
    return c && c->reason == "Deferred" ? c : nullptr;
  }

  std::vector<std::filesystem::path> kept_aside() {
    std::vector<std::filesystem::path> out;
    for (const auto& entry : std::filesystem::directory_iterator(checkpoint_dir())) {
      if (entry.path().filename().string().starts_with("allocation_checkpoint.corrupt-")) {
        out.push_back(entry.path());
      }
    }
    return out;
  }

  // The pod runs in the container it ran in before, never restarted.
  void expect_untouched(const kube::Pod& before) {
    const kube::Pod now = *find_pod(before.metadata.name);
    EXPECT_EQ(now.status.phase, "Running") << kube::to_json(now);
    const kube::ContainerStatus* was = kube::find_container_status(before.status, "app");
    const kube::ContainerStatus* is = kube::find_container_status(now.status, "app");
    ASSERT_TRUE(was && is);
    EXPECT_EQ(is->container_id, was->container_id);
    EXPECT_EQ(is->restart_count, was->restart_count);
    EXPECT_TRUE(is->state.running);
    cri::ContainerFilter filter;
    filter.label_selector["io.kubernetes.pod.uid"] = before.metadata.uid;
    const auto containers = cri_->list_containers(filter);
    ASSERT_EQ(containers.size(), 1u) << before.metadata.name;
    EXPECT_EQ(containers[0].state, cri::ContainerState::Running);
    EXPECT_EQ(containers[0].attempt, 0u);
    EXPECT_EQ("containerd://" + containers[0].id, was->container_id);
  }
};

TEST_P(CheckpointRecoveryTest, RebuildsFromTheRuntimeWithNoPodFailedOrRestarted) {
  const kube::Pod hog = run_pod("hog", "1500m", "64Mi");
  const kube::Pod web = run_pod("web", "250m", "64Mi");
  // 1 CPU for web while hog holds 1.5 of 2: Deferred.
  kube::ResizePatch patch;
  patch.containers.push_back({"app", guaranteed("1", "64Mi")});
  client_->patch(ref("web", "resize"), kube::PatchType::StrategicMerge, kube::resize_patch(patch));
  kube::Pod web_deferred;
  wait_until("web's resize is Deferred", 30s, [&] {
    web_deferred = *find_pod("web");
    return deferred(web_deferred) != nullptr;
  });
  const std::string deferred_message = deferred(web_deferred)->message;

  agent_->terminate();
  const std::filesystem::path file = checkpoint_dir() / "allocation_checkpoint";
  const std::string good = read_bytes(file);
  ASSERT_FALSE(good.empty());
  GetParam().apply(file);
  const std::string damaged =
      std::filesystem::exists(file) ? read_bytes(file) : std::string("<missing>");
  start_agent();

  // The agent has decided about web once the record holds it, or web has been failed (as it was
  // before: re-admitted with the Deferred resize's 1 CPU, rejected OutOfcpu while it ran).
  std::optional<allocation::Checkpoint> rebuilt;
  wait_until("the agent decided about web (checkpoint written, or web failed)", 30s, [&] {
    if (find_pod("web")->status.phase == "Failed") return true;
    try {
      rebuilt = allocation::CheckpointStore(checkpoint_dir()).load();
    } catch (const allocation::CheckpointError&) {
      return false;
    }
    return rebuilt && rebuilt->pods.contains(web.metadata.uid);
  });
  expect_untouched(hog);
  expect_untouched(web);
  ASSERT_TRUE(rebuilt && rebuilt->pods.size() == 2) << "web was failed";
  // The rebuilt record is intact and holds what runs.
  for (const kube::Pod* pod : {&hog, &web}) {
    const allocation::AllocatedPod& a = rebuilt->pods.at(pod->metadata.uid);
    ASSERT_EQ(a.containers.size(), 1u);
    EXPECT_FALSE(a.resize_in_progress);
    const kube::ContainerStatus* s = kube::find_container_status(pod->status, "app");
    EXPECT_EQ(a.containers[0].resources, *s->resources) << pod->metadata.name;  // = actual
  }
  EXPECT_EQ(rebuilt->pods.at(web.metadata.uid).containers[0].resources,
            guaranteed("250m", "64Mi"));  // not the 1 CPU the Deferred resize asks for
  std::optional<kube::NodeCondition> condition;
  wait_until("the node reports the rebuild", 30s, [&] {
    condition = node_condition();
    return condition && condition->status == "True";
  });
  EXPECT_EQ(condition->reason, GetParam().reason) << condition->message;
  EXPECT_NE(condition->message.find("default/web"), std::string::npos) << condition->message;

  // The resize is decided again by the normal rules: still Deferred, same numbers.
  wait_until("web's resize is Deferred again after the restart", 30s, [&] {
    const kube::Pod now = *find_pod("web");
    const kube::PodCondition* c = deferred(now);
    return c && c->message == deferred_message;
  });

  const auto aside = kept_aside();
  if (damaged == "<missing>") {
    EXPECT_TRUE(aside.empty());
  } else {
    ASSERT_EQ(aside.size(), 1u);
    EXPECT_EQ(read_bytes(aside[0]), damaged);  // kept byte for byte
  }

  // Admission carries on: a new pod is admitted and runs.
  run_pod("late", "100m", "32Mi");
  // The rebuilt checkpoint is read as intact on the next start; the condition goes False.
  agent_->terminate();
  start_agent();
  wait_until("the condition is cleared", 30s, [&] {
    condition = node_condition();
    return condition && condition->status == "False";
  });
  EXPECT_EQ(condition->reason, "CheckpointUsable");
  expect_untouched(web);
}

INSTANTIATE_TEST_SUITE_P(
    Damages, CheckpointRecoveryTest,
    ::testing::Values(
        Damage{"Garbage",
               [](const std::filesystem::path& f) { write_bytes(f, "\x01\x02 not a checkpoint"); },
               "CheckpointCorrupt"},
        Damage{"Truncated",
               [](const std::filesystem::path& f) {
                 const std::string good = read_bytes(f);
                 write_bytes(f, good.substr(0, good.size() * 2 / 3));
               },
               "CheckpointCorrupt"},
        Damage{"WrongChecksum",
               [](const std::filesystem::path& f) {
                 std::string bytes = read_bytes(f);
                 const std::size_t at = bytes.find("fnv1a64:") + 8;
                 bytes[at] = bytes[at] == '0' ? '1' : '0';
                 write_bytes(f, bytes);
               },
               "CheckpointCorrupt"},
        Damage{"Missing", [](const std::filesystem::path& f) { std::filesystem::remove(f); },
               "CheckpointMissing"}),
    [](const auto& info) { return info.param.name; });

class FailedPodTest : public CheckpointRecoveryTest {};

// The other half of the finding: the failed pod's container kept running until the pod was
// deleted. A pod marked Failed while it runs (here by a write of its status) is stopped, and
// stays in the API as the kubelet leaves it.
TEST_F(FailedPodTest, AFailedPodsContainersAreStoppedNotLeaked) {
  const kube::Pod web = run_pod("web", "250m", "64Mi");
  client_->patch(ref("web", "status"), kube::PatchType::Merge,
                 R"({"status":{"phase":"Failed","reason":"Evicted","message":"test"}})");
  cri::ContainerFilter running;
  running.state = cri::ContainerState::Running;
  running.label_selector["io.kubernetes.pod.uid"] = web.metadata.uid;
  wait_until("the failed pod's container is stopped", 30s,
             [&] { return cri_->list_containers(running).empty(); });
  const std::optional<kube::Pod> after = find_pod("web");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status.phase, "Failed");
  EXPECT_EQ(after->metadata.uid, web.metadata.uid);
}

}  // namespace
}  // namespace tailor::node::testing
