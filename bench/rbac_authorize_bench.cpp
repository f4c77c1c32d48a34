// What authentication and RBAC cost tailor-cluster per request of a ServiceAccount (issue 17):
// RbacAuthorizer walks every ClusterRoleBinding and the namespace's RoleBindings of the store for
// each request (each revision parsed once, then kept), so its cost grows with the bindings;
// checking a token costs one ES256 verification and two store reads. Results in RESULTS.md.
#include <benchmark/benchmark.h>

#include <boost/json.hpp>

#include "embedded/api/resources.h"
#include "embedded/auth/authenticator.h"
#include "embedded/auth/bootstrap_policy.h"
#include "embedded/auth/rbac_authorizer.h"
#include "embedded/auth/token_claims.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

const ResourceInfo& info(const char* group, const char* resource) {
  return *find_resource(group, "v1", resource);
}

// Bootstrap policy, `bindings` ClusterRoleBindings naming other users, and in namespace "ns"
// ServiceAccount bot bound to a Role that may patch pods/resize.
void fill(ObjectStore& store, std::int64_t bindings) {
  create_bootstrap_policy(store);
  store.create(info("", "namespaces"), bj::object{{"metadata", bj::object{{"name", "ns"}}}});
  store.create(info("", "serviceaccounts"),
               bj::object{{"metadata", bj::object{{"name", "bot"}, {"namespace", "ns"}}}});
  for (std::int64_t i = 0; i < bindings; ++i) {
    store.create(
        info("rbac.authorization.k8s.io", "clusterrolebindings"),
        bj::parse(R"({"metadata":{"name":"other-)" + std::to_string(i) +
                  R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",)"
                  R"("name":"view"},"subjects":[{"kind":"User","name":"user-)" +
                  std::to_string(i) + R"("}]})")
            .as_object());
  }
  store.create(info("rbac.authorization.k8s.io", "roles"),
               bj::parse(R"({"metadata":{"name":"resizer","namespace":"ns"},"rules":[)"
                         R"({"verbs":["patch"],"apiGroups":[""],"resources":["pods/resize"]}]})")
                   .as_object());
  store.create(info("rbac.authorization.k8s.io", "rolebindings"),
               bj::parse(R"({"metadata":{"name":"bot","namespace":"ns"},"roleRef":{"apiGroup":)"
                         R"("rbac.authorization.k8s.io","kind":"Role","name":"resizer"},)"
                         R"("subjects":[{"kind":"ServiceAccount","name":"bot"}]})")
                   .as_object());
}

RequestAttributes resize_request() {
  RequestAttributes a{.user = service_account_user("ns", "bot", "uid"), .verb = "patch"};
  a.resource_request = true;
  a.resource = "pods";
  a.subresource = "resize";
  a.ns = "ns";
  a.name = "web";
  return a;
}

void BM_AuthorizeServiceAccount(benchmark::State& state) {
  ObjectStore store;
  fill(store, state.range(0));
  const RequestAttributes request = resize_request();
  const RbacAuthorizer rbac(store);
  for (auto _ : state) {
    AuthorizationDecision d = rbac.authorize(request);
    if (!d.allowed) state.SkipWithError("denied");
    benchmark::DoNotOptimize(d);
  }
}
BENCHMARK(BM_AuthorizeServiceAccount)->Arg(0)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

void BM_AuthenticateServiceAccountToken(benchmark::State& state) {
  ObjectStore store;
  fill(store, 0);
  SigningKey key = SigningKey::generate();
  const ObjectPtr sa = store.get(info("", "serviceaccounts"), "ns", "bot");
  const std::string token = encode_jwt(
      key, token_claims({.ns = "ns", .service_account = {"bot", meta_string(*sa, "uid")}},
                        {.audiences = {kServiceAccountIssuer},
                         .issued_at = kube::TimePoint(std::chrono::system_clock::now())}));
  const AuthenticatorOptions options{.admin_token = "admin",
                                     .signing_key = &key,
                                     .issuer = kServiceAccountIssuer,
                                     .audiences = {kServiceAccountIssuer}};
  for (auto _ : state) {
    std::optional<UserInfo> user = service_account_token_user(store, options, token);
    if (!user) state.SkipWithError("refused");
    benchmark::DoNotOptimize(user);
  }
}
BENCHMARK(BM_AuthenticateServiceAccountToken)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace tailor::embedded

BENCHMARK_MAIN();
