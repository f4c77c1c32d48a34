#include "controller/app/controller_metrics.h"

#include "kube/observe/metrics.h"

namespace tailor::controller {

namespace m = kube::metrics;

struct ControllerMetrics::Impl {
  m::Vec<prometheus::Counter> resizes, recreations, windows, actions, boosts, reverts,
      boosted_windows;
  m::HistogramVec pass_duration;
  m::Vec<prometheus::Gauge> policies, boosted_pods, models, model_bytes;

  explicit Impl(m::Registry& r)
      : resizes(r.counter({.subsystem = "controller",
                           .name = "resizes_total",
                           .help = "In-place resizes (PATCH pods/{name}/resize) by outcome."})),
        recreations(r.counter({.subsystem = "controller",
                               .name = "recreations_total",
                               .help = "Pods evicted to be recreated right-sized, by result."})),
        windows(r.counter({.subsystem = "controller",
                           .name = "usage_windows_total",
                           .help = "Usage windows received, by whether a policy covers the pod."})),
        actions(r.counter({.subsystem = "controller",
                           .name = "pass_actions_total",
                           .help = "Resizes and recreations decided by passes."})),
        boosts(r.counter({.subsystem = "controller",
                          .name = "startup_boosts_total",
                          .help = "Pods given a start-up CPU boost at creation, by outcome."})),
        reverts(r.counter({.subsystem = "controller",
                           .name = "startup_boost_reverts_total",
                           .help = "Start-up boosts taken back in place, by result."})),
        boosted_windows(
            r.counter({.subsystem = "controller",
                       .name = "usage_windows_boosted_total",
                       .help = "Usage windows of boosted containers, kept out of the models."})),
        pass_duration(r.histogram({.subsystem = "controller",
                                   .name = "pass_duration_seconds",
                                   .help = "Time of one pass: recommendations, decisions, writes."},
                                  m::exponential_buckets(0.001, 2, 16))),
        policies(r.gauge({.subsystem = "controller",
                          .name = "policies",
                          .help = "Policies whose condition of this type is True."})),
        boosted_pods(r.gauge({.subsystem = "controller",
                              .name = "boosted_pods",
                              .help = "Pods carrying a start-up CPU boost not yet taken back."})),
        models(r.gauge({.subsystem = "controller",
                        .name = "models",
                        .help = "Containers the recommender keeps usage models for."})),
        model_bytes(r.gauge({.subsystem = "controller",
                             .name = "model_bytes",
                             .help = "Bytes of state of the usage models."})) {}
};

// Every known series starts at zero, so dashboards and rate() see it before the first event.
ControllerMetrics::ControllerMetrics(m::Registry& registry)
    : impl_(std::make_unique<Impl>(registry)) {
  for (const char* outcome :
       {"requested", "refused", "forbidden", "quota", "unsupported", "failed"}) {
    impl_->resizes.with({{"outcome", outcome}});
  }
  for (const char* result : {"evicted", "blocked", "failed"}) {
    impl_->recreations.with({{"result", result}});
  }
  impl_->windows.with({{"matched", "true"}});
  impl_->windows.with({{"matched", "false"}});
  impl_->actions.with();
  impl_->boosts.with({{"outcome", "boosted"}});
  impl_->boosts.with({{"outcome", "skipped"}});
  impl_->reverts.with({{"result", "reverted"}});
  impl_->reverts.with({{"result", "failed"}});
  impl_->boosted_windows.with();
  impl_->pass_duration.with();
  impl_->boosted_pods.with();
  impl_->models.with();
  impl_->model_bytes.with();
}

ControllerMetrics::~ControllerMetrics() = default;

void ControllerMetrics::resize(std::string_view outcome) {
  impl_->resizes.with({{"outcome", std::string(outcome)}}).Increment();
}

void ControllerMetrics::recreation(std::string_view result) {
  impl_->recreations.with({{"result", std::string(result)}}).Increment();
}

void ControllerMetrics::pass(std::chrono::nanoseconds duration, std::size_t actions) {
  impl_->pass_duration.with().Observe(std::chrono::duration<double>(duration).count());
  impl_->actions.with().Increment(static_cast<double>(actions));
}

void ControllerMetrics::usage_window(bool matched) {
  impl_->windows.with({{"matched", matched ? "true" : "false"}}).Increment();
}

void ControllerMetrics::startup_boost(std::string_view outcome) {
  impl_->boosts.with({{"outcome", std::string(outcome)}}).Increment();
}

void ControllerMetrics::startup_boost_revert(std::string_view result) {
  impl_->reverts.with({{"result", std::string(result)}}).Increment();
}

void ControllerMetrics::boosted_window() { impl_->boosted_windows.with().Increment(); }

void ControllerMetrics::set_boosted_pods(double count) { impl_->boosted_pods.with().Set(count); }

void ControllerMetrics::set_policies(std::string_view condition, double count) {
  impl_->policies.with({{"condition", std::string(condition)}}).Set(count);
}

void ControllerMetrics::set_models(double containers, double bytes) {
  impl_->models.with().Set(containers);
  impl_->model_bytes.with().Set(bytes);
}

ControllerMetrics& controller_metrics() {
  static ControllerMetrics metrics(m::registry());
  return metrics;
}

}  // namespace tailor::controller
