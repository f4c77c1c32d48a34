// RestClient against the in-process TestApiServer (real HTTP(S), real sockets).
#include "kube/client/rest_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "tests/support/test_api_server.h"

namespace tailor::kube {
namespace {

using namespace std::chrono_literals;
using testing::FakeCollection;
using testing::TestApiServer;
using testing::TestApiServerOptions;
namespace json = boost::json;
namespace fs = std::filesystem;

const ObjectRef kPodsInDefault{resources::kPods, "default"};

ObjectRef pod(const std::string& name) { return {resources::kPods, "default", name}; }

std::string pod_json(const std::string& name) {
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name +
         R"(","namespace":"default"}})";
}

std::string name_of(const std::string& object) {
  return std::string(json::parse(object).at("metadata").at("name").as_string());
}

template <class E>
E thrown_by(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e;
  }
  throw std::runtime_error("expected exception not thrown");
}

// --- paths and transport security ----------------------------------------------------------

TEST(RestClientPaths, BuildsApiPaths) {
  struct Case {
    ObjectRef ref;
    const char* path;
  };
  for (const Case& c : {
           Case{{resources::kPods, "ns1", "web-0", "resize"},
                "/api/v1/namespaces/ns1/pods/web-0/resize"},
           Case{{resources::kPods, "", ""}, "/api/v1/pods"},
           Case{{resources::kNodes, "ignored", "n1", "status"}, "/api/v1/nodes/n1/status"},
           Case{{resources::kDeployments, "prod"}, "/apis/apps/v1/namespaces/prod/deployments"},
           Case{{resources::kLeases, "kube-system", "tailor"},
                "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/tailor"},
           Case{{resources::kPods, "ns", "p", "eviction"}, "/api/v1/namespaces/ns/pods/p/eviction"},
           Case{{resources::kNamespaces, "", "kube-system"}, "/api/v1/namespaces/kube-system"},
       }) {
    EXPECT_EQ(path_of(c.ref), c.path);
  }
}

TEST(RestClientTls, ClientCertificateIsAccepted) {
  TestApiServer server({.tls = true, .require_client_cert = true});
  server.on("GET", "/api/v1/namespaces/default/pods/a",
            [](http::Exchange& ex) { ex.respond(testing::json_response(200, pod_json("a"))); });
  RestClient client(server.config());
  EXPECT_EQ(name_of(client.get(pod("a"))), "a");
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].peer_common_name, "tailor-test");
  EXPECT_EQ(server.requests()[0].header("Accept"), "application/json");
  EXPECT_EQ(server.requests()[0].header("User-Agent"), "tailor");
}

TEST(RestClientTls, MissingOrForeignClientCertificateIsRejected) {
  TestApiServer server({.tls = true, .require_client_cert = true});
  RestConfig without = server.config();
  without.client_cert_pem.clear();
  without.client_key_pem.clear();
  without.max_retries = 1;
  EXPECT_THROW(RestClient(without).get(pod("a")), TransportError);

  auto other_ca = http::make_ca("other");
  auto foreign = http::make_client_certificate(other_ca, "mallory", {"system:masters"});
  RestConfig wrong = server.config();
  wrong.client_cert_pem = foreign.cert_pem;
  wrong.client_key_pem = foreign.key_pem;
  wrong.max_retries = 1;
  EXPECT_THROW(RestClient(wrong).get(pod("a")), TransportError);
  EXPECT_EQ(server.requests().size(), 0u);
}

TEST(RestClientTls, UntrustedServerIsRejectedUnlessVerificationIsSkipped) {
  TestApiServer server({.tls = true});
  server.on("GET", "/api/v1/namespaces/default/pods/a",
            [](http::Exchange& ex) { ex.respond(testing::json_response(200, pod_json("a"))); });
  RestConfig config = server.config();
  config.ca_pem = http::make_ca("someone-else").cert_pem;
  config.max_retries = 0;
  EXPECT_THROW(RestClient(config).get(pod("a")), TransportError);
  config.insecure_skip_tls_verify = true;
  EXPECT_EQ(name_of(RestClient(config).get(pod("a"))), "a");
}

TEST(RestClientAuth, SendsTheBearerToken) {
  TestApiServer server({.tls = false, .bearer_token = "s3cret"});
  server.on("GET", "/api/v1/namespaces/default/pods/a",
            [](http::Exchange& ex) { ex.respond(testing::json_response(200, pod_json("a"))); });
  RestConfig config = server.config();
  config.bearer_token = "s3cret";
  EXPECT_EQ(name_of(RestClient(config).get(pod("a"))), "a");
  EXPECT_EQ(server.requests().back().header("Authorization"), "Bearer s3cret");

  config.bearer_token = "wrong";
  auto error = thrown_by<ApiError>([&] { RestClient(config).get(pod("a")); });
  EXPECT_EQ(error.code(), 401);
  EXPECT_EQ(error.reason(), "Unauthorized");
}

TEST(RestClientAuth, RereadsTheTokenFileAfter401) {
  TestApiServer server({.tls = false, .bearer_token = "old-token"});
  server.on("GET", "/api/v1/namespaces/default/pods/a",
            [](http::Exchange& ex) { ex.respond(testing::json_response(200, pod_json("a"))); });
  fs::path file = fs::temp_directory_path() / ("tailor-token-" + std::to_string(::getpid()));
  std::ofstream(file) << "old-token\n";
  RestConfig config = server.config();
  config.bearer_token_file = file.string();
  RestClient client(config);
  EXPECT_EQ(name_of(client.get(pod("a"))), "a");

  // The token rotates; the file's timestamp is put back so only the 401 can trigger a re-read.
  auto stamp = fs::last_write_time(file);
  server.set_bearer_token("new-token");
  std::ofstream(file) << "new-token\n";
  fs::last_write_time(file, stamp);
  EXPECT_EQ(name_of(client.get(pod("a"))), "a");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[1].header("Authorization"), "Bearer old-token");
  EXPECT_EQ(requests[2].header("Authorization"), "Bearer new-token");
  fs::remove(file);
}

TEST(RestClientAuth, RunsTheExecPluginAndRerunsItAfter401) {
  TestApiServer server({.tls = false, .bearer_token = "token-1"});
  server.on("GET", "/api/v1/namespaces/default/pods/a",
            [](http::Exchange& ex) { ex.respond(testing::json_response(200, pod_json("a"))); });
  fs::path dir = fs::temp_directory_path() / ("tailor-exec-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path script = dir / "plugin.sh";
  // Each run hands out the next token and records KUBERNETES_EXEC_INFO and its arguments.
  std::ofstream(script)
      << "#!/bin/sh\n"
         "n=$(cat \"$0.count\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$0.count\"\n"
         "echo \"$KUBERNETES_EXEC_INFO\" > \"$0.info\"\n"
         "echo \"$1 $PLUGIN_MODE\" > \"$0.args\"\n"
         "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
         "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"token-%s\"}}' $n\n";
  fs::permissions(script, fs::perms::owner_all);
  RestConfig config = server.config();
  config.exec = ExecConfig{"client.authentication.k8s.io/v1", script.string(), {"--flag"},
                           {{"PLUGIN_MODE", "test"}},         "Never",         true};
  RestClient client(config);
  EXPECT_EQ(name_of(client.get(pod("a"))), "a");
  EXPECT_EQ(name_of(client.get(pod("a"))), "a");  // cached: no new run
  server.set_bearer_token("token-2");
  EXPECT_EQ(name_of(client.get(pod("a"))), "a");  // 401, re-run, retry
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0].header("Authorization"), "Bearer token-1");
  EXPECT_EQ(requests[2].header("Authorization"), "Bearer token-1");
  EXPECT_EQ(requests[3].header("Authorization"), "Bearer token-2");

  std::ifstream count_file(script.string() + ".count");
  int runs = 0;
  count_file >> runs;
  EXPECT_EQ(runs, 2);
  std::ifstream args_file(script.string() + ".args");
  std::string args;
  std::getline(args_file, args);
  EXPECT_EQ(args, "--flag test");
  std::ifstream info_file(script.string() + ".info");
  std::string info_text;
  std::getline(info_file, info_text);
  json::value info = json::parse(info_text);
  EXPECT_EQ(info.at("kind").as_string(), "ExecCredential");
  EXPECT_EQ(info.at("apiVersion").as_string(), "client.authentication.k8s.io/v1");
  EXPECT_EQ(info.at("spec").at("interactive").as_bool(), false);
  EXPECT_EQ(info.at("spec").at("cluster").at("server").as_string(), server.url());
  fs::remove_all(dir);
}

TEST(RestClientAuth, ExecPluginClientCertificateIsUsedForTls) {
  TestApiServer server({.tls = true, .require_client_cert = true});
  server.on("GET", "/api/v1/namespaces/default/pods/a",
            [](http::Exchange& ex) { ex.respond(testing::json_response(200, pod_json("a"))); });
  fs::path dir = fs::temp_directory_path() / ("tailor-exec-cert-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto issued = http::make_client_certificate(server.ca(), "exec-user", {"plugin-group"});
  json::object credential{{"apiVersion", "client.authentication.k8s.io/v1beta1"},
                          {"kind", "ExecCredential"},
                          {"status", json::object{{"clientCertificateData", issued.cert_pem},
                                                  {"clientKeyData", issued.key_pem}}}};
  std::ofstream(dir / "credential.json") << json::serialize(credential);
  RestConfig config = server.config();
  config.client_cert_pem.clear();  // only the plugin provides one
  config.client_key_pem.clear();
  config.exec = ExecConfig{"client.authentication.k8s.io/v1beta1",
                           "cat",
                           {(dir / "credential.json").string()},
                           {},
                           "Never",
                           false};
  EXPECT_EQ(name_of(RestClient(config).get(pod("a"))), "a");
  EXPECT_EQ(server.requests().at(0).peer_common_name, "exec-user");
  fs::remove_all(dir);
}

// --- verbs ---------------------------------------------------------------------------------

TEST(RestClientVerbs, PaginatesWithLimitAndContinue) {
  FakeCollection pods("v1", "PodList");  // outlives the server, whose watch handlers use it
  TestApiServer server;
  pods.serve(server, "/api/v1/namespaces/default/pods");
  for (const char* name : {"a", "b", "c", "d", "e"}) pods.add(pod_json(name));
  RestClient client(server.config());
  std::vector<std::string> names;
  ListOptions options;
  options.limit = 2;
  int pages = 0;
  do {
    json::value page = json::parse(client.list(kPodsInDefault, options));
    for (const auto& item : page.at("items").as_array())
      names.push_back(name_of(json::serialize(item)));
    const auto& metadata = page.at("metadata").as_object();
    options.continue_token =
        metadata.contains("continue") ? std::string(metadata.at("continue").as_string()) : "";
    ++pages;
  } while (!options.continue_token.empty());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(pages, 3);
  auto requests = server.requests();
  EXPECT_EQ(requests[0].query_param("limit"), "2");
  EXPECT_EQ(requests[0].query_param("continue"), "");
  EXPECT_NE(requests[1].query_param("continue"), "");
}

TEST(RestClientVerbs, SendsListOptionsAsQueryParameters) {
  TestApiServer server;
  server.on("GET", "/api/v1/pods", [](http::Exchange& ex) {
    ex.respond(testing::json_response(200, R"({"kind":"PodList","items":[]})"));
  });
  RestClient client(server.config());
  ListOptions options;
  options.label_selector = "app=web,tier!=db";
  options.field_selector = "spec.nodeName=node-1";
  options.limit = 500;
  options.continue_token = "abc==";
  options.resource_version = "123";
  options.resource_version_match = "NotOlderThan";
  options.timeout_seconds = 30;
  options.allow_watch_bookmarks = true;  // only meaningful for watches: not sent on a list
  client.list({resources::kPods}, options);
  auto request = server.requests().at(0);
  EXPECT_EQ(request.query_param("labelSelector"), "app=web,tier!=db");
  EXPECT_EQ(request.query_param("fieldSelector"), "spec.nodeName=node-1");
  EXPECT_EQ(request.query_param("limit"), "500");
  EXPECT_EQ(request.query_param("continue"), "abc==");
  EXPECT_EQ(request.query_param("resourceVersion"), "123");
  EXPECT_EQ(request.query_param("resourceVersionMatch"), "NotOlderThan");
  EXPECT_EQ(request.query_param("timeoutSeconds"), "30");
  EXPECT_EQ(request.query_param("allowWatchBookmarks"), "");
  EXPECT_EQ(request.query_param("watch"), "");
}

TEST(RestClientVerbs, PatchesWithEachContentType) {
  TestApiServer server;
  server.on("PATCH", "/api/v1/namespaces/default/pods/a/resize",
            [](http::Exchange& ex) { ex.respond(testing::json_response(200, pod_json("a"))); });
  RestClient client(server.config());
  ObjectRef resize{resources::kPods, "default", "a", "resize"};
  client.patch(resize, PatchType::Merge, R"({"spec":{}})");
  client.patch(resize, PatchType::StrategicMerge, R"({"spec":{}})");
  client.patch(resize, PatchType::Json, R"([{"op":"add","path":"/x","value":1}])");
  client.patch(resize, PatchType::Apply, R"({"apiVersion":"v1","kind":"Pod"})",
               {.field_manager = "tailor", .force = true});
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0].header("Content-Type"), "application/merge-patch+json");
  EXPECT_EQ(requests[1].header("Content-Type"), "application/strategic-merge-patch+json");
  EXPECT_EQ(requests[2].header("Content-Type"), "application/json-patch+json");
  EXPECT_EQ(requests[2].body, R"([{"op":"add","path":"/x","value":1}])");
  EXPECT_EQ(requests[3].header("Content-Type"), "application/apply-patch+yaml");
  EXPECT_EQ(requests[3].query_param("fieldManager"), "tailor");
  EXPECT_EQ(requests[3].query_param("force"), "true");
  EXPECT_THROW(client.patch(resize, PatchType::Apply, "{}"), std::invalid_argument);
}

TEST(RestClientVerbs, CreatesUpdatesAndDeletes) {
  TestApiServer server;
  auto echo = [](http::Exchange& ex) {
    ex.respond(testing::json_response(ex.request().method == "POST" ? 201 : 200, pod_json("a")));
  };
  server.on("POST", "/api/v1/namespaces/default/pods", echo);
  server.on("PUT", "/api/v1/namespaces/default/pods/a", echo);
  server.on("DELETE", "/api/v1/namespaces/default/pods/a", echo);
  RestClient client(server.config());
  client.create(kPodsInDefault, pod_json("a"));
  client.update(pod("a"), pod_json("a"));
  client.remove(pod("a"), {.grace_period_seconds = 0,
                           .propagation_policy = "Background",
                           .preconditions_uid = "uid-1",
                           .preconditions_resource_version = "7"});
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].body, pod_json("a"));
  EXPECT_EQ(requests[0].header("Content-Type"), "application/json");
  EXPECT_EQ(requests[1].method, "PUT");
  json::value options = json::parse(requests[2].body);
  EXPECT_EQ(options.at("kind").as_string(), "DeleteOptions");
  EXPECT_EQ(options.at("gracePeriodSeconds").as_int64(), 0);
  EXPECT_EQ(options.at("propagationPolicy").as_string(), "Background");
  EXPECT_EQ(options.at("preconditions").at("uid").as_string(), "uid-1");
  EXPECT_EQ(options.at("preconditions").at("resourceVersion").as_string(), "7");
}

TEST(RestClientVerbs, ServesConcurrentCallers) {
  TestApiServer server;
  server.on("GET", "/api/v1/namespaces/default/pods/a",
            [](http::Exchange& ex) { ex.respond(testing::json_response(200, pod_json("a"))); });
  RestClient client(server.config());
  std::vector<std::future<int>> results;
  for (int t = 0; t < 4; ++t) {
    results.push_back(std::async(std::launch::async, [&] {
      int ok = 0;
      for (int i = 0; i < 10; ++i) ok += name_of(client.get(pod("a"))) == "a";
      return ok;
    }));
  }
  for (auto& result : results) EXPECT_EQ(result.get(), 10);
}

TEST(RestClientVerbs, KeepsTheConnectionAlive) {
  TestApiServer server;
  server.on("GET", "/api/v1/namespaces/default/pods/a",
            [](http::Exchange& ex) { ex.respond(testing::json_response(200, pod_json("a"))); });
  RestClient client(server.config());
  for (int i = 0; i < 5; ++i) client.get(pod("a"));
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 5u);
  for (const auto& request : requests) EXPECT_EQ(request.connection_id, requests[0].connection_id);
}

// --- errors and retries ---------------------------------------------------------------------

TEST(RestClientErrors, ListGoneIsSurfaced) {
  FakeCollection pods("v1", "PodList");  // outlives the server, whose watch handlers use it
  TestApiServer server;
  pods.serve(server, "/api/v1/namespaces/default/pods");
  pods.fail_next_list_with_gone();
  RestClient client(server.config());
  auto error = thrown_by<ApiError>([&] { client.list(kPodsInDefault, {.continue_token = "1|x"}); });
  EXPECT_TRUE(error.is_gone());
  EXPECT_EQ(error.reason(), "Expired");
  EXPECT_NE(error.status_message().find("too old"), std::string::npos);
}

TEST(RestClientErrors, ConflictIsSurfacedWithoutRetry) {
  TestApiServer server;
  server.enqueue("PUT", "/api/v1/namespaces/default/pods/a",
                 testing::status_response(409, "Conflict",
                                          "Operation cannot be fulfilled on pods \"a\": the object "
                                          "has been modified; please apply your changes to the "
                                          "latest version and try again"));
  RestClient client(server.config());
  auto error = thrown_by<ApiError>([&] { client.update(pod("a"), pod_json("a")); });
  EXPECT_TRUE(error.is_conflict());
  EXPECT_EQ(error.reason(), "Conflict");
  EXPECT_NE(error.status_message().find("the object has been modified"), std::string::npos);
  EXPECT_EQ(server.count("PUT", "/api/v1/namespaces/default/pods/a"), 1u);
}

TEST(RestClientErrors, OtherClientErrorsAreNotRetried) {
  TestApiServer server;
  server.enqueue("POST", "/api/v1/namespaces/default/pods",
                 testing::status_response(422, "Invalid", "Pod \"a\" is invalid"));
  RestClient client(server.config());
  auto error = thrown_by<ApiError>([&] { client.create(kPodsInDefault, pod_json("a")); });
  EXPECT_TRUE(error.is_invalid());
  auto missing = thrown_by<ApiError>([&] { client.get(pod("nope")); });
  EXPECT_TRUE(missing.is_not_found());
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(RestClientErrors, TooManyRequestsHonoursRetryAfter) {
  TestApiServer server;
  const std::string path = "/api/v1/namespaces/default/pods/a";
  // API Priority and Fairness: plain text, not a Status.
  server.enqueue("GET", path,
                 {429,
                  {{"Retry-After", "1"}, {"Content-Type", "text/plain"}},
                  "Too many requests, please try again later.\n"});
  server.on("GET", path,
            [](http::Exchange& ex) { ex.respond(testing::json_response(200, pod_json("a"))); });
  RestClient client(server.config());
  auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(name_of(client.get(pod("a"))), "a");
  EXPECT_GE(std::chrono::steady_clock::now() - started, 1s);  // waited as told
  EXPECT_EQ(server.count("GET", path), 2u);
}

TEST(RestClientErrors, TooManyRequestsWithPlainTextBodyWhenRetriesRunOut) {
  TestApiServer server;
  server.on("GET", "/api/v1/namespaces/default/pods/a", [](http::Exchange& ex) {
    ex.respond(
        {429, {{"Content-Type", "text/plain"}}, "Too many requests, please try again later.\n"});
  });
  RestConfig config = server.config();
  config.max_retries = 2;
  auto error = thrown_by<ApiError>([&] { RestClient(config).get(pod("a")); });
  EXPECT_TRUE(error.is_too_many_requests());
  EXPECT_EQ(error.reason(), "TooManyRequests");
  EXPECT_NE(error.status_message().find("Too many requests, please try again later."),
            std::string::npos);
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST(RestClientErrors, ServerErrorsAreRetriedUntilSuccess) {
  TestApiServer server;
  const std::string path = "/api/v1/namespaces/default/pods/a";
  server.enqueue("GET", path, testing::status_response(500, "InternalError", "etcd hiccup"));
  server.enqueue("GET", path, {503, {}, "upstream unavailable"});
  server.on("GET", path,
            [](http::Exchange& ex) { ex.respond(testing::json_response(200, pod_json("a"))); });
  RestClient client(server.config());
  EXPECT_EQ(name_of(client.get(pod("a"))), "a");
  EXPECT_EQ(server.count("GET", path), 3u);
}

TEST(RestClientErrors, DroppedConnectionsAreRetried) {
  TestApiServer server;
  std::atomic<int> calls{0};
  server.on("GET", "/api/v1/namespaces/default/pods/a", [&](http::Exchange& ex) {
    if (++calls <= 2) {
      ex.abort();  // reset before any answer
    } else {
      ex.respond(testing::json_response(200, pod_json("a")));
    }
  });
  RestClient client(server.config());
  EXPECT_EQ(name_of(client.get(pod("a"))), "a");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_NE(requests[0].connection_id, requests[2].connection_id);  // a fresh connection
}

TEST(RestClientErrors, CreateIsNotResentOnALostConnection) {
  TestApiServer server;
  server.on("POST", "/api/v1/namespaces/default/pods", [](http::Exchange& ex) { ex.abort(); });
  RestClient client(server.config());
  EXPECT_THROW(client.create(kPodsInDefault, pod_json("a")), TransportError);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(RestClientErrors, RetriesRunOut) {
  TestApiServer server;
  server.on("GET", "/api/v1/namespaces/default/pods/a", [](http::Exchange& ex) {
    ex.respond(testing::status_response(503, "ServiceUnavailable", "apiserver is shutting down"));
  });
  RestConfig config = server.config();
  config.max_retries = 3;
  auto error = thrown_by<ApiError>([&] { RestClient(config).get(pod("a")); });
  EXPECT_EQ(error.code(), 503);
  EXPECT_EQ(error.status_message(), "apiserver is shutting down");
  EXPECT_EQ(server.requests().size(), 4u);
}

TEST(RestClientErrors, ConnectionRefusedIsATransportError) {
  RestConfig config;
  {
    TestApiServer server({.tls = false});
    config = server.config();
  }  // stopped: nothing listens on its port now
  config.max_retries = 2;
  auto error = thrown_by<TransportError>([&] { RestClient(config).get(pod("a")); });
  EXPECT_NE(std::string(error.what()).find("attempt 3"), std::string::npos) << error.what();
}

TEST(RestClientErrors, HangingServerTimesOut) {
  TestApiServer server;
  server.on("GET", "/api/v1/namespaces/default/pods/a",
            [](http::Exchange& ex) { ex.wait_closed(1min); });
  RestConfig config = server.config();
  config.timeout = 300ms;
  auto error = thrown_by<TransportError>([&] { RestClient(config).get(pod("a")); });
  EXPECT_NE(std::string(error.what()).find("timed out"), std::string::npos) << error.what();
  EXPECT_EQ(server.requests().size(), 1u);  // a timeout is not retried
}

TEST(RestClientErrors, GarbageBodiesAreClearErrors) {
  TestApiServer server;
  server.on("GET", "/api/v1/namespaces/default/pods/html", [](http::Exchange& ex) {
    ex.respond({200, {{"Content-Type", "text/html"}}, "<html>proxy login</html>"});
  });
  server.on("GET", "/api/v1/namespaces/default/pods/empty", [](http::Exchange& ex) {
    ex.respond({200, {}, ""});
  });
  server.on("GET", "/api/v1/namespaces/default/pods/broken", [](http::Exchange& ex) {
    ex.respond({400, {{"Content-Type", "application/json"}}, "{\"kind\":\"Status\",\"cod"});
  });
  RestClient client(server.config());
  auto html = thrown_by<ResponseError>([&] { client.get(pod("html")); });
  EXPECT_NE(std::string(html.what()).find("expected a JSON object, got '<html>"), std::string::npos)
      << html.what();
  EXPECT_THROW(client.get(pod("empty")), ResponseError);
  auto broken = thrown_by<ApiError>([&] { client.get(pod("broken")); });
  EXPECT_EQ(broken.code(), 400);
  EXPECT_EQ(broken.reason(), "BadRequest");
  EXPECT_NE(broken.status_message().find("{\"kind\":\"Status\",\"cod"), std::string::npos);
}

TEST(RestClientErrors, RateLimitedClientStillServes) {
  TestApiServer server;
  server.on("GET", "/api/v1/namespaces/default/pods/a",
            [](http::Exchange& ex) { ex.respond(testing::json_response(200, pod_json("a"))); });
  RestConfig config = server.config();
  config.qps = 1000;
  config.burst = 2;
  RestClient client(config);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(name_of(client.get(pod("a"))), "a");
}

TEST(RestClientConfig, RejectsABadServerUrl) {
  RestConfig config;
  config.server = "localhost:6443";
  EXPECT_THROW(RestClient{config}, std::invalid_argument);
}

// --- watch ----------------------------------------------------------------------------------

struct Collected {
  std::vector<WatchEventType> types;
  std::vector<std::string> objects;
  bool operator()(const RawWatchEvent& event) {
    types.push_back(event.type);
    objects.push_back(event.object);
    return true;
  }
};

TEST(RestClientWatch, JoinsEventsSplitAcrossChunks) {
  TestApiServer server;
  server.on("GET", "/api/v1/namespaces/default/pods", [](http::Exchange& ex) {
    ex.start_stream(200, {{"Content-Type", "application/json"}});
    std::string a = testing::watch_event_line("ADDED", pod_json("a"));
    std::string b = testing::watch_event_line("MODIFIED", pod_json("b"));
    std::string c = testing::watch_event_line("DELETED", pod_json("c"));
    ex.write(a.substr(0, 5));
    ex.write(a.substr(5, 20));
    ex.write(a.substr(25) + b + c.substr(0, c.size() - 1));
    ex.write("\n");
    ex.finish();
  });
  RestClient client(server.config());
  Collected collected;
  StopToken stop;
  client.watch(kPodsInDefault, {.resource_version = "10"}, std::ref(collected), stop);
  EXPECT_EQ(collected.types,
            (std::vector<WatchEventType>{WatchEventType::Added, WatchEventType::Modified,
                                         WatchEventType::Deleted}));
  ASSERT_EQ(collected.objects.size(), 3u);
  EXPECT_EQ(collected.objects[0], pod_json("a"));
  EXPECT_EQ(name_of(collected.objects[2]), "c");
  auto request = server.requests().at(0);
  EXPECT_EQ(request.query_param("watch"), "true");
  EXPECT_EQ(request.query_param("resourceVersion"), "10");
}

TEST(RestClientWatch, ResumesAfterADroppedConnection) {
  FakeCollection pods("v1", "PodList");  // outlives the server, whose watch handlers use it
  TestApiServer server;
  pods.serve(server, "/api/v1/namespaces/default/pods");
  pods.add(pod_json("a"));
  RestClient client(server.config());
  std::string last_version;
  std::vector<std::string> seen;
  auto on_event = [&](const RawWatchEvent& event) {
    json::value object = json::parse(event.object);
    last_version = std::string(object.at("metadata").at("resourceVersion").as_string());
    seen.push_back(std::string(object.at("metadata").at("name").as_string()));
    if (seen.size() == 2) pods.drop_watches();  // the connection breaks after "b"
    return true;
  };
  StopToken stop;
  auto first = std::async(std::launch::async, [&] {
    client.watch(kPodsInDefault, {.allow_watch_bookmarks = true}, on_event, stop);
  });
  ASSERT_TRUE(pods.wait_for_watches(1, 10s));
  pods.add(pod_json("b"));
  EXPECT_THROW(first.get(), TransportError);
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));

  // Changes made while disconnected arrive after resuming from the last version seen.
  pods.add(pod_json("c"));
  auto second = std::async(std::launch::async, [&] {
    client.watch(kPodsInDefault, {.resource_version = last_version}, on_event, stop);
  });
  ASSERT_TRUE(pods.wait_for_watches(2, 10s));
  pods.add(pod_json("d"));
  pods.close_watches();
  second.get();
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(RestClientWatch, DeliversBookmarks) {
  FakeCollection pods("v1", "PodList");  // outlives the server, whose watch handlers use it
  TestApiServer server;
  pods.serve(server, "/api/v1/namespaces/default/pods");
  RestClient client(server.config());
  StopToken stop;
  std::vector<RawWatchEvent> events;
  auto watching = std::async(std::launch::async, [&] {
    client.watch(
        kPodsInDefault,
        {.resource_version = pods.resource_version(), .allow_watch_bookmarks = true},
        [&](const RawWatchEvent& event) {
          events.push_back(event);
          return false;  // one is enough
        },
        stop);
  });
  ASSERT_TRUE(pods.wait_for_watches(1, 10s));
  pods.bookmark();
  watching.get();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, WatchEventType::Bookmark);
  EXPECT_EQ(server.requests().at(0).query_param("allowWatchBookmarks"), "true");
}

TEST(RestClientWatch, PassesAGoneErrorEventToTheCaller) {
  FakeCollection pods("v1", "PodList");  // outlives the server, whose watch handlers use it
  TestApiServer server;
  pods.serve(server, "/api/v1/namespaces/default/pods");
  pods.add(pod_json("a"));
  pods.add(pod_json("b"));
  pods.compact();
  RestClient client(server.config());
  Collected collected;
  StopToken stop;
  client.watch(kPodsInDefault, {.resource_version = "1"}, std::ref(collected), stop);
  ASSERT_EQ(collected.types, std::vector<WatchEventType>{WatchEventType::Error});
  json::value status = json::parse(collected.objects[0]);
  EXPECT_EQ(status.at("kind").as_string(), "Status");
  EXPECT_EQ(status.at("code").as_int64(), 410);
  EXPECT_EQ(status.at("reason").as_string(), "Expired");
}

TEST(RestClientWatch, HttpGoneThrows) {
  TestApiServer server;
  server.on("GET", "/api/v1/namespaces/default/pods", [](http::Exchange& ex) {
    ex.respond(testing::status_response(410, "Gone", "too old resource version: 1 (50)"));
  });
  RestClient client(server.config());
  StopToken stop;
  auto error = thrown_by<ApiError>([&] {
    client.watch(
        kPodsInDefault, {.resource_version = "1"}, [](const RawWatchEvent&) { return true; }, stop);
  });
  EXPECT_TRUE(error.is_gone());
}

TEST(RestClientWatch, MalformedEventIsAClearError) {
  TestApiServer server;
  server.on("GET", "/api/v1/namespaces/default/pods", [](http::Exchange& ex) {
    ex.start_stream(200, {});
    ex.write("this is not json\n");
    ex.finish();
  });
  RestClient client(server.config());
  StopToken stop;
  auto error = thrown_by<ResponseError>([&] {
    client.watch(
        kPodsInDefault, {}, [](const RawWatchEvent&) { return true; }, stop);
  });
  EXPECT_NE(std::string(error.what()).find("this is not json"), std::string::npos);
}

TEST(RestClientWatch, StopTokenEndsAnIdleWatch) {
  FakeCollection pods("v1", "PodList");  // outlives the server, whose watch handlers use it
  TestApiServer server;
  pods.serve(server, "/api/v1/namespaces/default/pods");
  RestClient client(server.config());
  StopToken stop;
  auto watching = std::async(std::launch::async, [&] {
    client.watch(
        kPodsInDefault, {.resource_version = pods.resource_version()},
        [](const RawWatchEvent&) { return true; }, stop);
  });
  ASSERT_TRUE(pods.wait_for_watches(1, 10s));
  stop.request_stop();
  EXPECT_EQ(watching.wait_for(10s), std::future_status::ready);
  watching.get();
}

}  // namespace
}  // namespace tailor::kube
