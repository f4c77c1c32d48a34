// Server-side Table columns of resourcequotas and limitranges, as kube-apiserver's printers.
#include <boost/json.hpp>

#include "embedded/api/tables.h"
#include "embedded/resize/resource_json.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

// "requests.cpu: 500m/1, requests.memory: 0/1Gi" and the limits.* ones in their own column.
bj::array quota_cells(const bj::object& quota, kube::TimePoint now) {
  const bj::value* hard = find_path(quota, "status.hard");
  const bj::value* used = find_path(quota, "status.used");
  std::string request, limit;
  if (hard && hard->is_object()) {
    kube::ResourceList used_list = resource_list(used, "status.used");
    for (const auto& [name, q] : resource_list(hard, "status.hard")) {
      const kube::Quantity* u = find_resource(used_list, name);
      std::string& column = name.starts_with("limits.") ? limit : request;
      if (!column.empty()) column += ", ";
      column += name + ": " + (u ? u->to_string() : "0") + "/" + q.to_string();
    }
  }
  return {meta_string(quota, "name"), age_cell(quota, now), request, limit};
}

bj::array limit_range_cells(const bj::object& limit_range, kube::TimePoint) {
  return {meta_string(limit_range, "name"), meta_string(limit_range, "creationTimestamp")};
}

const Printer kQuotaPrinter{
    {name_column(),
     age_column(),
     {"Request", "string", "",
      "Request represents a minimum amount of cpu/memory that a container may consume.", 0},
     {"Limit", "string", "",
      "Limits control the maximum amount of cpu/memory that a container may use independent of "
      "contention on the node.",
      0}},
    quota_cells};

const Printer kLimitRangePrinter{
    {name_column(),
     {"Created At", "date", "",
      "CreationTimestamp is a timestamp representing the server time when this object was "
      "created.",
      0}},
    limit_range_cells};

}  // namespace

const Printer* policy_printer(const ResourceInfo& resource) {
  if (!resource.group.empty()) return nullptr;
  if (resource.resource == "resourcequotas") return &kQuotaPrinter;
  if (resource.resource == "limitranges") return &kLimitRangePrinter;
  return nullptr;
}

}  // namespace tailor::embedded
