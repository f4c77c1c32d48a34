#include "recommender/model_ensemble.h"

#include <algorithm>
#include <armadillo>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "recommender/checkpoint_text.h"

namespace tailor::recommender {

// What only non-default configurations use, kept off the per-container state otherwise.
struct ModelEnsemble::Extras {
  // Decayed sums for the figures, only with shortfall_price > 0: per model Σ idle limit,
  // Σ limit, Σ usage above the limit and Σ relative limit changes; Σ usage, Σ window weight.
  struct FigureSums {
    arma::vec idle, limits, excess, changes;
    double usage = 0, windows = 0;
  };
  std::unique_ptr<FigureSums> sums;
  std::unique_ptr<DailyProfile> profile;  // with profile models
  std::vector<double> profile_limits;     // their limits
  double min_limit = 0;                   // what the figure sums apply
};

namespace {
// The start of the hour after the one `t` falls in (times before the epoch too; saturated).
Seconds next_hour(Seconds t) {
  if (t > std::numeric_limits<Seconds>::max() - kHour) return std::numeric_limits<Seconds>::max();
  const Seconds into = t % kHour;
  return t - (into < 0 ? into + kHour : into) + kHour;
}
}  // namespace

ModelEnsemble::~ModelEnsemble() = default;
ModelEnsemble::ModelEnsemble(ModelEnsemble&&) noexcept = default;
ModelEnsemble& ModelEnsemble::operator=(ModelEnsemble&&) noexcept = default;

ModelEnsemble::ModelEnsemble(const HistogramOptions& options, const EnsembleConfig& config,
                             double min_limit, int window)
    : config_(&config), histogram_(options, config.half_lives, window) {
  if (config.half_lives.empty() || config.percentiles.empty() || config.margins.empty() ||
      !std::is_sorted(config.percentiles.begin(), config.percentiles.end()) ||
      config.percentiles.front() <= 0 || config.percentiles.back() > 1 || !(config.tau > 0) ||
      !(config.tau < 1) || !(config.cost_half_life > 0)) {
    throw std::invalid_argument(
        "ensemble: needs half-lives, ascending percentiles in (0, 1], margins, tau in (0, 1) "
        "and a positive cost half-life");
  }
  for (Seconds h : config.half_lives) {
    if (h <= 0) throw std::invalid_argument("ensemble: half-lives must be positive");
  }
  for (int rank : config.profile_ranks) {
    if (rank < 1 || rank > DailyProfile::kDays || config.profile_margins.empty() ||
        config.profile_lookahead <= 0) {
      throw std::invalid_argument(
          "ensemble: profile ranks must be in [1, 7], with margins and a positive lookahead");
    }
  }
  const std::size_t pairs = config.half_lives.size() * percentile_count();
  const std::size_t profile_models = config.profile_ranks.size() * config.profile_margins.size();
  if (pairs * margin_count() + profile_models > UINT16_MAX) {
    throw std::invalid_argument("ensemble: more than 65535 models");
  }
  percentile_pairs_ = static_cast<std::uint16_t>(pairs);
  histogram_models_ = static_cast<std::uint16_t>(pairs * margin_count());
  models_ = static_cast<std::uint16_t>(histogram_models_ + profile_models);
  if (config.shortfall_price > 0 || profile_models > 0) {
    extras_ = std::make_unique<Extras>();
    extras_->profile_limits.assign(profile_models, 0.0);
  }
  block_.reset(new std::byte[block_bytes()]());
  if (pending_bytes() > 0) pending() = Pending{1, 0, 0, 0};
  std::fill(buckets(), buckets() + percentile_pairs_, EnsembleHistogram::kNone);
  if (config.shortfall_price > 0) {
    extras_->min_limit = min_limit;
    extras_->sums = std::make_unique<Extras::FigureSums>();
    Extras::FigureSums& f = *extras_->sums;
    for (arma::vec* v : {&f.idle, &f.limits, &f.excess, &f.changes}) v->zeros(models_);
  }
  if (!config.profile_ranks.empty()) extras_->profile = std::make_unique<DailyProfile>();
}

double* ModelEnsemble::profile_limits() {
  return extras_ ? extras_->profile_limits.data() : nullptr;
}
const double* ModelEnsemble::profile_limits() const {
  return extras_ ? extras_->profile_limits.data() : nullptr;
}

double ModelEnsemble::limit(std::size_t m) const {
  if (m >= histogram_models_) return profile_limits()[m - histogram_models_];
  return histogram_.bucket_end(buckets()[m / margin_count()]) *
         (1.0 + config_->margins[m % margin_count()]);
}

// The first sample, the first after a catch-up, the period close, and the configurations that
// score eagerly.
void ModelEnsemble::observe_rarely(double usage, Seconds time, Seconds length) {
  if (histogram_.empty()) {  // the first sample: limits at once, nothing to score yet
    level_ = usage;
    add(usage, time);
    recompute_limits(time + length);
    if (pending_bytes() > 0) pending().lowest_limit = lowest_limit();
    return;
  }
  if (extras_) {
    observe_eagerly(usage, time, length);
    return;
  }
  // The period close (the sample is the first of a new hour), or the first sample after a
  // catch-up (nothing to catch up then).
  catch_up();
  score_lazily(usage, time, length);
  open_period(usage, time);
}

// Daily profile or figure sums: the limits and costs after every sample.
void ModelEnsemble::observe_eagerly(double usage, Seconds time, Seconds length) {
  const double decay = decay_over(time - histogram_.last_time());
  const double weight = weight_of(length);
  level_ = decay * level_ + (1 - decay) * usage;
  if (extras_->sums) {
    std::vector<double> previous(models_);
    for (std::size_t m = 0; m < models_; ++m) previous[m] = limit(m);
    add(usage, time);
    recompute_limits(time + length);
    score_ratios(usage, weight, decay, previous);
    return;
  }
  const double scale = level_ > 0 ? level_ : 1.0;
  score_pinball(usage, weight, decay, scale);
  std::vector<double> profile_before = extras_->profile_limits;
  add(usage, time);
  recompute_and_charge(time + length, profile_before.data(), scale);
}

// The first sample after a catch-up: its weight exactly, and the hour it opens.
void ModelEnsemble::open_period(double usage, Seconds time) {
  histogram_.add_sample(usage, time, config_->half_lives);
  stale_ = true;
  close_at_ = next_hour(time);
}

// A sample above the lowest limit: an overrun for some model, scored now, model by model.
void ModelEnsemble::score_overrun(double usage, double decay, Seconds length) {
  fold_pending();
  score_pinball(usage, weight_of(length), decay, level_ > 0 ? level_ : 1.0);
}

void ModelEnsemble::set_decay_gap(Seconds gap) {
  decay_gap_ = gap;
  decay_ = std::exp2(-std::max(0.0, static_cast<double>(gap)) /
                     static_cast<double>(config_->cost_half_life));
}

void ModelEnsemble::catch_up() {
  if (!stale_) return;
  stale_ = false;
  if (models_ == 1) {  // nothing to choose between: no costs to keep
    recompute_limits(histogram_.last_time());
    return;
  }
  fold_pending();
  recompute_and_charge(histogram_.last_time(), nullptr, level_ > 0 ? level_ : 1.0);
  pending().lowest_limit = lowest_limit();
}

// The pending sums into the costs, against the limits they were gathered under: each model's
// cost decays by the pending decay and pays (1 - tau) per unit of idle limit (no sample in the
// sums was above any limit).
void ModelEnsemble::fold_pending() {
  Pending& p = pending();
  if (p.weight == 0) return;  // every sample adds a positive weight: none came
  const double idle_price = (1 - config_->tau) / (level_ > 0 ? level_ : 1.0);
  const std::size_t margins = margin_count();
  const double* margin = config_->margins.data();
  Cost* cost = costs();
  for (std::size_t pair = 0; pair < percentile_pairs_; ++pair) {
    const double percentile = histogram_.bucket_end(buckets()[pair]);
    for (std::size_t i = 0; i < margins; ++i, ++cost) {
      const double limit = percentile * (1.0 + margin[i]);
      *cost = static_cast<Cost>(p.decay * *cost + idle_price * (limit * p.weight - p.usage));
    }
  }
  p.decay = 1;
  p.weight = p.usage = 0;
}

// The lowest of the limits (percentile x (1 + margin)): from the lowest and highest percentile
// and each margin, the same products limit() forms.
double ModelEnsemble::lowest_limit() const {
  double low = histogram_.bucket_end(buckets()[0]), high = low;
  for (std::size_t pair = 1; pair < percentile_pairs_; ++pair) {
    const double end = histogram_.bucket_end(buckets()[pair]);
    low = std::min(low, end);
    high = std::max(high, end);
  }
  double lowest = std::numeric_limits<double>::infinity();
  for (double margin : config_->margins) {
    const double factor = 1.0 + margin;
    lowest = std::min(lowest, (factor >= 0 ? low : high) * factor);
  }
  return lowest;
}

// Recomputes the limits and charges each model for its change. The limits are views of the
// percentiles, so the previous limits are the few percentile buckets (and profile limits)
// before, kept on the stack, not one per model.
void ModelEnsemble::recompute_and_charge(Seconds next_window, const double* profile_before,
                                         double scale) {
  constexpr std::size_t kInline = 64;
  Bucket inline_before[kInline];
  std::vector<Bucket> heap_before;
  Bucket* before = inline_before;
  if (percentile_pairs_ > kInline) {
    heap_before.resize(percentile_pairs_);
    before = heap_before.data();
  }
  std::copy(buckets(), buckets() + percentile_pairs_, before);
  recompute_limits(next_window);
  charge_changes(before, profile_before, scale);
}

// cost_m = decayed Σ of the pinball loss of limit_m: tau per unit of overrun, 1 - tau per unit
// of idle limit, in units of the usage level.
void ModelEnsemble::score_pinball(double usage, double weight, double decay, double scale) {
  // Per unit of overrun and of idle limit, this window.
  const double over_price = weight * config_->tau / scale;
  const double idle_price = weight * (1 - config_->tau) / scale;
  auto score = [&](Cost& cost, double limit) {
    const double over = std::max(usage - limit, 0.0), idle = std::max(limit - usage, 0.0);
    cost = static_cast<Cost>(decay * cost + over_price * over + idle_price * idle);
  };
  const std::size_t margins = margin_count();
  const double* margin = config_->margins.data();
  Cost* cost = costs();
  for (std::size_t pair = 0; pair < percentile_pairs_; ++pair) {
    const double percentile = histogram_.bucket_end(buckets()[pair]);
    for (std::size_t i = 0; i < margins; ++i) score(*cost++, percentile * (1.0 + margin[i]));
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(models_ - histogram_models_); ++i) {
    score(*cost++, profile_limits()[i]);
  }
}

// + change_penalty per relative change of limit_m. Only the models of a percentile that moved
// pay (the others' change is 0).
void ModelEnsemble::charge_changes(const Bucket* before, const double* profile_before,
                                   double scale) {
  const double penalty = config_->change_penalty;
  const std::size_t margins = margin_count();
  Cost* cost = costs();
  const Bucket* now = buckets();
  for (std::size_t pair = 0; pair < percentile_pairs_; ++pair) {
    if (now[pair] == before[pair]) continue;
    const double was = histogram_.bucket_end(before[pair]), is = histogram_.bucket_end(now[pair]);
    for (std::size_t i = 0; i < margins; ++i) {
      const double factor = 1.0 + config_->margins[i];
      const double change = std::fabs(is * factor - was * factor);
      cost[pair * margins + i] =
          static_cast<Cost>(cost[pair * margins + i] + penalty * change / scale);
    }
  }
  for (std::size_t m = histogram_models_; m < models_; ++m) {
    const std::size_t i = m - histogram_models_;
    cost[m] = static_cast<Cost>(
        cost[m] + penalty * std::fabs(profile_limits()[i] - profile_before[i]) / scale);
  }
}

// cost_m = Σ idle_m / Σ limit_m + shortfall_price * Σ excess_m / Σ usage
//          + change_price * (relative changes of limit_m per day)
// over the decayed recent windows: the slack and shortfall ratios replay reports, for the limit
// each model would have applied (never below min_limit, as the minimum resources apply).
void ModelEnsemble::score_ratios(double usage, double weight, double decay,
                                 const std::vector<double>& previous_limits) {
  Extras::FigureSums& f = *extras_->sums;
  const arma::vec previous(previous_limits);
  arma::vec limits(models_);
  for (std::size_t m = 0; m < models_; ++m) limits[m] = limit(m);
  const arma::vec applied = arma::clamp(previous, extras_->min_limit, arma::datum::inf);
  f.idle = decay * f.idle + weight * arma::clamp(applied - usage, 0.0, arma::datum::inf);
  f.limits = decay * f.limits + weight * applied;
  f.excess = decay * f.excess + weight * arma::clamp(usage - applied, 0.0, arma::datum::inf);
  f.usage = decay * f.usage + weight * usage;
  f.windows = decay * f.windows + weight;
  const arma::vec next = arma::clamp(limits, extras_->min_limit, arma::datum::inf);
  f.changes =
      decay * f.changes + arma::abs(next - applied) / arma::clamp(applied, 1e-12, arma::datum::inf);
  const double per_day = static_cast<double>(kDay) / kCostUnit / f.windows;
  const arma::vec costs = f.idle / arma::clamp(f.limits, 1e-300, arma::datum::inf) +
                          config_->shortfall_price * f.excess / std::max(f.usage, 1e-300) +
                          config_->change_price * per_day * f.changes;
  for (std::size_t m = 0; m < models_; ++m) this->costs()[m] = static_cast<Cost>(costs[m]);
}

void ModelEnsemble::add(double usage, Seconds time) {
  histogram_.add_sample(usage, time, config_->half_lives);
  if (extras_ && extras_->profile) extras_->profile->observe(usage, time);
}

bool ModelEnsemble::profile_ready() const {
  return extras_ && extras_->profile && extras_->profile->days() >= config_->profile_min_days;
}

void ModelEnsemble::recompute_limits(Seconds next_window) {
  histogram_.percentile_buckets(config_->percentiles.data(), percentile_count(), buckets());
  double* profile = profile_limits();
  for (int rank : config_->profile_ranks) {
    const double peak =
        extras_->profile->peak(next_window, next_window + config_->profile_lookahead, rank);
    for (double margin : config_->profile_margins) *profile++ = peak * (1 + margin);
  }
}

std::size_t ModelEnsemble::best_model() const {
  const std::size_t n = profile_ready() ? models_ : histogram_models_;
  return static_cast<std::size_t>(std::min_element(costs(), costs() + n) - costs());
}

double ModelEnsemble::best_limit() {
  catch_up();
  return histogram_.empty() ? 0.0 : limit(best_model());
}

std::size_t ModelEnsemble::state_bytes() const {
  std::size_t extras = 0;
  if (extras_) {
    extras = sizeof(Extras) + extras_->profile_limits.capacity() * sizeof(double) +
             (extras_->sums ? sizeof(Extras::FigureSums) + 4 * models_ * sizeof(double) : 0) +
             (extras_->profile ? extras_->profile->state_bytes() : 0);
  }
  return sizeof(*this) - sizeof(histogram_) + histogram_.state_bytes() + block_bytes() + extras;
}

namespace {
template <typename T>
void load_values(CheckpointReader& in, const char* what, std::size_t n, T* out) {
  const std::vector<double> v = in.reals(what, n);
  for (double x : v) {
    if (x < 0) in.fail(std::string(what) + " has a negative entry");
  }
  std::copy(v.begin(), v.end(), out);
}
}  // namespace

void ModelEnsemble::save(CheckpointWriter& out) const {
  out.integer(static_cast<std::int64_t>(config_->half_lives.size()))
      .integer(static_cast<std::int64_t>(models_));
  out.real(level_).integer(stale_);
  if (pending_bytes() > 0) out.real(pending().decay).real(pending().weight).real(pending().usage);
  std::vector<std::int64_t> pairs(buckets(), buckets() + percentile_pairs_);
  out.integers(pairs.data(), pairs.size());
  out.floats(costs(), models_);
  histogram_.save(out);
  if (extras_) out.reals(extras_->profile_limits.data(), extras_->profile_limits.size());
  if (extras_ && extras_->sums) {
    const Extras::FigureSums& f = *extras_->sums;
    for (const arma::vec* v : {&f.idle, &f.limits, &f.excess, &f.changes}) {
      out.reals(v->memptr(), v->n_elem);
    }
    out.real(f.usage).real(f.windows);
  }
  if (extras_ && extras_->profile) extras_->profile->save(out);
}

void ModelEnsemble::load(CheckpointReader& in) {
  const std::int64_t half_lives = in.integer("ensemble half-life count");
  const std::int64_t models = in.integer("ensemble model count");
  if (half_lives != static_cast<std::int64_t>(config_->half_lives.size()) ||
      models != static_cast<std::int64_t>(models_)) {
    in.fail("ensemble of " + std::to_string(half_lives) + " half-lives and " +
            std::to_string(models) + " models, this configuration has " +
            std::to_string(config_->half_lives.size()) + " and " + std::to_string(models_));
  }
  level_ = in.non_negative("ensemble usage level");
  const std::int64_t stale = in.integer("ensemble catch-up flag");
  if (stale != 0 && stale != 1) in.fail("ensemble catch-up flag is not 0 or 1");
  stale_ = stale != 0;
  if (pending_bytes() > 0) {
    Pending& p = pending();
    p.decay = in.non_negative("ensemble pending decay");
    p.weight = in.non_negative("ensemble pending weight");
    p.usage = in.non_negative("ensemble pending usage");
    if (!(p.decay > 0 && p.decay <= 1)) in.fail("ensemble pending decay outside (0, 1]");
  }
  const std::vector<std::int64_t> pairs =
      in.integers("ensemble percentile buckets", percentile_pairs_);
  for (std::int64_t b : pairs) {
    if (b != EnsembleHistogram::kNone && (b < 0 || b >= histogram_.num_buckets())) {
      in.fail("ensemble percentile bucket out of range");
    }
  }
  std::copy(pairs.begin(), pairs.end(), buckets());
  const std::vector<float> costs = in.floats("ensemble costs", models_);
  std::copy(costs.begin(), costs.end(), this->costs());
  histogram_.load(in, config_->half_lives);
  if (pending_bytes() > 0) pending().lowest_limit = lowest_limit();
  // The period a stale stretch closes: every sample since the catch-up fell in the hour of the
  // last one (a later hour would have closed it).
  close_at_ = next_hour(histogram_.last_time());
  if (extras_) {
    load_values(in, "ensemble profile limits", extras_->profile_limits.size(),
                extras_->profile_limits.data());
  }
  if (extras_ && extras_->sums) {
    Extras::FigureSums& f = *extras_->sums;
    for (arma::vec* v : {&f.idle, &f.limits, &f.excess, &f.changes}) {
      load_values(in, "ensemble figure sums", models_, v->memptr());
    }
    f.usage = in.non_negative("ensemble usage sum");
    f.windows = in.non_negative("ensemble window sum");
  }
  if (extras_ && extras_->profile) extras_->profile->load(in);
}

}  // namespace tailor::recommender
