#include "recommender/model_ensemble.h"

#include <algorithm>
#include <armadillo>
#include <cmath>
#include <stdexcept>

#include "recommender/checkpoint_text.h"

namespace tailor::recommender {

// Decayed sums for the figures, only with shortfall_price > 0: per model Σ idle limit,
// Σ limit, Σ usage above the limit and Σ relative limit changes; Σ usage, Σ window weight.
struct ModelEnsemble::FigureSums {
  arma::vec idle, limits, excess, changes;
  double usage = 0, windows = 0;
};

ModelEnsemble::~ModelEnsemble() = default;
ModelEnsemble::ModelEnsemble(ModelEnsemble&&) noexcept = default;
ModelEnsemble& ModelEnsemble::operator=(ModelEnsemble&&) noexcept = default;

ModelEnsemble::ModelEnsemble(const HistogramOptions& options, const EnsembleConfig& config,
                             double min_limit)
    : config_(&config), histogram_(options, config.half_lives), min_limit_(min_limit) {
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
  percentile_pairs_ = static_cast<std::uint32_t>(config.half_lives.size() * percentile_count());
  histogram_models_ = static_cast<std::uint32_t>(percentile_pairs_ * margin_count());
  const std::size_t profile_models = config.profile_ranks.size() * config.profile_margins.size();
  models_ = static_cast<std::uint32_t>(histogram_models_ + profile_models);
  values_.reset(new double[models_ + percentile_pairs_ + profile_models]());
  if (config.shortfall_price > 0) {
    sums_ = std::make_unique<FigureSums>();
    for (arma::vec* v : {&sums_->idle, &sums_->limits, &sums_->excess, &sums_->changes}) {
      v->zeros(models_);
    }
  }
  if (!config.profile_ranks.empty()) profile_ = std::make_unique<DailyProfile>();
}

double ModelEnsemble::limit(std::size_t m) const {
  if (m >= histogram_models_) return profile_limits()[m - histogram_models_];
  return percentiles()[m / margin_count()] * (1.0 + config_->margins[m % margin_count()]);
}

void ModelEnsemble::observe(double usage, Seconds time, Seconds length) {
  if (!std::isfinite(usage) || usage < 0) return;
  const double weight = static_cast<double>(std::max<Seconds>(length, 1)) / kCostUnit;
  if (!has_sample_) {
    level_ = usage;
    add(usage, time);
    recompute_limits(time + length);
    last_time_ = time;
    has_sample_ = true;
    return;
  }
  const double dt = static_cast<double>(time - last_time_);
  const double decay = std::exp2(-std::max(0.0, dt) / static_cast<double>(config_->cost_half_life));
  level_ = decay * level_ + (1 - decay) * usage;
  if (sums_) {
    std::vector<double> previous(models_);
    for (std::size_t m = 0; m < models_; ++m) previous[m] = limit(m);
    add(usage, time);
    recompute_limits(time + length);
    score_ratios(usage, weight, decay, previous);
    last_time_ = time;
    return;
  }
  const double scale = level_ > 0 ? level_ : 1.0;
  score_pinball(usage, weight, decay, scale);
  // The limits are views of the percentiles, so the previous limits are the few percentiles
  // (and profile limits) before the sample, kept on the stack, not one value per model.
  constexpr std::size_t kInline = 32;
  double inline_before[kInline];
  std::vector<double> heap_before;
  const std::size_t kept = percentile_pairs_ + (models_ - histogram_models_);
  double* before = inline_before;
  if (kept > kInline) {
    heap_before.resize(kept);
    before = heap_before.data();
  }
  std::copy(percentiles(), percentiles() + kept, before);
  add(usage, time);
  recompute_limits(time + length);
  charge_changes(before, scale);
  last_time_ = time;
}

// cost_m = decayed Σ of the pinball loss of limit_m: tau per unit of overrun, 1 - tau per unit
// of idle limit, in units of the usage level.
void ModelEnsemble::score_pinball(double usage, double weight, double decay, double scale) {
  const double tau = config_->tau;
  double* cost = costs();
  for (std::size_t m = 0; m < models_; ++m) {
    const double l = limit(m);
    const double over = std::max(usage - l, 0.0);
    const double under = std::max(l - usage, 0.0);
    cost[m] = decay * cost[m] + weight * (tau * over + (1 - tau) * under) / scale;
  }
}

// + change_penalty per relative change of limit_m. Only the models of a percentile that moved
// pay (the others' change is 0).
void ModelEnsemble::charge_changes(const double* before, double scale) {
  const double penalty = config_->change_penalty;
  const std::size_t margins = margin_count();
  double* cost = costs();
  const double* now = percentiles();
  for (std::size_t pair = 0; pair < percentile_pairs_; ++pair) {
    if (now[pair] == before[pair]) continue;
    for (std::size_t i = 0; i < margins; ++i) {
      const double factor = 1.0 + config_->margins[i];
      const double change = std::fabs(now[pair] * factor - before[pair] * factor);
      cost[pair * margins + i] += penalty * change / scale;
    }
  }
  const double* profile_before = before + percentile_pairs_;
  for (std::size_t m = histogram_models_; m < models_; ++m) {
    const std::size_t i = m - histogram_models_;
    cost[m] += penalty * std::fabs(profile_limits()[i] - profile_before[i]) / scale;
  }
}

// cost_m = Σ idle_m / Σ limit_m + shortfall_price * Σ excess_m / Σ usage
//          + change_price * (relative changes of limit_m per day)
// over the decayed recent windows: the slack and shortfall ratios replay reports, for the limit
// each model would have applied (never below min_limit, as the minimum resources apply).
void ModelEnsemble::score_ratios(double usage, double weight, double decay,
                                 const std::vector<double>& previous_limits) {
  FigureSums& f = *sums_;
  const arma::vec previous(previous_limits);
  arma::vec limits(models_);
  for (std::size_t m = 0; m < models_; ++m) limits[m] = limit(m);
  const arma::vec applied = arma::clamp(previous, min_limit_, arma::datum::inf);
  f.idle = decay * f.idle + weight * arma::clamp(applied - usage, 0.0, arma::datum::inf);
  f.limits = decay * f.limits + weight * applied;
  f.excess = decay * f.excess + weight * arma::clamp(usage - applied, 0.0, arma::datum::inf);
  f.usage = decay * f.usage + weight * usage;
  f.windows = decay * f.windows + weight;
  const arma::vec next = arma::clamp(limits, min_limit_, arma::datum::inf);
  f.changes =
      decay * f.changes + arma::abs(next - applied) / arma::clamp(applied, 1e-12, arma::datum::inf);
  const double per_day = static_cast<double>(kDay) / kCostUnit / f.windows;
  const arma::vec costs = f.idle / arma::clamp(f.limits, 1e-300, arma::datum::inf) +
                          config_->shortfall_price * f.excess / std::max(f.usage, 1e-300) +
                          config_->change_price * per_day * f.changes;
  std::copy(costs.begin(), costs.end(), this->costs());
}

void ModelEnsemble::add(double usage, Seconds time) {
  histogram_.add_sample(usage, time);
  if (profile_) profile_->observe(usage, time);
}

bool ModelEnsemble::profile_ready() const {
  return profile_ && profile_->days() >= config_->profile_min_days;
}

void ModelEnsemble::recompute_limits(Seconds next_window) {
  histogram_.percentiles(config_->percentiles.data(), percentile_count(), percentiles());
  double* profile = profile_limits();
  for (int rank : config_->profile_ranks) {
    const double peak = profile_->peak(next_window, next_window + config_->profile_lookahead, rank);
    for (double margin : config_->profile_margins) *profile++ = peak * (1 + margin);
  }
}

std::size_t ModelEnsemble::best_model() const {
  const std::size_t n = profile_ready() ? models_ : histogram_models_;
  return static_cast<std::size_t>(std::min_element(costs(), costs() + n) - costs());
}

double ModelEnsemble::best_limit() const { return has_sample_ ? limit(best_model()) : 0.0; }

std::size_t ModelEnsemble::state_bytes() const {
  const std::size_t values = models_ + percentile_pairs_ + (models_ - histogram_models_);
  return sizeof(*this) - sizeof(histogram_) + histogram_.state_bytes() + values * sizeof(double) +
         (sums_ ? sizeof(FigureSums) + 4 * models_ * sizeof(double) : 0) +
         (profile_ ? profile_->state_bytes() : 0);
}

namespace {
void load_values(CheckpointReader& in, const char* what, std::size_t n, double* out) {
  const std::vector<double> v = in.reals(what, n);
  for (double x : v) {
    if (x < 0) in.fail(std::string(what) + " has a negative entry");
  }
  std::copy(v.begin(), v.end(), out);
}
}  // namespace

// The limits are written out per model (as before they were views), so that checkpoints keep
// their format; on load they must be the views of the loaded histograms.
void ModelEnsemble::save(CheckpointWriter& out) const {
  out.integer(static_cast<std::int64_t>(config_->half_lives.size()))
      .integer(static_cast<std::int64_t>(models_));
  out.integer(has_sample_).integer(last_time_).real(level_);
  std::vector<double> limits(models_);
  for (std::size_t m = 0; m < models_; ++m) limits[m] = limit(m);
  out.reals(limits.data(), models_);
  out.reals(costs(), models_);
  histogram_.save(out);
  if (sums_) {
    for (const arma::vec* v : {&sums_->idle, &sums_->limits, &sums_->excess, &sums_->changes}) {
      out.reals(v->memptr(), v->n_elem);
    }
    out.real(sums_->usage).real(sums_->windows);
  }
  if (profile_) profile_->save(out);
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
  has_sample_ = in.integer("ensemble sample flag") != 0;
  last_time_ = in.integer("ensemble last sample time");
  level_ = in.non_negative("ensemble usage level");
  std::vector<double> limits(models_);
  load_values(in, "ensemble limits", models_, limits.data());
  load_values(in, "ensemble costs", models_, costs());
  histogram_.load(in);
  if (sums_) {
    for (arma::vec* v : {&sums_->idle, &sums_->limits, &sums_->excess, &sums_->changes}) {
      load_values(in, "ensemble figure sums", models_, v->memptr());
    }
    sums_->usage = in.non_negative("ensemble usage sum");
    sums_->windows = in.non_negative("ensemble window sum");
  }
  if (profile_) profile_->load(in);
  histogram_.percentiles(config_->percentiles.data(), percentile_count(), percentiles());
  std::copy(limits.begin() + histogram_models_, limits.end(), profile_limits());
  for (std::size_t m = 0; m < histogram_models_; ++m) {
    if (limit(m) != limits[m]) in.fail("ensemble limits do not match its histograms");
  }
}

}  // namespace tailor::recommender
