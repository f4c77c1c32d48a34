#include "controller/app/controller.h"

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <mutex>
#include <set>

#include "actuator/resize_error.h"
#include "actuator/resize_plan.h"
#include "actuator/startup_boost.h"
#include "controller/app/checkpoints.h"
#include "controller/app/controller_metrics.h"
#include "controller/app/measured_window.h"
#include "controller/app/oom_kills.h"
#include "controller/app/quantities.h"
#include "controller/app/startup_boosts.h"
#include "controller/app/usage_recorder.h"
#include "controller/app/workload_series.h"
#include "controller/recommendation/model_registry.h"
#include "kube/client/events.h"
#include "kube/client/events_sink.h"
#include "kube/model/decode.h"
#include "kube/observe/log.h"
#include "policy/resources.h"
#include "policy/signals.h"
#include "policy/status.h"

namespace tailor::controller {
namespace {

namespace bj = boost::json;
using kube::ObjectRef;

// The event on a VPA object Tailor leaves to another recommender (no status is written on it).
constexpr std::string_view kLeftToOtherRecommender = "LeftToOtherRecommender";

std::pair<std::string, std::string> split_key(const std::string& key) {
  auto slash = key.find('/');
  return {key.substr(0, slash), key.substr(slash + 1)};
}

kube::ObjectReference policy_ref(const PolicyObject& p) {
  return {.kind = std::string(policy::kind_of(p.api)),
          .namespace_ = p.metadata.namespace_,
          .name = p.metadata.name,
          .uid = p.metadata.uid,
          .api_version = std::string(policy::api_version_of(p.api))};
}

kube::ObjectReference pod_ref(const PodAction& a) {
  return kube::pod_reference(a.ns, a.name, a.uid);
}

std::string state_json(const TrackedState& s, const OomLedger& ooms) {
  std::vector<actuator::ResizeState> resizes;
  for (const auto& [uid, r] : s.resizes) resizes.push_back(r);
  bj::object last;
  for (const auto& [uid, t] : s.last_change) last[uid] = kube::format_rfc3339(t);
  bj::object quota;
  for (const auto& [key, m] : s.quota_refusals) quota[key] = m;
  bj::object refused;
  for (const auto& [uid, r] : s.refused_resizes) {
    refused[uid] =
        bj::object{{"body", r.body}, {"generation", r.generation}, {"message", r.message}};
  }
  bj::object out{{"resizes", actuator::serialize_states(resizes)},
                 {"lastChange", bj::serialize(last)},
                 {"quotaRefusals", bj::serialize(quota)}};
  if (!refused.empty()) out["refusedResizes"] = bj::serialize(refused);
  if (ooms.size() > 0) out["ooms"] = ooms.save();
  return bj::serialize(out);
}

TrackedState parse_state(const bj::object& data) {
  TrackedState s;
  auto text = [&](std::string_view key) -> std::string {
    const bj::value* v = data.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : "";
  };
  if (std::string r = text("resizes"); !r.empty()) {
    for (actuator::ResizeState& st : actuator::parse_states(r)) s.resizes[st.pod_uid] = st;
  }
  if (std::string l = text("lastChange"); !l.empty()) {
    bj::value last = bj::parse(l);
    for (const auto& [uid, t] : last.as_object()) {
      s.last_change[uid] = kube::parse_rfc3339(t.as_string());
    }
  }
  if (std::string q = text("quotaRefusals"); !q.empty()) {
    bj::value quota = bj::parse(q);
    for (const auto& [key, m] : quota.as_object()) s.quota_refusals[key] = m.as_string();
  }
  if (std::string r = text("refusedResizes"); !r.empty()) {
    const bj::value refused = bj::parse(r);
    for (const auto& [uid, v] : refused.as_object()) {
      const bj::object& o = v.as_object();
      s.refused_resizes[uid] = {.body = std::string(o.at("body").as_string()),
                                .generation = o.at("generation").to_number<std::int64_t>(),
                                .message = std::string(o.at("message").as_string())};
    }
  }
  return s;
}

// The pass's pod -> policy map taken over in place: in a steady pass nothing is allocated for it.
// Moving the fresh map in instead left its 200,000 strings, allocated among the pass's
// temporaries, pinning pages those freed (RSS grew ~15 MiB a pass at 100,000 pods).
void take_over(std::unordered_map<std::string, AssignedPolicy>& held,
               const std::unordered_map<std::string, AssignedPolicy>& fresh) {
  std::erase_if(held, [&](const auto& kv) { return !fresh.contains(kv.first); });
  for (const auto& [pod, policy] : fresh) {
    auto [it, added] = held.try_emplace(pod, policy);
    if (!added && it->second != policy) it->second = policy;
  }
}

// A pod silent for a whole sample period, and at least a minute, is gone: the period it left open
// is complete as it stands. The minute is longer than any agent's report interval (15 s by
// default), so a short --sample-period never closes the period of a pod still reporting.
void close_quiet_periods(recommendation::ModelRegistry& models, kube::TimePoint now) {
  constexpr recommender::Seconds kQuietAtLeast = 60;
  models.close_periods(to_seconds(now) - std::max(models.sample_period(), kQuietAtLeast));
}

}  // namespace

struct Controller::Impl {
  kube::RestClient& client;
  ControllerOptions options;
  ClusterView view;
  recommendation::ModelRegistry models;
  kube::EventRecorder events;
  ModelCheckpoints checkpoints;
  StartupBoosts boosts;
  std::atomic<bool> acting_leader{false};  // ran the latest pass (not a standby's refresh)
  std::mutex mutex;                        // state, bucket, pod_policy, stats
  TrackedState state;
  std::string saved_state;
  actuator::TokenBucket bucket;
  std::unordered_map<std::string, AssignedPolicy> pod_policy;
  OomLedger ooms;  // which OOM kills the models have had (under `mutex`)
  // Recreations accepted per policy key, for the per-workload series (workload_series.h); a
  // scrape drops those of policies that are gone.
  std::unordered_map<std::string, std::uint64_t> recreations;
  // (event reason, "Kind/namespace/name") -> the message an event last told about that policy.
  std::map<std::pair<std::string, std::string>, std::string> told;
  ControllerStats stats;
  std::unique_ptr<UsageRecorder> recorder;  // with --record-usage

  Impl(kube::RestClient& c, ControllerOptions o)
      : client(c),
        options(std::move(o)),
        view(c, options.view),
        models(std::shared_ptr<const recommender::StrategyFactory>(
                   recommender::make_strategy(options.strategy)),
               std::chrono::duration_cast<std::chrono::seconds>(options.sample_period).count()),
        events(std::make_shared<kube::RestEventSink>(c), {"tailor-controller", ""}),
        checkpoints(c, models, events,
                    {.strategy = options.strategy, .interval = options.checkpoint_interval}),
        boosts(c, events) {
    if (!options.record_usage.empty()) {
      recorder = std::make_unique<UsageRecorder>(options.record_usage);
    }
    bucket.per_second = options.updates_per_second;
    bucket.burst = options.update_burst;
    bucket.tokens = options.update_burst;
  }

  // The memory request or limit a container ran with: the runtime's report, else the spec.
  static double memory_ran(const actuator::ContainerStatusFacts* status,
                           const kube::ResourceRequirements& spec,
                           kube::ResourceList kube::ResourceRequirements::*which) {
    if (status && status->actual) {
      if (const kube::Quantity* q = kube::find_resource((*status->actual).*which, "memory")) {
        return q->as_double();
      }
    }
    const kube::Quantity* q = kube::find_resource(spec.*which, "memory");
    return q ? q->as_double() : 0;
  }

  // Feeds the models the OOM kills that pods' statuses show and no source has fed yet, each to
  // the model of the policy the pod is under, with the memory the container ran with (what the
  // runtime reports, else the spec). Called with `mutex` held.
  void feed_status_ooms(const PassInputs& in) {
    for (const auto& pod : in.pods) {
      auto policy = pod_policy.find(pod->namespace_() + "/" + pod->name);
      if (policy == pod_policy.end()) continue;
      for (const OomKill& kill : ooms.take_status_kills(*pod, in.now)) {
        const kube::Container* c = pod->find_container(kill.container);
        const actuator::ContainerStatusFacts* s = pod->find_status(kill.container);
        if (!c) continue;
        const double request = memory_ran(s, c->resources, &kube::ResourceRequirements::requests);
        const double limit = memory_ran(s, c->resources, &kube::ResourceRequirements::limits);
        models.on_oom({policy->second.key, kill.container}, to_seconds(kill.at), request, limit);
        ++stats.ooms_from_status;
        kube::log::info("OOM kill from the pod status fed to the model",
                        {{"pod", pod->namespace_() + "/" + pod->name},
                         {"container", kill.container},
                         {"policy", policy->second.key}});
      }
    }
  }

  ObjectRef state_ref() const {
    return {resources::kConfigMaps, options.state_namespace, options.state_config_map};
  }

  void save_state() {
    std::string data = state_json(state, ooms);
    if (data == saved_state) return;
    bj::object cm{{"apiVersion", "v1"},
                  {"kind", "ConfigMap"},
                  {"metadata", bj::object{{"name", options.state_config_map},
                                          {"namespace", options.state_namespace}}},
                  {"data", bj::object{{"state", data}}}};
    try {
      try {
        client.patch(state_ref(), kube::PatchType::Merge,
                     bj::serialize(bj::object{{"data", cm["data"]}}));
      } catch (const kube::ApiError& e) {
        if (!e.is_not_found()) throw;
        client.create({resources::kConfigMaps, options.state_namespace}, bj::serialize(cm));
      }
      saved_state = data;
    } catch (const std::exception& e) {
      kube::log::error("saving the controller state failed; retried next pass",
                       {{"err", e.what()}});
    }
  }

  void write_status(const StatusUpdate& u) {
    auto [ns, name] = split_key(u.key);
    try {
      client.patch({policy::resource_of(u.api), ns, name, "status"}, kube::PatchType::Json,
                   policy::status_patch(u.status));
      ++stats.status_updates;
    } catch (const std::exception& e) {
      kube::log::error("policy status update failed", {{"policy", u.key}, {"err", e.what()}});
    }
  }

  // The CPU the pod's policy recommends now for each container it sizes (for a boost's revert);
  // empty when the policy does not size running pods (Off, Initial). Called with `mutex` held.
  std::map<std::string, RecommendedCpu> recommended_cpu(const PassInputs& in,
                                                        const actuator::PodFacts& pod) const;
  void evict(const PodAction& a, const PolicyObject* policy, kube::TimePoint now);
  void resize(const PodAction& a, const PolicyObject* policy, kube::TimePoint now);
  void tell_action(const PodAction& a, const PolicyObject* policy,
                   const std::vector<policy::ActionEvent>& said);
  void annotate(const PodAction& a, const std::vector<policy::Annotation>& annotations);
  using Told = std::set<std::pair<std::string, std::string>>;
  void report_policies(const std::vector<PolicyObject>& policies,
                       const std::map<std::string, std::string>& hpa_conflicts);
  bool tell(const PolicyObject& p, std::string_view event_type, std::string_view reason,
            const std::string& message, Told& live);
};

// One event when what a policy is told appears or its message changes: the condition of that
// type (on Tailor's policies) says it all along; VPA objects may have only the event. A condition
// already stored with the same message was told before (by this replica or an earlier leader).
bool Controller::Impl::tell(const PolicyObject& p, std::string_view event_type,
                            std::string_view reason, const std::string& message, Told& live) {
  kube::ObjectReference ref = policy_ref(p);
  auto id = std::make_pair(std::string(reason), ref.kind + "/" + p.key);
  live.insert(id);
  std::string& said = told[id];
  const policy::PolicyCondition* stored = policy::find_condition(p.status.conditions, reason);
  if (said.empty() && stored && stored->message == message) said = message;
  if (said == message) return false;
  said = message;
  events.event(ref, std::string(event_type), std::string(reason), message);
  return true;
}

// Invalid specs, HPA conflicts, and VPA objects left to another recommender: told once each,
// and again when the message changes or after it went away and came back.
void Controller::Impl::report_policies(const std::vector<PolicyObject>& policies,
                                       const std::map<std::string, std::string>& hpa_conflicts) {
  Told live;
  for (const PolicyObject& p : policies) {
    if (!p.problems.empty()) {
      tell(p, kube::kEventTypeWarning, policy::invalid_config_condition(p.api),
           policy::problems_message(p.problems), live);
    }
    if (!p.claimed &&
        tell(p, kube::kEventTypeNormal, kLeftToOtherRecommender, p.unclaimed_reason, live)) {
      // Tailor writes no status on a VPA object another recommender owns: the log and the event
      // are all that says why it is not acted on.
      kube::log::info("VPA object left alone", {{"vpa", p.key}, {"reason", p.unclaimed_reason}});
    }
    if (auto conflict = hpa_conflicts.find(p.key); conflict != hpa_conflicts.end()) {
      tell(p, kube::kEventTypeWarning, policy::kHorizontalScalerConflict, conflict->second, live);
    }
  }
  std::erase_if(told, [&](const auto& kv) { return !live.count(kv.first); });
}

// The events of an action, on the pod and (VPA's EvictedPod) on its policy object.
void Controller::Impl::tell_action(const PodAction& a, const PolicyObject* policy,
                                   const std::vector<policy::ActionEvent>& said) {
  for (const policy::ActionEvent& e : said) {
    if (e.on == policy::ActionEvent::On::Pod) {
      events.event(pod_ref(a), e.type, e.reason, e.message);
    } else if (policy) {
      events.event(policy_ref(*policy), e.type, e.reason, e.message);
    }
  }
}

// A merge patch of the pod's annotations. Best effort, as VPA's updater does it: the resize
// has been accepted whether or not its marker lands.
void Controller::Impl::annotate(const PodAction& a,
                                const std::vector<policy::Annotation>& annotations) {
  if (annotations.empty()) return;
  bj::object set;
  for (const auto& [key, value] : annotations) set[key] = value;
  try {
    client.patch({kube::resources::kPods, a.ns, a.name}, kube::PatchType::Merge,
                 bj::serialize(bj::object{{"metadata", bj::object{{"annotations", set}}}}));
  } catch (const std::exception& e) {
    kube::log::error("pod annotations not written",
                     {{"pod", a.ns + "/" + a.name}, {"err", e.what()}});
  }
}

std::map<std::string, RecommendedCpu> Controller::Impl::recommended_cpu(
    const PassInputs& in, const actuator::PodFacts& pod) const {
  std::map<std::string, RecommendedCpu> out;
  auto assigned = pod_policy.find(pod.namespace_() + "/" + pod.name);
  if (assigned == pod_policy.end()) return out;
  // The very policy the pass assigned the pod to (of a VerticalScalingPolicy and a VPA object of
  // the same name, the one that acts on the pod), while it acts (valid, and ours).
  const PolicyObject* p = find_policy(in.policies, assigned->second.key, assigned->second.api);
  if (!p || !p->effective || !p->claimed || p->effective->mode == policy::UpdateMode::Off ||
      p->effective->mode == policy::UpdateMode::Initial) {
    return out;
  }
  for (const policy::RecommendedContainerResources& r :
       capped_for_pod(pod.containers(), *p->effective,
                      policy_recommendations(*p->effective, p->key, models, in.now), nullptr)) {
    const policy::EffectiveContainerPolicy cp =
        policy::container_policy_for(*p->effective, r.container_name);
    const kube::Quantity* cpu = kube::find_resource(r.target, kube::kResourceCpu);
    if (cpu && cp.controls(kube::kResourceCpu)) {
      out[r.container_name] = {.cpu = *cpu, .values = cp.controlled_values};
    }
  }
  return out;
}

void Controller::Impl::evict(const PodAction& a, const PolicyObject* policy, kube::TimePoint now) {
  (void)now;
  bj::object eviction{{"apiVersion", "policy/v1"},
                      {"kind", "Eviction"},
                      {"metadata", bj::object{{"name", a.name}, {"namespace", a.ns}}}};
  int code = 201;
  std::string message;
  try {
    client.create({kube::resources::kPods, a.ns, a.name, "eviction"}, bj::serialize(eviction));
  } catch (const kube::ApiError& e) {
    code = e.code();
    message = e.status_message();
  } catch (const std::exception& e) {
    code = 0;
    message = e.what();
  }
  switch (actuator::classify_eviction(code)) {
    case actuator::EvictionResult::Evicted:
      controller_metrics().recreation("evicted");
      ++stats.recreations;
      ++recreations[a.policy];
      state.resizes.erase(a.uid);
      tell_action(a, policy, policy::eviction_events(a.policy_api, a.name, a.reason));
      break;
    case actuator::EvictionResult::Gone:
      state.resizes.erase(a.uid);
      break;
    default:
      controller_metrics().recreation(code == 429 ? "blocked" : "failed");
      ++stats.eviction_refusals;
      events.event(pod_ref(a), kube::kEventTypeWarning, "EvictionRefused",
                   "Could not evict to recreate (" + a.reason + "): " + message);
  }
}

namespace {

// The outcome label of tailor_controller_resizes_total for a failed PATCH.
std::string_view resize_outcome(actuator::ResizeErrorAction what) {
  switch (what) {
    case actuator::ResizeErrorAction::Recreate:
      return "unsupported";
    case actuator::ResizeErrorAction::QuotaExceeded:
      return "quota";
    case actuator::ResizeErrorAction::Rejected:
      return "refused";
    case actuator::ResizeErrorAction::Forbidden:
      return "forbidden";
    default:
      return "failed";
  }
}

}  // namespace

void Controller::Impl::resize(const PodAction& a, const PolicyObject* policy, kube::TimePoint now) {
  try {
    std::string answer = client.patch({kube::resources::kPods, a.ns, a.name, "resize"},
                                      kube::PatchType::StrategicMerge, a.body);
    kube::Pod pod = kube::decode<kube::Pod>(answer);
    state.resizes[a.uid] = {.pod_uid = a.uid,
                            .generation = pod.metadata.generation,
                            .status = actuator::ResizeStatus::Proposed,
                            .since = now,
                            .requested = now,
                            .requested_totals = a.totals};
    state.quota_refusals.erase(a.policy);
    state.refused_resizes.erase(a.uid);
    for (const auto& [container, requests] : a.applied) {
      models.applied({a.policy, container}, requests, to_seconds(now));
    }
    ++stats.resizes;
    controller_metrics().resize("requested");
    annotate(a, policy::in_place_annotations(a.policy_api));
    tell_action(a, policy, policy::resize_events(a.policy_api, a.reason));
    return;
  } catch (const kube::ApiError& e) {
    ++stats.resize_errors;
    actuator::ResizeErrorAction what =
        actuator::classify_resize_error(e.code(), e.status_message());
    controller_metrics().resize(resize_outcome(what));
    switch (what) {
      case actuator::ResizeErrorAction::Recreate: {
        PodAction recreate = a;
        recreate.kind = PodAction::Kind::Recreate;
        recreate.reason = "in-place resize not supported: " + e.status_message();
        evict(recreate, policy, now);
        return;
      }
      case actuator::ResizeErrorAction::QuotaExceeded:
        state.quota_refusals[a.policy] = e.status_message();
        events.event(pod_ref(a), kube::kEventTypeWarning, "ResizeRefused", e.status_message());
        return;
      case actuator::ResizeErrorAction::Forbidden:
        // The role, not the patch: said where an operator looks, and tried again next pass.
        kube::log::error("resize forbidden: the controller's role lacks the permission",
                         {{"pod", a.ns + "/" + a.name}, {"err", e.status_message()}});
        events.event(pod_ref(a), kube::kEventTypeWarning, "ResizeRefused", e.status_message());
        return;
      case actuator::ResizeErrorAction::Rejected:
        // Sent again only once the recommendation or the pod changes (refused_resize.h).
        state.refused_resizes[a.uid] = {a.body, a.generation, e.status_message()};
        events.event(pod_ref(a), kube::kEventTypeWarning, "ResizeRefused", e.status_message());
        return;
      default:
        kube::log::info("resize deferred to a later pass",
                        {{"pod", a.ns + "/" + a.name}, {"err", e.status_message()}});
        return;
    }
  } catch (const std::exception& e) {
    ++stats.resize_errors;
    controller_metrics().resize("failed");
    kube::log::error("resize failed", {{"pod", a.ns + "/" + a.name}, {"err", e.what()}});
  }
}

Controller::Controller(kube::RestClient& client, ControllerOptions options)
    : impl_(std::make_unique<Impl>(client, std::move(options))) {
  controller_metrics();  // the series exist from the start
  serve_workload_series(this, [this](std::string& out) { write_workload_series(out); });
}

Controller::~Controller() {
  stop_serving_workload_series(this);
  stop();
}

void Controller::start() { impl_->view.start(); }

bool Controller::wait_for_sync(std::chrono::milliseconds timeout) const {
  const bool synced = impl_->view.wait_for_sync(timeout);
  // The initial lists' bodies and decode buffers are freed by now, but glibc keeps the pages.
  if (synced) ::malloc_trim(0);
  return synced;
}

void Controller::stop() {
  impl_->view.stop();
  impl_->events.flush(std::chrono::seconds(2));
  impl_->events.stop();
}

void Controller::load_state() {
  std::lock_guard lock(impl_->mutex);
  try {
    bj::value cm = bj::parse(impl_->client.get(impl_->state_ref()));
    const bj::value* data = cm.as_object().if_contains("data");
    const bj::value* text =
        data && data->is_object() ? data->as_object().if_contains("state") : nullptr;
    if (text && text->is_string()) {
      const bj::object saved = bj::parse(text->as_string()).as_object();
      impl_->state = parse_state(saved);
      const bj::value* ooms = saved.if_contains("ooms");
      if (ooms && ooms->is_string()) impl_->ooms.restore(ooms->as_string());
      impl_->saved_state = std::string(text->as_string());
    }
  } catch (const kube::ApiError& e) {
    if (!e.is_not_found()) throw;
  } catch (const std::exception& e) {
    // A corrupt state only loses timers: start them afresh, and say so.
    kube::log::error("the controller state is unreadable; outcome timers restart",
                     {{"err", e.what()}});
    impl_->state = {};
  }
  impl_->checkpoints.load();
}

namespace {

void count_policies(const std::vector<PolicyObject>& policies,
                    const std::vector<StatusUpdate>& updates) {
  std::map<std::string, double> counts;
  for (std::string_view type :
       {policy::kRecommendationProvided, policy::kNoPodsMatched, policy::kConfigInvalid,
        policy::kConfigUnsupported, policy::kOverlappingPolicy, policy::kHorizontalScalerConflict,
        policy::kResizeQuotaExceeded}) {
    counts[std::string(type)] = 0;
  }
  std::map<std::pair<std::string, policy::PolicyApi>, const policy::PolicyStatus*> updated;
  for (const StatusUpdate& u : updates) updated[{u.key, u.api}] = &u.status;
  for (const PolicyObject& p : policies) {
    auto it = updated.find({p.key, p.api});
    const policy::PolicyStatus* status = it == updated.end() ? &p.status : it->second;
    for (const policy::PolicyCondition& c : status->conditions) {
      if (c.status == "True" && counts.count(c.type)) ++counts[c.type];
    }
  }
  for (const auto& [type, n] : counts) controller_metrics().set_policies(type, n);
}

}  // namespace

namespace {
std::vector<std::string> container_names(const kube::Pod& pod) {
  std::vector<std::string> out;
  for (const kube::Container& c : pod.spec.containers) out.push_back(c.name);
  return out;
}

// The resource names a change sets that differ from what the pod asked for.
std::vector<std::string> changed(const kube::ResourceList& before,
                                 const kube::ResourceList& after) {
  std::vector<std::string> out;
  for (const auto& [name, q] : after) {
    const kube::Quantity* was = kube::find_resource(before, name);
    if (!was || !(*was == q)) out.push_back(name);
  }
  return out;
}

// What the plan changes, per container index (for VPA's vpaUpdates annotation).
std::vector<policy::ContainerUpdate> container_updates(const kube::Pod& pod,
                                                       const actuator::ResizePlan& plan) {
  std::vector<policy::ContainerUpdate> out;
  for (std::size_t i = 0; i < pod.spec.containers.size(); ++i) {
    for (const actuator::ContainerChange& c : plan.changes) {
      if (c.name != pod.spec.containers[i].name) continue;
      out.push_back({.index = i,
                     .requests = changed(c.before.requests, c.after.requests),
                     .limits = changed(c.before.limits, c.after.limits)});
    }
  }
  return out;
}

std::vector<std::pair<std::string, policy::PolicyApi>> policy_keys(
    const std::vector<PolicyObject>& policies) {
  std::vector<std::pair<std::string, policy::PolicyApi>> out;
  out.reserve(policies.size());
  for (const PolicyObject& p : policies) out.emplace_back(p.key, p.api);
  return out;
}
}  // namespace

std::size_t Controller::run_pass(kube::TimePoint now) {
  const auto started = std::chrono::steady_clock::now();
  Impl& m = *impl_;
  m.acting_leader = true;
  PassInputs in = m.view.snapshot(now);
  const std::size_t actions = act(in, now, started);
  // Outside the pass's lock: checkpoint writes must not hold up the usage stream.
  m.checkpoints.save(policy_keys(in.policies), now);
  // A pass allocates and frees hundreds of MB at 100,000 pods; without this glibc keeps the
  // freed pages and RSS grows ~500 MiB past what is in use (bench/RESULTS.md "Scale").
  ::malloc_trim(0);
  return actions;
}

void Controller::save_checkpoints(kube::TimePoint now) {
  if (!impl_->acting_leader) return;
  impl_->checkpoints.save(policy_keys(impl_->view.snapshot(now).policies), now, true);
}

std::size_t Controller::act(PassInputs& in, kube::TimePoint now,
                            std::chrono::steady_clock::time_point started) {
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  m.bucket.refill(now);
  in.update_budget = m.bucket.available();
  in.update_rule = m.options.update_rule;
  in.eviction_tolerance = m.options.eviction_tolerance;
  close_quiet_periods(m.models, now);
  // Before the pass decides, so that a kill the status shows now is answered in this pass.
  m.feed_status_ooms(in);
  PassResult r = reconcile(in, m.models, m.state);
  take_over(m.pod_policy, r.policy_of_pod);
  // Pods this pass assigned for the first time: their kills are answered on the next pass.
  m.feed_status_ooms(in);
  ++m.stats.passes;
  for (const StatusUpdate& u : r.statuses) m.write_status(u);
  m.report_policies(in.policies, r.hpa_conflicts);
  for (const PodAction& a : r.actions) {
    const PolicyObject* policy = find_policy(in.policies, a.policy, a.policy_api);
    if (a.kind == PodAction::Kind::Resize) {
      m.resize(a, policy, now);
    } else {
      m.evict(a, policy, now);
    }
  }
  m.bucket.take(r.actions.size());
  m.boosts.pass(
      in.pods, [&](const actuator::PodFacts& pod) { return m.recommended_cpu(in, pod); }, now);
  m.models.forget_idle(
      to_seconds(now) -
      std::chrono::duration_cast<std::chrono::seconds>(m.options.idle_model_ttl).count());
  m.save_state();
  count_policies(in.policies, r.statuses);
  controller_metrics().set_models(static_cast<double>(m.models.size()),
                                  static_cast<double>(m.models.state_bytes()));
  controller_metrics().pass(std::chrono::steady_clock::now() - started, r.actions.size());
  return r.actions.size();
}

void Controller::refresh(kube::TimePoint now) {
  impl_->acting_leader = false;
  PassInputs in = impl_->view.snapshot(now);
  std::lock_guard lock(impl_->mutex);
  TrackedState scratch = impl_->state;
  // A standby keeps its models fed, OOM kills included, so that a takeover starts from them.
  close_quiet_periods(impl_->models, now);
  impl_->feed_status_ooms(in);
  take_over(impl_->pod_policy, reconcile(in, impl_->models, scratch).policy_of_pod);
  impl_->feed_status_ooms(in);
}

void Controller::on_usage(const usage::UsageWindow& w) {
  if (impl_->recorder) impl_->recorder->record(w);
  std::string policy;
  {
    std::lock_guard lock(impl_->mutex);
    auto it = impl_->pod_policy.find(w.ns + "/" + w.pod);
    if (it == impl_->pod_policy.end()) {
      ++impl_->stats.windows_unmatched;
      controller_metrics().usage_window(false);
      return;
    }
    controller_metrics().usage_window(true);
    policy = it->second.key;
    ++impl_->stats.windows;
  }
  recommender::Resources request;
  double limit = 0;
  auto pod = impl_->view.pod(w.ns, w.pod);
  if (pod && pod->startup_boosted()) {  // a boosted pod's usage stays out of the models
    // Usage under the boost is the start-up's, not the workload's: it never reaches the model.
    controller_metrics().boosted_window();
    std::lock_guard lock(impl_->mutex);
    ++impl_->stats.windows_boosted;
    return;
  }
  if (pod) {
    if (const kube::Container* c = pod->find_container(w.container)) {
      request = to_resources(c->resources.requests);
      limit = to_resources(c->resources.limits).memory_bytes;
    }
  }
  recommendation::ContainerModelKey key{policy, w.container};
  try {
    impl_->models.observe_window(key, window_source(w), measured_window(w), request);
  } catch (const recommender::UsageWindowError& e) {
    // Out of time order for its pod (the usage check lets through what is sane on its own).
    std::lock_guard lock(impl_->mutex);
    if (impl_->stats.windows_refused++ == 0) {
      kube::log::info("Usage window refused", {{"pod", w.ns + "/" + w.pod}, {"error", e.what()}});
    }
  }
  // A kill is fed at once, before the period it fell in is complete: the bump is from the limit
  // that was hit, and the kill's peak reaches the model with its period.
  if (w.oom_kills > 0) {
    const kube::TimePoint end{std::chrono::milliseconds(w.end_unix_ms)};
    std::lock_guard lock(impl_->mutex);
    // The status may have told of this kill already (a kill of the main process seen by both).
    if (impl_->ooms.take_agent_kill({.pod_uid = w.pod_uid, .container = w.container, .at = end},
                                    kube::TimePoint(std::chrono::system_clock::now()))) {
      impl_->models.on_oom(key, w.end_unix_ms / 1000, request.memory_bytes, limit);
      ++impl_->stats.ooms_from_agents;
    }
  }
}

webhook::AdmissionResponse Controller::admit(const webhook::AdmissionRequest& request) const {
  webhook::AdmissionResponse out{.uid = request.uid};
  if (request.kind != "Pod" || request.operation != "CREATE" || request.object_json.empty()) {
    return out;
  }
  kube::Pod pod = kube::decode<kube::Pod>(request.object_json);
  if (pod.metadata.namespace_.empty()) pod.metadata.namespace_ = request.ns;
  std::optional<PolicyObject> p = impl_->view.policy_for(pod);
  if (!p) return out;
  auto now = kube::TimePoint(std::chrono::system_clock::now());
  // VPA's startupBoost applies whatever the update mode (its "Off" only stops the sizing).
  if (p->effective->mode == policy::UpdateMode::Off) {
    return with_startup_boost(std::move(out), request.object_json, pod, *p, {}, {}, now);
  }
  auto recs = policy_recommendations(*p->effective, p->key, impl_->models, now);
  std::optional<actuator::LimitRangeItem> lr = impl_->view.limit_range(pod.metadata.namespace_);
  actuator::ResizePlan plan =
      actuator::plan_resize({.pod = &pod,
                             .policy = &*p->effective,
                             .recommendations = capped_for_pod(pod.spec.containers, *p->effective,
                                                               recs, lr ? &*lr : nullptr),
                             .limit_range = lr ? &*lr : nullptr,
                             .largest_allocatable = impl_->view.largest_allocatable(),
                             .hpa_resources = impl_->view.hpa_resources(pod),
                             .at_creation = true});
  return with_startup_boost(
      std::move(out), request.object_json, pod, *p, plan.changes,
      policy::admission_annotations(p->api, p->metadata.name, container_names(pod),
                                    container_updates(pod, plan)),
      now);
}

// The admission's sizing, then the start-up boost on top of it (actuator/startup_boost.h): one
// JSON Patch that sets each changed container's resources once, and every annotation at once.
webhook::AdmissionResponse Controller::with_startup_boost(
    webhook::AdmissionResponse out, const std::string& pod_json, kube::Pod pod,
    const PolicyObject& p, const std::vector<actuator::ContainerChange>& changes,
    std::vector<policy::Annotation> annotations, kube::TimePoint now) const {
  std::map<std::string, kube::ResourceRequirements> set;
  for (const actuator::ContainerChange& c : changes) set[c.name] = c.after;
  for (kube::Container& c : pod.spec.containers) {
    if (auto it = set.find(c.name); it != set.end()) c.resources = it->second;
  }
  actuator::BoostPlan boost =
      actuator::plan_startup_boost(pod, *p.effective, impl_->view.largest_allocatable(), now);
  for (auto& [name, resources] : boost.boosted) set[name] = std::move(resources);
  if (!boost.record.containers.empty() || !boost.record.skipped.empty()) {
    controller_metrics().startup_boost(boost.record.skipped.empty() ? "boosted" : "skipped");
    annotations.emplace_back(std::string(actuator::kStartupBoostAnnotation),
                             actuator::format_boost_record(boost.record));
  }
  std::vector<webhook::ContainerResources> containers;
  for (const auto& [name, resources] : set) {
    webhook::ContainerResources r{.name = name};
    for (const auto& [resource, q] : resources.requests) r.requests.emplace(resource, q);
    for (const auto& [resource, q] : resources.limits) r.limits.emplace(resource, q);
    containers.push_back(std::move(r));
  }
  if (!containers.empty())
    out.patch_json = webhook::container_resources_patch(pod_json, containers);
  out.patch_json = webhook::with_annotations(out.patch_json, pod_json, annotations);
  return out;
}

void Controller::write_workload_series(std::string& out) const {
  // Only the replica running passes: a standby's (a former leader's) would go stale.
  if (!impl_->acting_leader) return;
  {
    WorkloadSeries series(impl_->view.policies());
    const auto pods = impl_->view.pods();
    {
      std::lock_guard lock(impl_->mutex);
      std::string key;
      for (const auto& pod : pods) {
        key.assign(pod->namespace_()).append("/").append(pod->name);
        auto policy = impl_->pod_policy.find(key);
        if (policy != impl_->pod_policy.end()) series.add_pod(policy->second.key, *pod);
      }
      impl_->models.each_activity([&](const auto& k, const auto& a) { series.add_model(k, a); });
      std::erase_if(impl_->recreations, [&](const auto& kv) { return !series.has(kv.first); });
      for (const auto& [policy, n] : impl_->recreations) series.add_recreations(policy, n);
    }
    series.write(out);  // outside the lock: the usage stream goes on meanwhile
  }
  // The scrape's tables (the policies copied, a row per container) are freed: without this glibc
  // keeps their pages, as after a pass.
  ::malloc_trim(0);
}

ControllerStats Controller::stats() const {
  const ModelCheckpoints::Stats checkpoints = impl_->checkpoints.stats();
  std::lock_guard lock(impl_->mutex);
  ControllerStats s = impl_->stats;
  s.checkpoints_restored = checkpoints.restored;
  s.checkpoints_invalid = checkpoints.invalid;
  s.checkpoints_written = checkpoints.written;
  s.checkpoints_deleted = checkpoints.deleted;
  return s;
}

const ClusterView& Controller::view() const { return impl_->view; }

}  // namespace tailor::controller
