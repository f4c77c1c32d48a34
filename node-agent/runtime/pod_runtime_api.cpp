// PodApi over the REST client: status patches and the final grace-0 delete.
#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "node-agent/runtime/pod_runtime.h"

namespace tailor::kube::node {
namespace {

ObjectRef pod_ref(const Pod& pod, std::string subresource = "") {
  return {.type = resources::kPods,
          .namespace_ = pod.metadata.namespace_,
          .name = pod.metadata.name,
          .subresource = std::move(subresource)};
}

class RestPodApi : public PodApi {
 public:
  explicit RestPodApi(RestClient& client) : client_(client) {}

  bool patch_pod_status(const Pod& pod, const std::string& patch) override {
    try {
      client_.patch(pod_ref(pod, "status"), PatchType::StrategicMerge, patch);
      return true;
    } catch (const ApiError& e) {
      if (e.is_conflict()) return false;
      throw;
    }
  }

  std::optional<Pod> get_pod(const Pod& pod) override {
    try {
      Pod fresh = decode<Pod>(JsonInput(client_.get(pod_ref(pod))));
      if (fresh.metadata.uid != pod.metadata.uid) return std::nullopt;  // a new pod, same name
      return fresh;
    } catch (const ApiError& e) {
      if (e.is_not_found()) return std::nullopt;
      throw;
    }
  }

  // A pod already gone is what we wanted.
  void delete_pod(const Pod& pod) override {
    try {
      client_.remove(pod_ref(pod),
                     {.grace_period_seconds = 0, .preconditions_uid = pod.metadata.uid});
    } catch (const ApiError& e) {
      if (!e.is_not_found()) throw;
    }
  }

 private:
  RestClient& client_;
};

}  // namespace

std::unique_ptr<PodApi> rest_pod_api(RestClient& client) {
  return std::make_unique<RestPodApi>(client);
}

}  // namespace tailor::kube::node
