#include "node-agent/runtime/node_registration.h"

#include <boost/json.hpp>
#include <condition_variable>
#include <mutex>

#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "kube/model/encode.h"
#include "kube/model/node.h"
#include "kube/model/time.h"
#include "kube/observe/log.h"

namespace tailor::node::runtime {
namespace {
namespace bj = boost::json;

constexpr const char* kLeaseNamespace = "kube-node-lease";

bj::value resource_list_json(const kube::ResourceList& list) {
  return bj::parse(kube::to_json(list));
}

bj::object ready_condition(const std::string& now, const std::string& ready_since) {
  return {
      {"type", "Ready"},          {"status", "True"},
      {"reason", "KubeletReady"}, {"message", "tailor-node-agent is posting ready status"},
      {"lastHeartbeatTime", now}, {"lastTransitionTime", ready_since.empty() ? now : ready_since}};
}

bj::object status_json(const NodeIdentity& node, const std::string& now,
                       const std::string& ready_since) {
  const kube::ResourceList capacity = node_capacity(node);
  bj::object status{
      {"capacity", resource_list_json(capacity)},
      {"allocatable", resource_list_json(capacity)},
      {"addresses", bj::array{bj::object{{"type", "InternalIP"}, {"address", node.host_ip}},
                              bj::object{{"type", "Hostname"}, {"address", node.name}}}},
      {"nodeInfo", bj::object{{"kubeletVersion", node.agent_version},
                              {"kubeProxyVersion", ""},
                              {"containerRuntimeVersion", node.runtime_version},
                              {"operatingSystem", "linux"},
                              {"architecture", "amd64"}}},
      {"conditions", bj::array{ready_condition(now, ready_since)}}};
  if (node.kubelet_port != 0) {
    status["daemonEndpoints"] =
        bj::object{{"kubeletEndpoint", bj::object{{"Port", node.kubelet_port}}}};
  }
  return status;
}

kube::ObjectRef node_ref(const std::string& name, std::string subresource = "") {
  return {.type = kube::resources::kNodes, .name = name, .subresource = std::move(subresource)};
}

kube::ObjectRef lease_ref(const std::string& name = "") {
  return {.type = kube::resources::kLeases, .namespace_ = kLeaseNamespace, .name = name};
}

}  // namespace

kube::ResourceList node_capacity(const NodeIdentity& node) {
  kube::ResourceList out = node.allocatable;
  out.try_emplace("pods", kube::Quantity::from_int(110));
  return out;
}

std::string node_document(const NodeIdentity& node, const std::string& now) {
  bj::object labels{{"kubernetes.io/hostname", node.name},
                    {"kubernetes.io/os", "linux"},
                    {"kubernetes.io/arch", "amd64"},
                    {"tailor.dev/embedded", "true"}};
  return bj::serialize(bj::object{{"apiVersion", "v1"},
                                  {"kind", "Node"},
                                  {"metadata", bj::object{{"name", node.name}, {"labels", labels}}},
                                  {"spec", bj::object{}},
                                  {"status", status_json(node, now, "")}});
}

std::string node_status_patch(const NodeIdentity& node, const std::string& now,
                              const std::string& ready_since) {
  return bj::serialize(bj::object{{"status", status_json(node, now, ready_since)}});
}

std::string lease_document(const NodeIdentity& node, const std::string& node_uid,
                           const std::string& now_micro) {
  bj::object metadata{{"name", node.name}, {"namespace", kLeaseNamespace}};
  if (!node_uid.empty()) {
    metadata["ownerReferences"] = bj::array{
        bj::object{{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node.name}, {"uid", node_uid}}};
  }
  return bj::serialize(
      bj::object{{"apiVersion", "coordination.k8s.io/v1"},
                 {"kind", "Lease"},
                 {"metadata", std::move(metadata)},
                 {"spec", bj::object{{"holderIdentity", node.name},
                                     {"leaseDurationSeconds", node.lease_duration_seconds},
                                     {"renewTime", now_micro}}}});
}

std::string lease_renew_patch(const std::string& now_micro) {
  return bj::serialize(bj::object{{"spec", bj::object{{"renewTime", now_micro}}}});
}

struct NodeRegistration::Impl {
  Impl(kube::RestClient& c, NodeIdentity n) : client(c), node(std::move(n)) {}
  kube::RestClient& client;
  NodeIdentity node;
  std::string node_uid;
  std::string ready_since;
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::thread heartbeat_thread;

  static kube::TimePoint now() { return kube::TimePoint(std::chrono::system_clock::now()); }

  void ensure_node() {
    try {
      client.create(node_ref(""), node_document(node, kube::format_rfc3339(now())));
    } catch (const kube::ApiError& e) {
      if (!e.is_conflict() && e.code() != 409) throw;  // AlreadyExists: adopt it
    }
    node_uid =
        kube::decode<kube::Node>(kube::JsonInput(client.get(node_ref(node.name)))).metadata.uid;
  }

  void write_status() {
    const std::string time = kube::format_rfc3339(now());
    if (ready_since.empty()) ready_since = time;
    client.patch(node_ref(node.name, "status"), kube::PatchType::StrategicMerge,
                 node_status_patch(node, time, ready_since));
  }

  void renew_lease() {
    const std::string time = kube::format_rfc3339_micro(now());
    try {
      client.patch(lease_ref(node.name), kube::PatchType::Merge, lease_renew_patch(time));
    } catch (const kube::ApiError& e) {
      if (!e.is_not_found()) throw;
      client.create(lease_ref(), lease_document(node, node_uid, time));
    }
  }

  void loop() {
    const auto interval = std::chrono::milliseconds(node.lease_duration_seconds * 1000 / 4);
    std::unique_lock lock(mutex);
    while (!wake.wait_for(lock, interval, [&] { return stopping; })) {
      lock.unlock();
      try {
        write_status();
        renew_lease();
      } catch (const std::exception& e) {
        kube::log::error(e, "Node heartbeat failed", {{"node", node.name}});
      }
      lock.lock();
    }
  }
};

NodeRegistration::NodeRegistration(kube::RestClient& client, NodeIdentity node)
    : impl_(std::make_unique<Impl>(client, std::move(node))) {
  if (impl_->node.name.empty()) throw std::invalid_argument("node name is empty");
  if (impl_->node.lease_duration_seconds < 4) {
    throw std::invalid_argument("lease duration must be at least 4 s");
  }
}

NodeRegistration::~NodeRegistration() { stop_heartbeat(); }

void NodeRegistration::register_node() {
  impl_->ensure_node();
  impl_->write_status();
  impl_->renew_lease();
  kube::log::info("Registered node", {{"node", impl_->node.name}});
}

void NodeRegistration::heartbeat() {
  impl_->write_status();
  impl_->renew_lease();
}

void NodeRegistration::start_heartbeat() {
  if (impl_->heartbeat_thread.joinable()) return;
  impl_->stopping = false;
  impl_->heartbeat_thread = std::thread([this] { impl_->loop(); });
}

void NodeRegistration::stop_heartbeat() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->wake.notify_all();
  if (impl_->heartbeat_thread.joinable()) impl_->heartbeat_thread.join();
}

}  // namespace tailor::node::runtime
