// The CronJob controller: creates a Job from spec.jobTemplate at each activation of the schedule
// (the latest one missed since status.lastScheduleTime, within startingDeadlineSeconds), under
// concurrencyPolicy Allow / Forbid / Replace and suspend; keeps status.active and
// lastSuccessfulTime; deletes finished Jobs beyond the history limits. The schedule is read on
// the wall clock of spec.timeZone (UTC without one). Decisions in cron_schedule. Time moves on,
// so every resync looks again.
#include <algorithm>
#include <boost/json.hpp>
#include <set>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/conditions.h"
#include "embedded/controllers/cron_schedule.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::embedded {
namespace {

constexpr const char* kScheduledAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp";

// A Job the CronJob owns, with its finished condition read once per pass.
struct OwnedJob {
  ObjectPtr job;
  std::optional<JobFinished> finished;
};

bj::object job_reference(const bj::object& job) {
  return {{"kind", "Job"},
          {"namespace", meta_string(job, "namespace")},
          {"name", meta_string(job, "name")},
          {"uid", meta_string(job, "uid")},
          {"apiVersion", "batch/v1"},
          {"resourceVersion", meta_string(job, "resourceVersion")}};
}

bool suspended(const bj::object& cronjob) {
  const bj::value* s = find_path(cronjob, "spec.suspend");
  return s && s->is_bool() && s->as_bool();
}

class CronJobController : public WatchLoop {
 public:
  CronJobController(ObjectStore& store, SharedExtensions extensions)
      : WatchLoop(store, {&cronjobs(), &jobs()}),
        extensions_(std::move(extensions)),
        events_(store, "cronjob-controller") {}

 protected:
  void reconcile() override {
    std::map<std::string, std::vector<ObjectPtr>> owned;  // by owner uid
    for (const auto& [key, job] : cached(jobs())) {
      if (auto ref = controller_of(*job); ref && ref->kind == "CronJob") {
        owned[ref->uid].push_back(job);
      }
    }
    std::vector<ObjectPtr> list;
    for (const auto& [key, cj] : cached(cronjobs())) list.push_back(cj);
    for (const ObjectPtr& cj : list) {
      if (is_terminating(*cj)) continue;
      try {
        sync(*cj, owned[meta_string(*cj, "uid")]);
      } catch (const std::exception&) {
        // Looked at again on the next pass.
      }
    }
  }

 private:
  static const ResourceInfo& cronjobs() {
    static const ResourceInfo& r = resource_named("batch", "cronjobs");
    return r;
  }
  static const ResourceInfo& jobs() {
    static const ResourceInfo& r = resource_named("batch", "jobs");
    return r;
  }

  void sync(const bj::object& cj, const std::vector<ObjectPtr>& owned) {
    std::vector<OwnedJob> live;  // not going
    std::vector<ObjectPtr> active;
    std::optional<kube::TimePoint> last_success;
    for (const ObjectPtr& job : owned) {
      if (is_terminating(*job)) continue;
      live.push_back({job, job_finished(*job)});
      if (!live.back().finished) {
        active.push_back(job);
        continue;
      }
      auto done = kube::try_parse_rfc3339(string_at(*job, "status.completionTime"));
      if (live.back().finished->type == "Complete" && done &&
          (!last_success || *done > *last_success)) {
        last_success = done;
      }
    }
    remove_old_jobs(cj, live);
    std::optional<kube::TimePoint> scheduled = due_activation(cj);
    if (scheduled && !suspended(cj)) {
      CronAction action = cron_action(
          parse_concurrency_policy(string_at(cj, "spec.concurrencyPolicy")), active.size());
      if (action == CronAction::SkipForbidden) {
        // Once per activation; tried again at the next pass, while it is still due.
        if (forbidden_.insert(meta_string(cj, "uid") + kube::format_rfc3339(*scheduled)).second) {
          events_.record(cj, "Normal", "JobAlreadyActive",
                         "Not starting job because prior execution is running and concurrency "
                         "policy is Forbid");
        }
        scheduled.reset();
      } else {
        if (action == CronAction::ReplaceThenCreate) replace(cj, active);
        if (ObjectPtr job = create_job(cj, *scheduled)) active.push_back(job);
      }
    }
    update_status(cj, active, scheduled, last_success);
  }

  // The latest activation missed since the last one (or since creation), if still within
  // startingDeadlineSeconds.
  std::optional<kube::TimePoint> due_activation(const bj::object& cj) {
    auto schedule = CronSchedule::parse(schedule_of(cj));
    if (!schedule) return std::nullopt;
    auto earliest = kube::try_parse_rfc3339(string_at(cj, "status.lastScheduleTime"));
    if (!earliest) earliest = kube::try_parse_rfc3339(meta_string(cj, "creationTimestamp"));
    if (!earliest) return std::nullopt;
    kube::TimePoint now = system_now();
    MissedSchedules missed = missed_schedules(*schedule, *earliest, now);
    if (!missed.most_recent) return std::nullopt;
    if (const bj::value* d = find_path(cj, "spec.startingDeadlineSeconds"); d && d->is_int64()) {
      if (*missed.most_recent < now - std::chrono::seconds(d->as_int64())) return std::nullopt;
    }
    return missed.most_recent;
  }

  // The schedule with spec.timeZone as its TZ= prefix (formatSchedule).
  static std::string schedule_of(const bj::object& cj) {
    const bj::value* zone = find_path(cj, "spec.timeZone");
    if (!zone || !zone->is_string()) return string_at(cj, "spec.schedule");
    std::string name(zone->as_string());
    return schedule_in_zone(string_at(cj, "spec.schedule"), &name);
  }

  void replace(const bj::object& cj, std::vector<ObjectPtr>& active) {
    for (const ObjectPtr& job : active) {
      remove(jobs(), *job, 0);
      events_.record(cj, "Normal", "SuccessfulDelete", "Deleted job " + meta_string(*job, "name"));
    }
    active.clear();
  }

  ObjectPtr create_job(const bj::object& cj, kube::TimePoint scheduled) {
    const bj::object& tmpl = object_at(cj, "spec.jobTemplate");
    std::string name = scheduled_job_name(meta_string(cj, "name"), scheduled);
    bj::object meta{{"name", name}, {"namespace", meta_string(cj, "namespace")}};
    for (const char* field : {"labels", "annotations"}) {
      if (const bj::value* v = find_path(tmpl, std::string("metadata.") + field)) meta[field] = *v;
    }
    bj::value& annotations = meta["annotations"];
    if (!annotations.is_object()) annotations = bj::object{};
    // On the wall clock of spec.timeZone (UTC without one), as upstream writes it.
    auto zone = TimeZone::load(string_at(cj, "spec.timeZone"));
    annotations.as_object()[kScheduledAnnotation] =
        format_rfc3339_in(scheduled, zone ? *zone : *TimeZone::utc());
    meta["ownerReferences"] = bj::array{controller_reference(cronjobs(), cj)};
    bj::object job{{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", std::move(meta)}};
    job["spec"] = tmpl.contains("spec") ? tmpl.at("spec") : bj::object{};
    try {
      ObjectPtr created = create(jobs(), admitted_for_create(*extensions_, jobs(), std::move(job)));
      events_.record(cj, "Normal", "SuccessfulCreate", "Created job " + name);
      return created;
    } catch (const StatusError& e) {
      if (e.code() != 409) {
        events_.record(cj, "Warning", "FailedCreate", "Error creating job: " + e.message());
      }
      return nullptr;  // 409: this activation's Job exists already
    }
  }

  // Finished Jobs beyond successfulJobsHistoryLimit / failedJobsHistoryLimit go, oldest first.
  void remove_old_jobs(const bj::object& cj, const std::vector<OwnedJob>& live) {
    for (const auto& [outcome, field, fallback] :
         {std::tuple{"Complete", "spec.successfulJobsHistoryLimit", 3},
          std::tuple{"Failed", "spec.failedJobsHistoryLimit", 1}}) {
      std::vector<ObjectPtr> finished;
      for (const OwnedJob& owned : live) {
        if (owned.finished && owned.finished->type == outcome) finished.push_back(owned.job);
      }
      auto limit = static_cast<std::size_t>(std::max<std::int64_t>(int_at(cj, field, fallback), 0));
      if (finished.size() <= limit) continue;
      std::sort(finished.begin(), finished.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
        return string_at(*a, "status.startTime") < string_at(*b, "status.startTime");
      });
      for (std::size_t i = 0; i < finished.size() - limit; ++i) {
        remove(jobs(), *finished[i], 0);
        events_.record(
            cj, "Normal", "SawCompletedJob",
            "Saw completed job: " + meta_string(*finished[i], "name") + ", condition: " + outcome);
      }
    }
  }

  void update_status(const bj::object& cj, const std::vector<ObjectPtr>& active,
                     std::optional<kube::TimePoint> scheduled,
                     std::optional<kube::TimePoint> last_success) {
    modify(
        cronjobs(), cj,
        [&](const bj::object& current) {
          bj::object next = current;
          bj::value& sv = next["status"];
          if (!sv.is_object()) sv = bj::object{};
          bj::object& s = sv.as_object();
          // A Job keeps the reference taken when it was first listed (its resourceVersion then).
          std::map<std::string, bj::value> listed;
          if (const bj::value* a = s.if_contains("active"); a && a->is_array()) {
            for (const bj::value& ref : a->as_array()) listed[string_at(ref, "uid")] = ref;
          }
          bj::array refs;
          for (const ObjectPtr& job : active) {
            auto it = listed.find(meta_string(*job, "uid"));
            refs.push_back(it != listed.end() ? it->second : bj::value(job_reference(*job)));
          }
          if (refs.empty()) {
            s.erase("active");
          } else {
            s["active"] = std::move(refs);
          }
          if (scheduled) s["lastScheduleTime"] = kube::format_rfc3339(*scheduled);
          if (last_success) s["lastSuccessfulTime"] = kube::format_rfc3339(*last_success);
          return next;
        },
        UpdateScope::Status);
  }

  SharedExtensions extensions_;
  EventRecorder events_;
  std::set<std::string> forbidden_;  // activations already reported as JobAlreadyActive
};

}  // namespace

std::unique_ptr<ControlLoop> make_cronjob_controller(ObjectStore& store, SharedExtensions ext) {
  return std::make_unique<CronJobController>(store, std::move(ext));
}

}  // namespace tailor::embedded
