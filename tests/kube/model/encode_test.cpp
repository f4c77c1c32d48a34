#include "kube/model/encode.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "kube/model/decode.h"
#include "tests/kube/model/fixtures.h"

namespace tailor::kube {
namespace {

namespace bj = boost::json;

Quantity q(const char* text) { return Quantity::parse(text); }

// A small RFC 6902 applier (test/add/replace/remove on object members and array indices), to
// check what a status patch does to a pod document as the API server would apply it.
// Returns false when a "test" fails or a path does not exist.
bool apply_json_patch(bj::value& doc, std::string_view patch_text) {
  bj::value ops = bj::parse(patch_text);
  for (const bj::value& op_value : ops.as_array()) {
    const bj::object& op = op_value.as_object();
    std::string_view name = op.at("op").as_string();
    std::string_view path = op.at("path").as_string();
    std::size_t slash = path.rfind('/');
    std::string_view parent_path = path.substr(0, slash);
    std::string key(path.substr(slash + 1));
    std::error_code ec;
    bj::value* parent = parent_path.empty() ? &doc : doc.find_pointer(parent_path, ec);
    if (!parent) return false;
    if (name == "test") {
      bj::value* target = doc.find_pointer(path, ec);
      if (!target || *target != op.at("value")) return false;
    } else if (parent->is_object()) {
      bj::object& o = parent->as_object();
      if (name == "remove" || name == "replace") {
        if (!o.contains(key)) return false;
      }
      if (name == "remove") {
        o.erase(key);
      } else {
        o[key] = op.at("value");
      }
    } else {
      bj::array& a = parent->as_array();
      if (key == "-" && name == "add") {
        a.push_back(op.at("value"));
        continue;
      }
      std::size_t i = std::stoul(key);
      if (i > a.size() || (i == a.size() && name != "add")) return false;
      if (name == "remove")
        a.erase(a.begin() + i);
      else if (name == "replace")
        a[i] = op.at("value");
      else
        a.insert(a.begin() + i, op.at("value"));
    }
  }
  return true;
}

TEST(EncodePod, RoundTripsThroughTheDecoder) {
  Pod pod = decode_pod(testing::kPodJson);
  std::string json = to_json(pod);
  EXPECT_EQ(to_json(decode_pod(json)), json);
  bj::value doc = bj::parse(json);
  EXPECT_EQ(doc.at("apiVersion"), "v1");
  EXPECT_EQ(doc.at("kind"), "Pod");
  EXPECT_EQ(doc.at_pointer("/spec/containers/1/resources/requests/memory"), "1e9");
  EXPECT_EQ(doc.at_pointer("/spec/containers/0/resources/limits/memory"), "512Mi");
  EXPECT_EQ(doc.at_pointer("/status/containerStatuses/0/lastState/terminated/reason"), "OOMKilled");
  EXPECT_EQ(doc.at_pointer("/metadata/labels/app.kubernetes.io~1part-of"), "shop");
}

TEST(EncodeNode, RoundTripsThroughTheDecoder) {
  Node node;
  node.metadata.name = "node-a";
  node.status.allocatable = {{"cpu", q("7800m")}, {"memory", q("31Gi")}};
  node.status.capacity = {{"cpu", q("8")}};
  node.status.conditions.push_back({.type = "Ready", .status = "True", .reason = "KubeletReady"});
  node.status.node_info.kubelet_version = "v1.35.0";
  std::string json = to_json(node);
  EXPECT_EQ(to_json(decode_node(json)), json);
  EXPECT_EQ(bj::parse(json).at_pointer("/status/allocatable/cpu"), "7800m");
}

TEST(ResizePatch, StrategicMergeOfContainerResourcesByName) {
  ResizePatch patch;
  ContainerResize app{.name = "app"};
  app.resources.requests = {{"cpu", q("0.3")}, {"memory", q("300Mi")}};
  app.resources.limits = {{"memory", q("512Mi")}};
  ContainerResize proxy{.name = "proxy"};
  proxy.resources.requests = {{"cpu", q("100m")}};
  patch.containers = {app};
  patch.init_containers = {proxy};
  EXPECT_EQ(resize_patch(patch),
            R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"memory":"512Mi"},)"
            R"("requests":{"cpu":"300m","memory":"300Mi"}}}],"initContainers":[{"name":"proxy",)"
            R"("resources":{"requests":{"cpu":"100m"}}}]}})");
}

TEST(ResizePatch, PodLevelResources) {
  ResizePatch patch;
  patch.pod_resources.emplace().limits = {{"cpu", q("2")}};
  EXPECT_EQ(resize_patch(patch), R"({"spec":{"resources":{"limits":{"cpu":"2"}}}})");
}

Pod observed_pod() { return decode_pod(testing::kPodJson); }

TEST(PodStatusPatch, SetsConditionsAndContainerResourcesInPlace) {
  Pod observed = observed_pod();
  PodStatusPatch change;
  change.set_conditions.push_back({.type = "PodResizeInProgress",
                                   .status = "True",
                                   .last_transition_time = "2025-03-01T12:00:00Z",
                                   .observed_generation = 3});
  change.set_conditions.push_back({.type = "PodResizePending",
                                   .status = "True",
                                   .reason = "Deferred",
                                   .message = "Node didn't have enough resource: cpu",
                                   .last_transition_time = "2025-03-01T12:00:00Z"});
  change.remove_conditions = {"Ready", "NotThere"};
  ContainerResourcesStatus app{.name = "app"};
  app.allocated_resources = ResourceList{{"cpu", q("300m")}, {"memory", q("256Mi")}};
  ContainerResourcesStatus proxy{.name = "proxy"};
  proxy.resources.emplace().requests = {{"cpu", q("75m")}};
  change.containers = {app, proxy};
  change.observed_generation = 3;

  std::string patch = pod_status_patch(observed, change);
  bj::value doc = bj::parse(to_json(observed));
  ASSERT_TRUE(apply_json_patch(doc, patch)) << patch;
  Pod after = decode_pod(bj::serialize(doc));

  EXPECT_EQ(after.status.observed_generation, 3);
  ASSERT_EQ(after.status.conditions.size(), 2u);
  EXPECT_EQ(after.status.conditions[0].type, "PodResizeInProgress");
  EXPECT_EQ(after.status.conditions[0].observed_generation, 3);
  EXPECT_EQ(after.status.conditions[1].reason, "Deferred");
  EXPECT_EQ(find_container_status(after.status, "app")->allocated_resources.at("cpu"), q("300m"));
  EXPECT_EQ(find_container_status(after.status, "proxy")->resources->requests.at("cpu"), q("75m"));
  // Untouched parts stay.
  EXPECT_EQ(find_container_status(after.status, "app")->resources->requests.at("cpu"), q("200m"));
  EXPECT_EQ(find_container_status(after.status, "worker")->restart_count, 12);
}

TEST(PodStatusPatch, FailsWhenThePodChangedSinceItWasRead) {
  Pod observed = observed_pod();
  PodStatusPatch change;
  change.remove_conditions = {"PodResizeInProgress"};
  ContainerResourcesStatus app{.name = "app"};
  app.allocated_resources = ResourceList{{"cpu", q("1")}};
  change.containers = {app};
  std::string patch = pod_status_patch(observed, change);

  Pod current = observed;  // conditions and statuses reordered by another writer
  std::swap(current.status.conditions[0], current.status.conditions[1]);
  bj::value doc = bj::parse(to_json(current));
  EXPECT_FALSE(apply_json_patch(doc, patch));
  current = observed;
  std::swap(current.status.container_statuses[0], current.status.container_statuses[1]);
  doc = bj::parse(to_json(current));
  EXPECT_FALSE(apply_json_patch(doc, patch));
  doc = bj::parse(to_json(observed));
  EXPECT_TRUE(apply_json_patch(doc, patch));
}

TEST(PodStatusPatch, ResourceVersionGuard) {
  Pod observed = observed_pod();
  PodStatusPatch change{.require_resource_version = true};
  EXPECT_EQ(pod_status_patch(observed, change),
            R"([{"op":"test","path":"/metadata/resourceVersion","value":"123456"}])");
  observed.metadata.resource_version.clear();
  EXPECT_THROW(pod_status_patch(observed, change), PatchError);
}

TEST(PodStatusPatch, FirstConditionCreatesTheList) {
  Pod observed;
  observed.status.phase = "Pending";
  PodStatusPatch change;
  change.set_conditions.push_back(
      {.type = "PodResizePending", .status = "True", .reason = "Infeasible"});
  EXPECT_EQ(pod_status_patch(observed, change),
            R"([{"op":"add","path":"/status/conditions","value":[{"type":"PodResizePending",)"
            R"("status":"True","reason":"Infeasible"}]}])");
  EXPECT_EQ(pod_status_patch(observed, {}), "[]");
}

TEST(PodStatusPatch, UnknownContainerIsAnError) {
  PodStatusPatch change;
  change.containers.push_back({.name = "ghost"});
  try {
    pod_status_patch(observed_pod(), change);
    FAIL();
  } catch (const PatchError& e) {
    EXPECT_STREQ(e.what(), "pod status has no container \"ghost\"");
  }
}

Event resize_event() {
  Event e;
  e.metadata.name = "web-1.1826f0c2a8b4e3d1";
  e.metadata.namespace_ = "shop";
  e.involved_object = {.kind = "Pod",
                       .namespace_ = "shop",
                       .name = "web-1",
                       .uid = "u-1",
                       .api_version = "v1",
                       .resource_version = "77"};
  e.reason = "ResizeStarted";
  e.message = "Pod resize started: cpu 250m -> 300m";
  e.type = "Normal";
  e.count = 1;
  e.first_timestamp = e.last_timestamp = "2025-03-01T12:00:00Z";
  e.source = {.component = "tailor-node-agent", .host = "node-a"};
  e.reporting_component = "tailor-node-agent";
  e.reporting_instance = "node-a";
  return e;
}

TEST(EventDocument, HasEveryFieldAndRoundTrips) {
  Event e = resize_event();
  std::string json = to_json(e);
  EXPECT_EQ(
      json,
      R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"web-1.1826f0c2a8b4e3d1",)"
      R"("namespace":"shop"},"involvedObject":{"kind":"Pod","namespace":"shop","name":"web-1",)"
      R"("uid":"u-1","apiVersion":"v1","resourceVersion":"77"},"reason":"ResizeStarted",)"
      R"("message":"Pod resize started: cpu 250m -> 300m","source":{"component":"tailor-node-agent",)"
      R"("host":"node-a"},"firstTimestamp":"2025-03-01T12:00:00Z","lastTimestamp":)"
      R"("2025-03-01T12:00:00Z","count":1,"type":"Normal","reportingComponent":"tailor-node-agent",)"
      R"("reportingInstance":"node-a"})");
  EXPECT_EQ(to_json(decode_event(json)), json);
}

TEST(EventDocument, RepeatPatch) {
  Event e = resize_event();
  e.count = 4;
  e.last_timestamp = "2025-03-01T12:05:00Z";
  EXPECT_EQ(
      event_repeat_patch(e),
      R"({"count":4,"lastTimestamp":"2025-03-01T12:05:00Z","message":"Pod resize started: cpu 250m -> 300m"})");
}

TEST(LeaseDocument, CreateAndGuardedUpdate) {
  Lease lease;
  lease.metadata.name = "tailor-controller";
  lease.metadata.namespace_ = "kube-system";
  lease.spec.holder_identity = "pod-1_5f2c";
  lease.spec.lease_duration_seconds = 15;
  lease.spec.acquire_time = "2025-03-01T12:00:00.000000Z";
  lease.spec.renew_time = "2025-03-01T12:00:10.250000Z";
  lease.spec.lease_transitions = 2;
  std::string json = to_json(lease);
  EXPECT_EQ(
      json,
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":)"
      R"("tailor-controller","namespace":"kube-system"},"spec":{"holderIdentity":"pod-1_5f2c",)"
      R"("leaseDurationSeconds":15,"acquireTime":"2025-03-01T12:00:00.000000Z",)"
      R"("renewTime":"2025-03-01T12:00:10.250000Z","leaseTransitions":2}})");
  EXPECT_EQ(to_json(decode_lease(json)), json);

  EXPECT_THROW(lease_update_patch(lease), PatchError);
  lease.metadata.resource_version = "812";
  lease.spec.holder_identity.clear();
  lease.spec.acquire_time.clear();
  lease.spec.lease_duration_seconds = 1;
  EXPECT_EQ(lease_update_patch(lease),
            R"({"metadata":{"resourceVersion":"812"},"spec":{"leaseDurationSeconds":1,)"
            R"("renewTime":"2025-03-01T12:00:10.250000Z","leaseTransitions":2,)"
            R"("holderIdentity":null,"acquireTime":null}})");
}

TEST(ResourceJson, ListsAndRequirements) {
  ResourceRequirements r;
  r.requests = {{"memory", q("1.5Gi")}, {"cpu", q("0.1")}};
  EXPECT_EQ(to_json(r), R"({"requests":{"cpu":"100m","memory":"1536Mi"}})");
  EXPECT_EQ(to_json(ResourceList{}), "{}");
}

}  // namespace
}  // namespace tailor::kube
