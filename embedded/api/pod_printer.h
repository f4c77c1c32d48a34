// Private to api/: the computed cells of a pod row.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <string>

#include "embedded/api/tables.h"

namespace tailor::embedded {

struct PodRow {
  std::string ready;  // "1/2"
  std::string status;
  std::int64_t restarts = 0;
  std::string restarts_text;  // "3 (5m ago)" when a restart time is known; else empty
};

PodRow pod_row(const boost::json::object& pod, kube::TimePoint now);

}  // namespace tailor::embedded
