#include "bench/pod_list_generator.h"

#include <array>
#include <cstdio>
#include <string_view>
#include <vector>

namespace tailor::bench {
namespace {

// splitmix64: tiny, fast and the same on every platform.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int between(int lo, int hi) { return lo + static_cast<int>(next() % (hi - lo + 1)); }
  template <class T, std::size_t N>
  const T& pick(const std::array<T, N>& items) {
    return items[next() % N];
  }

 private:
  std::uint64_t state_;
};

constexpr std::array<std::string_view, 6> kApps = {"web",    "checkout", "cart",
                                                   "search", "payments", "recommendations"};
constexpr std::array<std::string_view, 4> kNamespaces = {"shop", "platform", "data", "default"};
constexpr std::array<std::string_view, 5> kCpu = {"100m", "250m", "500m", "1", "2"};
constexpr std::array<std::string_view, 5> kMemory = {"128Mi", "256Mi", "512Mi", "1Gi", "2Gi"};
constexpr std::array<std::string_view, 4> kSidecars = {"istio-proxy", "log-shipper", "metrics",
                                                       "config-reloader"};

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}
  Writer& raw(std::string_view text) {
    out_.append(text);
    return *this;
  }
  Writer& str(std::string_view text) {
    out_.push_back('"');
    out_.append(text);
    out_.push_back('"');
    return *this;
  }
  Writer& num(long long value) {
    char buffer[24];
    int n = std::snprintf(buffer, sizeof buffer, "%lld", value);
    out_.append(buffer, n);
    return *this;
  }
  Writer& hex(std::uint64_t value, int digits) {
    static constexpr char kHex[] = "0123456789abcdef";
    for (int i = digits - 1; i >= 0; --i) out_.push_back(kHex[(value >> (4 * i)) & 15]);
    return *this;
  }
  Writer& uid(Random& random) {
    out_.push_back('"');
    hex(random.next(), 8).raw("-").hex(random.next(), 4).raw("-4").hex(random.next(), 3);
    raw("-8").hex(random.next(), 3).raw("-").hex(random.next(), 12);
    out_.push_back('"');
    return *this;
  }
  Writer& time(int second_of_day) {
    char buffer[32];
    int n =
        std::snprintf(buffer, sizeof buffer, "\"2025-03-01T%02d:%02d:%02dZ\"",
                      (second_of_day / 3600) % 24, (second_of_day / 60) % 60, second_of_day % 60);
    out_.append(buffer, n);
    return *this;
  }

 private:
  std::string& out_;
};

struct PodNames {
  std::string app;
  std::string ns;
  std::string hash;
  std::string pod;
  std::vector<std::string> containers;
};

void write_managed_fields(Writer& w, const PodNames& n, int t) {
  w.raw(
       R"("managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":)")
      .time(t)
      .raw(
          R"(,"fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"1\"}":{}}},"f:spec":{"f:containers":{)");
  for (std::size_t i = 0; i < n.containers.size(); ++i) {
    if (i) w.raw(",");
    w.raw(R"("k:{\"name\":\")")
        .raw(n.containers[i])
        .raw(
            R"(\"}":{".":{},"f:env":{".":{},"k:{\"name\":\"LOG_LEVEL\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:imagePullPolicy":{},"f:livenessProbe":{".":{},"f:httpGet":{".":{},"f:path":{},"f:port":{},"f:scheme":{}}},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:name":{},"f:protocol":{}}},"f:resources":{".":{},"f:limits":{".":{},"f:cpu":{},"f:memory":{}},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{},"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/etc/config\"}":{".":{},"f:mountPath":{},"f:name":{}}}})");
  }
  w.raw(
      R"(},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{},"f:volumes":{".":{},"k:{\"name\":\"config\"}":{".":{},"f:configMap":{".":{},"f:defaultMode":{},"f:name":{}},"f:name":{}}}}}},)");
  w.raw(R"({"manager":"kubelet","operation":"Update","apiVersion":"v1","time":)")
      .time(t + 20)
      .raw(
          R"(,"fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"PodReadyToStartContainers\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.244.1.7\"}":{".":{},"f:ip":{}}},"f:startTime":{}}},"subresource":"status"}])");
}

void write_metadata(Writer& w, Random& r, const PodNames& n, int index, int t) {
  w.raw(R"("metadata":{"name":)").str(n.pod).raw(R"(,"generateName":")").raw(n.app);
  w.raw("-").raw(n.hash).raw(R"(-","namespace":)").str(n.ns).raw(R"(,"uid":)").uid(r);
  w.raw(R"(,"resourceVersion":")").num(100000 + index).raw(R"(","creationTimestamp":)").time(t);
  w.raw(R"(,"labels":{"app":)").str(n.app).raw(R"(,"app.kubernetes.io/name":)").str(n.app);
  w.raw(R"(,"app.kubernetes.io/part-of":"shop","pod-template-hash":)").str(n.hash);
  w.raw(R"(,"version":"v1.)")
      .num(r.between(0, 40))
      .raw(R"("},"annotations":{"kubectl.kubernetes.io/restartedAt":)")
      .time(t - 60);
  w.raw(
      R"(,"prometheus.io/scrape":"true","prometheus.io/port":"9090"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":")");
  w.raw(n.app).raw("-").raw(n.hash).raw(R"(","uid":)").uid(r);
  w.raw(R"(,"controller":true,"blockOwnerDeletion":true}],)");
  write_managed_fields(w, n, t);
  w.raw("}");
}

void write_container(Writer& w, Random& r, const std::string& name, bool main) {
  std::string_view cpu = r.pick(kCpu);
  std::string_view memory = r.pick(kMemory);
  w.raw(R"({"name":)").str(name).raw(R"(,"image":"registry.example.com/shop/)").raw(name);
  w.raw(":1.").num(r.between(0, 30)).raw(".").num(r.between(0, 9)).raw(R"(","command":["/bin/)");
  w.raw(name).raw(
      R"("],"args":["--port=8080","--log-format=json"],"ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],"env":[)");
  int env = r.between(4, 10);
  for (int i = 0; i < env; ++i) {
    if (i) w.raw(",");
    if (i % 4 == 3) {
      w.raw(R"({"name":"POD_NAME_)")
          .num(i)
          .raw(R"(","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}})");
    } else {
      w.raw(R"({"name":"SETTING_)")
          .num(i)
          .raw(R"(","value":"value-)")
          .num(r.between(0, 99999))
          .raw(R"("})");
    }
  }
  w.raw(R"(],"resources":{"limits":{"cpu":")").raw(cpu).raw(R"(","memory":")").raw(memory);
  w.raw(R"("},"requests":{"cpu":")").raw(cpu).raw(R"(","memory":")").raw(memory).raw(R"("}},)");
  w.raw(
      R"("resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"},{"resourceName":"memory","restartPolicy":"NotRequired"}],)");
  w.raw(R"("volumeMounts":[{"name":"config","mountPath":"/etc/config"},{"name":"kube-api-access-)");
  w.hex(r.next(), 5)
      .raw(R"(","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],)");
  if (main) {
    w.raw(
        R"("livenessProbe":{"httpGet":{"path":"/healthz","port":8080,"scheme":"HTTP"},"initialDelaySeconds":10,"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},)");
    w.raw(
        R"("readinessProbe":{"httpGet":{"path":"/ready","port":8080,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":5,"successThreshold":1,"failureThreshold":3},)");
  }
  w.raw(
      R"("terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent","securityContext":{"runAsNonRoot":true,"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}})");
}

void write_spec(Writer& w, Random& r, const PodNames& n, int node) {
  w.raw(R"("spec":{"volumes":[{"name":"config","configMap":{"name":")").raw(n.app);
  w.raw(R"(-config","defaultMode":420}},{"name":"kube-api-access-)").hex(r.next(), 5);
  w.raw(
      R"(","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},{"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],"defaultMode":420}}],"containers":[)");
  for (std::size_t i = 0; i < n.containers.size(); ++i) {
    if (i) w.raw(",");
    write_container(w, r, n.containers[i], i == 0);
  }
  w.raw(
      R"(],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","serviceAccount":"default","nodeName":"node-)");
  w.num(node).raw(
      R"(","securityContext":{},"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"})");
}

void write_conditions(Writer& w, int t) {
  w.raw(R"("conditions":[)");
  constexpr std::array<std::string_view, 5> kTypes = {"PodReadyToStartContainers", "Initialized",
                                                      "Ready", "ContainersReady", "PodScheduled"};
  for (std::size_t i = 0; i < kTypes.size(); ++i) {
    if (i) w.raw(",");
    w.raw(R"({"type":)")
        .str(kTypes[i])
        .raw(R"(,"status":"True","lastProbeTime":null,"lastTransitionTime":)");
    w.time(t + static_cast<int>(i)).raw("}");
  }
  w.raw("],");
}

void write_container_status(Writer& w, Random& r, const std::string& name, int t) {
  std::string_view cpu = r.pick(kCpu);
  std::string_view memory = r.pick(kMemory);
  int restarts = r.between(0, 20) == 0 ? r.between(1, 5) : 0;
  w.raw(R"({"name":)").str(name).raw(R"(,"state":{"running":{"startedAt":)").time(t + 5);
  if (restarts) {
    w.raw(R"(}},"lastState":{"terminated":{"exitCode":137,"reason":"OOMKilled","startedAt":)");
    w.time(t + 3).raw(R"(,"finishedAt":)").time(t + 4).raw(R"(,"containerID":"containerd://)");
    w.hex(r.next(), 16).hex(r.next(), 16).raw(R"("}},)");
  } else {
    w.raw(R"(}},"lastState":{},)");
  }
  w.raw(R"("ready":true,"restartCount":)").num(restarts);
  w.raw(R"(,"image":"registry.example.com/shop/)")
      .raw(name)
      .raw(R"(:1.2.3","imageID":"registry.example.com/shop/)");
  w.raw(name)
      .raw("@sha256:")
      .hex(r.next(), 16)
      .hex(r.next(), 16)
      .hex(r.next(), 16)
      .hex(r.next(), 16);
  w.raw(R"(","containerID":"containerd://)")
      .hex(r.next(), 16)
      .hex(r.next(), 16)
      .hex(r.next(), 16)
      .hex(r.next(), 16);
  w.raw(R"(","started":true,"allocatedResources":{"cpu":")")
      .raw(cpu)
      .raw(R"(","memory":")")
      .raw(memory);
  w.raw(R"("},"resources":{"limits":{"cpu":")").raw(cpu).raw(R"(","memory":")").raw(memory);
  w.raw(R"("},"requests":{"cpu":")").raw(cpu).raw(R"(","memory":")").raw(memory);
  w.raw(
      R"("}},"volumeMounts":[{"name":"config","mountPath":"/etc/config"},{"name":"kube-api-access","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","readOnly":true,"recursiveReadOnly":"Disabled"}]})");
}

void write_status(Writer& w, Random& r, const PodNames& n, int node, int t) {
  w.raw(R"("status":{"phase":"Running",)");
  write_conditions(w, t);
  w.raw(R"("hostIP":"10.0.)").num(node / 250).raw(".").num(node % 250);
  w.raw(R"(","hostIPs":[{"ip":"10.0.0.1"}],"podIP":"10.244.)").num(r.between(0, 255)).raw(".");
  w.num(r.between(1, 254)).raw(R"(","podIPs":[{"ip":"10.244.1.7"}],"startTime":)").time(t);
  w.raw(R"(,"containerStatuses":[)");
  for (std::size_t i = 0; i < n.containers.size(); ++i) {
    if (i) w.raw(",");
    write_container_status(w, r, n.containers[i], t);
  }
  w.raw(R"(],"qosClass":"Guaranteed"})");
}

PodNames names_for(Random& r, int index) {
  PodNames n;
  n.app = std::string(r.pick(kApps));
  n.ns = std::string(r.pick(kNamespaces));
  std::string hash;
  Writer(hash).hex(r.next(), 10);
  n.hash = hash;
  std::string suffix;
  Writer(suffix).hex(static_cast<std::uint64_t>(index) * 2654435761u, 5);
  n.pod = n.app + "-" + n.hash + "-" + suffix;
  n.containers.push_back(n.app);
  int extra = r.between(1, 3);
  for (int i = 0; i < extra; ++i) n.containers.emplace_back(kSidecars[i]);
  return n;
}

}  // namespace

std::string generate_pod_list(const PodListShape& shape) {
  std::string out;
  out.reserve(static_cast<std::size_t>(shape.pods) * 12000 + 256);
  Writer w(out);
  Random r(shape.seed);
  w.raw(R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":")");
  w.num(100000 + shape.pods).raw(R"("},"items":[)");
  for (int i = 0; i < shape.pods; ++i) {
    if (i) w.raw(",");
    PodNames n = names_for(r, i);
    int t = 36000 + i % 7200;
    int node = i % 500;
    w.raw("{");
    write_metadata(w, r, n, i, t);
    w.raw(",");
    write_spec(w, r, n, node);
    w.raw(",");
    write_status(w, r, n, node, t);
    w.raw("}");
  }
  w.raw("]}\n");
  return out;
}

}  // namespace tailor::bench
