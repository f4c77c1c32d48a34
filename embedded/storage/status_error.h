// StatusError: an API failure carried to the HTTP edge as Kubernetes' metav1.Status, with the
// reasons, codes and messages kube-apiserver uses (k8s.io/apimachinery/pkg/api/errors).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tailor::embedded {

// A resource as errors name it: group "" for core; resource is the plural ("pods").
struct GroupResource {
  std::string group;
  std::string resource;
  // "pods", "leases.coordination.k8s.io": how messages qualify the resource.
  std::string qualified() const;
};

struct FieldCause {
  std::string reason;  // "FieldValueInvalid", ...
  std::string message;
  std::string field;
};

class StatusError : public std::runtime_error {
 public:
  StatusError(int code, std::string reason, std::string message);
  int code() const { return code_; }
  const std::string& reason() const { return reason_; }
  const std::string& message() const { return message_; }

  // details{name, group, kind}; kind is the resource plural for NotFound/Conflict, the Kind for
  // Invalid, as kube-apiserver fills it.
  StatusError& with_details(std::string name, std::string group, std::string kind);
  StatusError& with_causes(std::vector<FieldCause> causes);
  StatusError& with_retry_after(int seconds);  // details.retryAfterSeconds
  // The metav1.Status JSON body.
  std::string to_json() const;

 private:
  int code_;
  std::string reason_, message_;
  bool has_details_ = false;
  std::string name_, group_, kind_;
  std::vector<FieldCause> causes_;
  int retry_after_seconds_ = 0;
};

StatusError not_found(const GroupResource& gr, const std::string& name);
StatusError already_exists(const GroupResource& gr, const std::string& name);
// 409 Conflict "Operation cannot be fulfilled on <gr> "<name>": <why>".
StatusError conflict(const GroupResource& gr, const std::string& name, const std::string& why);
// The why of a stale update.
inline constexpr const char* kObjectModified =
    "the object has been modified; please apply your changes to the latest version and try again";
StatusError expired(const std::string& message);  // 410 Expired
StatusError bad_request(const std::string& message);
StatusError method_not_supported(const GroupResource& gr, const std::string& verb);
StatusError unsupported_media_type(const std::string& content_type);
StatusError not_acceptable(const std::string& message);
StatusError unauthorized();
StatusError invalid(const std::string& group, const std::string& kind, const std::string& name,
                    std::vector<FieldCause> causes);
StatusError internal_error(const std::string& message);
// 504 Timeout "Timeout: <message>", details {} (apierrors.NewTimeoutError with no Retry-After).
StatusError timeout(const std::string& message);
// 504 Timeout: a read asked for a resourceVersion the store has not reached within the wait.
StatusError too_large_resource_version(std::uint64_t wanted, std::uint64_t current);

}  // namespace tailor::embedded
