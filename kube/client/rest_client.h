// RestClient: the Kubernetes REST verbs over HTTP(S), with client-side rate limiting, retries
// (connection errors, 5xx, 429 with Retry-After) and per-request timeouts. Bodies are raw JSON:
// callers decode with the model's simdjson decoders and build patches with Boost.JSON.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "kube/client/config.h"
#include "kube/model/watch_event_type.h"

namespace tailor::kube {

// A resource type: group ("" for core), version, plural resource name, namespaced or not.
struct ResourceType {
  std::string group{};
  std::string version{};
  std::string resource{};
  bool namespaced = true;
};

// Well-known resource types.
namespace resources {
extern const ResourceType kPods, kNodes, kEvents, kNamespaces, kLeases, kDeployments, kReplicaSets,
    kStatefulSets, kDaemonSets, kJobs, kCronJobs, kLimitRanges, kResourceQuotas;
}  // namespace resources

// Where a request goes: type, namespace (empty: all namespaces / cluster-scoped), name,
// subresource.
struct ObjectRef {
  ResourceType type;
  std::string namespace_{};
  std::string name{};
  std::string subresource{};  // "status", "resize", "eviction", ...
};

// The path of a ref, e.g. /api/v1/namespaces/ns/pods/name/resize, /apis/apps/v1/deployments.
std::string path_of(const ObjectRef& ref);

struct ListOptions {
  std::string label_selector{};
  std::string field_selector{};
  std::int64_t limit = 0;  // 0: no pagination
  std::string continue_token{};
  std::string resource_version{};        // "" : most recent; "0": any (cache)
  std::string resource_version_match{};  // "", "NotOlderThan", "Exact"
  std::optional<int> timeout_seconds{};  // watch: server-side timeout
  bool allow_watch_bookmarks = false;
};

enum class PatchType { Merge, StrategicMerge, Json, Apply };

struct PatchOptions {
  std::string field_manager{};  // required for Apply
  bool force = false;           // Apply: take ownership of conflicting fields
};

struct DeleteOptions {
  std::optional<std::int64_t> grace_period_seconds{};
  std::string propagation_policy{};  // "", "Orphan", "Background", "Foreground"
  std::string preconditions_uid{};
  std::string preconditions_resource_version{};
};

// An API answer other than 2xx, after retries. code is the HTTP status; reason and message come
// from the returned Status object when there is one (e.g. reason "Conflict", "Expired", "Gone").
class ApiError : public std::runtime_error {
 public:
  ApiError(int code, std::string reason, std::string message, std::string body = "");
  int code() const { return code_; }
  const std::string& reason() const { return reason_; }
  const std::string& status_message() const { return message_; }
  const std::string& body() const { return body_; }
  bool is_not_found() const { return code_ == 404; }
  bool is_conflict() const { return code_ == 409; }
  bool is_gone() const { return code_ == 410; }
  bool is_too_many_requests() const { return code_ == 429; }
  bool is_invalid() const { return code_ == 422; }
  bool is_forbidden() const { return code_ == 403; }

 private:
  int code_;
  std::string reason_, message_, body_;
};

// The connection failed (refused, reset, TLS, timeout) and retries were exhausted.
class TransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The server's answer could not be understood: not a JSON object where one was due, or a
// malformed watch event.
class ResponseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RawWatchEvent {
  WatchEventType type;
  std::string object;  // the raw JSON of "object" (for Error: a Status)
};

// Cooperative cancellation for blocking calls (watch).
class StopToken {
 public:
  void request_stop() { stopped_.store(true); }
  bool stop_requested() const { return stopped_.load(); }

 private:
  std::atomic<bool> stopped_{false};
};

class RestClient {
 public:
  explicit RestClient(RestConfig config);
  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  const RestConfig& config() const;

  std::string get(const ObjectRef& ref);
  // One page: the raw List JSON (items, metadata.resourceVersion, metadata.continue).
  std::string list(const ObjectRef& ref, const ListOptions& options = {});
  std::string create(const ObjectRef& ref, std::string_view body);
  // PUT; a stale resourceVersion throws ApiError with code 409 (never retried here).
  std::string update(const ObjectRef& ref, std::string_view body);
  std::string patch(const ObjectRef& ref, PatchType type, std::string_view body,
                    const PatchOptions& options = {});
  std::string remove(const ObjectRef& ref, const DeleteOptions& options = {});

  // Streams watch events to on_event until the server ends the stream (returns normally),
  // on_event returns false, or stop is requested. An HTTP 410 throws ApiError(410); an
  // ERROR event is passed to on_event like any other (the caller decides, e.g. relist on 410).
  // Establishing the stream is retried like other requests; a connection lost mid-stream
  // throws TransportError (the caller resumes from the last resourceVersion it saw), a
  // malformed event ResponseError.
  void watch(const ObjectRef& ref, const ListOptions& options,
             const std::function<bool(const RawWatchEvent&)>& on_event, const StopToken& stop);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::kube
