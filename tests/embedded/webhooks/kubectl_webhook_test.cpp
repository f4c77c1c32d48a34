// Mutating admission webhooks through the real kubectl: an HTTPS webhook server in the test
// (its CA in the configuration's caBundle) that mutates pods, denies them, answers too late, or
// is not there at all, under failurePolicy Fail and Ignore.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <mutex>

#include "kube/http/base64.h"
#include "kube/http/server.h"
#include "kube/http/tls_certs.h"
#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;

// Answers AdmissionReviews by path: /mutate labels the pod, /deny refuses it, /slow answers
// after the caller has given up, /broken answers 500.
class WebhookServer {
 public:
  // dns_names: the names its certificate is valid for (it is always valid for 127.0.0.1).
  explicit WebhookServer(const std::vector<std::string>& dns_names = {"localhost",
                                                                      "hook.default.svc"})
      : ca_(kube::http::make_ca("webhook-ca")) {
    kube::http::CertificateAndKey cert =
        kube::http::make_server_certificate(ca_, "webhook", dns_names, {"127.0.0.1"});
    kube::http::ServerOptions options;
    options.tls = kube::http::TlsServerConfig{.cert_chain_pem = cert.cert_pem,
                                              .private_key_pem = cert.key_pem};
    server_ = std::make_unique<kube::http::Server>(options,
                                                   [this](kube::http::Exchange& e) { handle(e); });
    server_->start();
  }

  std::uint16_t port() const { return server_->port(); }
  std::string ca_bundle() const { return kube::base64_encode(ca_.cert_pem); }
  std::vector<bj::object> reviews() {
    std::lock_guard lock(mu_);
    return reviews_;
  }

 private:
  void handle(kube::http::Exchange& e) {
    const kube::http::ServerRequest& req = e.request();
    bj::object review = bj::parse(req.body).as_object();
    {
      std::lock_guard lock(mu_);
      reviews_.push_back(review);
    }
    std::string uid(review.at("request").at("uid").as_string());
    bj::object response{{"uid", uid}, {"allowed", true}};
    if (req.path == "/mutate") {
      std::string patch = R"([{"op":"add","path":"/metadata/labels/mutated","value":"yes"}])";
      response["patchType"] = "JSONPatch";
      response["patch"] = kube::base64_encode(patch);
    } else if (req.path == "/deny") {
      response["allowed"] = false;
      response["status"] = bj::object{
          {"code", 403}, {"reason", "Forbidden"}, {"message", "pods named bad are not allowed"}};
    } else if (req.path == "/slow") {
      e.wait_closed(std::chrono::seconds(10));
    } else if (req.path == "/broken") {
      e.respond({500, {{"Content-Type", "text/plain"}}, "oops"});
      return;
    }
    bj::object body{{"apiVersion", "admission.k8s.io/v1"},
                    {"kind", "AdmissionReview"},
                    {"response", std::move(response)}};
    e.respond({200, {{"Content-Type", "application/json"}}, bj::serialize(body)});
  }

  kube::http::CertificateAndKey ca_;
  std::unique_ptr<kube::http::Server> server_;
  std::mutex mu_;
  std::vector<bj::object> reviews_;
};

class KubectlWebhookTest : public KubectlClusterTest {
 protected:
  // A configuration with one webhook on pod creation.
  std::string configuration(const std::string& name, const std::string& client_config,
                            const std::string& policy, int timeout = 10,
                            const std::string& extra = "") {
    return "apiVersion: admissionregistration.k8s.io/v1\n"
           "kind: MutatingWebhookConfiguration\n"
           "metadata: {name: " +
           name +
           "}\n"
           "webhooks:\n"
           "- name: " +
           name +
           ".tailor.dev\n"
           "  clientConfig:\n" +
           client_config +
           "  rules:\n"
           "  - {operations: [CREATE], apiGroups: [\"\"], apiVersions: [v1], resources: [pods]}\n"
           "  failurePolicy: " +
           policy +
           "\n"
           "  sideEffects: None\n"
           "  admissionReviewVersions: [v1]\n"
           "  timeoutSeconds: " +
           std::to_string(timeout) + "\n" + extra;
  }

  std::string url_config(const std::string& path, std::uint16_t port) {
    return "    url: https://127.0.0.1:" + std::to_string(port) + path +
           "\n"
           "    caBundle: " +
           hooks_.ca_bundle() + "\n";
  }

  // The first configuration is applied, later ones replace it (PUT).
  void install(const std::string& yaml) {
    write("hook.yaml", yaml);
    KubectlResult r = kubectl((installed_ ? "replace" : "apply") + std::string(" -f hook.yaml"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    installed_ = true;
  }

  bool installed_ = false;

  // Service default/hook (port 443 to target_port, selector app=hook) and its pod hook-0, whose
  // container port "https" is the webhook server's; the pod's status made Ready (or not) as a
  // kubelet would, with podIP 127.0.0.1. Created before any webhook watches pod creation.
  void serve_hook(const std::string& target_port, bool ready) {
    serve_hook(target_port, ready, hooks_.port());
  }
  void serve_hook(const std::string& target_port, bool ready, std::uint16_t container_port) {
    write("svc.yaml",
          "apiVersion: v1\nkind: Service\nmetadata: {name: hook}\nspec:\n"
          "  selector: {app: hook}\n"
          "  ports: [{port: 443, targetPort: " +
              target_port +
              "}]\n---\n"
              "apiVersion: v1\nkind: Pod\nmetadata: {name: hook-0, labels: {app: hook}}\nspec:\n"
              "  containers:\n  - name: hook\n    image: hook:1\n"
              "    ports: [{name: https, containerPort: " +
              std::to_string(container_port) + "}]\n");
    KubectlResult created = kubectl("apply -f svc.yaml");
    ASSERT_EQ(created.exit_code, 0) << created.err;
    std::string status = ready ? "True" : "False";
    KubectlResult patched = kubectl(
        "patch pod hook-0 --subresource=status --type=merge -p "
        "'{\"status\":{\"phase\":\"Running\",\"podIP\":\"127.0.0.1\",\"conditions\":"
        "[{\"type\":\"Ready\",\"status\":\"" +
        status + "\"}]}}'");
    ASSERT_EQ(patched.exit_code, 0) << patched.err;
  }

  KubectlResult run_pod(const std::string& name) {
    return kubectl("run " + name + " --image=nginx:1.25");
  }

  WebhookServer hooks_;
};

TEST_F(KubectlWebhookTest, MutatingWebhookPatchIsApplied) {
  install(configuration("mutate", url_config("/mutate", hooks_.port()), "Fail"));
  KubectlResult r = run_pod("web");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "pod/web created\n");
  KubectlResult label = kubectl("get pod web -o jsonpath={.metadata.labels}");
  EXPECT_EQ(label.out, R"({"mutated":"yes","run":"web"})") << label.err;
  std::vector<bj::object> reviews = hooks_.reviews();
  ASSERT_EQ(reviews.size(), 1u);
  const bj::object& request = reviews[0].at("request").as_object();
  EXPECT_EQ(request.at("operation"), "CREATE");
  EXPECT_EQ(request.at("namespace"), "default");
  EXPECT_EQ(request.at("kind"), (bj::object{{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}));
  EXPECT_EQ(request.at("object").at("metadata").at("name"), "web");
  // Other kinds and operations do not match the rules.
  ASSERT_EQ(kubectl("create configmap c --from-literal=a=b").exit_code, 0);
  ASSERT_EQ(kubectl("label pod web extra=1").exit_code, 0);
  EXPECT_EQ(hooks_.reviews().size(), 1u);
}

TEST_F(KubectlWebhookTest, DenialIsTheWebhooksStatus) {
  install(configuration("deny", url_config("/deny", hooks_.port()), "Ignore"));
  KubectlResult r = run_pod("bad");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): admission webhook \"deny.tailor.dev\" denied the "
            "request: pods named bad are not allowed\n");
  EXPECT_NE(kubectl("get pod bad").exit_code, 0);
}

TEST_F(KubectlWebhookTest, TimeoutFailsClosedUnderFail) {
  install(configuration("slow", url_config("/slow", hooks_.port()), "Fail", 1));
  KubectlResult r = run_pod("web");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.err,
            "Error from server (InternalError): Internal error occurred: failed calling "
            "webhook \"slow.tailor.dev\": failed to call webhook: Post \"https://127.0.0.1:" +
                std::to_string(hooks_.port()) + "/slow?timeout=1s\": context deadline exceeded\n");
}

TEST_F(KubectlWebhookTest, TimeoutIsIgnoredUnderIgnore) {
  install(configuration("slow", url_config("/slow", hooks_.port()), "Ignore", 1));
  KubectlResult r = run_pod("web");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(hooks_.reviews().size(), 1u);
}

TEST_F(KubectlWebhookTest, UnreachableWebhookFailsOrIsIgnored) {
  std::uint16_t closed;
  {
    kube::http::Server probe({}, [](kube::http::Exchange&) {});
    probe.start();
    closed = probe.port();
  }
  install(configuration("down", url_config("/", closed), "Fail"));
  KubectlResult failed = run_pod("web");
  EXPECT_NE(failed.exit_code, 0);
  EXPECT_TRUE(failed.err.starts_with(
      "Error from server (InternalError): Internal error occurred: failed calling webhook "
      "\"down.tailor.dev\": failed to call webhook: Post \"https://127.0.0.1:" +
      std::to_string(closed) + "/?timeout=10s\": dial tcp 127.0.0.1:" + std::to_string(closed) +
      ": connect: connection refused\n"))
      << failed.err;
  install(configuration("down", url_config("/", closed), "Ignore"));
  KubectlResult ignored = run_pod("web");
  EXPECT_EQ(ignored.exit_code, 0) << ignored.err;
}

TEST_F(KubectlWebhookTest, UntrustedCertificateAndBadStatusAreFailures) {
  std::string wrong_ca = "    url: https://127.0.0.1:" + std::to_string(hooks_.port()) +
                         "/mutate\n    caBundle: " +
                         kube::base64_encode(kube::http::make_ca("someone-else").cert_pem) + "\n";
  install(configuration("tls", wrong_ca, "Fail"));
  KubectlResult r = run_pod("web");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("failed calling webhook \"tls.tailor.dev\": failed to call webhook: Post "
                       "\"https://127.0.0.1:" +
                       std::to_string(hooks_.port()) + "/mutate?timeout=10s\": tls: "),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(hooks_.reviews().empty());
  install(configuration("tls", url_config("/broken", hooks_.port()), "Fail"));
  KubectlResult broken = run_pod("web");
  EXPECT_NE(broken.err.find("failed calling webhook \"tls.tailor.dev\": failed to call webhook: "
                            "the server responded with the status code 500 but did not return "
                            "more information"),
            std::string::npos)
      << broken.err;
}

// A reference to Service default/hook on its port 443 (the default), path /mutate.
std::string service_reference(const std::string& ca_bundle) {
  return "    service: {namespace: default, name: hook, path: /mutate}\n    caBundle: " +
         ca_bundle + "\n";
}

std::string service_error(const std::string& reason) {
  return "Error from server (InternalError): Internal error occurred: failed calling webhook "
         "\"svc.tailor.dev\": failed to call webhook: Post "
         "\"https://hook.default.svc:443/mutate?timeout=10s\": " +
         reason + "\n";
}

TEST_F(KubectlWebhookTest, ServiceReferenceIsCalledAtAReadyEndpoint) {
  serve_hook(std::to_string(hooks_.port()), true);
  install(configuration("svc", service_reference(hooks_.ca_bundle()), "Fail"));
  KubectlResult r = run_pod("web");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(kubectl("get pod web -o jsonpath={.metadata.labels.mutated}").out, "yes");
}

TEST_F(KubectlWebhookTest, ServiceTargetPortByContainerPortName) {
  serve_hook("https", true);
  install(configuration("svc", service_reference(hooks_.ca_bundle()), "Fail"));
  KubectlResult r = run_pod("web");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(kubectl("get pod web -o jsonpath={.metadata.labels.mutated}").out, "yes");
}

TEST_F(KubectlWebhookTest, MissingServiceFailsOrIsIgnored) {
  install(configuration("svc", service_reference(hooks_.ca_bundle()), "Fail"));
  KubectlResult failed = run_pod("web");
  EXPECT_NE(failed.exit_code, 0);
  EXPECT_EQ(failed.err, service_error("service \"hook\" not found"));
  install(configuration("svc", service_reference(hooks_.ca_bundle()), "Ignore"));
  KubectlResult ignored = run_pod("web");
  EXPECT_EQ(ignored.exit_code, 0) << ignored.err;
  EXPECT_EQ(kubectl("get pod web -o jsonpath={.metadata.labels.mutated}").out, "");
  EXPECT_TRUE(hooks_.reviews().empty());
}

TEST_F(KubectlWebhookTest, ServiceWithoutReadyEndpointFailsOrIsIgnored) {
  serve_hook(std::to_string(hooks_.port()), false);
  install(configuration("svc", service_reference(hooks_.ca_bundle()), "Fail"));
  KubectlResult failed = run_pod("web");
  EXPECT_NE(failed.exit_code, 0);
  EXPECT_EQ(failed.err, service_error("no endpoints available for service \"hook\""));
  install(configuration("svc", service_reference(hooks_.ca_bundle()), "Ignore"));
  KubectlResult ignored = run_pod("web");
  EXPECT_EQ(ignored.exit_code, 0) << ignored.err;
  EXPECT_TRUE(hooks_.reviews().empty());
}

// The endpoint is dialled, the Service's name stays in the URL of the error.
TEST_F(KubectlWebhookTest, UnreachableEndpointIsDialledAtItsAddress) {
  std::uint16_t closed;
  {
    kube::http::Server probe({}, [](kube::http::Exchange&) {});
    probe.start();
    closed = probe.port();
  }
  serve_hook("https", true, closed);
  install(configuration("svc", service_reference(hooks_.ca_bundle()), "Fail"));
  KubectlResult failed = run_pod("web");
  EXPECT_NE(failed.exit_code, 0);
  EXPECT_EQ(failed.err, service_error("dial tcp 127.0.0.1:" + std::to_string(closed) +
                                      ": connect: connection refused"));
}

// The endpoint's certificate must name <service>.<namespace>.svc, not the address dialled.
TEST_F(KubectlWebhookTest, EndpointCertificateIsCheckedForTheServiceName) {
  WebhookServer by_ip_only({"localhost"});
  serve_hook(std::to_string(by_ip_only.port()), true);
  install(configuration("svc", service_reference(by_ip_only.ca_bundle()), "Fail"));
  KubectlResult failed = run_pod("web");
  EXPECT_NE(failed.exit_code, 0);
  std::string tls_failure = service_error("tls: ");
  tls_failure.pop_back();  // the reason follows
  EXPECT_TRUE(failed.err.starts_with(tls_failure)) << failed.err;
  EXPECT_TRUE(by_ip_only.reviews().empty());
}

TEST_F(KubectlWebhookTest, SelectorsLimitWhatIsSentToTheWebhook) {
  install(configuration("mutate", url_config("/mutate", hooks_.port()), "Fail", 10,
                        "  namespaceSelector: {matchLabels: {tailor: enabled}}\n"
                        "  objectSelector:\n"
                        "    matchExpressions: [{key: skip, operator: DoesNotExist}]\n"));
  ASSERT_EQ(run_pod("plain").exit_code, 0);
  EXPECT_TRUE(hooks_.reviews().empty());
  ASSERT_EQ(kubectl("label namespace default tailor=enabled").exit_code, 0);
  ASSERT_EQ(kubectl("run skipped --image=nginx:1.25 --labels=skip=yes").exit_code, 0);
  EXPECT_TRUE(hooks_.reviews().empty());
  ASSERT_EQ(run_pod("web").exit_code, 0);
  EXPECT_EQ(hooks_.reviews().size(), 1u);
  EXPECT_EQ(kubectl("get pod web -o jsonpath={.metadata.labels.mutated}").out, "yes");
}

// kubectl's re-apply sends a strategic merge patch of the changed fields only; webhooks merge by
// name (patchMergeKey), so the fields left out (sideEffects, rules, ...) stay.
TEST_F(KubectlWebhookTest, ReapplyOfAChangedConfigurationMergesWebhooksByName) {
  std::string client = url_config("/mutate", hooks_.port());
  write("hook.yaml", configuration("mutate", client, "Fail"));
  ASSERT_EQ(kubectl("apply -f hook.yaml").exit_code, 0);
  write("hook.yaml", configuration("mutate", client, "Ignore", 7));
  KubectlResult r = kubectl("apply -f hook.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "mutatingwebhookconfiguration.admissionregistration.k8s.io/mutate configured\n");
  EXPECT_EQ(kubectl("get mutatingwebhookconfiguration mutate -o jsonpath="
                    "'{.webhooks[*].name} {.webhooks[0].failurePolicy} "
                    "{.webhooks[0].timeoutSeconds} {.webhooks[0].sideEffects} "
                    "{.webhooks[0].rules[0].resources} {.metadata.generation}'")
                .out,
            R"(mutate.tailor.dev Ignore 7 None ["pods"] 2)");
  ASSERT_EQ(run_pod("web").exit_code, 0);
  EXPECT_EQ(hooks_.reviews().size(), 1u);
}

TEST_F(KubectlWebhookTest, InvalidConfigurationsAreRejected) {
  std::string yaml = configuration("bad", url_config("/mutate", hooks_.port()), "Sometimes", 31);
  write("bad.yaml", yaml);
  KubectlResult r = kubectl("apply -f bad.yaml");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("The MutatingWebhookConfiguration \"bad\" is invalid: "), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("webhooks[0].failurePolicy: Unsupported value: \"Sometimes\": supported "
                       "values: \"Fail\", \"Ignore\""),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be "
                       "between 1 and 30 seconds"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace tailor::embedded::testing
