#include "recommender/checkpoint.h"
#include "recommender/strategy.h"
#include "recommender/update_rule.h"
#include "recommender/vpa_estimator.h"
#include "recommender/vpa_knobs.h"
#include "recommender/vpa_model.h"

namespace tailor::recommender {
namespace {

class VpaStrategy final : public Strategy {
 public:
  explicit VpaStrategy(const VpaEstimatorConfig& estimator) : estimator_(estimator) {}
  void observe(const UsageSample& s, const Resources& request) override {
    model_.add_cpu_sample(s.start, s.cpu_cores, request.cpu_cores);
    if (s.memory_peak_bytes > 0) model_.add_memory_sample(s.start, s.memory_peak_bytes);
  }
  // VPA's OOM observer records the container's memory request, not its limit
  // (recommender/input/oom/observer.go), and the model bumps from that.
  void on_oom(Seconds time, double request_bytes, double) override {
    model_.record_oom(time, request_bytes);
  }
  Recommendation recommend(Seconds) override { return vpa_recommend(model_, estimator_); }
  std::optional<Resources> decide(const Recommendation& r, const Resources& request, Seconds,
                                  Seconds pod_age, const PodUsage& last) const override {
    if (!vpa_should_apply(rule_, request, r, pod_age, last.oom_run)) return std::nullopt;
    return r.target;
  }
  std::size_t state_bytes() const override { return model_.state_bytes(); }
  // VPA's own checkpoint (scaled histograms, sample span and count); the update rule keeps no
  // state, and the knobs act on the estimate only, so every variant reads the same checkpoint.
  std::string save() const override { return format_checkpoint(model_.save()); }
  void restore(std::string_view checkpoint) override {
    if (!checkpoint.starts_with("v1;")) {
      throw CheckpointError("checkpoint: not one of the vpa strategy (want 'v1;...')");
    }
    model_.load(parse_checkpoint(std::string(checkpoint)));
  }
  SampleSpan samples() const override {
    const ModelCheckpoint c = model_.save();
    return {c.first_sample, c.last_sample, c.total_samples};
  }

 private:
  VpaEstimatorConfig estimator_;
  VpaContainerModel model_;
  VpaUpdateRule rule_;
};

class VpaFactory final : public StrategyFactory {
 public:
  VpaFactory(std::string name, const VpaKnobs& knobs)
      : name_(std::move(name)), estimator_(vpa_estimator_config(knobs)) {}
  std::string name() const override { return name_; }
  std::string update_rule() const override {
    return "outside [lower, upper], or after an OOM kill <10m into a run, or >=10% summed change "
           "and >=12h since last change";
  }
  std::unique_ptr<Strategy> create() const override {
    return std::make_unique<VpaStrategy>(estimator_);
  }

 private:
  std::string name_;
  VpaEstimatorConfig estimator_;
};

}  // namespace

std::unique_ptr<StrategyFactory> make_vpa_strategy(const std::string& spec) {
  return std::make_unique<VpaFactory>(spec, parse_vpa_knobs(spec));
}

}  // namespace tailor::recommender
