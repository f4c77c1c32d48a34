// PodApi over the REST client: status patches and the final grace-0 delete.
#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "node-agent/runtime/pod_runtime.h"

namespace tailor::node::runtime {
namespace {

kube::ObjectRef pod_ref(const kube::Pod& pod, std::string subresource = "") {
  return {.type = kube::resources::kPods,
          .namespace_ = pod.metadata.namespace_,
          .name = pod.metadata.name,
          .subresource = std::move(subresource)};
}

class RestPodApi : public PodApi {
 public:
  explicit RestPodApi(kube::RestClient& client) : client_(client) {}

  bool patch_pod_status(const kube::Pod& pod, const std::string& patch) override {
    try {
      client_.patch(pod_ref(pod, "status"), kube::PatchType::StrategicMerge, patch);
      return true;
    } catch (const kube::ApiError& e) {
      if (e.is_conflict()) return false;
      throw;
    }
  }

  std::optional<kube::Pod> get_pod(const kube::Pod& pod) override {
    try {
      kube::Pod fresh = kube::decode<kube::Pod>(kube::JsonInput(client_.get(pod_ref(pod))));
      if (fresh.metadata.uid != pod.metadata.uid) return std::nullopt;  // a new pod, same name
      return fresh;
    } catch (const kube::ApiError& e) {
      if (e.is_not_found()) return std::nullopt;
      throw;
    }
  }

  // A pod already gone is what we wanted.
  void delete_pod(const kube::Pod& pod) override {
    try {
      client_.remove(pod_ref(pod),
                     {.grace_period_seconds = 0, .preconditions_uid = pod.metadata.uid});
    } catch (const kube::ApiError& e) {
      if (!e.is_not_found()) throw;
    }
  }

 private:
  kube::RestClient& client_;
};

}  // namespace

std::unique_ptr<PodApi> rest_pod_api(kube::RestClient& client) {
  return std::make_unique<RestPodApi>(client);
}

}  // namespace tailor::node::runtime
