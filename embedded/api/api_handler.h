// ApiHandler: the Kubernetes REST API over an ObjectStore, as an http::Handler — authentication,
// impersonation and authorization (ApiExtensions' hooks, auth/; without them a bearer token or a
// verified client certificate lets everything in), discovery, OpenAPI for kubectl apply, and
// list/get/create/update/patch/delete/watch of the built-in resources (with Tables for kubectl).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "embedded/api/extensions.h"
#include "embedded/storage/object_store.h"
#include "kube/http/server.h"
#include "kube/model/time.h"

namespace tailor::embedded {

struct ApiOptions {
  // "" : no authentication, unless extensions.authenticate is set (then that decides).
  std::string bearer_token{};
  std::chrono::milliseconds bookmark_interval{60000};
  std::chrono::seconds default_watch_timeout{1800};
  std::function<kube::TimePoint()> clock{};      // ages in Tables; unset: system clock
  std::size_t max_body_bytes = 3 * 1024 * 1024;  // kube-apiserver's request size limit
  ApiExtensions extensions{};
};

class ApiHandler {
 public:
  ApiHandler(ObjectStore& store, ApiOptions options);
  void handle(kube::http::Exchange& exchange);

 private:
  void serve(kube::http::Exchange& exchange);
  UserInfo authenticate(const kube::http::ServerRequest& request) const;
  ObjectStore& store_;
  ApiOptions options_;
};

}  // namespace tailor::embedded
