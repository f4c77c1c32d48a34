// helm-render follows Helm's rules, on the chart and on test copies of it: partials and
// NOTES.txt are not manifests, empty documents are dropped, objects come in Helm's install
// order; the values are merged as Helm merges them (values.yaml, then -f files, then --set) and
// checked against values.schema.json, so a typo fails; `required`/`fail` errors surface with
// their template's position; helm lint's offline checks pass on the chart and catch what they
// should on broken copies; the certificates genCA and genSignedCert make verify with openssl.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include "tests/charts/chart_files.h"
#include "tests/charts/child_process.h"

namespace tailor::charts {
namespace {

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("no \"" + from + "\" in the text");
  return text.replace(at, from.size(), to);
}

// A copy of the chart in the scratch directory, to break.
std::filesystem::path chart_copy(const std::string& name) {
  const auto dir = scratch_dir() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::copy(chart_dir(), dir, std::filesystem::copy_options::recursive);
  return dir;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

constexpr const char* kSchemaError =
    "Error: values don't meet the specifications of the schema(s) in the following chart(s):\n"
    "tailor:\n";

TEST(HelmRenderTest, ManifestsFollowHelmsRules) {
  const HelmRun r = helm_template();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Only templates/*.yaml make manifests: not the partials, not NOTES.txt, and servicemonitor.yaml
  // renders to nothing with values.yaml as it is (its empty document is dropped).
  std::set<std::string> sources;
  const std::regex source("# Source: (\\S+)");
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), source), end; it != end; ++it) {
    sources.insert((*it)[1]);
  }
  EXPECT_EQ(
      sources,
      (std::set<std::string>{
          "tailor/templates/controller-deployment.yaml",
          "tailor/templates/controller-networkpolicy.yaml", "tailor/templates/controller-rbac.yaml",
          "tailor/templates/controller-service.yaml", "tailor/templates/dashboards-configmap.yaml",
          "tailor/templates/node-agent-daemonset.yaml", "tailor/templates/node-agent-rbac.yaml",
          "tailor/templates/serviceaccounts.yaml", "tailor/templates/usage-tls.yaml",
          "tailor/templates/webhook.yaml"}));
  std::vector<std::string> kinds;
  for (const auto& doc : parse_manifests(r.out)) {
    ASSERT_TRUE(doc.node.IsMap()) << doc.file << ":\n" << doc.text;
    kinds.push_back(doc.node["kind"].as<std::string>());
  }
  // Helm's install order: ServiceAccounts and Secrets before the workloads that use them, the
  // webhook last.
  EXPECT_EQ(kinds, (std::vector<std::string>{
                       "NetworkPolicy", "ServiceAccount", "ServiceAccount", "Secret", "Secret",
                       "ConfigMap", "ClusterRole", "ClusterRole", "ClusterRoleBinding",
                       "ClusterRoleBinding", "Role", "RoleBinding", "Service", "DaemonSet",
                       "Deployment", "MutatingWebhookConfiguration"}));
}

TEST(HelmRenderTest, ValuesMergeAsHelmMergesThem) {
  const std::string file = write_scratch("replicas-3.yaml", "controller: {replicas: 3}\n");
  const std::string base = "-n kube-system tailor " + chart_dir().string() + " -f " + file;
  auto replicas = [](const HelmRun& r) {
    return document_in(parse_manifests(r.out), "Deployment")["spec"]["replicas"].as<int>();
  };
  const HelmRun from_file = run_helm_render(base);
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_EQ(replicas(from_file), 3);
  // The rest of controller: still values.yaml's.
  bool pass_interval = false;
  for (const auto& arg :
       document_in(parse_manifests(from_file.out),
                   "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]) {
    pass_interval |= arg.as<std::string>() == "--pass-interval=10s";
  }
  EXPECT_TRUE(pass_interval);
  const HelmRun set = run_helm_render(base + " --set controller.replicas=4");
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(replicas(set), 4);
  // null removes a key of values.yaml: the schema then sees no controller.strategy, and the
  // strict render fails on the template that reads it.
  const HelmRun removed = run_helm_render(base + " --strict --set controller.strategy=null");
  EXPECT_EQ(removed.exit_code, 1);
  EXPECT_NE(removed.err.find("map has no entry for key \"strategy\""), std::string::npos)
      << removed.err;
}

// The deliberate typo: a test copy of values.yaml with "replcas" fails before anything renders,
// in Helm's words; the same copy without the typo renders.
TEST(HelmRenderTest, ATypoInACopyOfValuesFails) {
  const std::string values = read_file(chart_dir() / "values.yaml");
  const HelmRun good = helm_template(values);
  EXPECT_EQ(good.exit_code, 0) << good.err;
  const HelmRun typo = helm_template(replaced(values, "\n  replicas: 2\n", "\n  replcas: 2\n"));
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_EQ(typo.out, "");
  EXPECT_EQ(typo.err, std::string(kSchemaError) +
                          "- controller: Additional property replcas is not allowed\n\n");
  // The same typo through --set, and in the chart's own values.yaml.
  const HelmRun set = run_helm_render("-n kube-system tailor " + chart_dir().string() +
                                      " --set nodeAgent.actuaton=agent");
  EXPECT_EQ(set.exit_code, 1);
  EXPECT_NE(set.err.find("- nodeAgent: Additional property actuaton is not allowed"),
            std::string::npos)
      << set.err;
  const auto copy = chart_copy("typo-chart");
  write_file(copy / "values.yaml", replaced(values, "\n  enabled: true\n", "\n  enabeld: true\n"));
  const HelmRun own = helm_template("", copy.string());
  EXPECT_EQ(own.exit_code, 1);
  EXPECT_NE(own.err.find("Additional property enabeld is not allowed"), std::string::npos)
      << own.err;
  const HelmRun lint = run_helm_render("--lint " + copy.string());
  EXPECT_EQ(lint.exit_code, 1);
  EXPECT_NE(lint.out.find("[ERROR] values.yaml: - "), std::string::npos) << lint.out;
  EXPECT_NE(lint.out.find("Additional property enabeld is not allowed"), std::string::npos)
      << lint.out;
}

TEST(HelmRenderTest, ValuesOfTheWrongTypeOrOutOfTheirSetFail) {
  struct Case {
    const char* values;
    const char* error;
  };
  const Case cases[] = {
      {"controller: {replicas: two}",
       "- controller.replicas: Invalid type. Expected: integer, given: string\n"},
      {"webhook: {certificate: {source: vault}}",
       "- webhook.certificate.source: webhook.certificate.source must be one of the following: "
       "\"helm\", \"certManager\", \"secret\"\n"},
      {"webhook: {timeoutSeconds: 31}",
       "- webhook.timeoutSeconds: Must be less than or equal to 30\n"},
      {"controller: {updatesPerSecond: 0}",
       "- controller.updatesPerSecond: Must be greater than 0\n"},
      {"controller: {extraArgs: [v=2]}",
       "- controller.extraArgs.0: Does not match pattern '^--'\n"},
  };
  for (const Case& c : cases) {
    const HelmRun r = helm_template(c.values);
    EXPECT_EQ(r.exit_code, 1) << c.values;
    EXPECT_EQ(r.err, std::string(kSchemaError) + c.error + "\n") << c.values;
  }
}

// A `fail` of a template stops the render with the template's position and its message.
TEST(HelmRenderTest, TemplateFailuresSurface) {
  const HelmRun r = helm_template("webhook: {certificate: {source: secret}}");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(std::regex_search(
      r.err,
      std::regex(R"(^Error: execution error at \(tailor/templates/webhook\.yaml:\d+:\d+\): )"
                 R"(webhook\.certificate\.source=secret needs webhook\.certificate\.caBundle)")))
      << r.err;
  // --strict (helm lint --strict): a template reading a value that does not exist fails; without
  // it the value renders empty, as in `helm install`.
  const auto copy = chart_copy("missing-value-chart");
  const auto service = copy / "templates" / "controller-service.yaml";
  write_file(service, read_file(service) + "# {{ .Values.controller.noSuchValue }}\n");
  const HelmRun strict = helm_template("", copy.string());
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_NE(strict.err.find("map has no entry for key \"noSuchValue\""), std::string::npos)
      << strict.err;
  const HelmRun lenient = run_helm_render("-n kube-system tailor " + copy.string());
  EXPECT_EQ(lenient.exit_code, 0) << lenient.err;
}

// Chart.yaml's kubeVersion against .Capabilities.KubeVersion, as `helm template --kube-version`
// and `helm install` (with the cluster's version) check it.
TEST(HelmRenderTest, KubeVersionIsChecked) {
  const std::string chart = " -n kube-system tailor " + chart_dir().string();
  EXPECT_EQ(run_helm_render("--kube-version v1.33.0" + chart).exit_code, 0);
  const HelmRun old = run_helm_render("--kube-version v1.32.4" + chart);
  EXPECT_EQ(old.exit_code, 1);
  EXPECT_EQ(old.err,
            "Error: chart requires kubeVersion: >=1.33.0-0 which is incompatible with Kubernetes "
            "v1.32.4\n");
}

// Helm's own functions and objects, in a template added to a copy of the chart.
TEST(HelmRenderTest, HelmsFunctionsAndObjects) {
  const auto copy = chart_copy("functions-chart");
  write_file(copy / "templates" / "functions.yaml", R"({{- $cfg := fromYaml "a: 1\nb: [x, z, y]" }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: functions
data:
  tpl: {{ tpl "{{ .Release.Name }}-{{ .Values.controller.strategy }}" . | quote }}
  json: {{ toJson $cfg | quote }}
  lookup: {{ lookup "v1" "Secret" "kube-system" "x" | toJson | quote }}
  required: {{ required "controller.strategy is required" .Values.controller.strategy | quote }}
  chart: {{ printf "%s-%s-%s" .Chart.Name .Chart.Version .Chart.AppVersion | quote }}
  release: {{ printf "%s/%s/%s/%v" .Release.Namespace .Release.Name .Release.Service .Release.IsInstall | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  apps: {{ .Capabilities.APIVersions.Has "apps/v1" | quote }}
  file: {{ .Files.Get "README.md" | sha256sum | quote }}
  chartFile: {{ .Files.Get "Chart.yaml" | quote }}
  template: {{ .Template.Name | quote }}
  resources: {{ toYaml .Values.controller.resources | quote }}
)");
  const HelmRun r = helm_template("", copy.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const YAML::Node data = document_in(parse_manifests(r.out), "ConfigMap", "functions")["data"];
  EXPECT_EQ(data["tpl"].as<std::string>(), "tailor-default");
  EXPECT_EQ(data["json"].as<std::string>(),
            R"({"a":1,"b":["x","z",true]})");         // YAML 1.1: y is true
  EXPECT_EQ(data["lookup"].as<std::string>(), "{}");  // no cluster, as in helm template
  EXPECT_EQ(data["required"].as<std::string>(), "default");
  EXPECT_EQ(data["chart"].as<std::string>(), "tailor-0.1.0-0.1.0");
  EXPECT_EQ(data["release"].as<std::string>(), "kube-system/tailor/Helm/true");
  EXPECT_EQ(data["kube"].as<std::string>(), "v1.33.0");
  EXPECT_EQ(data["apps"].as<std::string>(), "true");
  const auto sum = run_command("sha256sum " + (copy / "README.md").string());
  EXPECT_EQ(data["file"].as<std::string>(), sum.output.substr(0, 64));
  EXPECT_EQ(data["chartFile"].as<std::string>(), "");  // Chart.yaml is .Chart, not a file
  EXPECT_EQ(data["template"].as<std::string>(), "tailor/templates/functions.yaml");
  EXPECT_EQ(data["resources"].as<std::string>(),
            "limits:\n  memory: 512Mi\nrequests:\n  cpu: 100m\n  memory: 128Mi");

  // required of a missing value: the render stops with its message and position.
  write_file(copy / "templates" / "functions.yaml",
             "a: {{ required \"controller.nothing is required\" .Values.controller.nothing }}\n");
  const HelmRun missing = run_helm_render("-n kube-system tailor " + copy.string());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err,
            "Error: execution error at (tailor/templates/functions.yaml:1:6): controller.nothing "
            "is required\n");
  // Helm removes sprig's env and expandenv: a template cannot read the environment.
  write_file(copy / "templates" / "functions.yaml", "a: {{ env \"HOME\" }}\n");
  const HelmRun env = run_helm_render("-n kube-system tailor " + copy.string());
  EXPECT_EQ(env.exit_code, 1);
  EXPECT_NE(env.err.find("function \"env\" not defined"), std::string::npos) << env.err;
}

TEST(HelmLintTest, TheChartPasses) {
  const HelmRun r = run_helm_render("--lint --strict " + chart_dir().string());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("[ERROR]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 chart(s) linted, 0 chart(s) failed"), std::string::npos) << r.out;
}

TEST(HelmLintTest, BrokenCopiesFail) {
  struct Case {
    const char* name;
    const char* file;
    const char* from;
    const char* to;
    const char* finding;
  };
  const Case cases[] = {
      {"version", "Chart.yaml", "version: 0.1.0", "version: one",
       "[ERROR] Chart.yaml: version 'one' is not a valid SemVer"},
      {"api-version", "Chart.yaml", "apiVersion: v2", "apiVersion: v3",
       "[ERROR] Chart.yaml: apiVersion 'v3' is not valid. The value must be either \"v1\" or "
       "\"v2\""},
      {"name", "Chart.yaml", "name: tailor", "name: \"\"", "[ERROR] Chart.yaml: name is required"},
      {"parse", "templates/controller-service.yaml", "metadata:", "{{ if }}\nmetadata:",
       "[ERROR] templates/: parse error at (tailor/templates/controller-service.yaml:"},
      {"yaml", "templates/controller-service.yaml", "metadata:", "metadata: [",
       "[ERROR] templates/controller-service.yaml: unable to parse YAML"},
      {"name-rule", "templates/controller-service.yaml", "name: {{ include", "name: Bad_{{ include",
       "[ERROR] templates/controller-service.yaml: object name does not conform to Kubernetes "
       "naming requirements: \"Bad_test-release-tailor-controller\": metadata.name: Invalid value: "
       "\"Bad_test-release-tailor-controller\": a DNS-1035 label must consist of lower case "
       "alphanumeric "
       "characters or '-', start with an alphabetic character, and end with an alphanumeric "
       "character"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto copy = chart_copy(std::string("lint-") + c.name);
    write_file(copy / c.file, replaced(read_file(copy / c.file), c.from, c.to));
    const HelmRun r = run_helm_render("--lint --strict " + copy.string());
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find(c.finding), std::string::npos) << r.out << r.err;
    EXPECT_NE(r.out.find("1 chart(s) linted, 1 chart(s) failed"), std::string::npos) << r.out;
  }
}

// genCA and genSignedCert ran: each generated certificate is signed by the CA in its Secret,
// names the controller's Service and matches its key.
TEST(HelmRenderTest, GeneratedCertificatesVerify) {
  for (const char* file : {"webhook", "usage-tls"}) {
    SCOPED_TRACE(file);
    const YAML::Node data = document("Secret", file)["data"];
    auto decoded = [&](const std::string& key) {
      const std::string path =
          write_scratch(std::string(file) + "-" + key + ".b64", data[key].as<std::string>());
      const auto r = run_command("base64 -d " + path + " > " + path + ".pem");
      EXPECT_EQ(r.exit_code, 0) << r.output;
      return path + ".pem";
    };
    const std::string ca = decoded("ca.crt"), cert = decoded("tls.crt"), key = decoded("tls.key");
    const auto verified = run_command("openssl verify -CAfile " + ca + " " + cert);
    EXPECT_EQ(verified.exit_code, 0) << verified.output;
    const auto names = run_command("openssl x509 -noout -ext subjectAltName -in " + cert);
    EXPECT_NE(names.output.find("DNS:tailor-controller.kube-system.svc, "
                                "DNS:tailor-controller.kube-system.svc.cluster.local"),
              std::string::npos)
        << names.output;
    const auto cert_key = run_command("openssl x509 -noout -pubkey -in " + cert);
    const auto own_key = run_command("openssl pkey -pubout -in " + key);
    EXPECT_EQ(cert_key.output, own_key.output);
    EXPECT_NE(own_key.output.find("BEGIN PUBLIC KEY"), std::string::npos);
  }
}

}  // namespace
}  // namespace tailor::charts
