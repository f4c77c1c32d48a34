// Server-side Tables (meta.k8s.io/v1 Table) for `kubectl get`: printer columns per kind, cells
// rendered by the server as kube-apiserver's printers do, ages in Kubernetes' short form.
#pragma once

#include <boost/json/fwd.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "embedded/storage/object_store.h"
#include "kube/model/time.h"

namespace tailor::embedded {

// k8s.io/apimachinery/pkg/util/duration.HumanDuration: "0s", "90s", "5m3s", "2d4h", "3y12d", ...
std::string human_duration(std::chrono::nanoseconds d);

// A printer: the columns of a kind and the cells of one object (as kube-apiserver's printers).
struct Column {
  std::string name;
  std::string type;  // "string", "integer", "date", ...
  std::string format;
  std::string description;
  int priority = 0;  // 0: shown by `kubectl get`; 1: only with -o wide
};
using Cells = std::function<boost::json::array(const boost::json::object&, kube::TimePoint)>;
struct Printer {
  std::vector<Column> columns;
  Cells cells;
};
Column name_column();
Column age_column();
boost::json::value age_cell(const boost::json::object& object, kube::TimePoint now);

// Events, Secrets, Services, ServiceAccounts, MutatingWebhookConfigurations
// (api/core_printers.cpp); nullptr for other resources.
const Printer* builtin_printer(const ResourceInfo& resource);
// Printers kept by feature folders; nullptr when the resource is not theirs.
const Printer* workload_printer(const ResourceInfo& resource);  // controllers/printers.cpp
const Printer* policy_printer(const ResourceInfo& resource);    // quota/printers.cpp
// HorizontalPodAutoscalers (controllers/horizontal_pod_autoscalers.cpp).
const Printer* autoscaler_printer(const ResourceInfo& resource);
// NetworkPolicies (controllers/network_policies.cpp).
const Printer* network_policy_printer(const ResourceInfo& resource);
// additionalPrinterColumns of a CRD (crd/printer.cpp).
const Printer* custom_resource_printer(const ResourceInfo& resource);

enum class IncludeObject { None, Metadata, Object };

struct TableRequest {
  IncludeObject include = IncludeObject::Metadata;
  bool column_definitions = true;  // watch events after the first leave them out
  kube::TimePoint now;
};

// Parses one stored object at a time, so a Table of a large list holds one tree at a time.
boost::json::object make_table(const ResourceInfo& resource, const std::vector<StoredPtr>& objects,
                               const TableRequest& request);
// A Table of objects a handler built (virtual resources such as metrics.k8s.io's), printed by
// `printer`.
boost::json::object make_table(const Printer& printer,
                               const std::vector<boost::json::object>& objects,
                               const TableRequest& request);

// The pod STATUS column ("Running", "CrashLoopBackOff", "Init:0/1", "Terminating", ...).
std::string pod_status_reason(const boost::json::object& pod);

}  // namespace tailor::embedded
