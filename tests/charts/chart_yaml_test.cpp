// The Helm chart as Helm's engine renders it (tests/tools/helm-render): Chart.yaml and
// values.yaml parse, every value is read by a template and every value a template reads exists,
// and the objects carry what Tailor's processes need: flags the real binaries accept, probe
// paths, ports, RBAC verbs, the webhook's settings, each under the values that turn it on.
#include <gtest/gtest.h>

#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "controller/usage/usage_source_options.h"
#include "kube/observe/common_options.h"
#include "node-agent/main/agent_options.h"
#include "tests/charts/chart_files.h"
#include "tests/charts/child_process.h"

namespace tailor::charts {
namespace {

std::vector<std::string> strings(const YAML::Node& sequence) {
  std::vector<std::string> out;
  for (const auto& item : sequence) out.push_back(item.as<std::string>());
  return out;
}

// Values leaves ("controller.ports.usage"), maps and lists counting as leaves when empty.
void value_leaves(const YAML::Node& node, const std::string& prefix, std::set<std::string>& out) {
  if (!node.IsMap() || node.size() == 0) {
    out.insert(prefix);
    return;
  }
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    value_leaves(entry.second, prefix.empty() ? key : prefix + "." + key, out);
  }
}

// The values paths the templates read, in every branch (helm-render --values-read walks the
// parse trees of Go's template parser).
std::set<std::string> all_value_references() {
  const HelmRun r = run_helm_render("--values-read " + chart_dir().string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> out;
  std::stringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) out.insert(line);
  }
  return out;
}

// The node of values.yaml at a dotted path, if every key on the way exists. (Nodes are bound
// by construction only: assigning a yaml-cpp Node would rewrite the tree.)
std::optional<YAML::Node> value_at(const YAML::Node& values, const std::string& path) {
  const auto dot = path.find('.');
  const std::string key = path.substr(0, dot);
  if (!values.IsMap() || !values[key]) return std::nullopt;
  const YAML::Node child = values[key];
  if (dot == std::string::npos) return child;
  return value_at(child, path.substr(dot + 1));
}

YAML::Node container(const YAML::Node& workload) {
  return workload["spec"]["template"]["spec"]["containers"][0];
}

// The container's volume mounts, name -> mountPath.
std::map<std::string, std::string> mounts_of(const YAML::Node& c) {
  std::map<std::string, std::string> out;
  for (const auto& m : c["volumeMounts"]) {
    out[m["name"].as<std::string>()] = m["mountPath"].as<std::string>();
  }
  return out;
}

// The workload's pod volume named `name` (null when none).
YAML::Node volume_of(const YAML::Node& workload, const std::string& name) {
  for (const auto& v : workload["spec"]["template"]["spec"]["volumes"]) {
    if (v["name"].as<std::string>() == name) return v;
  }
  return YAML::Node();
}

// "--name=value" -> {"name", "value"}.
std::map<std::string, std::string> flags_of(const YAML::Node& c) {
  std::map<std::string, std::string> out;
  for (const std::string& arg : strings(c["args"])) {
    const auto eq = arg.find('=');
    EXPECT_EQ(arg.rfind("--", 0), 0u) << arg;
    out[arg.substr(2, eq - 2)] = eq == std::string::npos ? "" : arg.substr(eq + 1);
  }
  return out;
}

// "group/resource[/sub]:verb" for every verb of every rule (resourceNames appended).
std::set<std::string> permissions(const YAML::Node& role) {
  std::set<std::string> out;
  for (const auto& rule : role["rules"]) {
    std::string names;
    for (const auto& n : rule["resourceNames"]) names += "#" + n.as<std::string>();
    for (const auto& group : rule["apiGroups"]) {
      for (const auto& resource : rule["resources"]) {
        for (const auto& verb : rule["verbs"]) {
          out.insert(group.as<std::string>() + "/" + resource.as<std::string>() + names + ":" +
                     verb.as<std::string>());
        }
      }
    }
  }
  return out;
}

TEST(ChartYamlTest, ChartYamlIsAHelm3Chart) {
  const YAML::Node chart = YAML::LoadFile((chart_dir() / "Chart.yaml").string());
  EXPECT_EQ(chart["apiVersion"].as<std::string>(), "v2");
  EXPECT_EQ(chart["name"].as<std::string>(), "tailor");
  EXPECT_EQ(chart["type"].as<std::string>(), "application");
  EXPECT_TRUE(std::regex_match(chart["version"].as<std::string>(),
                               std::regex(R"(\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?)")));
  EXPECT_FALSE(chart["appVersion"].as<std::string>().empty());
}

TEST(ChartYamlTest, ValuesParseAndEveryValueIsUsed) {
  const YAML::Node& values = chart_values();
  ASSERT_TRUE(values.IsMap());
  EXPECT_EQ(values["controller"]["replicas"].as<int>(), 2);
  EXPECT_EQ(values["nodeAgent"]["actuation"].as<std::string>(), "kubelet");
  const auto used = all_value_references();
  ASSERT_GT(used.size(), 50u);
  std::set<std::string> leaves;
  value_leaves(values, "", leaves);
  for (const std::string& leaf : leaves) {
    // A leaf is used when a template reads it or a map above it (toYaml .Values.x.resources).
    bool read = false;
    for (std::string path = leaf; !path.empty() && !read;) {
      read = used.count(path) > 0;
      const auto dot = path.rfind('.');
      path = dot == std::string::npos ? "" : path.substr(0, dot);
    }
    EXPECT_TRUE(read) << "values.yaml: " << leaf << " is read by no template";
  }
  // And the other way: a branch no test renders cannot read a value that does not exist.
  for (const std::string& path : used) {
    EXPECT_TRUE(value_at(values, path))
        << "a template reads .Values." << path << ", which is not in values.yaml";
  }
}

TEST(ChartYamlTest, EveryTemplateParsesAsKubernetesObjects) {
  std::vector<RenderedDocument> docs;
  ASSERT_NO_THROW(docs = rendered_documents());
  std::set<std::string> files_with_objects, kinds;
  for (const auto& doc : docs) {
    ASSERT_TRUE(doc.node.IsMap()) << doc.file;
    EXPECT_TRUE(doc.node["apiVersion"].IsScalar()) << doc.file;
    EXPECT_TRUE(doc.node["kind"].IsScalar()) << doc.file;
    EXPECT_TRUE(doc.node["metadata"]["name"].IsScalar()) << doc.file;
    files_with_objects.insert(doc.file);
    kinds.insert(doc.node["kind"].as<std::string>());
  }
  // servicemonitor.yaml renders only with metrics.serviceMonitor.enabled (DashboardsShip...).
  for (const auto& path : chart_files("templates", ".yaml")) {
    if (path.filename() == "servicemonitor.yaml") continue;
    EXPECT_TRUE(files_with_objects.count(path.filename().string())) << path;
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"Deployment", "DaemonSet", "Service", "ServiceAccount",
                                          "ClusterRole", "ClusterRoleBinding", "Role",
                                          "RoleBinding", "MutatingWebhookConfiguration", "Secret",
                                          "ConfigMap", "NetworkPolicy"}));
}

TEST(ChartYamlTest, CrdsAreInHelmsCrdsDirectory) {
  std::set<std::string> kinds;
  for (const auto& path : chart_files("crds", ".yaml")) {
    const YAML::Node crd = YAML::LoadFile(path.string());
    EXPECT_EQ(crd["kind"].as<std::string>(), "CustomResourceDefinition") << path;
    EXPECT_EQ(read_file(path).find("{{"), std::string::npos)
        << path << ": Helm never renders crds/";
    kinds.insert(crd["spec"]["names"]["kind"].as<std::string>());
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"VerticalScalingPolicy", "VerticalScalingCheckpoint"}));
}

// Tailor acts on VPA objects but does not install VPA's CRD (docs/migrating-from-vpa.md: keep
// the one VPA installed): no CRD of the autoscaling.k8s.io group in crds/, nor among the
// templates rendered with watchVPA on.
TEST(ChartYamlTest, InstallsNoVpaCrd) {
  std::size_t crds = 0;
  for (const auto& path : chart_files("crds", ".yaml")) {
    ++crds;
    const YAML::Node crd = YAML::LoadFile(path.string());
    EXPECT_NE(crd["spec"]["group"].as<std::string>(), "autoscaling.k8s.io") << path;
    EXPECT_EQ(read_file(path).find("autoscaling.k8s.io"), std::string::npos) << path;
  }
  EXPECT_EQ(crds, 2u);
  for (const auto& doc : render_documents("controller: {watchVPA: true}")) {
    EXPECT_NE(doc.node["kind"].as<std::string>(), "CustomResourceDefinition") << doc.file;
  }
}

TEST(ChartYamlTest, ControllerDeploymentWiring) {
  const YAML::Node deployment = document("Deployment", "controller");
  EXPECT_EQ(deployment["metadata"]["namespace"].as<std::string>(), "kube-system");
  EXPECT_EQ(deployment["spec"]["replicas"].as<int>(), 2);
  const YAML::Node c = container(deployment);
  auto flags = flags_of(c);
  EXPECT_EQ(flags["leader-elect"], "true");
  EXPECT_EQ(flags["leader-elect-resource-namespace"], "kube-system");
  EXPECT_EQ(flags["webhook-port"], "8443");
  std::set<std::string> ports;
  for (const auto& p : c["ports"]) ports.insert(p["name"].as<std::string>());
  EXPECT_EQ(ports, (std::set<std::string>{"webhook", "usage", "metrics", "health"}));
  EXPECT_EQ(c["livenessProbe"]["httpGet"]["path"].as<std::string>(), "/livez");
  EXPECT_EQ(c["readinessProbe"]["httpGet"]["path"].as<std::string>(), "/readyz");
  EXPECT_EQ(c["livenessProbe"]["httpGet"]["port"].as<std::string>(), "health");
  EXPECT_EQ(c["readinessProbe"]["httpGet"]["port"].as<std::string>(), "health");
  EXPECT_EQ(flags["health-probe-bind-address"], "0.0.0.0:8081");
  // The certificate files come from the mounted Secret.
  const std::string mount = mounts_of(c)["webhook-tls"];
  EXPECT_EQ(flags["webhook-cert-file"], mount + "/tls.crt");
  EXPECT_EQ(flags["webhook-key-file"], mount + "/tls.key");
  EXPECT_TRUE(volume_of(deployment, "webhook-tls")["secret"]["secretName"].IsScalar());

  const YAML::Node service = document("Service", "controller");
  std::map<std::string, std::pair<int, std::string>> service_ports;
  for (const auto& p : service["spec"]["ports"]) {
    service_ports[p["name"].as<std::string>()] = {p["port"].as<int>(),
                                                  p["targetPort"].as<std::string>()};
  }
  EXPECT_EQ(service_ports["webhook"], std::make_pair(443, std::string("webhook")));
  EXPECT_EQ(service_ports["usage"], std::make_pair(9443, std::string("usage")));
  EXPECT_EQ(service_ports["metrics"], std::make_pair(8080, std::string("metrics")));
}

// The usage stream (issue 16): the controller listens on its pod IP with the usage certificate
// and trusts the kubelets' client CA; each agent dials the Service with the kubelet's client
// certificate and checks the controller against the usage CA, of which it mounts nothing else.
TEST(ChartYamlTest, UsageStreamIsMutualTlsOnThePodIp) {
  const YAML::Node deployment = document("Deployment", "controller");
  const YAML::Node c = container(deployment);
  auto flags = flags_of(c);
  EXPECT_EQ(flags.count("usage-bind-address"), 0u);  // the default: $POD_IP, never 0.0.0.0
  EXPECT_EQ(flags.count("usage-insecure"), 0u);
  EXPECT_EQ(flags["usage-port"], "9443");
  std::map<std::string, std::string> env;
  for (const auto& e : c["env"]) {
    env[e["name"].as<std::string>()] = e["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>();
  }
  EXPECT_EQ(env["POD_IP"], "status.podIP");
  auto mounts = mounts_of(c);
  EXPECT_EQ(flags["usage-tls-cert-file"], mounts["usage-tls"] + "/tls.crt");
  EXPECT_EQ(flags["usage-tls-key-file"], mounts["usage-tls"] + "/tls.key");
  EXPECT_EQ(flags["usage-client-ca-file"], mounts["usage-client-ca"] + "/ca.crt");
  EXPECT_EQ(flags["usage-max-connections"], "10000");  // twice the nodes Kubernetes supports
  EXPECT_EQ(flags["usage-max-threads"], "5200");       // above the nodes Kubernetes supports
  EXPECT_EQ(flags["usage-max-memory-mib"], "256");
  EXPECT_TRUE(volume_of(deployment, "usage-tls")["secret"]["secretName"].IsScalar());
  const YAML::Node client_ca = volume_of(deployment, "usage-client-ca")["configMap"];
  EXPECT_EQ(client_ca["name"].as<std::string>(), "kube-root-ca.crt");
  EXPECT_EQ(client_ca["items"][0]["path"].as<std::string>(), "ca.crt");

  const YAML::Node daemonset = document("DaemonSet", "node-agent");
  const YAML::Node agent = container(daemonset);
  auto agent_flags = flags_of(agent);
  EXPECT_EQ(agent_flags["usage-endpoint"], "tailor-controller.kube-system.svc:9443");
  EXPECT_EQ(document("Service", "controller")["metadata"]["name"].as<std::string>(),
            "tailor-controller");
  EXPECT_EQ(agent_flags.count("usage-insecure"), 0u);
  auto agent_mounts = mounts_of(agent);
  EXPECT_EQ(agent_flags["usage-ca-file"], agent_mounts["usage-ca"] + "/ca.crt");
  EXPECT_EQ(agent_flags["usage-cert-file"],
            agent_mounts["kubelet-pki"] + "/kubelet-client-current.pem");
  EXPECT_EQ(agent_flags["usage-key-file"], agent_flags["usage-cert-file"]);
  const YAML::Node ca_only = volume_of(daemonset, "usage-ca")["secret"];
  ASSERT_EQ(ca_only["items"].size(), 1u);  // never the controller's key
  EXPECT_EQ(ca_only["items"][0]["key"].as<std::string>(), "ca.crt");
  EXPECT_EQ(volume_of(daemonset, "kubelet-pki")["hostPath"]["path"].as<std::string>(),
            "/var/lib/kubelet/pki");
  for (const auto& m : agent["volumeMounts"]) {
    const std::string name = m["name"].as<std::string>();
    if (name == "usage-ca" || name == "kubelet-pki") {
      EXPECT_TRUE(m["readOnly"].as<bool>()) << name;
    }
  }

  const YAML::Node secret = document("Secret", "usage-tls");
  for (const char* key : {"tls.crt", "tls.key", "ca.crt"}) {
    EXPECT_TRUE(secret["data"][key].IsScalar()) << key;
  }
}

// Only the agents reach the usage port; the other ports stay open (the API server calls the
// webhook from an address that varies by cluster).
TEST(ChartYamlTest, NetworkPolicyLetsOnlyTheAgentsReachTheUsagePort) {
  const YAML::Node policy = document("NetworkPolicy", "controller");
  EXPECT_EQ(strings(policy["spec"]["policyTypes"]), (std::vector<std::string>{"Ingress"}));
  EXPECT_TRUE(policy["spec"]["podSelector"]["matchLabels"]);
  int usage_rules = 0;
  std::set<std::string> open_ports;
  for (const auto& rule : policy["spec"]["ingress"]) {
    std::set<std::string> ports;
    for (const auto& p : rule["ports"]) ports.insert(p["port"].as<std::string>());
    if (!ports.count("usage")) {
      EXPECT_FALSE(rule["from"]) << "a rule for the other ports need not restrict sources";
      open_ports.insert(ports.begin(), ports.end());
      continue;
    }
    ++usage_rules;
    EXPECT_EQ(ports, std::set<std::string>{"usage"});
    ASSERT_EQ(rule["from"].size(), 1u);
    EXPECT_TRUE(rule["from"][0]["podSelector"]["matchLabels"]);
    EXPECT_FALSE(rule["from"][0]["namespaceSelector"]);  // the release namespace only
  }
  EXPECT_EQ(usage_rules, 1);
  EXPECT_EQ(open_ports, (std::set<std::string>{"webhook", "metrics", "health"}));
  const std::string text = read_file(chart_dir() / "templates" / "controller-networkpolicy.yaml");
  EXPECT_NE(text.find(R"("component" "node-agent")"), std::string::npos)
      << "the usage rule must select the node agents' pods";
}

// Every usage source on, the Prometheus token from a Secret.
constexpr const char* kAllUsageSources = R"(
controller:
  prometheus:
    address: http://prometheus-operated.monitoring.svc:9090
    bearerTokenSecret: {name: prometheus-token}
  metricsSource: metrics-api
)";

// The real tailor-controller parses the Deployment's arguments: with a kubeconfig that does not
// exist it gets past its flags and stops at loading the configuration (exit 1), not at a bad
// flag (exit 2). Rendered with every usage source on, so that every optional flag is there.
TEST(ChartYamlTest, TailorControllerAcceptsTheDeploymentsArguments) {
  const std::string binary = tailor_binary("tailor-controller");
  ASSERT_EQ(::access(binary.c_str(), X_OK), 0) << binary << " is not built";
  const auto bad = run_command(binary + " --no-such-flag=1");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  const YAML::Node deployment =
      document_in(render_documents(kAllUsageSources), "Deployment", "controller");
  std::string command = binary;
  for (std::string arg : strings(container(deployment)["args"])) {
    arg = std::regex_replace(arg, std::regex(R"(\$\(POD_NAME\))"), "tailor-controller-0");
    command += " '" + arg + "'";
  }
  const auto r = run_command(command + " --kubeconfig=/nonexistent/kubeconfig");
  EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.output;
  EXPECT_NE(r.output.find("kubeconfig"), std::string::npos) << r.output;
}

// The usage sources besides the node agents' stream are off by default, and their flags, the
// token's volume and the metrics.k8s.io rule each come with the values that turn them on.
TEST(ChartYamlTest, UsageSourcesOnlyWhenConfigured) {
  const YAML::Node controller = chart_values()["controller"];
  EXPECT_EQ(controller["prometheus"]["address"].as<std::string>(), "");
  EXPECT_EQ(controller["prometheus"]["bearerTokenSecret"]["name"].as<std::string>(), "");
  EXPECT_EQ(controller["metricsSource"].as<std::string>(), "usage-stream");
  const std::set<std::string> prometheus_flags = {"storage",
                                                  "prometheus-address",
                                                  "history-length",
                                                  "history-resolution",
                                                  "prometheus-cadvisor-job-name",
                                                  "container-namespace-label",
                                                  "container-pod-name-label",
                                                  "container-name-label",
                                                  "prometheus-query-timeout",
                                                  "prometheus-insecure"};
  struct Case {
    const char* values;
    bool prometheus, token, metrics_api;
  };
  const Case cases[] = {
      {"", false, false, false},
      {"controller: {prometheus: {address: 'http://p:9090'}}", true, false, false},
      {"controller: {prometheus: {bearerTokenSecret: {name: t}}}", false, false, false},
      {"controller: {prometheus: {address: 'http://p:9090', bearerTokenSecret: {name: t}}}", true,
       true, false},
      {"controller: {metricsSource: metrics-api}", false, false, true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.values);
    const auto documents = render_documents(c.values);
    const YAML::Node deployment = document_in(documents, "Deployment", "controller");
    const auto flags = flags_of(container(deployment));
    for (const std::string& flag : prometheus_flags) {
      EXPECT_EQ(flags.count(flag), c.prometheus ? 1u : 0u) << flag;
    }
    EXPECT_EQ(flags.count("prometheus-bearer-token-file"), c.token ? 1u : 0u);
    EXPECT_EQ(mounts_of(container(deployment)).count("prometheus-bearer-token"), c.token ? 1u : 0u);
    EXPECT_EQ(volume_of(deployment, "prometheus-bearer-token").IsMap(), c.token);
    EXPECT_EQ(flags.count("metrics-source"), c.metrics_api ? 1u : 0u);
    EXPECT_EQ(flags.count("metrics-api-interval"), c.metrics_api ? 1u : 0u);
    EXPECT_EQ(permissions(document_in(documents, "ClusterRole", "controller"))
                  .count("metrics.k8s.io/pods:list"),
              c.metrics_api ? 1u : 0u);
  }
}

// With the sources on, the rendered flags give the controller its own defaults for every value
// left alone (values.yaml repeats them), and the token file is the mounted Secret's key.
TEST(ChartYamlTest, UsageSourceValuesAreTheControllersDefaults) {
  const auto documents = render_documents(kAllUsageSources);
  const YAML::Node deployment = document_in(documents, "Deployment", "controller");
  const YAML::Node c = container(deployment);
  const std::regex usage_flag(
      R"(^--(storage|prometheus-|history-|container-\w+-label|metrics-source|metrics-api-).*)");
  std::vector<std::string> args;
  for (const std::string& arg : strings(c["args"])) {
    if (std::regex_match(arg, usage_flag)) args.push_back(arg);
  }
  kube::config::Schema schema("tailor-controller", "test");
  controller::usage::UsageSourceOptions parsed;
  controller::usage::add_usage_source_options(schema, parsed);
  ASSERT_NO_THROW(schema.parse(args));
  const controller::usage::UsageSourceOptions defaults;
  EXPECT_EQ(parsed.storage, "prometheus");
  EXPECT_EQ(parsed.prometheus.address, "http://prometheus-operated.monitoring.svc:9090");
  EXPECT_EQ(parsed.prometheus.history_length_s, defaults.prometheus.history_length_s);
  EXPECT_EQ(parsed.prometheus.resolution_s, defaults.prometheus.resolution_s);
  EXPECT_EQ(parsed.prometheus.cadvisor_job, defaults.prometheus.cadvisor_job);
  EXPECT_EQ(parsed.prometheus.namespace_label, defaults.prometheus.namespace_label);
  EXPECT_EQ(parsed.prometheus.pod_label, defaults.prometheus.pod_label);
  EXPECT_EQ(parsed.prometheus.container_label, defaults.prometheus.container_label);
  EXPECT_EQ(parsed.prometheus.query_timeout, defaults.prometheus.query_timeout);
  EXPECT_EQ(parsed.prometheus.insecure_skip_verify, defaults.prometheus.insecure_skip_verify);
  EXPECT_EQ(parsed.prometheus.bearer_token, "");
  EXPECT_EQ(parsed.metrics_source, "metrics-api");
  EXPECT_EQ(parsed.metrics_api_interval, defaults.metrics_api_interval);

  std::map<std::string, std::string> mounts;
  for (const auto& m : c["volumeMounts"]) {
    mounts[m["name"].as<std::string>()] = m["mountPath"].as<std::string>();
  }
  YAML::Node token;
  for (const auto& v : deployment["spec"]["template"]["spec"]["volumes"]) {
    if (v["name"].as<std::string>() == "prometheus-bearer-token") token = v["secret"];
  }
  ASSERT_TRUE(token.IsMap());
  EXPECT_EQ(token["secretName"].as<std::string>(), "prometheus-token");
  EXPECT_EQ(token["items"][0]["key"].as<std::string>(), "token");
  EXPECT_EQ(parsed.prometheus.bearer_token_file,
            mounts["prometheus-bearer-token"] + "/" + token["items"][0]["path"].as<std::string>());
}

TEST(ChartYamlTest, NodeAgentOptionsAcceptTheDaemonSetsArguments) {
  const YAML::Node daemonset = document("DaemonSet", "node-agent");
  std::vector<std::string> args;
  for (std::string arg : strings(container(daemonset)["args"])) {
    args.push_back(std::regex_replace(arg, std::regex(R"(\$\(NODE_NAME\))"), "node-1"));
  }
  kube::config::Schema schema("tailor-node-agent", "test");
  kube::observe::CommonOptions common;
  kube::observe::add_common_options(schema, common);
  node::AgentOptions options;
  node::add_agent_options(schema, options);
  ASSERT_NO_THROW(schema.parse(args));
  ASSERT_NO_THROW(node::validate(options));
  EXPECT_EQ(options.node_name, "node-1");
  EXPECT_EQ(options.actuation, node::Actuation::Kubelet);
  EXPECT_EQ(options.runtime_endpoint, "unix:///run/containerd/containerd.sock");
  EXPECT_EQ(options.cgroup_root, "/sys/fs/cgroup");
  EXPECT_EQ(common.metrics_bind_address.port, 8080);

  const YAML::Node c = container(daemonset);
  EXPECT_EQ(c["env"][0]["name"].as<std::string>(), "NODE_NAME");
  EXPECT_EQ(c["env"][0]["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>(), "spec.nodeName");
  const YAML::Node pod = daemonset["spec"]["template"]["spec"];
  EXPECT_FALSE(pod["hostPID"].as<bool>());
  std::map<std::string, std::string> host_paths;
  for (const auto& v : pod["volumes"]) {
    if (!v["hostPath"]) continue;
    host_paths[v["hostPath"]["path"].as<std::string>()] = v["hostPath"]["type"].as<std::string>();
  }
  EXPECT_EQ(host_paths["/run/containerd/containerd.sock"], "Socket");
  EXPECT_EQ(host_paths["/sys/fs/cgroup"], "Directory");
  EXPECT_EQ(host_paths["/var/lib/tailor-node-agent"], "DirectoryOrCreate");
  EXPECT_EQ(c["readinessProbe"]["httpGet"]["path"].as<std::string>(), "/readyz");
  EXPECT_EQ(chart_values()["nodeAgent"]["tolerations"][0]["operator"].as<std::string>(), "Exists");
}

// What the roles grant is checked against charts/api-calls.yaml (chart_rbac_test.cpp); here,
// that they are bound to the processes' ServiceAccounts.
TEST(ChartYamlTest, ClusterRolesAreBoundToTheServiceAccounts) {
  for (const char* file : {"controller", "node-agent"}) {
    const YAML::Node binding = document("ClusterRoleBinding", file);
    EXPECT_EQ(binding["roleRef"]["name"].as<std::string>(),
              document("ClusterRole", file)["metadata"]["name"].as<std::string>());
    EXPECT_EQ(binding["subjects"][0]["namespace"].as<std::string>(), "kube-system");
  }
  EXPECT_EQ(flags_of(container(document("Deployment", "controller")))["leader-elect-resource-name"],
            "tailor-controller");
}

TEST(ChartYamlTest, MutatingWebhookOnPodCreateNeverBlocksPods) {
  const YAML::Node config = document("MutatingWebhookConfiguration", "webhook");
  ASSERT_EQ(config["webhooks"].size(), 1u);
  const YAML::Node hook = config["webhooks"][0];
  EXPECT_EQ(hook["failurePolicy"].as<std::string>(), "Ignore");
  EXPECT_EQ(hook["timeoutSeconds"].as<int>(), 2);
  EXPECT_EQ(hook["sideEffects"].as<std::string>(), "None");
  EXPECT_EQ(strings(hook["admissionReviewVersions"]), std::vector<std::string>{"v1"});
  const YAML::Node rule = hook["rules"][0];
  EXPECT_EQ(strings(rule["operations"]), std::vector<std::string>{"CREATE"});
  EXPECT_EQ(strings(rule["resources"]), std::vector<std::string>{"pods"});
  const YAML::Node service = hook["clientConfig"]["service"];
  EXPECT_EQ(service["path"].as<std::string>(), "/mutate-pods");
  EXPECT_EQ(service["port"].as<int>(), 443);
  EXPECT_EQ(service["name"].as<std::string>(),
            document("Service", "controller")["metadata"]["name"].as<std::string>());
  const YAML::Node excluded = hook["namespaceSelector"]["matchExpressions"][0];
  EXPECT_EQ(excluded["key"].as<std::string>(), "kubernetes.io/metadata.name");
  EXPECT_EQ(excluded["operator"].as<std::string>(), "NotIn");
  // The release namespace, once, then the others of webhook.excludedNamespaces.
  EXPECT_EQ(strings(excluded["values"]), std::vector<std::string>{"kube-system"});
  EXPECT_EQ(strings(chart_values()["webhook"]["excludedNamespaces"]),
            std::vector<std::string>{"kube-system"});
  const auto more = render_documents("webhook: {excludedNamespaces: [kube-system, monitoring]}");
  EXPECT_EQ(
      strings(document_in(more, "MutatingWebhookConfiguration")["webhooks"][0]["namespaceSelector"]
                                                               ["matchExpressions"][0]["values"]),
      (std::vector<std::string>{"kube-system", "monitoring"}));
}

// The Secret the controller mounts (webhook-tls) for each webhook.certificate.source: generated
// with the caBundle its CA (helm), a cert-manager Certificate with the caBundle injected
// (certManager, with a self-signed Issuer unless issuerRef names one), or the user's (secret).
TEST(ChartYamlTest, WebhookCertificateFromEachSource) {
  auto mounted = [](const std::vector<RenderedDocument>& documents) {
    return volume_of(document_in(documents, "Deployment", "controller"),
                     "webhook-tls")["secret"]["secretName"]
        .as<std::string>();
  };
  auto kinds_of = [](const std::vector<RenderedDocument>& documents, const std::string& file) {
    std::multiset<std::string> out;
    for (const auto& d : documents) {
      if (d.file == file) out.insert(d.node["kind"].as<std::string>());
    }
    return out;
  };
  using Kinds = std::multiset<std::string>;
  {
    SCOPED_TRACE("helm");
    const auto& documents = rendered_documents();
    EXPECT_EQ(kinds_of(documents, "webhook.yaml"),
              (Kinds{"Secret", "MutatingWebhookConfiguration"}));
    const YAML::Node secret = document_in(documents, "Secret", "webhook");
    EXPECT_EQ(secret["metadata"]["name"].as<std::string>(), "tailor-webhook-tls");
    EXPECT_EQ(secret["metadata"]["name"].as<std::string>(), mounted(documents));
    EXPECT_EQ(secret["type"].as<std::string>(), "kubernetes.io/tls");
    const YAML::Node config = document_in(documents, "MutatingWebhookConfiguration");
    EXPECT_EQ(config["webhooks"][0]["clientConfig"]["caBundle"].as<std::string>(),
              secret["data"]["ca.crt"].as<std::string>());
    EXPECT_FALSE(config["metadata"]["annotations"]);
  }
  {
    SCOPED_TRACE("certManager");
    const auto documents = render_documents("webhook: {certificate: {source: certManager}}");
    EXPECT_EQ(kinds_of(documents, "webhook.yaml"),
              (Kinds{"Issuer", "Certificate", "MutatingWebhookConfiguration"}));
    const YAML::Node certificate = document_in(documents, "Certificate");
    EXPECT_EQ(certificate["spec"]["secretName"].as<std::string>(), mounted(documents));
    EXPECT_EQ(strings(certificate["spec"]["dnsNames"]),
              (std::vector<std::string>{"tailor-controller.kube-system.svc",
                                        "tailor-controller.kube-system.svc.cluster.local"}));
    EXPECT_EQ(certificate["spec"]["issuerRef"]["name"].as<std::string>(),
              document_in(documents, "Issuer")["metadata"]["name"].as<std::string>());
    const YAML::Node config = document_in(documents, "MutatingWebhookConfiguration");
    EXPECT_EQ(config["metadata"]["annotations"]["cert-manager.io/inject-ca-from"].as<std::string>(),
              "kube-system/" + certificate["metadata"]["name"].as<std::string>());
    EXPECT_FALSE(config["webhooks"][0]["clientConfig"]["caBundle"]);
  }
  {
    SCOPED_TRACE("certManager with an issuer");
    const auto documents = render_documents(
        "webhook: {certificate: {source: certManager, issuerRef: {name: ca, kind: "
        "ClusterIssuer}}}");
    EXPECT_EQ(kinds_of(documents, "webhook.yaml"),
              (Kinds{"Certificate", "MutatingWebhookConfiguration"}));
    const YAML::Node issuer = document_in(documents, "Certificate")["spec"]["issuerRef"];
    EXPECT_EQ(issuer["name"].as<std::string>(), "ca");
    EXPECT_EQ(issuer["kind"].as<std::string>(), "ClusterIssuer");
  }
  {
    SCOPED_TRACE("secret");
    const auto documents = render_documents(
        "webhook: {certificate: {source: secret, secretName: mine, caBundle: Q0E=}}");
    EXPECT_EQ(kinds_of(documents, "webhook.yaml"), Kinds{"MutatingWebhookConfiguration"});
    EXPECT_EQ(mounted(documents), "mine");
    EXPECT_EQ(document_in(documents,
                          "MutatingWebhookConfiguration")["webhooks"][0]["clientConfig"]["caBundle"]
                  .as<std::string>(),
              "Q0E=");
  }
}

TEST(ChartYamlTest, DashboardsShipInAConfigMapGrafanaPicksUp) {
  const YAML::Node configmap = document("ConfigMap", "dashboards");
  EXPECT_EQ(configmap["metadata"]["labels"]["grafana_dashboard"].as<std::string>(), "1");
  // .Files.Glob "dashboards/*.json" | AsConfig: one key per file, the file as it is.
  std::set<std::string> keys;
  for (const auto& entry : configmap["data"]) keys.insert(entry.first.as<std::string>());
  std::set<std::string> files;
  for (const auto& path : chart_files("dashboards", ".json")) {
    files.insert(path.filename().string());
    EXPECT_EQ(configmap["data"][path.filename().string()].as<std::string>(), read_file(path));
  }
  EXPECT_FALSE(files.empty());
  EXPECT_EQ(keys, files);
  EXPECT_FALSE(chart_values()["metrics"]["serviceMonitor"]["enabled"].as<bool>());

  const auto monitored =
      render_documents("metrics: {serviceMonitor: {enabled: true, labels: {release: kp}}}");
  const YAML::Node monitor = document_in(monitored, "ServiceMonitor");
  EXPECT_EQ(monitor["spec"]["endpoints"][0]["port"].as<std::string>(), "metrics");
  EXPECT_EQ(monitor["spec"]["endpoints"][0]["interval"].as<std::string>(), "30s");
  EXPECT_EQ(monitor["metadata"]["labels"]["release"].as<std::string>(), "kp");
  const YAML::Node pod_monitor = document_in(monitored, "PodMonitor");
  EXPECT_EQ(pod_monitor["spec"]["podMetricsEndpoints"][0]["port"].as<std::string>(), "metrics");
  EXPECT_EQ(pod_monitor["spec"]["selector"]["matchLabels"]["app.kubernetes.io/component"]
                .as<std::string>(),
            "node-agent");
  // Without the node agents there is nothing for the PodMonitor to scrape.
  const auto agentless =
      render_documents("metrics: {serviceMonitor: {enabled: true}}\nnodeAgent: {enabled: false}");
  EXPECT_NO_THROW(document_in(agentless, "ServiceMonitor"));
  EXPECT_THROW(document_in(agentless, "PodMonitor"), std::runtime_error);
  EXPECT_THROW(document_in(agentless, "DaemonSet"), std::runtime_error);
}

}  // namespace
}  // namespace tailor::charts
