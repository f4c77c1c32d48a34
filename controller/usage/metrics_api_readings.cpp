#include "controller/usage/metrics_api_readings.h"

namespace tailor::controller::usage {

MetricsApiReadings::MetricsApiReadings(kube::metrics::Registry& registry) {
  kube::metrics::Vec<prometheus::Counter> readings = registry.counter(
      {.subsystem = "controller",
       .name = "metrics_api_readings_total",
       .help = "Container readings listed from metrics.k8s.io, by outcome: fed, stale (already "
               "fed by the previous poll) or streamed (a node agent streams the container)."});
  fed_ = &readings.with({{"outcome", "fed"}});
  stale_ = &readings.with({{"outcome", "stale"}});
  streamed_ = &readings.with({{"outcome", "streamed"}});
}

void MetricsApiReadings::add(std::uint64_t fed, std::uint64_t stale, std::uint64_t streamed) {
  fed_->Increment(static_cast<double>(fed));
  stale_->Increment(static_cast<double>(stale));
  streamed_->Increment(static_cast<double>(streamed));
}

}  // namespace tailor::controller::usage
