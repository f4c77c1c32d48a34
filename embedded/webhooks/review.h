// AdmissionReview (admission.k8s.io/v1) exchanged with a mutating webhook: the request the
// server sends and what it makes of the answer, with kube-apiserver's messages.
#pragma once

#include <boost/json/fwd.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "embedded/storage/status_error.h"
#include "embedded/webhooks/webhook.h"

namespace tailor::embedded::webhooks {

struct ReviewRequest {
  std::string uid;
  Write write;
  std::string kind;  // "Pod"
  std::string name, ns;
  const boost::json::object* object = nullptr;
  const boost::json::object* old_object = nullptr;
  bool dry_run = false;
};

std::string review_body(const ReviewRequest& request);

// The webhook could not be called or answered nonsense: failurePolicy decides.
class CallFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Verdict {
  bool allowed = true;
  std::shared_ptr<const boost::json::value> patch;  // JSON patch operations when it mutates
  std::vector<std::string> warnings;
  StatusError denial{403, "", ""};  // when !allowed: `admission webhook "NAME" denied ...`
};

// Throws CallFailure for an answer that is not a valid AdmissionReview response for uid.
Verdict read_review_response(const std::string& webhook_name, const std::string& uid,
                             const std::string& body);

}  // namespace tailor::embedded::webhooks
