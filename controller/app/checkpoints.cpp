#include "controller/app/checkpoints.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <set>

#include "controller/app/checkpoint_histograms.h"
#include "controller/app/precise_json.h"
#include "kube/observe/log.h"
#include "policy/resources.h"
#include "policy/types.h"
#include "recommender/checkpoint.h"

namespace tailor::controller {

namespace {

namespace bj = boost::json;
constexpr std::size_t kMaxName = 253;  // a DNS subdomain, as object names are

std::uint32_t fnv1a(std::string_view s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

std::string at_seconds(recommender::Seconds s) {
  return kube::format_rfc3339(kube::TimePoint(std::chrono::seconds(s)));
}

bj::object status_json(const CheckpointRecord& r, kube::TimePoint now) {
  bj::object status{{"version", r.state.substr(0, r.state.find(';'))},
                    {"strategy", r.strategy},
                    {"lastUpdateTime", kube::format_rfc3339(now)},
                    {"firstSampleStart", at_seconds(r.samples.first)},
                    {"lastSampleStart", at_seconds(r.samples.last)},
                    {"totalSamplesCount", r.samples.count}};
  // The vpa strategy's model is VPA's checkpoint: it goes in VPA's fields, not in `state`.
  if (r.strategy == "vpa") {
    try {
      put_vpa_histograms(r.state, status);
      return status;
    } catch (const recommender::CheckpointError&) {
      // Not a vpa state after all: kept as text below, so the next load reports it.
    }
  }
  status["state"] = r.state;
  return status;
}

bool same(const recommender::SampleSpan& a, const std::optional<recommender::SampleSpan>& b) {
  return b && a.count == b->count && a.first == b->first && a.last == b->last;
}

const bj::value* field(const bj::value& v, std::string_view key) {
  return v.is_object() ? v.as_object().if_contains(key) : nullptr;
}

std::string text(const bj::value& v, std::string_view key) {
  const bj::value* f = field(v, key);
  return f && f->is_string() ? std::string(f->as_string()) : "";
}

CheckpointRecord parse_item(const bj::value& item) {
  CheckpointRecord r;
  const bj::value* meta = field(item, "metadata");
  const bj::value* spec = field(item, "spec");
  const bj::value* status = field(item, "status");
  if (meta) {
    r.ns = text(*meta, "namespace");
    r.name = text(*meta, "name");
    r.uid = text(*meta, "uid");
  }
  if (spec) {
    r.policy_name = text(*spec, "policyName");
    r.container = text(*spec, "containerName");
    const std::string kind = text(*spec, "policyKind");
    if (kind == policy::kind_of(policy::PolicyApi::VerticalPodAutoscaler)) {
      r.policy_api = policy::PolicyApi::VerticalPodAutoscaler;
    } else if (!kind.empty() && kind != policy::kind_of(policy::PolicyApi::VerticalScalingPolicy)) {
      r.problem = "spec.policyKind '" + kind + "' is not a policy kind";
    }
  }
  if (r.policy_name.empty() || r.container.empty()) {
    r.problem = "spec.policyName and spec.containerName are required";
  }
  if (!status) return r;
  r.strategy = text(*status, "strategy");
  if (const bj::value* state = field(*status, "state");
      state && !state->is_string() && !state->is_null()) {
    r.problem = "status.state is not a string";
  }
  r.state = text(*status, "state");
  if (r.state.empty() && has_vpa_histograms(*status)) {
    // VPA-shaped: only the vpa strategy's model has this form.
    if (r.strategy.empty()) r.strategy = "vpa";
    try {
      r.state = vpa_state_from_histograms(*status);
    } catch (const recommender::CheckpointError& e) {
      if (r.problem.empty()) r.problem = e.what();
    }
  }
  return r;
}

}  // namespace

std::string checkpoint_name(const std::string& policy_name, policy::PolicyApi api,
                            const std::string& container) {
  std::string name = (api == policy::PolicyApi::VerticalPodAutoscaler ? "vpa-" : "") + policy_name +
                     "-" + container;
  if (name.size() <= kMaxName) return name;
  char suffix[10];
  std::snprintf(suffix, sizeof(suffix), "-%08x", fnv1a(name));
  name.resize(kMaxName - 9);
  while (!name.empty() && (name.back() == '-' || name.back() == '.')) name.pop_back();
  return name + suffix;
}

std::string vpa_checkpoint_name(const std::string& vpa_name, const std::string& container) {
  // VPA's "<vpa>-<container>": Tailor's naming without the prefix that keeps kinds apart.
  return checkpoint_name(vpa_name, policy::PolicyApi::VerticalScalingPolicy, container);
}

std::optional<std::string> vpa_checkpoint_object(const CheckpointRecord& r, kube::TimePoint now) {
  if (r.policy_api != policy::PolicyApi::VerticalPodAutoscaler || r.strategy != "vpa") {
    return std::nullopt;
  }
  bj::object status{{"lastUpdateTime", kube::format_rfc3339(now)}, {"version", "v3"}};
  try {
    put_vpa_histograms(r.state, status);
  } catch (const recommender::CheckpointError&) {
    return std::nullopt;  // not a vpa state: Tailor's own checkpoint reports it
  }
  return bj::serialize(bj::object{
      {"apiVersion", policy::kVpaApiVersion},
      {"kind", "VerticalPodAutoscalerCheckpoint"},
      {"metadata",
       bj::object{{"name", vpa_checkpoint_name(r.policy_name, r.container)},
                  {"namespace", r.ns},
                  {"labels", bj::object{{"app.kubernetes.io/managed-by", "tailor-controller"}}}}},
      {"spec", bj::object{{"vpaObjectName", r.policy_name}, {"containerName", r.container}}},
      {"status", std::move(status)}});
}

std::string checkpoint_object(const CheckpointRecord& r, kube::TimePoint now) {
  return bj::serialize(bj::object{
      {"apiVersion", policy::kTailorApiVersion},
      {"kind", "VerticalScalingCheckpoint"},
      {"metadata",
       bj::object{{"name", r.name},
                  {"namespace", r.ns},
                  {"labels", bj::object{{"app.kubernetes.io/managed-by", "tailor-controller"}}}}},
      {"spec", bj::object{{"policyName", r.policy_name},
                          {"policyKind", policy::kind_of(r.policy_api)},
                          {"containerName", r.container}}},
      {"status", status_json(r, now)}});
}

std::string checkpoint_status_patch(const CheckpointRecord& r, kube::TimePoint now) {
  // The whole status is replaced: a merge patch would merge bucketWeights with the previous
  // write's and keep the fields of another strategy's.
  bj::array patch;
  patch.emplace_back(
      bj::object{{"op", "add"}, {"path", "/status"}, {"value", status_json(r, now)}});
  return bj::serialize(patch);
}

std::vector<CheckpointRecord> parse_checkpoint_list(std::string_view json) {
  bj::value list;
  try {
    list = parse_precise(json);  // totalWeight reads back bit for bit
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("VerticalScalingCheckpointList is not JSON: " + std::string(e.what()));
  }
  std::vector<CheckpointRecord> out;
  const bj::value* items = field(list, "items");
  if (!items || items->is_null()) return out;
  if (!items->is_array()) throw std::runtime_error("VerticalScalingCheckpointList: no items");
  for (const bj::value& item : items->as_array()) out.push_back(parse_item(item));
  return out;
}

ModelCheckpoints::ModelCheckpoints(kube::RestClient& client, recommendation::ModelRegistry& models,
                                   kube::EventRecorder& events, CheckpointOptions options)
    : client_(client), models_(models), events_(events), options_(std::move(options)) {}

std::size_t ModelCheckpoints::load() {
  std::string list;
  try {
    list = client_.list({policy::resources::kVerticalScalingCheckpoints, ""});
  } catch (const kube::ApiError& e) {
    if (!e.is_not_found()) throw;  // retried: a new leader must not start from empty models
    kube::log::error("VerticalScalingCheckpoints are not served (CRD missing?); models start empty",
                     {{"err", e.status_message()}});
    return 0;
  }
  std::lock_guard lock(mutex_);
  const std::size_t before = stats_.restored;
  for (const CheckpointRecord& r : parse_checkpoint_list(list)) restore(r);
  kube::log::info("Checkpoints read", {{"restored", stats_.restored - before},
                                       {"invalid", stats_.invalid},
                                       {"models", models_.size()}});
  return stats_.restored - before;
}

void ModelCheckpoints::restore(const CheckpointRecord& r) {
  Stored& stored = stored_[r.ns + "/" + r.name];
  stored.key = {r.policy_key(), r.container};
  stored.api = r.policy_api;
  std::string problem = r.problem;
  if (problem.empty() && r.state.empty()) return;  // nothing saved yet
  if (problem.empty() && !r.strategy.empty() && r.strategy != options_.strategy) {
    kube::log::info("Checkpoint of another strategy ignored; its model starts empty",
                    {{"checkpoint", r.ns + "/" + r.name}, {"strategy", r.strategy}});
    return;
  }
  if (problem.empty()) {
    try {
      if (models_.restore(stored.key, r.state)) ++stats_.restored;
      stored.state_hash = std::hash<std::string>{}(r.state);
      stored.samples = models_.samples(stored.key).value_or(recommender::SampleSpan{});
      return;
    } catch (const recommender::CheckpointError& e) {
      problem = e.what();
    }
  }
  ++stats_.invalid;
  const std::string message = "Checkpoint is invalid, the model of container '" + r.container +
                              "' of " + std::string(policy::kind_of(r.policy_api)) + " " +
                              r.policy_key() + " starts empty: " + problem;
  kube::log::error(message, {{"checkpoint", r.ns + "/" + r.name}});
  events_.event({.kind = "VerticalScalingCheckpoint",
                 .namespace_ = r.ns,
                 .name = r.name,
                 .uid = r.uid,
                 .api_version = std::string(policy::kTailorApiVersion)},
                "Warning", "CheckpointInvalid", message);
}

void ModelCheckpoints::write(const CheckpointRecord& r, kube::TimePoint now) {
  const kube::ObjectRef status{policy::resources::kVerticalScalingCheckpoints, r.ns, r.name,
                               "status"};
  try {
    client_.patch(status, kube::PatchType::Json, checkpoint_status_patch(r, now));
  } catch (const kube::ApiError& e) {
    if (!e.is_not_found()) throw;
    client_.create({policy::resources::kVerticalScalingCheckpoints, r.ns},
                   checkpoint_object(r, now));
    // An API server with the status subresource drops status on create.
    client_.patch(status, kube::PatchType::Json, checkpoint_status_patch(r, now));
  }
}

void ModelCheckpoints::write_vpa_checkpoint(const CheckpointRecord& r, kube::TimePoint now) {
  if (!vpa_checkpoints_served_) return;
  const std::optional<std::string> object = vpa_checkpoint_object(r, now);
  if (!object) return;
  const std::string name = vpa_checkpoint_name(r.policy_name, r.container);
  // No status subresource on VPA's checkpoints: VPA's recommender patches /status of the object,
  // and creates it when there is none.
  bj::array patch;
  patch.emplace_back(
      bj::object{{"op", "add"}, {"path", "/status"}, {"value", bj::parse(*object).at("status")}});
  try {
    try {
      client_.patch({policy::resources::kVerticalPodAutoscalerCheckpoints, r.ns, name},
                    kube::PatchType::Json, bj::serialize(patch));
    } catch (const kube::ApiError& e) {
      if (!e.is_not_found()) throw;
      client_.create({policy::resources::kVerticalPodAutoscalerCheckpoints, r.ns}, *object);
    }
  } catch (const kube::ApiError& e) {
    if (e.is_not_found()) {
      vpa_checkpoints_served_ = false;
      kube::log::error(
          "VerticalPodAutoscalerCheckpoints are not served (VPA's CRD missing?); only "
          "VerticalScalingCheckpoints are written",
          {{"err", e.status_message()}});
      return;
    }
    kube::log::error("VerticalPodAutoscalerCheckpoint not written; retried when the model changes",
                     {{"checkpoint", r.ns + "/" + name}, {"err", e.status_message()}});
  } catch (const std::exception& e) {
    kube::log::error("VerticalPodAutoscalerCheckpoint not written; retried when the model changes",
                     {{"checkpoint", r.ns + "/" + name}, {"err", e.what()}});
  }
}

void ModelCheckpoints::remove_vpa_checkpoint(const std::string& ns, const std::string& name) {
  if (!vpa_checkpoints_served_ || options_.strategy != "vpa") return;
  try {
    client_.remove({policy::resources::kVerticalPodAutoscalerCheckpoints, ns, name});
  } catch (const std::exception& e) {
    const auto* api = dynamic_cast<const kube::ApiError*>(&e);
    if (api && api->is_not_found()) return;
    kube::log::error("Deleting a stale VerticalPodAutoscalerCheckpoint failed",
                     {{"checkpoint", ns + "/" + name}, {"err", e.what()}});
  }
}

void ModelCheckpoints::save(const std::vector<std::pair<std::string, policy::PolicyApi>>& policies,
                            kube::TimePoint now, bool force) {
  std::lock_guard lock(mutex_);
  if (!force && last_round_ && now - *last_round_ < options_.interval) return;
  last_round_ = now;
  std::map<std::string, policy::PolicyApi> api_of;
  for (const auto& [key, api] : policies) api_of.emplace(key, api);

  struct Candidate {
    std::string object;
    recommendation::ContainerModelKey key;
    policy::PolicyApi api;
    kube::TimePoint written;
  };
  std::vector<Candidate> candidates;
  for (const recommendation::ContainerModelKey& key : models_.keys()) {
    auto api = api_of.find(key.policy);
    if (api == api_of.end()) continue;
    const std::string ns = key.policy.substr(0, key.policy.find('/'));
    const std::string policy_name = key.policy.substr(ns.size() + 1);
    std::string object = ns + "/" + checkpoint_name(policy_name, api->second, key.container);
    auto it = stored_.find(object);
    candidates.push_back({std::move(object), key, api->second,
                          it == stored_.end() ? kube::TimePoint{} : it->second.written});
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.written < b.written; });

  const auto deadline = std::chrono::steady_clock::now() + options_.write_budget;
  std::size_t failed = 0;
  std::string last_error;
  for (const Candidate& c : candidates) {
    if (std::chrono::steady_clock::now() > deadline) break;
    auto known = stored_.find(c.object);
    // Serializing every model every round would cost more than writing the changed ones.
    if (known != stored_.end() && same(known->second.samples, models_.samples(c.key))) continue;
    std::optional<recommendation::ModelRegistry::SavedModel> saved = models_.save(c.key);
    if (!saved) continue;
    const std::size_t hash = std::hash<std::string>{}(saved->state);
    if (known != stored_.end() && known->second.state_hash == hash) continue;
    CheckpointRecord r{.ns = c.object.substr(0, c.object.find('/')),
                       .name = c.object.substr(c.object.find('/') + 1),
                       .policy_name = c.key.policy.substr(c.key.policy.find('/') + 1),
                       .policy_api = c.api,
                       .container = c.key.container,
                       .strategy = options_.strategy,
                       .state = std::move(saved->state),
                       .samples = saved->samples};
    try {
      write(r, now);
      stored_[c.object] = {c.key, c.api, hash, saved->samples, now};
      ++stats_.written;
      write_vpa_checkpoint(r, now);
    } catch (const std::exception& e) {
      ++failed;
      last_error = c.object + ": " + e.what();
    }
  }
  if (failed > 0) {
    stats_.failed += failed;
    kube::log::error("Checkpoint writes failed; retried next round",
                     {{"failed", failed}, {"last", last_error}});
  }
  collect_garbage(policies);
}

void ModelCheckpoints::collect_garbage(
    const std::vector<std::pair<std::string, policy::PolicyApi>>& policies) {
  const std::set<std::pair<std::string, policy::PolicyApi>> live(policies.begin(), policies.end());
  for (auto it = stored_.begin(); it != stored_.end();) {
    if (live.count({it->second.key.policy, it->second.api})) {
      ++it;
      continue;
    }
    const std::string ns = it->first.substr(0, it->first.find('/'));
    const std::string name = it->first.substr(ns.size() + 1);
    try {
      client_.remove({policy::resources::kVerticalScalingCheckpoints, ns, name});
      ++stats_.deleted;
    } catch (const kube::ApiError& e) {
      if (!e.is_not_found()) {
        kube::log::error("Deleting a stale checkpoint failed; retried next round",
                         {{"checkpoint", it->first}, {"err", e.status_message()}});
        ++it;
        continue;
      }
    } catch (const std::exception& e) {
      kube::log::error("Deleting a stale checkpoint failed; retried next round",
                       {{"checkpoint", it->first}, {"err", e.what()}});
      ++it;
      continue;
    }
    if (it->second.api == policy::PolicyApi::VerticalPodAutoscaler) {
      const std::string& policy = it->second.key.policy;
      remove_vpa_checkpoint(
          ns, vpa_checkpoint_name(policy.substr(policy.find('/') + 1), it->second.key.container));
    }
    kube::log::info("Checkpoint of a deleted policy removed", {{"checkpoint", it->first}});
    it = stored_.erase(it);
  }
}

ModelCheckpoints::Stats ModelCheckpoints::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace tailor::controller
