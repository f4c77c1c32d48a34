#include "kube/observe/health.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <set>
#include <stdexcept>
#include <vector>

#include "kube/observe/log.h"

namespace tailor::kube::health {
namespace {

struct NamedCheck {
  std::string name;
  CheckFn fn;
  bool liveness;
};

constexpr std::string_view kEndpoints[] = {"livez", "readyz", "healthz"};

http::Headers text_headers() {
  return {{"Content-Type", "text/plain; charset=utf-8"}, {"X-Content-Type-Options", "nosniff"}};
}

http::ServerResponse text(int status, std::string body) {
  return http::ServerResponse{status, text_headers(), std::move(body)};
}

// Runs a check; the failure reason, or nullopt when it passes.
std::optional<std::string> run(const NamedCheck& check) {
  try {
    check.fn();
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  } catch (...) {
    return std::string("unknown error");
  }
}

std::string quoted_list(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + log::go_quote(n);
  return out;
}

bool has_param(const http::ServerRequest& r, std::string_view name) {
  return std::any_of(r.query.begin(), r.query.end(),
                     [&](const auto& kv) { return kv.first == name; });
}

std::set<std::string> excluded(const http::ServerRequest& r) {
  std::set<std::string> out;
  for (const auto& [k, v] : r.query) {
    if (k == "exclude") out.insert(v);
  }
  return out;
}

http::ServerResponse serve_all(std::string_view endpoint, const std::vector<NamedCheck>& checks,
                               const http::ServerRequest& request) {
  auto exclude = excluded(request);
  std::string lines, failed_names, failed_reasons;
  for (const NamedCheck& check : checks) {
    if (exclude.erase(check.name) > 0) {
      lines += "[+]" + check.name + " excluded: ok\n";
    } else if (auto reason = run(check)) {
      // The endpoint is public: the reason goes to the log only.
      lines += "[-]" + check.name + " failed: reason withheld\n";
      failed_names += (failed_names.empty() ? "" : ",") + check.name;
      failed_reasons += "[-]" + check.name + " failed: " + *reason + "\n";
    } else {
      lines += "[+]" + check.name + " ok\n";
    }
  }
  if (!exclude.empty()) {
    lines += "warn: some health checks cannot be excluded: no matches for " + quoted_list(exclude) +
             "\n";
  }
  if (!failed_names.empty()) {
    log::v(2).info("Health check failed",
                   {{"endpoint", endpoint}, {"checks", failed_names}, {"reasons", failed_reasons}});
    return text(500, lines + std::string(endpoint) + " check failed\n");
  }
  if (!has_param(request, "verbose")) return text(200, "ok");
  return text(200, lines + std::string(endpoint) + " check passed\n");
}

http::ServerResponse serve_one(const NamedCheck& check) {
  if (auto reason = run(check)) return text(500, "internal server error: " + *reason + "\n");
  return text(200, "ok");
}

}  // namespace

struct Checks::Impl {
  mutable std::mutex mu;
  std::vector<NamedCheck> checks;

  void add(std::string name, CheckFn fn, bool liveness) {
    if (name.empty() || name.find('/') != std::string::npos) {
      throw std::invalid_argument("health check name \"" + name + "\" must be non-empty, no '/'");
    }
    std::lock_guard lock(mu);
    for (const auto& c : checks) {
      if (c.name == name) throw std::invalid_argument("health check \"" + name + "\" added twice");
    }
    checks.push_back({std::move(name), std::move(fn), liveness});
  }

  std::vector<NamedCheck> for_endpoint(std::string_view endpoint) const {
    std::lock_guard lock(mu);
    std::vector<NamedCheck> out;
    for (const auto& c : checks) {
      if (endpoint != "livez" || c.liveness) out.push_back(c);
    }
    return out;
  }
};

Checks::Checks() : impl_(std::make_unique<Impl>()) {
  add_livez("ping", [] {});
}
Checks::~Checks() = default;

void Checks::add_livez(std::string name, CheckFn check) {
  impl_->add(std::move(name), std::move(check), true);
}
void Checks::add_readyz(std::string name, CheckFn check) {
  impl_->add(std::move(name), std::move(check), false);
}

std::optional<http::ServerResponse> Checks::serve(const http::ServerRequest& request) const {
  std::string_view path = request.path;
  if (path.empty() || path.front() != '/') return std::nullopt;
  path.remove_prefix(1);
  auto slash = path.find('/');
  std::string_view endpoint = path.substr(0, slash);
  if (std::find(std::begin(kEndpoints), std::end(kEndpoints), endpoint) == std::end(kEndpoints)) {
    return std::nullopt;
  }
  auto checks = impl_->for_endpoint(endpoint);
  if (slash == std::string_view::npos) return serve_all(endpoint, checks, request);
  std::string_view name = path.substr(slash + 1);
  for (const auto& c : checks) {
    if (c.name == name) return serve_one(c);
  }
  return std::nullopt;
}

}  // namespace tailor::kube::health
