#include "controller/recommendation/model_registry.h"

#include <algorithm>
#include <cstdint>

namespace tailor::controller::recommendation {

ModelRegistry::ModelRegistry(std::shared_ptr<const recommender::StrategyFactory> factory,
                             Seconds sample_period)
    : factory_(std::move(factory)), sample_period_(sample_period) {
  recommender::SamplePeriodFold{sample_period};  // throws for a period under a second
}

ModelRegistry::Model& ModelRegistry::model(const ContainerModelKey& key) {
  auto it = models_.find(key);
  if (it == models_.end()) it = models_.emplace(key, Model{factory_->create(), 0}).first;
  return it->second;
}

void ModelRegistry::observe(const ContainerModelKey& key, const UsageSample& sample,
                            const Resources& request) {
  std::lock_guard lock(mutex_);
  observe_model(model(key), sample, request);
}

void ModelRegistry::observe_model(Model& m, const UsageSample& sample, const Resources& request) {
  m.strategy->observe(sample, request);
  m.last_seen = std::max(m.last_seen, sample.start + sample.length);
}

void ModelRegistry::observe_measured(Model& m, const UsageSample& sample,
                                     const Resources& request) {
  observe_model(m, sample, request);
  if (request.cpu_cores > 0 && sample.cpu_cores > request.cpu_cores) {
    m.cpu_shortfall_core_seconds +=
        (sample.cpu_cores - request.cpu_cores) * static_cast<double>(sample.length);
  }
}

void ModelRegistry::observe_period(Model& m, PodWindows& p, const UsageSample& sample,
                                   const Resources& request) {
  observe_measured(m, sample, request);
  p.last = recommender::pod_usage(sample);
}

std::optional<Seconds> ModelRegistry::observe_window(const ContainerModelKey& key,
                                                     const std::string& pod,
                                                     const recommender::MeasuredWindow& window,
                                                     const Resources& request) {
  std::lock_guard lock(mutex_);
  const bool known = models_.contains(key);
  Model& m = model(key);
  auto [it, created] =
      m.pods.try_emplace(pod, PodWindows{.fold = recommender::SamplePeriodFold(sample_period_)});
  PodWindows& p = it->second;
  std::vector<recommender::TraceWindow> done;
  try {
    done = p.fold.fold(window, request.cpu_cores);
  } catch (...) {
    if (created) m.pods.erase(it);
    if (!known) models_.erase(key);
    throw;
  }
  // A completed period the window started in ran with this window's request; one it only
  // finished, with the request of its own last window.
  const Seconds starts_in = window.start_ms / 1000 / sample_period_ * sample_period_;
  std::optional<Seconds> completed;
  for (const recommender::TraceWindow& period : done) {
    const UsageSample sample = recommender::usage_sample(period, sample_period_);
    observe_period(m, p, sample, period.start >= starts_in ? request : p.request);
    completed = sample.start + sample.length;
  }
  p.request = request;
  p.last_end = window.end_ms / 1000;
  // Seen now, though its period may still be open: an idle sweep must not drop the model, and
  // its open period with it, before that period completes.
  m.last_seen = std::max(m.last_seen, p.last_end);
  return completed;
}

std::size_t ModelRegistry::close_periods(Seconds cutoff) {
  std::lock_guard lock(mutex_);
  std::size_t closed = 0;
  for (auto& [key, m] : models_) {
    for (auto it = m.pods.begin(); it != m.pods.end();) {
      if (it->second.last_end >= cutoff) {
        ++it;
        continue;
      }
      if (auto period = it->second.fold.close()) {
        const UsageSample sample = recommender::usage_sample(*period, sample_period_);
        observe_measured(m, sample, it->second.request);
        ++closed;
      }
      it = m.pods.erase(it);
    }
  }
  return closed;
}

void ModelRegistry::on_oom(const ContainerModelKey& key, Seconds time, double request_bytes,
                           double limit_bytes) {
  std::lock_guard lock(mutex_);
  Model& m = model(key);
  m.strategy->on_oom(time, request_bytes, limit_bytes);
  ++m.oom_kills;
  m.last_seen = std::max(m.last_seen, time);
}

std::optional<Recommendation> ModelRegistry::recommend(const ContainerModelKey& key,
                                                       Seconds now) const {
  std::lock_guard lock(mutex_);
  auto it = models_.find(key);
  if (it == models_.end()) return std::nullopt;
  return it->second.strategy->recommend(now);
}

std::optional<Resources> ModelRegistry::decide(const ContainerModelKey& key, const std::string& pod,
                                               const std::string& uid, const Resources& request,
                                               Seconds now, Seconds pod_age,
                                               Seconds oom_run) const {
  std::lock_guard lock(mutex_);
  auto it = models_.find(key);
  if (it == models_.end()) return std::nullopt;
  return decide(it->second, pod, uid, request, now, pod_age, oom_run);
}

std::optional<ModelRegistry::Handle> ModelRegistry::find(const ContainerModelKey& key) const {
  std::lock_guard lock(mutex_);
  auto it = models_.find(key);
  if (it == models_.end()) return std::nullopt;
  Handle h;
  h.model_ = &it->second;
  return h;
}

std::optional<Resources> ModelRegistry::decide(Handle model, std::string_view pod,
                                               std::string_view uid, const Resources& request,
                                               Seconds now, Seconds pod_age,
                                               Seconds oom_run) const {
  std::lock_guard lock(mutex_);
  return decide(ModelRegistry::model(model), pod, uid, request, now, pod_age, oom_run);
}

SampleSpan ModelRegistry::samples(Handle model) const {
  std::lock_guard lock(mutex_);
  return ModelRegistry::model(model).strategy->samples();
}

std::optional<Resources> ModelRegistry::decide(const Model& m, std::string_view pod,
                                               std::string_view uid, const Resources& request,
                                               Seconds now, Seconds pod_age,
                                               Seconds oom_run) const {
  // The agent's windows carry the uid (window_source); a history's or metrics API's do not.
  recommender::PodUsage last;
  Seconds last_end = INT64_MIN;
  source_.assign(pod).append(1, '/').append(uid);
  for (std::size_t length : {source_.size(), pod.size() + 1}) {
    auto p = m.pods.find(std::string_view(source_).substr(0, length));
    if (p != m.pods.end() && p->second.last.cpu_cores >= 0 && p->second.last_end > last_end) {
      last = p->second.last;
      last_end = p->second.last_end;
    }
  }
  last.oom_run = oom_run;
  return m.strategy->decide(m.strategy->recommend(now), request, now, pod_age, last);
}

void ModelRegistry::applied(const ContainerModelKey& key, const Resources& request, Seconds now) {
  std::lock_guard lock(mutex_);
  auto it = models_.find(key);
  if (it == models_.end()) return;
  it->second.strategy->applied(request, now);
  ++it->second.resizes;
}

std::vector<std::string> ModelRegistry::containers(const std::string& policy) const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (auto it = models_.lower_bound({policy, ""});
       it != models_.end() && it->first.policy == policy; ++it) {
    out.push_back(it->first.container);
  }
  return out;
}

namespace {

// One pod's latest usage: its open period as it stands, else its last completed one.
void add_pod_usage(ContainerActivity& a, const recommender::SamplePeriodFold& fold) {
  const std::optional<recommender::TraceWindow> latest = fold.latest();
  if (!latest) return;  // no window folded yet
  ++a.pods;
  a.cpu_mean_sum += latest->avg_cpu;
  a.cpu_peak = std::max({a.cpu_peak, latest->max_cpu, latest->avg_cpu});
  a.memory_sum += latest->max_mem;
  a.memory_peak = std::max(a.memory_peak, latest->max_mem);
}

}  // namespace

void ModelRegistry::each_activity(
    const std::function<void(const ContainerModelKey&, const ContainerActivity&)>& f) const {
  std::lock_guard lock(mutex_);
  for (const auto& [key, m] : models_) {
    ContainerActivity a{.oom_kills = m.oom_kills,
                        .resizes = m.resizes,
                        .cpu_shortfall_core_seconds = m.cpu_shortfall_core_seconds};
    for (const auto& [pod, p] : m.pods) add_pod_usage(a, p.fold);
    f(key, a);
  }
}

void ModelRegistry::forget_policy(const std::string& policy) {
  std::lock_guard lock(mutex_);
  auto first = models_.lower_bound({policy, ""});
  auto last = first;
  while (last != models_.end() && last->first.policy == policy) ++last;
  models_.erase(first, last);
}

std::size_t ModelRegistry::forget_idle(Seconds cutoff) {
  std::lock_guard lock(mutex_);
  return std::erase_if(models_, [cutoff](const auto& kv) { return kv.second.last_seen < cutoff; });
}

std::size_t ModelRegistry::size() const {
  std::lock_guard lock(mutex_);
  return models_.size();
}

std::size_t ModelRegistry::state_bytes() const {
  std::lock_guard lock(mutex_);
  std::size_t bytes = 0;
  for (const auto& [key, m] : models_) {
    bytes += sizeof(key) + key.policy.capacity() + key.container.capacity() + sizeof(Model) +
             m.strategy->state_bytes();
    for (const auto& [pod, p] : m.pods) bytes += sizeof(pod) + pod.capacity() + sizeof(p);
  }
  return bytes;
}

std::vector<ContainerModelKey> ModelRegistry::keys() const {
  std::lock_guard lock(mutex_);
  std::vector<ContainerModelKey> out;
  out.reserve(models_.size());
  for (const auto& [key, m] : models_) out.push_back(key);
  return out;
}

std::optional<ModelRegistry::SavedModel> ModelRegistry::save(const ContainerModelKey& key) const {
  std::lock_guard lock(mutex_);
  auto it = models_.find(key);
  if (it == models_.end()) return std::nullopt;
  SavedModel saved{it->second.strategy->save(), it->second.strategy->samples()};
  if (saved.state.empty()) return std::nullopt;
  return saved;
}

std::optional<SampleSpan> ModelRegistry::samples(const ContainerModelKey& key) const {
  std::lock_guard lock(mutex_);
  auto it = models_.find(key);
  if (it == models_.end()) return std::nullopt;
  return it->second.strategy->samples();
}

bool ModelRegistry::restore(const ContainerModelKey& key, std::string_view state) {
  // Parsed outside the lock: a big checkpoint must not stall the usage stream.
  std::unique_ptr<recommender::Strategy> strategy = factory_->create();
  strategy->restore(state);
  // Idle-time accounting starts at the last sample the checkpoint holds.
  const Seconds last_seen = strategy->samples().last;
  std::lock_guard lock(mutex_);
  auto [it, created] = models_.try_emplace(key, Model{nullptr, last_seen});
  if (!created && it->second.strategy->samples().count >= strategy->samples().count) return false;
  // The open periods of the pods the replaced model was fed stay open, its counts go on.
  it->second.strategy = std::move(strategy);
  it->second.last_seen = std::max(it->second.last_seen, last_seen);
  return true;
}

}  // namespace tailor::controller::recommendation
