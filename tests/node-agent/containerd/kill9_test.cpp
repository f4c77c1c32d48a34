// kill -9 of the real tailor-node-agent (embedded mode, --actuation=agent) in the middle of a
// three-container resize on a real containerd, then a restart: the resize completes (container
// and pod cgroups, pod status), the checkpoint stays intact, no container restarts, and
// Σ container limits ≤ pod limit in every consistent read of the cgroup files, including those
// taken while the agent was writing them and while it was dead.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/server/cluster.h"
#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "kube/model/encode.h"
#include "kube/model/qos.h"
#include "node-agent/allocation/allocation_state.h"
#include "node-agent/allocation/checkpoint.h"
#include "node-agent/allocation/resize_manager_cri.h"
#include "tests/node-agent/containerd/agent_binary_fixture.h"

namespace tailor::node::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr const char* kNode = "kill9-node";
const cri::CgroupLayout kV1{"/sys/fs/cgroup", cri::CgroupVersion::V1};

// name → cpu and memory, requests = limits (Guaranteed: every container and the pod limited).
using Sizes = std::vector<std::pair<std::string, std::pair<const char*, const char*>>>;
const Sizes kSmall = {{"a", {"100m", "100Mi"}}, {"b", {"200m", "200Mi"}}, {"c", {"300m", "300Mi"}}};
const Sizes kLarge = {{"a", {"50m", "50Mi"}}, {"b", {"300m", "300Mi"}}, {"c", {"400m", "400Mi"}}};

kube::ResourceRequirements requirements(const std::pair<const char*, const char*>& size) {
  const kube::ResourceList list{{"cpu", kube::Quantity::parse(size.first)},
                                {"memory", kube::Quantity::parse(size.second)}};
  return {.limits = list, .requests = list};
}

// What the files must hold for these sizes (containers in order a, b, c).
PodCgroupSnapshot expected_files(const Sizes& sizes) {
  PodCgroupSnapshot out;
  std::vector<cri::ResourceAmounts> all;
  for (const auto& [name, size] : sizes) {
    all.push_back(allocation::amounts_of(requirements(size)));
    out.containers.push_back(cri::container_cgroup_values(all.back()));
  }
  out.pod = cri::pod_cgroup_values(all, {}, kube::QosClass::Guaranteed);
  return out;
}

std::string describe(const PodCgroupSnapshot& s) {
  std::string out = "pod quota " + std::to_string(s.pod.cpu_quota_us.value_or(-2)) + " memory " +
                    std::to_string(s.pod.memory_limit_bytes.value_or(-2));
  for (const cri::CgroupValues& c : s.containers) {
    out += "; container quota " + std::to_string(c.cpu_quota_us.value_or(-2)) + " memory " +
           std::to_string(c.memory_limit_bytes.value_or(-2));
  }
  return out;
}

class AgentKill9Test : public AgentBinaryTest {
 protected:
  AgentKill9Test() : AgentBinaryTest(kNode, "cpu=2,memory=2Gi") {}

  std::optional<kube::Pod> find_pod() { return AgentBinaryTest::find_pod("three"); }

  // The model's Pod has no command, so the pod is written as JSON.
  kube::Pod create_three(const Sizes& sizes) {
    boost::json::array containers;
    for (const auto& [name, size] : sizes) {
      const boost::json::object amounts{{"cpu", size.first}, {"memory", size.second}};
      containers.push_back({{"name", name},
                            {"image", "busybox"},
                            {"command", {"sleep", "3600"}},
                            {"resources", {{"requests", amounts}, {"limits", amounts}}}});
    }
    const boost::json::object pod{{"apiVersion", "v1"},
                                  {"kind", "Pod"},
                                  {"metadata", {{"name", "three"}}},
                                  {"spec",
                                   {{"nodeName", kNode},
                                    // No control loops here: no "default" ServiceAccount.
                                    {"automountServiceAccountToken", false},
                                    {"terminationGracePeriodSeconds", 1},
                                    {"containers", std::move(containers)}}}};
    create_pod("three", boost::json::serialize(pod));
    kube::Pod running;
    wait_until("the three containers run with their resources reported", 60s, [&] {
      running = *find_pod();
      const auto& statuses = running.status.container_statuses;
      return statuses.size() == 3 &&
             std::all_of(statuses.begin(), statuses.end(), [](const kube::ContainerStatus& s) {
               // running, and the agent reported what the runtime applied
               return s.state.running && s.resources;
             });
    });
    return running;
  }

  void resize(const Sizes& sizes) {
    kube::ResizePatch patch;
    for (const auto& [name, size] : sizes) patch.containers.push_back({name, requirements(size)});
    client_->patch(ref("three", "resize"), kube::PatchType::StrategicMerge,
                   kube::resize_patch(patch));
  }

  // Reads the files until `done` holds, checking the invariant in every consistent read.
  PodCgroupSnapshot watch_files(const PodCgroupReader& reader, std::chrono::seconds timeout,
                                const std::function<bool(const PodCgroupSnapshot&)>& done) {
    for (const auto deadline = Clock::now() + timeout;;) {
      const PodCgroupSnapshot s = reader.snapshot();
      ++observations_;
      const std::string violation = pod_limit_violation(s);
      EXPECT_EQ(violation, "") << describe(s);
      if (done(s)) return s;
      if (Clock::now() > deadline) {
        throw std::runtime_error("cgroup files stuck at " + describe(s));
      }
    }
  }

  // The API shows the resize done: allocated and actual resources are the spec's, no resize
  // condition is left, nothing restarted.
  void expect_status_done(const Sizes& sizes) {
    kube::Pod pod;
    const auto done = [&] {
      pod = *find_pod();
      if (kube::find_condition(pod.status, kube::kPodResizeInProgress) ||
          kube::find_condition(pod.status, kube::kPodResizePending)) {
        return false;
      }
      for (const auto& [name, size] : sizes) {
        const kube::ContainerStatus* s = kube::find_container_status(pod.status, name);
        if (!s || s->allocated_resources != requirements(size).requests || !s->resources ||
            *s->resources != requirements(size)) {
          return false;
        }
      }
      return true;
    };
    try {
      wait_until("the status shows the resize done", 30s, done);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what() << "; last seen: " << kube::to_json(pod);
    }
    for (const kube::ContainerStatus& s : pod.status.container_statuses) {
      EXPECT_EQ(s.restart_count, 0) << s.name;
    }
    cri::ContainerFilter filter;
    filter.label_selector["io.kubernetes.pod.uid"] = pod.metadata.uid;
    for (const cri::ContainerSummary& c : cri_->list_containers(filter)) {
      EXPECT_EQ(c.attempt, 0u) << c.name << " was restarted";
      EXPECT_EQ(c.state, cri::ContainerState::Running) << c.name;
    }
  }

  // The checkpoint parses and its checksum holds (load throws CheckpointError otherwise).
  allocation::AllocatedPod checkpointed(const std::string& uid) {
    const std::optional<allocation::Checkpoint> checkpoint =
        allocation::CheckpointStore(checkpoint_dir()).load();
    if (!checkpoint) throw std::runtime_error("no checkpoint written");
    return checkpoint->pods.at(uid);
  }

  int observations_ = 0;
};

std::vector<std::string> container_ids(const kube::Pod& pod) {
  std::vector<std::string> ids;
  for (const char* name : {"a", "b", "c"}) {
    const std::string id = kube::find_container_status(pod.status, name)->container_id;
    ids.push_back(id.substr(id.find("://") + 3));
  }
  return ids;
}

TEST_F(AgentKill9Test, KilledInTheMiddleOfAThreeContainerResizeCompletesItAfterRestart) {
  const kube::Pod pod = create_three(kSmall);
  const PodCgroupReader reader(
      kV1, allocation::pod_cgroup_path_of(pod, cri::CgroupDriver::Cgroupfs), container_ids(pod));
  int kills_mid_resize = 0;
  const Sizes* from = &kSmall;
  // The poll can miss the ~6 container updates of one resize; resize back and forth until a
  // kill lands between the first and the last update.
  for (int attempt = 0; attempt < 6 && kills_mid_resize == 0; ++attempt) {
    SCOPED_TRACE("attempt " + std::to_string(attempt));
    const Sizes* to = from == &kSmall ? &kLarge : &kSmall;
    const PodCgroupSnapshot old_files = expected_files(*from), new_files = expected_files(*to);
    watch_files(reader, 30s, [&](const auto& s) { return s == old_files; });
    resize(*to);
    const PodCgroupSnapshot seen = watch_files(reader, 30s, [&](const auto& s) {
      return s == new_files || s.containers != old_files.containers;
    });
    if (seen.containers != new_files.containers) {
      agent_->kill9();  // some containers hold the new values, others do not yet
      // The accepted allocation was recorded before the first write; the record still says
      // "in flight" unless the agent finished in the moment between the read and the kill.
      const allocation::AllocatedPod record = checkpointed(pod.metadata.uid);
      for (std::size_t i = 0; i < record.containers.size(); ++i) {
        EXPECT_EQ(record.containers[i].resources, requirements((*to)[i].second));
      }
      if (record.resize_in_progress) {
        ++kills_mid_resize;
        std::cerr << "killed in the middle of the resize at: " << describe(seen) << "\n";
      }
      EXPECT_EQ(pod_limit_violation(reader.snapshot()), "");  // where the dead agent left them
      start_agent();
    }
    watch_files(reader, 60s, [&](const auto& s) { return s == new_files; });
    expect_status_done(*to);
    const allocation::AllocatedPod record = checkpointed(pod.metadata.uid);
    EXPECT_FALSE(record.resize_in_progress);
    for (std::size_t i = 0; i < record.containers.size(); ++i) {
      EXPECT_EQ(record.containers[i].resources, requirements((*to)[i].second));
    }
    from = to;
  }
  EXPECT_GE(kills_mid_resize, 1) << "no kill landed in the middle of a resize";
  std::cerr << observations_ << " consistent reads of the cgroup files\n";
}

}  // namespace
}  // namespace tailor::node::testing
