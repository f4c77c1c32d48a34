// Issue 15, points 3-6, as a VPA user meets them: VPA's CRD with its schema (the updateMode enum
// of VPA 1.7, InPlace included) and VPA objects written as VPA's examples write them
// (hamster.yaml's shape: a Deployment target, a "*" container policy), applied with the real
// kubectl to tailor-cluster; tailor-controller acting on them; conditions, recommendations,
// events and annotations read back with kubectl, by the names VPA gives them.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "controller/app/controller.h"
#include "kube/client/rest_client.h"
#include "tests/controller/integration/controller_cluster.h"

namespace tailor::controller {
namespace {

// VPA's CRD as VPA 1.7 generates it, without its descriptions and the fields Tailor does not
// read: structural, so tailor-cluster validates the enums and prunes unknown fields as a real
// API server would with the upstream CRD.
constexpr const char* kVpaCrdWithSchema = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: verticalpodautoscalers.autoscaling.k8s.io}
spec:
  group: autoscaling.k8s.io
  scope: Namespaced
  names: {kind: VerticalPodAutoscaler, listKind: VerticalPodAutoscalerList,
          plural: verticalpodautoscalers, singular: verticalpodautoscaler, shortNames: [vpa]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [targetRef]
            properties:
              targetRef:
                type: object
                required: [kind, name]
                properties:
                  apiVersion: {type: string}
                  kind: {type: string}
                  name: {type: string}
              updatePolicy:
                type: object
                properties:
                  updateMode:
                    type: string
                    enum: ["Off", Initial, Recreate, InPlaceOrRecreate, InPlace, Auto]
                  minReplicas: {type: integer, format: int32}
              resourcePolicy:
                type: object
                properties:
                  containerPolicies:
                    type: array
                    items:
                      type: object
                      properties:
                        containerName: {type: string}
                        mode: {type: string, enum: [Auto, "Off"]}
                        minAllowed:
                          type: object
                          additionalProperties: {x-kubernetes-int-or-string: true}
                        maxAllowed:
                          type: object
                          additionalProperties: {x-kubernetes-int-or-string: true}
                        controlledResources:
                          type: array
                          items: {type: string}
                        controlledValues: {type: string, enum: [RequestsAndLimits, RequestsOnly]}
              recommenders:
                type: array
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
)";

// VPA's checkpoint CRD, the same way: no status subresource, as VPA generates it.
constexpr const char* kVpaCheckpointCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: verticalpodautoscalercheckpoints.autoscaling.k8s.io}
spec:
  group: autoscaling.k8s.io
  scope: Namespaced
  names: {kind: VerticalPodAutoscalerCheckpoint, listKind: VerticalPodAutoscalerCheckpointList,
          plural: verticalpodautoscalercheckpoints, singular: verticalpodautoscalercheckpoint,
          shortNames: [vpacheckpoint]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              vpaObjectName: {type: string}
              containerName: {type: string}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
)";

// A VPA object on Deployment `target` as VPA's examples write one: the given update mode, and a
// "*" policy controlling `resources` between VPA's example bounds.
std::string vpa_yaml(const std::string& target, const std::string& mode,
                     const std::string& resources = "[cpu, memory]",
                     const std::string& min_replicas = "") {
  return R"(apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: web-vpa, namespace: default}
spec:
  targetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: )" +
         target + R"(
  updatePolicy:
    updateMode: ")" +
         mode + "\"\n" + min_replicas + R"(  resourcePolicy:
    containerPolicies:
    - containerName: '*'
      minAllowed: {cpu: 10m, memory: 50Mi}
      maxAllowed: {cpu: "2", memory: 2Gi}
      controlledResources: )" +
         resources + "\n";
}

class VpaParityClusterTest
    : public testing::OneNodePlayedTest<
          testing::WebhookClusterTest<embedded::testing::KubectlClusterTest>> {
 protected:
  // Deployment web -> ReplicaSet web-5d9 -> Pod web-1 (100m/100Mi), as the controllers would
  // make them; VPA's CRD with its schema.
  void SetUp() override {
    WebhookClusterTest::SetUp();
    ASSERT_NO_FATAL_FAILURE(install_crd());
    create("deployment", R"({"apiVersion":"apps/v1","kind":"Deployment",
     "metadata":{"name":"web"},
     "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
       "template":{"metadata":{"labels":{"app":"web"}},
         "spec":{"containers":[{"name":"app","image":"busybox"}]}}}})");
    create("replicaset", R"({"apiVersion":"apps/v1","kind":"ReplicaSet",
     "metadata":{"name":"web-5d9","labels":{"app":"web"},"ownerReferences":[{"apiVersion":"apps/v1",
       "kind":"Deployment","name":"web","uid":")" +
                             uid_of("deployment web") + R"(","controller":true}]},
     "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
       "template":{"metadata":{"labels":{"app":"web"}},
         "spec":{"containers":[{"name":"app","image":"busybox"}]}}}})");
    create("pod", pod_json("web-1"));
    ASSERT_NO_FATAL_FAILURE(report_running());
    write("vpa-crd.yaml", kVpaCrdWithSchema);
    ASSERT_EQ(kubectl("apply -f vpa-crd.yaml").exit_code, 0);
    ASSERT_EQ(kubectl("wait --for=condition=Established --timeout=10s "
                      "crd/verticalpodautoscalers.autoscaling.k8s.io")
                  .exit_code,
              0);
    client_ = std::make_unique<kube::RestClient>(rest_config());
  }

  std::string pod_json(const std::string& name) {
    return R"({"apiVersion":"v1","kind":"Pod",
     "metadata":{"name":")" +
           name + R"(","labels":{"app":"web"},"ownerReferences":[{"apiVersion":"apps/v1",
       "kind":"ReplicaSet","name":"web-5d9","uid":")" +
           uid_of("replicaset web-5d9") + R"(","controller":true}]},
     "spec":{"nodeName":"node-1","containers":[{"name":"app","image":"busybox",
       "resources":{"requests":{"cpu":"100m","memory":"100Mi"},
                    "limits":{"cpu":"200m","memory":"200Mi"}}}]}})";
  }

  void create(const std::string& what, const std::string& json) {
    write(what + ".json", json);
    auto created = kubectl("create -f " + what + ".json");
    ASSERT_EQ(created.exit_code, 0) << created.err;
  }

  embedded::testing::KubectlResult apply_vpa(const std::string& yaml) {
    write("vpa.yaml", yaml);
    return kubectl("apply -f vpa.yaml");
  }

  // A controller acting on VPA objects (as --watch-vpa=true) that has seen the VPA object and
  // learned web-1's usage (a whole core and 400 MiB for two hours).
  std::unique_ptr<Controller> start_controller() {
    ControllerOptions o;
    o.checkpoint_interval = std::chrono::hours(1);  // written when the test says
    o.view.watch_vpa = true;
    o.strategy = "vpa";
    auto c = std::make_unique<Controller>(*client_, o);
    c->start();
    EXPECT_TRUE(c->wait_for_sync(std::chrono::seconds(10)));
    // The VPA informer is not waited for by wait_for_sync (the CRD is optional).
    for (int i = 0; i < 50 && c->view().snapshot(now()).policies.empty(); ++i) settle();
    EXPECT_EQ(c->view().snapshot(now()).policies.size(), 1u);
    c->run_pass(now());
    testing::feed_usage(*c, testing::kBusyApp);
    return c;
  }

  void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }
  kube::TimePoint now() const { return kube::TimePoint(std::chrono::system_clock::now()); }

  // "type=status reason message" of each condition of web-vpa, one per line.
  std::string conditions() {
    return kubectl(
               "get vpa web-vpa -o 'jsonpath={range .status.conditions[*]}{.type}={.status} "
               "{.reason} {.message}{\"\\n\"}{end}'")
        .out;
  }

  // "reason kind/name: message" of the events of `reason`, one per line.
  std::string events(const std::string& reason) {
    return kubectl("get events --field-selector reason=" + reason +
                   " -o 'jsonpath={range .items[*]}{.reason} "
                   "{.involvedObject.kind}/{.involvedObject.name}: {.message}{\"\\n\"}{end}'")
        .out;
  }

  std::unique_ptr<kube::RestClient> client_;
};

// updateMode: InPlace is VPA's enum (the CRD takes it), and Tailor acts on it in place: no
// ConfigUnsupported, no NoPodsMatched, the pod resized with the same uid and VPA's marker and
// event. controlledResources: [memory] leaves cpu out of the recommendation and of the resize.
TEST_F(VpaParityClusterTest, InPlaceModeWithMemoryOnlyIsActedOnInPlace) {
  auto applied = apply_vpa(vpa_yaml("web", "InPlace", "[memory]", "    minReplicas: 1\n"));
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  const std::string uid = uid_of("pod web-1");
  auto c = start_controller();
  EXPECT_EQ(c->run_pass(now()), 1u);
  EXPECT_EQ(c->stats().resizes, 1u);
  EXPECT_EQ(c->stats().recreations, 0u);
  c.reset();  // flushes the events

  EXPECT_EQ(conditions(), "RecommendationProvided=True  \n");
  auto target = kubectl(
      "get vpa web-vpa -o 'jsonpath={.status.recommendation.containerRecommendations[0].target}'");
  EXPECT_NE(target.out.find("\"memory\""), std::string::npos) << target.out << target.err;
  EXPECT_EQ(target.out.find("\"cpu\""), std::string::npos) << target.out;
  for (const char* field : {"lowerBound", "upperBound", "uncappedTarget"}) {
    auto bound = kubectl(std::string("get vpa web-vpa -o 'jsonpath={.status.recommendation."
                                     "containerRecommendations[0].") +
                         field + ".cpu}'");
    EXPECT_EQ(bound.out, "") << field;
  }
  auto pod = kubectl(
      "get pod web-1 -o 'jsonpath={.metadata.uid} {.metadata.generation} "
      "{.spec.containers[0].resources.requests.cpu} "
      "{.metadata.annotations.vpaInPlaceUpdated}'");
  EXPECT_EQ(pod.out, uid + " 2 100m true") << pod.err;
  EXPECT_EQ(events("InPlaceResizedByVPA"),
            "InPlaceResizedByVPA Pod/web-1: Pod was resized in place by VPA Updater.\n");
  EXPECT_EQ(events("ResizeRequested"), "");  // Tailor's own reason stays on its own policies
}

// A value outside VPA's enum is refused by the CRD, as with the upstream CRD, before Tailor sees
// it.
TEST_F(VpaParityClusterTest, ModeOutsideVpasEnumIsRefusedByTheCrd) {
  auto applied = apply_vpa(vpa_yaml("web", "InPlaceOnly"));
  EXPECT_NE(applied.exit_code, 0);
  EXPECT_NE(applied.err.find("spec.updatePolicy.updateMode: Unsupported value: \"InPlaceOnly\""),
            std::string::npos)
      << applied.err;
}

// A targetRef to a Deployment that does not exist: VPA's ConfigUnsupported, with no reason and
// its message, and NoPodsMatched as its recommender follows it with.
TEST_F(VpaParityClusterTest, MissingTargetIsConfigUnsupported) {
  auto applied = apply_vpa(vpa_yaml("gone", "Recreate"));
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  auto c = start_controller();
  EXPECT_EQ(c->run_pass(now()), 0u);
  EXPECT_EQ(conditions(),
            "ConfigUnsupported=True  Cannot read targetRef. Reason: Deployment default/gone does "
            "not exist\n"
            "NoPodsMatched=True NoPodsMatched No pods match this VPA object\n"
            "RecommendationProvided=False NoPodsMatched No pods match this VPA object\n");
  // Created afterwards, the Deployment is found: ConfigUnsupported goes as VPA deletes it.
  create("gone", R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"gone"},
     "spec":{"replicas":0,"selector":{"matchLabels":{"app":"gone"}},
       "template":{"metadata":{"labels":{"app":"gone"}},
         "spec":{"containers":[{"name":"app","image":"busybox"}]}}}})");
  settle();
  c->run_pass(now());
  EXPECT_EQ(conditions().find("ConfigUnsupported"), std::string::npos) << conditions();
}

// A targetRef to the Deployment's ReplicaSet: VPA's validateTargetRef refuses a target with a
// well-known parent controller (ConfigUnsupported, its message) and matches no pods.
TEST_F(VpaParityClusterTest, TargetWithAParentControllerIsConfigUnsupported) {
  std::string yaml = vpa_yaml("web-5d9", "Recreate");
  yaml.replace(yaml.find("kind: Deployment"), 16, "kind: ReplicaSet");
  auto applied = apply_vpa(yaml);
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  auto c = start_controller();
  EXPECT_EQ(c->run_pass(now()), 0u);
  EXPECT_EQ(c->stats().recreations, 0u);
  EXPECT_EQ(conditions(),
            "ConfigUnsupported=True  The target apps/v1.ReplicaSet/web-5d9 has a parent "
            "controller but it should point to a topmost well-known or scalable controller\n"
            "NoPodsMatched=True NoPodsMatched No pods match this VPA object\n"
            "RecommendationProvided=False NoPodsMatched No pods match this VPA object\n");
}

// Recreate: the eviction is told as VPA's updater tells it, on the pod and on the VPA object.
TEST_F(VpaParityClusterTest, EvictionIsToldWithVpasEvents) {
  auto applied = apply_vpa(vpa_yaml("web", "Recreate", "[cpu, memory]", "    minReplicas: 1\n"));
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  auto c = start_controller();
  EXPECT_EQ(c->run_pass(now()), 1u);
  EXPECT_EQ(c->stats().recreations, 1u);
  c.reset();  // flushes the events
  EXPECT_EQ(events("EvictedByVPA"),
            "EvictedByVPA Pod/web-1: Pod was evicted by VPA Updater to apply resource "
            "recommendation.\n");
  EXPECT_EQ(events("EvictedPod"),
            "EvictedPod VerticalPodAutoscaler/web-vpa: VPA Updater evicted Pod web-1 to apply "
            "resource recommendation.\n");
  EXPECT_EQ(events("Recreating"), "");
}

// A new pod of the VPA object's Deployment, admitted through the API server: sized by the
// webhook, with VPA's admission controller's annotations.
TEST_F(VpaParityClusterTest, NewPodsGetVpasAdmissionAnnotations) {
  auto applied = apply_vpa(vpa_yaml("web", "Initial"));
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  auto c = start_controller();
  auto hook = serve_webhook(*c);
  ASSERT_TRUE(hook);
  create("pod2", pod_json("web-2"));
  auto annotations = kubectl(
      "get pod web-2 -o 'jsonpath={.metadata.annotations.vpaObservedContainers}|"
      "{.metadata.annotations.vpaUpdates}'");
  EXPECT_EQ(annotations.out,
            "app|Pod resources updated by web-vpa: container 0: cpu request, memory request, cpu "
            "limit, memory limit")
      << annotations.err;
}

// Under --strategy=vpa the model of a VPA object's container is also written as VPA's own
// VerticalPodAutoscalerCheckpoint "<vpa>-<container>", and removed with the VPA object.
TEST_F(VpaParityClusterTest, VpaCheckpointsAreWrittenAsVpasRecommenderWritesThem) {
  ASSERT_NO_FATAL_FAILURE(install_crd("verticalscalingcheckpoints"));
  write("vpa-checkpoint-crd.yaml", kVpaCheckpointCrd);
  ASSERT_EQ(kubectl("apply -f vpa-checkpoint-crd.yaml").exit_code, 0);
  ASSERT_EQ(kubectl("wait --for=condition=Established --timeout=10s "
                    "crd/verticalpodautoscalercheckpoints.autoscaling.k8s.io")
                .exit_code,
            0);
  auto applied = apply_vpa(vpa_yaml("web", "Off"));
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  auto c = start_controller();
  c->run_pass(now());
  c->save_checkpoints(now());
  auto checkpoint = kubectl(
      "get vpacheckpoint web-vpa-app -o 'jsonpath={.spec.vpaObjectName} {.spec.containerName} "
      "{.status.version} {.status.totalSamplesCount}'");
  ASSERT_EQ(checkpoint.exit_code, 0) << checkpoint.err;
  // The same samples as Tailor's own checkpoint of the model.
  auto samples = kubectl(
      "get verticalscalingcheckpoint vpa-web-vpa-app -o 'jsonpath={.status.totalSamplesCount}'");
  ASSERT_EQ(samples.exit_code, 0) << samples.err;
  EXPECT_NE(samples.out, "0");
  EXPECT_EQ(checkpoint.out, "web-vpa app v3 " + samples.out);
  auto weight =
      kubectl("get vpacheckpoint web-vpa-app -o 'jsonpath={.status.memoryHistogram.totalWeight}'");
  EXPECT_FALSE(weight.out.empty()) << weight.err;
  EXPECT_NE(weight.out, "0");

  ASSERT_EQ(kubectl("delete vpa web-vpa").exit_code, 0);
  for (int i = 0; i < 50 && !c->view().snapshot(now()).policies.empty(); ++i) settle();
  c->save_checkpoints(now());
  EXPECT_NE(kubectl("get vpacheckpoint web-vpa-app").exit_code, 0);
}

// An HPA scaling the VPA object's Deployment on cpu: a condition on the VPA object (VPA has no
// condition type for it; HorizontalScalerConflict is Tailor's) besides the Warning event, and cpu
// left to the HPA.
TEST_F(VpaParityClusterTest, HpaConflictIsAConditionOnTheVpaObject) {
  write("hpa.yaml", R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web-cpu}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
)");
  ASSERT_EQ(kubectl("apply -f hpa.yaml").exit_code, 0);
  auto applied =
      apply_vpa(vpa_yaml("web", "InPlaceOrRecreate", "[cpu, memory]", "    minReplicas: 1\n"));
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  auto c = start_controller();
  EXPECT_EQ(c->run_pass(now()), 1u);
  c.reset();  // flushes the events
  EXPECT_EQ(conditions(),
            "RecommendationProvided=True  \n"
            "HorizontalScalerConflict=True HorizontalPodAutoscaler HorizontalPodAutoscaler web-cpu "
            "scales Deployment web on cpu; Tailor leaves cpu alone\n");
  EXPECT_EQ(events("HorizontalScalerConflict"),
            "HorizontalScalerConflict VerticalPodAutoscaler/web-vpa: HorizontalPodAutoscaler "
            "web-cpu scales Deployment web on cpu; Tailor leaves cpu alone\n");
  EXPECT_EQ(kubectl("get pod web-1 -o 'jsonpath={.spec.containers[0].resources.requests.cpu}'").out,
            "100m");
}

}  // namespace
}  // namespace tailor::controller
