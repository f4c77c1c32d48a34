// The `kubernetes` Service of the default namespace, as kube-apiserver's own controllers keep it
// (controlplane's kubernetesservice controller and the endpoint reconciler): the first address of
// the service range, port 443 named https to the API server's port, and the Endpoints and
// EndpointSlice naming the API server's address. Put back when deleted or changed; Endpoints
// carry endpointslice.kubernetes.io/skip-mirror as upstream's do (the slice is written here).
#include <boost/json.hpp>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::embedded {
namespace {

constexpr const char* kName = "kubernetes";
constexpr const char* kNamespace = "default";

bj::object https_port(std::int64_t port, bool target) {
  bj::object p{{"name", "https"}, {"port", target ? 443 : port}, {"protocol", "TCP"}};
  if (target) p["targetPort"] = port;
  return p;
}

class KubernetesServiceController : public WatchLoop {
 public:
  KubernetesServiceController(ObjectStore& store, ApiServerEndpoint api)
      : WatchLoop(store,
                  {&namespaces_resource(), &services_resource(), &endpoints_resource(),
                   &endpoint_slices_resource()},
                  std::chrono::seconds(10)),  // kube-apiserver's --endpoint-reconciler interval
        api_(std::move(api)) {}

 protected:
  void reconcile() override {
    if (!cached(namespaces_resource()).count("/" + std::string(kNamespace))) return;
    try {
      ensure(services_resource(), service_spec());
      ensure(endpoints_resource(), endpoints_body());
      ensure(endpoint_slices_resource(), slice_body());
    } catch (const std::exception&) {
      // Tried again on the next pass.
    }
  }

 private:
  bj::object service_spec() const {
    return {{"metadata", bj::object{{"labels", bj::object{{"component", "apiserver"},
                                                          {"provider", "kubernetes"}}}}},
            {"spec", bj::object{{"type", "ClusterIP"},
                                {"clusterIP", api_.cluster_ip},
                                {"clusterIPs", bj::array{bj::string(api_.cluster_ip)}},
                                {"ipFamilies", bj::array{"IPv4"}},
                                {"ipFamilyPolicy", "SingleStack"},
                                {"internalTrafficPolicy", "Cluster"},
                                {"sessionAffinity", "None"},
                                {"ports", bj::array{https_port(api_.port, true)}}}}};
  }

  bj::object endpoints_body() const {
    return {
        {"metadata",
         bj::object{{"labels", bj::object{{"endpointslice.kubernetes.io/skip-mirror", "true"}}}}},
        {"subsets", bj::array{bj::object{{"addresses", bj::array{bj::object{{"ip", api_.address}}}},
                                         {"ports", bj::array{https_port(api_.port, false)}}}}}};
  }

  bj::object slice_body() const {
    return {{"metadata", bj::object{{"labels", bj::object{{"kubernetes.io/service-name", kName}}}}},
            {"addressType", "IPv4"},
            {"endpoints", bj::array{bj::object{{"addresses", bj::array{bj::string(api_.address)}},
                                               {"conditions", bj::object{{"ready", true}}}}}},
            {"ports", bj::array{https_port(api_.port, false)}}};
  }

  // The object holds `want`'s fields (labels merged into metadata, the rest replaced).
  void ensure(const ResourceInfo& r, const bj::object& want) {
    const ObjectMap& objects = cached(r);
    const auto it = objects.find(std::string(kNamespace) + "/" + kName);
    auto merged = [&](bj::object o) {
      for (const auto& [key, value] : want) {
        if (key == "metadata") {
          bj::object& labels = object_field(object_field(o, "metadata"), "labels");
          for (const auto& [k, v] : value.at("labels").as_object()) labels[k] = v;
        } else {
          o[key] = value;
        }
      }
      return o;
    };
    if (it == objects.end()) {
      bj::object o =
          merged({{"apiVersion", r.group.empty() ? r.version : r.group + "/" + r.version},
                  {"kind", r.kind},
                  {"metadata", bj::object{{"name", kName}, {"namespace", kNamespace}}}});
      create(r, std::move(o));
      return;
    }
    if (merged(*it->second) == *it->second) return;
    modify(r, *it->second, [&](const bj::object& stored) { return merged(stored); });
  }

  ApiServerEndpoint api_;
};

}  // namespace

std::unique_ptr<ControlLoop> make_kubernetes_service_controller(ObjectStore& store,
                                                                ApiServerEndpoint api) {
  return std::make_unique<KubernetesServiceController>(store, std::move(api));
}

}  // namespace tailor::embedded
