#include "recommender/tailored_strategy.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "recommender/checkpoint.h"
#include "recommender/checkpoint_text.h"

namespace tailor::recommender {

TailoredStrategy::TailoredStrategy(std::shared_ptr<const TailoredConfig> shared)
    : config_(std::move(shared)),
      cpu_(millicore_cpu_histogram_options(), config_->cpu, config_->min_resources.cpu_cores,
           kCpuWindow),
      memory_(memory_histogram_options(), config_->memory, config_->min_resources.memory_bytes,
              kMemoryWindow) {
  const TailoredConfig& config = *config_;
  if (config.down_confidence < 0 || config.down_confidence > TargetHistory::kHours * kHour ||
      !(config.down_threshold >= 0 && config.down_threshold < 1) ||
      !(config.cpu_rule.up_threshold >= 0) || !(config.cpu_rule.down_threshold >= 0) ||
      !(config.cpu_rule.down_threshold < 1) || !(config.cpu_rule.burst_threshold >= 0) ||
      !(config.cpu_rule.burst_margin >= 0) || config.cpu_rule.burst_hold < 0 ||
      !(config.memory_up_threshold >= 0) || config.peak_days < 0 ||
      config.peak_days > PeakMemory::kDays || !(config.peak_margin_cap >= 0)) {
    throw std::invalid_argument(
        "default strategy: down_confidence must be within 24 h, down thresholds in [0, 1), up "
        "and burst thresholds, burst margin and hold >= 0, peak_days in [0, 7], "
        "peak_margin_cap >= 0");
  }
}

void TailoredStrategy::observe(const UsageSample& s, const Resources&) {
  // Read once: to the compiler, the stores below could change `s`.
  const Seconds start = s.start, length = s.length;
  const double cpu = s.cpu_cores, memory = s.memory_peak_bytes;
  span_.add(start);
  if (ModelEnsemble::takes(cpu)) {  // one test for the ensemble and the last window
    cpu_.observe(cpu, start, length);
    last_cpu_ = cpu;
  }
  if (memory > 0 && std::isfinite(memory)) {
    memory_.observe(memory, start, length);
    peaks_.observe(memory, start);
    last_memory_peak_ = memory;
  }
}

void TailoredStrategy::on_oom(Seconds time, double request_bytes, double limit_bytes) {
  // The limit is what was hit; without one the kill came at the request's level or above.
  if (!(limit_bytes > 0)) limit_bytes = request_bytes;
  if (!std::isfinite(limit_bytes) || limit_bytes < 0) return;
  // Like VPA, bump from the larger of the limit and the peak seen in the window.
  const double used = std::max(limit_bytes, last_memory_peak_);
  if (used <= 0) return;
  const double bumped =
      std::max(used + config_->oom_min_bump_bytes, used * config_->oom_bump_ratio);
  oom_floor_ = time < oom_until_ ? std::max(oom_floor_, bumped) : bumped;
  oom_until_ = time + config_->oom_hold;
}

Recommendation TailoredStrategy::recommend(Seconds now) {
  Resources target{cpu_.best_limit(), memory_.best_limit()};
  if (config_->peak_days > 0) {
    const double margin =
        std::clamp(peaks_.margin(now, config_->peak_days), config_->peak_min_margin,
                   std::max(config_->peak_min_margin, config_->peak_margin_cap));
    target.memory_bytes =
        std::max(target.memory_bytes, peaks_.floor(now, config_->peak_days) * (1 + margin));
  }
  if (target.memory_bytes > 0) {
    // Up to the end of its memory-histogram bucket (5 % steps): the ensemble's limits and the
    // floor then move on one grid, and a steadily rising peak costs one resize per bucket, not
    // one per new record.
    const HistogramOptions& buckets = memory_histogram_options();
    target.memory_bytes = std::max(
        target.memory_bytes, buckets.bucket_start(buckets.find_bucket(target.memory_bytes) + 1));
  }
  if (now < oom_until_) target.memory_bytes = std::max(target.memory_bytes, oom_floor_);
  target = floor_at(target, config_->min_resources);
  targets_.remember(target, now);
  Recommendation r;
  r.target = r.uncapped_target = target;
  // Bounds: what the rule tolerates before moving (up threshold above, down threshold below).
  r.lower_bound = {target.cpu_cores / (1 + config_->cpu_rule.up_threshold),
                   target.memory_bytes / (1 + config_->memory_up_threshold)};
  r.upper_bound = {target.cpu_cores / (1 - config_->cpu_rule.down_threshold),
                   target.memory_bytes / (1 - config_->down_threshold)};
  return r;
}

bool TailoredStrategy::may_decrease(double target, double recent_max, double request,
                                    Seconds now) const {
  const double ceiling = request * (1 - config_->down_threshold);
  const bool settled = !changed_ || now - last_change_ >= config_->down_min_interval;
  return settled && target <= ceiling && recent_max <= ceiling;
}

Resources TailoredStrategy::next_request(const Recommendation& r, const Resources& request,
                                         Seconds now, double last_cpu) const {
  Resources next = request;
  const Resources& t = r.target;
  next.cpu_cores = next_cpu_request(config_->cpu_rule, request.cpu_cores, t.cpu_cores, last_cpu,
                                    now < cpu_hold_until_);
  // No memory decrease while an OOM bump is held: the kill showed the limit was too low.
  if (t.memory_bytes > request.memory_bytes * (1 + config_->memory_up_threshold) ||
      (now >= oom_until_ &&
       may_decrease(t.memory_bytes, targets_.recent_max(now, config_->down_confidence).memory_bytes,
                    request.memory_bytes, now))) {
    next.memory_bytes = t.memory_bytes;
  }
  return next;
}

std::optional<Resources> TailoredStrategy::decide(const Recommendation& r, const Resources& request,
                                                  Seconds now, Seconds,
                                                  const PodUsage& last) const {
  Resources next = next_request(r, request, now, last.cpu_cores);
  if (next == request) return std::nullopt;
  return next;
}

void TailoredStrategy::applied(const Resources& request, Seconds now) {
  if (changed_ && request.cpu_cores > applied_.cpu_cores) {
    cpu_hold_until_ = now + config_->cpu_rule.burst_hold;
  }
  if (!changed_ || request.memory_bytes != applied_.memory_bytes) last_change_ = now;
  applied_ = request;
  changed_ = true;
}

std::size_t TailoredStrategy::state_bytes() const {
  // Inline state (the model's numbers and pointers) plus what the ensembles keep on the heap;
  // the config is shared by all containers of a factory and not counted.
  return sizeof(*this) - sizeof(cpu_) - sizeof(memory_) + cpu_.state_bytes() +
         memory_.state_bytes();
}

namespace {
constexpr std::string_view kCheckpointTag = "default6";
}  // namespace

// The whole state, exactly: both ensembles (histograms with their carried weights, limits,
// costs, the scoring sums pending since the last catch-up), the OOM floor, the
// update rules' state (the last window's CPU, the requests last applied, the CPU hold, memory's
// last change), the day of hourly target maxima that decreases wait on and the week of daily
// memory peaks.
std::string TailoredStrategy::save() const {
  CheckpointWriter out(kCheckpointTag);
  const SampleSpan samples = span_.span();
  out.integer(samples.first).integer(samples.last).integer(samples.count);
  out.real(last_memory_peak_).real(oom_floor_).integer(oom_until_);
  out.integer(last_change_).integer(changed_);
  out.real(last_cpu_).real(applied_.cpu_cores).real(applied_.memory_bytes).integer(cpu_hold_until_);
  const TargetHistory::Codes targets = targets_.codes();
  std::array<std::int64_t, TargetHistory::kHours> cpu, memory;
  std::copy(targets.cpu.begin(), targets.cpu.end(), cpu.begin());
  std::copy(targets.memory.begin(), targets.memory.end(), memory.begin());
  out.integer(targets.newest_hour).integers(cpu.data(), cpu.size());
  out.integers(memory.data(), memory.size());
  std::array<double, PeakMemory::kDays> peaks, surprises;
  std::array<std::int64_t, PeakMemory::kDays> days;
  for (int i = 0; i < PeakMemory::kDays; ++i) {
    peaks[i] = peaks_.peaks()[i];
    surprises[i] = peaks_.surprises()[i];
    days[i] = peaks_.days()[i];
  }
  out.reals(peaks.data(), PeakMemory::kDays)
      .reals(surprises.data(), PeakMemory::kDays)
      .integers(days.data(), PeakMemory::kDays);
  cpu_.save(out);
  memory_.save(out);
  return out.str();
}

void TailoredStrategy::restore(std::string_view checkpoint) {
  if (span_.count > 0) throw CheckpointError("checkpoint: the strategy already has samples");
  CheckpointReader in(checkpoint, kCheckpointTag);
  TailoredStrategy r(config_);
  const SampleSpan samples{in.integer("first sample time"), in.integer("last sample time"),
                           in.integer("sample count")};
  if (!r.span_.assign(samples)) in.fail("sample times or count are inconsistent");
  r.last_memory_peak_ = in.non_negative("last memory peak");
  r.oom_floor_ = in.non_negative("OOM floor");
  r.oom_until_ = in.integer("OOM hold end");
  r.last_change_ = in.integer("last change time");
  r.changed_ = in.integer("changed flag") != 0;
  r.last_cpu_ = in.real("last window CPU");
  if (r.last_cpu_ < 0) r.last_cpu_ = -1;  // none yet
  r.applied_ = {in.non_negative("applied CPU request"), in.non_negative("applied memory request")};
  r.cpu_hold_until_ = in.integer("CPU hold end");
  TargetHistory::Codes targets;
  targets.newest_hour = in.integer("newest target hour");
  const std::vector<std::int64_t> cpu = in.integers("hourly CPU targets", TargetHistory::kHours);
  const std::vector<std::int64_t> memory =
      in.integers("hourly memory targets", TargetHistory::kHours);
  if (targets.newest_hour < -1) in.fail("newest target hour out of range");
  for (int i = 0; i < TargetHistory::kHours; ++i) {
    if (cpu[i] < 0 || cpu[i] > UINT16_MAX || memory[i] < 0 || memory[i] > UINT16_MAX) {
      in.fail("hourly targets out of range");
    }
    targets.cpu[i] = static_cast<std::uint16_t>(cpu[i]);
    targets.memory[i] = static_cast<std::uint16_t>(memory[i]);
  }
  r.targets_.assign(targets);
  const std::vector<double> peaks = in.reals("daily memory peaks", PeakMemory::kDays);
  const std::vector<double> surprises = in.reals("daily memory surprises", PeakMemory::kDays);
  const std::vector<std::int64_t> days = in.integers("memory peak days", PeakMemory::kDays);
  std::array<float, PeakMemory::kDays> p, q;
  std::array<std::int32_t, PeakMemory::kDays> d;
  for (int i = 0; i < PeakMemory::kDays; ++i) {
    if (days[i] < INT32_MIN || days[i] > INT32_MAX) in.fail("memory peak day out of range");
    p[i] = static_cast<float>(peaks[i]);
    q[i] = static_cast<float>(surprises[i]);
    d[i] = static_cast<std::int32_t>(days[i]);
  }
  if (!r.peaks_.assign(p, q, d)) in.fail("daily memory peaks out of range");
  r.cpu_.load(in);
  r.memory_.load(in);
  in.finish();
  *this = std::move(r);
}

namespace {
// The CPU level as the update rule's label states it: "p85 + 15%, 12h half-life" for one model.
std::string cpu_level(const EnsembleConfig& c) {
  if (c.half_lives.size() != 1 || c.percentiles.size() != 1 || c.margins.size() != 1 ||
      !c.profile_ranks.empty()) {
    return "the best of " +
           std::to_string(c.half_lives.size() * c.percentiles.size() * c.margins.size()) +
           " models" + (c.profile_ranks.empty() ? "" : " and daily profiles");
  }
  char label[64];
  std::snprintf(label, sizeof label, "p%g + %g%%, %gh half-life", c.percentiles[0] * 100,
                c.margins[0] * 100, double(c.half_lives[0]) / kHour);
  return label;
}

class TailoredFactory final : public StrategyFactory {
 public:
  explicit TailoredFactory(const TailoredConfig& config)
      : config_(std::make_shared<const TailoredConfig>(config)) {}
  std::string name() const override { return "default"; }
  std::string update_rule() const override {
    return "cpu: to the level (" + cpu_level(config_->cpu) +
           ") when it moves >15%, at once to a window's mean + 20% when it exceeds the request by "
           "30%, not lowered for 30 min after a raise; memory: up at once, down only after 24h of "
           "targets >=5% lower and >=24h since the last memory change, not below the week's "
           "largest peak + its margin, nor lowered for 3d after an OOM";
  }
  std::unique_ptr<Strategy> create() const override {
    return std::make_unique<TailoredStrategy>(config_);
  }

 private:
  std::shared_ptr<const TailoredConfig> config_;
};
}  // namespace

std::unique_ptr<StrategyFactory> make_tailored_strategy(const TailoredConfig& config) {
  return std::make_unique<TailoredFactory>(config);
}

std::unique_ptr<StrategyFactory> make_default_strategy() { return make_tailored_strategy({}); }

}  // namespace tailor::recommender
