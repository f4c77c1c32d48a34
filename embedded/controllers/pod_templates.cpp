#include "embedded/controllers/pod_templates.h"

#include "embedded/controllers/objects.h"

namespace tailor::embedded {

bj::object pod_from_template(const bj::object& owner, const ResourceInfo& owner_resource,
                             const std::string& generate_name, const std::string& name) {
  const bj::object& tmpl = object_at(owner, "spec.template");
  bj::object meta{{"namespace", meta_string(owner, "namespace")}};
  if (name.empty()) {
    meta["generateName"] = generate_name;
  } else {
    meta["name"] = name;
  }
  for (std::string_view field : {"labels", "annotations", "finalizers"}) {
    if (const bj::value* v = find_path(tmpl, std::string("metadata.") + std::string(field))) {
      meta[field] = *v;
    }
  }
  meta["ownerReferences"] = bj::array{controller_reference(owner_resource, owner)};
  const bj::value* spec = tmpl.if_contains("spec");
  return bj::object{{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata", std::move(meta)},
                    {"spec", spec ? *spec : bj::object{}}};
}

std::int64_t pod_grace_seconds(const bj::object& pod) {
  std::string phase = string_at(pod, "status.phase");
  if (string_at(pod, "spec.nodeName").empty() || phase == "Succeeded" || phase == "Failed") {
    return 0;
  }
  return int_at(pod, "spec.terminationGracePeriodSeconds", 30);
}

bj::value template_without_label(const bj::object& pod_template, const std::string& label) {
  bj::object copy = pod_template;
  if (bj::value* meta = copy.if_contains("metadata"); meta && meta->is_object()) {
    if (bj::value* labels = meta->as_object().if_contains("labels");
        labels && labels->is_object()) {
      labels->as_object().erase(label);
    }
  }
  return copy;
}

}  // namespace tailor::embedded
