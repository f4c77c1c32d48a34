// tailor-cluster's REST semantics through Tailor's own RestClient.
#include <boost/json.hpp>
#include <functional>
#include <thread>

#include "cluster_fixture.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;

const kube::ResourceType kConfigMaps{.version = "v1", .resource = "configmaps"};

kube::ObjectRef configmaps(const std::string& name = "") { return {kConfigMaps, "default", name}; }

std::string configmap(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
         R"("},"data":{"k":"v"}})";
}

class RestApiTest : public ClusterTest {
 protected:
  ClusterOptions cluster_options() override {
    ClusterOptions o;
    o.store.history_size = 8;
    o.api.bookmark_interval = std::chrono::milliseconds(20);
    return o;
  }
  void SetUp() override {
    ClusterTest::SetUp();
    client_ = std::make_unique<kube::RestClient>(rest_config());
    wait_for_namespace_defaults();
  }
  // With a history of 8 changes, the ServiceAccount controller's and root CA publisher's first
  // writes (a `default` ServiceAccount and `kube-root-ca.crt` in every namespace) would push a
  // test's own resource version out of the window: let them land first.
  void wait_for_namespace_defaults() {
    const kube::ResourceType namespaces{.version = "v1", .resource = "namespaces"};
    const kube::ResourceType accounts{.version = "v1", .resource = "serviceaccounts"};
    auto count = [&](const kube::ResourceType& t) {
      return bj::parse(client_->list({t, "", ""})).at("items").as_array().size();
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      const std::size_t n = count(namespaces);
      if (count(kConfigMaps) >= n && count(accounts) >= n) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    FAIL() << "the namespaces' default ServiceAccount and kube-root-ca.crt did not appear";
  }
  std::unique_ptr<kube::RestClient> client_;
};

TEST_F(RestApiTest, StaleUpdateIsConflict) {
  bj::value v1 = bj::parse(client_->create(configmaps(), configmap("a")));
  bj::value v2 = v1;
  v2.at("data").as_object()["k"] = "w";
  client_->update(configmaps("a"), bj::serialize(v2));
  try {
    client_->update(configmaps("a"), bj::serialize(v1));
    FAIL() << "expected 409";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 409);
    EXPECT_EQ(e.reason(), "Conflict");
    EXPECT_EQ(e.status_message(),
              "Operation cannot be fulfilled on configmaps \"a\": the object has been modified; "
              "please apply your changes to the latest version and try again");
  }
}

TEST_F(RestApiTest, CreateInMissingNamespaceIsNotFound) {
  try {
    client_->create({kConfigMaps, "nowhere"}, configmap("a"));
    FAIL() << "expected 404";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 404);
    EXPECT_EQ(e.status_message(), "namespaces \"nowhere\" not found");
  }
}

TEST_F(RestApiTest, ListPagination) {
  for (const char* n : {"c", "a", "e", "b", "d"}) client_->create(configmaps(), configmap(n));
  std::vector<std::string> names;
  kube::ListOptions options{.limit = 2};
  int pages = 0;
  do {
    bj::value page = bj::parse(client_->list(configmaps(), options));
    ++pages;
    for (const bj::value& item : page.at("items").as_array()) {
      names.emplace_back(item.at("metadata").at("name").as_string());
    }
    const bj::value* cont = page.at("metadata").as_object().if_contains("continue");
    options.continue_token = cont ? std::string(cont->as_string()) : "";
  } while (!options.continue_token.empty());
  EXPECT_EQ(pages, 3);
  // The root CA publisher's map is in every namespace (it may come before or after the list).
  std::erase(names, "kube-root-ca.crt");
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
}

// A list is the stored texts of its items written as they are behind the list's head: over a
// MiB here, so the server writes it in pieces (TLS: through blocks; plain HTTP: writev) and the
// client reads it straight into its body.
void expect_large_list_is_stored_objects_joined(kube::RestClient& client) {
  const std::string value(40 * 1024, 'x');
  std::vector<std::string> stored;
  for (int i = 0; i < 40; ++i) {
    std::string name = "big-" + std::to_string(100 + i);
    client.create(configmaps(), R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" +
                                    name + R"("},"data":{"k":")" + value + R"("}})");
    stored.push_back(client.get(configmaps(name)));
  }
  // The root CA publisher's map, last by name.
  for (int i = 0; i < 100 && stored.size() == 40; ++i) {
    try {
      stored.push_back(client.get(configmaps("kube-root-ca.crt")));
    } catch (const kube::ApiError&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  std::string list = client.list(configmaps());
  std::string rv(bj::parse(list).at("metadata").at("resourceVersion").as_string());
  std::string expected =
      R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":")" + rv +
      R"("},"items":[)";
  for (std::size_t i = 0; i < stored.size(); ++i) expected += (i ? "," : "") + stored[i];
  expected += "]}";
  ASSERT_GT(list.size(), 1u << 20);
  EXPECT_EQ(list, expected);
  EXPECT_EQ(client.list(configmaps(), {.limit = 1000}), expected);  // same connection reused
}

TEST_F(RestApiTest, LargeListIsTheStoredObjectsJoined) {
  expect_large_list_is_stored_objects_joined(*client_);
}

class PlainHttpRestApiTest : public ClusterTest {
 protected:
  ClusterOptions cluster_options() override { return {.tls = false}; }
};

TEST_F(PlainHttpRestApiTest, LargeListIsTheStoredObjectsJoined) {
  ASSERT_TRUE(cluster_->url().starts_with("http://"));
  kube::RestClient client(rest_config());
  expect_large_list_is_stored_objects_joined(client);
}

TEST_F(RestApiTest, EmptyListHasEmptyItems) {
  std::string list = client_->list({kube::resources::kLimitRanges, "kube-system"});
  std::string rv(bj::parse(list).at("metadata").at("resourceVersion").as_string());
  EXPECT_EQ(list, R"({"kind":"LimitRangeList","apiVersion":"v1","metadata":{"resourceVersion":")" +
                      rv + R"("},"items":[]})");
}

TEST_F(RestApiTest, InvalidSelectorIsBadRequest) {
  try {
    client_->list(configmaps(), {.label_selector = "a in (b"});
    FAIL() << "expected 400";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 400);
    EXPECT_EQ(e.reason(), "BadRequest");
  }
}

struct Seen {
  std::vector<std::string> events;  // "ADDED a"
};

// Generic over the client's event type (its name is changing in the client).
template <class Event>
std::string describe(const Event& e) {
  static const char* kNames[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};
  bj::value o = bj::parse(e.object);
  std::string name = o.at("metadata").as_object().contains("name")
                         ? std::string(o.at("metadata").at("name").as_string())
                         : "";
  return std::string(kNames[static_cast<int>(e.type)]) + " " + name;
}

TEST_F(RestApiTest, WatchStreamsChangesAfterResourceVersion) {
  std::string rv(
      bj::parse(client_->list(configmaps())).at("metadata").at("resourceVersion").as_string());
  client_->create(configmaps(), configmap("a"));
  client_->patch(configmaps("a"), kube::PatchType::Merge, R"({"data":{"k":"x"}})");
  client_->remove(configmaps("a"));
  std::vector<std::string> seen;
  kube::StopToken stop;
  client_->watch(
      configmaps(), {.resource_version = rv, .timeout_seconds = 30},
      [&](const auto& e) {
        seen.push_back(describe(e));
        return seen.size() < 3;
      },
      stop);
  EXPECT_EQ(seen, (std::vector<std::string>{"ADDED a", "MODIFIED a", "DELETED a"}));
}

TEST_F(RestApiTest, WatchWithSelectorSeesObjectsEnterAndLeave) {
  std::string rv(
      bj::parse(client_->list(configmaps())).at("metadata").at("resourceVersion").as_string());
  client_->create(configmaps(), configmap("a"));
  auto label = [&](const char* value) {
    client_->patch(configmaps("a"), kube::PatchType::Merge,
                   std::string(R"({"metadata":{"labels":{"app":")") + value + R"("}}})");
  };
  label("web");
  label("db");
  label("web");
  std::vector<std::string> seen;
  kube::StopToken stop;
  client_->watch(
      configmaps(), {.label_selector = "app=web", .resource_version = rv, .timeout_seconds = 30},
      [&](const auto& e) {
        seen.push_back(describe(e));
        return seen.size() < 3;
      },
      stop);
  EXPECT_EQ(seen, (std::vector<std::string>{"ADDED a", "DELETED a", "ADDED a"}));
}

TEST_F(RestApiTest, WatchSendsBookmarksWhenAllowed) {
  std::string rv(
      bj::parse(client_->list(configmaps())).at("metadata").at("resourceVersion").as_string());
  std::vector<std::string> seen;
  kube::StopToken stop;
  client_->watch(
      configmaps(), {.resource_version = rv, .timeout_seconds = 30, .allow_watch_bookmarks = true},
      [&](const auto& e) {
        seen.push_back(describe(e));
        return false;
      },
      stop);
  EXPECT_EQ(seen, (std::vector<std::string>{"BOOKMARK "}));
}

TEST_F(RestApiTest, WatchFromTooOldResourceVersionIsExpired) {
  for (int i = 0; i < 10; ++i) client_->create(configmaps(), configmap("cm" + std::to_string(i)));
  std::vector<std::string> errors;
  kube::StopToken stop;
  client_->watch(
      configmaps(), {.resource_version = "1", .timeout_seconds = 30},
      [&](const auto& e) {
        EXPECT_EQ(e.type, kube::WatchEventType::Error);
        bj::value status = bj::parse(e.object);
        EXPECT_EQ(status.at("code").as_int64(), 410);
        EXPECT_EQ(status.at("reason").as_string(), "Expired");
        errors.emplace_back(status.at("message").as_string());
        return true;
      },
      stop);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(errors[0].starts_with("too old resource version: 1 (")) << errors[0];
}

// Case i of a table of calls the API server refuses: the call throws the ApiError of `code` (and
// `reason`, when given).
void expect_refused(std::size_t i, const std::function<void()>& call, int code,
                    const std::string& reason = "") {
  try {
    call();
    ADD_FAILURE() << "case " << i << " succeeded";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), code) << "case " << i << ": " << e.body();
    if (!reason.empty()) {
      EXPECT_EQ(e.reason(), reason) << "case " << i;
    }
  }
}

TEST_F(RestApiTest, MalformedRequestsGetStatusErrors) {
  struct Case {
    std::function<void()> call;
    int code;
    const char* reason;
  };
  const kube::ResourceType pods{.version = "v1", .resource = "pods"};
  std::vector<Case> cases = {
      {[&] { client_->create(configmaps(), "{not json"); }, 400, "BadRequest"},
      {[&] { client_->create(configmaps(), "[1,2]"); }, 400, "BadRequest"},
      {[&] { client_->create(configmaps(), R"({"kind":"Pod","metadata":{"name":"x"}})"); }, 400,
       "BadRequest"},
      {[&] {
         client_->create({kConfigMaps, "default"},
                         R"({"metadata":{"name":"x","namespace":"other"}})");
       },
       400, "BadRequest"},
      {[&] { client_->update(configmaps("y"), R"({"metadata":{"name":"x"}})"); }, 400,
       "BadRequest"},
      {[&] { client_->patch(configmaps("nope"), kube::PatchType::Merge, "{}"); }, 404, "NotFound"},
      {[&] { client_->list(configmaps(), {.field_selector = "spec.nodeName=x"}); }, 400,
       "BadRequest"},
      {[&] { client_->list(configmaps(), {.continue_token = "garbage"}); }, 400, "BadRequest"},
      {[&] {
         client_->get({pods, "default", "p", "bogus"});
       },
       404, "NotFound"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    expect_refused(i, cases[i].call, cases[i].code, cases[i].reason);
  }
  EXPECT_THROW(client_->get(configmaps("x")), kube::ApiError);  // nothing was stored
}

// A propagationPolicy that is none of the three is refused as kube-apiserver refuses it, and the
// object stays.
TEST_F(RestApiTest, AnUnknownPropagationPolicyIsInvalid) {
  client_->create(configmaps(), configmap("kept"));
  try {
    client_->remove(configmaps("kept"), {.propagation_policy = "Sideways"});
    FAIL() << "expected 422";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 422);
    EXPECT_EQ(e.reason(), "Invalid");
    EXPECT_NE(e.status_message().find("propagationPolicy: Unsupported value: \"Sideways\": "
                                      "supported values: \"Foreground\", \"Background\", "
                                      "\"Orphan\""),
              std::string::npos)
        << e.status_message();
  }
  EXPECT_NO_THROW(client_->get(configmaps("kept")));
}

// kube-apiserver reads at most 3 MiB of a request body (limitedReadBody): the Status says so and
// nothing is stored.
TEST_F(RestApiTest, OversizedBodyIsRequestEntityTooLarge) {
  std::string big =
      R"({"metadata":{"name":"big"},"data":{"k":")" + std::string(3 * 1024 * 1024, 'x') + R"("}})";
  try {
    client_->create(configmaps(), big);
    FAIL() << "expected 413";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 413);
    EXPECT_EQ(e.reason(), "RequestEntityTooLarge");
    EXPECT_EQ(e.status_message(), "Request entity too large: limit is 3145728");
  }
  try {
    client_->get(configmaps("big"));
    FAIL() << "the oversized configmap was stored";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 404);
  }
}

// A rejected update or patch leaves the stored object as it was: same resourceVersion, same
// content.
TEST_F(RestApiTest, RejectedWritesLeaveTheObjectUnchanged) {
  bj::value created = bj::parse(client_->create(configmaps(), configmap("a")));
  const std::string before = client_->get(configmaps("a"));
  bj::value stale = created;
  stale.at("metadata").as_object()["resourceVersion"] = "1";
  bj::value renamed = created;
  renamed.at("metadata").as_object()["name"] = "b";
  std::string oversized = R"({"data":{"k":")" + std::string(3 * 1024 * 1024, 'x') + R"("}})";
  struct Case {
    std::function<void()> call;
    int code;
  };
  std::vector<Case> cases = {
      {[&] { client_->update(configmaps("a"), "{not json"); }, 400},
      {[&] { client_->update(configmaps("a"), bj::serialize(stale)); }, 409},
      {[&] { client_->update(configmaps("a"), bj::serialize(renamed)); }, 400},
      {[&] { client_->update(configmaps("a"), oversized); }, 413},
      {[&] { client_->patch(configmaps("a"), kube::PatchType::Merge, "{not json"); }, 400},
      {[&] {
         client_->patch(configmaps("a"), kube::PatchType::Merge, R"({"metadata":{"name":"b"}})");
       },
       400},
      {[&] {
         client_->patch(configmaps("a"), kube::PatchType::Json,
                        R"([{"op":"test","path":"/data/k","value":"other"}])");
       },
       422},
      {[&] { client_->patch(configmaps("a"), kube::PatchType::Merge, oversized); }, 413},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    expect_refused(i, cases[i].call, cases[i].code);
    EXPECT_EQ(client_->get(configmaps("a")), before) << "case " << i;
  }
}

TEST_F(RestApiTest, NewPodsGetPhaseAndQosClass) {
  const kube::ResourceType pods{.version = "v1", .resource = "pods"};
  auto create = [&](const std::string& name, const std::string& resources) {
    return bj::parse(client_->create(
        {pods, "default"}, R"({"metadata":{"name":")" + name +
                               R"("},"spec":{"containers":[{"name":"c","image":"x","resources":)" +
                               resources + "}]},\"status\":{\"phase\":\"Running\"}}"));
  };
  struct Case {
    const char* resources;
    const char* qos;
  };
  int i = 0;
  for (Case c : std::vector<Case>{
           {"{}", "BestEffort"},
           {R"({"requests":{"cpu":"100m"}})", "Burstable"},
           {R"({"limits":{"cpu":"1","memory":"1Gi"}})", "Guaranteed"},
           {R"({"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"2","memory":"1Gi"}})",
            "Burstable"},
       }) {
    bj::value p = create("p" + std::to_string(i++), c.resources);
    EXPECT_EQ(p.at("status").at("qosClass").as_string(), c.qos) << c.resources;
    EXPECT_EQ(p.at("status").at("phase").as_string(), "Pending");
  }
  try {
    create("bad", R"({"requests":{"cpu":"lots"}})");
    FAIL() << "expected 400";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 400);
    EXPECT_TRUE(
        e.status_message().starts_with("Pod in version \"v1\" cannot be handled as a Pod: "))
        << e.status_message();
  }
}

TEST_F(RestApiTest, WrongTokenIsUnauthorized) {
  kube::RestConfig c = rest_config();
  c.bearer_token = "wrong";
  kube::RestClient other(c);
  try {
    other.list(configmaps());
    FAIL() << "expected 401";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 401);
  }
}

TEST_F(RestApiTest, StatusSubresourceChangesOnlyStatus) {
  const kube::ResourceType pods{.version = "v1", .resource = "pods"};
  client_->create({pods, "default"},
                  R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x"}]}})");
  bj::value p =
      bj::parse(client_->patch({pods, "default", "p", "status"}, kube::PatchType::Merge,
                               R"({"status":{"phase":"Running"},"spec":{"nodeName":"n"}})"));
  EXPECT_EQ(p.at("status").at("phase").as_string(), "Running");
  EXPECT_FALSE(p.at("spec").as_object().contains("nodeName"));
  bj::value q =
      bj::parse(client_->patch({pods, "default", "p"}, kube::PatchType::Json,
                               R"([{"op":"add","path":"/metadata/labels","value":{"a":"b"}}])"));
  EXPECT_EQ(q.at("metadata").at("labels").at("a").as_string(), "b");
  EXPECT_EQ(q.at("status").at("phase").as_string(), "Running");
}

}  // namespace
}  // namespace tailor::embedded::testing
