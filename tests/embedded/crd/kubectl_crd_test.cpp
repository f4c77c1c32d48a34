// A CustomResourceDefinition and its custom objects through the real kubectl: Tailor's
// VerticalScalingPolicy applied, served at once (discovery, short name, printer columns),
// defaulted, validated, patched (also through /status) and removed with its CRD.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <regex>

#include "tests/embedded/kubectl_cluster_test.h"
#include "tests/embedded/raw_http_fixture.h"

namespace tailor::embedded::testing {
namespace {

const char* kCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: verticalscalingpolicies.autoscaling.tailor.dev
spec:
  group: autoscaling.tailor.dev
  scope: Namespaced
  names:
    plural: verticalscalingpolicies
    singular: verticalscalingpolicy
    kind: VerticalScalingPolicy
    shortNames: [vsp]
    categories: [tailor]
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - {name: Target, type: string, jsonPath: .spec.targetRef.name}
    - {name: Mode, type: string, jsonPath: .spec.updatePolicy.mode}
    - {name: Min-Replicas, type: integer, jsonPath: .spec.updatePolicy.minReplicas, priority: 1}
    - name: Provided
      type: string
      jsonPath: .status.conditions[?(@.type=="RecommendationProvided")].status
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
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
                default: {}
                properties:
                  mode:
                    type: string
                    enum: ["Off", Initial, Recreate, InPlaceOrRecreate, InPlace]
                    default: InPlaceOrRecreate
                  minReplicas: {type: integer, minimum: 1, default: 1}
                  deferredTimeout:
                    type: string
                    pattern: '^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$'
                    default: 5m
              resourcePolicy:
                type: object
                properties:
                  containerPolicies:
                    type: array
                    items:
                      type: object
                      properties:
                        containerName: {type: string}
                        mode: {type: string, enum: [Auto, "Off"], default: Auto}
                        minAllowed:
                          type: object
                          additionalProperties:
                            anyOf: [{type: integer}, {type: string}]
                            pattern: '^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$'
                            x-kubernetes-int-or-string: true
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
)";

std::string policy(const std::string& name, const std::string& spec_extra = "") {
  return "apiVersion: autoscaling.tailor.dev/v1alpha1\nkind: VerticalScalingPolicy\n"
         "metadata: {name: " +
         name +
         "}\nspec:\n"
         "  targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n" +
         spec_extra;
}

class KubectlCrdTest : public KubectlClusterTest {
 protected:
  void install_crd() {
    write("crd.yaml", kCrd);
    KubectlResult r = kubectl("apply -f crd.yaml");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(r.out,
              "customresourcedefinition.apiextensions.k8s.io/"
              "verticalscalingpolicies.autoscaling.tailor.dev created\n");
  }

  KubectlResult apply(const std::string& name, const std::string& yaml,
                      const std::string& flags = "") {
    write(name + ".yaml", yaml);
    return kubectl("apply " + flags + " -f " + name + ".yaml");
  }
};

TEST_F(KubectlCrdTest, CrdIsEstablishedAndListedByApiResources) {
  install_crd();
  KubectlResult wait = kubectl(
      "wait --for condition=established --timeout=10s "
      "crd/verticalscalingpolicies.autoscaling.tailor.dev");
  ASSERT_EQ(wait.exit_code, 0) << wait.err;
  EXPECT_EQ(wait.out,
            "customresourcedefinition.apiextensions.k8s.io/"
            "verticalscalingpolicies.autoscaling.tailor.dev condition met\n");
  KubectlResult names = kubectl(
      "get crd verticalscalingpolicies.autoscaling.tailor.dev "
      "-o jsonpath={.status.acceptedNames.shortNames}/{.status.storedVersions}");
  EXPECT_EQ(names.out, "[\"vsp\"]/[\"v1alpha1\"]") << names.err;
  KubectlResult crds = kubectl("get crd");
  EXPECT_TRUE(std::regex_search(
      crds.out, std::regex("^NAME +CREATED AT\n"
                           "verticalscalingpolicies.autoscaling.tailor.dev +"
                           "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\n$")))
      << crds.out;
  KubectlResult r = kubectl("api-resources --api-group=autoscaling.tailor.dev");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("verticalscalingpolicies   vsp          autoscaling.tailor.dev/v1alpha1   "
                       "true         VerticalScalingPolicy"),
            std::string::npos)
      << r.out;
  KubectlResult category = kubectl("get tailor");
  EXPECT_EQ(category.exit_code, 0) << category.err;
  EXPECT_NE(category.err.find("No resources found in default namespace."), std::string::npos)
      << category.err;
}

TEST_F(KubectlCrdTest, ObjectsAreDefaultedAndPrintedWithTheirColumns) {
  install_crd();
  KubectlResult created = apply("web", policy("web"));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(created.out, "verticalscalingpolicy.autoscaling.tailor.dev/web created\n");
  KubectlResult defaults =
      kubectl("get vsp web -o jsonpath={.spec.updatePolicy}/{.metadata.generation}");
  EXPECT_EQ(defaults.out,
            R"({"deferredTimeout":"5m","minReplicas":1,"mode":"InPlaceOrRecreate"}/1)")
      << defaults.err;
  KubectlResult table = kubectl("get vsp");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  // Cells without a value are null; kubectl prints them empty.
  EXPECT_TRUE(
      table.out.starts_with("NAME   TARGET   MODE                PROVIDED   AGE\n"
                            "web    web      InPlaceOrRecreate              "))
      << table.out;
  KubectlResult wide = kubectl("get verticalscalingpolicies.autoscaling.tailor.dev -o wide");
  EXPECT_TRUE(
      wide.out.starts_with("NAME   TARGET   MODE                MIN-REPLICAS   PROVIDED   AGE\n"
                           "web    web      InPlaceOrRecreate   1                         "))
      << wide.out << wide.err;
}

TEST_F(KubectlCrdTest, SpecPatchBumpsGenerationAndStatusGoesThroughItsSubresource) {
  install_crd();
  ASSERT_EQ(apply("web", policy("web")).exit_code, 0);
  KubectlResult spec =
      kubectl(R"(patch vsp web --type merge -p '{"spec":{"updatePolicy":{"mode":"Off"}}}')");
  ASSERT_EQ(spec.exit_code, 0) << spec.err;
  EXPECT_EQ(spec.out, "verticalscalingpolicy.autoscaling.tailor.dev/web patched\n");
  KubectlResult status = kubectl(
      R"(patch vsp web --subresource status --type merge -p '{"status":{"conditions":[{"type":"RecommendationProvided","status":"True"}]},"spec":{"updatePolicy":{"mode":"InPlace"}}}')");
  ASSERT_EQ(status.exit_code, 0) << status.err;
  KubectlResult got =
      kubectl("get vsp web -o jsonpath={.metadata.generation}/{.spec.updatePolicy.mode}");
  EXPECT_EQ(got.out, "2/Off") << got.err;
  KubectlResult table = kubectl("get vsp web --no-headers");
  EXPECT_TRUE(table.out.starts_with("web   web   Off   True   ")) << table.out;
  // A status written through the main resource is ignored.
  KubectlResult main = kubectl(
      R"(patch vsp web --type merge -p '{"status":{"conditions":[]},"spec":{"updatePolicy":{"minReplicas":2}}}')");
  ASSERT_EQ(main.exit_code, 0) << main.err;
  KubectlResult after =
      kubectl("get vsp web -o jsonpath={.metadata.generation}/{.status.conditions[0].status}");
  EXPECT_EQ(after.out, "3/True") << after.err;
}

TEST_F(KubectlCrdTest, ReapplyOfAChangedObjectConfiguresIt) {
  install_crd();
  ASSERT_EQ(apply("web", policy("web")).exit_code, 0);
  KubectlResult again = apply("web", policy("web", "  updatePolicy: {minReplicas: 3}\n"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, "verticalscalingpolicy.autoscaling.tailor.dev/web configured\n");
  KubectlResult got = kubectl("get vsp web -o jsonpath={.spec.updatePolicy.minReplicas}");
  EXPECT_EQ(got.out, "3");
  KubectlResult same = apply("web", policy("web", "  updatePolicy: {minReplicas: 3}\n"));
  EXPECT_EQ(same.out, "verticalscalingpolicy.autoscaling.tailor.dev/web unchanged\n") << same.err;
}

struct SchemaCase {
  const char* name;
  const char* spec_extra;
  const char* message;
};

class KubectlSchemaTest : public KubectlCrdTest,
                          public ::testing::WithParamInterface<SchemaCase> {};

TEST_P(KubectlSchemaTest, ViolationsAreRejectedWithKubernetesMessages) {
  install_crd();
  KubectlResult r = apply("bad", policy("bad", GetParam().spec_extra));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
  EXPECT_NE(kubectl("get vsp bad").exit_code, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Table, KubectlSchemaTest,
    ::testing::Values(
        SchemaCase{"minimum", "  updatePolicy: {minReplicas: 0}\n",
                   "The VerticalScalingPolicy \"bad\" is invalid: spec.updatePolicy.minReplicas: "
                   "Invalid value: 0: spec.updatePolicy.minReplicas in body should be greater "
                   "than or equal to 1"},
        SchemaCase{"enum", "  updatePolicy: {mode: Sometimes}\n",
                   "The VerticalScalingPolicy \"bad\" is invalid: spec.updatePolicy.mode: "
                   "Unsupported value: \"Sometimes\": supported values: \"Off\", \"Initial\", "
                   "\"Recreate\", \"InPlaceOrRecreate\", \"InPlace\""},
        SchemaCase{"type", "  updatePolicy: {minReplicas: many}\n",
                   "spec.updatePolicy.minReplicas: Invalid value: \"string\": "
                   "spec.updatePolicy.minReplicas in body must be of type integer: \"string\""},
        SchemaCase{"quantity",
                   "  resourcePolicy:\n    containerPolicies:\n    - containerName: app\n"
                   "      minAllowed: {cpu: lots}\n",
                   "spec.resourcePolicy.containerPolicies[0].minAllowed.cpu: Invalid value: "
                   "\"lots\": spec.resourcePolicy.containerPolicies[0].minAllowed.cpu in body "
                   "should match"},
        SchemaCase{"pattern", "  updatePolicy: {deferredTimeout: soon}\n",
                   "spec.updatePolicy.deferredTimeout: Invalid value: \"soon\": "
                   "spec.updatePolicy.deferredTimeout in body should match"}));

TEST_F(KubectlCrdTest, MissingRequiredFieldIsNamed) {
  install_crd();
  KubectlResult r = apply("bad",
                          "apiVersion: autoscaling.tailor.dev/v1alpha1\n"
                          "kind: VerticalScalingPolicy\nmetadata: {name: bad}\nspec: {}\n");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("The VerticalScalingPolicy \"bad\" is invalid: spec.targetRef: Required "
                       "value"),
            std::string::npos)
      << r.err;
}

TEST_F(KubectlCrdTest, UnknownFieldsArePrunedWhenNotValidated) {
  install_crd();
  KubectlResult r = apply("web", policy("web", "  surprise: 1\n"), "--validate=false");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  KubectlResult got = kubectl("get vsp web -o jsonpath={.spec}");
  EXPECT_EQ(got.out.find("surprise"), std::string::npos) << got.out;
  EXPECT_NE(got.out.find("targetRef"), std::string::npos) << got.out;
}

// kubectl's default --validate=strict sends fieldValidation=Strict: fields the schema does not
// declare are an error naming each (sorted), --validate=warn makes them warnings.
TEST_F(KubectlCrdTest, UnknownFieldsAreRejectedWhenStrict) {
  install_crd();
  std::string extra =
      "  surprise: 1\n"
      "  resourcePolicy:\n"
      "    containerPolicies: [{containerName: app, colour: blue}]\n";
  KubectlResult r = apply("web", policy("web", extra));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "Error from server (BadRequest): error when creating \"web.yaml\": "
            "VerticalScalingPolicy in version \"v1alpha1\" cannot be handled as a "
            "VerticalScalingPolicy: strict decoding error: unknown field "
            "\"spec.resourcePolicy.containerPolicies[0].colour\", unknown field "
            "\"spec.surprise\"\n");
  EXPECT_EQ(kubectl("get vsp").err, "No resources found in default namespace.\n");

  KubectlResult warned = apply("web", policy("web", extra), "--validate=warn");
  ASSERT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_NE(warned.err.find("Warning: unknown field \"spec.surprise\""), std::string::npos)
      << warned.err;
  EXPECT_EQ(kubectl("get vsp web -o jsonpath={.spec.resourcePolicy}").out,
            R"({"containerPolicies":[{"containerName":"app","mode":"Auto"}]})");
}

// kubectl apply --server-side: the typed patch object fails on the fields the schema does not
// declare whatever --validate says (a list without map keys named by index); what is under
// x-kubernetes-preserve-unknown-fields (status here) is declared.
TEST_F(KubectlCrdTest, ServerSideApplyOfUndeclaredFieldsFails) {
  install_crd();
  std::string extra =
      "  surprise: 1\n"
      "  resourcePolicy:\n"
      "    containerPolicies: [{containerName: app, colour: blue}]\n";
  for (const char* validate : {"", " --validate=warn", " --validate=false"}) {
    SCOPED_TRACE(validate);
    write("web.yaml", policy("web", extra));
    KubectlResult r = kubectl(std::string("apply --server-side -f web.yaml") + validate);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err,
              "Error from server: failed to create typed patch object (default/web; "
              "autoscaling.tailor.dev/v1alpha1, Kind=VerticalScalingPolicy): errors:\n"
              "  .spec.resourcePolicy.containerPolicies[0].colour: field not declared in schema\n"
              "  .spec.surprise: field not declared in schema\n");
  }
  EXPECT_EQ(kubectl("get vsp").err, "No resources found in default namespace.\n");
  write("web.yaml", policy("web") + "status:\n  anything: 1\n");
  KubectlResult applied = kubectl("apply --server-side -f web.yaml");
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  EXPECT_EQ(applied.out, "verticalscalingpolicy.autoscaling.tailor.dev/web serverside-applied\n");
  write("web.yaml", std::string("apiVersion: autoscaling.tailor.dev/v1alpha1\n") +
                        "kind: VerticalScalingPolicy\nmetadata: {name: web, colour: blue}\n" +
                        "spec:\n  targetRef: {kind: Deployment, name: web}\n");
  KubectlResult meta = kubectl("apply --server-side -f web.yaml");
  EXPECT_EQ(meta.exit_code, 1);
  EXPECT_EQ(meta.err,
            "Error from server: failed to create typed patch object (default/web; "
            "autoscaling.tailor.dev/v1alpha1, Kind=VerticalScalingPolicy): .metadata.colour: "
            "field not declared in schema\n");
  write("web.yaml", policy("web", "  surprise: 1\n"));
  KubectlResult again = kubectl("apply --server-side -f web.yaml");
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err,
            "Error from server: failed to create typed patch object (default/web; "
            "autoscaling.tailor.dev/v1alpha1, Kind=VerticalScalingPolicy): .spec.surprise: field "
            "not declared in schema\n");
}

// kubectl apply re-applies a custom object with a JSON merge patch and fieldValidation=Strict:
// an unknown field is the patch handler's 422 (kubectl: "The request is invalid"), Warn applies
// the patch without it. kubectl patch's default strategic merge patch is 415 for custom
// resources, as kube-apiserver answers.
TEST_F(KubectlCrdTest, PatchesFollowFieldValidation) {
  install_crd();
  ASSERT_EQ(apply("web", policy("web")).exit_code, 0);
  KubectlResult strict = apply("web", policy("web", "  surprise: 1\n"));
  EXPECT_EQ(strict.exit_code, 1);
  // The value is the patched object (uid, timestamps and all).
  EXPECT_TRUE(strict.err.starts_with(
      R"(The request is invalid: patch: Invalid value: "{\"apiVersion\":\"autoscaling.tailor.dev/v1alpha1\",)"))
      << strict.err;
  EXPECT_TRUE(strict.err.ends_with("\": strict decoding error: unknown field \"spec.surprise\"\n"))
      << strict.err;
  EXPECT_EQ(kubectl("get vsp web -o jsonpath={.metadata.generation}").out, "1");
  KubectlResult warned = apply("web", policy("web", "  surprise: 1\n"), "--validate=warn");
  ASSERT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_EQ(warned.err, "Warning: unknown field \"spec.surprise\"\n");
  EXPECT_EQ(kubectl("get vsp web -o jsonpath={.spec.surprise}").out, "");
  KubectlResult smp = kubectl(R"(patch vsp web -p '{"spec":{"updatePolicy":{"mode":"Off"}}}')");
  EXPECT_EQ(smp.exit_code, 1);
  EXPECT_EQ(smp.err,
            "error: application/strategic-merge-patch+json is not supported by "
            "autoscaling.tailor.dev/v1alpha1, Kind=VerticalScalingPolicy: the body of the request "
            "was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, "
            "application/apply-patch+yaml\n");
}

// Raw requests: a custom object's repeated keys (read from the text) come before the fields its
// schema prunes, in one strict decoding error, for a create and for a merge patch.
TEST_F(KubectlCrdTest, RepeatedAndUnknownFieldsInOneStrictError) {
  install_crd();
  kube::http::Client client(admin_client_options(*cluster_));
  auto send = [&](const std::string& method, const std::string& target, const std::string& type,
                  const std::string& body) {
    return send_as_admin(client, *cluster_, method, target, type, body);
  };
  const std::string collection =
      "/apis/autoscaling.tailor.dev/v1alpha1/namespaces/default/verticalscalingpolicies";
  const std::string body =
      R"({"apiVersion":"autoscaling.tailor.dev/v1alpha1","kind":"VerticalScalingPolicy",
          "metadata":{"name":"web"},"spec":{"surprise":1,
          "targetRef":{"kind":"Deployment","name":"web","name":"web"}}})";
  kube::http::ClientResponse created =
      send("POST", collection + "?fieldValidation=Strict", "application/json", body);
  ASSERT_EQ(created.status, 400) << created.body;
  EXPECT_EQ(boost::json::parse(created.body).at("message"),
            "VerticalScalingPolicy in version \"v1alpha1\" cannot be handled as a "
            "VerticalScalingPolicy: strict decoding error: duplicate field "
            "\"spec.targetRef.name\", unknown field \"spec.surprise\"");
  created = send("POST", collection, "application/json", body);
  ASSERT_EQ(created.status, 201) << created.body;
  kube::http::ClientResponse patched =
      send("PATCH", collection + "/web?fieldValidation=Strict", "application/merge-patch+json",
           R"({"spec":{"colour":"blue","updatePolicy":{"mode":"Off","mode":"Off"}}})");
  ASSERT_EQ(patched.status, 422) << patched.body;
  std::string message(boost::json::parse(patched.body).at("message").as_string());
  EXPECT_TRUE(
      message.ends_with(": strict decoding error: duplicate field "
                        "\"spec.updatePolicy.mode\", unknown field \"spec.colour\""))
      << message;
}

TEST_F(KubectlCrdTest, DeletingTheCrdRemovesItsObjectsAndTheResource) {
  install_crd();
  ASSERT_EQ(apply("web", policy("web")).exit_code, 0);
  KubectlResult one = kubectl("delete vsp web");
  EXPECT_EQ(one.out, "verticalscalingpolicy.autoscaling.tailor.dev \"web\" deleted\n") << one.err;
  ASSERT_EQ(apply("web", policy("web")).exit_code, 0);
  KubectlResult del = kubectl("delete crd verticalscalingpolicies.autoscaling.tailor.dev");
  ASSERT_EQ(del.exit_code, 0) << del.err;
  // kubectl's discovery cache still knows the short name; the server no longer serves it.
  KubectlResult gone = kubectl("get vsp");
  EXPECT_NE(gone.exit_code, 0);
  EXPECT_NE(gone.err.find("Error from server (NotFound): Unable to list \"autoscaling.tailor.dev/"
                          "v1alpha1, Resource=verticalscalingpolicies\": the server could not "
                          "find the requested resource"),
            std::string::npos)
      << gone.err;
  KubectlResult fresh = kubectl("api-resources --api-group=autoscaling.tailor.dev --cached=false");
  EXPECT_EQ(fresh.out.find("verticalscalingpolicies"), std::string::npos) << fresh.out;
  // Created again, the CRD starts empty.
  install_crd();
  KubectlResult empty = kubectl("get vsp");
  EXPECT_NE(empty.err.find("No resources found in default namespace."), std::string::npos)
      << empty.out << empty.err;
}

TEST_F(KubectlCrdTest, InvalidCrdsAreRejectedWithKubernetesMessages) {
  std::string crd = kCrd;
  std::string two_storage = crd;
  two_storage.replace(two_storage.find("  - name: v1alpha1"), 0,
                      "  - name: v1beta1\n    served: true\n    storage: true\n    schema:\n"
                      "      openAPIV3Schema: {type: object}\n");
  write("two.yaml", two_storage);
  KubectlResult r = kubectl("apply -f two.yaml");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("The CustomResourceDefinition "
                       "\"verticalscalingpolicies.autoscaling.tailor.dev\" is invalid: "
                       "spec.versions: Invalid value: "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("must have exactly one version marked as storage version"),
            std::string::npos)
      << r.err;
  std::string misnamed = crd;
  misnamed.replace(misnamed.find("name: verticalscalingpolicies.autoscaling.tailor.dev"),
                   std::string("name: verticalscalingpolicies.autoscaling.tailor.dev").size(),
                   "name: policies.autoscaling.tailor.dev");
  write("misnamed.yaml", misnamed);
  KubectlResult m = kubectl("apply -f misnamed.yaml");
  EXPECT_NE(m.err.find("metadata.name: Invalid value: \"policies.autoscaling.tailor.dev\": must "
                       "be spec.names.plural+\".\"+spec.group"),
            std::string::npos)
      << m.err;
  EXPECT_NE(kubectl("get crd").err.find("No resources found"), std::string::npos);
}

}  // namespace
}  // namespace tailor::embedded::testing
