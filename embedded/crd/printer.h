// Server-side Table columns of custom resources from the CRD's additionalPrinterColumns: the
// simple JSONPath kube-apiserver allows there, and cells typed as its table convertor types them
// (dates become ages).
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <vector>

#include "embedded/api/tables.h"
#include "embedded/crd/definition.h"

namespace tailor::embedded::crd {

// The values jsonPath (".spec.x", ".a[0].b", ".a[*].b", ".a[?(@.type==\"Ready\")].status")
// selects in object; throws std::invalid_argument for a path it cannot parse.
std::vector<boost::json::value> json_path_values(const boost::json::object& object,
                                                 const std::string& json_path);

// Name, then the columns.
Printer make_printer(const std::vector<PrinterColumn>& columns);

// The printer tables.cpp uses for resource from now on (kept for the life of the process).
void set_printer(const ResourceInfo& resource, const std::vector<PrinterColumn>& columns);

}  // namespace tailor::embedded::crd
