#include "tests/e2e/workload_manifests.h"

#include <boost/json.hpp>

namespace tailor::e2e {
namespace {

// A YAML double-quoted scalar: JSON's escapes are YAML's.
std::string quoted(const std::string& s) { return boost::json::serialize(boost::json::string(s)); }

// {k: "v", ...} with quoted values, or {k: v, ...} with the values as they are.
std::string flow_map(const std::map<std::string, std::string>& m, bool quote_values = true) {
  std::string out = "{";
  for (const auto& [k, v] : m) {
    out += (out.size() > 1 ? ", " : "") + k + ": " + (quote_values ? quoted(v) : v);
  }
  return out + "}";
}

std::string flow_sequence(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& item : items) out += (out.size() > 1 ? ", " : "") + quoted(item);
  return out + "]";
}

std::map<std::string, std::string> deployment_labels(const WorkloadSpec& spec) {
  if (!spec.labels.empty()) return spec.labels;
  return {{"app", spec.name}};
}

std::string container_yaml(const ContainerSpec& c, const std::string& in) {
  std::string out = in + "- name: " + quoted(c.name) + "\n" + in + "  image: busybox\n" + in +
                    "  imagePullPolicy: IfNotPresent\n" + in +
                    "  command: " + flow_sequence(c.command) + "\n";
  if (!c.security_context.empty()) {
    out += in + "  securityContext: " + flow_map(c.security_context, false) + "\n";
  }
  if (!c.restart_on_resize.empty()) {
    out += in + "  resizePolicy:\n";
    for (const std::string& resource : c.restart_on_resize) {
      out += in + "  - {resourceName: " + quoted(resource) + ", restartPolicy: RestartContainer}\n";
    }
  }
  if (c.requests.empty() && c.limits.empty()) return out;
  out += in + "  resources:\n";
  if (!c.requests.empty()) out += in + "    requests: " + flow_map(c.requests) + "\n";
  if (!c.limits.empty()) out += in + "    limits: " + flow_map(c.limits) + "\n";
  return out;
}

// The pod spec's fields, each line indented by `in`.
std::string pod_spec_yaml(const WorkloadSpec& spec, const std::string& in) {
  std::string out =
      in + "terminationGracePeriodSeconds: " + std::to_string(spec.termination_grace_seconds) +
      "\n";
  if (!spec.node.empty()) {
    out += in + "nodeSelector: {kubernetes.io/hostname: " + quoted(spec.node) + "}\n";
  }
  if (!spec.avoid_label.empty()) {
    out += in + "affinity:\n" + in + "  nodeAffinity:\n" + in +
           "    requiredDuringSchedulingIgnoredDuringExecution:\n" + in +
           "      nodeSelectorTerms:\n" + in + "      - matchExpressions:\n" + in +
           "        - {key: " + quoted(spec.avoid_label) + ", operator: DoesNotExist}\n";
  }
  if (!spec.security_context.empty()) {
    out += in + "securityContext: " + flow_map(spec.security_context, false) + "\n";
  }
  out += in + "containers:\n";
  for (const ContainerSpec& c : spec.containers) out += container_yaml(c, in);
  return out;
}

std::string container_policy_yaml(const ContainerPolicySpec& c) {
  std::string fields = "containerName: " + quoted(c.name);
  if (!c.min_allowed.empty()) fields += ", minAllowed: " + flow_map(c.min_allowed);
  if (!c.max_allowed.empty()) fields += ", maxAllowed: " + flow_map(c.max_allowed);
  if (!c.controlled_values.empty()) fields += ", controlledValues: " + quoted(c.controlled_values);
  return "    - {" + fields + "}\n";
}

std::string cpu_boost_yaml(const CpuBoostSpec& b) {
  std::string fields =
      b.quantity.empty() ? "type: Factor" : "type: Quantity, quantity: " + quoted(b.quantity);
  if (b.factor > 0) fields += ", factor: " + std::to_string(b.factor);
  if (b.duration_seconds > 0) fields += ", durationSeconds: " + std::to_string(b.duration_seconds);
  return "  startupBoost:\n    cpu: {" + fields + "}\n";
}

// A VerticalScalingPolicy or VerticalPodAutoscaler: the two differ in their group and kind and
// in the name of updatePolicy's mode.
std::string scaling_manifest(const PolicySpec& spec, const std::string& api_version,
                             const std::string& kind, const std::string& mode_field) {
  std::string out = "apiVersion: " + api_version + "\nkind: " + kind +
                    "\nmetadata: {name: " + quoted(spec.name) + "}\nspec:\n";
  if (!spec.deployment.empty()) {
    out += "  targetRef: {apiVersion: apps/v1, kind: Deployment, name: " + quoted(spec.deployment) +
           "}\n";
  }
  if (!spec.selector.empty()) out += "  selector: {matchLabels: " + flow_map(spec.selector) + "}\n";
  out += "  updatePolicy: {" + mode_field + ": " + quoted(spec.mode);
  if (spec.min_replicas > 0) out += ", minReplicas: " + std::to_string(spec.min_replicas);
  if (!spec.deferred_timeout.empty()) out += ", deferredTimeout: " + quoted(spec.deferred_timeout);
  out += "}\n";
  if (!spec.containers.empty()) {
    out += "  resourcePolicy:\n    containerPolicies:\n";
    for (const ContainerPolicySpec& c : spec.containers) out += container_policy_yaml(c);
  }
  if (spec.startup_boost) out += cpu_boost_yaml(*spec.startup_boost);
  return out;
}

}  // namespace

std::vector<std::string> shell(const std::string& script) { return {"sh", "-c", script}; }

WorkloadSpec small_node_filler() {
  return {.name = "filler",
          .node = kSmallNode,
          .containers = {{.name = "filler", .requests = {{"cpu", "50m"}, {"memory", "700Mi"}}}}};
}

std::string deployment_manifest(const WorkloadSpec& spec) {
  const std::string labels = flow_map(deployment_labels(spec));
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + quoted(spec.name) +
         "}\nspec:\n  replicas: " + std::to_string(spec.replicas) +
         "\n  selector: {matchLabels: " + labels +
         "}\n  template:\n    metadata: {labels: " + labels + "}\n    spec:\n" +
         pod_spec_yaml(spec, "      ");
}

ContainerPolicySpec pinned(const Resources& resources) {
  return {.min_allowed = resources, .max_allowed = resources};
}

std::string policy_manifest(const PolicySpec& spec) {
  return scaling_manifest(spec, "autoscaling.tailor.dev/v1alpha1", "VerticalScalingPolicy", "mode");
}

std::string vpa_manifest(const PolicySpec& spec) {
  return scaling_manifest(spec, "autoscaling.k8s.io/v1", "VerticalPodAutoscaler", "updateMode");
}

std::string pod_manifest(const WorkloadSpec& spec) {
  std::string metadata = "{name: " + quoted(spec.name);
  if (!spec.labels.empty()) metadata += ", labels: " + flow_map(spec.labels);
  return "apiVersion: v1\nkind: Pod\nmetadata: " + metadata + "}\nspec:\n" +
         pod_spec_yaml(spec, "  ");
}

}  // namespace tailor::e2e
