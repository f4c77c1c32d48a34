// An embedded-mode node for the containerd tests: an in-process tailor-cluster, the node
// registered by NodeRegistration, and a PodRuntime on the real containerd driven by a small loop
// that lists the pods bound to the node (sync, terminate on deletion, terminate when gone).
#pragma once

#include <boost/json.hpp>
#include <iostream>
#include <set>
#include <thread>

#include "embedded/server/cluster.h"
#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "node-agent/runtime/node_registration.h"
#include "node-agent/runtime/pod_runtime.h"
#include "tests/embedded/cluster_rest_config.h"
#include "tests/node-agent/containerd/runtime_fixture.h"

namespace tailor::node::testing {

inline constexpr const char* kNodeName = "tailor-node-1";

class EmbeddedNode : public RealContainerd {
 protected:
  void SetUp() override {
    RealContainerd::SetUp();
    if (HasFatalFailure()) return;
    char tmpl[] = "/tmp/tailor-embedded-node-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    state_ = tmpl;
    cluster_ = std::make_unique<embedded::Cluster>(
        embedded::ClusterOptions{.dir = (state_ / "cluster").string()});
    cluster_->start();
    client_ = std::make_unique<kube::RestClient>(embedded::testing::cluster_rest_config(*cluster_));
    registration_ = std::make_unique<runtime::NodeRegistration>(
        *client_, runtime::NodeIdentity{
                      .name = kNodeName,
                      .allocatable = kube::ResourceList{{"cpu", kube::Quantity::parse("2")},
                                                        {"memory", kube::Quantity::parse("2Gi")}},
                      .runtime_version = "containerd://" + cri_->version().runtime_version});
    registration_->register_node();
    images_ =
        cri::connect_image_service({socket_, std::chrono::seconds(10), std::chrono::seconds(10)});
    api_ = runtime::rest_pod_api(*client_);
    runtime_ = std::make_unique<runtime::PodRuntime>(
        pod_runtime_service(), *images_, *api_,
        runtime::PodRuntimeOptions{.node_name = kNodeName,
                                   .log_root = (state_ / "logs").string(),
                                   .volume_root = (state_ / "pods").string(),
                                   .api_host = "127.0.0.1",
                                   .api_port = cluster_->port(),
                                   .restart_backoff_initial = std::chrono::seconds(1),
                                   .restart_backoff_max = std::chrono::seconds(4)});
    driver_ = std::thread([this] { drive(); });
  }

  void TearDown() override {
    stop_ = true;
    if (driver_.joinable()) driver_.join();
    if (runtime_) {
      runtime_->remove_orphans({});  // whatever a failed test left running
    }
    runtime_.reset();
    registration_.reset();
    client_.reset();
    cluster_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(state_, ignored);
  }

  // The CRI the pod runtime calls (a test may put a decorator in between).
  virtual cri::RuntimeService& pod_runtime_service() { return *cri_; }

  // The loop a node agent runs (with informers there; a list every 200 ms here).
  void drive() {
    std::map<std::string, runtime::RuntimePod> known;
    while (!stop_) {
      try {
        const std::string list =
            client_->list({kube::resources::kPods},
                          {.field_selector = std::string("spec.nodeName=") + kNodeName});
        std::map<std::string, runtime::RuntimePod> seen;
        const boost::json::value parsed = boost::json::parse(list);
        for (const auto& item : parsed.at("items").as_array()) {
          runtime::RuntimePod pod = runtime::decode_runtime_pod(boost::json::serialize(item));
          if (pod.pod.metadata.deletion_timestamp.empty()) {
            runtime_->sync_pod(pod, {});
          } else {
            runtime_->terminate_pod(pod);
          }
          seen.emplace(pod.pod.metadata.uid, std::move(pod));
        }
        for (const auto& [uid, pod] : known) {
          if (!seen.contains(uid)) runtime_->terminate_pod(pod, true);
        }
        known = std::move(seen);
      } catch (const std::exception& e) {
        std::cerr << "embedded node loop: " << e.what() << std::endl;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }

  kube::ObjectRef pod_ref(const std::string& name) {
    return {.type = kube::resources::kPods, .namespace_ = "default", .name = name};
  }

  // A pod bound to the node (as the scheduler would bind it); `extra_spec`: more spec fields,
  // each followed by a comma.
  void create_pod(const std::string& name, const std::string& containers,
                  const std::string& restart_policy = "Always",
                  const std::string& extra_spec = "") {
    client_->create({kube::resources::kPods, "default"},
                    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                        R"("},"spec":{)" + extra_spec + R"("nodeName":")" + kNodeName +
                        R"(","terminationGracePeriodSeconds":1,"restartPolicy":")" +
                        restart_policy + R"(","containers":)" + containers + "}}");
  }

  // Deletes the pod and waits until it is gone.
  void delete_pod(const std::string& name) {
    client_->remove(pod_ref(name));
    wait_for_pod(name, [](const boost::json::value& p) { return p.is_null(); });
  }

  // Polls the pod until `done` holds (the pod as JSON), failing after `timeout`.
  boost::json::value wait_for_pod(const std::string& name,
                                  const std::function<bool(const boost::json::value&)>& done,
                                  std::chrono::seconds timeout = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    boost::json::value pod;
    while (std::chrono::steady_clock::now() < deadline) {
      try {
        pod = boost::json::parse(client_->get(pod_ref(name)));
        if (done(pod)) return pod;
      } catch (const kube::ApiError& e) {
        if (!e.is_not_found()) throw;
        pod = nullptr;
        if (done(pod)) return pod;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "pod " << name << " did not reach the expected state; last seen: "
                  << boost::json::serialize(pod);
    return pod;
  }

  std::filesystem::path state_;
  std::unique_ptr<embedded::Cluster> cluster_;
  std::unique_ptr<kube::RestClient> client_;
  std::unique_ptr<runtime::NodeRegistration> registration_;
  std::unique_ptr<cri::ImageService> images_;
  std::unique_ptr<runtime::PodApi> api_;
  std::unique_ptr<runtime::PodRuntime> runtime_;
  std::thread driver_;
  std::atomic<bool> stop_{false};
};

// status.containerStatuses[0] of a pod JSON, or null.
inline const boost::json::value* first_container_status(const boost::json::value& pod) {
  if (!pod.is_object()) return nullptr;
  const auto* status = pod.as_object().if_contains("status");
  if (!status) return nullptr;
  const auto* statuses = status->as_object().if_contains("containerStatuses");
  if (!statuses || statuses->as_array().empty()) return nullptr;
  return &statuses->as_array()[0];
}

inline std::string field(const boost::json::value& value, std::initializer_list<const char*> path) {
  const boost::json::value* at = &value;
  for (const char* key : path) {
    if (!at->is_object() || !at->as_object().contains(key)) return "";
    at = &at->as_object().at(key);
  }
  if (at->is_string()) return std::string(at->as_string());
  return boost::json::serialize(*at);
}

// The pod's first container was restarted (restartCount above 0).
inline bool container_restarted(const boost::json::value& pod) {
  const auto* s = first_container_status(pod);
  return s && field(*s, {"restartCount"}) != "0";
}

}  // namespace tailor::node::testing
