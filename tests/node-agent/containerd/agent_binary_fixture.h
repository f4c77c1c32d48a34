// The real tailor-node-agent binary (embedded mode, --actuation=agent) on the real containerd,
// against an in-process tailor-cluster with no control loops (pods are bound by the test; the
// agent is the kubelet): the process can be killed, stopped and started again over the same
// checkpoint directory. Pods the test created are deleted at the end while the agent runs (it
// stops their containers and removes their cgroups); the agent's log is printed on failure.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>

#include "embedded/server/cluster.h"
#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "tests/embedded/cluster_rest_config.h"
#include "tests/node-agent/containerd/kill9_agent.h"
#include "tests/node-agent/containerd/runtime_fixture.h"

namespace tailor::node::testing {

class AgentBinaryTest : public RealContainerd {
 protected:
  AgentBinaryTest(std::string node, std::string allocatable)
      : node_(std::move(node)), allocatable_(std::move(allocatable)) {}

  void SetUp() override {
    RealContainerd::SetUp();
    if (HasFatalFailure()) return;
    char tmpl[] = "/tmp/tailor-agent-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    embedded::ClusterOptions options;
    options.control_loops = false;
    cluster_ = std::make_unique<embedded::Cluster>(options);
    cluster_->start();
    cluster_->write_kubeconfig((dir_ / "kubeconfig").string());
    std::filesystem::create_directory(checkpoint_dir());  // as the DaemonSet's hostPath is
    client_ = std::make_unique<kube::RestClient>(embedded::testing::cluster_rest_config(*cluster_));
    start_agent();
  }

  void TearDown() override {
    using namespace std::chrono_literals;
    if (client_ && agent_ && agent_->running()) {
      for (const std::string& name : created_) {
        try {
          client_->remove(ref(name));
          wait_until("pod " + name + " is gone", 30s, [&] { return !find_pod(name); });
        } catch (const std::exception& e) {
          ADD_FAILURE() << "removing pod " << name << ": " << e.what();
        }
      }
    }
    agent_.reset();
    if (HasFailure()) std::cerr << "agent log:\n" << read_log(dir_ / "agent.log");
    client_.reset();
    cluster_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  void start_agent() {
    agent_ = std::make_unique<AgentProcess>(
        std::vector<std::string>{node_agent_binary().string(), "--kubeconfig",
                                 (dir_ / "kubeconfig").string(), "--node-name", node_,
                                 "--runtime-endpoint", "unix://" + socket_, "--checkpoint-dir",
                                 checkpoint_dir().string(), "--actuation", "agent",
                                 "--node-allocatable", allocatable_, "--metrics-bind-address", "0"},
        dir_ / "agent.log");
  }

  std::filesystem::path checkpoint_dir() const { return dir_ / "checkpoint"; }

  kube::ObjectRef ref(const std::string& name, std::string subresource = "") {
    return kube::ObjectRef{kube::resources::kPods, "default", name, std::move(subresource)};
  }

  std::optional<kube::Pod> find_pod(const std::string& name) {
    try {
      return kube::decode_pod(client_->get(ref(name)));
    } catch (const kube::ApiError& e) {
      if (e.is_not_found()) return std::nullopt;
      throw;
    }
  }

  // Creates the pod (JSON: the model's Pod has no command) and deletes it at the end.
  void create_pod(const std::string& name, const std::string& json) {
    client_->create(ref(""), json);
    created_.push_back(name);
  }

  void wait_until(const std::string& what, std::chrono::milliseconds timeout,
                  const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("timed out waiting until " + what);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  std::string node_;
  std::string allocatable_;
  std::filesystem::path dir_;
  std::unique_ptr<embedded::Cluster> cluster_;
  std::unique_ptr<kube::RestClient> client_;
  std::unique_ptr<AgentProcess> agent_;
  std::vector<std::string> created_;
};

}  // namespace tailor::node::testing
