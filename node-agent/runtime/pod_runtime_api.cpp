// PodApi over the REST client: status patches and the final grace-0 delete.
#include <boost/json.hpp>

#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "node-agent/runtime/pod_runtime.h"

namespace tailor::node::runtime {
namespace {
namespace bj = boost::json;

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

  std::optional<std::map<std::string, std::string>> get_data(const std::string& resource,
                                                             const std::string& ns,
                                                             const std::string& name) override {
    try {
      const bj::value object = bj::parse(client_.get(
          {.type = {.version = "v1", .resource = resource}, .namespace_ = ns, .name = name}));
      std::map<std::string, std::string> out;
      if (const auto* data = object.as_object().if_contains("data"); data && data->is_object()) {
        for (const auto& [key, value] : data->get_object()) {
          if (value.is_string()) out[std::string(key)] = std::string(value.get_string());
        }
      }
      return out;
    } catch (const kube::ApiError& e) {
      if (e.is_not_found()) return std::nullopt;
      throw;
    }
  }

  std::string request_token(const kube::Pod& pod, const std::string& service_account,
                            const std::string& audience, std::int64_t expiration_seconds) override {
    bj::object spec{{"expirationSeconds", expiration_seconds},
                    {"boundObjectRef", bj::object{{"kind", "Pod"},
                                                  {"apiVersion", "v1"},
                                                  {"name", pod.metadata.name},
                                                  {"uid", pod.metadata.uid}}}};
    if (!audience.empty()) spec["audiences"] = bj::array{bj::value(audience)};
    const bj::object request{{"apiVersion", "authentication.k8s.io/v1"},
                             {"kind", "TokenRequest"},
                             {"spec", std::move(spec)}};
    const std::string answer =
        client_.create({.type = {.version = "v1", .resource = "serviceaccounts"},
                        .namespace_ = pod.metadata.namespace_,
                        .name = service_account,
                        .subresource = "token"},
                       bj::serialize(request));
    const bj::value response = bj::parse(answer);
    const auto* token = response.as_object().if_contains("status");
    const auto* value =
        token && token->is_object() ? token->get_object().if_contains("token") : nullptr;
    if (!value || !value->is_string()) throw std::runtime_error("TokenRequest answered no token");
    return std::string(value->get_string());
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

namespace {

// A Service's name, ClusterIP and ports as the link variables need them; what is missing or of
// the wrong type is left empty.
ServiceLink service_link(const bj::object& service) {
  ServiceLink out;
  const bj::value* metadata = service.if_contains("metadata");
  if (const bj::value* name =
          metadata && metadata->is_object() ? metadata->get_object().if_contains("name") : nullptr;
      name && name->is_string()) {
    out.name = std::string(name->get_string());
  }
  const bj::value* spec_value = service.if_contains("spec");
  if (!spec_value || !spec_value->is_object()) return out;
  const bj::object& spec = spec_value->get_object();
  if (const bj::value* ip = spec.if_contains("clusterIP"); ip && ip->is_string()) {
    out.cluster_ip = std::string(ip->get_string());
  }
  const bj::value* ports = spec.if_contains("ports");
  if (!ports || !ports->is_array()) return out;
  for (const bj::value& p : ports->get_array()) {
    if (!p.is_object()) continue;
    const bj::object& port = p.get_object();
    ServiceLinkPort link;
    if (const bj::value* v = port.if_contains("name"); v && v->is_string()) {
      link.name = std::string(v->get_string());
    }
    if (const bj::value* v = port.if_contains("port"); v && v->is_int64()) {
      link.port = static_cast<std::uint16_t>(v->get_int64());
    }
    if (const bj::value* v = port.if_contains("protocol"); v && v->is_string()) {
      link.protocol = std::string(v->get_string());
    }
    out.ports.push_back(std::move(link));
  }
  return out;
}

}  // namespace

std::optional<ServiceAddress> read_kubernetes_service(kube::RestClient& client) {
  std::string text;
  try {
    text = client.get({.type = {.version = "v1", .resource = "services"},
                       .namespace_ = "default",
                       .name = "kubernetes"});
  } catch (const kube::ApiError& e) {
    if (e.is_not_found()) return std::nullopt;
    throw;
  }
  const ServiceLink service = service_link(bj::parse(text).as_object());
  // A port of 0 is one that was missing or not a number: no address.
  if (service.cluster_ip.empty() || service.ports.empty() || service.ports[0].port == 0) {
    return std::nullopt;
  }
  return ServiceAddress{.host = service.cluster_ip, .port = service.ports[0].port};
}

std::vector<ServiceLink> read_namespace_services(kube::RestClient& client, const std::string& ns) {
  const bj::value list =
      bj::parse(client.list({.type = {.version = "v1", .resource = "services"}, .namespace_ = ns}));
  std::vector<ServiceLink> out;
  const bj::value* items = list.as_object().if_contains("items");
  if (!items || !items->is_array()) return out;
  for (const bj::value& item : items->get_array()) {
    const bj::value* metadata =
        item.is_object() ? item.get_object().if_contains("metadata") : nullptr;
    const bj::value* spec = item.is_object() ? item.get_object().if_contains("spec") : nullptr;
    if (!metadata || !metadata->is_object() || !spec || !spec->is_object()) continue;
    out.push_back(service_link(item.get_object()));
  }
  return out;
}

}  // namespace tailor::node::runtime
