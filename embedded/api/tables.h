// Server-side Tables (meta.k8s.io/v1 Table) for `kubectl get`: printer columns per kind, cells
// rendered by the server as kube-apiserver's printers do, ages in Kubernetes' short form.
#pragma once

#include <boost/json/fwd.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "controller/kube/model/time.h"
#include "embedded/storage/object_store.h"

namespace tailor::kube::embedded {

// k8s.io/apimachinery/pkg/util/duration.HumanDuration: "0s", "90s", "5m3s", "2d4h", "3y12d", ...
std::string human_duration(std::chrono::nanoseconds d);

enum class IncludeObject { None, Metadata, Object };

struct TableRequest {
  IncludeObject include = IncludeObject::Metadata;
  bool column_definitions = true;  // watch events after the first leave them out
  TimePoint now;
};

boost::json::object make_table(const ResourceInfo& resource, const std::vector<ObjectPtr>& objects,
                               const TableRequest& request);

// The pod STATUS column ("Running", "CrashLoopBackOff", "Init:0/1", "Terminating", ...).
std::string pod_status_reason(const boost::json::object& pod);

}  // namespace tailor::kube::embedded
