#include "tests/support/test_api_server.h"

#include <algorithm>
#include <boost/json.hpp>
#include <stdexcept>

namespace tailor::kube::testing {
namespace json = boost::json;

namespace {

std::string first_value(const std::vector<std::pair<std::string, std::string>>& pairs,
                        const std::string& name) {
  for (const auto& [key, value] : pairs) {
    if (key == name) return value;
  }
  return {};
}

std::string bearer_of(const http::ServerRequest& request) {
  std::string_view value = request.header("Authorization");
  constexpr std::string_view kPrefix = "Bearer ";
  return value.starts_with(kPrefix) ? std::string(value.substr(kPrefix.size())) : std::string();
}

}  // namespace

std::string RecordedRequest::query_param(const std::string& name) const {
  return first_value(query, name);
}

std::string RecordedRequest::header(const std::string& name) const {
  return std::string(http::find_header(headers, name));
}

std::string status_json(int code, const std::string& reason, const std::string& message) {
  json::object status{{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object{}},
                      {"status", "Failure"}, {"message", message}, {"reason", reason},
                      {"code", code}};
  return json::serialize(status);
}

http::ServerResponse status_response(int code, const std::string& reason,
                                     const std::string& message) {
  return json_response(code, status_json(code, reason, message));
}

http::ServerResponse json_response(int code, std::string body) {
  return {code, {{"Content-Type", "application/json"}}, std::move(body)};
}

std::string watch_event_line(const std::string& type, const std::string& object_json) {
  return R"({"type":")" + type + R"(","object":)" + object_json + "}\n";
}

TestApiServer::TestApiServer(TestApiServerOptions options) : options_(std::move(options)) {
  http::ServerOptions server_options;
  if (options_.tls) {
    ca_ = http::make_ca("test-apiserver-ca");
    server_cert_ =
        http::make_server_certificate(ca_, "kube-apiserver", {"localhost"}, {"127.0.0.1"});
    client_ = http::make_client_certificate(ca_, "tailor-test", {"system:masters"});
    server_options.tls = http::TlsServerConfig{server_cert_.cert_pem, server_cert_.key_pem,
                                               ca_.cert_pem, options_.require_client_cert};
  }
  server_ =
      std::make_unique<http::Server>(server_options, [this](http::Exchange& ex) { handle(ex); });
  server_->start();
}

TestApiServer::~TestApiServer() { stop(); }

void TestApiServer::stop() { server_->stop(); }

void TestApiServer::on(const std::string& method, const std::string& path, Handler handler) {
  std::lock_guard lock(mutex_);
  routes_.emplace_back(method + " " + path, std::move(handler));
}

void TestApiServer::enqueue(const std::string& method, const std::string& path,
                            http::ServerResponse response) {
  std::lock_guard lock(mutex_);
  scripted_[method + " " + path].push_back(std::move(response));
}

void TestApiServer::set_bearer_token(const std::string& token) {
  std::lock_guard lock(mutex_);
  options_.bearer_token = token;
}

std::vector<RecordedRequest> TestApiServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::size_t TestApiServer::count(const std::string& method, const std::string& path) const {
  std::lock_guard lock(mutex_);
  return static_cast<std::size_t>(std::count_if(
      requests_.begin(), requests_.end(),
      [&](const RecordedRequest& r) { return r.method == method && r.path == path; }));
}

std::string TestApiServer::url() const { return server_->url(); }
std::uint16_t TestApiServer::port() const { return server_->port(); }

RestConfig TestApiServer::config() const {
  RestConfig config;
  config.server = url();
  config.ca_pem = ca_.cert_pem;
  config.client_cert_pem = client_.cert_pem;
  config.client_key_pem = client_.key_pem;
  config.qps = 0;
  config.retry_base_delay = std::chrono::milliseconds(1);
  config.retry_max_delay = std::chrono::milliseconds(5);
  config.timeout = std::chrono::seconds(10);
  return config;
}

bool TestApiServer::authorized(const http::ServerRequest& request) const {
  std::lock_guard lock(mutex_);
  if (options_.bearer_token.empty()) return true;
  if (!request.peer_common_name.empty()) return true;
  return bearer_of(request) == options_.bearer_token;
}

void TestApiServer::handle(http::Exchange& exchange) {
  const auto& request = exchange.request();
  std::string key = request.method + " " + request.path;
  Handler route;
  std::optional<http::ServerResponse> scripted;
  {
    std::lock_guard lock(mutex_);
    requests_.push_back({request.method, request.path, request.query, request.headers, request.body,
                         request.peer_common_name, request.connection_id});
    if (auto it = scripted_.find(key); it != scripted_.end() && !it->second.empty()) {
      scripted = std::move(it->second.front());
      it->second.pop_front();
    }
    for (auto it = routes_.rbegin(); it != routes_.rend() && !route; ++it) {
      if (it->first == key) route = it->second;
    }
  }
  if (!authorized(request)) {
    exchange.respond(status_response(401, "Unauthorized", "Unauthorized"));
  } else if (scripted) {
    exchange.respond(std::move(*scripted));
  } else if (route) {
    route(exchange);
  } else {
    exchange.respond(
        status_response(404, "NotFound", "the server could not find the requested resource"));
  }
}

// FakeCollection ---------------------------------------------------------------------------

namespace {

std::string object_key(const json::object& object) {
  const auto* metadata = object.if_contains("metadata");
  if (metadata == nullptr || !metadata->is_object()) {
    throw std::invalid_argument("FakeCollection: object without metadata");
  }
  const auto& meta = metadata->as_object();
  std::string name = meta.contains("name") ? std::string(meta.at("name").as_string()) : "";
  std::string ns = meta.contains("namespace") ? std::string(meta.at("namespace").as_string()) : "";
  if (name.empty()) throw std::invalid_argument("FakeCollection: object without metadata.name");
  return ns + "/" + name;
}

std::uint64_t parse_version(const std::string& text) {
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

FakeCollection::FakeCollection(std::string api_version, std::string list_kind)
    : api_version_(std::move(api_version)), list_kind_(std::move(list_kind)) {}

void FakeCollection::serve(TestApiServer& server, const std::string& collection_path) {
  server.on("GET", collection_path, [this](http::Exchange& ex) {
    if (ex.request().query_param("watch").value_or("") == "true") {
      watch(ex);
    } else {
      list(ex);
    }
  });
}

std::string FakeCollection::mutate(const std::string& type, const std::string& object_json) {
  json::object object = json::parse(object_json).as_object();
  std::string key = object_key(object);
  std::lock_guard lock(mutex_);
  std::uint64_t version = ++resource_version_;
  object["metadata"].as_object()["resourceVersion"] = std::to_string(version);
  std::string text = json::serialize(object);
  if (type == "DELETED") {
    objects_.erase(key);
  } else {
    objects_[key] = text;
  }
  history_.push_back({version, type, text});
  changed_.notify_all();
  return std::to_string(version);
}

std::string FakeCollection::add(const std::string& object_json) {
  return mutate("ADDED", object_json);
}

std::string FakeCollection::modify(const std::string& object_json) {
  return mutate("MODIFIED", object_json);
}

std::string FakeCollection::remove(const std::string& namespace_, const std::string& name) {
  std::string existing;
  {
    std::lock_guard lock(mutex_);
    auto it = objects_.find(namespace_ + "/" + name);
    if (it == objects_.end()) throw std::invalid_argument("FakeCollection: no object " + name);
    existing = it->second;
  }
  return mutate("DELETED", existing);
}

void FakeCollection::compact() {
  std::lock_guard lock(mutex_);
  compacted_at_ = resource_version_;
  history_.clear();
}

void FakeCollection::bookmark() {
  std::lock_guard lock(mutex_);
  ++bookmark_generation_;
  changed_.notify_all();
}

void FakeCollection::drop_watches() {
  std::lock_guard lock(mutex_);
  ++generation_;
  drop_ = true;
  changed_.notify_all();
}

void FakeCollection::close_watches() {
  std::lock_guard lock(mutex_);
  ++generation_;
  drop_ = false;
  changed_.notify_all();
}

void FakeCollection::fail_next_list_with_gone() {
  std::lock_guard lock(mutex_);
  next_list_gone_ = true;
}

std::string FakeCollection::resource_version() const {
  std::lock_guard lock(mutex_);
  return std::to_string(resource_version_);
}

std::size_t FakeCollection::size() const {
  std::lock_guard lock(mutex_);
  return objects_.size();
}

std::size_t FakeCollection::watches_started() const {
  std::lock_guard lock(mutex_);
  return watches_started_;
}

bool FakeCollection::wait_for_watches(std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return watches_started_ >= n; });
}

void FakeCollection::list(http::Exchange& exchange) {
  const auto& request = exchange.request();
  std::int64_t limit = std::stoll(request.query_param("limit").value_or("0"));
  std::string continue_token = request.query_param("continue").value_or("");
  std::unique_lock lock(mutex_);
  if (next_list_gone_) {
    next_list_gone_ = false;
    lock.unlock();
    exchange.respond(status_response(410, "Expired",
                                     "The provided continue parameter is too old "
                                     "to display a consistent list result."));
    return;
  }
  // Continue tokens carry the list's resourceVersion and the last key served: "<rv>|<key>".
  std::string after;
  std::uint64_t list_version = resource_version_;
  if (!continue_token.empty()) {
    auto bar = continue_token.find('|');
    list_version = parse_version(continue_token.substr(0, bar));
    after = bar == std::string::npos ? "" : continue_token.substr(bar + 1);
    if (list_version <= compacted_at_) {
      lock.unlock();
      exchange.respond(status_response(410, "Expired",
                                       "The provided continue parameter is too "
                                       "old to display a consistent list result."));
      return;
    }
  }
  json::array items;
  std::string next;
  for (auto it = objects_.upper_bound(after); it != objects_.end(); ++it) {
    if (limit > 0 && static_cast<std::int64_t>(items.size()) == limit) {
      next = std::to_string(list_version) + "|" + std::prev(it)->first;
      break;
    }
    items.push_back(json::parse(it->second));
  }
  lock.unlock();
  json::object metadata{{"resourceVersion", std::to_string(list_version)}};
  if (!next.empty()) metadata["continue"] = next;
  json::object list{{"kind", list_kind_},
                    {"apiVersion", api_version_},
                    {"metadata", std::move(metadata)},
                    {"items", std::move(items)}};
  exchange.respond(json_response(200, json::serialize(list)));
}

void FakeCollection::watch(http::Exchange& exchange) {
  const auto& request = exchange.request();
  std::uint64_t from = parse_version(request.query_param("resourceVersion").value_or(""));
  bool bookmarks = request.query_param("allowWatchBookmarks").value_or("") == "true";
  auto timeout =
      std::chrono::seconds(std::stoi(request.query_param("timeoutSeconds").value_or("3600")));
  auto deadline = std::chrono::steady_clock::now() + timeout;

  std::unique_lock lock(mutex_);
  ++watches_started_;
  changed_.notify_all();
  std::uint64_t generation = generation_;
  std::uint64_t seen_bookmarks = bookmark_generation_;
  std::vector<std::string> pending;
  if (from == 0) {
    // No version (or "0"): synthetic ADDED events for the current state first.
    for (const auto& [key, object] : objects_) pending.push_back(watch_event_line("ADDED", object));
    from = resource_version_;
  } else if (from < compacted_at_) {
    lock.unlock();
    exchange.start_stream(200, {{"Content-Type", "application/json"}});
    exchange.write(
        watch_event_line("ERROR", status_json(410, "Expired",
                                              "too old resource version: " + std::to_string(from) +
                                                  " (" + std::to_string(compacted_at_) + ")")));
    exchange.finish();
    return;
  }
  lock.unlock();
  exchange.start_stream(200, {{"Content-Type", "application/json"}});
  lock.lock();
  std::uint64_t sent = from;
  for (;;) {
    for (const auto& event : history_) {
      if (event.resource_version > sent) {
        pending.push_back(watch_event_line(event.type, event.object));
        sent = event.resource_version;
      }
    }
    if (bookmarks && seen_bookmarks != bookmark_generation_) {
      seen_bookmarks = bookmark_generation_;
      pending.push_back(watch_event_line(
          "BOOKMARK", R"({"kind":")" + list_kind_.substr(0, list_kind_.size() - 4) +
                          R"(","apiVersion":")" + api_version_ +
                          R"(","metadata":{"resourceVersion":")" +
                          std::to_string(resource_version_) + R"("}})"));
    }
    bool ended = generation != generation_;
    bool drop = drop_;
    lock.unlock();
    if (ended && drop) {
      exchange.abort();  // what was pending is lost, as with a real broken connection
      return;
    }
    for (const auto& line : pending) {
      if (!exchange.write(line)) return;
    }
    pending.clear();
    if (ended) {
      exchange.finish();
      return;
    }
    if (exchange.closed() || std::chrono::steady_clock::now() >= deadline) return;
    lock.lock();
    changed_.wait_for(lock, std::chrono::milliseconds(20));
  }
}

}  // namespace tailor::kube::testing
