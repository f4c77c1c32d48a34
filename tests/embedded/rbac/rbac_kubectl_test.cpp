// Authentication and RBAC with the real kubectl (issue 17): a ServiceAccount's token from
// `kubectl create token` is answered by the roles bound to it — `kubectl auth can-i` says yes or
// no from RBAC, a forbidden write gets kube-apiserver's 403 and stores nothing, an expired,
// forged or orphaned token gets 401 and stores nothing — and the administrator (token or
// certificate in system:masters) keeps every right.
#include <boost/json.hpp>
#include <chrono>
#include <set>
#include <sstream>
#include <thread>

#include "embedded/auth/jwt.h"
#include "embedded/auth/token_claims.h"
#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;
using std::chrono::seconds;

constexpr const char* kUnauthorized = "error: You must be logged in to the server (Unauthorized)\n";

class RbacKubectlTest : public KubectlClusterTest {
 protected:
  // kubectl as the bearer of `token` (the kubeconfig's own token is replaced by --token).
  KubectlResult as(const std::string& token, const std::string& args) {
    return kubectl("--token=" + token + " " + args);
  }

  std::string token_for(const std::string& sa, const std::string& flags = "") {
    KubectlResult r = kubectl("create token " + sa + " " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
    return r.out;
  }

  // ServiceAccount bot in default, allowed to read and patch pods/resize only.
  std::string resizer_bot() {
    EXPECT_EQ(kubectl("create sa bot").exit_code, 0);
    EXPECT_EQ(kubectl("create role resizer --verb=get,patch --resource=pods/resize").exit_code, 0);
    EXPECT_EQ(kubectl("create rolebinding bot-resizer --role=resizer --serviceaccount=default:bot")
                  .exit_code,
              0);
    return token_for("bot");
  }

  std::string can_i(const std::string& token, const std::string& question) {
    return as(token, "auth can-i " + question).out;
  }

  // A token signed with `key` whose claims name ServiceAccount default/bot as stored.
  std::string signed_token(const SigningKey& key, kube::TimePoint issued, std::int64_t lifetime) {
    KubectlResult uid = kubectl("get sa bot -o jsonpath={.metadata.uid}");
    TokenSubject subject{.ns = "default", .service_account = {"bot", uid.out}};
    return encode_jwt(key, token_claims(subject, {.audiences = {kServiceAccountIssuer},
                                                  .issued_at = issued,
                                                  .expiration_seconds = lifetime}));
  }

  bool configmap_exists(const std::string& name) {
    return kubectl("get configmap " + name).exit_code == 0;
  }
};

TEST_F(RbacKubectlTest, CanIAnswersFromTheServiceAccountsRole) {
  const std::string token = resizer_bot();
  EXPECT_EQ(can_i(token, "patch pods --subresource=resize"), "yes\n");
  EXPECT_EQ(can_i(token, "get pods --subresource=resize"), "yes\n");
  EXPECT_EQ(can_i(token, "patch pods"), "no\n");
  EXPECT_EQ(can_i(token, "update pods --subresource=resize"), "no\n");
  EXPECT_EQ(can_i(token, "patch pods --subresource=resize -n kube-system"), "no\n");
  // Discovery and self reviews for every authenticated user; nothing else at the cluster scope.
  EXPECT_EQ(can_i(token, "get /api"), "yes\n");
  EXPECT_EQ(can_i(token, "get /metrics"), "no\n");
  EXPECT_EQ(can_i(token, "list clusterroles"), "no\n");
  EXPECT_EQ(can_i(token, "create selfsubjectaccessreviews.authorization.k8s.io"), "yes\n");
  // Who the token is, as kubectl auth whoami asks.
  KubectlResult who = as(token, "auth whoami -o json");
  ASSERT_EQ(who.exit_code, 0) << who.err;
  const bj::value info = bj::parse(who.out).at("status").at("userInfo");
  EXPECT_EQ(info.at("username"), "system:serviceaccount:default:bot");
  EXPECT_EQ(info.at("groups"), bj::parse(R"(["system:serviceaccounts",)"
                                         R"("system:serviceaccounts:default",)"
                                         R"("system:authenticated"])"));
  EXPECT_EQ(info.at("uid"), bj::value(kubectl("get sa bot -o jsonpath={.metadata.uid}").out));
  // The administrator may do everything.
  EXPECT_EQ(kubectl("auth can-i '*' '*' --all-namespaces").out, "yes\n");
}

// `kubectl auth can-i --list` (SelfSubjectRulesReview): the rules bound to the token in the
// namespace asked, with those every authenticated user has; another namespace lacks the Role's.
TEST_F(RbacKubectlTest, CanIListShowsTheRulesOfTheNamespace) {
  const std::string token = resizer_bot();
  auto rows = [&](const std::string& flags) {
    KubectlResult r = as(token, "auth can-i --list " + flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::set<std::string> out;  // columns joined by one space
    std::stringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      std::stringstream words(line);
      std::string row;
      for (std::string w; words >> w;) row += (row.empty() ? "" : " ") + w;
      out.insert(row);
    }
    return out;
  };
  const std::set<std::string> here = rows("");
  EXPECT_TRUE(here.count("pods/resize [] [] [get patch]")) << ::testing::PrintToString(here);
  EXPECT_TRUE(here.count("selfsubjectaccessreviews.authorization.k8s.io [] [] [create]"))
      << ::testing::PrintToString(here);
  EXPECT_TRUE(here.count("[/api/*] [] [get]")) << ::testing::PrintToString(here);
  const std::set<std::string> elsewhere = rows("-n kube-system");
  EXPECT_FALSE(elsewhere.count("pods/resize [] [] [get patch]"));
  EXPECT_TRUE(elsewhere.count("selfsubjectaccessreviews.authorization.k8s.io [] [] [create]"));
}

TEST_F(RbacKubectlTest, ForbiddenWritesGetUpstreams403AndStoreNothing) {
  const std::string token = resizer_bot();
  KubectlResult r = as(token, "create configmap sneaky --from-literal=a=1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: failed to create configmap: configmaps is forbidden: User "
            "\"system:serviceaccount:default:bot\" cannot create resource \"configmaps\" in API "
            "group \"\" in the namespace \"default\"\n");
  EXPECT_FALSE(configmap_exists("sneaky"));
  ASSERT_EQ(kubectl("create configmap kept --from-literal=a=1").exit_code, 0);
  r = as(token, "label configmap kept touched=yes");
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): configmaps \"kept\" is forbidden: User "
            "\"system:serviceaccount:default:bot\" cannot get resource \"configmaps\" in API "
            "group \"\" in the namespace \"default\"\n");
  r = as(token, "delete configmap kept");
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): configmaps \"kept\" is forbidden: User "
            "\"system:serviceaccount:default:bot\" cannot delete resource \"configmaps\" in API "
            "group \"\" in the namespace \"default\"\n");
  EXPECT_EQ(kubectl("get configmap kept -o jsonpath={.metadata.labels}").out, "");
  r = as(token, "get --raw /metrics");
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): forbidden: User \"system:serviceaccount:default:bot\" "
            "cannot get path \"/metrics\"\n");
}

TEST_F(RbacKubectlTest, ExpiredForgedAndOrphanedTokensAre401AndStoreNothing) {
  resizer_bot();
  const auto now = kube::TimePoint(std::chrono::system_clock::now());
  // Expired two hours ago; valid claims signed by another key; garbage.
  const std::string expired =
      signed_token(cluster_->service_account_signing_key(), now - std::chrono::hours(3), 3600);
  const std::string forged = signed_token(SigningKey::generate(), now, 3600);
  const std::string valid = signed_token(cluster_->service_account_signing_key(), now, 3600);
  EXPECT_EQ(can_i(valid, "patch pods --subresource=resize"), "yes\n");
  for (const std::string& token : {expired, forged, std::string("not-a-token")}) {
    KubectlResult r = as(token, "get --raw /api/v1/namespaces/default/configmaps");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, kUnauthorized);
    r = as(token, "create configmap from-a-bad-token");
    EXPECT_EQ(r.exit_code, 1);
    // kubectl's `create configmap` wraps the API's error in its own words (as for the 403
    // above), so the 401's "Unauthorized" follows them.
    EXPECT_EQ(r.err, "error: failed to create configmap: Unauthorized\n");
  }
  EXPECT_FALSE(configmap_exists("from-a-bad-token"));
  // The ServiceAccount deleted and made again under the same name: old tokens stay dead.
  ASSERT_EQ(kubectl("delete sa bot").exit_code, 0);
  EXPECT_EQ(as(valid, "get --raw /api").err, kUnauthorized);
  ASSERT_EQ(kubectl("create sa bot").exit_code, 0);
  EXPECT_EQ(as(valid, "get --raw /api").err, kUnauthorized);
}

TEST_F(RbacKubectlTest, UpstreamsStatusBodyFor401) {
  // kubectl -v=8 logs the response body with its quotes escaped.
  KubectlResult r = as("wrong", "get --raw /api/v1/namespaces -v=8");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(R"(body="{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},)"
                       R"(\"status\":\"Failure\",\"message\":\"Unauthorized\",)"
                       R"(\"reason\":\"Unauthorized\",\"code\":401}")"),
            std::string::npos)
      << r.err;
}

TEST_F(RbacKubectlTest, TokenBoundToAPodEndsWithThePod) {
  const std::string unbound = resizer_bot();
  ASSERT_EQ(kubectl("run web --image=nginx:1.25").exit_code, 0);
  const std::string uid = kubectl("get pod web -o jsonpath={.metadata.uid}").out;
  const std::string bound = token_for("bot", "--bound-object-kind=Pod --bound-object-name=web");
  std::optional<std::string> claims =
      base64url_decode(bound.substr(bound.find('.') + 1, bound.rfind('.') - bound.find('.') - 1));
  ASSERT_TRUE(claims);
  EXPECT_EQ(bj::parse(*claims).at("kubernetes.io").at("pod"),
            bj::parse(R"({"name":"web","uid":")" + uid + R"("})"));
  EXPECT_EQ(can_i(bound, "patch pods --subresource=resize"), "yes\n");
  ASSERT_EQ(kubectl("delete pod web --grace-period=0 --force").exit_code, 0);
  EXPECT_EQ(as(bound, "auth can-i patch pods --subresource=resize").err, kUnauthorized);
  EXPECT_EQ(can_i(unbound, "patch pods --subresource=resize"), "yes\n");
}

TEST_F(RbacKubectlTest, TokenRequestsAreValidated) {
  resizer_bot();
  KubectlResult r = kubectl("create token bot --duration=5m");
  EXPECT_EQ(r.err,
            "error: failed to create token: TokenRequest.authentication.k8s.io \"\" is invalid: "
            "spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 "
            "minutes\n");
  r = kubectl("create token nobody");
  EXPECT_EQ(r.err, "error: failed to create token: serviceaccounts \"nobody\" not found\n");
  r = kubectl("create token bot --bound-object-kind=Pod --bound-object-name=absent");
  EXPECT_EQ(r.err, "error: failed to create token: pods \"absent\" not found\n");
  // Another audience than the API's: a valid token the API does not accept.
  EXPECT_EQ(as(token_for("bot", "--audience=vault"), "get --raw /api").err, kUnauthorized);
  // Only those allowed to create serviceaccounts/token get one.
  r = as(token_for("bot"), "create token bot");
  EXPECT_EQ(
      r.err,
      "error: failed to create token: serviceaccounts \"bot\" is forbidden: User "
      "\"system:serviceaccount:default:bot\" cannot create resource \"serviceaccounts/token\" "
      "in API group \"\" in the namespace \"default\"\n");
}

TEST_F(RbacKubectlTest, ResourceNamesAndClusterRolesInANamespace) {
  resizer_bot();
  ASSERT_EQ(kubectl("create clusterrole one-map --verb=get,update --resource=configmaps "
                    "--resource-name=allowed")
                .exit_code,
            0);
  ASSERT_EQ(kubectl("create rolebinding bot-one-map --clusterrole=one-map "
                    "--serviceaccount=default:bot")
                .exit_code,
            0);
  const std::string token = token_for("bot");
  EXPECT_EQ(can_i(token, "get configmaps/allowed"), "yes\n");
  EXPECT_EQ(can_i(token, "get configmaps/other"), "no\n");
  EXPECT_EQ(can_i(token, "list configmaps"), "no\n");
  EXPECT_EQ(can_i(token, "get configmaps/allowed -n kube-system"), "no\n");
  ASSERT_EQ(kubectl("create configmap allowed --from-literal=a=1").exit_code, 0);
  EXPECT_EQ(as(token, "get configmap allowed -o name").out, "configmap/allowed\n");
}

TEST_F(RbacKubectlTest, ImpersonationNeedsTheImpersonateVerb) {
  const std::string token = resizer_bot();
  EXPECT_EQ(kubectl("auth can-i patch pods --subresource=resize "
                    "--as=system:serviceaccount:default:bot")
                .out,
            "yes\n");
  EXPECT_EQ(kubectl("auth can-i patch pods --as=system:serviceaccount:default:bot").out, "no\n");
  KubectlResult r = as(token, "auth can-i get pods --as=jane");
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): users \"jane\" is forbidden: User "
            "\"system:serviceaccount:default:bot\" cannot impersonate resource \"users\" in API "
            "group \"\" at the cluster scope\n");
}

TEST_F(RbacKubectlTest, BindingToAMissingRoleSaysSoInThe403) {
  ASSERT_EQ(kubectl("create sa bot").exit_code, 0);
  ASSERT_EQ(
      kubectl("create rolebinding dangling --role=gone --serviceaccount=default:bot").exit_code, 0);
  KubectlResult r = as(token_for("bot"), "get configmaps");
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): configmaps is forbidden: User "
            "\"system:serviceaccount:default:bot\" cannot list resource \"configmaps\" in API "
            "group \"\" in the namespace \"default\": RBAC: role.rbac.authorization.k8s.io "
            "\"gone\" not found\n");
}

TEST_F(RbacKubectlTest, AggregatedClusterRolesGatherLabelledRules) {
  ASSERT_EQ(
      kubectl("create clusterrole leases-reader --verb=get --resource=leases.coordination.k8s.io")
          .exit_code,
      0);
  ASSERT_EQ(
      kubectl("label clusterrole leases-reader rbac.authorization.k8s.io/aggregate-to-view=true")
          .exit_code,
      0);
  const std::string wanted =
      R"({"apiGroups":["coordination.k8s.io"],"resources":["leases"],"verbs":["get"]})";
  std::string rules;
  for (int i = 0; i < 100 && rules.find(wanted) == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    rules = kubectl("get clusterrole view -o jsonpath={.rules}").out;
  }
  EXPECT_NE(rules.find(wanted), std::string::npos) << rules;
  ASSERT_EQ(kubectl("create sa bot").exit_code, 0);
  ASSERT_EQ(kubectl("create rolebinding bot-view --clusterrole=view --serviceaccount=default:bot")
                .exit_code,
            0);
  const std::string token = token_for("bot");
  EXPECT_EQ(can_i(token, "get leases.coordination.k8s.io"), "yes\n");
  EXPECT_EQ(can_i(token, "list pods"), "yes\n");
  EXPECT_EQ(can_i(token, "delete pods"), "no\n");
  // The label removed: the rule leaves view.
  ASSERT_EQ(kubectl("label clusterrole leases-reader rbac.authorization.k8s.io/aggregate-to-view-")
                .exit_code,
            0);
  for (int i = 0; i < 100 && rules.find(wanted) != std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    rules = kubectl("get clusterrole view -o jsonpath={.rules}").out;
  }
  EXPECT_EQ(rules.find(wanted), std::string::npos) << rules;
}

TEST_F(RbacKubectlTest, TokensSurviveARestartWithTheStateDirectory) {
  const std::string token = resizer_bot();
  ClusterOptions options = cluster_options();
  options.dir = (dir_ / "state").string();
  cluster_.reset();
  cluster_ = std::make_unique<Cluster>(options);
  cluster_->start();
  cluster_->write_kubeconfig(kubeconfig_);
  EXPECT_EQ(can_i(token, "patch pods --subresource=resize"), "yes\n");
}

}  // namespace
}  // namespace tailor::embedded::testing

namespace tailor::embedded::testing {
namespace {

// Escalation prevention: who may write roles and bindings grants only what they hold.
class RbacEscalationTest : public RbacKubectlTest {
 protected:
  std::string role_writer() {
    EXPECT_EQ(kubectl("create sa writer").exit_code, 0);
    EXPECT_EQ(kubectl("create role role-writer --verb=create,get,update,patch "
                      "--resource=roles.rbac.authorization.k8s.io,"
                      "rolebindings.rbac.authorization.k8s.io,configmaps")
                  .exit_code,
              0);
    EXPECT_EQ(kubectl("create rolebinding writer --role=role-writer "
                      "--serviceaccount=default:writer")
                  .exit_code,
              0);
    return token_for("writer");
  }
};

constexpr const char* kWriter =
    "user \"system:serviceaccount:default:writer\" (groups=[\"system:serviceaccounts\" "
    "\"system:serviceaccounts:default\" \"system:authenticated\"]) is attempting to grant RBAC "
    "permissions not currently held:\n";

TEST_F(RbacEscalationTest, ARoleGrantsOnlyWhatItsWriterHolds) {
  const std::string token = role_writer();
  KubectlResult r = as(token, "create role wider --verb=get,delete --resource=configmaps,pods");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, std::string("Error from server (Forbidden): roles.rbac.authorization.k8s.io "
                               "\"wider\" is forbidden: ") +
                       kWriter +
                       "{APIGroups:[\"\"], Resources:[\"configmaps\"], Verbs:[\"delete\"]}\n"
                       "{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"get\" \"delete\"]}\n");
  EXPECT_NE(kubectl("get role wider").exit_code, 0);
  r = as(token, "create role same --verb=get,create --resource=configmaps");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Labels and annotations change without a check; the rules with one.
  EXPECT_EQ(as(token, "label role same team=a").exit_code, 0);
  r = as(token,
         "patch role same --type=json "
         "-p='[{\"op\":\"add\",\"path\":\"/rules/0/verbs/-\",\"value\":\"delete\"}]'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(kWriter), std::string::npos) << r.err;
  EXPECT_EQ(kubectl("get role same -o jsonpath={.rules[0].verbs}").out, R"(["get","create"])");
}

TEST_F(RbacEscalationTest, ABindingNeedsItsRolesPermissionsOrTheBindVerb) {
  const std::string token = role_writer();
  KubectlResult r = as(token, "create rolebinding give-edit --clusterrole=edit --user=mallory");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(std::string("rolebindings.rbac.authorization.k8s.io \"give-edit\" is "
                                   "forbidden: ") +
                       kWriter),
            std::string::npos)
      << r.err;
  EXPECT_NE(kubectl("get rolebinding give-edit").exit_code, 0);
  // A role within what the writer holds may be bound; the bind verb allows any.
  ASSERT_EQ(kubectl("create role readers --verb=get --resource=configmaps").exit_code, 0);
  EXPECT_EQ(as(token, "create rolebinding give-readers --role=readers --user=mallory").exit_code,
            0);
  ASSERT_EQ(kubectl("create clusterrole bind-edit --verb=bind "
                    "--resource=clusterroles.rbac.authorization.k8s.io --resource-name=edit")
                .exit_code,
            0);
  ASSERT_EQ(kubectl("create rolebinding writer-binds --clusterrole=bind-edit "
                    "--serviceaccount=default:writer")
                .exit_code,
            0);
  r = as(token, "create rolebinding give-edit --clusterrole=edit --user=mallory");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace tailor::embedded::testing
