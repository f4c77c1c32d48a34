#include "embedded/storage/status_error.h"

#include <boost/json.hpp>

namespace tailor::embedded {
namespace bj = boost::json;

std::string GroupResource::qualified() const {
  return group.empty() ? resource : resource + "." + group;
}

StatusError::StatusError(int code, std::string reason, std::string message)
    : std::runtime_error(message),
      code_(code),
      reason_(std::move(reason)),
      message_(std::move(message)) {}

StatusError& StatusError::with_details(std::string name, std::string group, std::string kind) {
  has_details_ = true;
  name_ = std::move(name);
  group_ = std::move(group);
  kind_ = std::move(kind);
  return *this;
}

StatusError& StatusError::with_causes(std::vector<FieldCause> causes) {
  causes_ = std::move(causes);
  return *this;
}

StatusError& StatusError::with_retry_after(int seconds) {
  has_details_ = true;
  retry_after_seconds_ = seconds;
  return *this;
}

std::string StatusError::to_json() const {
  bj::object o{{"kind", "Status"},    {"apiVersion", "v1"},  {"metadata", bj::object{}},
               {"status", "Failure"}, {"message", message_}, {"reason", reason_}};
  if (has_details_) {
    bj::object d;
    if (!name_.empty()) d["name"] = name_;
    if (!group_.empty()) d["group"] = group_;
    if (!kind_.empty()) d["kind"] = kind_;
    if (!causes_.empty()) {
      bj::array causes;
      for (const FieldCause& c : causes_) {
        bj::object cause{{"reason", c.reason}, {"message", c.message}};
        if (!c.field.empty()) cause["field"] = c.field;  // omitempty, as metav1.StatusCause
        causes.push_back(std::move(cause));
      }
      d["causes"] = std::move(causes);
    }
    if (retry_after_seconds_ > 0) d["retryAfterSeconds"] = retry_after_seconds_;
    o["details"] = std::move(d);
  }
  o["code"] = code_;
  return bj::serialize(o);
}

StatusError not_found(const GroupResource& gr, const std::string& name) {
  StatusError e(404, "NotFound", gr.qualified() + " \"" + name + "\" not found");
  e.with_details(name, gr.group, gr.resource);
  return e;
}

StatusError already_exists(const GroupResource& gr, const std::string& name) {
  StatusError e(409, "AlreadyExists", gr.qualified() + " \"" + name + "\" already exists");
  e.with_details(name, gr.group, gr.resource);
  return e;
}

StatusError conflict(const GroupResource& gr, const std::string& name, const std::string& why) {
  StatusError e(409, "Conflict",
                "Operation cannot be fulfilled on " + gr.qualified() + " \"" + name + "\": " + why);
  e.with_details(name, gr.group, gr.resource);
  return e;
}

StatusError expired(const std::string& message) { return StatusError(410, "Expired", message); }

StatusError bad_request(const std::string& message) {
  return StatusError(400, "BadRequest", message);
}

StatusError method_not_supported(const GroupResource& gr, const std::string& verb) {
  StatusError e(405, "MethodNotAllowed",
                verb + " is not supported on resources of kind \"" + gr.qualified() + "\"");
  e.with_details("", gr.group, gr.resource);
  return e;
}

StatusError unsupported_media_type(const std::string& content_type) {
  return StatusError(415, "UnsupportedMediaType",
                     "the body of the request was in an unknown format - accepted media types "
                     "include: application/json, application/yaml" +
                         (content_type.empty() ? std::string() : " (got " + content_type + ")"));
}

StatusError not_acceptable(const std::string& message) {
  return StatusError(406, "NotAcceptable", message);
}

StatusError unauthorized() { return StatusError(401, "Unauthorized", "Unauthorized"); }

StatusError invalid(const std::string& group, const std::string& kind, const std::string& name,
                    std::vector<FieldCause> causes) {
  std::string message = kind;
  if (!group.empty()) message += "." + group;
  message += " \"" + name + "\" is invalid: ";
  if (causes.size() == 1) {
    message += causes[0].field + ": " + causes[0].message;
  } else {
    message += "[";
    for (std::size_t i = 0; i < causes.size(); ++i) {
      if (i) message += ", ";
      message += causes[i].field + ": " + causes[i].message;
    }
    message += "]";
  }
  StatusError e(422, "Invalid", message);
  e.with_details(name, group, kind).with_causes(std::move(causes));
  return e;
}

// As the watch cache's: a Timeout asking the client to retry after a second, with the cause
// client-go's IsTooLargeResourceVersion looks for.
StatusError too_large_resource_version(std::uint64_t wanted, std::uint64_t current) {
  StatusError e(504, "Timeout",
                "Timeout: Too large resource version: " + std::to_string(wanted) +
                    ", current: " + std::to_string(current));
  e.with_causes({{.reason = "ResourceVersionTooLarge", .message = "Too large resource version"}})
      .with_retry_after(1);
  return e;
}

StatusError internal_error(const std::string& message) {
  return StatusError(500, "InternalError", "Internal error occurred: " + message);
}

StatusError timeout(const std::string& message) {
  StatusError e(504, "Timeout", "Timeout: " + message);
  e.with_details("", "", "");
  return e;
}

}  // namespace tailor::embedded
