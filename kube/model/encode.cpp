// Full documents for new objects.
#include "kube/model/encode.h"

#include "kube/model/json_writer.h"

namespace tailor::kube {
namespace json {

void put(bj::object& o, std::string_view key, const std::string& value) {
  if (!value.empty()) o[key] = value;
}
void put(bj::object& o, std::string_view key, std::int64_t value) {
  if (value != 0) o[key] = value;
}
void put(bj::object& o, std::string_view key, bool value) {
  if (value) o[key] = true;
}
void put(bj::object& o, std::string_view key, bj::value value) {
  bool empty = (value.is_object() && value.get_object().empty()) ||
               (value.is_array() && value.get_array().empty()) || value.is_null();
  if (!empty) o[key] = std::move(value);
}

bj::value to_value(const ResourceList& list) {
  bj::object o;
  for (const auto& [name, quantity] : list) o[name] = quantity.to_string();
  return o;
}

bj::value to_value(const ResourceRequirements& resources) {
  bj::object o;
  put(o, "limits", to_value(resources.limits));
  put(o, "requests", to_value(resources.requests));
  return o;
}

namespace {
bj::value to_value(const StringMap& map) {
  bj::object o;
  for (const auto& [key, value] : map) o[key] = value;
  return o;
}

bj::value strings(const std::vector<std::string>& items) {
  bj::array a;
  for (const auto& item : items) a.emplace_back(item);
  return a;
}

template <class T, class F>
bj::value array_of(const std::vector<T>& items, F&& encode) {
  bj::array a;
  for (const auto& item : items) a.emplace_back(encode(item));
  return a;
}

bj::object owner(const OwnerReference& ref) {
  bj::object o;
  put(o, "apiVersion", ref.api_version);
  put(o, "kind", ref.kind);
  put(o, "name", ref.name);
  put(o, "uid", ref.uid);
  put(o, "controller", ref.controller);
  put(o, "blockOwnerDeletion", ref.block_owner_deletion);
  return o;
}
}  // namespace

bj::object to_value(const ObjectMeta& meta) {
  bj::object o;
  put(o, "name", meta.name);
  put(o, "generateName", meta.generate_name);
  put(o, "namespace", meta.namespace_);
  put(o, "uid", meta.uid);
  put(o, "resourceVersion", meta.resource_version);
  put(o, "generation", meta.generation);
  put(o, "creationTimestamp", meta.creation_timestamp);
  put(o, "deletionTimestamp", meta.deletion_timestamp);
  put(o, "deletionGracePeriodSeconds", meta.deletion_grace_period_seconds);
  put(o, "labels", to_value(meta.labels));
  put(o, "annotations", to_value(meta.annotations));
  put(o, "ownerReferences", array_of(meta.owner_references, owner));
  put(o, "finalizers", strings(meta.finalizers));
  return o;
}

bj::object to_value(const PodCondition& c) {
  bj::object o;
  o["type"] = c.type;
  o["status"] = c.status;
  put(o, "observedGeneration", c.observed_generation);
  put(o, "lastProbeTime", c.last_probe_time);
  put(o, "lastTransitionTime", c.last_transition_time);
  put(o, "reason", c.reason);
  put(o, "message", c.message);
  return o;
}

namespace {
bj::object state(const ContainerState& s) {
  bj::object o;
  if (s.waiting) {
    bj::object w;
    put(w, "reason", s.waiting->reason);
    put(w, "message", s.waiting->message);
    o["waiting"] = std::move(w);
  }
  if (s.running) {
    bj::object r;
    put(r, "startedAt", s.running->started_at);
    o["running"] = std::move(r);
  }
  if (s.terminated) {
    const ContainerStateTerminated& t = *s.terminated;
    bj::object r;
    r["exitCode"] = t.exit_code;
    put(r, "signal", std::int64_t{t.signal});
    put(r, "reason", t.reason);
    put(r, "message", t.message);
    put(r, "startedAt", t.started_at);
    put(r, "finishedAt", t.finished_at);
    put(r, "containerID", t.container_id);
    o["terminated"] = std::move(r);
  }
  return o;
}
}  // namespace

bj::object to_value(const ContainerStatus& s) {
  bj::object o;
  o["name"] = s.name;
  o["state"] = state(s.state);
  o["lastState"] = state(s.last_state);
  o["ready"] = s.ready;
  o["restartCount"] = s.restart_count;
  o["image"] = s.image;
  o["imageID"] = s.image_id;
  put(o, "containerID", s.container_id);
  if (s.started) o["started"] = *s.started;
  put(o, "allocatedResources", to_value(s.allocated_resources));
  if (s.resources) o["resources"] = to_value(*s.resources);
  return o;
}

}  // namespace json

namespace {
using namespace json;

bj::object container(const Container& c) {
  bj::object o;
  o["name"] = c.name;
  put(o, "image", c.image);
  o["resources"] = to_value(c.resources);
  put(o, "resizePolicy", array_of(c.resize_policy, [](const ContainerResizePolicy& p) {
        return bj::object{{"resourceName", p.resource_name}, {"restartPolicy", p.restart_policy}};
      }));
  put(o, "restartPolicy", c.restart_policy);
  return o;
}

bj::object pod_spec(const PodSpec& s) {
  bj::object o;
  put(o, "initContainers", array_of(s.init_containers, container));
  o["containers"] = array_of(s.containers, container);
  put(o, "restartPolicy", s.restart_policy);
  put(o, "nodeName", s.node_name);
  put(o, "schedulerName", s.scheduler_name);
  put(o, "priorityClassName", s.priority_class_name);
  put(o, "priority", s.priority);
  put(o, "overhead", to_value(s.overhead));
  if (s.resources) o["resources"] = to_value(*s.resources);
  if (!s.os_name.empty()) o["os"] = bj::object{{"name", s.os_name}};
  return o;
}

bj::object pod_status(const PodStatus& s) {
  bj::object o;
  put(o, "phase", s.phase);
  put(o, "observedGeneration", s.observed_generation);
  put(o, "conditions", array_of(s.conditions, [](const PodCondition& c) { return to_value(c); }));
  put(o, "message", s.message);
  put(o, "reason", s.reason);
  put(o, "hostIP", s.host_ip);
  put(o, "podIP", s.pod_ip);
  put(o, "startTime", s.start_time);
  auto statuses = [](const ContainerStatus& c) { return to_value(c); };
  put(o, "initContainerStatuses", array_of(s.init_container_statuses, statuses));
  put(o, "containerStatuses", array_of(s.container_statuses, statuses));
  put(o, "qosClass", s.qos_class);
  put(o, "resize", s.resize);
  return o;
}

bj::object document(std::string_view api_version, std::string_view kind, const ObjectMeta& meta) {
  return bj::object{{"apiVersion", api_version}, {"kind", kind}, {"metadata", to_value(meta)}};
}
}  // namespace

std::string to_json(const Pod& pod) {
  bj::object o = document("v1", "Pod", pod.metadata);
  o["spec"] = pod_spec(pod.spec);
  o["status"] = pod_status(pod.status);
  return bj::serialize(o);
}

std::string to_json(const Node& node) {
  bj::object o = document("v1", "Node", node.metadata);
  bj::object spec;
  put(spec, "unschedulable", node.spec.unschedulable);
  put(spec, "providerID", node.spec.provider_id);
  o["spec"] = std::move(spec);
  bj::object status;
  put(status, "capacity", to_value(node.status.capacity));
  put(status, "allocatable", to_value(node.status.allocatable));
  put(status, "conditions", array_of(node.status.conditions, [](const NodeCondition& c) {
        bj::object v{{"type", c.type}, {"status", c.status}};
        put(v, "lastHeartbeatTime", c.last_heartbeat_time);
        put(v, "lastTransitionTime", c.last_transition_time);
        put(v, "reason", c.reason);
        put(v, "message", c.message);
        return v;
      }));
  const NodeSystemInfo& info = node.status.node_info;
  bj::object node_info;
  put(node_info, "kubeletVersion", info.kubelet_version);
  put(node_info, "containerRuntimeVersion", info.container_runtime_version);
  put(node_info, "operatingSystem", info.operating_system);
  put(node_info, "architecture", info.architecture);
  put(status, "nodeInfo", std::move(node_info));
  o["status"] = std::move(status);
  return bj::serialize(o);
}

std::string to_json(const Event& e) {
  bj::object o = document("v1", "Event", e.metadata);
  const ObjectReference& ref = e.involved_object;
  bj::object involved;
  put(involved, "kind", ref.kind);
  put(involved, "namespace", ref.namespace_);
  put(involved, "name", ref.name);
  put(involved, "uid", ref.uid);
  put(involved, "apiVersion", ref.api_version);
  put(involved, "resourceVersion", ref.resource_version);
  put(involved, "fieldPath", ref.field_path);
  o["involvedObject"] = std::move(involved);
  put(o, "reason", e.reason);
  put(o, "message", e.message);
  bj::object source;
  put(source, "component", e.source.component);
  put(source, "host", e.source.host);
  put(o, "source", std::move(source));
  put(o, "firstTimestamp", e.first_timestamp);
  put(o, "lastTimestamp", e.last_timestamp);
  put(o, "count", std::int64_t{e.count});
  put(o, "type", e.type);
  put(o, "eventTime", e.event_time);
  put(o, "action", e.action);
  put(o, "reportingComponent", e.reporting_component);
  put(o, "reportingInstance", e.reporting_instance);
  return bj::serialize(o);
}

namespace json {
bj::object lease_spec(const LeaseSpec& s) {
  bj::object o;
  put(o, "holderIdentity", s.holder_identity);
  put(o, "leaseDurationSeconds", s.lease_duration_seconds);
  put(o, "acquireTime", s.acquire_time);
  put(o, "renewTime", s.renew_time);
  put(o, "leaseTransitions", s.lease_transitions);
  return o;
}
}  // namespace json

std::string to_json(const Lease& lease) {
  bj::object o = document("coordination.k8s.io/v1", "Lease", lease.metadata);
  o["spec"] = lease_spec(lease.spec);
  return bj::serialize(o);
}

std::string to_json(const ResourceList& list) { return bj::serialize(to_value(list)); }

std::string to_json(const ResourceRequirements& resources) {
  return bj::serialize(to_value(resources));
}

}  // namespace tailor::kube
