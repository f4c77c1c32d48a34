// The Job controller (NonIndexed Jobs): keeps up to parallelism pods running until completions
// pods succeeded, counts succeeded and failed pods, and ends the Job Complete or Failed
// (backoffLimit, activeDeadlineSeconds) with the interim SuccessCriteriaMet / FailureTarget
// conditions that 1.33 writes first; suspend and resume (the Suspended condition) and
// ttlSecondsAfterFinished; podFailurePolicy (pod_failure_policy). Decisions in job_decisions.
#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <set>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/conditions.h"
#include "embedded/controllers/job_decisions.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/pod_failure_policy.h"
#include "embedded/controllers/pod_templates.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::embedded {
namespace {

JobSpecView spec_view(const bj::object& job) {
  JobSpecView v;
  v.parallelism = int_at(job, "spec.parallelism", 1);
  if (const bj::value* c = find_path(job, "spec.completions"); c && c->is_int64()) {
    v.completions = c->as_int64();
  }
  v.backoff_limit = int_at(job, "spec.backoffLimit", 6);
  const bj::value* suspend = find_path(job, "spec.suspend");
  v.suspend = suspend && suspend->is_bool() && suspend->as_bool();
  if (const bj::value* d = find_path(job, "spec.activeDeadlineSeconds"); d && d->is_int64()) {
    v.active_deadline_seconds = d->as_int64();
  }
  return v;
}

// Sets the Suspended condition; false when it already said so (or, resuming, when the Job was
// never suspended: no False condition is added then).
bool set_suspended(bj::object& status, bool suspended, const std::string& now) {
  bj::value& list = status["conditions"];
  if (!list.is_array()) list = bj::array{};
  const char* want = suspended ? "True" : "False";
  for (bj::value& c : list.as_array()) {
    if (!c.is_object() || string_at(c.as_object(), "type") != "Suspended") continue;
    if (string_at(c.as_object(), "status") == want) return false;
    bj::object& cond = c.as_object();
    cond["status"] = want;
    cond["reason"] = suspended ? "JobSuspended" : "JobResumed";
    cond["message"] = suspended ? "Job suspended" : "Job resumed";
    cond["lastProbeTime"] = now;
    cond["lastTransitionTime"] = now;
    return true;
  }
  if (!suspended) {
    if (list.as_array().empty()) status.erase("conditions");
    return false;
  }
  list.as_array().push_back(bj::object{{"type", "Suspended"},
                                       {"status", "True"},
                                       {"lastProbeTime", now},
                                       {"lastTransitionTime", now},
                                       {"reason", "JobSuspended"},
                                       {"message", "Job suspended"}});
  return true;
}

// Pods carry it until their outcome is counted in the Job's status, so a pod deleted before it
// finished is still counted (as failed: the default podReplacementPolicy TerminatingOrFailed).
constexpr const char* kTrackingFinalizer = "batch.kubernetes.io/job-tracking";

bool has_tracking_finalizer(const bj::object& pod) {
  const bj::value* list = find_path(pod, "metadata.finalizers");
  if (!list || !list->is_array()) return false;
  const bj::array& a = list->as_array();
  return std::find(a.begin(), a.end(), bj::value(kTrackingFinalizer)) != a.end();
}

bool counts_as_failed(const bj::object& pod) {
  std::string phase = string_at(pod, "status.phase");
  return phase == "Failed" || (is_terminating(pod) && phase != "Succeeded");
}

constexpr const char* kCompletionIndex = "batch.kubernetes.io/job-completion-index";

// None for an index that is no decimal int (upstream's unknownCompletionIndex), however written:
// a pod anyone annotated must not stop its Job's sync.
std::optional<std::int64_t> completion_index(const bj::object& pod) {
  const std::string text = annotation(pod, kCompletionIndex);
  const char* first = text.data() + (text.starts_with('+') ? 1 : 0);  // as strconv.Atoi
  const char* last = text.data() + text.size();
  std::int64_t index = -1;
  const auto [end, ec] = std::from_chars(first, last, index);
  if (ec != std::errc() || end != last || index < 0) return std::nullopt;
  return index;
}

// What the Job controller gives an Indexed Job's pod: the index as annotation and label, the
// hostname <job>-<index>, and JOB_COMPLETION_INDEX in every container from the annotation.
void set_completion_index(bj::object& pod, const std::string& job, std::int64_t index) {
  bj::object& meta = pod["metadata"].as_object();
  for (const char* field : {"annotations", "labels"}) {
    bj::value& v = meta[field];
    if (!v.is_object()) v = bj::object{};
    v.as_object()[kCompletionIndex] = std::to_string(index);
  }
  bj::object& spec = pod["spec"].as_object();
  if (string_at(spec, "hostname").empty()) spec["hostname"] = job + "-" + std::to_string(index);
  bj::object env{
      {"name", "JOB_COMPLETION_INDEX"},
      {"valueFrom",
       bj::object{{"fieldRef", bj::object{{"fieldPath", std::string("metadata.annotations['") +
                                                            kCompletionIndex + "']"}}}}}};
  for (const char* list : {"initContainers", "containers"}) {
    bj::value* containers = spec.if_contains(list);
    if (!containers || !containers->is_array()) continue;
    for (bj::value& c : containers->as_array()) {
      if (!c.is_object()) continue;
      bj::value& e = c.as_object()["env"];
      if (!e.is_array()) e = bj::array{};
      e.as_array().push_back(env);
    }
  }
}

void add_condition(bj::object& status, const char* type, const FinishCondition& why,
                   const std::string& now) {
  bj::value& list = status["conditions"];
  if (!list.is_array()) list = bj::array{};
  list.as_array().push_back(bj::object{{"type", type},
                                       {"status", "True"},
                                       {"lastProbeTime", now},
                                       {"lastTransitionTime", now},
                                       {"reason", why.reason},
                                       {"message", why.message}});
}

class JobController : public WatchLoop {
 public:
  JobController(ObjectStore& store, SharedExtensions extensions)
      : WatchLoop(store, {&jobs(), &pods_resource()}),
        extensions_(std::move(extensions)),
        events_(store, "job-controller") {}

 protected:
  void reconcile() override {
    std::map<std::string, std::vector<ObjectPtr>> owned;  // by owner uid
    for (const auto& [key, pod] : cached(pods_resource())) {
      if (auto ref = controller_of(*pod); ref && ref->kind == "Job") owned[ref->uid].push_back(pod);
    }
    // Jobs not going, each with its finished condition, read once per pass.
    std::vector<std::pair<ObjectPtr, std::optional<JobFinished>>> list;
    std::set<std::string> running;  // uids of the Jobs that still count their pods
    for (const auto& [key, job] : cached(jobs())) {
      if (is_terminating(*job)) continue;
      list.emplace_back(job, job_finished(*job));
      if (!list.back().second) running.insert(meta_string(*job, "uid"));
    }
    release_uncounted(owned, running);
    std::erase_if(failures_, [&](const auto& f) { return !running.contains(f.first); });
    for (const auto& [job, finished] : list) {
      if (finished) {
        delete_when_expired(*job, *finished);
        continue;
      }
      try {
        sync(*job, owned[meta_string(*job, "uid")]);
      } catch (const std::exception&) {
        // Looked at again on the next pass.
      }
    }
  }

 private:
  static const ResourceInfo& jobs() {
    static const ResourceInfo& r = resource_named("batch", "jobs");
    return r;
  }

  // Pods of Jobs gone, finished or going are no longer counted: their finalizer goes.
  void release_uncounted(const std::map<std::string, std::vector<ObjectPtr>>& owned,
                         const std::set<std::string>& running) {
    for (const auto& [uid, pods] : owned) {
      if (running.contains(uid)) continue;
      for (const ObjectPtr& p : pods) {
        if (!has_tracking_finalizer(*p)) continue;
        try {
          release(*p);
        } catch (const std::exception&) {
          // Gone meanwhile, or tried again on the next pass.
        }
      }
    }
  }

  void release(const bj::object& pod) {
    modify(pods_resource(), pod, [](const bj::object& current) {
      bj::object next = current;
      bj::value* list = next["metadata"].as_object().if_contains("finalizers");
      if (list && list->is_array()) {
        bj::array& a = list->as_array();
        a.erase(std::remove(a.begin(), a.end(), bj::value(kTrackingFinalizer)), a.end());
        if (list->as_array().empty()) next["metadata"].as_object().erase("finalizers");
      }
      return next;
    });
  }

  // ttlSecondsAfterFinished (the TTL-after-finished controller): the Job and, in the
  // foreground, its pods go that long after it finished (the finished condition's
  // lastTransitionTime).
  void delete_when_expired(const bj::object& job, const JobFinished& condition) {
    const bj::value* ttl = find_path(job, "spec.ttlSecondsAfterFinished");
    std::optional<kube::TimePoint> finished =
        kube::try_parse_rfc3339(condition.last_transition_time);
    if (!ttl || !ttl->is_int64() || !finished) return;
    if (system_now() < *finished + std::chrono::seconds(ttl->as_int64())) return;
    remove(jobs(), job, 0, "foregroundDeletion");
  }

  void sync(const bj::object& job, std::vector<ObjectPtr> pods) {
    JobSpecView spec = spec_view(job);
    bool indexed = string_at(job, "spec.completionMode") == "Indexed";
    JobPodCounts counts;
    std::int64_t ready = 0, terminating = 0, newly_succeeded = 0, newly_failed = 0;
    std::set<std::int64_t> completed = parse_indexes(string_at(job, "status.completedIndexes"));
    std::set<std::int64_t> running;
    std::vector<ObjectPtr> active;
    // No podFailurePolicy: an empty one, whose no rules count every failure.
    const bj::object& policy = object_at(job, "spec.podFailurePolicy");
    std::optional<std::string> fail_job;  // the message of a FailJob rule that matched
    for (const ObjectPtr& p : pods) {
      if (is_active_pod(*p)) {
        active.push_back(p);
        ready += is_pod_ready(*p);
        if (auto i = completion_index(*p)) running.insert(*i);
      } else if (is_terminating(*p) && string_at(*p, "status.phase") != "Succeeded" &&
                 string_at(*p, "status.phase") != "Failed") {
        ++terminating;
      }
      if (!has_tracking_finalizer(*p)) continue;  // counted already
      bool succeeded = string_at(*p, "status.phase") == "Succeeded";
      if (!succeeded && !counts_as_failed(*p)) continue;
      release(*p);
      if (succeeded) {
        ++newly_succeeded;
        auto i = completion_index(*p);
        if (i && spec.completions && *i < *spec.completions) completed.insert(*i);
        continue;
      }
      PodFailureMatch match = match_pod_failure_policy(policy, *p);
      if (match.action == PodFailureAction::Ignore) continue;  // not counted, replaced
      ++newly_failed;
      if (match.action == PodFailureAction::FailJob && !fail_job) fail_job = match.message;
    }
    counts.active = static_cast<std::int64_t>(active.size());
    counts.succeeded = indexed ? static_cast<std::int64_t>(completed.size())
                               : int_at(job, "status.succeeded", 0) + newly_succeeded;
    counts.failed = int_at(job, "status.failed", 0) + newly_failed;
    kube::TimePoint now = system_now();
    std::string start = string_at(job, "status.startTime");
    std::optional<std::int64_t> seconds_active;
    if (auto t = kube::try_parse_rfc3339(start)) {
      seconds_active = std::chrono::duration_cast<std::chrono::seconds>(now - *t).count();
    }
    Failures& failures = failures_[meta_string(job, "uid")];
    if (newly_succeeded > 0) failures.since_success = 0;
    if (newly_failed > 0) {
      failures.since_success += newly_failed;
      failures.latest = now;
    }
    bool backing_off = now < failures.latest + pod_failure_backoff(failures.since_success);
    JobFinish finish =
        fail_job ? JobFinish::PodFailurePolicy : job_finish(spec, counts, seconds_active);
    FinishCondition why = finish_condition(finish);
    if (fail_job) why.message = *fail_job;
    if (finish != JobFinish::Running) {
      for (const ObjectPtr& p : active) remove(pods_resource(), *p, pod_grace_seconds(*p));
      counts.active = 0;
      ready = 0;
    } else {
      std::int64_t delta = active_pods_delta(spec, counts);
      if (backing_off) {
        // No pod starts until the back-off since the latest failure has passed (resync).
      } else if (indexed) {
        for (std::int64_t i : indexes_to_start(spec, completed, running)) {
          if (!create_pod(job, i)) break;
          ++counts.active;
        }
      } else {
        for (std::int64_t i = 0; i < delta; ++i) {
          if (!create_pod(job)) break;
          ++counts.active;
        }
      }
      for (std::int64_t i = 0; i < -delta; ++i) {
        remove(pods_resource(), *active[static_cast<std::size_t>(i)],
               pod_grace_seconds(*active[i]));
        --counts.active;
      }
    }
    update_status(job, counts, ready, terminating, finish, why, spec.suspend,
                  kube::format_rfc3339(now),
                  indexed ? std::optional(format_indexes(completed)) : std::nullopt);
  }

  // A pod of the Job; of an Indexed Job, the pod for one completion index.
  bool create_pod(const bj::object& job, std::optional<std::int64_t> index = std::nullopt) {
    std::string name = meta_string(job, "name");
    bj::object pod = pod_from_template(
        job, jobs(), name + "-" + (index ? std::to_string(*index) + "-" : std::string()));
    pod["metadata"].as_object()["finalizers"] = bj::array{kTrackingFinalizer};
    if (index) set_completion_index(pod, name, *index);
    try {
      ObjectPtr created = create(
          pods_resource(), admitted_for_create(*extensions_, pods_resource(), std::move(pod)));
      events_.record(job, "Normal", "SuccessfulCreate",
                     "Created pod: " + meta_string(*created, "name"));
      return true;
    } catch (const StatusError& e) {
      events_.record(job, "Warning", "FailedCreate", "Error creating: " + e.message());
      return false;
    }
  }

  void update_status(const bj::object& job, const JobPodCounts& counts, std::int64_t ready,
                     std::int64_t terminating, JobFinish finish, const FinishCondition& why,
                     bool suspended, const std::string& now,
                     std::optional<std::string> completed_indexes) {
    bool suspend_changed = false;
    modify(
        jobs(), job,
        [&](const bj::object& current) {
          bj::object next = current;
          bj::value& sv = next["status"];
          if (!sv.is_object()) sv = bj::object{};
          bj::object& s = sv.as_object();
          if (set_suspended(s, suspended, now)) {
            suspend_changed = true;
            if (!suspended) s["startTime"] = now;  // a resumed Job starts its clock again
          }
          if (!suspended && !s.contains("startTime")) s["startTime"] = now;
          // omitempty counts; ready and terminating are always written.
          auto set_count = [&](const char* field, std::int64_t n) {
            if (n > 0) {
              s[field] = n;
            } else {
              s.erase(field);
            }
          };
          set_count("active", counts.active);
          set_count("succeeded", counts.succeeded);
          set_count("failed", counts.failed);
          s["ready"] = ready;
          s["terminating"] = finish == JobFinish::Running ? terminating : 0;
          s["uncountedTerminatedPods"] = bj::object{};
          if (completed_indexes && !completed_indexes->empty()) {
            s["completedIndexes"] = *completed_indexes;
          } else {
            s.erase("completedIndexes");
          }
          if (finish == JobFinish::Complete) {
            add_condition(s, "SuccessCriteriaMet", why, now);
            add_condition(s, "Complete", why, now);
            s["completionTime"] = now;
          } else if (finish != JobFinish::Running) {
            add_condition(s, "FailureTarget", why, now);
            add_condition(s, "Failed", why, now);
          }
          return next;
        },
        UpdateScope::Status);
    if (suspend_changed) {
      events_.record(job, "Normal", suspended ? "Suspended" : "Resumed",
                     suspended ? "Job suspended" : "Job resumed");
    }
    if (finish == JobFinish::Complete) {
      events_.record(job, "Normal", "Completed", "Job completed");
    } else if (finish != JobFinish::Running) {
      events_.record(job, "Warning", why.reason, why.message);
    }
  }

  // Pod failures counted since the Job's last success, for the back-off before new pods.
  struct Failures {
    std::int64_t since_success = 0;
    kube::TimePoint latest{};
  };

  SharedExtensions extensions_;
  EventRecorder events_;
  std::map<std::string, Failures> failures_;  // by Job uid, while it runs
};

}  // namespace

std::unique_ptr<ControlLoop> make_job_controller(ObjectStore& store, SharedExtensions ext) {
  return std::make_unique<JobController>(store, std::move(ext));
}

}  // namespace tailor::embedded
