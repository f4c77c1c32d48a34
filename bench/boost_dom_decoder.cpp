#include "bench/boost_dom_decoder.h"

#include <boost/json.hpp>

namespace tailor::bench {
namespace {

namespace bj = boost::json;
using namespace tailor::kube;

void get(const bj::value& v, std::string& out) {
  if (auto* s = v.if_string()) out.assign(s->data(), s->size());
}
void get(const bj::value& v, bool& out) {
  if (auto* b = v.if_bool()) out = *b;
}
void get(const bj::value& v, std::int64_t& out) {
  if (v.is_number()) out = v.to_number<std::int64_t>();
}
void get(const bj::value& v, std::int32_t& out) {
  if (v.is_number()) out = v.to_number<std::int32_t>();
}
void get(const bj::value& v, Quantity& out) {
  if (auto* s = v.if_string()) {
    out = Quantity::parse(std::string_view(s->data(), s->size()));
  } else if (v.is_number()) {
    out = Quantity::parse(bj::serialize(v));
  }
}
void get(const bj::value& v, StringMap& out) {
  if (auto* o = v.if_object()) {
    for (const auto& m : *o) get(m.value(), out[std::string(m.key())]);
  }
}
void get(const bj::value& v, ResourceList& out) {
  if (auto* o = v.if_object()) {
    for (const auto& m : *o) get(m.value(), out[std::string_view(m.key())]);
  }
}
// Struct readers are declared first so the templates below find them.
void get(const bj::value& v, OwnerReference& o);
void get(const bj::value& v, ObjectMeta& m);
void get(const bj::value& v, ResourceRequirements& r);
void get(const bj::value& v, ContainerResizePolicy& p);
void get(const bj::value& v, Container& c);
void get(const bj::value& v, PodSpec& s);
void get(const bj::value& v, ContainerStateTerminated& t);
void get(const bj::value& v, ContainerStateWaiting& w);
void get(const bj::value& v, ContainerStateRunning& r);
void get(const bj::value& v, ContainerState& s);
void get(const bj::value& v, ContainerStatus& s);
void get(const bj::value& v, PodCondition& c);
void get(const bj::value& v, PodStatus& s);
void get(const bj::value& v, Pod& p);
template <class T>
void get(const bj::value& v, std::vector<T>& out);
template <class T>
void get(const bj::value& v, std::optional<T>& out) {
  if (!v.is_null()) get(v, out.emplace());
}

// Calls f(key, value) for each member of an object value.
template <class F>
void fields(const bj::value& v, F&& f) {
  if (auto* o = v.if_object()) {
    for (const auto& m : *o) f(std::string_view(m.key()), m.value());
  }
}

void get(const bj::value& v, OwnerReference& o) {
  fields(v, [&](std::string_view k, const bj::value& f) {
    if (k == "apiVersion")
      get(f, o.api_version);
    else if (k == "kind")
      get(f, o.kind);
    else if (k == "name")
      get(f, o.name);
    else if (k == "uid")
      get(f, o.uid);
    else if (k == "controller")
      get(f, o.controller);
    else if (k == "blockOwnerDeletion")
      get(f, o.block_owner_deletion);
  });
}
void get(const bj::value& v, ObjectMeta& m) {
  fields(v, [&](std::string_view k, const bj::value& f) {
    if (k == "name")
      get(f, m.name);
    else if (k == "namespace")
      get(f, m.namespace_);
    else if (k == "uid")
      get(f, m.uid);
    else if (k == "resourceVersion")
      get(f, m.resource_version);
    else if (k == "generation")
      get(f, m.generation);
    else if (k == "creationTimestamp")
      get(f, m.creation_timestamp);
    else if (k == "labels")
      get(f, m.labels);
    else if (k == "annotations")
      get(f, m.annotations);
    else if (k == "ownerReferences")
      get(f, m.owner_references);
    else if (k == "finalizers")
      get(f, m.finalizers);
    else if (k == "generateName")
      get(f, m.generate_name);
    else if (k == "deletionTimestamp")
      get(f, m.deletion_timestamp);
    else if (k == "deletionGracePeriodSeconds")
      get(f, m.deletion_grace_period_seconds);
  });
}
void get(const bj::value& v, ResourceRequirements& r) {
  fields(v, [&](std::string_view k, const bj::value& f) {
    if (k == "requests")
      get(f, r.requests);
    else if (k == "limits")
      get(f, r.limits);
  });
}
void get(const bj::value& v, ContainerResizePolicy& p) {
  fields(v, [&](std::string_view k, const bj::value& f) {
    if (k == "resourceName")
      get(f, p.resource_name);
    else if (k == "restartPolicy")
      get(f, p.restart_policy);
  });
}
void get(const bj::value& v, Container& c) {
  fields(v, [&](std::string_view k, const bj::value& f) {
    if (k == "name")
      get(f, c.name);
    else if (k == "image")
      get(f, c.image);
    else if (k == "resources")
      get(f, c.resources);
    else if (k == "resizePolicy")
      get(f, c.resize_policy);
    else if (k == "restartPolicy")
      get(f, c.restart_policy);
  });
}
void get(const bj::value& v, PodSpec& s) {
  fields(v, [&](std::string_view k, const bj::value& f) {
    if (k == "containers")
      get(f, s.containers);
    else if (k == "nodeName")
      get(f, s.node_name);
    else if (k == "initContainers")
      get(f, s.init_containers);
    else if (k == "priority")
      get(f, s.priority);
    else if (k == "priorityClassName")
      get(f, s.priority_class_name);
    else if (k == "overhead")
      get(f, s.overhead);
    else if (k == "restartPolicy")
      get(f, s.restart_policy);
    else if (k == "resources")
      get(f, s.resources);
    else if (k == "schedulerName")
      get(f, s.scheduler_name);
    else if (k == "os")
      fields(f, [&](std::string_view ok, const bj::value& of) {
        if (ok == "name") get(of, s.os_name);
      });
  });
}
void get(const bj::value& v, ContainerStateTerminated& t) {
  fields(v, [&](std::string_view k, const bj::value& f) {
    if (k == "exitCode")
      get(f, t.exit_code);
    else if (k == "reason")
      get(f, t.reason);
    else if (k == "signal")
      get(f, t.signal);
    else if (k == "message")
      get(f, t.message);
    else if (k == "startedAt")
      get(f, t.started_at);
    else if (k == "finishedAt")
      get(f, t.finished_at);
    else if (k == "containerID")
      get(f, t.container_id);
  });
}
void get(const bj::value& v, ContainerStateWaiting& w) {
  fields(v, [&](std::string_view k, const bj::value& f) {
    if (k == "reason")
      get(f, w.reason);
    else if (k == "message")
      get(f, w.message);
  });
}
void get(const bj::value& v, ContainerStateRunning& r) {
  fields(v, [&](std::string_view k, const bj::value& f) {
    if (k == "startedAt") get(f, r.started_at);
  });
}
void get(const bj::value& v, ContainerState& s) {
  fields(v, [&](std::string_view k, const bj::value& f) {
    if (k == "running")
      get(f, s.running);
    else if (k == "waiting")
      get(f, s.waiting);
    else if (k == "terminated")
      get(f, s.terminated);
  });
}
void get(const bj::value& v, ContainerStatus& s) {
  fields(v, [&](std::string_view k, const bj::value& f) {
    if (k == "name")
      get(f, s.name);
    else if (k == "containerID")
      get(f, s.container_id);
    else if (k == "image")
      get(f, s.image);
    else if (k == "imageID")
      get(f, s.image_id);
    else if (k == "ready")
      get(f, s.ready);
    else if (k == "started")
      get(f, s.started);
    else if (k == "restartCount")
      get(f, s.restart_count);
    else if (k == "state")
      get(f, s.state);
    else if (k == "lastState")
      get(f, s.last_state);
    else if (k == "allocatedResources")
      get(f, s.allocated_resources);
    else if (k == "resources")
      get(f, s.resources);
  });
}
void get(const bj::value& v, PodCondition& c) {
  fields(v, [&](std::string_view k, const bj::value& f) {
    if (k == "type")
      get(f, c.type);
    else if (k == "status")
      get(f, c.status);
    else if (k == "reason")
      get(f, c.reason);
    else if (k == "message")
      get(f, c.message);
    else if (k == "lastTransitionTime")
      get(f, c.last_transition_time);
    else if (k == "lastProbeTime")
      get(f, c.last_probe_time);
    else if (k == "observedGeneration")
      get(f, c.observed_generation);
  });
}
void get(const bj::value& v, PodStatus& s) {
  fields(v, [&](std::string_view k, const bj::value& f) {
    if (k == "phase")
      get(f, s.phase);
    else if (k == "conditions")
      get(f, s.conditions);
    else if (k == "containerStatuses")
      get(f, s.container_statuses);
    else if (k == "initContainerStatuses")
      get(f, s.init_container_statuses);
    else if (k == "qosClass")
      get(f, s.qos_class);
    else if (k == "resize")
      get(f, s.resize);
    else if (k == "observedGeneration")
      get(f, s.observed_generation);
    else if (k == "hostIP")
      get(f, s.host_ip);
    else if (k == "podIP")
      get(f, s.pod_ip);
    else if (k == "startTime")
      get(f, s.start_time);
    else if (k == "reason")
      get(f, s.reason);
    else if (k == "message")
      get(f, s.message);
  });
}
void get(const bj::value& v, Pod& p) {
  fields(v, [&](std::string_view k, const bj::value& f) {
    if (k == "metadata")
      get(f, p.metadata);
    else if (k == "spec")
      get(f, p.spec);
    else if (k == "status")
      get(f, p.status);
  });
}
template <class T>
void get(const bj::value& v, std::vector<T>& out) {
  if (auto* a = v.if_array()) {
    out.reserve(a->size());
    for (const auto& e : *a) get(e, out.emplace_back());
  }
}

}  // namespace

PodList decode_pod_list_boost(std::string_view json) {
  bj::value dom = bj::parse(json);
  PodList list;
  fields(dom, [&](std::string_view k, const bj::value& f) {
    if (k == "items")
      get(f, list.items);
    else if (k == "metadata")
      fields(f, [&](std::string_view mk, const bj::value& mf) {
        if (mk == "resourceVersion")
          get(mf, list.metadata.resource_version);
        else if (mk == "continue")
          get(mf, list.metadata.continue_token);
      });
  });
  return list;
}

}  // namespace tailor::bench
