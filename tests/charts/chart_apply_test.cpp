// The chart as `helm template` renders it for values.yaml and for each documented alternative,
// applied to tailor-cluster with the real kubectl under Strict field validation (an unknown or
// misplaced field is an error, not a warning). tailor-cluster does not serve every kind the chart
// renders: those documents are listed (kServedElsewhere says which and why) and the rest are
// applied; a rendered kind that is neither served nor listed fails the test.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "tests/charts/chart_files.h"
#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::charts {
namespace {

struct Variant {
  const char* name;
  const char* values;  // a -f file over values.yaml
};

const Variant kVariants[] = {
    {"Defaults", ""},
    {"CertManager", "webhook: {certificate: {source: certManager}}"},
    {"CertManagerIssuer",
     "webhook: {certificate: {source: certManager, issuerRef: {name: ca, kind: ClusterIssuer, "
     "group: cert-manager.io}}}"},
    {"SecretCertificates",
     "webhook: {certificate: {source: secret, secretName: my-webhook-tls, caBundle: Q0E=}}\n"
     "usage: {certificate: {source: secret, secretName: my-usage-tls}}"},
    {"PrometheusHistory",
     "controller: {prometheus: {address: 'http://prometheus-operated.monitoring.svc:9090', "
     "bearerTokenSecret: {name: prometheus-token}}}"},
    {"MetricsApi", "controller: {metricsSource: metrics-api}"},
    {"WatchVPA", "controller: {watchVPA: true, upstreamVPARunning: true}"},
    {"NoLeaderElection", "controller: {leaderElection: false, replicas: 1}"},
    {"ServiceMonitor",
     "metrics: {serviceMonitor: {enabled: true, labels: {release: kube-prometheus}}}"},
    {"AgentActuation", "nodeAgent: {actuation: agent, cgroupDriver: cgroupfs}"},
    {"OnlyTheController",
     "nodeAgent: {enabled: false}\nwebhook: {enabled: false}\ndashboards: {enabled: false}\n"
     "usage: {networkPolicy: {enabled: false}}"},
    {"EveryListAndMap", R"(
fullnameOverride: autoscaler
commonLabels: {team: platform}
imagePullSecrets: [{name: regcred}]
image: {repository: registry.example/tailor, tag: "0.1.0-rc1", pullPolicy: Always}
controller:
  extraArgs: ["--v=2"]
  nodeSelector: {kubernetes.io/os: linux}
  tolerations: [{key: dedicated, operator: Equal, value: system, effect: NoSchedule}]
  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]}]}}}
  podAnnotations: {example.com/owner: platform}
  serviceAccount: {name: tailor-ctl, annotations: {example.com/role: autoscaler}}
nodeAgent:
  extraArgs: ["--v=1"]
  podAnnotations: {example.com/owner: platform}
  serviceAccount: {name: tailor-agent}
webhook: {excludedNamespaces: [kube-system, monitoring]}
dashboards: {namespace: default, folder: Tailor}
)"},
};

void PrintTo(const Variant& v, std::ostream* os) { *os << v.name; }

// Kinds the chart renders that tailor-cluster does not serve, and why.
const std::map<std::string, std::string> kServedElsewhere = {
    {"cert-manager.io/v1/Certificate", "cert-manager's CRD"},
    {"cert-manager.io/v1/Issuer", "cert-manager's CRD"},
    {"monitoring.coreos.com/v1/ServiceMonitor", "prometheus-operator's CRD"},
    {"monitoring.coreos.com/v1/PodMonitor", "prometheus-operator's CRD"},
};

std::string type_of(const YAML::Node& object) {
  return object["apiVersion"].as<std::string>() + "/" + object["kind"].as<std::string>();
}

class ChartApplyTest : public embedded::testing::ApiOnlyKubectlTest,
                       public ::testing::WithParamInterface<Variant> {
 protected:
  // "apiVersion/Kind" of every type the cluster serves, from discovery through kubectl.
  std::set<std::string> served_types() {
    const auto r = kubectl("api-resources --no-headers");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::set<std::string> out;
    std::stringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      std::vector<std::string> columns;
      std::stringstream words(line);
      for (std::string w; words >> w;) columns.push_back(w);
      // NAME [SHORTNAMES] APIVERSION NAMESPACED KIND
      if (columns.size() >= 4) out.insert(columns[columns.size() - 3] + "/" + columns.back());
    }
    return out;
  }
};

TEST_P(ChartApplyTest, RendersLintsAndAppliesUnderStrictValidation) {
  const Variant& v = GetParam();
  const HelmRun lint = run_helm_render(
      "--lint --strict " + chart_dir().string() +
      (*v.values ? " -f " + write_scratch(std::string(v.name) + "-lint.yaml", v.values) : ""));
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
  const auto documents = render_documents(v.values);
  ASSERT_FALSE(documents.empty());
  const auto served = served_types();
  ASSERT_TRUE(served.count("apps/v1/Deployment")) << "discovery did not answer";
  std::string applied;
  int objects = 0;
  std::set<std::string> skipped;
  for (const auto& doc : documents) {
    const std::string type = type_of(doc.node);
    if (served.count(type)) {
      applied += "---\n" + doc.text;
      ++objects;
    } else {
      EXPECT_TRUE(kServedElsewhere.count(type))
          << type << " (" << doc.file << ") is rendered but neither served nor listed";
      skipped.insert(type);
    }
  }
  std::string not_applied;
  for (const auto& t : skipped) not_applied += " " + t;
  RecordProperty("not_served", not_applied);
  std::cout << "[ " << v.name << " ] " << objects << " objects applied; not served:" << not_applied
            << "\n";
  const std::string file = write(std::string(v.name) + ".yaml", applied);
  const auto r = kubectl("apply --validate=strict -f " + file);
  ASSERT_EQ(r.exit_code, 0) << r.err << "\n" << applied;
  EXPECT_EQ(r.err, "");
  // Each object is there, as rendered (kubectl get -f reads them back by kind and name).
  const auto got = kubectl("get -f " + file + " -o name");
  EXPECT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(std::count(got.out.begin(), got.out.end(), '\n'), objects) << got.out;
}

INSTANTIATE_TEST_SUITE_P(Variants, ChartApplyTest, ::testing::ValuesIn(kVariants),
                         [](const auto& info) { return std::string(info.param.name); });

// The control: Strict field validation is on, so a misspelt field of a rendered object fails.
class ChartStrictValidationTest : public embedded::testing::ApiOnlyKubectlTest {};

TEST_F(ChartStrictValidationTest, AMisspeltFieldOfARenderedObjectFails) {
  std::string deployment;
  for (const auto& doc : rendered_documents()) {
    if (doc.file == "controller-deployment.yaml") deployment = doc.text;
  }
  const auto at = deployment.find("\nspec:\n");
  ASSERT_NE(at, std::string::npos);
  deployment.insert(at + 7, "  replicass: 2\n");
  const auto r = kubectl("apply --validate=strict -f " + write("typo.yaml", deployment));
  EXPECT_NE(r.exit_code, 0);
  // From the server (the fieldValidation=Strict of the request), not kubectl's own schema check.
  EXPECT_NE(r.err.find("Error from server (BadRequest)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("strict decoding error: unknown field \"spec.replicass\""),
            std::string::npos)
      << r.err;
  EXPECT_NE(kubectl("get deployment tailor-controller -n kube-system").exit_code, 0);
}

}  // namespace
}  // namespace tailor::charts
