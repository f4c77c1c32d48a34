#include "embedded/controllers/cronjob_validation.h"

#include <boost/json.hpp>
#include <regex>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/cron_schedule.h"
#include "embedded/controllers/handlers.h"
#include "embedded/controllers/objects.h"

namespace tailor::embedded {
namespace {

// IANA's naming rules for a path component, with the digits and '+' of legacy names.
bool valid_zone_part(const std::string& part) {
  static const std::regex kPart("^[A-Za-z.\\-_0-9+]{1,14}$");
  return part != "." && part != ".." && !part.starts_with("-") && std::regex_match(part, kPart);
}

bool equal_fold(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string quoted(const std::string& value) { return "\"" + value + "\""; }

// validateScheduleFormat: robfig's parse error, and no TZ in the schedule unless the stored one
// had it already (then not together with spec.timeZone).
void schedule_causes(const std::string& schedule, bool allow_tz, bool has_zone,
                     std::vector<FieldCause>& causes) {
  std::string error;
  if (!CronSchedule::parse(schedule, &error)) {
    causes.push_back({"FieldValueInvalid", "Invalid value: " + quoted(schedule) + ": " + error,
                      "spec.schedule"});
  }
  bool tz = schedule.find("TZ") != std::string::npos;
  const char* why = !tz         ? nullptr
                    : !allow_tz ? "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
                    : has_zone  ? "cannot use both timeZone field and TZ or CRON_TZ in schedule"
                                : nullptr;
  if (why) {
    causes.push_back(
        {"FieldValueInvalid", "Invalid value: " + quoted(schedule) + ": " + why, "spec.schedule"});
  }
}

const bj::value* time_zone_of(const bj::object& cronjob) {
  const bj::value* zone = find_path(cronjob, "spec.timeZone");
  return zone && zone->is_string() ? zone : nullptr;
}

}  // namespace

std::vector<std::string> time_zone_problems(const std::string& zone) {
  if (zone.empty()) return {"timeZone must be nil or non-empty string"};
  std::size_t start = 0;
  for (std::size_t slash = 0; slash != std::string::npos; start = slash + 1) {
    slash = zone.find('/', start);
    if (!valid_zone_part(zone.substr(start, slash - start))) return {"unknown time zone " + zone};
  }
  std::vector<std::string> problems;
  if (equal_fold(zone, "Local")) {
    problems.emplace_back(
        "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones");
  }
  std::string error;
  if (!TimeZone::load(zone, &error)) problems.push_back(error);
  return problems;
}

void validate_cronjob_schedule(AdmissionRequest& request) {
  const ResourceInfo& r = request.resource;
  if (!request.subresource.empty() || r.group != "batch" || r.resource != "cronjobs") return;
  const bj::object* old = request.old_object;
  std::string schedule = string_at(request.object, "spec.schedule");
  const bj::value* zone = time_zone_of(request.object);
  std::vector<FieldCause> causes;
  if (schedule.empty()) {
    causes.push_back({"FieldValueRequired", "Required value", "spec.schedule"});
  } else {
    bool allow_tz = old && string_at(*old, "spec.schedule").find("TZ") != std::string::npos;
    schedule_causes(schedule, allow_tz, zone != nullptr, causes);
  }
  // Checked when set on create, or changed by an update.
  const bj::value* old_zone = old ? time_zone_of(*old) : nullptr;
  bool changed = !old || !zone != !old_zone || (zone && *zone != *old_zone);
  if (zone && changed) {
    std::string name(zone->as_string());
    for (const std::string& problem : time_zone_problems(name)) {
      causes.push_back({"FieldValueInvalid", "Invalid value: " + quoted(name) + ": " + problem,
                        "spec.timeZone"});
    }
  }
  if (!causes.empty()) throw invalid(r.group, r.kind, meta_string(request.object, "name"), causes);
}

}  // namespace tailor::embedded
