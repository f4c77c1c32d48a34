// Structural schemas of CustomResourceDefinitions (the OpenAPI v3 subset apiextensions.k8s.io/v1
// accepts, kept as JSON): the checks a CRD's schema must pass, and the pruning, defaulting and
// validation kube-apiserver applies to custom objects, with its field paths and messages.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <vector>

#include "embedded/storage/status_error.h"

namespace tailor::embedded::crd {

// Why schema (at path, e.g. "spec.versions[0].schema.openAPIV3Schema") is not structural.
std::vector<FieldCause> structural_errors(const boost::json::value& schema,
                                          const std::string& path);

// Drops fields the schema does not declare (unless x-kubernetes-preserve-unknown-fields); at the
// root apiVersion, kind and metadata stay. Returns the dropped paths, sorted
// ("spec.extra", "spec.items[0].extra"), for fieldValidation.
std::vector<std::string> prune(boost::json::object& object, const boost::json::object& schema);

// Fills absent fields (and nulls in non-nullable ones) from the schema's `default`s.
void apply_defaults(boost::json::object& object, const boost::json::object& schema);

// The violations of the schema by object (type, required, enum, minimum/maximum, pattern,
// nullable, items, additionalProperties), as 422 causes; metadata is not checked here.
std::vector<FieldCause> violations(const boost::json::object& object,
                                   const boost::json::object& schema);

}  // namespace tailor::embedded::crd
