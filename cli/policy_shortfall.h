// CPU shortfall of the policy rows in the last day, from the series the controller itself
// exports (controller/app/workload_series.h): the increase over 24 h of
// tailor_workload_cpu_shortfall_core_seconds_total (CPU used beyond the request, core-seconds)
// per namespace, target and container, read from the Prometheus that scrapes the controller.
// One source of truth with the controller's dashboard (issue 19); the API carries no usage.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cli/workload_report.h"

namespace tailor::cli {

// By shortfall_key(); core-seconds.
using ShortfallIndex = std::map<std::string, double>;
std::string shortfall_key(std::string_view ns, std::string_view target_kind,
                          std::string_view target_name, std::string_view container);

// The instant query: the increase over 1d per workload container (the largest where several
// controllers export it), in one namespace or all ("").
std::string shortfall_query(const std::string& ns);
// A /api/v1/query answer (a vector) into the index. Throws std::runtime_error saying what is
// wrong with it (not JSON, an error status, not a vector, a series without its labels).
ShortfallIndex parse_shortfall(std::string_view body);
// Each row's cpu_shortfall_last_day from the index; rows of no series stay unknown.
void attach_shortfall(std::vector<ContainerRow>& rows, const ShortfallIndex& index);

// The query against `address` (http(s)://host[:port][/prefix]). Throws std::runtime_error
// naming the address when Prometheus cannot be reached or answers with an error.
ShortfallIndex read_shortfall(const std::string& address, const std::string& ns,
                              std::chrono::milliseconds timeout);

}  // namespace tailor::cli
