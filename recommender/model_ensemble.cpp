#include "recommender/model_ensemble.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tailor::recommender {

ModelEnsemble::ModelEnsemble(const HistogramOptions& options, const EnsembleConfig& config)
    : config_(&config),
      histogram_(options, config.half_lives),
      percentiles_(config.percentiles),
      margin_factors_(config.margins) {
  margin_factors_ += 1.0;
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
  const arma::uword n =
      config.half_lives.size() * config.percentiles.size() * config.margins.size();
  limits_.zeros(n);
  costs_.zeros(n);
}

void ModelEnsemble::observe(double usage, Seconds time, Seconds length) {
  if (!std::isfinite(usage) || usage < 0) return;
  const double weight = static_cast<double>(std::max<Seconds>(length, 1)) / kCostUnit;
  if (has_sample_) {
    const double dt = static_cast<double>(time - last_time_);
    const double decay =
        std::exp2(-std::max(0.0, dt) / static_cast<double>(config_->cost_half_life));
    level_ = decay * level_ + (1 - decay) * usage;
    const double scale = level_ > 0 ? level_ : 1.0;
    const arma::vec over = arma::clamp(usage - limits_, 0.0, arma::datum::inf);
    const arma::vec under = arma::clamp(limits_ - usage, 0.0, arma::datum::inf);
    costs_ = decay * costs_ + weight * (config_->tau * over + (1 - config_->tau) * under) / scale;
    const arma::vec previous = limits_;
    histogram_.add_sample(usage, time);
    recompute_limits();
    costs_ += config_->change_penalty * arma::abs(limits_ - previous) / scale;
  } else {
    level_ = usage;
    histogram_.add_sample(usage, time);
    recompute_limits();
  }
  last_time_ = time;
  has_sample_ = true;
}

void ModelEnsemble::recompute_limits() {
  const arma::mat p = histogram_.percentiles(percentiles_);  // half-lives x percentiles
  const arma::uword n_margins = margin_factors_.n_elem;
  arma::uword m = 0;
  for (arma::uword k = 0; k < p.n_rows; ++k) {
    for (arma::uword q = 0; q < p.n_cols; ++q) {
      limits_.subvec(m, m + n_margins - 1) = p(k, q) * margin_factors_;
      m += n_margins;
    }
  }
}

arma::uword ModelEnsemble::best_model() const { return costs_.index_min(); }

double ModelEnsemble::best_limit() const { return has_sample_ ? limits_[best_model()] : 0.0; }

std::size_t ModelEnsemble::state_bytes() const {
  return sizeof(*this) - sizeof(histogram_) + histogram_.state_bytes() +
         (limits_.n_elem + costs_.n_elem + percentiles_.n_elem + margin_factors_.n_elem) *
             sizeof(double);
}

}  // namespace tailor::recommender
