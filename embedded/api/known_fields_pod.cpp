// core/v1 PodSpec, PodStatus, PodTemplateSpec and PersistentVolumeClaim, every field (k8s.io/api
// core/v1 types.go), the in-tree volume sources too.
#include <map>
#include <string>

#include "embedded/api/known_fields_parts.h"

namespace tailor::embedded::known {
namespace {

// ---- volumes

const KnownFields& key_to_path() {
  static const KnownFields f = fields({"key", "path", "mode"});
  return f;
}

const KnownFields& downward_api_volume_file() {
  static const KnownFields f = fields(
      {"path", "mode"},
      {{"fieldRef", &object_field_selector()}, {"resourceFieldRef", &resource_field_selector()}});
  return f;
}

const KnownFields& downward_api_items() {  // DownwardAPIVolumeSource, DownwardAPIProjection
  static const KnownFields f = fields({"defaultMode"}, {{"items", &downward_api_volume_file()}});
  return f;
}

const KnownFields& secret_volume() {
  static const KnownFields f =
      fields({"secretName", "defaultMode", "optional"}, {{"items", &key_to_path()}});
  return f;
}

const KnownFields& config_map_volume() {  // also the secret and configMap projections
  static const KnownFields f =
      fields({"name", "defaultMode", "optional"}, {{"items", &key_to_path()}});
  return f;
}

const KnownFields& volume_projection() {
  static const KnownFields token = fields({"audience", "expirationSeconds", "path"});
  static const KnownFields trust_bundle =
      fields({"name", "signerName", "optional", "path"}, {{"labelSelector", &label_selector()}});
  static const KnownFields f = fields({"podCertificate"}, {{"secret", &config_map_volume()},
                                                           {"configMap", &config_map_volume()},
                                                           {"downwardAPI", &downward_api_items()},
                                                           {"serviceAccountToken", &token},
                                                           {"clusterTrustBundle", &trust_bundle}});
  return f;
}

const KnownFields& projected_volume() {
  static const KnownFields f = fields({"defaultMode"}, {{"sources", &volume_projection()}});
  return f;
}

const KnownFields& persistent_volume_claim_spec() {
  static const KnownFields resources = fields({"limits", "requests"});
  static const KnownFields data_source = fields({"apiGroup", "kind", "name"});
  static const KnownFields data_source_ref = fields({"apiGroup", "kind", "name", "namespace"});
  static const KnownFields f = fields(
      {"accessModes", "volumeName", "storageClassName", "volumeMode", "volumeAttributesClassName"},
      {{"selector", &label_selector()},
       {"resources", &resources},
       {"dataSource", &data_source},
       {"dataSourceRef", &data_source_ref}});
  return f;
}

const KnownFields& ephemeral_volume() {
  static const KnownFields claim_template =
      fields({}, {{"metadata", &object_meta()}, {"spec", &persistent_volume_claim_spec()}});
  static const KnownFields f = fields({}, {{"volumeClaimTemplate", &claim_template}});
  return f;
}

// The in-tree sources kube-apiserver still serves (most deprecated, redirected to CSI drivers):
// their fields from core/v1's *VolumeSource structs. Every secretRef here is a
// LocalObjectReference; flexVolume's options is a map.
const KnownFields& in_tree_source(std::string_view name) {
  static const KnownFields* ref = &local_object_reference();
  static const std::map<std::string_view, KnownFields> sources = {
      {"gcePersistentDisk", fields({"pdName", "fsType", "partition", "readOnly"})},
      {"awsElasticBlockStore", fields({"volumeID", "fsType", "partition", "readOnly"})},
      {"gitRepo", fields({"repository", "revision", "directory"})},
      {"iscsi", fields({"targetPortal", "iqn", "lun", "iscsiInterface", "fsType", "readOnly",
                        "portals", "chapAuthDiscovery", "chapAuthSession", "initiatorName"},
                       {{"secretRef", ref}})},
      {"glusterfs", fields({"endpoints", "path", "readOnly"})},
      {"rbd", fields({"monitors", "image", "fsType", "pool", "user", "keyring", "readOnly"},
                     {{"secretRef", ref}})},
      {"flexVolume", fields({"driver", "fsType", "readOnly", "options"}, {{"secretRef", ref}})},
      {"cinder", fields({"volumeID", "fsType", "readOnly"}, {{"secretRef", ref}})},
      {"cephfs",
       fields({"monitors", "path", "user", "secretFile", "readOnly"}, {{"secretRef", ref}})},
      {"flocker", fields({"datasetName", "datasetUUID"})},
      {"fc", fields({"targetWWNs", "lun", "fsType", "readOnly", "wwids"})},
      {"azureFile", fields({"secretName", "shareName", "readOnly"})},
      {"vsphereVolume", fields({"volumePath", "fsType", "storagePolicyName", "storagePolicyID"})},
      {"quobyte", fields({"registry", "volume", "readOnly", "user", "group", "tenant"})},
      {"azureDisk", fields({"diskName", "diskURI", "cachingMode", "fsType", "readOnly", "kind"})},
      {"photonPersistentDisk", fields({"pdID", "fsType"})},
      {"portworxVolume", fields({"volumeID", "fsType", "readOnly"})},
      {"scaleIO", fields({"gateway", "system", "sslEnabled", "protectionDomain", "storagePool",
                          "storageMode", "volumeName", "fsType", "readOnly"},
                         {{"secretRef", ref}})},
      {"storageos",
       fields({"volumeName", "volumeNamespace", "fsType", "readOnly"}, {{"secretRef", ref}})},
  };
  return sources.at(name);
}

const KnownFields& volume() {
  static const KnownFields empty_dir = fields({"medium", "sizeLimit"});
  static const KnownFields host_path = fields({"path", "type"});
  static const KnownFields claim = fields({"claimName", "readOnly"});
  static const KnownFields nfs = fields({"server", "path", "readOnly"});
  static const KnownFields image = fields({"reference", "pullPolicy"});
  static const KnownFields csi = fields({"driver", "readOnly", "fsType", "volumeAttributes"},
                                        {{"nodePublishSecretRef", &local_object_reference()}});
  static const KnownFields f = [] {
    KnownFields v = fields({"name"}, {{"hostPath", &host_path},
                                      {"emptyDir", &empty_dir},
                                      {"secret", &secret_volume()},
                                      {"nfs", &nfs},
                                      {"persistentVolumeClaim", &claim},
                                      {"downwardAPI", &downward_api_items()},
                                      {"configMap", &config_map_volume()},
                                      {"projected", &projected_volume()},
                                      {"csi", &csi},
                                      {"ephemeral", &ephemeral_volume()},
                                      {"image", &image}});
    for (std::string_view source :
         {"gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "iscsi", "glusterfs", "rbd",
          "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile", "vsphereVolume",
          "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume", "scaleIO",
          "storageos"}) {
      v.fields.emplace(std::string(source), &in_tree_source(source));
    }
    return keyed(std::move(v), {{"name"}});
  }();
  return f;
}

// ---- scheduling

const KnownFields& node_selector_term() {
  static const KnownFields requirement = fields({"key", "operator", "values"});
  static const KnownFields f =
      fields({}, {{"matchExpressions", &requirement}, {"matchFields", &requirement}});
  return f;
}

const KnownFields& node_affinity() {
  static const KnownFields selector = fields({}, {{"nodeSelectorTerms", &node_selector_term()}});
  static const KnownFields preferred = fields({"weight"}, {{"preference", &node_selector_term()}});
  static const KnownFields f =
      fields({}, {{"requiredDuringSchedulingIgnoredDuringExecution", &selector},
                  {"preferredDuringSchedulingIgnoredDuringExecution", &preferred}});
  return f;
}

const KnownFields& pod_affinity() {  // also PodAntiAffinity
  static const KnownFields term =
      fields({"namespaces", "topologyKey", "matchLabelKeys", "mismatchLabelKeys"},
             {{"labelSelector", &label_selector()}, {"namespaceSelector", &label_selector()}});
  static const KnownFields weighted = fields({"weight"}, {{"podAffinityTerm", &term}});
  static const KnownFields f =
      fields({}, {{"requiredDuringSchedulingIgnoredDuringExecution", &term},
                  {"preferredDuringSchedulingIgnoredDuringExecution", &weighted}});
  return f;
}

const KnownFields& affinity() {
  static const KnownFields f = fields({}, {{"nodeAffinity", &node_affinity()},
                                           {"podAffinity", &pod_affinity()},
                                           {"podAntiAffinity", &pod_affinity()}});
  return f;
}

const KnownFields& toleration() {
  static const KnownFields f = fields({"key", "operator", "value", "effect", "tolerationSeconds"});
  return f;
}

const KnownFields& topology_spread_constraint() {
  static const KnownFields f =
      keyed(fields({"maxSkew", "topologyKey", "whenUnsatisfiable", "minDomains",
                    "nodeAffinityPolicy", "nodeTaintsPolicy", "matchLabelKeys"},
                   {{"labelSelector", &label_selector()}}),
            {{"topologyKey"}, {"whenUnsatisfiable"}});
  return f;
}

// ---- the rest of the spec

const KnownFields& dns_config() {
  static const KnownFields option = fields({"name", "value"});
  static const KnownFields f = fields({"nameservers", "searches"}, {{"options", &option}});
  return f;
}

const KnownFields& host_alias() {
  static const KnownFields f = keyed(fields({"ip", "hostnames"}), {{"ip"}});
  return f;
}

const KnownFields& readiness_gate() {
  static const KnownFields f = fields({"conditionType"});
  return f;
}

const KnownFields& pod_os() {  // also PodSchedulingGate
  static const KnownFields f = fields({"name"});
  return f;
}

const KnownFields& pod_resource_claim() {
  static const KnownFields f = fields({"name", "resourceClaimName", "resourceClaimTemplateName"});
  return f;
}

const KnownFields& sysctl() {
  static const KnownFields f = fields({"name", "value"});
  return f;
}

// ---- status

const KnownFields& pod_condition() {
  static const KnownFields f = fields({"type", "observedGeneration", "status", "lastProbeTime",
                                       "lastTransitionTime", "reason", "message"});
  return f;
}

const KnownFields& ip_address() {  // HostIP, PodIP
  static const KnownFields f = fields({"ip"});
  return f;
}

const KnownFields& pod_resource_claim_status() {
  static const KnownFields f = fields({"name", "resourceClaimName"});
  return f;
}

const KnownFields& pod_security_context() {
  static const KnownFields f =
      fields({"runAsUser", "runAsGroup", "runAsNonRoot", "supplementalGroups",
              "supplementalGroupsPolicy", "fsGroup", "fsGroupChangePolicy", "seLinuxChangePolicy"},
             {{"seLinuxOptions", &se_linux_options()},
              {"windowsOptions", &windows_options()},
              {"sysctls", &sysctl()},
              {"seccompProfile", &seccomp_profile()},
              {"appArmorProfile", &seccomp_profile()}});
  return f;
}

}  // namespace

const KnownFields& pod_spec() {
  static const KnownFields f = fields({"restartPolicy",
                                       "terminationGracePeriodSeconds",
                                       "activeDeadlineSeconds",
                                       "dnsPolicy",
                                       "nodeSelector",
                                       "serviceAccountName",
                                       "serviceAccount",
                                       "automountServiceAccountToken",
                                       "nodeName",
                                       "hostNetwork",
                                       "hostPID",
                                       "hostIPC",
                                       "shareProcessNamespace",
                                       "hostname",
                                       "hostnameOverride",
                                       "subdomain",
                                       "schedulerName",
                                       "priorityClassName",
                                       "priority",
                                       "runtimeClassName",
                                       "enableServiceLinks",
                                       "preemptionPolicy",
                                       "overhead",
                                       "setHostnameAsFQDN",
                                       "hostUsers",
                                       "workloadRef"},
                                      {{"volumes", &volume()},
                                       {"initContainers", &container()},
                                       {"containers", &container()},
                                       {"ephemeralContainers", &ephemeral_container()},
                                       {"securityContext", &pod_security_context()},
                                       {"imagePullSecrets", &local_object_reference()},
                                       {"affinity", &affinity()},
                                       {"tolerations", &toleration()},
                                       {"hostAliases", &host_alias()},
                                       {"dnsConfig", &dns_config()},
                                       {"readinessGates", &readiness_gate()},
                                       {"topologySpreadConstraints", &topology_spread_constraint()},
                                       {"os", &pod_os()},
                                       {"schedulingGates", &pod_os()},
                                       {"resourceClaims", &pod_resource_claim()},
                                       {"resources", &resource_requirements()}});
  return f;
}

const KnownFields& pod_status() {
  static const KnownFields f = fields(
      {"observedGeneration", "phase", "message", "reason", "nominatedNodeName", "hostIP", "podIP",
       "startTime", "qosClass", "resize", "allocatedResources", "extendedResourceClaimStatus"},
      {{"conditions", &pod_condition()},
       {"hostIPs", &ip_address()},
       {"podIPs", &ip_address()},
       {"initContainerStatuses", &container_status()},
       {"containerStatuses", &container_status()},
       {"ephemeralContainerStatuses", &container_status()},
       {"resourceClaimStatuses", &pod_resource_claim_status()},
       {"resources", &resource_requirements()}});
  return f;
}

const KnownFields& pod_template() {
  static const KnownFields f = fields({}, {{"metadata", &object_meta()}, {"spec", &pod_spec()}});
  return f;
}

// A StatefulSet's volumeClaimTemplates: whole claims (their status is the claim's, left open).
const KnownFields& persistent_volume_claim() {
  static const KnownFields f =
      fields({"apiVersion", "kind", "status"},
             {{"metadata", &object_meta()}, {"spec", &persistent_volume_claim_spec()}});
  return f;
}

}  // namespace tailor::embedded::known
