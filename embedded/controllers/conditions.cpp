#include "embedded/controllers/conditions.h"

#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

bj::array& conditions_of(bj::object& object) {
  bj::value& status = object["status"];
  if (!status.is_object()) status = bj::object{};
  bj::value& conditions = status.as_object()["conditions"];
  if (!conditions.is_array()) conditions = bj::array{};
  return conditions.as_array();
}

}  // namespace

bool set_condition(bj::object& object, const Condition& c, ConditionStyle style,
                   const std::string& now, std::int64_t observed_generation) {
  bj::array& conditions = conditions_of(object);
  bj::object* existing = nullptr;
  for (bj::value& v : conditions) {
    if (v.is_object() && string_at(v.as_object(), "type") == c.type) existing = &v.as_object();
  }
  std::string transition = now;
  std::string update = now;
  if (existing && string_at(*existing, "status") == c.status) {
    transition = string_at(*existing, "lastTransitionTime");
    if (string_at(*existing, "reason") == c.reason &&
        string_at(*existing, "message") == c.message) {
      update = string_at(*existing, "lastUpdateTime");
    }
  }
  bj::object next{{"type", c.type}, {"status", c.status}};
  if (style == ConditionStyle::Pod) next["lastProbeTime"] = nullptr;
  if (style == ConditionStyle::Deployment) next["lastUpdateTime"] = update;
  if (style == ConditionStyle::Meta) next["observedGeneration"] = observed_generation;
  next["lastTransitionTime"] = transition;
  if (!c.reason.empty()) next["reason"] = c.reason;
  if (!c.message.empty() || style == ConditionStyle::Meta) next["message"] = c.message;
  if (existing) {
    if (*existing == next) return false;
    *existing = std::move(next);
  } else {
    conditions.push_back(std::move(next));
  }
  return true;
}

std::string condition_status(const bj::object& object, const std::string& type) {
  const bj::value* conditions = find_path(object, "status.conditions");
  if (!conditions || !conditions->is_array()) return "";
  for (const bj::value& v : conditions->as_array()) {
    if (v.is_object() && string_at(v.as_object(), "type") == type) {
      return string_at(v.as_object(), "status");
    }
  }
  return "";
}

std::optional<JobFinished> job_finished(const bj::object& job) {
  const bj::value* conditions = find_path(job, "status.conditions");
  if (!conditions || !conditions->is_array()) return std::nullopt;
  for (const bj::value& v : conditions->as_array()) {
    if (!v.is_object() || string_at(v.as_object(), "status") != "True") continue;
    std::string type = string_at(v.as_object(), "type");
    if (type == "Complete" || type == "Failed") {
      return JobFinished{type, string_at(v.as_object(), "lastTransitionTime")};
    }
  }
  return std::nullopt;
}

}  // namespace tailor::embedded
