// Private to controllers/: CronJob spec.schedule and spec.timeZone as kube-apiserver validates
// them (pkg/apis/batch/validation validateScheduleFormat, validateTimeZone).
#pragma once

#include <string>
#include <vector>

namespace tailor::embedded {

// What is wrong with a spec.timeZone, in upstream's words ("unknown time zone Mars/Olympus");
// empty when it names a zone.
std::vector<std::string> time_zone_problems(const std::string& zone);

}  // namespace tailor::embedded
