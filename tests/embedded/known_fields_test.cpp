// known_fields: whole, realistic objects of every built-in kind tailor-cluster serves — a Pod
// spec using every part (probes, lifecycle, security contexts, env sources, the common volume
// sources, affinity, tolerations, topology spread, DNS, gates, claims), workloads' specs and
// statuses, a Service, the Node and Pod statuses the node agent writes — have no unknown field
// (Strict would reject them, every mode would drop the data), and a typo anywhere below is
// reported with kube-apiserver's path, under Strict through the API and kubectl.
#include "embedded/api/known_fields.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "embedded/api/resources.h"
#include "tests/embedded/kubectl_cluster_test.h"
#include "tests/embedded/raw_http_fixture.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;

// A pod spec with every field users commonly write (and many they rarely do).
constexpr const char* kPodSpec = R"json(
{
  "initContainers": [{"name": "init", "image": "busybox:1", "command": ["sh", "-c", "true"],
    "restartPolicy": "Always",
    "resources": {"requests": {"cpu": "10m"}, "limits": {"memory": "32Mi"}}}],
  "containers": [{
    "name": "app", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent",
    "command": ["nginx"], "args": ["-g", "daemon off;"], "workingDir": "/srv",
    "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
    "envFrom": [{"prefix": "CM_", "configMapRef": {"name": "conf", "optional": true}},
                {"secretRef": {"name": "creds", "optional": true}}],
    "env": [{"name": "PLAIN", "value": "1"},
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
            {"name": "CPU_LIMIT", "valueFrom": {"resourceFieldRef": {"containerName": "app", "resource": "limits.cpu", "divisor": "1m"}}},
            {"name": "FROM_CM", "valueFrom": {"configMapKeyRef": {"name": "conf", "key": "a", "optional": true}}},
            {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "password", "optional": true}}}],
    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}},
    "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"},
                     {"resourceName": "memory", "restartPolicy": "RestartContainer"}],
    "volumeMounts": [{"name": "cache", "mountPath": "/cache"},
                     {"name": "conf", "mountPath": "/etc/conf", "readOnly": true, "subPath": "app.conf", "mountPropagation": "None"},
                     {"name": "all", "mountPath": "/etc/all", "readOnly": true},
                     {"name": "info", "mountPath": "/etc/info", "subPathExpr": "$(POD_NAME)"}],
    "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP",
                                  "httpHeaders": [{"name": "X-Probe", "value": "1"}]},
                      "initialDelaySeconds": 5, "timeoutSeconds": 2, "periodSeconds": 10,
                      "successThreshold": 1, "failureThreshold": 3, "terminationGracePeriodSeconds": 20},
    "readinessProbe": {"tcpSocket": {"port": "http"}, "periodSeconds": 5},
    "startupProbe": {"exec": {"command": ["cat", "/tmp/ready"]}, "failureThreshold": 30},
    "lifecycle": {"postStart": {"exec": {"command": ["sh", "-c", "echo start"]}},
                  "preStop": {"sleep": {"seconds": 5}}},
    "securityContext": {"capabilities": {"add": ["NET_BIND_SERVICE"], "drop": ["ALL"]},
                        "privileged": false, "runAsUser": 1000, "runAsGroup": 1000, "runAsNonRoot": true,
                        "readOnlyRootFilesystem": true, "allowPrivilegeEscalation": false,
                        "seLinuxOptions": {"level": "s0:c123,c456"},
                        "seccompProfile": {"type": "RuntimeDefault"},
                        "appArmorProfile": {"type": "RuntimeDefault"}},
    "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "FallbackToLogsOnError",
    "stdin": false, "tty": false
  }, {
    "name": "sidecar", "image": "busybox:1",
    "readinessProbe": {"grpc": {"port": 9090, "service": "health"}},
    "livenessProbe": {"httpGet": {"path": "/", "port": 9090, "host": "127.0.0.1"}},
    "lifecycle": {"preStop": {"httpGet": {"path": "/stop", "port": 9090}}}
  }],
  "volumes": [
    {"name": "cache", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}},
    {"name": "conf", "configMap": {"name": "conf", "items": [{"key": "a", "path": "app.conf", "mode": 420}], "defaultMode": 420, "optional": true}},
    {"name": "creds", "secret": {"secretName": "creds", "items": [{"key": "password", "path": "pw"}], "defaultMode": 256, "optional": true}},
    {"name": "host", "hostPath": {"path": "/var/log", "type": "Directory"}},
    {"name": "data", "persistentVolumeClaim": {"claimName": "data", "readOnly": true}},
    {"name": "info", "downwardAPI": {"items": [
      {"path": "labels", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels"}},
      {"path": "cpu", "resourceFieldRef": {"containerName": "app", "resource": "requests.cpu", "divisor": "1m"}}],
      "defaultMode": 420}},
    {"name": "all", "projected": {"defaultMode": 420, "sources": [
      {"configMap": {"name": "conf", "items": [{"key": "a", "path": "a"}], "optional": true}},
      {"secret": {"name": "creds", "optional": true}},
      {"downwardAPI": {"items": [{"path": "name", "fieldRef": {"fieldPath": "metadata.name"}}]}},
      {"serviceAccountToken": {"audience": "vault", "expirationSeconds": 3600, "path": "token"}}]}}
  ],
  "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "activeDeadlineSeconds": 3600,
  "dnsPolicy": "None", "nodeSelector": {"kubernetes.io/os": "linux"},
  "serviceAccountName": "default", "automountServiceAccountToken": false,
  "shareProcessNamespace": true, "hostname": "web", "subdomain": "web",
  "securityContext": {"runAsUser": 1000, "runAsGroup": 1000, "runAsNonRoot": true,
                      "supplementalGroups": [2000], "supplementalGroupsPolicy": "Merge",
                      "fsGroup": 2000, "fsGroupChangePolicy": "OnRootMismatch",
                      "sysctls": [{"name": "net.ipv4.ip_local_port_range", "value": "1024 65535"}],
                      "seccompProfile": {"type": "RuntimeDefault"},
                      "seLinuxOptions": {"level": "s0:c123,c456"}, "seLinuxChangePolicy": "MountOption"},
  "imagePullSecrets": [{"name": "registry"}],
  "affinity": {
    "nodeAffinity": {
      "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64", "arm64"]}],
         "matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["bad-node"]}]}]},
      "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "preference":
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}}]},
    "podAffinity": {
      "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"app": "cache"}},
        "topologyKey": "kubernetes.io/hostname", "namespaces": ["default"]}],
      "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 50, "podAffinityTerm":
        {"labelSelector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["db"]}]},
         "namespaceSelector": {}, "topologyKey": "zone"}}]},
    "podAntiAffinity": {
      "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm":
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}}]}},
  "schedulerName": "default-scheduler",
  "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"},
                  {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
  "hostAliases": [{"ip": "10.0.0.1", "hostnames": ["db.local"]}],
  "priority": 0,
  "dnsConfig": {"nameservers": ["1.1.1.1"], "searches": ["svc.cluster.local"],
                "options": [{"name": "ndots", "value": "2"}, {"name": "edns0"}]},
  "readinessGates": [{"conditionType": "example.com/ready"}],
  "enableServiceLinks": false, "preemptionPolicy": "PreemptLowerPriority",
  "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
    "labelSelector": {"matchLabels": {"app": "web"}}, "minDomains": 1,
    "nodeAffinityPolicy": "Honor", "nodeTaintsPolicy": "Ignore", "matchLabelKeys": ["pod-template-hash"]}],
  "setHostnameAsFQDN": false,
  "os": {"name": "linux"},
  "schedulingGates": [{"name": "example.com/gate"}],
  "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]
})json";

std::string pod_json(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","labels":{"app":"web"},"annotations":{"note":"x"}},"spec":)" + kPodSpec + "}";
}

std::string template_json() {
  return R"({"metadata":{"labels":{"app":"web"},"annotations":{"a":"b"}},"spec":)" +
         std::string(kPodSpec) + "}";
}

std::string deployment_json(const std::string& name) {
  return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":")" + name +
         R"("},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"},
         "matchExpressions":[{"key":"tier","operator":"NotIn","values":["db"]}]},
         "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":0}},
         "minReadySeconds":5,"revisionHistoryLimit":3,"paused":true,"progressDeadlineSeconds":600,
         "template":)" +
         template_json() + "}}";
}

// What the node agent posts for its pods (pod_runtime_status.cpp) and the resize writer adds.
constexpr const char* kPodStatus = R"json({
  "observedGeneration": 1, "phase": "Running", "qosClass": "Burstable",
  "hostIP": "10.0.0.2", "hostIPs": [{"ip": "10.0.0.2"}], "podIP": "10.1.0.5", "podIPs": [{"ip": "10.1.0.5"}],
  "startTime": "2026-11-26T10:00:00Z", "nominatedNodeName": "", "message": "", "reason": "",
  "conditions": [{"type": "Ready", "status": "True", "observedGeneration": 1, "lastProbeTime": null,
                  "lastTransitionTime": "2026-11-26T10:00:05Z", "reason": "", "message": ""},
                 {"type": "PodResizeInProgress", "status": "True", "lastTransitionTime": "2026-11-26T10:01:00Z"}],
  "allocatedResources": {"cpu": "110m"}, "resources": {"requests": {"cpu": "110m"}},
  "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "web-gpu-x7"}],
  "initContainerStatuses": [{"name": "init", "image": "busybox:1", "imageID": "", "ready": true,
    "started": true, "restartCount": 0, "containerID": "containerd://aa",
    "state": {"waiting": null, "running": {"startedAt": "2026-11-26T10:00:01Z"}, "terminated": null},
    "lastState": {}}],
  "containerStatuses": [{"name": "app", "image": "nginx:1.27", "imageID": "docker.io/library/nginx@sha256:00",
    "containerID": "containerd://bb", "ready": true, "started": true, "restartCount": 1,
    "state": {"running": {"startedAt": "2026-11-26T10:00:02Z"}},
    "lastState": {"terminated": {"exitCode": 137, "signal": 9, "reason": "OOMKilled", "message": "",
                  "startedAt": "2026-11-26T09:00:00Z", "finishedAt": "2026-11-26T10:00:00Z",
                  "containerID": "containerd://ab"}},
    "allocatedResources": {"cpu": "100m", "memory": "128Mi"},
    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}},
    "volumeMounts": [{"name": "cache", "mountPath": "/cache", "readOnly": false, "recursiveReadOnly": "Disabled"}],
    "user": {"linux": {"uid": 1000, "gid": 1000, "supplementalGroups": [2000]}},
    "allocatedResourcesStatus": [{"name": "claim:gpu", "resources": [{"resourceID": "gpu-0", "health": "Healthy"}]}],
    "stopSignal": "SIGTERM"},
    {"name": "sidecar", "image": "busybox:1", "imageID": "", "ready": false, "started": false,
     "restartCount": 0, "containerID": null,
     "state": {"waiting": {"reason": "ContainerCreating", "message": "pulling"}}, "lastState": {}}]
})json";

// The node agent's Node document (node_registration.cpp) with what other writers add.
constexpr const char* kNode = R"json({"apiVersion": "v1", "kind": "Node",
  "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"},
               "ownerReferences": [{"apiVersion": "v1", "kind": "Namespace", "name": "x", "uid": "u",
                                    "controller": false, "blockOwnerDeletion": false}],
               "managedFields": [{"manager": "agent", "operation": "Update", "apiVersion": "v1",
                                  "time": "2026-11-26T10:00:00Z", "fieldsType": "FieldsV1",
                                  "fieldsV1": {"f:status": {"f:capacity": {}}}, "subresource": "status"}]},
  "spec": {"podCIDR": "10.1.0.0/24", "podCIDRs": ["10.1.0.0/24"], "providerID": "tailor://node-1",
           "unschedulable": false,
           "taints": [{"key": "dedicated", "value": "web", "effect": "NoSchedule", "timeAdded": null}]},
  "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
             "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
             "addresses": [{"type": "InternalIP", "address": "10.0.0.2"}, {"type": "Hostname", "address": "node-1"}],
             "nodeInfo": {"kubeletVersion": "v1.34.0", "kubeProxyVersion": "", "containerRuntimeVersion": "containerd://2.0",
                          "operatingSystem": "linux", "architecture": "amd64", "machineID": "m", "systemUUID": "s",
                          "bootID": "b", "kernelVersion": "6.1", "osImage": "Debian 12", "swap": {"capacity": 0}},
             "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                             "message": "tailor-node-agent is posting ready status",
                             "lastHeartbeatTime": "2026-11-26T10:00:00Z", "lastTransitionTime": "2026-11-26T10:00:00Z"}],
             "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
             "images": [{"names": ["nginx:1.27"], "sizeBytes": 1000}],
             "volumesInUse": ["v"], "volumesAttached": [{"name": "v", "devicePath": "/dev/sdb"}],
             "runtimeHandlers": [{"name": "runc", "features": {"recursiveReadOnlyMounts": true}}],
             "features": {"supplementalGroupsPolicy": true}}})json";

const KnownFields& known(const char* group, const char* version, const char* resource) {
  const ResourceInfo* r = find_resource(group, version, resource);
  EXPECT_NE(r, nullptr) << resource;
  const KnownFields* k = r ? known_fields(*r) : nullptr;
  EXPECT_NE(k, nullptr) << resource;
  static const KnownFields none;
  return k ? *k : none;
}

bj::object parsed(const std::string& json) { return bj::parse(json).as_object(); }

bj::object with(bj::object o, const char* key, const std::string& json) {
  o[key] = bj::parse(json);
  return o;
}

struct Kind {
  const char* group;
  const char* version;
  const char* resource;
};

constexpr Kind kPods{"", "v1", "pods"};
constexpr Kind kNodes{"", "v1", "nodes"};
constexpr Kind kServices{"", "v1", "services"};
constexpr Kind kDeployments{"apps", "v1", "deployments"};
constexpr Kind kReplicaSets{"apps", "v1", "replicasets"};
constexpr Kind kStatefulSets{"apps", "v1", "statefulsets"};
constexpr Kind kDaemonSets{"apps", "v1", "daemonsets"};
constexpr Kind kJobs{"batch", "v1", "jobs"};
constexpr Kind kCronJobs{"batch", "v1", "cronjobs"};
constexpr Kind kHpaV1{"autoscaling", "v1", "horizontalpodautoscalers"};
constexpr Kind kHpaV2{"autoscaling", "v2", "horizontalpodautoscalers"};
constexpr Kind kPdbs{"policy", "v1", "poddisruptionbudgets"};
constexpr Kind kNetworkPolicies{"networking.k8s.io", "v1", "networkpolicies"};
constexpr Kind kNamespaces{"", "v1", "namespaces"};
constexpr Kind kEvents{"", "v1", "events"};
constexpr Kind kServiceAccounts{"", "v1", "serviceaccounts"};
constexpr Kind kQuotas{"", "v1", "resourcequotas"};
constexpr Kind kWebhooks{"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"};

// Every metric source with its target, and the status the autoscaler writes.
constexpr const char* kHpa =
    R"json({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
  "metadata": {"name": "web"},
  "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
    "minReplicas": 1, "maxReplicas": 10,
    "metrics": [
      {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
      {"type": "ContainerResource", "containerResource": {"name": "memory", "container": "app",
        "target": {"type": "AverageValue", "averageValue": "200Mi"}}},
      {"type": "Pods", "pods": {"metric": {"name": "rps", "selector": {"matchLabels": {"a": "b"}}},
        "target": {"type": "AverageValue", "averageValue": "10"}}},
      {"type": "Object", "object": {"describedObject": {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "name": "web"},
        "metric": {"name": "hits"}, "target": {"type": "Value", "value": "100"}}},
      {"type": "External", "external": {"metric": {"name": "queue"}, "target": {"type": "Value", "value": "5"}}}],
    "behavior": {"scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "tolerance": "0.05",
                             "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]},
                 "scaleDown": {"policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}}},
  "status": {"observedGeneration": 1, "lastScaleTime": "2026-11-26T10:00:00Z", "currentReplicas": 2,
    "desiredReplicas": 3,
    "currentMetrics": [
      {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 80, "averageValue": "400m"}}},
      {"type": "ContainerResource", "containerResource": {"name": "memory", "container": "app", "current": {"averageValue": "150Mi"}}},
      {"type": "Pods", "pods": {"metric": {"name": "rps"}, "current": {"averageValue": "12"}}},
      {"type": "Object", "object": {"describedObject": {"kind": "Ingress", "name": "web", "apiVersion": "networking.k8s.io/v1"},
        "metric": {"name": "hits"}, "current": {"value": "90"}}},
      {"type": "External", "external": {"metric": {"name": "queue"}, "current": {"value": "4"}}}],
    "conditions": [{"type": "AbleToScale", "status": "True", "lastTransitionTime": "2026-11-26T10:00:00Z",
                    "reason": "ReadyForNewScale", "message": "m"}]}})json";

std::vector<std::string> unknown_in(const Kind& k, const bj::object& o) {
  return unknown_fields(known(k.group, k.version, k.resource), o);
}

bj::object rich_pod() {
  bj::object pod = with(parsed(pod_json("web")), "status", kPodStatus);
  pod["spec"].as_object()["ephemeralContainers"] = bj::parse(
      R"([{"name":"debug","image":"busybox:1","targetContainerName":"app","stdin":true,"tty":true,
           "securityContext":{"capabilities":{"add":["SYS_PTRACE"]}}}])");
  // Rarer fields: the pod's own resources, a node name, an image volume, a CSI and an ephemeral
  // volume, a cluster trust bundle, restart rules.
  bj::object& spec = pod["spec"].as_object();
  spec["resources"] = bj::parse(R"({"requests":{"cpu":"1"},"limits":{"cpu":"2"}})");
  spec["nodeName"] = "node-1";
  spec["hostUsers"] = false;
  spec["runtimeClassName"] = "runc";
  spec["overhead"] = bj::parse(R"({"cpu":"10m"})");
  spec["priorityClassName"] = "high";
  spec["volumes"].as_array().push_back(bj::parse(
      R"({"name":"img","image":{"reference":"registry/data:1","pullPolicy":"IfNotPresent"}})"));
  spec["volumes"].as_array().push_back(bj::parse(
      R"({"name":"csi","csi":{"driver":"csi.example.com","readOnly":true,"fsType":"ext4",
          "volumeAttributes":{"any":"thing"},"nodePublishSecretRef":{"name":"s"}}})"));
  spec["volumes"].as_array().push_back(bj::parse(
      R"({"name":"scratch","ephemeral":{"volumeClaimTemplate":{"metadata":{"labels":{"a":"b"}},
          "spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"fast",
                  "resources":{"requests":{"storage":"1Gi"}}}}}})"));
  spec["volumes"].as_array().push_back(bj::parse(
      R"({"name":"bundle","projected":{"sources":[{"clusterTrustBundle":{"signerName":"example.com/s",
          "labelSelector":{"matchLabels":{"a":"b"}},"optional":true,"path":"ca.pem"}}]}})"));
  spec["volumes"].as_array().push_back(
      bj::parse(R"({"name":"nfs","nfs":{"server":"nfs.local","path":"/x","readOnly":true}})"));
  bj::object& app = spec["containers"].as_array()[0].as_object();
  app["restartPolicy"] = "Always";
  app["restartPolicyRules"] =
      bj::parse(R"([{"action":"Restart","exitCodes":{"operator":"In","values":[42]}}])");
  app["volumeDevices"] = bj::parse(R"([{"name":"raw","devicePath":"/dev/xvda"}])");
  app["lifecycle"].as_object()["stopSignal"] = "SIGTERM";
  app["env"].as_array().push_back(bj::parse(
      R"({"name":"FROM_FILE","valueFrom":{"fileKeyRef":{"volumeName":"cache","path":"env","key":"K","optional":false}}})"));
  app["securityContext"].as_object()["windowsOptions"] =
      bj::parse(R"({"runAsUserName":"app","hostProcess":false})");
  app["securityContext"].as_object()["procMount"] = "Default";
  return pod;
}

constexpr const char* kDeploymentStatus =
    R"({"observedGeneration":3,"replicas":2,"updatedReplicas":2,"readyReplicas":2,"availableReplicas":2,
        "unavailableReplicas":0,"terminatingReplicas":0,"collisionCount":1,
        "conditions":[{"type":"Available","status":"True","lastUpdateTime":"2026-11-26T10:00:00Z",
                       "lastTransitionTime":"2026-11-26T10:00:00Z","reason":"MinimumReplicasAvailable",
                       "message":"Deployment has minimum availability."}]})";

bj::object workload(const char* api_version, const char* kind, const std::string& spec,
                    const std::string& status) {
  bj::object o{
      {"apiVersion", api_version}, {"kind", kind}, {"metadata", bj::object{{"name", "w"}}}};
  o["spec"] = bj::parse(spec);
  o["status"] = bj::parse(status);
  return o;
}

const std::string kSelector = R"("selector":{"matchLabels":{"app":"web"}})";

std::string stateful_set_spec() {
  return "{" + kSelector + R"(,"replicas":3,"serviceName":"web","podManagementPolicy":"Parallel",
      "updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":1,"maxUnavailable":1}},
      "revisionHistoryLimit":5,"minReadySeconds":2,"ordinals":{"start":1},
      "persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Delete","whenScaled":"Retain"},
      "volumeClaimTemplates":[{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data"},
        "spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"fast","volumeMode":"Filesystem",
                "resources":{"requests":{"storage":"1Gi"},"limits":{"storage":"2Gi"}},
                "selector":{"matchLabels":{"disk":"ssd"}},"volumeName":"pv-1",
                "dataSource":{"apiGroup":"snapshot.storage.k8s.io","kind":"VolumeSnapshot","name":"s"},
                "dataSourceRef":{"apiGroup":"snapshot.storage.k8s.io","kind":"VolumeSnapshot","name":"s","namespace":"default"},
                "volumeAttributesClassName":"gold"},
        "status":{"phase":"Pending"}}],
      "template":)" +
         template_json() + "}";
}

std::string job_spec() {
  return R"({"parallelism":2,"completions":4,"activeDeadlineSeconds":600,"backoffLimit":3,
      "backoffLimitPerIndex":1,"maxFailedIndexes":2,"completionMode":"Indexed","suspend":false,
      "ttlSecondsAfterFinished":60,"podReplacementPolicy":"Failed","manualSelector":false,
      "managedBy":"kubernetes.io/job-controller",
      "podFailurePolicy":{"rules":[{"action":"FailJob","onExitCodes":{"containerName":"app","operator":"In","values":[42]}},
                                   {"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget","status":"True"}]}]},
      "successPolicy":{"rules":[{"succeededIndexes":"0-1","succeededCount":1}]},
      "template":)" +
         template_json() + "}";
}

constexpr const char* kJobStatus =
    R"({"conditions":[{"type":"Complete","status":"True","lastProbeTime":"2026-11-26T10:00:00Z",
        "lastTransitionTime":"2026-11-26T10:00:00Z","reason":"CompletionsReached","message":"done"}],
        "startTime":"2026-11-26T09:00:00Z","completionTime":"2026-11-26T10:00:00Z","active":0,
        "succeeded":4,"failed":0,"terminating":0,"completedIndexes":"0-3","failedIndexes":"",
        "uncountedTerminatedPods":{"succeeded":["u1"],"failed":[]},"ready":0})";

constexpr const char* kWorkloadStatus =
    R"({"observedGeneration":1,"conditions":[{"type":"ReplicaFailure","status":"False",
        "lastTransitionTime":"2026-11-26T10:00:00Z","reason":"r","message":"m"}])";

std::string status_with(const std::string& counts) {
  return std::string(kWorkloadStatus) + "," + counts + "}";
}

bj::object rich_service() {
  return parsed(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},
      "spec":{"type":"LoadBalancer","selector":{"app":"web"},
              "ports":[{"name":"http","protocol":"TCP","appProtocol":"http","port":80,"targetPort":"http","nodePort":30080}],
              "clusterIP":"10.0.0.10","clusterIPs":["10.0.0.10"],"externalIPs":["1.2.3.4"],
              "sessionAffinity":"ClientIP","sessionAffinityConfig":{"clientIP":{"timeoutSeconds":600}},
              "loadBalancerSourceRanges":["0.0.0.0/0"],"externalTrafficPolicy":"Local","healthCheckNodePort":32000,
              "publishNotReadyAddresses":false,"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",
              "allocateLoadBalancerNodePorts":true,"loadBalancerClass":"example.com/lb",
              "internalTrafficPolicy":"Cluster","trafficDistribution":"PreferClose"},
      "status":{"loadBalancer":{"ingress":[{"ip":"5.6.7.8","hostname":"lb","ipMode":"VIP",
                                            "ports":[{"port":80,"protocol":"TCP","error":""}]}]},
                "conditions":[{"type":"Ready","status":"True","observedGeneration":1,
                               "lastTransitionTime":"2026-11-26T10:00:00Z","reason":"r","message":"m"}]}})");
}

TEST(KnownFields, WholeObjectsOfEveryKindHaveNoUnknownField) {
  struct Case {
    const char* name;
    Kind kind;
    bj::object object;
  };
  const std::vector<Case> cases = {
      {"pod with status", kPods, rich_pod()},
      {"deployment", kDeployments,
       with(parsed(deployment_json("web")), "status", kDeploymentStatus)},
      {"replicaset", kReplicaSets,
       workload("apps/v1", "ReplicaSet",
                "{" + kSelector + R"(,"replicas":2,"minReadySeconds":1,"template":)" +
                    template_json() + "}",
                status_with(R"("replicas":2,"fullyLabeledReplicas":2,"readyReplicas":2,
                    "availableReplicas":2,"terminatingReplicas":0)"))},
      {"statefulset", kStatefulSets,
       workload(
           "apps/v1", "StatefulSet", stateful_set_spec(),
           status_with(R"("replicas":3,"readyReplicas":3,"currentReplicas":3,"updatedReplicas":3,
                    "currentRevision":"web-1","updateRevision":"web-2","collisionCount":0,
                    "availableReplicas":3)"))},
      {"daemonset", kDaemonSets,
       workload("apps/v1", "DaemonSet",
                "{" + kSelector + R"(,"minReadySeconds":1,"revisionHistoryLimit":2,
                    "updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":0}},
                    "template":)" +
                    template_json() + "}",
                status_with(R"("currentNumberScheduled":1,"numberMisscheduled":0,
                    "desiredNumberScheduled":1,"numberReady":1,"updatedNumberScheduled":1,
                    "numberAvailable":1,"numberUnavailable":0,"collisionCount":0)"))},
      {"job", kJobs, workload("batch/v1", "Job", job_spec(), kJobStatus)},
      {"cronjob", kCronJobs,
       workload("batch/v1", "CronJob",
                R"({"schedule":"*/5 * * * *","timeZone":"Etc/UTC","startingDeadlineSeconds":30,
                    "concurrencyPolicy":"Forbid","suspend":false,"successfulJobsHistoryLimit":3,
                    "failedJobsHistoryLimit":1,"jobTemplate":{"metadata":{"labels":{"a":"b"}},"spec":)" +
                    job_spec() + "}}",
                R"({"active":[{"kind":"Job","namespace":"default","name":"w-1","uid":"u",
                    "apiVersion":"batch/v1","resourceVersion":"5"}],
                    "lastScheduleTime":"2026-11-26T10:00:00Z","lastSuccessfulTime":"2026-11-26T10:00:00Z"})")},
      {"service", kServices, rich_service()},
      {"node", kNodes, parsed(kNode)},
      {"hpa v2 with status", kHpaV2, parsed(kHpa)},
      {"hpa v1", kHpaV1,
       parsed(
           R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"w"},
           "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
                   "minReplicas":1,"maxReplicas":3,"targetCPUUtilizationPercentage":50},
           "status":{"observedGeneration":1,"lastScaleTime":"2026-11-26T10:00:00Z","currentReplicas":1,
                     "desiredReplicas":2,"currentCPUUtilizationPercentage":70}})")},
      {"pdb with status", kPdbs,
       parsed(R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"w"},
           "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}},"unhealthyPodEvictionPolicy":"AlwaysAllow"},
           "status":{"observedGeneration":1,"disruptedPods":{"web-1":"2026-11-26T10:00:00Z"},
                     "disruptionsAllowed":1,"currentHealthy":2,"desiredHealthy":1,"expectedPods":2,
                     "conditions":[{"type":"DisruptionAllowed","status":"True","observedGeneration":1,
                                    "lastTransitionTime":"2026-11-26T10:00:00Z","reason":"SufficientPods","message":""}]}})")},
      {"network policy", kNetworkPolicies,
       parsed(
           R"({"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"np"},
           "spec":{"podSelector":{"matchLabels":{"app":"web"}},"policyTypes":["Ingress","Egress"],
                   "ingress":[{"from":[{"podSelector":{},"namespaceSelector":{"matchExpressions":[
                                 {"key":"team","operator":"In","values":["a"]}]}}],
                               "ports":[{"protocol":"TCP","port":"http"}]}],
                   "egress":[{"to":[{"ipBlock":{"cidr":"10.0.0.0/8","except":["10.1.0.0/16"]}}],
                              "ports":[{"protocol":"UDP","port":30000,"endPort":32767}]}]}})")},
      {"namespace", kNamespaces,
       parsed(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n"},
           "spec":{"finalizers":["kubernetes"]},
           "status":{"phase":"Terminating","conditions":[{"type":"NamespaceDeletionContentFailure",
                     "status":"False","lastTransitionTime":"2026-11-26T10:00:00Z","reason":"r","message":"m"}]}})")},
      {"event", kEvents, parsed(R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},
           "involvedObject":{"kind":"Pod","namespace":"default","name":"web","uid":"u","apiVersion":"v1",
                             "resourceVersion":"1","fieldPath":"spec.containers{app}"},
           "reason":"Started","message":"m","source":{"component":"kubelet","host":"node-1"},
           "firstTimestamp":"2026-11-26T10:00:00Z","lastTimestamp":"2026-11-26T10:00:00Z","count":2,
           "type":"Normal","eventTime":null,"series":{"count":2,"lastObservedTime":"2026-11-26T10:00:00.000000Z"},
           "action":"Start","related":{"kind":"Node","name":"node-1"},
           "reportingComponent":"kubelet","reportingInstance":"node-1"})")},
      {"service account", kServiceAccounts,
       parsed(R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"s"},
           "secrets":[{"name":"token"}],"imagePullSecrets":[{"name":"registry"}],
           "automountServiceAccountToken":false})")},
      {"resource quota", kQuotas,
       parsed(R"({"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},
           "spec":{"hard":{"requests.cpu":"4"},"scopes":["NotTerminating"],
                   "scopeSelector":{"matchExpressions":[{"scopeName":"PriorityClass","operator":"In","values":["high"]}]}},
           "status":{"hard":{"requests.cpu":"4"},"used":{"requests.cpu":"1"}}})")},
      {"mutating webhook configuration", kWebhooks,
       parsed(
           R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration",
           "metadata":{"name":"m"},
           "webhooks":[{"name":"m.example.com","admissionReviewVersions":["v1"],"sideEffects":"None",
             "clientConfig":{"service":{"namespace":"default","name":"hook","path":"/mutate","port":443},"caBundle":"Cg=="},
             "rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"],"scope":"*"}],
             "failurePolicy":"Fail","matchPolicy":"Equivalent","timeoutSeconds":5,"reinvocationPolicy":"Never",
             "namespaceSelector":{"matchLabels":{"a":"b"}},"objectSelector":{},
             "matchConditions":[{"name":"c","expression":"true"}]}]})")},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(unknown_in(c.kind, c.object), std::vector<std::string>{}) << c.name;
  }
}

// Typos below the levels the first tables listed: each is reported where it starts (what is
// below is not looked at) and dropped, the rest of the object kept.
TEST(KnownFields, TyposDeepInObjectsAreReportedAndDropped) {
  struct Case {
    const char* name;
    Kind kind;
    std::string path_json;  // {"a":{"b":...}} merged into the rich object
    std::vector<std::string> unknown;
  };
  const std::vector<Case> cases = {
      {"pod security context",
       kPods,
       R"({"spec":{"securityContext":{"runAsUsr":1}}})",
       {"spec.securityContext.runAsUsr"}},
      {"container security context",
       kPods,
       R"({"spec":{"containers":[{"name":"a","securityContext":{"capabilities":{"ad":["X"]}}}]}})",
       {"spec.containers[0].securityContext.capabilities.ad"}},
      {"probe handler",
       kPods,
       R"({"spec":{"containers":[{"name":"a","livenessProbe":{"httpGet":{"paht":"/"}}}]}})",
       {"spec.containers[0].livenessProbe.httpGet.paht"}},
      {"lifecycle",
       kPods,
       R"({"spec":{"containers":[{"name":"a","lifecycle":{"preStop":{"sleep":{"second":5}}}}]}})",
       {"spec.containers[0].lifecycle.preStop.sleep.second"}},
      {"env valueFrom",
       kPods,
       R"({"spec":{"containers":[{"name":"a","env":[{"name":"X","valueFrom":{"fieldRef":{"fieldpath":"x"}}}]}]}})",
       {"spec.containers[0].env[0].valueFrom.fieldRef.fieldpath"}},
      {"envFrom",
       kPods,
       R"({"spec":{"containers":[{"name":"a","envFrom":[{"configMapRef":{"nmae":"c"}}]}]}})",
       {"spec.containers[0].envFrom[0].configMapRef.nmae"}},
      {"volume source",
       kPods,
       R"({"spec":{"volumes":[{"name":"v","configMap":{"name":"c","itmes":[]}},{"name":"w","emptyDir":{"sizelimit":"1Gi"}}]}})",
       {"spec.volumes[0].configMap.itmes", "spec.volumes[1].emptyDir.sizelimit"}},
      {"projected source",
       kPods,
       R"({"spec":{"volumes":[{"name":"v","projected":{"sources":[{"serviceAccountToken":{"audiences":"a"}}]}}]}})",
       {"spec.volumes[0].projected.sources[0].serviceAccountToken.audiences"}},
      {"unknown volume source",
       kPods,
       R"({"spec":{"volumes":[{"name":"v","emptydir":{}}]}})",
       {"spec.volumes[0].emptydir"}},
      {"node affinity",
       kPods,
       R"({"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operater":"In"}]}]}}}}})",
       {"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[0].matchExpressions[0].operater"}},
      {"pod anti affinity",
       kPods,
       R"({"spec":{"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":{"topologykey":"z"}}]}}}})",
       {"spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
        "podAffinityTerm.topologykey"}},
      {"toleration",
       kPods,
       R"({"spec":{"tolerations":[{"key":"k","tolerationSecond":5}]}})",
       {"spec.tolerations[0].tolerationSecond"}},
      {"topology spread selector",
       kPods,
       R"({"spec":{"topologySpreadConstraints":[{"maxSkew":1,"labelSelector":{"matchLabel":{"a":"b"}}}]}})",
       {"spec.topologySpreadConstraints[0].labelSelector.matchLabel"}},
      {"dns config",
       kPods,
       R"({"spec":{"dnsConfig":{"nameserver":["1.1.1.1"]}}})",
       {"spec.dnsConfig.nameserver"}},
      {"gates, os, claims",
       kPods,
       R"({"spec":{"readinessGates":[{"conditiontype":"x"}],"os":{"nmae":"linux"},
           "schedulingGates":[{"gate":"g"}],"resourceClaims":[{"name":"g","claimName":"c"}]}})",
       {"spec.readinessGates[0].conditiontype", "spec.os.nmae", "spec.schedulingGates[0].gate",
        "spec.resourceClaims[0].claimName"}},
      {"pod status",
       kPods,
       R"({"status":{"podIp":"x","containerStatuses":[{"name":"a","state":{"running":{"startAt":"t"}}}]}})",
       {"status.podIp", "status.containerStatuses[0].state.running.startAt"}},
      {"deployment status",
       kDeployments,
       R"({"status":{"readyReplica":1}})",
       {"status.readyReplica"}},
      {"deployment selector",
       kDeployments,
       R"({"spec":{"selector":{"matchExpression":[]}}})",
       {"spec.selector.matchExpression"}},
      {"template pod spec",
       kDeployments,
       R"({"spec":{"template":{"spec":{"volumes":[{"name":"v","secret":{"name":"s"}}]}}}})",
       {"spec.template.spec.volumes[0].secret.name"}},
      {"statefulset claim template",
       kStatefulSets,
       R"({"spec":{"volumeClaimTemplates":[{"metadata":{"name":"d"},"spec":{"storageclass":"x"}}]}})",
       {"spec.volumeClaimTemplates[0].spec.storageclass"}},
      {"job failure policy",
       kJobs,
       R"({"spec":{"podFailurePolicy":{"rules":[{"action":"Ignore","onExitCode":{}}]}}})",
       {"spec.podFailurePolicy.rules[0].onExitCode"}},
      {"cronjob job template",
       kCronJobs,
       R"({"spec":{"jobTemplate":{"spec":{"template":{"spec":{"tolerations":[{"efect":"NoSchedule"}]}}}}}})",
       {"spec.jobTemplate.spec.template.spec.tolerations[0].efect"}},
      {"service status",
       kServices,
       R"({"status":{"loadBalancer":{"ingress":[{"ipmode":"VIP"}]}}})",
       {"status.loadBalancer.ingress[0].ipmode"}},
      {"node status",
       kNodes,
       R"({"status":{"nodeInfo":{"kubeletversion":"v1"},"conditions":[{"type":"Ready","lastHeartBeatTime":"t"}]}})",
       {"status.nodeInfo.kubeletversion", "status.conditions[0].lastHeartBeatTime"}},
      {"hpa metric status",
       kHpaV2,
       R"({"status":{"currentMetrics":[{"type":"Resource","resource":{"name":"cpu","current":{"averageUtilisation":1}}}]}})",
       {"status.currentMetrics[0].resource.current.averageUtilisation"}},
      {"pdb status", kPdbs, R"({"status":{"disruptionAllowed":1}})", {"status.disruptionAllowed"}},
      {"network policy peer",
       kNetworkPolicies,
       R"({"spec":{"ingress":[{"from":[{"ipBlock":{"cidr":"10.0.0.0/8","excepts":[]}}]}]}})",
       {"spec.ingress[0].from[0].ipBlock.excepts"}},
      {"event source",
       kEvents,
       R"({"source":{"component":"c","hostname":"h"}})",
       {"source.hostname"}},
      {"webhook client config",
       kWebhooks,
       R"({"webhooks":[{"name":"w","clientConfig":{"service":{"name":"s","prot":1}}}]})",
       {"webhooks[0].clientConfig.service.prot"}},
      {"owner reference",
       kNodes,
       R"({"metadata":{"ownerReferences":[{"kind":"X","controler":true}]}})",
       {"metadata.ownerReferences[0].controler"}},
  };
  for (const Case& c : cases) {
    bj::object o = parsed(c.path_json);
    EXPECT_EQ(unknown_in(c.kind, o), c.unknown) << c.name;
    drop_unknown_fields(known(c.kind.group, c.kind.version, c.kind.resource), o);
    EXPECT_EQ(unknown_in(c.kind, o), std::vector<std::string>{}) << c.name;
  }
}

struct InTreeSource {
  const char* source;
  const char* fields;  // the source's JSON with every field of its core/v1 struct
};

const std::vector<InTreeSource>& in_tree_sources() {
  static const std::vector<InTreeSource> cases = {
      {"gcePersistentDisk", R"({"pdName":"d","fsType":"ext4","partition":1,"readOnly":true})"},
      {"awsElasticBlockStore", R"({"volumeID":"v","fsType":"ext4","partition":1,"readOnly":true})"},
      {"gitRepo", R"({"repository":"https://x/r.git","revision":"abc","directory":"."})"},
      {"iscsi",
       R"({"targetPortal":"10.0.0.1:3260","iqn":"iqn.x","lun":0,"iscsiInterface":"default",
           "fsType":"ext4","readOnly":true,"portals":["10.0.0.2"],"chapAuthDiscovery":true,
           "chapAuthSession":true,"secretRef":{"name":"s"},"initiatorName":"iqn.i"})"},
      {"glusterfs", R"({"endpoints":"e","path":"p","readOnly":true})"},
      {"rbd",
       R"({"monitors":["m"],"image":"i","fsType":"ext4","pool":"rbd","user":"admin",
           "keyring":"/etc/ceph/keyring","secretRef":{"name":"s"},"readOnly":true})"},
      {"flexVolume",
       R"({"driver":"d","fsType":"ext4","secretRef":{"name":"s"},"readOnly":true,
           "options":{"any":"thing"}})"},
      {"cinder", R"({"volumeID":"v","fsType":"ext4","readOnly":true,"secretRef":{"name":"s"}})"},
      {"cephfs",
       R"({"monitors":["m"],"path":"/","user":"admin","secretFile":"/etc/ceph/user.secret",
           "secretRef":{"name":"s"},"readOnly":true})"},
      {"flocker", R"({"datasetName":"n","datasetUUID":"u"})"},
      {"fc", R"({"targetWWNs":["w"],"lun":1,"fsType":"ext4","readOnly":true,"wwids":["i"]})"},
      {"azureFile", R"({"secretName":"s","shareName":"share","readOnly":true})"},
      {"vsphereVolume",
       R"({"volumePath":"[ds] v.vmdk","fsType":"ext4","storagePolicyName":"gold",
           "storagePolicyID":"id"})"},
      {"quobyte",
       R"({"registry":"r:7861","volume":"v","readOnly":true,"user":"u","group":"g","tenant":"t"})"},
      {"azureDisk",
       R"({"diskName":"d","diskURI":"https://x/d.vhd","cachingMode":"ReadWrite","fsType":"ext4",
           "readOnly":false,"kind":"Shared"})"},
      {"photonPersistentDisk", R"({"pdID":"p","fsType":"ext4"})"},
      {"portworxVolume", R"({"volumeID":"v","fsType":"ext4","readOnly":true})"},
      {"scaleIO",
       R"({"gateway":"https://g","system":"s","secretRef":{"name":"s"},"sslEnabled":true,
           "protectionDomain":"pd","storagePool":"sp","storageMode":"ThinProvisioned",
           "volumeName":"v","fsType":"xfs","readOnly":true})"},
      {"storageos",
       R"({"volumeName":"v","volumeNamespace":"default","fsType":"ext4","readOnly":true,
           "secretRef":{"name":"s"}})"},
  };
  return cases;
}

// The in-tree volume sources, each with every field set: none is unknown, so dropping unknown
// fields keeps them all; a misspelt field of each is unknown.
TEST(KnownFields, InTreeVolumeSourcesKeepEveryField) {
  for (const InTreeSource& c : in_tree_sources()) {
    bj::object volume{{"name", "v"}, {c.source, bj::parse(c.fields)}};
    bj::object pod = parsed(R"({"spec":{"volumes":[]}})");
    pod["spec"].as_object()["volumes"].as_array().push_back(volume);
    EXPECT_EQ(unknown_in(kPods, pod), std::vector<std::string>{}) << c.source;
    bj::object kept = pod;
    drop_unknown_fields(known(kPods.group, kPods.version, kPods.resource), kept);
    EXPECT_EQ(kept, pod) << c.source;

    pod["spec"].as_object()["volumes"].as_array()[0].as_object()[c.source].as_object()["redOnly"] =
        true;
    EXPECT_EQ(unknown_in(kPods, pod),
              std::vector<std::string>{std::string("spec.volumes[0].") + c.source + ".redOnly"})
        << c.source;
  }
}

// Maps and open-ended parts stay open: any key under labels, annotations, nodeSelector, resource
// lists, a ConfigMap's data, a CSI volume's attributes, managedFields' fieldsV1.
TEST(KnownFields, MapsStayOpen) {
  bj::object pod = rich_pod();
  pod["metadata"].as_object()["labels"].as_object()["anything.example.com/x"] = "1";
  pod["spec"].as_object()["nodeSelector"].as_object()["whatever"] = "y";
  pod["spec"]
      .as_object()["containers"]
      .as_array()[0]
      .as_object()["resources"]
      .as_object()["limits"]
      .as_object()["example.com/gpu"] = "1";
  EXPECT_EQ(unknown_in(kPods, pod), std::vector<std::string>{});
  EXPECT_EQ(unknown_in(kNodes, parsed(kNode)), std::vector<std::string>{});
}

// Every member of `posted` is in `stored` with the same value (lists element by element, objects
// member by member); "" or the first path that differs.
std::string first_difference(const bj::value& posted, const bj::value& stored,
                             const std::string& path = "") {
  if (posted.is_object() && stored.is_object()) {
    for (const auto& [key, value] : posted.as_object()) {
      const bj::value* s = stored.as_object().if_contains(key);
      std::string at = path + "." + std::string(key);
      if (!s) return at + " (missing)";
      if (std::string d = first_difference(value, *s, at); !d.empty()) return d;
    }
    return "";
  }
  if (posted.is_array() && stored.is_array()) {
    if (posted.as_array().size() != stored.as_array().size()) return path + " (length)";
    for (std::size_t i = 0; i < posted.as_array().size(); ++i) {
      std::string d = first_difference(posted.as_array()[i], stored.as_array()[i],
                                       path + "[" + std::to_string(i) + "]");
      if (!d.empty()) return d;
    }
    return "";
  }
  return posted == stored ? ""
                          : path + ": " + bj::serialize(posted) + " != " + bj::serialize(stored);
}

class KnownFieldsApiTest : public ApiOnlyRawHttpTest {};

// Strict creates of the whole Pod and Deployment succeed and keep every field; so does a Strict
// update of what was read back (defaults and all), and the node agent's status patches.
TEST_F(KnownFieldsApiTest, WholeObjectsRoundTripUnderStrict) {
  struct Case {
    const char* collection;
    std::string body;
    const char* object;
  };
  const std::vector<Case> cases = {
      {"/api/v1/namespaces/default/pods", pod_json("web"), "/api/v1/namespaces/default/pods/web"},
      {"/apis/apps/v1/namespaces/default/deployments", deployment_json("web"),
       "/apis/apps/v1/namespaces/default/deployments/web"},
  };
  for (const Case& c : cases) {
    kube::http::ClientResponse created = send(
        "POST", std::string(c.collection) + "?fieldValidation=Strict", "application/json", c.body);
    ASSERT_EQ(created.status, 201) << created.body;
    EXPECT_EQ(first_difference(bj::parse(c.body), bj::parse(created.body)), "") << c.object;
    kube::http::ClientResponse read = send("GET", c.object, "", "");
    ASSERT_EQ(read.status, 200);
    EXPECT_EQ(first_difference(bj::parse(c.body), bj::parse(read.body)), "") << c.object;
    kube::http::ClientResponse updated = send(
        "PUT", std::string(c.object) + "?fieldValidation=Strict", "application/json", read.body);
    EXPECT_EQ(updated.status, 200) << updated.body;
  }
  // The node agent's pod status (a strategic merge patch of pods/status): all of it is kept.
  std::string status_patch = std::string(R"({"status":)") + kPodStatus + "}";
  kube::http::ClientResponse patched =
      send("PATCH", "/api/v1/namespaces/default/pods/web/status?fieldValidation=Strict",
           "application/strategic-merge-patch+json", status_patch);
  ASSERT_EQ(patched.status, 200) << patched.body;
  bj::value want = bj::parse(status_patch);
  // null members of a strategic merge patch delete; they are not stored.
  bj::object& app_state =
      want.at("status").at("initContainerStatuses").as_array()[0].as_object()["state"].as_object();
  app_state.erase("waiting");
  app_state.erase("terminated");
  want.at("status").at("conditions").as_array()[0].as_object().erase("lastProbeTime");
  want.at("status").at("containerStatuses").as_array()[1].as_object().erase("containerID");
  EXPECT_EQ(first_difference(want, bj::parse(patched.body)), "");
}

// A Strict create of a pod with every in-tree volume source (every field set) stores them all.
TEST_F(KnownFieldsApiTest, InTreeVolumeSourcesRoundTripUnderStrict) {
  bj::object pod = parsed(pod_json("disks"));
  bj::array& volumes = pod["spec"].as_object()["volumes"].as_array();
  for (const InTreeSource& c : in_tree_sources()) {
    volumes.push_back(
        bj::object{{"name", std::string("v-") + c.source}, {c.source, bj::parse(c.fields)}});
  }
  std::string body = bj::serialize(pod);
  kube::http::ClientResponse created = send(
      "POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict", "application/json", body);
  ASSERT_EQ(created.status, 201) << created.body;
  kube::http::ClientResponse read = send("GET", "/api/v1/namespaces/default/pods/disks", "", "");
  ASSERT_EQ(read.status, 200);
  EXPECT_EQ(first_difference(bj::parse(body), bj::parse(read.body)), "");
}

// The other kinds: a Strict create keeps the whole spec, a Strict update of the status
// subresource the whole status (as their controllers write it).
TEST_F(KnownFieldsApiTest, WorkloadsServicesAndAutoscalersKeepEveryField) {
  std::string job_template_spec = job_spec();
  // A Job's pods are not restarted: the pod's restart policy (not the sidecar's) is Never.
  const std::string always = R"("restartPolicy": "Always", "terminationGracePeriodSeconds")";
  job_template_spec.replace(job_template_spec.find(always), always.size(),
                            R"("restartPolicy": "Never", "terminationGracePeriodSeconds")");
  struct Case {
    const char* collection;
    bj::object object;
  };
  const std::vector<Case> cases = {
      {"/apis/apps/v1/namespaces/default/statefulsets",
       workload("apps/v1", "StatefulSet", stateful_set_spec(),
                status_with(R"("replicas":3,"readyReplicas":3,"currentReplicas":3,
                    "updatedReplicas":3,"currentRevision":"w-1","updateRevision":"w-2",
                    "collisionCount":0,"availableReplicas":3)"))},
      {"/apis/apps/v1/namespaces/default/daemonsets",
       workload("apps/v1", "DaemonSet",
                "{" + kSelector + R"(,"minReadySeconds":1,"revisionHistoryLimit":2,
                    "updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":0}},
                    "template":)" +
                    template_json() + "}",
                status_with(R"("currentNumberScheduled":1,"numberMisscheduled":0,
                    "desiredNumberScheduled":1,"numberReady":1,"updatedNumberScheduled":1,
                    "numberAvailable":1,"numberUnavailable":0,"collisionCount":0)"))},
      {"/apis/batch/v1/namespaces/default/jobs",
       workload("batch/v1", "Job", job_template_spec, kJobStatus)},
      {"/apis/batch/v1/namespaces/default/cronjobs",
       workload("batch/v1", "CronJob",
                R"({"schedule":"*/5 * * * *","timeZone":"Etc/UTC","startingDeadlineSeconds":30,
                    "concurrencyPolicy":"Forbid","suspend":true,"successfulJobsHistoryLimit":3,
                    "failedJobsHistoryLimit":1,"jobTemplate":{"metadata":{"labels":{"a":"b"}},"spec":)" +
                    job_template_spec + "}}",
                R"({"active":[{"kind":"Job","namespace":"default","name":"w-1","uid":"u",
                    "apiVersion":"batch/v1","resourceVersion":"5"}],
                    "lastScheduleTime":"2026-11-26T10:00:00Z","lastSuccessfulTime":"2026-11-26T10:00:00Z"})")},
      {"/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
       with(parsed(kHpa), "metadata", R"({"name":"w"})")},
      {"/api/v1/namespaces/default/services", with(rich_service(), "metadata", R"({"name":"w"})")},
  };
  for (const Case& c : cases) {
    bj::object spec_only = c.object;
    spec_only.erase("status");
    kube::http::ClientResponse created =
        send("POST", std::string(c.collection) + "?fieldValidation=Strict", "application/json",
             bj::serialize(spec_only));
    ASSERT_EQ(created.status, 201) << c.collection << ": " << created.body;
    bj::value stored = bj::parse(created.body);
    EXPECT_EQ(first_difference(spec_only, stored), "") << c.collection;
    stored.as_object()["status"] = c.object.at("status");
    kube::http::ClientResponse updated =
        send("PUT", std::string(c.collection) + "/w/status?fieldValidation=Strict",
             "application/json", bj::serialize(stored));
    ASSERT_EQ(updated.status, 200) << c.collection << ": " << updated.body;
    EXPECT_EQ(first_difference(c.object.at("status"), bj::parse(updated.body).at("status")), "")
        << c.collection;
  }
}

TEST_F(KnownFieldsApiTest, NodeAgentNodeDocumentAndStatusPatchAreKept) {
  kube::http::ClientResponse created =
      send("POST", "/api/v1/nodes?fieldValidation=Strict", "application/json", kNode);
  ASSERT_EQ(created.status, 201) << created.body;
  bj::value node = bj::parse(kNode);
  node.at("spec").at("taints").as_array()[0].as_object().erase("timeAdded");  // null: unset
  EXPECT_EQ(first_difference(node.at("status"), bj::parse(created.body).at("status")), "");
  std::string status = bj::serialize(bj::object{{"status", node.at("status")}});
  kube::http::ClientResponse patched =
      send("PATCH", "/api/v1/nodes/node-1/status?fieldValidation=Strict",
           "application/strategic-merge-patch+json", status);
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(first_difference(node.at("status"), bj::parse(patched.body).at("status")), "");
}

// A typo deep in a pod spec: Strict's 400 names it, Warn warns and Ignore stores the object
// without it — never stored.
TEST_F(KnownFieldsApiTest, DeepTyposAreNeverStored) {
  std::string body = pod_json("typo");
  body.replace(body.find(R"("tolerationSeconds")"), 0, R"("tolerationSecond": 1, )");
  kube::http::ClientResponse strict = send(
      "POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict", "application/json", body);
  EXPECT_EQ(strict.status, 400);
  EXPECT_EQ(bj::parse(strict.body).at("message").as_string(),
            "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown "
            "field \"spec.tolerations[1].tolerationSecond\"");
  for (const char* mode : {"Warn", "Ignore"}) {
    std::string named = body;
    named.replace(named.find(R"("typo")"), 6,
                  std::string("\"typo-") + (mode[0] == 'W' ? "w" : "i") + "\"");
    kube::http::ClientResponse r =
        send("POST", std::string("/api/v1/namespaces/default/pods?fieldValidation=") + mode,
             "application/json", named);
    ASSERT_EQ(r.status, 201) << r.body;
    bool warned = false;
    for (const auto& [name, value] : r.headers) {
      warned |= name == "Warning" &&
                value == "299 - \"unknown field \\\"spec.tolerations[1].tolerationSecond\\\"\"";
    }
    EXPECT_EQ(warned, std::string(mode) == "Warn");
    bj::value stored = bj::parse(r.body);
    const bj::object& toleration = stored.at("spec").at("tolerations").as_array()[1].as_object();
    EXPECT_EQ(toleration.if_contains("tolerationSecond"), nullptr) << mode;
    EXPECT_EQ(toleration.at("tolerationSeconds"), 300) << mode;
  }
}

class KnownFieldsKubectlTest : public ApiOnlyKubectlTest {};

// kubectl validates strictly by default: applying the whole Deployment and Pod, then re-applying
// them changed (a strategic merge patch of the whole object), succeeds and keeps every field.
TEST_F(KnownFieldsKubectlTest, ApplyWholeDeploymentAndPod) {
  struct Case {
    const char* file;
    std::string manifest;
    const char* get;
    const char* created;
    const char* configured;
  };
  const std::vector<Case> cases = {
      {"deploy.json", deployment_json("web"), "deployment web", "deployment.apps/web created\n",
       "deployment.apps/web configured\n"},
      {"pod.json", pod_json("web"), "pod web", "pod/web created\n", "pod/web configured\n"},
  };
  for (const Case& c : cases) {
    KubectlResult applied = kubectl(std::string("apply -f ") + write(c.file, c.manifest));
    ASSERT_EQ(applied.exit_code, 0) << applied.err;
    EXPECT_EQ(applied.err, "");
    EXPECT_EQ(applied.out, c.created);
    KubectlResult got = kubectl(std::string("get ") + c.get + " -o json");
    ASSERT_EQ(got.exit_code, 0) << got.err;
    EXPECT_EQ(first_difference(bj::parse(c.manifest), bj::parse(got.out)), "") << c.file;

    bj::value changed = bj::parse(c.manifest);
    changed.at("metadata").as_object()["annotations"] = bj::object{{"changed", "yes"}};
    KubectlResult again = kubectl(std::string("apply -f ") + write(c.file, bj::serialize(changed)));
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.err, "");
    EXPECT_EQ(again.out, c.configured);
    got = kubectl(std::string("get ") + c.get + " -o json");
    EXPECT_EQ(first_difference(changed, bj::parse(got.out)), "") << c.file;
  }
}

}  // namespace
}  // namespace tailor::embedded::testing
