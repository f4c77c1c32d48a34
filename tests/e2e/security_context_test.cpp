// Issue 15, point 8: securityContext runAsUser / runAsGroup / runAsNonRoot on `tailor cluster up`,
// applied with the real kubectl. The pod-level uid and gid reach every container's processes
// (read from the host: the container cgroup's pids and their /proc status), a container's own
// runAsUser wins over the pod's, and runAsNonRoot with an image that runs as root keeps the
// container from starting with the kubelet's CreateContainerConfigError and message.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;

constexpr seconds kStart{90};

const Resources kSmall = {{"cpu", "10m"}, {"memory", "16Mi"}};

const std::string kNobody = pod_manifest(
    {.name = "nobody",
     .security_context = {{"runAsUser", "65534"},
                          {"runAsGroup", "65534"},
                          {"runAsNonRoot", "true"}},
     .containers = {
         {.name = "app", .requests = kSmall},
         {.name = "own", .requests = kSmall, .security_context = {{"runAsUser", "1000"}}}}});

const std::string kRoot = pod_manifest(
    {.name = "root",
     .containers = {{.requests = kSmall, .security_context = {{"runAsNonRoot", "true"}}}}});

// The real, effective, saved and filesystem ids of the "Uid:" or "Gid:" line of /proc/PID/status.
std::string ids_of(int pid, const std::string& line_name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(line_name + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(line_name.size() + 1));
    std::string out, id;
    while (fields >> id) out += (out.empty() ? "" : " ") + id;
    return out;
  }
  return "no " + line_name + " line for pid " + std::to_string(pid);
}

TEST(SecurityContext, ProcessesRunAsTheGivenUserAndGroup) {
  TestNamespace ns("e2e-security-context");
  ASSERT_TRUE(ns.apply(kNobody));
  const std::optional<PodView> pod = wait_for_ready_pod(ns, "nobody running", "nobody", kStart);
  ASSERT_TRUE(pod);
  const std::vector<int> app = container_processes(*pod, "app");
  ASSERT_FALSE(app.empty());
  for (int pid : app) {
    EXPECT_EQ(ids_of(pid, "Uid"), "65534 65534 65534 65534") << pid;
    EXPECT_EQ(ids_of(pid, "Gid"), "65534 65534 65534 65534") << pid;
  }
  const std::vector<int> own = container_processes(*pod, "own");
  ASSERT_FALSE(own.empty());
  for (int pid : own) {
    EXPECT_EQ(ids_of(pid, "Uid"), "1000 1000 1000 1000") << "the container's runAsUser wins";
    EXPECT_EQ(ids_of(pid, "Gid"), "65534 65534 65534 65534") << "runAsGroup from the pod";
  }
}

TEST(SecurityContext, RunAsNonRootRefusesAnImageThatRunsAsRoot) {
  TestNamespace ns("e2e-run-as-non-root");
  ASSERT_TRUE(ns.apply(kRoot));
  std::string reason, message;
  ASSERT_TRUE(wait_until("root refused", kStart, [&](std::string& seen) {
    const CommandResult r = ns.kubectl(
        "get pod root -o 'jsonpath={.status.containerStatuses[0].state.waiting.reason}|"
        "{.status.containerStatuses[0].state.waiting.message}|{.metadata.uid}'");
    seen = r.out + r.err;
    const std::size_t a = r.out.find('|'), b = r.out.rfind('|');
    if (r.exit_code != 0 || a == std::string::npos || a == b) return false;
    reason = r.out.substr(0, a);
    message = r.out.substr(a + 1, b - a - 1) + "|" + r.out.substr(b + 1);
    return !reason.empty();
  }));
  EXPECT_EQ(reason, "CreateContainerConfigError");
  const std::string uid = message.substr(message.rfind('|') + 1);
  EXPECT_EQ(message.substr(0, message.rfind('|')),
            "container has runAsNonRoot and image will run as root (pod: \"root_" + ns.name() +
                "(" + uid + ")\", container: app)");
  const auto pod = ns.pod("root");
  ASSERT_TRUE(pod);
  EXPECT_FALSE(pod->container("app")->running);
  EXPECT_EQ(pod->container("app")->container_id, "") << "nothing was created";
}

}  // namespace
}  // namespace tailor::e2e
