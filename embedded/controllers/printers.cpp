// kubectl's columns for the workload kinds and PodDisruptionBudgets, as kube-apiserver's
// printers fill them.
#include <boost/json.hpp>
#include <map>
#include <optional>

#include "embedded/api/tables.h"
#include "embedded/controllers/conditions.h"
#include "embedded/controllers/objects.h"

namespace tailor::embedded {
namespace {

const Column kName = name_column();
const Column kAge = age_column();

Column text(std::string name, std::string description, int priority = 0) {
  return {std::move(name), "string", "", std::move(description), priority};
}
Column number(std::string name, std::string description) {
  return {std::move(name), "integer", "", std::move(description), 0};
}

const Column kContainers = text("Containers", "Names of each container in the template.", 1);
const Column kImages = text("Images", "Images referenced by each container in the template.", 1);
const Column kSelector = text("Selector", "Label selector for the pods the object targets.", 1);

// Comma-joined names and images of the template's containers.
std::pair<std::string, std::string> containers_and_images(const bj::object& pod_spec) {
  std::string names, images;
  if (const bj::value* cs = pod_spec.if_contains("containers"); cs && cs->is_array()) {
    for (const bj::value& c : cs->as_array()) {
      if (!c.is_object()) continue;
      names += (names.empty() ? "" : ",") + string_at(c.as_object(), "name");
      images += (images.empty() ? "" : ",") + string_at(c.as_object(), "image");
    }
  }
  return {names, images};
}

std::string selector_text(const bj::object& o) {
  const bj::value* s = find_path(o, "spec.selector");
  if (!s) return "<none>";
  try {
    std::string t = label_selector_string(*s);
    return t.empty() ? "<none>" : t;
  } catch (const std::invalid_argument&) {
    return "<error>";
  }
}

// Containers, images and selector: the -o wide tail of every workload row.
void wide_tail(bj::array& row, const bj::object& o, std::string_view template_spec) {
  auto [names, images] = containers_and_images(object_at(o, template_spec));
  row.emplace_back(names);
  row.emplace_back(images);
  row.emplace_back(selector_text(o));
}

std::int64_t status_int(const bj::object& o, std::string_view field) {
  return int_at(o, std::string("status.") + std::string(field), 0);
}

bj::array deployment_row(const bj::object& d, kube::TimePoint now) {
  bj::array row{meta_string(d, "name"),
                std::to_string(status_int(d, "readyReplicas")) + "/" +
                    std::to_string(int_at(d, "spec.replicas", 1)),
                status_int(d, "updatedReplicas"), status_int(d, "availableReplicas"),
                age_cell(d, now)};
  wide_tail(row, d, "spec.template.spec");
  return row;
}

bj::array replicaset_row(const bj::object& rs, kube::TimePoint now) {
  bj::array row{meta_string(rs, "name"), int_at(rs, "spec.replicas", 1), status_int(rs, "replicas"),
                status_int(rs, "readyReplicas"), age_cell(rs, now)};
  wide_tail(row, rs, "spec.template.spec");
  return row;
}

bj::array statefulset_row(const bj::object& s, kube::TimePoint now) {
  auto [names, images] = containers_and_images(object_at(s, "spec.template.spec"));
  return {meta_string(s, "name"),
          std::to_string(status_int(s, "readyReplicas")) + "/" +
              std::to_string(int_at(s, "spec.replicas", 1)),
          age_cell(s, now), names, images};
}

bj::array daemonset_row(const bj::object& ds, kube::TimePoint now) {
  bj::array row{meta_string(ds, "name"),
                status_int(ds, "desiredNumberScheduled"),
                status_int(ds, "currentNumberScheduled"),
                status_int(ds, "numberReady"),
                status_int(ds, "updatedNumberScheduled"),
                status_int(ds, "numberAvailable"),
                format_labels(find_path(ds, "spec.template.spec.nodeSelector")),
                age_cell(ds, now)};
  wide_tail(row, ds, "spec.template.spec");
  return row;
}

// printJob's STATUS: Complete, then Failed (job_finished: kube-apiserver refuses a Job with both
// True, "cannot set Complete=True and Failed=true conditions", so its first True one is printJob's
// answer), then Terminating, then the Suspended, FailureTarget and SuccessCriteriaMet conditions,
// each decided by the first condition of its type as printJob's hasJobCondition does.
std::string job_status(const bj::object& job) {
  if (std::optional<JobFinished> finished = job_finished(job)) return finished->type;
  const bj::value* deletion = find_path(job, "metadata.deletionTimestamp");
  if (deletion && !deletion->is_null()) return "Terminating";
  for (const char* type : {"Suspended", "FailureTarget", "SuccessCriteriaMet"}) {
    if (condition_status(job, type) == "True") return type;
  }
  return "Running";
}

std::string job_duration(const bj::object& job, kube::TimePoint now) {
  auto start = kube::try_parse_rfc3339(string_at(job, "status.startTime"));
  if (!start) return "";
  auto end = kube::try_parse_rfc3339(string_at(job, "status.completionTime"));
  return human_duration((end ? *end : now) - *start);
}

bj::array job_row(const bj::object& job, kube::TimePoint now) {
  std::string completions = int_at(job, "spec.completions", -1) >= 0
                                ? std::to_string(status_int(job, "succeeded")) + "/" +
                                      std::to_string(int_at(job, "spec.completions", 1))
                                : std::to_string(status_int(job, "succeeded")) + "/1 of " +
                                      std::to_string(int_at(job, "spec.parallelism", 1));
  bj::array row{meta_string(job, "name"), job_status(job), completions, job_duration(job, now),
                age_cell(job, now)};
  wide_tail(row, job, "spec.template.spec");
  return row;
}

bj::array cronjob_row(const bj::object& cj, kube::TimePoint now) {
  std::string last = "<none>";
  if (auto t = kube::try_parse_rfc3339(string_at(cj, "status.lastScheduleTime"))) {
    last = human_duration(now - *t);
  }
  std::size_t active = 0;
  if (const bj::value* a = find_path(cj, "status.active"); a && a->is_array()) {
    active = a->as_array().size();
  }
  const bj::value* suspend = find_path(cj, "spec.suspend");
  std::string zone = string_at(cj, "spec.timeZone");
  auto [names, images] =
      containers_and_images(object_at(cj, "spec.jobTemplate.spec.template.spec"));
  const bj::value* selector = find_path(cj, "spec.jobTemplate.spec.selector");
  std::string sel = selector ? label_selector_string(*selector) : "";
  return {meta_string(cj, "name"),
          string_at(cj, "spec.schedule"),
          zone.empty() ? "<none>" : zone,
          suspend && suspend->is_bool() && suspend->as_bool() ? "True" : "False",
          active,
          last,
          age_cell(cj, now),
          names,
          images,
          sel.empty() ? "<none>" : sel};
}

std::string int_or_string(const bj::object& o, std::string_view path) {
  const bj::value* v = find_path(o, path);
  if (!v || v->is_null()) return "N/A";
  if (v->is_string()) return std::string(v->as_string());
  return bj::serialize(*v);
}

bj::array pdb_row(const bj::object& pdb, kube::TimePoint now) {
  return {meta_string(pdb, "name"), int_or_string(pdb, "spec.minAvailable"),
          int_or_string(pdb, "spec.maxUnavailable"), status_int(pdb, "disruptionsAllowed"),
          age_cell(pdb, now)};
}

const std::map<std::string, Printer>& printers() {
  static const std::map<std::string, Printer> kPrinters = {
      {"deployments.apps",
       {{kName, text("Ready", "Number of the pod with ready state"),
         number("Up-to-date",
                "Total number of non-terminated pods targeted by this deployment "
                "that have the desired template spec."),
         number("Available",
                "Total number of available pods (ready for at least "
                "minReadySeconds) targeted by this deployment."),
         kAge, kContainers, kImages, kSelector},
        deployment_row}},
      {"replicasets.apps",
       {{kName, number("Desired", "Number of desired pods."),
         number("Current", "Number of actual replicas observed by the controller."),
         number("Ready", "Number of pods targeted by this ReplicaSet with a Ready condition."),
         kAge, kContainers, kImages, kSelector},
        replicaset_row}},
      {"statefulsets.apps",
       {{kName, text("Ready", "Number of the pod with ready state"), kAge, kContainers, kImages},
        statefulset_row}},
      {"daemonsets.apps",
       {{kName, number("Desired", "Number of nodes that should run the daemon pod."),
         number("Current", "Number of nodes running at least one daemon pod that should."),
         number("Ready", "Number of nodes running a ready daemon pod."),
         number("Up-to-date", "Number of nodes running the updated daemon pod."),
         number("Available", "Number of nodes running an available daemon pod."),
         text("Node Selector", "Which nodes the daemon pod is for, by their labels."), kAge,
         kContainers, kImages, kSelector},
        daemonset_row}},
      {"jobs.batch",
       {{kName, text("Status", "Status of the job."),
         text("Completions",
              "The desired number of successfully finished pods the job should "
              "be run with."),
         text("Duration", "Time required to complete the job."), kAge, kContainers, kImages,
         kSelector},
        job_row}},
      {"cronjobs.batch",
       {{kName, text("Schedule", "The schedule in Cron format."),
         text("Timezone", "The time zone name for the given schedule."),
         text("Suspend", "Whether subsequent executions are suspended."),
         number("Active", "The number of currently running jobs."),
         text("Last Schedule", "When the job was last successfully scheduled."), kAge, kContainers,
         kImages, kSelector},
        cronjob_row}},
      {"poddisruptionbudgets.policy",
       {{kName, text("Min Available", "The minimum number of pods that must be available."),
         text("Max Unavailable", "The maximum number of pods that may be unavailable."),
         number("Allowed Disruptions", "Number of pod disruptions that are currently allowed."),
         kAge},
        pdb_row}},
  };
  return kPrinters;
}

}  // namespace

const Printer* workload_printer(const ResourceInfo& resource) {
  auto it = printers().find(resource.resource + "." + resource.group);
  return it == printers().end() ? nullptr : &it->second;
}

}  // namespace tailor::embedded
