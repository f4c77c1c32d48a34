// Readers for Node, Event, Lease and Status.
#include "kube/model/json_reader.h"

namespace tailor::kube::json {

void read(od::value& v, NodeCondition& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "type")
      read(f, out.type);
    else if (key == "status")
      read(f, out.status);
    else if (key == "reason")
      read(f, out.reason);
    else if (key == "message")
      read(f, out.message);
    else if (key == "lastHeartbeatTime")
      read(f, out.last_heartbeat_time);
    else if (key == "lastTransitionTime")
      read(f, out.last_transition_time);
  });
}

void read(od::value& v, NodeSystemInfo& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "kubeletVersion")
      read(f, out.kubelet_version);
    else if (key == "containerRuntimeVersion")
      read(f, out.container_runtime_version);
    else if (key == "operatingSystem")
      read(f, out.operating_system);
    else if (key == "architecture")
      read(f, out.architecture);
  });
}

void read(od::value& v, NodeSpec& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "unschedulable")
      read(f, out.unschedulable);
    else if (key == "providerID")
      read(f, out.provider_id);
  });
}

void read(od::value& v, NodeStatus& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "capacity")
      read(f, out.capacity);
    else if (key == "allocatable")
      read(f, out.allocatable);
    else if (key == "conditions")
      read(f, out.conditions);
    else if (key == "nodeInfo")
      read(f, out.node_info);
  });
}

void read(od::value& v, Node& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "metadata")
      read(f, out.metadata);
    else if (key == "spec")
      read(f, out.spec);
    else if (key == "status")
      read(f, out.status);
  });
}

void read(od::value& v, EventSource& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "component")
      read(f, out.component);
    else if (key == "host")
      read(f, out.host);
  });
}

namespace {
// A repeat count: the recorder adds to it, so a negative one is an error, not a value.
void read_count(od::value& v, std::int32_t& out) {
  read(v, out);
  if (out < 0) fail("expected a non-negative count, got " + std::to_string(out));
}
}  // namespace

void read(od::value& v, Event& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "metadata")
      read(f, out.metadata);
    else if (key == "involvedObject")
      read(f, out.involved_object);
    else if (key == "reason")
      read(f, out.reason);
    else if (key == "message")
      read(f, out.message);
    else if (key == "type")
      read(f, out.type);
    else if (key == "count")
      read_count(f, out.count);
    else if (key == "firstTimestamp")
      read(f, out.first_timestamp);
    else if (key == "lastTimestamp")
      read(f, out.last_timestamp);
    else if (key == "eventTime")
      read(f, out.event_time);
    else if (key == "source")
      read(f, out.source);
    else if (key == "reportingComponent")
      read(f, out.reporting_component);
    else if (key == "reportingInstance")
      read(f, out.reporting_instance);
    else if (key == "action")
      read(f, out.action);
  });
}

void read(od::value& v, LeaseSpec& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "holderIdentity")
      read(f, out.holder_identity);
    else if (key == "leaseDurationSeconds")
      read(f, out.lease_duration_seconds);
    else if (key == "acquireTime")
      read(f, out.acquire_time);
    else if (key == "renewTime")
      read(f, out.renew_time);
    else if (key == "leaseTransitions")
      read(f, out.lease_transitions);
  });
}

void read(od::value& v, Lease& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "metadata")
      read(f, out.metadata);
    else if (key == "spec")
      read(f, out.spec);
  });
}

void read(od::value& v, StatusCause& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "reason")
      read(f, out.reason);
    else if (key == "message")
      read(f, out.message);
    else if (key == "field")
      read(f, out.field);
  });
}

void read(od::value& v, StatusDetails& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "name")
      read(f, out.name);
    else if (key == "group")
      read(f, out.group);
    else if (key == "kind")
      read(f, out.kind);
    else if (key == "uid")
      read(f, out.uid);
    else if (key == "causes")
      read(f, out.causes);
    else if (key == "retryAfterSeconds")
      read(f, out.retry_after_seconds);
  });
}

void read(od::value& v, Status& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "status")
      read(f, out.status);
    else if (key == "message")
      read(f, out.message);
    else if (key == "reason")
      read(f, out.reason);
    else if (key == "code")
      read(f, out.code);
    else if (key == "details")
      read(f, out.details);
    else if (key == "metadata") {
      for_each_field(f, [&](std::string_view k, od::value& m) {
        if (k == "resourceVersion") read(m, out.resource_version);
      });
    }
  });
}

}  // namespace tailor::kube::json
