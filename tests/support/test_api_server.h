// A scriptable in-process Kubernetes API server for tests: HTTPS (generated CA, server and client
// certificates) or plain HTTP, optional client-certificate and bearer-token checks, routes by
// method and path, one-shot scripted answers, a record of every request, and FakeCollection: an
// in-memory resource collection serving list (limit/continue) and watch (resourceVersion
// resume, bookmarks, 410 after compaction) the way kube-apiserver does.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kube/client/config.h"
#include "kube/http/server.h"
#include "kube/http/tls_certs.h"

namespace tailor::kube::testing {

struct RecordedRequest {
  std::string method;
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  http::Headers headers;
  std::string body;
  std::string peer_common_name;
  std::uint64_t connection_id = 0;

  std::string query_param(const std::string& name) const;  // "" when absent
  std::string header(const std::string& name) const;
};

// A Status object as the API server sends it, e.g. status_json(409, "Conflict", "...").
std::string status_json(int code, const std::string& reason, const std::string& message);
http::ServerResponse status_response(int code, const std::string& reason,
                                     const std::string& message);
http::ServerResponse json_response(int code, std::string body);

// One watch event line: {"type":"ADDED","object":{...}}\n
std::string watch_event_line(const std::string& type, const std::string& object_json);

struct TestApiServerOptions {
  bool tls = true;
  bool require_client_cert = false;  // reject clients without a certificate from ca()
  std::string bearer_token{};        // when set, other tokens get 401 (unless a client cert)
};

class TestApiServer {
 public:
  using Handler = std::function<void(http::Exchange&)>;

  explicit TestApiServer(TestApiServerOptions options = {});
  ~TestApiServer();

  // Handles method + exact path (the path without query). Later registrations win.
  void on(const std::string& method, const std::string& path, Handler handler);
  // Answers the next request for method + path with response, before any route (FIFO).
  void enqueue(const std::string& method, const std::string& path, http::ServerResponse response);
  // Changes the accepted bearer token (simulates a rotation).
  void set_bearer_token(const std::string& token);

  std::vector<RecordedRequest> requests() const;
  std::size_t count(const std::string& method, const std::string& path) const;

  std::string url() const;
  std::uint16_t port() const;
  const http::CertificateAndKey& ca() const { return ca_; }
  const http::CertificateAndKey& client_certificate() const { return client_; }
  // A RestConfig that reaches this server: CA and (TLS) the client certificate, no retry delay
  // worth waiting for (tests that check retries set their own limits).
  RestConfig config() const;

  void stop();

 private:
  void handle(http::Exchange& exchange);
  bool authorized(const http::ServerRequest& request) const;

  TestApiServerOptions options_;
  http::CertificateAndKey ca_, server_cert_, client_;
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, Handler>> routes_;  // key: "METHOD path"
  std::map<std::string, std::deque<http::ServerResponse>> scripted_;
  std::vector<RecordedRequest> requests_;
  std::unique_ptr<http::Server> server_;
};

// An in-memory collection of objects of one resource type, served like kube-apiserver: list
// with limit/continue and metadata.resourceVersion; watch from a resourceVersion with the
// events after it, BOOKMARK events when allowWatchBookmarks, and an ERROR event with a 410
// Status when that version has been compacted away. Objects are JSON with metadata.name (and
// metadata.namespace); the collection sets metadata.resourceVersion. It must outlive the
// TestApiServer it serves (declare it first): watch handlers use it until the server stops.
class FakeCollection {
 public:
  // list_kind e.g. "PodList"; api_version e.g. "v1".
  FakeCollection(std::string api_version, std::string list_kind);

  // Serves GET on collection_path (list, or watch when ?watch=true) of server.
  void serve(TestApiServer& server, const std::string& collection_path);

  // Mutations return the new resourceVersion and notify open watches.
  std::string add(const std::string& object_json);
  std::string modify(const std::string& object_json);
  std::string remove(const std::string& namespace_, const std::string& name);
  // Forgets the event history: watches from older versions get 410 Gone.
  void compact();
  // Sends a BOOKMARK with the current resourceVersion to watches that allow bookmarks.
  void bookmark();
  // Drops every open watch connection without a proper end (abort()).
  void drop_watches();
  // Ends every open watch stream cleanly (as the server's timeoutSeconds would).
  void close_watches();
  // Makes the next list answer 410 Gone (an expired continue token, for example).
  void fail_next_list_with_gone();

  std::string resource_version() const;
  std::size_t size() const;
  std::size_t watches_started() const;
  // Blocks until at least n watches have started (false after timeout).
  bool wait_for_watches(std::size_t n, std::chrono::milliseconds timeout) const;

 private:
  struct Event {
    std::uint64_t resource_version;
    std::string type;
    std::string object;
  };
  std::string mutate(const std::string& type, const std::string& object_json);
  void list(http::Exchange& exchange);
  void watch(http::Exchange& exchange);

  std::string api_version_, list_kind_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::uint64_t resource_version_ = 1;
  std::uint64_t compacted_at_ = 0;              // events at or below this version are gone
  std::map<std::string, std::string> objects_;  // "namespace/name" -> JSON
  std::vector<Event> history_;
  std::uint64_t generation_ = 0;  // bumped by drop/close to end open watches
  bool drop_ = false;
  bool bookmark_pending_ = false;
  std::uint64_t bookmark_generation_ = 0;
  bool next_list_gone_ = false;
  std::size_t watches_started_ = 0;
};

}  // namespace tailor::kube::testing
