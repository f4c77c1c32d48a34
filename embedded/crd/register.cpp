// CRDs in the REST handler: defaulting and validation of CustomResourceDefinitions, and of custom
// objects their structural schema (pruning, defaults, validation) as admission plugins.
#include <algorithm>
#include <utility>

#include "embedded/api/apply_patch.h"
#include "embedded/api/field_validation.h"
#include "embedded/api/resources.h"
#include "embedded/crd/custom_resources.h"
#include "embedded/crd/ratcheting.h"
#include "embedded/crd/rules.h"
#include "embedded/crd/schema.h"
#include "embedded/server/features.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

bool is_crd(const ResourceInfo& r) {
  return r.group == "apiextensions.k8s.io" && r.resource == "customresourcedefinitions";
}

void check_immutable(const bj::object& next, const bj::object& old, std::string_view path,
                     std::vector<FieldCause>& causes) {
  std::string now = string_at(next, path);
  if (now != string_at(old, path)) {
    causes.push_back({"FieldValueInvalid", "Invalid value: \"" + now + "\": field is immutable",
                      std::string(path)});
  }
}

void admit_definition(AdmissionRequest& request) {
  if (!is_crd(request.resource) || request.subresource == "status") return;
  crd::default_definition(request.object);
  if (request.operation == AdmissionOperation::Create) request.object.erase("status");
  std::vector<FieldCause> causes = crd::validation_errors(request.object);
  if (request.old_object) {
    check_immutable(request.object, *request.old_object, "spec.group", causes);
    check_immutable(request.object, *request.old_object, "spec.names.plural", causes);
  }
  if (!causes.empty()) {
    throw invalid("apiextensions.k8s.io", "CustomResourceDefinition",
                  meta_string(request.object, "name"), std::move(causes));
  }
}

const bj::object* schema_for(const crd::CustomResources& crds, const AdmissionRequest& request,
                             std::shared_ptr<const crd::Definition>& holder) {
  if (is_builtin(request.resource)) return nullptr;
  holder = crds.definition(request.resource);
  const crd::Version* v = holder ? holder->version(request.resource.version) : nullptr;
  return v ? v->schema.get() : nullptr;
}

}  // namespace

void add_custom_resources(ApiExtensions& extensions, ObjectStore& store) {
  auto crds = std::make_shared<crd::CustomResources>(store);
  crds->start(crds);
  extensions.mutating.push_back([crds](AdmissionRequest& request) {
    if (is_crd(request.resource)) return admit_definition(request);
    std::shared_ptr<const crd::Definition> d;
    const bj::object* schema = schema_for(*crds, request, d);
    if (!schema) return;
    // With a status subresource, status is written only through it (ignored on create).
    if (request.operation == AdmissionOperation::Create &&
        request.resource.has_subresource("status")) {
      request.object.erase("status");
    }
    if (request.apply_patch) {
      bj::object typed = *request.apply_patch;
      check_pruned_apply_fields(crd::prune(typed, *schema), *request.apply_patch);
    }
    // A patch's Strict error quotes the patched object, before pruning.
    bool quote = request.patch && request.field_validation == FieldValidation::Strict;
    std::string patched = quote ? bj::serialize(request.object) : "";
    std::vector<std::string> unknown = crd::prune(request.object, *schema);
    std::sort(unknown.begin(), unknown.end());
    // The request's repeated keys first, then the pruned fields: Strict throws kube-apiserver's
    // "strict decoding error"; Warn returns Warning headers.
    std::vector<std::string> errors = std::exchange(request.strict_errors, {});
    for (std::string& e : unknown_field_errors(unknown)) errors.push_back(std::move(e));
    std::vector<std::string> warnings =
        request.patch ? report_patch_errors(errors, request.field_validation, patched)
                      : report_decoding_errors(request.resource, errors, request.field_validation);
    request.warnings.insert(request.warnings.end(), warnings.begin(), warnings.end());
    crd::apply_defaults(request.object, *schema);
  });
  extensions.validating.push_back([crds](AdmissionRequest& request) {
    std::shared_ptr<const crd::Definition> d;
    const bj::object* schema = schema_for(*crds, request, d);
    if (!schema) return;
    std::vector<FieldCause> causes = crd::violations(request.object, *schema);
    crd::ratchet(causes, request.object, request.old_object);
    crd::append_rule_violations(causes, request.object, request.old_object, *schema);
    if (!causes.empty()) {
      throw invalid(d->group, d->kind, meta_string(request.object, "name"), std::move(causes));
    }
  });
}

}  // namespace tailor::embedded
