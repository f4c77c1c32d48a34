#pragma once

#include <armadillo>
#include <vector>

#include "recommender/ensemble_histogram.h"

namespace tailor::recommender {

// Autopilot-style ensemble (Rzadca et al., EuroSys 2020, section 4.2) for one resource: every
// model m = (half-life, percentile, margin) proposes a limit L_m = (1 + margin) * percentile of
// its decayed usage histogram. Each model is scored on what its own limit would have done:
// a pinball (quantile) loss with target quantile tau, which charges tau per unit of overrun and
// (1 - tau) per unit of idle limit, plus a penalty per relative change of its limit. Costs decay
// with cost_half_life, so the winner is the model with the lowest recent cost.
struct EnsembleConfig {
  std::vector<Seconds> half_lives;
  std::vector<double> percentiles;
  std::vector<double> margins;
  double tau = 0.95;  // quantile of usage the limit should sit at
  // Cost of one change of a model's limit, per unit of relative change (|dL| / usage level),
  // in units of 5 minutes of overrun at the usage level.
  double change_penalty = 0.5;
  Seconds cost_half_life = kDay;
};

class ModelEnsemble {
 public:
  ModelEnsemble(const HistogramOptions& options, const EnsembleConfig& config);

  // Scores every model's current limit against `usage` over a window of `length`, then adds
  // the sample to the histograms and recomputes the limits.
  void observe(double usage, Seconds time, Seconds length = kCostUnit);

  // Overrun/underrun costs count per 5 minutes of usage, so that the balance against the
  // change penalty does not depend on how often samples come.
  static constexpr Seconds kCostUnit = 300;
  // The limit proposed by the model with the lowest recent cost (0 before any sample).
  double best_limit() const;
  arma::uword best_model() const;
  const arma::vec& limits() const { return limits_; }
  const arma::vec& costs() const { return costs_; }
  std::size_t state_bytes() const;

 private:
  void recompute_limits();

  const EnsembleConfig* config_;
  EnsembleHistogram histogram_;
  arma::vec percentiles_;
  arma::vec margin_factors_;  // 1 + margin
  arma::vec limits_;          // per model, ordered (half-life, percentile, margin)
  arma::vec costs_;
  double level_ = 0;  // running usage level that makes costs unit-free
  Seconds last_time_ = 0;
  bool has_sample_ = false;
};

}  // namespace tailor::recommender
