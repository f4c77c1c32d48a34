// Embedded mode (tailor-cluster nodes, no kubelet): the node agent runs the pods bound to its node
// through the CRI, as the kubelet's pod workers do. One sandbox per pod (a network namespace of
// its own, set up by the runtime's CNI plugins, or the node's for hostNetwork pods; pod cgroup
// parent named as the kubelet names it), one container per spec container with the
// resources the node allocated, images resolved locally only (a missing image is a pull failure,
// never a pull), restarts by restartPolicy with the kubelet's back-off, and the pod status the
// kubelet owns. The resize status writer owns allocatedResources, resources and the PodResize*
// conditions: conditions merge by type, and containerStatuses (an atomic list in the API) is
// written whole with the resize writer's fields copied from the pod as read, under a
// resourceVersion precondition (re-read and rebuilt on conflict), so neither writer clobbers
// the other.
//
// The Pod model carries only what resizing needs; what running a container needs (command, args,
// env, grace period) is decoded separately into PodRunSpec from the same JSON, see RuntimePod.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kube/model/pod.h"
#include "node-agent/cri/cgroup_values.h"
#include "node-agent/cri/container_restarter.h"
#include "node-agent/cri/cri_client.h"
#include "node-agent/cri/pod_cgroup.h"
#include "node-agent/runtime/pod_dns.h"
#include "node-agent/runtime/security_context.h"

namespace tailor::kube {
class RestClient;
}

namespace tailor::node::runtime {

// One env entry: a literal value (with $(VAR) references) or a field of the pod (fieldRef).
struct EnvVarSpec {
  std::string name{};
  std::string value{};
  std::string field_path{};   // "" : the literal value
  std::string unsupported{};  // a valueFrom source this node does not resolve, e.g.
                              // "valueFrom.secretKeyRef"
};

// A volumeMount of a container.
struct VolumeMountSpec {
  std::string name{};
  std::string mount_path{};
  bool read_only = false;
};

// What a projected file source (or a secret, configMap or downwardAPI volume, each a projection
// of one source) puts in the volume.
struct KeyToPath {
  std::string key{};  // a data key, or the fieldPath of a downward API item
  std::string path{};
};
struct ProjectionSource {
  enum class Kind { ServiceAccountToken, ConfigMap, Secret, DownwardAPI };
  Kind kind = Kind::ConfigMap;
  std::string name{};              // the ConfigMap's or Secret's
  std::vector<KeyToPath> items{};  // empty: every key, under its own name
  bool optional = false;
  std::string token_path{};
  std::int64_t token_expiration_seconds = 3600;
  std::string token_audience{};  // "" : the API server's
};

struct VolumeSpec {
  enum class Kind { HostPath, EmptyDir, Files, Unsupported };
  std::string name{};
  Kind kind = Kind::Unsupported;
  std::string host_path{};       // HostPath
  std::string host_path_type{};  // "", Directory, DirectoryOrCreate, File, FileOrCreate, Socket
  std::vector<ProjectionSource> sources{};  // Files
  std::uint32_t default_mode = 0644;
  std::string unsupported{};  // the source's key, for the error
};

// A probe: httpGet or tcpSocket (its port resolved, a named port through the container's ports)
// or exec.
struct ProbeSpec {
  enum class Kind { HttpGet, TcpSocket, Exec };
  Kind kind = Kind::HttpGet;
  std::string host{};  // "" : the pod's IP, as the kubelet dials
  std::string path = "/";
  int port = 0;
  std::vector<std::string> command{};  // exec
  std::int64_t initial_delay_seconds = 0;
  std::int64_t period_seconds = 10;
  std::int64_t timeout_seconds = 1;
  std::int64_t success_threshold = 1;
  std::int64_t failure_threshold = 3;
};

// What a container needs to run beyond the Pod model.
struct ContainerRunSpec {
  std::string name{};
  std::vector<std::string> command{};
  std::vector<std::string> args{};
  std::vector<EnvVarSpec> env{};
  std::vector<VolumeMountSpec> mounts{};
  std::optional<ProbeSpec> readiness{};  // a grpc probe is not run here
  std::optional<ProbeSpec> liveness{};
  std::string image_pull_policy{};  // informational: images are never pulled here
  SecurityIdentity security{};      // the container's securityContext
};

struct PodRunSpec {
  std::vector<ContainerRunSpec> containers{};
  std::vector<VolumeSpec> volumes{};
  std::string service_account_name{};
  bool enable_service_links = true;  // spec.enableServiceLinks (default true)
  std::int64_t termination_grace_period_seconds = 30;
  SecurityIdentity security{};  // the pod's securityContext
  bool host_network = false;    // spec.hostNetwork: the sandbox shares the node's network
  std::string dns_policy{};     // spec.dnsPolicy ("" : ClusterFirst)
  std::optional<PodDnsConfig> dns_config{};  // spec.dnsConfig
};

// A pod as the embedded runtime sees it: the model plus the run spec, decoded from one JSON.
struct RuntimePod {
  kube::Pod pod{};
  PodRunSpec run{};
};

// Both from one pod JSON; throws DecodeError naming the path on bad input.
PodRunSpec decode_pod_run_spec(std::string_view pod_json);
RuntimePod decode_runtime_pod(std::string_view pod_json);

// The resources the node allocated to each container of a pod, by container name (from the
// allocation manager's checkpoint).
using PodAllocation = std::map<std::string, cri::ResourceAmounts, std::less<>>;

// The API-server edge of the pod runtime.
class PodApi {
 public:
  virtual ~PodApi() = default;
  // A strategic merge patch of pods/<name>/status carrying metadata.resourceVersion as a
  // precondition; false when the pod changed since (409), so the caller re-reads and rebuilds.
  virtual bool patch_pod_status(const kube::Pod& pod, const std::string& patch) = 0;
  // The pod as stored now; nullopt when it is gone.
  virtual std::optional<kube::Pod> get_pod(const kube::Pod& pod) = 0;
  // The final delete of a terminated pod: grace period 0, preconditioned on its uid.
  virtual void delete_pod(const kube::Pod& pod) = 0;
  // A ConfigMap's or Secret's data (values as stored: a Secret's base64); nullopt when it does
  // not exist. `resource`: "configmaps" or "secrets".
  virtual std::optional<std::map<std::string, std::string>> get_data(const std::string& resource,
                                                                     const std::string& ns,
                                                                     const std::string& name) = 0;
  // A token of the pod's ServiceAccount bound to the pod (TokenRequest), for `audience` (""
  // : the API server's).
  virtual std::string request_token(const kube::Pod& pod, const std::string& service_account,
                                    const std::string& audience,
                                    std::int64_t expiration_seconds) = 0;
};

// PodApi over a RestClient; the RestClient must outlive it.
std::unique_ptr<PodApi> rest_pod_api(kube::RestClient& client);

// A Service's ClusterIP and its first port.
struct ServiceAddress {
  std::string host{};
  std::uint16_t port = 0;
};
// default/kubernetes through `client` (GET): nullopt when it does not exist.
std::optional<ServiceAddress> read_kubernetes_service(kube::RestClient& client);

// What a Service gives containers' environments (the kubelet's envvars.FromServices): its name,
// ClusterIP ("" or "None": nothing) and ports in order.
struct ServiceLinkPort {
  std::string name{};
  std::uint16_t port = 0;
  std::string protocol = "TCP";
};
struct ServiceLink {
  std::string name{};
  std::string cluster_ip{};
  std::vector<ServiceLinkPort> ports{};
};
// The Services of namespace `ns` through `client` (LIST), in the API's order.
std::vector<ServiceLink> read_namespace_services(kube::RestClient& client, const std::string& ns);

// One httpGet probe: true when the answer is a success (2xx, 3xx) within the timeout.
using ProbeGet = std::function<bool(const std::string& host, int port, const std::string& path,
                                    std::chrono::seconds timeout)>;
// One tcpSocket probe: true when a connection opens within the timeout.
using ProbeDial =
    std::function<bool(const std::string& host, int port, std::chrono::seconds timeout)>;

struct PodRuntimeOptions {
  std::string node_name{};
  std::string host_ip = "127.0.0.1";  // also the pod IP of hostNetwork pods
  cri::CgroupLayout cgroups{};
  cri::CgroupDriver driver = cri::CgroupDriver::Cgroupfs;
  std::string log_root = "/var/log/pods";
  // Where pods' volumes are made: <volume_root>/<uid>/volumes/<name> (the kubelet's
  // <root-dir>/pods).
  std::string volume_root = "/var/lib/tailor-node-agent/pods";
  // Where hostPath volumes' paths live (--host-path-root): empty, the host's root; else a
  // directory standing for this node's root, so that nodes sharing one machine each give a
  // hostPath (the CRI socket, checkpoint and certificate directories) their own files. Links
  // inside it are followed (the type check and the bind mount both resolve them).
  std::string host_path_root{};
  // The API server as pods reach it (KUBERNETES_SERVICE_HOST/PORT) when `kubernetes_service` is
  // unset: the address the agent itself uses. Empty host: not set.
  std::string api_host{};
  std::uint16_t api_port = 443;
  // The `kubernetes` Service of the default namespace, read for each container as the kubelet
  // reads it from its Service lister: KUBERNETES_SERVICE_HOST/PORT are its ClusterIP and port.
  // nullopt: no such Service (no variables); throws when it cannot be read
  // (CreateContainerConfigError). Unset: api_host/api_port.
  std::function<std::optional<ServiceAddress>()> kubernetes_service{};
  // The Services of a namespace, read for each container of a pod with enableServiceLinks (the
  // default) as the kubelet reads its Service lister: each gives <NAME>_SERVICE_HOST/_PORT and
  // the docker-link <NAME>_PORT_* variables. Throws when they cannot be read
  // (CreateContainerConfigError). Unset: only the `kubernetes` Service's variables.
  std::function<std::vector<ServiceLink>(const std::string& ns)> namespace_services{};
  // CrashLoopBackOff: the first restart is immediate, then initial, doubling up to max.
  std::chrono::milliseconds restart_backoff_initial{std::chrono::seconds(10)};
  std::chrono::milliseconds restart_backoff_max{std::chrono::minutes(5)};
  std::function<std::chrono::steady_clock::time_point()> now = std::chrono::steady_clock::now;
  ProbeGet probe_get{};    // unset: a real HTTP GET
  ProbeDial probe_dial{};  // unset: a real TCP connect
  // Pods' DNS (--cluster-dns, --cluster-domain, --resolv-conf): pod_dns.h.
  NodeDns dns{};
  // A warning event on a pod (the kubelet's DNSConfigForming, MissingClusterDNS); unset: logged
  // only.
  std::function<void(const kube::Pod& pod, const std::string& reason, const std::string& message)>
      warn{};
};

// What runs for a pod now (for the resize path and the usage sampler).
struct RunningContainer {
  std::string name{};
  std::string id{};
  std::uint32_t attempt = 0;
};

struct RunningPod {
  std::string uid{};
  std::string ns{};
  std::string name{};
  std::string sandbox_id{};
  std::string cgroup_parent{};  // as given to the runtime (the slice name with systemd)
  std::string cgroup_path{};    // below each hierarchy, e.g. /kubepods/burstable/pod<uid>
  std::vector<RunningContainer> containers{};
};

class PodRuntime : public cri::ContainerRestarter {
 public:
  PodRuntime(cri::RuntimeService& runtime, cri::ImageService& images, PodApi& api,
             PodRuntimeOptions options);
  ~PodRuntime() override;
  PodRuntime(const PodRuntime&) = delete;
  PodRuntime& operator=(const PodRuntime&) = delete;

  // Brings the pod to what its spec and allocation say and writes its status when it changed:
  // sandbox and pod cgroup when missing, containers created and started, exited ones restarted
  // by restartPolicy (after back-off), state read back from the runtime. Idempotent; call it on
  // every event of the pod and periodically (it is how container exits are noticed). A pod with
  // a deletionTimestamp is terminated instead (see terminate_pod).
  void sync_pod(const RuntimePod& pod, const PodAllocation& allocated);

  // Stops and removes the pod's containers and sandbox, removes its pod cgroup, and, when the
  // pod still exists in the API (deletionTimestamp set), deletes it with grace 0. For a pod
  // already gone from the API, pass `deleted_from_api` = true.
  // Blocks for up to the pod's grace period (StopContainer waits for the process to exit), so
  // call it off the watch thread.
  void terminate_pod(const RuntimePod& pod, bool deleted_from_api = false);

  // resizePolicy RestartContainer: stops the container and starts a new one (attempt + 1,
  // restartCount + 1) with `allocated`. Throws CriError when the runtime fails.
  void restart_container(const RuntimePod& pod, const std::string& container_name,
                         const cri::ResourceAmounts& allocated);
  // The same in two halves for the resize path (CriPodResources), with the run spec of the pod's
  // last sync_pod: a pod this runtime never synced cannot be restarted (runtime_error).
  void stop_for_restart(const kube::Pod& pod, const std::string& container_name) override;
  void start_after_restart(const kube::Pod& pod, const std::string& container_name,
                           const cri::ResourceAmounts& allocated) override;

  // Adopts what the runtime already runs (after an agent restart): containers labelled with a
  // pod uid are found by their labels, so sync_pod continues them instead of starting copies.
  void recover();
  // Stops and removes what runs for pods not in `live_uids` (deleted while the agent was down).
  void remove_orphans(const std::vector<std::string>& live_uids);

  std::optional<RunningPod> running_pod(const std::string& uid) const;
  std::vector<RunningPod> running_pods() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::node::runtime
