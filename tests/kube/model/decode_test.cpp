#include "kube/model/decode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/kube/model/fixtures.h"

namespace tailor::kube {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

Quantity q(const char* text) { return Quantity::parse(text); }

// The DecodeError message for a pod document, or "" when it decodes.
std::string pod_error(std::string_view json) {
  try {
    decode_pod(json);
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "";
}

TEST(DecodePod, ReadsMetadata) {
  Pod pod = decode_pod(testing::kPodJson);
  EXPECT_EQ(pod.metadata.name, "web-7d9f8c6b5-x2x4q");
  EXPECT_EQ(pod.metadata.generate_name, "web-7d9f8c6b5-");
  EXPECT_EQ(pod.metadata.namespace_, "shop");
  EXPECT_EQ(pod.metadata.uid, "0b1f7d7e-4f3a-4c61-9b0e-2f8f3b1c9a11");
  EXPECT_EQ(pod.metadata.resource_version, "123456");
  EXPECT_EQ(pod.metadata.generation, 2);
  EXPECT_EQ(pod.metadata.creation_timestamp, "2025-03-01T10:00:00Z");
  EXPECT_EQ(pod.metadata.deletion_timestamp, "");
  EXPECT_FALSE(pod.metadata.deletion_grace_period_seconds.has_value());
  EXPECT_EQ(pod.metadata.labels.at("app.kubernetes.io/part-of"), "shop");
  EXPECT_EQ(pod.metadata.labels.size(), 3u);
  EXPECT_EQ(pod.metadata.annotations.at("kubectl.kubernetes.io/restartedAt"),
            "2025-03-01T09:59:00Z");
  ASSERT_EQ(pod.metadata.owner_references.size(), 1u);
  const OwnerReference* owner = controller_of(pod.metadata);
  ASSERT_NE(owner, nullptr);
  EXPECT_EQ(owner->kind, "ReplicaSet");
  EXPECT_EQ(owner->name, "web-7d9f8c6b5");
  EXPECT_TRUE(owner->block_owner_deletion);
  EXPECT_EQ(pod.metadata.finalizers, std::vector<std::string>{"example.com/keep"});
}

TEST(DecodePod, ReadsSpec) {
  Pod pod = decode_pod(testing::kPodJson);
  const PodSpec& spec = pod.spec;
  EXPECT_EQ(spec.node_name, "node-a");
  EXPECT_EQ(spec.scheduler_name, "default-scheduler");
  EXPECT_EQ(spec.priority_class_name, "high");
  EXPECT_EQ(spec.priority, 1000);
  EXPECT_EQ(spec.restart_policy, "Always");
  EXPECT_EQ(spec.os_name, "linux");
  EXPECT_EQ(spec.overhead.at("memory"), q("16Mi"));
  EXPECT_FALSE(spec.resources.has_value());
  ASSERT_EQ(spec.containers.size(), 2u);
  const Container& app = spec.containers[0];
  EXPECT_EQ(app.name, "app");
  EXPECT_EQ(app.image, "shop/web:1.2.3");
  EXPECT_EQ(app.resources.requests.at("cpu"), q("250m"));
  EXPECT_EQ(app.resources.limits.at("memory"), q("512Mi"));
  ASSERT_EQ(app.resize_policy.size(), 2u);
  EXPECT_EQ(app.resize_policy[1].resource_name, "memory");
  EXPECT_EQ(app.resize_policy[1].restart_policy, "RestartContainer");
  ASSERT_EQ(spec.init_containers.size(), 2u);
  EXPECT_FALSE(is_sidecar(spec.init_containers[0]));
  EXPECT_TRUE(is_sidecar(spec.init_containers[1]));
}

TEST(DecodePod, QuantitiesMayBeJsonNumbers) {
  Pod pod = decode_pod(testing::kPodJson);
  const ResourceList& requests = pod.spec.containers[1].resources.requests;
  EXPECT_EQ(requests.at("cpu"), q("1"));
  EXPECT_EQ(requests.at("memory"), q("1e9"));
  EXPECT_EQ(requests.at("memory").format(), QuantityFormat::DecimalExponent);
  EXPECT_EQ(requests.at("example.com/gpu"), q("1"));
}

TEST(DecodePod, ReadsStatus) {
  Pod pod = decode_pod(testing::kPodJson);
  const PodStatus& status = pod.status;
  EXPECT_EQ(status.phase, "Running");
  EXPECT_EQ(status.qos_class, "Burstable");
  EXPECT_EQ(status.observed_generation, 2);
  EXPECT_EQ(status.host_ip, "10.0.0.5");
  EXPECT_EQ(status.pod_ip, "10.244.1.7");
  EXPECT_EQ(status.start_time, "2025-03-01T10:00:01Z");
  const PodCondition* in_progress = find_condition(status, kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->status, "True");
  EXPECT_EQ(in_progress->observed_generation, 2);
  EXPECT_EQ(in_progress->last_probe_time, "");

  const ContainerStatus* app = find_container_status(status, "app");
  ASSERT_NE(app, nullptr);
  EXPECT_TRUE(app->ready);
  EXPECT_EQ(app->started, true);
  EXPECT_EQ(app->restart_count, 1);
  EXPECT_EQ(app->container_id, "containerd://ccc");
  ASSERT_TRUE(app->state.running.has_value());
  EXPECT_EQ(app->state.running->started_at, "2025-03-01T10:05:00Z");
  ASSERT_TRUE(app->last_state.terminated.has_value());
  EXPECT_EQ(app->last_state.terminated->reason, "OOMKilled");
  EXPECT_EQ(app->last_state.terminated->exit_code, 137);
  EXPECT_EQ(app->allocated_resources.at("cpu"), q("250m"));
  ASSERT_TRUE(app->resources.has_value());
  EXPECT_EQ(app->resources->requests.at("cpu"), q("200m"));

  const ContainerStatus* worker = find_container_status(status, "worker");
  ASSERT_NE(worker, nullptr);
  EXPECT_FALSE(worker->resources.has_value());
  ASSERT_TRUE(worker->state.waiting.has_value());
  EXPECT_EQ(worker->state.waiting->reason, "CrashLoopBackOff");
  EXPECT_FALSE(worker->state.running.has_value());

  ASSERT_EQ(status.init_container_statuses.size(), 2u);
  EXPECT_EQ(status.init_container_statuses[0].state.terminated->reason, "Completed");
  EXPECT_NE(find_container_status(status, "proxy"), nullptr);
}

TEST(DecodePod, NullsReadAsAbsent) {
  Pod pod =
      decode_pod(R"({"metadata": {"name": "p", "labels": null, "deletionGracePeriodSeconds": null,
    "creationTimestamp": null}, "spec": {"containers": [{"name": "c", "resources": {"limits": null,
    "requests": {"cpu": null}}}], "priority": null, "resources": null},
    "status": {"containerStatuses": null, "conditions": [{"type": "Ready", "lastProbeTime": null}]}})");
  EXPECT_TRUE(pod.metadata.labels.empty());
  EXPECT_FALSE(pod.spec.priority.has_value());
  EXPECT_FALSE(pod.spec.resources.has_value());
  // apimachinery decodes a null quantity as zero, keeping the key.
  EXPECT_TRUE(pod.spec.containers[0].resources.requests.at("cpu").is_zero());
  EXPECT_TRUE(pod.status.container_statuses.empty());
  EXPECT_EQ(pod.status.conditions[0].type, "Ready");
}

TEST(DecodePod, SkipsUnknownFieldsOfAnyShape) {
  Pod pod = decode_pod(R"({"future": {"a": [1, {"b": [[], {}]}], "c": "\"}"}, "metadata": {"x": [
    "y"], "name": "p", "z": 1.5e300}, "spec": {"containers": [{"unknown": null, "name": "c"}]}})");
  EXPECT_EQ(pod.metadata.name, "p");
  EXPECT_EQ(pod.spec.containers[0].name, "c");
}

// Decoding reuses parses of repeated quantity texts; every value must still be its own.
TEST(DecodePod, ManyDistinctAndRepeatedQuantities) {
  std::string overhead;
  std::vector<std::string> texts;
  for (int i = 0; i < 300; ++i) {
    texts.push_back(std::to_string(i % 97) + (i % 3 == 0 ? "Mi" : i % 3 == 1 ? "m" : "e3"));
    overhead += (i ? ", " : "") + ("\"r" + std::to_string(i) + "\": \"" + texts.back() + "\"");
  }
  std::string json = R"({"spec": {"overhead": {)" + overhead + "}}}";
  for (int pass = 0; pass < 2; ++pass) {
    Pod pod = decode_pod(json);
    for (int i = 0; i < 300; ++i) {
      const Quantity& got = pod.spec.overhead.at("r" + std::to_string(i));
      EXPECT_EQ(got, q(texts[i].c_str())) << texts[i];
      EXPECT_EQ(got.to_string(), q(texts[i].c_str()).to_string()) << texts[i];
    }
  }
}

// As apimachinery's Quantity.UnmarshalJSON: the text between the quotes is not unescaped, and
// surrounding spaces are trimmed.
TEST(DecodePod, QuantityStringsAreTakenVerbatimAndTrimmed) {
  EXPECT_THAT(pod_error(R"({"spec": {"overhead": {"cpu": "1\u0030m"}}})"),
              StartsWith("spec.overhead.cpu: "));
  EXPECT_EQ(decode_pod(R"({"spec": {"overhead": {"cpu": "  100m "}}})").spec.overhead.at("cpu"),
            q("100m"));
  EXPECT_THAT(pod_error(R"({"spec": {"overhead": {"cpu": "100m\t"}}})"),  // an escape, not a tab
              StartsWith("spec.overhead.cpu: "));
  EXPECT_THAT(pod_error(R"({"spec": {"overhead": {"cpu": ""}}})"),
              StartsWith("spec.overhead.cpu: "));
}

TEST(DecodePod, PodLevelResources) {
  Pod pod = decode_pod(
      R"({"spec": {"resources": {"requests": {"cpu": "1"}, "limits": {"memory": "1Gi"}}}})");
  ASSERT_TRUE(pod.spec.resources.has_value());
  EXPECT_EQ(pod.spec.resources->limits.at("memory"), q("1Gi"));
}

TEST(DecodePod, EscapedStringsAreUnescaped) {
  Pod pod = decode_pod(
      R"({"metadata": {"name": "a\"b\\c\u00e9", "annotations": {"k\/1": "line\nnext"}}})");
  EXPECT_EQ(pod.metadata.name, "a\"b\\c\xc3\xa9");
  EXPECT_EQ(pod.metadata.annotations.at("k/1"), "line\nnext");
}

// ---- errors: each names the JSON path ----

TEST(DecodeErrors, InvalidQuantityNamesItsPath) {
  std::string error = pod_error(R"({"spec": {"containers": [{"name": "a"}, {"name": "b",
    "resources": {"limits": {"memory": "12 GB"}}}]}})");
  EXPECT_THAT(error, StartsWith("spec.containers[1].resources.limits.memory: "));
  EXPECT_GT(error.size(), std::string("spec.containers[1].resources.limits.memory: ").size());
}

TEST(DecodeErrors, ResourceNamesWithDotsAreBracketed) {
  std::string error = pod_error(R"({"status": {"containerStatuses": [{"name": "a",
    "allocatedResources": {"example.com/gpu": "x1"}}]}})");
  EXPECT_THAT(error,
              StartsWith("status.containerStatuses[0].allocatedResources[example.com/gpu]: "));
}

TEST(DecodeErrors, InvalidQuantityNumbers) {
  EXPECT_THAT(pod_error(R"({"spec": {"overhead": {"cpu": 1e400}}})"),
              StartsWith("spec.overhead.cpu: "));
  EXPECT_THAT(pod_error(R"({"spec": {"overhead": {"cpu": true}}})"),
              HasSubstr("spec.overhead.cpu: expected a quantity (string or number), got boolean"));
  EXPECT_THAT(pod_error(R"({"spec": {"overhead": {"cpu": ["1"]}}})"),
              HasSubstr("spec.overhead.cpu: expected a quantity (string or number), got array"));
}

TEST(DecodeErrors, WrongTypes) {
  EXPECT_EQ(pod_error(R"({"metadata": {"name": 5}})"),
            "metadata.name: expected a string, got number 5");
  EXPECT_EQ(pod_error(R"({"metadata": {"generation": "2"}})"),
            "metadata.generation: expected an integer, got string");
  EXPECT_EQ(pod_error(R"({"metadata": {"generation": 2.5}})"),
            "metadata.generation: expected an integer, got number 2.5");
  EXPECT_EQ(pod_error(R"({"spec": {"containers": {"name": "c"}}})"),
            "spec.containers: expected an array, got object");
  EXPECT_EQ(pod_error(R"({"spec": {"containers": ["c"]}})"),
            "spec.containers[0]: expected an object, got string");
  EXPECT_EQ(pod_error(R"({"status": {"containerStatuses": [{"ready": "yes"}]}})"),
            "status.containerStatuses[0].ready: expected a boolean, got string");
  EXPECT_EQ(pod_error(R"({"metadata": {"labels": {"app": 1}}})"),
            "metadata.labels.app: expected a string, got number 1");
  EXPECT_EQ(pod_error(R"({"metadata": {"labels": {"app.kubernetes.io/name": false}}})"),
            "metadata.labels[app.kubernetes.io/name]: expected a string, got boolean");
  EXPECT_EQ(pod_error(R"([])"), "expected an object, got array");
  EXPECT_EQ(pod_error(R"("pod")"), "expected an object, got string");
  EXPECT_EQ(pod_error("null"), "expected an object, got null");
}

TEST(DecodeErrors, HugeNumbers) {
  EXPECT_EQ(pod_error(R"({"metadata": {"generation": 99999999999999999999}})"),
            "metadata.generation: integer out of range: 99999999999999999999");
  EXPECT_EQ(pod_error(R"({"status": {"containerStatuses": [{"restartCount": 3000000000}]}})"),
            "status.containerStatuses[0].restartCount: integer out of range for int32: 3000000000");
  EXPECT_THAT(pod_error(R"({"metadata": {"generation": 1e400}})"),
              StartsWith("metadata.generation: "));
  EXPECT_THAT(pod_error(R"({"spec": {"priority": -2147483649}})"),
              StartsWith("spec.priority: integer out of range for int32"));
}

TEST(DecodeErrors, MalformedJson) {
  for (const char* bad :
       {R"({"metadata": {"name": "a",}})", R"({"metadata" {"name": "a"}})",
        R"({"metadata": {"name": 'a'}})", R"({"metadata": {"name": "a"}}})",
        R"({"metadata": {"name": "a"}} {"b": 1})", R"({"spec": {"priority": 01}})", "", "   ", "{",
        "nul", "{\"metadata\": {\"name\": \"\xff\"}}"}) {
    SCOPED_TRACE(bad);
    EXPECT_NE(pod_error(bad), "");
  }
}

// Skipping does not recurse, so deep nesting in an unknown field cannot exhaust the stack;
// unbalanced nesting is still an error.
TEST(DecodeErrors, DeepNestingInSkippedFields) {
  std::string deep = R"({"future": )" + std::string(200000, '[') + std::string(200000, ']') +
                     R"(, "metadata": {"name": "p"}})";
  EXPECT_EQ(pod_error(deep), "");
  std::string unbalanced = R"({"future": )" + std::string(200000, '[') + "}";
  EXPECT_NE(pod_error(unbalanced), "");
}

// Every strict prefix of a real document is an error, never a crash or a silent success.
TEST(DecodeErrors, EveryTruncationIsAnError) {
  std::string_view full = testing::kPodJson;
  while (!full.empty() && (full.back() == '\n' || full.back() == ' ')) full.remove_suffix(1);
  for (std::size_t n = 0; n < full.size(); ++n) {
    std::string error = pod_error(full.substr(0, n));
    if (error.empty()) ADD_FAILURE() << "prefix of " << n << " bytes decoded without error";
  }
  EXPECT_EQ(pod_error(full), "");
}

// Flipping any single byte either still decodes or throws DecodeError (nothing else escapes).
TEST(DecodeErrors, SingleByteCorruptionNeverEscapesAsAnotherException) {
  std::string doc = testing::kPodJson;
  for (std::size_t i = 0; i < doc.size(); i += 3) {
    for (char replacement : {'"', '{', ']', ',', 'x', '\\', '\0'}) {
      std::string bad = doc;
      bad[i] = replacement;
      try {
        decode_pod(bad);
      } catch (const DecodeError&) {
      }
    }
  }
}

// A std::string with room after its end is parsed in place; whatever lies in that room (here
// the tail of an earlier, longer content) is not part of the document.
TEST(DecodeInput, PaddedStringIsParsedInPlaceAndEndsAtItsSize) {
  std::string body = R"({"metadata": {"name": "p"}})";
  std::size_t size = body.size();
  body += R"(, "spec": {"nodeName": "junk"}} trailing)";
  body.resize(size);
  reserve_json_padding(body);
  ASSERT_TRUE(JsonInput(body).padded());
  Pod pod = decode_pod(body);
  EXPECT_EQ(pod.metadata.name, "p");
  EXPECT_EQ(pod.spec.node_name, "");

  std::string tight = R"({"metadata": {"name": "q"}})";
  tight.shrink_to_fit();
  EXPECT_FALSE(JsonInput(tight).padded());
  EXPECT_EQ(decode_pod(tight).metadata.name, "q");
  EXPECT_EQ(decode_pod(std::string_view(body)).metadata.name, "p");
}

// With no retention the thread's buffers are freed after every document; decoding (and errors
// that name keys from the parser's buffers) still work.
TEST(DecodeInput, BuffersFreedAfterUseWhenRetentionIsZero) {
  set_json_parser_retention(0);
  EXPECT_EQ(decode_pod(testing::kPodJson).metadata.name, "web-7d9f8c6b5-x2x4q");
  EXPECT_EQ(pod_error(R"({"spec": {"nodeName": 1}})"),
            "spec.nodeName: expected a string, got number 1");
  auto event =
      decode_watch_event<Pod>(R"({"object": {"metadata": {"name": "p"}}, "type": "ADDED"})");
  EXPECT_EQ(event.object.metadata.name, "p");
  set_json_parser_retention(kDefaultJsonParserRetention);
  EXPECT_EQ(decode_pod(testing::kPodJson).metadata.name, "web-7d9f8c6b5-x2x4q");
}

// ---- lists, watch events, other kinds ----

TEST(DecodeList, ReadsItemsAndListMeta) {
  PodList list = decode_pod_list(std::string(R"({"kind": "PodList", "apiVersion": "v1",
    "metadata": {"resourceVersion": "99", "continue": "tok", "remainingItemCount": 7},
    "items": [)") + testing::kPodJson +
                                 R"(, {"metadata": {"name": "second"}}]})");
  EXPECT_EQ(list.metadata.resource_version, "99");
  EXPECT_EQ(list.metadata.continue_token, "tok");
  EXPECT_EQ(list.metadata.remaining_item_count, 7);
  ASSERT_EQ(list.items.size(), 2u);
  EXPECT_EQ(list.items[0].metadata.name, "web-7d9f8c6b5-x2x4q");
  EXPECT_EQ(list.items[1].metadata.name, "second");
}

TEST(DecodeList, ErrorPathIncludesItemIndex) {
  try {
    decode_pod_list(R"({"items": [{}, {"spec": {"priority": "high"}}]})");
    FAIL();
  } catch (const DecodeError& e) {
    EXPECT_EQ(e.path(), "items[1].spec.priority");
    EXPECT_EQ(e.detail(), "expected an integer, got string");
  }
}

TEST(DecodeList, EmptyList) {
  NodeList list = decode_node_list(
      R"({"kind": "NodeList", "metadata": {"resourceVersion": "5"}, "items": []})");
  EXPECT_TRUE(list.items.empty());
  EXPECT_EQ(list.metadata.resource_version, "5");
}

TEST(DecodeList, NullItemsAndOtherKinds) {
  EXPECT_TRUE(decode_pod_list(R"({"metadata": {}, "items": null})").items.empty());
  LeaseList leases = decode_list<Lease>(R"({"items": [{"metadata": {"name": "a"},
    "spec": {"holderIdentity": "x"}}, {"metadata": {"name": "b"}}]})");
  ASSERT_EQ(leases.items.size(), 2u);
  EXPECT_EQ(leases.items[0].spec.holder_identity, "x");
  EventList events = decode_list<Event>(R"({"items": [{"reason": "ResizeDeferred", "count": 2}]})");
  EXPECT_EQ(events.items[0].count, 2);
}

TEST(DecodeWatch, ModifiedNodeAndLease) {
  auto node = decode_watch_event<Node>(R"({"type": "MODIFIED", "object": {"metadata": {"name": "n"},
    "status": {"allocatable": {"cpu": "4"}}}})");
  EXPECT_EQ(node.type, WatchEventType::Modified);
  EXPECT_EQ(node.object.status.allocatable.at("cpu"), Quantity::parse("4"));
  auto lease =
      decode_watch_event<Lease>(R"({"type": "DELETED", "object": {"metadata": {"name": "l"}}})");
  EXPECT_EQ(lease.type, WatchEventType::Deleted);
  EXPECT_EQ(to_string(lease.type), "DELETED");
}

TEST(DecodePartialObjectMetadata, AnyKind) {
  auto rs = decode<PartialObjectMetadata>(R"({"apiVersion": "apps/v1", "kind": "ReplicaSet",
    "metadata": {"name": "web-7d9f8c6b5", "namespace": "shop", "ownerReferences": [{"apiVersion":
    "apps/v1", "kind": "Deployment", "name": "web", "uid": "d1", "controller": true}]},
    "spec": {"replicas": 3, "template": {"spec": {"containers": []}}}, "status": {"replicas": 3}})");
  EXPECT_EQ(rs.kind, "ReplicaSet");
  EXPECT_EQ(rs.api_version, "apps/v1");
  ASSERT_NE(controller_of(rs.metadata), nullptr);
  EXPECT_EQ(controller_of(rs.metadata)->kind, "Deployment");
  auto list = decode_list<PartialObjectMetadata>(R"({"kind": "VerticalScalingPolicyList",
    "metadata": {"resourceVersion": "9"}, "items": [{"metadata": {"name": "web"}}]})");
  EXPECT_EQ(list.items[0].metadata.name, "web");
  auto event = decode_watch_event<PartialObjectMetadata>(R"({"type": "ADDED", "object":
    {"kind": "Deployment", "metadata": {"name": "d"}}})");
  EXPECT_EQ(event.object.kind, "Deployment");
}

TEST(DecodeWatch, AddedPod) {
  auto event = decode_watch_event<Pod>(std::string(R"({"type": "ADDED", "object": )") +
                                       testing::kPodJson + "}");
  EXPECT_EQ(event.type, WatchEventType::Added);
  EXPECT_EQ(event.object.metadata.name, "web-7d9f8c6b5-x2x4q");
  EXPECT_FALSE(event.error.has_value());
}

TEST(DecodeWatch, ObjectBeforeType) {
  auto event =
      decode_watch_event<Pod>(R"({"object": {"metadata": {"name": "p"}}, "type": "DELETED"})");
  EXPECT_EQ(event.type, WatchEventType::Deleted);
  EXPECT_EQ(event.object.metadata.name, "p");
}

TEST(DecodeWatch, ObjectBeforeTypeKeepsErrorPath) {
  try {
    decode_watch_event<Pod>(R"({"object": {"metadata": {"name": 1}}, "type": "ADDED"})");
    FAIL();
  } catch (const DecodeError& e) {
    EXPECT_EQ(e.path(), "object.metadata.name");
  }
}

TEST(DecodeWatch, Bookmark) {
  auto event = decode_watch_event<Pod>(R"({"type": "BOOKMARK", "object": {"kind": "Pod",
    "apiVersion": "v1", "metadata": {"resourceVersion": "12746",
    "annotations": {"k8s.io/initial-events-end": "true"}}}})");
  EXPECT_EQ(event.type, WatchEventType::Bookmark);
  EXPECT_EQ(event.object.metadata.resource_version, "12746");
}

TEST(DecodeWatch, ErrorCarriesStatus) {
  auto event = decode_watch_event<Node>(R"j({"type": "ERROR", "object": {"kind": "Status",
    "apiVersion": "v1", "metadata": {}, "status": "Failure",
    "message": "too old resource version: 1 (5)", "reason": "Expired", "code": 410}})j");
  EXPECT_EQ(event.type, WatchEventType::Error);
  ASSERT_TRUE(event.error.has_value());
  EXPECT_EQ(event.error->code, 410);
  EXPECT_EQ(event.error->reason, "Expired");
  EXPECT_EQ(event.error->message, "too old resource version: 1 (5)");
}

TEST(DecodeWatch, BadEnvelopes) {
  auto error_of = [](std::string_view json) -> std::string {
    try {
      decode_watch_event<Pod>(json);
    } catch (const DecodeError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of(R"({"type": "RENAMED", "object": {}})"),
            "type: unknown watch event type \"RENAMED\"");
  EXPECT_EQ(error_of(R"({"type": "ADDED"})"), "object: missing");
  EXPECT_EQ(error_of(R"({"object": {}})"), "type: missing");
  EXPECT_EQ(error_of(R"({"type": "ADDED", "object": []})"),
            "object: expected an object, got array");
  EXPECT_NE(error_of(R"({"type": "ADDED", "object": {"metadata": )"), "");
}

// Every strict prefix of a watch line (object first, so the deferred path runs) is an error.
TEST(DecodeWatch, EveryTruncationIsAnError) {
  std::string line = std::string(R"({"object": )") + testing::kPodJson + R"(, "type": "MODIFIED"})";
  for (std::size_t n = 0; n < line.size(); n += 7) {
    try {
      decode_watch_event<Pod>(std::string_view(line).substr(0, n));
      ADD_FAILURE() << "prefix of " << n << " bytes decoded without error";
    } catch (const DecodeError&) {
    }
  }
  EXPECT_EQ(decode_watch_event<Pod>(line).type, WatchEventType::Modified);
}

TEST(DecodeStatus, ReadsDetailsAndCauses) {
  Status status = decode_status(R"({"kind": "Status", "apiVersion": "v1", "metadata": {},
    "status": "Failure", "message": "Pod \"p\" is invalid: spec: Forbidden: pod updates may not change fields",
    "reason": "Invalid", "details": {"name": "p", "kind": "Pod", "causes": [{"reason": "FieldValueForbidden",
    "message": "Forbidden: pod updates may not change fields", "field": "spec"}], "retryAfterSeconds": 3},
    "code": 422})");
  EXPECT_EQ(status.status, "Failure");
  EXPECT_EQ(status.code, 422);
  EXPECT_EQ(status.reason, "Invalid");
  ASSERT_TRUE(status.details.has_value());
  EXPECT_EQ(status.details->kind, "Pod");
  ASSERT_EQ(status.details->causes.size(), 1u);
  EXPECT_EQ(status.details->causes[0].field, "spec");
  EXPECT_EQ(status.details->retry_after_seconds, 3);
}

TEST(DecodeNode, ReadsCapacityConditionsAndInfo) {
  Node node = decode_node(R"({"kind": "Node", "metadata": {"name": "node-a", "labels":
    {"kubernetes.io/hostname": "node-a"}}, "spec": {"unschedulable": true, "providerID": "kind://a"},
    "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"}, "allocatable": {"cpu": "7800m",
    "memory": "31Gi", "pods": 110}, "conditions": [{"type": "Ready", "status": "True", "reason":
    "KubeletReady", "lastHeartbeatTime": "2025-03-01T10:00:00Z"}], "nodeInfo": {"kubeletVersion":
    "v1.35.0", "containerRuntimeVersion": "containerd://2.1.0", "operatingSystem": "linux",
    "architecture": "amd64"}, "images": [{"names": ["x"], "sizeBytes": 1}]}})");
  EXPECT_EQ(node.metadata.labels.at("kubernetes.io/hostname"), "node-a");
  EXPECT_TRUE(node.spec.unschedulable);
  EXPECT_EQ(node.status.capacity.at("memory"), q("32Gi"));
  EXPECT_EQ(node.status.allocatable.at("cpu"), q("7800m"));
  EXPECT_EQ(node.status.allocatable.at("pods"), q("110"));
  ASSERT_EQ(node.status.conditions.size(), 1u);
  EXPECT_EQ(node.status.conditions[0].reason, "KubeletReady");
  EXPECT_EQ(node.status.node_info.kubelet_version, "v1.35.0");
}

TEST(DecodeEvent, ReadsAllFields) {
  Event event =
      decode_event(R"({"kind": "Event", "metadata": {"name": "p.17f", "namespace": "shop"},
    "involvedObject": {"kind": "Pod", "namespace": "shop", "name": "p", "uid": "u1",
    "apiVersion": "v1", "resourceVersion": "42", "fieldPath": "spec.containers{app}"},
    "reason": "ResizeStarted", "message": "resize started", "source": {"component": "kubelet",
    "host": "node-a"}, "firstTimestamp": "2025-03-01T10:00:00Z", "lastTimestamp": "2025-03-01T10:01:00Z",
    "count": 3, "type": "Normal", "eventTime": null, "reportingComponent": "kubelet",
    "reportingInstance": "node-a", "action": "Resize"})");
  EXPECT_EQ(event.involved_object.field_path, "spec.containers{app}");
  EXPECT_EQ(event.involved_object.resource_version, "42");
  EXPECT_EQ(event.reason, "ResizeStarted");
  EXPECT_EQ(event.count, 3);
  EXPECT_EQ(event.source.host, "node-a");
  EXPECT_EQ(event.event_time, "");
  EXPECT_EQ(event.reporting_instance, "node-a");
  EXPECT_EQ(event.action, "Resize");
}

TEST(DecodeEvent, RejectsANegativeCount) {
  EXPECT_EQ(decode_event(R"({"count": 0})").count, 0);
  try {
    decode_event(R"({"count": -1})");
    ADD_FAILURE() << "accepted a negative count";
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(), "count: expected a non-negative count, got -1");
  }
}

TEST(DecodeLease, ReadsSpec) {
  Lease lease = decode_lease(R"({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
    "metadata": {"name": "tailor-controller", "namespace": "kube-system", "resourceVersion": "7"},
    "spec": {"holderIdentity": "pod-1_abc", "leaseDurationSeconds": 15,
    "acquireTime": "2025-03-01T10:00:00.000000Z", "renewTime": "2025-03-01T10:00:10.123456Z",
    "leaseTransitions": 4}})");
  EXPECT_EQ(lease.spec.holder_identity, "pod-1_abc");
  EXPECT_EQ(lease.spec.lease_duration_seconds, 15);
  EXPECT_EQ(lease.spec.renew_time, "2025-03-01T10:00:10.123456Z");
  EXPECT_EQ(lease.spec.lease_transitions, 4);
}

// Found by fuzz/kube_objects: a number run into NUL bytes was called out of range, and the NULs
// quoted from it ended what() after the path.
TEST(DecodeError, MalformedNumberIsNotOutOfRangeAndItsBytesArePrintable) {
  const char kJson[] = "{\"metadata\": {\"generation\": 9999999999999999\0\0\0009999}}";
  const std::string json(kJson, sizeof kJson - 1);
  const std::string message = pod_error(json);
  EXPECT_THAT(message, StartsWith("metadata.generation: "));
  EXPECT_THAT(message, HasSubstr("9999999999999999\\x00\\x00\\x009999"));
  EXPECT_THAT(message, ::testing::Not(HasSubstr("out of range")));
}

TEST(DecodeError, ControlBytesOfAKeyArePrintable) {
  EXPECT_EQ(pod_error(R"({"metadata":{"labels":{"a\u0000b":5}}})"),
            "metadata.labels[a\\x00b]: expected a string, got number 5");
}

}  // namespace
}  // namespace tailor::kube
