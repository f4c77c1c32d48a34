// The root CA publisher (kube-controller-manager's root-ca-cert-publisher): every namespace holds
// the ConfigMap kube-root-ca.crt with the cluster CA under ca.crt, put back when it is deleted or
// changed. The projected kube-api-access volume of every pod reads it (service_account_admission).
#include <boost/json.hpp>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::embedded {
namespace {

constexpr const char* kName = "kube-root-ca.crt";
constexpr const char* kDescription =
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
    "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
    "guaranteed across distributions of Kubernetes clusters.";

const ResourceInfo& config_maps() {
  static const ResourceInfo& r = resource_named("", "configmaps");
  return r;
}

class RootCaPublisher : public WatchLoop {
 public:
  RootCaPublisher(ObjectStore& store, std::string ca_pem)
      : WatchLoop(store, {&namespaces_resource(), &config_maps()}), ca_pem_(std::move(ca_pem)) {}

 protected:
  void reconcile() override {
    for (const auto& [key, ns] : cached(namespaces_resource())) {
      if (find_path(*ns, "metadata.deletionTimestamp")) continue;
      try {
        publish(string_at(*ns, "metadata.name"));
      } catch (const std::exception&) {
        // Tried again on the next pass (the namespace went, or the map changed meanwhile).
      }
    }
  }

 private:
  bj::object data() const { return {{"ca.crt", ca_pem_}}; }

  void publish(const std::string& ns) {
    const ObjectMap& maps = cached(config_maps());
    const auto it = maps.find(ns + "/" + kName);
    if (it == maps.end()) {
      create(config_maps(),
             {{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata", bj::object{{"name", kName},
                                      {"namespace", ns},
                                      {"annotations",
                                       bj::object{{"kubernetes.io/description", kDescription}}}}},
              {"data", data()}});
      return;
    }
    const bj::value* current = it->second->if_contains("data");
    if (current && *current == bj::value(data())) return;
    modify(config_maps(), *it->second, [&](const bj::object& stored) {
      bj::object o = stored;
      o["data"] = data();
      return o;
    });
  }

  std::string ca_pem_;
};

}  // namespace

std::unique_ptr<ControlLoop> make_root_ca_publisher(ObjectStore& store, std::string ca_pem) {
  return std::make_unique<RootCaPublisher>(store, std::move(ca_pem));
}

}  // namespace tailor::embedded
