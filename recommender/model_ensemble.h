#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "recommender/daily_profile.h"
#include "recommender/ensemble_histogram.h"

namespace tailor::recommender {

class CheckpointReader;
class CheckpointWriter;

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
  // Daily-profile models (empty ranks = none): limit = (1 + margin) * the predicted peak of the
  // next profile_lookahead (DailyProfile::peak with each rank). They compete on the same cost,
  // and may win only once the profile holds profile_min_days days.
  // > 0: score models by the figures replay charges instead of the pinball loss (see
  // ModelEnsemble::score_ratios); the price of one unit of shortfall in units of slack.
  double shortfall_price = 0;
  double change_price = 0;  // per relative limit change per day, in units of slack
  std::vector<int> profile_ranks;
  std::vector<double> profile_margins;
  Seconds profile_lookahead = kHour;
  int profile_min_days = 3;
};

class ModelEnsemble {
 public:
  // min_limit: limits are applied at least at this (the minimum resources), and scored so.
  // The ensemble keeps a pointer to `config`, which must outlive it.
  ModelEnsemble(const HistogramOptions& options, const EnsembleConfig& config,
                double min_limit = 0);
  ModelEnsemble(ModelEnsemble&&) noexcept;
  ModelEnsemble& operator=(ModelEnsemble&&) noexcept;
  ~ModelEnsemble();

  // Scores every model's current limit against `usage` over a window of `length`, then adds
  // the sample to the histograms and recomputes the limits. No allocation.
  void observe(double usage, Seconds time, Seconds length = kCostUnit);

  // Overrun/underrun costs count per 5 minutes of usage, so that the balance against the
  // change penalty does not depend on how often samples come.
  static constexpr Seconds kCostUnit = 300;
  // The limit proposed by the model with the lowest recent cost (0 before any sample).
  double best_limit() const;
  std::size_t best_model() const;
  // Whether the best model is a daily-profile one (its limit follows the time of day).
  bool best_is_profile() const { return profile_ready() && best_model() >= histogram_models_; }
  std::size_t models() const { return models_; }
  // Model m's current limit and recent cost. Models are views: a histogram model's limit is
  // (1 + margin) x one percentile of one half-life's histogram, computed when asked.
  double limit(std::size_t m) const;
  double cost(std::size_t m) const { return costs()[m]; }
  std::size_t state_bytes() const;
  // Checkpoint: histograms, limits, costs and the running level, exactly. load() reads into a
  // fresh ensemble with the same options and config; it throws CheckpointError for a
  // checkpoint of another shape (e.g. other half-lives or models) or with invalid values.
  void save(CheckpointWriter& out) const;
  void load(CheckpointReader& in);

 private:
  struct FigureSums;
  void add(double usage, Seconds time);
  void score_pinball(double usage, double weight, double decay, double scale);
  void score_ratios(double usage, double weight, double decay, const std::vector<double>& previous);
  void charge_changes(const double* before, double scale);
  void recompute_limits(Seconds next_window);
  bool profile_ready() const;
  std::size_t percentile_count() const { return config_->percentiles.size(); }
  std::size_t margin_count() const { return config_->margins.size(); }
  // values_ holds, in one block: the models' costs, the percentile of each (half-life,
  // percentile) pair, then the limits of the daily-profile models.
  double* costs() { return values_.get(); }
  const double* costs() const { return values_.get(); }
  double* percentiles() { return values_.get() + models_; }
  const double* percentiles() const { return values_.get() + models_; }
  double* profile_limits() { return percentiles() + percentile_pairs_; }
  const double* profile_limits() const { return percentiles() + percentile_pairs_; }

  const EnsembleConfig* config_;
  EnsembleHistogram histogram_;
  std::unique_ptr<double[]> values_;
  std::unique_ptr<DailyProfile> profile_;  // only with profile models
  std::unique_ptr<FigureSums> sums_;       // only with shortfall_price > 0
  double min_limit_ = 0;
  double level_ = 0;  // running usage level that makes costs unit-free
  Seconds last_time_ = 0;
  std::uint32_t models_ = 0;
  std::uint32_t histogram_models_ = 0;
  std::uint32_t percentile_pairs_ = 0;  // half-lives x percentiles
  bool has_sample_ = false;
};

}  // namespace tailor::recommender
