// The authorization decisions of a running tailor-cluster, written as kube-apiserver's audit log
// (--audit-log-path): one audit.k8s.io/v1 Event per request that reached the authorizer, JSON per
// line, at level Metadata, with the annotations authorization.k8s.io/decision ("allow" or
// "forbid") and authorization.k8s.io/reason. A forbidden request's event carries the 403 it got;
// an allowed one is written when it is authorized (stage "RequestReceived": its outcome comes
// later). What a least-privilege check reads: who asked for what, and what RBAC said.
#pragma once

#include <boost/json/fwd.hpp>
#include <fstream>
#include <mutex>
#include <string>

#include "embedded/auth/rbac_rules.h"
#include "kube/model/time.h"

namespace tailor::embedded {

struct AuditedRequest {
  std::string audit_id{};
  std::string method{};       // HTTP method
  std::string request_uri{};  // path and query as sent
  kube::TimePoint received{};
};

// The Event for one decision (pure).
boost::json::object audit_event(const AuditedRequest& request, const RequestAttributes& attributes,
                                const AuthorizationDecision& decision);

// Appends events to a file, one line each, flushed per line (a killed server loses none that
// were answered). Throws std::runtime_error when the file cannot be opened.
class AuditLog {
 public:
  explicit AuditLog(const std::string& path);
  void record(const AuditedRequest& request, const RequestAttributes& attributes,
              const AuthorizationDecision& decision);

 private:
  std::mutex mu_;
  std::ofstream out_;
  unsigned long long next_id_ = 1;
};

}  // namespace tailor::embedded
