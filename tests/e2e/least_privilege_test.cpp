// Least privilege at run time (issues 16 and 17): the controller and the node agents run under
// the chart's ServiceAccounts (service_accounts.h) through a scenario that reaches their API
// calls — an in-place resize, a recreation through the Eviction API (the webhook sizing the
// replacement), a VPA object's resize and annotations, events, checkpoints, the leader and node
// Leases — and tailor-cluster's audit log (--audit-log-path) says what they asked and what RBAC
// answered. Then: no request of theirs was forbidden, each is a call charts/api-calls.yaml lists
// (a call the code makes that the table, and so the chart, lacks fails here), and each call the
// table lists for this environment was made, unless its `unexercised` says why it cannot be.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <map>

#include "tests/charts/api_calls.h"
#include "tests/charts/chart_files.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/restart_process.h"
#include "tests/e2e/service_accounts.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

namespace bj = boost::json;
using std::chrono::seconds;

constexpr seconds kStart{90};
constexpr seconds kAct{120};

constexpr const char* kAvoidBig = "e2e.tailor.dev/avoid-e2e-rbac";

// A grace period (1 s) so that an evicted pod is removed by its node agent once its containers
// stopped (pods delete), as a kubelet removes it, not at once by the API server.
// On the big node, or (on_small) kept off it by a node label removed once scheduled, so its
// replacement may go there.
std::string deployment(const std::string& name, bool on_small = false) {
  return deployment_manifest({.name = name,
                              .termination_grace_seconds = 1,
                              .node = on_small ? "" : kBigNode,
                              .avoid_label = on_small ? kAvoidBig : "",
                              .containers = {{.requests = {{"cpu", "50m"}, {"memory", "32Mi"}}}}});
}

// A policy pinning the Deployment `name` to `pinned` (minAllowed = maxAllowed).
std::string policy(const std::string& name, const std::string& mode, const Resources& pinned) {
  return policy_manifest({.name = name,
                          .deployment = name,
                          .mode = mode,
                          .min_replicas = 1,
                          .containers = {e2e::pinned(pinned)}});
}

const std::string kVpa =
    vpa_manifest({.name = "vpa",
                  .deployment = "vpa",
                  .mode = "InPlaceOrRecreate",
                  .min_replicas = 1,
                  .containers = {pinned({{"cpu", "70m"}, {"memory", "44Mi"}})}});

// The one pod of app=NAME, once its first container request is `cpu`.
bool pod_at(const TestNamespace& ns, const std::string& name, const std::string& cpu,
            std::string& seen, PodView* out = nullptr) {
  const std::vector<PodView> pods = ns.pods("app=" + name);
  seen = pods.empty() ? "no pod" : pods[0].summary();
  if (pods.size() != 1 || pods[0].containers.empty()) return false;
  if (out) *out = pods[0];
  return pods[0].containers[0].requests.count("cpu") &&
         milli_cpu(pods[0].containers[0].requests.at("cpu")) == milli_cpu(cpu);
}

struct Audited {
  std::string user;
  charts::MadeCall call;
  bool allowed = false;
  std::string reason, uri;
};

std::string str(const bj::object& o, const char* key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

std::vector<Audited> audit_log(const std::filesystem::path& file) {
  std::vector<Audited> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const bj::object event = bj::parse(line).as_object();
    Audited a{.user = str(event.at("user").as_object(), "username"),
              .call = {.verb = str(event, "verb")},
              .allowed = str(event.at("annotations").as_object(),
                             "authorization.k8s.io/decision") == "allow",
              .reason = str(event.at("annotations").as_object(), "authorization.k8s.io/reason"),
              .uri = str(event, "requestURI")};
    if (const bj::value* ref = event.if_contains("objectRef")) {
      const bj::object& r = ref->as_object();
      const std::string sub = str(r, "subresource");
      a.call.group = str(r, "apiGroup");
      a.call.resource = str(r, "resource") + (sub.empty() ? "" : "/" + sub);
      a.call.ns = str(r, "namespace");
      a.call.name = str(r, "name");
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::string describe(const Audited& a) {
  return a.call.verb + " " + a.call.group + "/" + a.call.resource + " ns=" + a.call.ns +
         " name=" + a.call.name + " (" + a.uri + ")";
}

// Whether the environment's processes make the call: granted by the chart under the
// environment's values, or made under a flag `tailor cluster up` passes.
bool made_here(const charts::ApiCall& call) {
  return call.when.count("flag") ||
         charts::chart_grants(call, charts::chart_values(), YAML::Load(kEnvironmentValues));
}

TEST(LeastPrivilege, TheChartsRolesAreExactlyWhatTheProcessesUse) {
  E2eCluster& cluster = E2eCluster::get();
  TestNamespace ns("e2e-rbac");
  ASSERT_TRUE(install_vpa_crd(ns));
  // The pods run before their policies exist, so that the controller resizes them (the webhook
  // would size them at creation otherwise).
  cluster.label_node(kBigNode, kAvoidBig, "true");
  for (const char* name : {"inplace", "vpa"}) ASSERT_TRUE(ns.apply(deployment(name)));
  ASSERT_TRUE(ns.apply(deployment("recreate", true)));
  const std::vector<PodView> pods = wait_for_ready_pods(ns, "the three pods Ready", "", 3, kStart);
  cluster.label_node(kBigNode, kAvoidBig, std::nullopt);
  ASSERT_EQ(pods.size(), 3u);
  std::string first_recreate_uid;
  for (const PodView& p : pods) {
    if (p.name.rfind("recreate-", 0) == 0) first_recreate_uid = p.uid;
  }
  ASSERT_TRUE(
      ns.apply(policy("inplace", "InPlaceOrRecreate", {{"cpu", "80m"}, {"memory", "48Mi"}})));
  // 1536Mi > the small node's 1Gi: Infeasible there, so evicted; the replacement fits the big one.
  ASSERT_TRUE(
      ns.apply(policy("recreate", "InPlaceOrRecreate", {{"cpu", "60m"}, {"memory", "1536Mi"}})));
  ASSERT_TRUE(ns.apply(kVpa));
  EXPECT_TRUE(wait_until("inplace: resized in place", kAct, [&](std::string& seen) {
    return pod_at(ns, "inplace", "80m", seen);
  })) << cluster.controller_log_tail();
  EXPECT_TRUE(wait_until("recreate: evicted and recreated right-sized", kAct,
                         [&](std::string& seen) {
                           PodView pod;
                           return pod_at(ns, "recreate", "60m", seen, &pod) &&
                                  pod.uid != first_recreate_uid;
                         }))
      << cluster.controller_log_tail();
  EXPECT_TRUE(wait_until("vpa: resized in place and annotated", kAct, [&](std::string& seen) {
    const CommandResult r = ns.kubectl(
        "get pods -l app=vpa -o 'jsonpath={.items[0].metadata.annotations.vpaInPlaceUpdated}'");
    std::string pod;
    return pod_at(ns, "vpa", "70m", pod) && (seen = pod + " annotation=" + r.out, r.out == "true");
  })) << cluster.controller_log_tail();
  EXPECT_TRUE(wait_until("the policies' checkpoints saved", kAct, [&](std::string& seen) {
    const CommandResult r = ns.kubectl(
        "get verticalscalingcheckpoints -o 'jsonpath={.items[*].status.lastUpdateTime}'");
    seen = r.out + r.err;
    return r.exit_code == 0 && !r.out.empty();
  }));

  const auto calls = charts::load_api_calls(charts::chart_dir().parent_path() / "api-calls.yaml");
  const std::map<std::string, std::string> binaries = {{kControllerUser, "controller"},
                                                       {kNodeAgentUser, "node-agent"}};
  std::set<std::pair<const charts::ApiCall*, std::string>> used;  // call, verb
  int requests = 0;
  for (const Audited& a : audit_log(cluster.dir() / "audit.log")) {
    const auto binary = binaries.find(a.user);
    if (binary == binaries.end()) continue;
    ++requests;
    EXPECT_TRUE(a.allowed) << binary->second << " was forbidden: " << describe(a) << ": "
                           << a.reason;
    const charts::ApiCall* listed = nullptr;
    for (const charts::ApiCall& c : calls) {
      if (c.binary == binary->second && made_here(c) && charts::covers(c, a.call, "kube-system")) {
        listed = &c;
      }
    }
    if (listed) {
      used.insert({listed, a.call.verb});
    } else {
      ADD_FAILURE() << binary->second
                    << " made a call charts/api-calls.yaml does not list: " << describe(a);
    }
  }
  EXPECT_GT(requests, 100);
  for (const charts::ApiCall& c : calls) {
    if (!made_here(c) || !c.unexercised.empty()) continue;
    for (const std::string& verb : c.verbs) {
      EXPECT_TRUE(used.count({&c, verb}))
          << c.binary << " never called " << verb << " " << c.group << "/" << c.resource
          << " (scope " << c.scope << "): granted but unused, or say in `unexercised` why";
    }
  }
}

// The controller's ClusterRole as the chart renders it for this environment, with the rule that
// grants `resource` left out when `without` is set.
std::string controller_cluster_role(const std::string& without = "") {
  for (const auto& doc : charts::render_documents(kEnvironmentValues)) {
    if (doc.node["kind"].as<std::string>("") != "ClusterRole" ||
        doc.node["metadata"]["name"].as<std::string>() != "tailor-controller") {
      continue;
    }
    YAML::Node role = YAML::Clone(doc.node);
    YAML::Node kept(YAML::NodeType::Sequence);
    for (const auto& rule : role["rules"]) {
      if (without.empty() || rule["resources"][0].as<std::string>() != without)
        kept.push_back(rule);
    }
    role["rules"] = kept;
    return YAML::Dump(role) + "\n";
  }
  throw std::runtime_error("no ClusterRole tailor-controller rendered");
}

// issue 17: a verb taken from the rendered role gets the controller a 403, which it reports in
// the API's words (the user, the verb, the resource, the namespace) as an event, an error log
// line and a metric, and it runs on; once the role is whole again the resize goes through.
TEST(LeastPrivilege, ARemovedVerbIsReportedAndTheControllerRunsOn) {
  E2eCluster& cluster = E2eCluster::get();
  TestNamespace ns("e2e-rbac-403");
  ASSERT_TRUE(ns.apply(deployment("app")));
  ASSERT_TRUE(wait_until("the pod Ready", kStart,
                         [&](std::string& seen) { return pod_at(ns, "app", "50m", seen); }));
  const pid_t controller = live_pid(cluster.dir() / "controller.pid");
  const double forbidden_before =
      cluster.controller_metric("tailor_controller_resizes_total{outcome=\"forbidden\"}")
          .value_or(0);
  ASSERT_TRUE(ns.apply(controller_cluster_role("pods/resize")));
  ASSERT_TRUE(ns.apply(policy("app", "InPlaceOrRecreate", {{"cpu", "80m"}, {"memory", "48Mi"}})));
  const std::string expected = "User \"" + std::string(kControllerUser) +
                               "\" cannot patch resource \"pods/resize\" in API group \"\" in "
                               "the namespace \"" +
                               ns.name() + "\"";
  const bool reported = wait_until("the 403 as an event", kAct, [&](std::string& seen) {
    seen.clear();
    for (const EventView& e : ns.events()) {
      if (e.reason == "ResizeRefused" && e.message.find(expected) != std::string::npos) return true;
      seen += e.reason + ": " + e.message + "\n";
    }
    return false;
  });
  const std::string log = cluster.controller_log_tail(200);
  const double forbidden_after =
      cluster.controller_metric("tailor_controller_resizes_total{outcome=\"forbidden\"}")
          .value_or(0);
  ASSERT_TRUE(ns.apply(controller_cluster_role()));  // whole again, for every later test
  EXPECT_TRUE(reported) << log;
  EXPECT_NE(log.find("resize forbidden"), std::string::npos) << log;
  // The log quotes the message (klog's escaping), so its parts are looked for.
  for (const std::string& part :
       {std::string(kControllerUser), std::string("cannot patch resource"),
        std::string("pods/resize")}) {
    EXPECT_NE(log.find(part), std::string::npos) << part << " in\n" << log;
  }
  EXPECT_GT(forbidden_after, forbidden_before);
  EXPECT_EQ(live_pid(cluster.dir() / "controller.pid"), controller) << "the controller restarted";
  EXPECT_TRUE(wait_until("resized once the role is whole", kAct, [&](std::string& seen) {
    return pod_at(ns, "app", "80m", seen);
  })) << cluster.controller_log_tail();
}

}  // namespace
}  // namespace tailor::e2e
