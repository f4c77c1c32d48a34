#include "embedded/auth/service_account_admission.h"

#include <boost/json.hpp>
#include <set>

#include "embedded/auth/stored_objects.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

constexpr const char* kVolumePrefix = "kube-api-access-";
constexpr std::int64_t kTokenExpirationSeconds = 3607;  // an hour and the kubelet's slack
constexpr std::int64_t kDefaultMode = 0644;             // 420, as the plugin writes it

std::optional<bool> bool_at(const bj::object& object, std::string_view key) {
  const bj::value* v = object.if_contains(key);
  return v && v->is_bool() ? std::optional<bool>(v->get_bool()) : std::nullopt;
}

bj::object projected_volume(const std::string& name) {
  bj::array sources{
      bj::object{{"serviceAccountToken",
                  bj::object{{"expirationSeconds", kTokenExpirationSeconds}, {"path", "token"}}}},
      bj::object{{"configMap", bj::object{{"name", kRootCaConfigMap},
                                          {"items", bj::array{bj::object{{"key", "ca.crt"},
                                                                         {"path", "ca.crt"}}}}}}},
      bj::object{{"downwardAPI",
                  bj::object{{"items", bj::array{bj::object{
                                           {"path", "namespace"},
                                           {"fieldRef",
                                            bj::object{{"apiVersion", "v1"},
                                                       {"fieldPath", "metadata.namespace"}}}}}}}}}};
  return {
      {"name", name},
      {"projected", bj::object{{"sources", std::move(sources)}, {"defaultMode", kDefaultMode}}}};
}

bj::array& array_at(bj::object& object, std::string_view key) {
  bj::value& v = object[key];
  if (!v.is_array()) v = bj::array{};
  return v.as_array();
}

bool mounts_token_path(const bj::object& container) {
  const bj::value* mounts = container.if_contains("volumeMounts");
  if (!mounts || !mounts->is_array()) return false;
  for (const bj::value& m : mounts->get_array()) {
    if (m.is_object() && string_at(m, "mountPath") == kServiceAccountMountPath) return true;
  }
  return false;
}

// A name no volume of the pod has.
std::string fresh_volume_name(const bj::array& volumes) {
  std::set<std::string> taken;
  for (const bj::value& v : volumes) taken.insert(string_at(v, "name"));
  std::string name;
  do {
    name = kVolumePrefix + random_name_suffix();
  } while (taken.count(name));
  return name;
}

// The containers that get the mount; true when any does.
bool add_mounts(bj::object& spec, const std::string& volume) {
  bool any = false;
  for (const char* list : {"initContainers", "containers"}) {
    bj::value* containers = spec.if_contains(list);
    if (!containers || !containers->is_array()) continue;
    for (bj::value& c : containers->as_array()) {
      if (!c.is_object() || mounts_token_path(c.get_object())) continue;
      array_at(c.as_object(), "volumeMounts")
          .push_back(bj::object{
              {"name", volume}, {"readOnly", true}, {"mountPath", kServiceAccountMountPath}});
      any = true;
    }
  }
  return any;
}

}  // namespace

void admit_service_account(bj::object& pod, std::optional<bool> sa_automount) {
  bj::value& spec_value = pod["spec"];
  if (!spec_value.is_object()) return;  // validation reports it
  bj::object& spec = spec_value.as_object();
  if (string_at(spec, "serviceAccountName").empty()) spec["serviceAccountName"] = "default";
  const bool automount =
      bool_at(spec, "automountServiceAccountToken").value_or(sa_automount.value_or(true));
  if (!automount) return;
  bj::array& volumes = array_at(spec, "volumes");
  const std::string name = fresh_volume_name(volumes);
  if (add_mounts(spec, name)) volumes.push_back(projected_volume(name));
  if (volumes.empty()) spec.erase("volumes");
}

std::optional<std::string> missing_service_account(const std::string& ns, const std::string& name,
                                                   bool exists) {
  if (exists || name.empty() || name == "default") return std::nullopt;
  return "error looking up service account " + ns + "/" + name + ": serviceaccount \"" + name +
         "\" not found";
}

AdmissionPlugin service_account_admission(const ObjectStore& store) {
  return [&store](AdmissionRequest& request) {
    const ResourceInfo& r = request.resource;
    if (request.operation != AdmissionOperation::Create || !request.subresource.empty() ||
        !r.group.empty() || r.resource != "pods") {
      return;
    }
    const std::string sa = string_at(request.object, "spec.serviceAccountName");
    const ObjectPtr stored =
        find_object(store, builtin("", "serviceaccounts"), request.ns, sa.empty() ? "default" : sa);
    if (auto why = missing_service_account(request.ns, sa, stored != nullptr))
      throw admission_forbidden(request, *why);
    admit_service_account(request.object,
                          stored ? bool_at(*stored, "automountServiceAccountToken") : std::nullopt);
  };
}

}  // namespace tailor::embedded
