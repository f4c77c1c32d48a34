#include "embedded/auth/audit_log.h"

#include <boost/json.hpp>
#include <stdexcept>

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

bj::object user_json(const UserInfo& user) {
  bj::object out{{"username", user.name}};
  if (!user.uid.empty()) out["uid"] = user.uid;
  bj::array groups;
  for (const std::string& g : user.groups) groups.emplace_back(g);
  out["groups"] = std::move(groups);
  // As upstream: a bound ServiceAccount token's pod (authentication.kubernetes.io/pod-name,
  // pod-uid) and node, so a log reader sees which pod's token made the request.
  if (!user.extra.empty()) {
    bj::object extra;
    for (const auto& [key, values] : user.extra) {
      extra[key] = bj::array(values.begin(), values.end());
    }
    out["extra"] = std::move(extra);
  }
  return out;
}

// audit.ObjectRef: only the fields the request names.
bj::object object_ref(const RequestAttributes& a) {
  bj::object ref{{"resource", a.resource}};
  if (!a.ns.empty()) ref["namespace"] = a.ns;
  if (!a.name.empty()) ref["name"] = a.name;
  if (!a.api_group.empty()) ref["apiGroup"] = a.api_group;
  if (!a.api_version.empty()) ref["apiVersion"] = a.api_version;
  if (!a.subresource.empty()) ref["subresource"] = a.subresource;
  return ref;
}

}  // namespace

bj::object audit_event(const AuditedRequest& request, const RequestAttributes& attributes,
                       const AuthorizationDecision& decision) {
  const std::string time = kube::format_rfc3339_micro(request.received);
  bj::object event{{"kind", "Event"},
                   {"apiVersion", "audit.k8s.io/v1"},
                   {"level", "Metadata"},
                   {"auditID", request.audit_id},
                   {"stage", decision.allowed ? "RequestReceived" : "ResponseComplete"},
                   {"requestURI", request.request_uri},
                   {"verb", attributes.verb},
                   {"user", user_json(attributes.user)},
                   {"requestReceivedTimestamp", time},
                   {"stageTimestamp", time}};
  if (attributes.resource_request) event["objectRef"] = object_ref(attributes);
  if (!decision.allowed) {
    event["responseStatus"] = bj::object{
        {"metadata", bj::object{}}, {"status", "Failure"}, {"reason", "Forbidden"}, {"code", 403}};
  }
  event["annotations"] =
      bj::object{{"authorization.k8s.io/decision", decision.allowed ? "allow" : "forbid"},
                 {"authorization.k8s.io/reason", decision.reason}};
  return event;
}

AuditLog::AuditLog(const std::string& path) : out_(path, std::ios::app) {
  if (!out_) throw std::runtime_error("--audit-log-path: cannot open " + path + " for appending");
}

void AuditLog::record(const AuditedRequest& request, const RequestAttributes& attributes,
                      const AuthorizationDecision& decision) {
  std::lock_guard<std::mutex> lock(mu_);
  AuditedRequest numbered = request;
  if (numbered.audit_id.empty()) numbered.audit_id = std::to_string(next_id_++);
  out_ << bj::serialize(audit_event(numbered, attributes, decision)) << '\n';
  out_.flush();
}

}  // namespace tailor::embedded
