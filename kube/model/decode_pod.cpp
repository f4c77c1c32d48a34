// Readers for Pod and its parts.
#include "kube/model/json_reader.h"

namespace tailor::kube::json {

void read(od::value& v, ContainerResizePolicy& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "resourceName")
      read(f, out.resource_name);
    else if (key == "restartPolicy")
      read(f, out.restart_policy);
  });
}

void read(od::value& v, Container& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "name")
      read(f, out.name);
    else if (key == "image")
      read(f, out.image);
    else if (key == "resources")
      read(f, out.resources);
    else if (key == "resizePolicy")
      read(f, out.resize_policy);
    else if (key == "restartPolicy")
      read(f, out.restart_policy);
  });
}

namespace {
void read_os_name(od::value& v, std::string& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "name") read(f, out);
  });
}
}  // namespace

void read(od::value& v, PodSpec& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "containers")
      read(f, out.containers);
    else if (key == "nodeName")
      read(f, out.node_name);
    else if (key == "initContainers")
      read(f, out.init_containers);
    else if (key == "priority")
      read(f, out.priority);
    else if (key == "priorityClassName")
      read(f, out.priority_class_name);
    else if (key == "overhead")
      read(f, out.overhead);
    else if (key == "restartPolicy")
      read(f, out.restart_policy);
    else if (key == "resources")
      read(f, out.resources);
    else if (key == "os")
      read_os_name(f, out.os_name);
    else if (key == "schedulerName")
      read(f, out.scheduler_name);
  });
}

void read(od::value& v, ContainerStateWaiting& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "reason")
      read(f, out.reason);
    else if (key == "message")
      read(f, out.message);
  });
}

void read(od::value& v, ContainerStateRunning& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "startedAt") read(f, out.started_at);
  });
}

void read(od::value& v, ContainerStateTerminated& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "exitCode")
      read(f, out.exit_code);
    else if (key == "reason")
      read(f, out.reason);
    else if (key == "signal")
      read(f, out.signal);
    else if (key == "message")
      read(f, out.message);
    else if (key == "startedAt")
      read(f, out.started_at);
    else if (key == "finishedAt")
      read(f, out.finished_at);
    else if (key == "containerID")
      read(f, out.container_id);
  });
}

void read(od::value& v, ContainerState& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "running")
      read(f, out.running);
    else if (key == "waiting")
      read(f, out.waiting);
    else if (key == "terminated")
      read(f, out.terminated);
  });
}

void read(od::value& v, ContainerStatus& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "name")
      read(f, out.name);
    else if (key == "containerID")
      read(f, out.container_id);
    else if (key == "image")
      read(f, out.image);
    else if (key == "imageID")
      read(f, out.image_id);
    else if (key == "ready")
      read(f, out.ready);
    else if (key == "started")
      read(f, out.started);
    else if (key == "restartCount")
      read(f, out.restart_count);
    else if (key == "state")
      read(f, out.state);
    else if (key == "lastState")
      read(f, out.last_state);
    else if (key == "allocatedResources")
      read(f, out.allocated_resources);
    else if (key == "resources")
      read(f, out.resources);
  });
}

void read(od::value& v, PodCondition& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "type")
      read(f, out.type);
    else if (key == "status")
      read(f, out.status);
    else if (key == "reason")
      read(f, out.reason);
    else if (key == "message")
      read(f, out.message);
    else if (key == "lastTransitionTime")
      read(f, out.last_transition_time);
    else if (key == "lastProbeTime")
      read(f, out.last_probe_time);
    else if (key == "observedGeneration")
      read(f, out.observed_generation);
  });
}

void read(od::value& v, PodStatus& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "phase")
      read(f, out.phase);
    else if (key == "conditions")
      read(f, out.conditions);
    else if (key == "containerStatuses")
      read(f, out.container_statuses);
    else if (key == "initContainerStatuses")
      read(f, out.init_container_statuses);
    else if (key == "qosClass")
      read(f, out.qos_class);
    else if (key == "resize")
      read(f, out.resize);
    else if (key == "observedGeneration")
      read(f, out.observed_generation);
    else if (key == "hostIP")
      read(f, out.host_ip);
    else if (key == "podIP")
      read(f, out.pod_ip);
    else if (key == "startTime")
      read(f, out.start_time);
    else if (key == "reason")
      read(f, out.reason);
    else if (key == "message")
      read(f, out.message);
  });
}

void read(od::value& v, Pod& out) {
  for_each_field(v, [&](std::string_view key, od::value& f) {
    if (key == "metadata")
      read(f, out.metadata);
    else if (key == "spec")
      read(f, out.spec);
    else if (key == "status")
      read(f, out.status);
  });
}

}  // namespace tailor::kube::json
