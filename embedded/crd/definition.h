// A CustomResourceDefinition (apiextensions.k8s.io/v1) as tailor-cluster serves it: defaulting and
// validation of the CRD object with kube-apiserver's messages, and what it defines (resource
// types per served version, schemas, printer columns).
#pragma once

#include <boost/json/fwd.hpp>
#include <memory>
#include <string>
#include <vector>

#include "embedded/storage/resource_info.h"
#include "embedded/storage/status_error.h"

namespace tailor::embedded::crd {

struct PrinterColumn {
  std::string name;
  std::string type;  // integer, number, string, boolean, date
  std::string format;
  std::string description;
  int priority = 0;
  std::string json_path;  // ".spec.replicas"
};

struct Version {
  std::string name;
  bool served = false;
  bool storage = false;
  std::shared_ptr<const boost::json::object> schema;  // openAPIV3Schema; never null once parsed
  bool status_subresource = false;
  std::vector<PrinterColumn> columns;  // Age when the CRD names none
};

struct Definition {
  std::string name;  // "<plural>.<group>"
  std::string group;
  std::string plural, singular, kind, list_kind;
  std::vector<std::string> short_names, categories;
  bool namespaced = true;
  std::vector<Version> versions;

  const Version* version(const std::string& name) const;
  // One per served version.
  std::vector<ResourceInfo> resource_infos() const;
};

// As the v1 defaulting: singular (lower-case kind), listKind (kind + "List"), conversion None.
void default_definition(boost::json::object& crd);
// The CRD's invalid fields (metadata.name, spec.group, scope, versions, names, schemas, printer
// columns); empty when valid.
std::vector<FieldCause> validation_errors(const boost::json::object& crd);
// What a valid (and defaulted) CRD defines.
Definition parse_definition(const boost::json::object& crd);

}  // namespace tailor::embedded::crd
