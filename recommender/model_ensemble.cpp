#include "recommender/model_ensemble.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "recommender/checkpoint_text.h"

namespace tailor::recommender {

ModelEnsemble::ModelEnsemble(const HistogramOptions& options, const EnsembleConfig& config,
                             double min_limit)
    : config_(&config),
      histogram_(options, config.half_lives),
      percentiles_(config.percentiles),
      margin_factors_(config.margins) {
  margin_factors_ += 1.0;
  min_limit_ = min_limit;
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
  histogram_models_ = config.half_lives.size() * config.percentiles.size() * config.margins.size();
  const arma::uword n =
      histogram_models_ + config.profile_ranks.size() * config.profile_margins.size();
  limits_.zeros(n);
  costs_.zeros(n);
  if (config.shortfall_price > 0) {
    sums_ = std::make_unique<FigureSums>();
    for (arma::vec* v : {&sums_->idle, &sums_->limits, &sums_->excess, &sums_->changes}) {
      v->zeros(n);
    }
  }
  if (!config.profile_ranks.empty()) profile_ = std::make_unique<DailyProfile>();
}

void ModelEnsemble::observe(double usage, Seconds time, Seconds length) {
  if (!std::isfinite(usage) || usage < 0) return;
  const double weight = static_cast<double>(std::max<Seconds>(length, 1)) / kCostUnit;
  if (has_sample_) {
    const double dt = static_cast<double>(time - last_time_);
    const double decay =
        std::exp2(-std::max(0.0, dt) / static_cast<double>(config_->cost_half_life));
    level_ = decay * level_ + (1 - decay) * usage;
    if (config_->shortfall_price > 0) {
      const arma::vec previous = limits_;
      add(usage, time);
      recompute_limits(time + length);
      score_ratios(usage, weight, decay, previous);
      last_time_ = time;
      return;
    }
    const double scale = level_ > 0 ? level_ : 1.0;
    const arma::vec over = arma::clamp(usage - limits_, 0.0, arma::datum::inf);
    const arma::vec under = arma::clamp(limits_ - usage, 0.0, arma::datum::inf);
    costs_ = decay * costs_ + weight * (config_->tau * over + (1 - config_->tau) * under) / scale;
    const arma::vec previous = limits_;
    add(usage, time);
    recompute_limits(time + length);
    costs_ += config_->change_penalty * arma::abs(limits_ - previous) / scale;
  } else {
    level_ = usage;
    add(usage, time);
    recompute_limits(time + length);
  }
  last_time_ = time;
  has_sample_ = true;
}

// cost_m = Σ idle_m / Σ limit_m + shortfall_price * Σ excess_m / Σ usage
//          + change_price * (relative changes of limit_m per day)
// over the decayed recent windows: the slack and shortfall ratios replay reports, for the limit
// each model would have applied (never below min_limit, as the minimum resources apply).
void ModelEnsemble::score_ratios(double usage, double weight, double decay,
                                 const arma::vec& previous) {
  FigureSums& f = *sums_;
  const arma::vec applied = arma::clamp(previous, min_limit_, arma::datum::inf);
  f.idle = decay * f.idle + weight * arma::clamp(applied - usage, 0.0, arma::datum::inf);
  f.limits = decay * f.limits + weight * applied;
  f.excess = decay * f.excess + weight * arma::clamp(usage - applied, 0.0, arma::datum::inf);
  f.usage = decay * f.usage + weight * usage;
  f.windows = decay * f.windows + weight;
  const arma::vec next = arma::clamp(limits_, min_limit_, arma::datum::inf);
  f.changes =
      decay * f.changes + arma::abs(next - applied) / arma::clamp(applied, 1e-12, arma::datum::inf);
  const double per_day = static_cast<double>(kDay) / kCostUnit / f.windows;
  costs_ = f.idle / arma::clamp(f.limits, 1e-300, arma::datum::inf) +
           config_->shortfall_price * f.excess / std::max(f.usage, 1e-300) +
           config_->change_price * per_day * f.changes;
}

void ModelEnsemble::add(double usage, Seconds time) {
  histogram_.add_sample(usage, time);
  if (profile_) profile_->observe(usage, time);
}

bool ModelEnsemble::profile_ready() const {
  return profile_ && profile_->days() >= config_->profile_min_days;
}

void ModelEnsemble::recompute_limits(Seconds next_window) {
  const arma::mat p = histogram_.percentiles(percentiles_);  // half-lives x percentiles
  const arma::uword n_margins = margin_factors_.n_elem;
  arma::uword m = 0;
  for (arma::uword k = 0; k < p.n_rows; ++k) {
    for (arma::uword q = 0; q < p.n_cols; ++q) {
      limits_.subvec(m, m + n_margins - 1) = p(k, q) * margin_factors_;
      m += n_margins;
    }
  }
  for (int rank : config_->profile_ranks) {
    const double peak = profile_->peak(next_window, next_window + config_->profile_lookahead, rank);
    for (double margin : config_->profile_margins) limits_[m++] = peak * (1 + margin);
  }
}

arma::uword ModelEnsemble::best_model() const {
  if (profile_ready()) return costs_.index_min();
  return costs_.head(histogram_models_).index_min();
}

double ModelEnsemble::best_limit() const { return has_sample_ ? limits_[best_model()] : 0.0; }

std::size_t ModelEnsemble::state_bytes() const {
  return sizeof(*this) - sizeof(histogram_) + histogram_.state_bytes() +
         (limits_.n_elem + costs_.n_elem + percentiles_.n_elem + margin_factors_.n_elem +
          (sums_ ? 4 * limits_.n_elem : 0)) *
             sizeof(double) +
         (sums_ ? sizeof(FigureSums) : 0) + (profile_ ? profile_->state_bytes() : 0);
}

namespace {
void save_vec(CheckpointWriter& out, const arma::vec& v) { out.reals(v.memptr(), v.n_elem); }

arma::vec load_vec(CheckpointReader& in, const char* what, arma::uword n) {
  const std::vector<double> v = in.reals(what, n);
  for (double x : v) {
    if (x < 0) in.fail(std::string(what) + " has a negative entry");
  }
  return arma::vec(v);
}
}  // namespace

void ModelEnsemble::save(CheckpointWriter& out) const {
  out.integer(static_cast<std::int64_t>(config_->half_lives.size()))
      .integer(static_cast<std::int64_t>(limits_.n_elem));
  out.integer(has_sample_).integer(last_time_).real(level_);
  save_vec(out, limits_);
  save_vec(out, costs_);
  histogram_.save(out);
  if (sums_) {
    for (const arma::vec* v : {&sums_->idle, &sums_->limits, &sums_->excess, &sums_->changes}) {
      save_vec(out, *v);
    }
    out.real(sums_->usage).real(sums_->windows);
  }
  if (profile_) profile_->save(out);
}

void ModelEnsemble::load(CheckpointReader& in) {
  const std::int64_t half_lives = in.integer("ensemble half-life count");
  const std::int64_t models = in.integer("ensemble model count");
  if (half_lives != static_cast<std::int64_t>(config_->half_lives.size()) ||
      models != static_cast<std::int64_t>(limits_.n_elem)) {
    in.fail("ensemble of " + std::to_string(half_lives) + " half-lives and " +
            std::to_string(models) + " models, this configuration has " +
            std::to_string(config_->half_lives.size()) + " and " + std::to_string(limits_.n_elem));
  }
  has_sample_ = in.integer("ensemble sample flag") != 0;
  last_time_ = in.integer("ensemble last sample time");
  level_ = in.non_negative("ensemble usage level");
  limits_ = load_vec(in, "ensemble limits", limits_.n_elem);
  costs_ = load_vec(in, "ensemble costs", costs_.n_elem);
  histogram_.load(in);
  if (sums_) {
    for (arma::vec* v : {&sums_->idle, &sums_->limits, &sums_->excess, &sums_->changes}) {
      *v = load_vec(in, "ensemble figure sums", limits_.n_elem);
    }
    sums_->usage = in.non_negative("ensemble usage sum");
    sums_->windows = in.non_negative("ensemble window sum");
  }
  if (profile_) profile_->load(in);
}

}  // namespace tailor::recommender
