// Defaulting and selector validation of the workload kinds (apps/v1, batch/v1), as
// kube-apiserver applies them to every create and update.
#include <boost/json.hpp>

#include "embedded/api/pod_validation.h"
#include "embedded/api/rest.h"
#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/handlers.h"
#include "embedded/controllers/objects.h"

namespace tailor::embedded {
namespace {

// The pod defaults (restartPolicy, dnsPolicy, container defaults, ...) applied to a template.
void default_template(bj::object& tmpl) {
  bj::object pod{{"spec", tmpl.contains("spec") ? tmpl["spec"] : bj::object{}}};
  apply_create_defaults(pods_resource(), pod);
  tmpl["spec"] = std::move(pod["spec"]);
}

void default_rolling_strategy(bj::object& spec, std::string_view field, const char* type_default,
                              bj::object rolling_defaults) {
  bj::object& strategy = object_field(spec, field);
  fill(strategy, "type", type_default);
  if (strategy.at("type") != "RollingUpdate") return;
  bj::object& rolling = object_field(strategy, "rollingUpdate");
  for (auto& [k, v] : rolling_defaults) fill(rolling, k, v);
}

void default_apps(const std::string& resource, bj::object& spec) {
  if (resource != "daemonsets") fill(spec, "replicas", 1);
  fill(spec, "revisionHistoryLimit", 10);
  if (resource == "deployments") {
    fill(spec, "progressDeadlineSeconds", 600);
    default_rolling_strategy(spec, "strategy", "RollingUpdate",
                             {{"maxUnavailable", "25%"}, {"maxSurge", "25%"}});
  } else if (resource == "statefulsets") {
    fill(spec, "podManagementPolicy", "OrderedReady");
    default_rolling_strategy(spec, "updateStrategy", "RollingUpdate", {{"partition", 0}});
    fill(spec, "persistentVolumeClaimRetentionPolicy",
         bj::object{{"whenDeleted", "Retain"}, {"whenScaled", "Retain"}});
  } else if (resource == "daemonsets") {
    default_rolling_strategy(spec, "updateStrategy", "RollingUpdate",
                             {{"maxUnavailable", 1}, {"maxSurge", 0}});
  } else if (resource == "replicasets") {
    spec.erase("revisionHistoryLimit");
  }
  default_template(object_field(spec, "template"));
}

void default_job(bj::object& spec) {
  // Both unset (a non-parallel Job): both 1; otherwise only parallelism defaults.
  if (!spec.contains("completions") && !spec.contains("parallelism")) fill(spec, "completions", 1);
  fill(spec, "parallelism", 1);
  fill(spec, "backoffLimit", 6);
  fill(spec, "completionMode", "NonIndexed");
  fill(spec, "suspend", false);
  fill(spec, "podReplacementPolicy", "TerminatingOrFailed");
  fill(spec, "manualSelector", nullptr);
  if (spec.at("manualSelector").is_null()) spec.erase("manualSelector");
  default_template(object_field(spec, "template"));
}

// generateSelector (the Job strategy): unless manualSelector, a Job selects its pods by its uid
// and its template carries the Job's labels. The uid is chosen here, before storage (which keeps
// a uid admission chose), because the selector is stored with the Job.
void generate_job_selector(bj::object& job) {
  bj::object& spec = object_field(job, "spec");
  const bj::value* manual = spec.if_contains("manualSelector");
  if (manual && manual->is_bool() && manual->as_bool()) return;
  bj::object& meta = object_field(job, "metadata");
  if (meta_string(job, "uid").empty()) meta["uid"] = new_uid();
  std::string uid = meta_string(job, "uid");
  std::string name = meta_string(job, "name");
  bj::object& labels =
      object_field(object_field(object_field(spec, "template"), "metadata"), "labels");
  labels["batch.kubernetes.io/controller-uid"] = uid;
  labels["batch.kubernetes.io/job-name"] = name;
  labels["controller-uid"] = uid;
  labels["job-name"] = name;
  if (!spec.contains("selector")) {
    spec["selector"] =
        bj::object{{"matchLabels", bj::object{{"batch.kubernetes.io/controller-uid", uid}}}};
  }
}

void default_cronjob(bj::object& spec) {
  fill(spec, "concurrencyPolicy", "Allow");
  fill(spec, "suspend", false);
  fill(spec, "successfulJobsHistoryLimit", 3);
  fill(spec, "failedJobsHistoryLimit", 1);
  default_job(object_field(object_field(spec, "jobTemplate"), "spec"));
}

bool is_workload(const ResourceInfo& r) {
  if (r.group == "apps") {
    return r.resource == "deployments" || r.resource == "replicasets" ||
           r.resource == "statefulsets" || r.resource == "daemonsets";
  }
  return r.group == "batch" && (r.resource == "jobs" || r.resource == "cronjobs");
}

}  // namespace

void default_workload(AdmissionRequest& request) {
  const ResourceInfo& r = request.resource;
  if (!request.subresource.empty() || !is_workload(r)) return;
  bj::object& spec = object_field(request.object, "spec");
  if (r.group == "apps") {
    default_apps(r.resource, spec);
  } else if (r.resource == "jobs") {
    default_job(spec);
    if (request.operation == AdmissionOperation::Create) generate_job_selector(request.object);
  } else {
    default_cronjob(spec);
  }
}

// ValidatePodTemplateSpec: the template's containers as a pod's (a workload whose pods would be
// refused is refused itself, naming the template's fields).
void validate_workload_template(AdmissionRequest& request) {
  const ResourceInfo& r = request.resource;
  if (!request.subresource.empty() || !is_workload(r)) return;
  const std::string prefix =
      r.resource == "cronjobs" ? "spec.jobTemplate.spec.template." : "spec.template.";
  const bj::value* tmpl = find_path(request.object, prefix.substr(0, prefix.size() - 1));
  static const bj::object kEmpty;
  std::vector<FieldCause> errors =
      validate_pod_spec(tmpl && tmpl->is_object() ? tmpl->as_object() : kEmpty, prefix);
  if (!errors.empty()) {
    throw invalid(r.group, r.kind, meta_string(request.object, "name"), std::move(errors));
  }
}

void validate_workload_selector(AdmissionRequest& request) {
  const ResourceInfo& r = request.resource;
  if (!request.subresource.empty() || r.group != "apps" || !is_workload(r)) return;
  const bj::object& o = request.object;
  const bj::value* selector = find_path(o, "spec.selector");
  std::string name = meta_string(o, "name");
  if (!selector || !selector->is_object()) {
    throw invalid(r.group, r.kind, name,
                  {{"FieldValueRequired", "Required value", "spec.selector"}});
  }
  std::string text;
  try {
    text = label_selector_string(*selector);
  } catch (const std::invalid_argument& e) {
    throw invalid(r.group, r.kind, name,
                  {{"FieldValueInvalid", std::string("Invalid value: ") + e.what(),
                    "spec.selector.matchExpressions"}});
  }
  if (text.empty()) {
    throw invalid(r.group, r.kind, name,
                  {{"FieldValueInvalid",
                    "Invalid value: \"{}\": empty selector is invalid for "
                    "deployment",
                    "spec.selector"}});
  }
  bj::object probe{{"metadata", object_at(o, "spec.template.metadata")}};
  if (!selector_matches(selector, probe)) {
    throw invalid(
        r.group, r.kind, name,
        {{"FieldValueInvalid",
          "Invalid value: " + format_labels(find_path(o, "spec.template.metadata.labels")) +
              ": `selector` does not match template `labels`",
          "spec.template.metadata.labels"}});
  }
}

}  // namespace tailor::embedded
