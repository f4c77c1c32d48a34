// Prometheus metrics for every Tailor process: a process-wide prometheus-cpp Registry with
// Kubernetes-style names (namespace_subsystem_name, counters end in _total, units as suffixes)
// and stability levels in HELP ("[ALPHA] ..."), exposed in the text format by the /metrics
// endpoint (endpoint.h).
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tailor::kube::metrics {

using Labels = prometheus::Labels;

// As in k8s.io/component-base/metrics: shown as a "[ALPHA] " / "[BETA] " / "[STABLE] " prefix
// of the help text.
enum class Stability { Alpha, Beta, Stable };

struct Opts {
  std::string namespace_ = "tailor";
  std::string subsystem{};
  std::string name{};
  std::string help{};
  Labels const_labels{};
  Stability stability = Stability::Alpha;
};

// namespace_subsystem_name with empty parts left out, like Prometheus' BuildFQName.
std::string fq_name(std::string_view namespace_, std::string_view subsystem, std::string_view name);

// prometheus.DefBuckets: 0.005 ... 10 (seconds).
std::vector<double> default_buckets();
// start, start*factor, ...: count buckets; start > 0, factor > 1, count >= 1.
std::vector<double> exponential_buckets(double start, double factor, int count);
// start, start+width, ...: count buckets; width > 0, count >= 1.
std::vector<double> linear_buckets(double start, double width, int count);

// A family of time series that differ by label values.
template <class Metric>
class Vec {
 public:
  explicit Vec(prometheus::Family<Metric>& family) : family_(&family) {}
  Metric& with(const Labels& labels = {}) const { return family_->Add(labels); }
  prometheus::Family<Metric>& family() const { return *family_; }

 private:
  prometheus::Family<Metric>* family_;
};

class HistogramVec {
 public:
  HistogramVec(prometheus::Family<prometheus::Histogram>& family, std::vector<double> buckets)
      : family_(&family), buckets_(std::move(buckets)) {}
  prometheus::Histogram& with(const Labels& labels = {}) const {
    return family_->Add(labels, buckets_);
  }

 private:
  prometheus::Family<prometheus::Histogram>* family_;
  std::vector<double> buckets_;
};

// Registration validates names and labels and throws std::invalid_argument naming the metric.
// Registering the same name and type again returns the existing family.
class Registry {
 public:
  Registry();
  Vec<prometheus::Counter> counter(const Opts& opts);
  Vec<prometheus::Gauge> gauge(const Opts& opts);
  HistogramVec histogram(const Opts& opts, std::vector<double> buckets = default_buckets());

  // Adds metrics computed at scrape time (e.g. the process collector).
  void add_collector(std::shared_ptr<prometheus::Collectable> collector);
  // Adds whole families written at scrape time straight in the text format (exposition.h),
  // after everything else: for series too many for MetricFamily objects.
  using TextCollector = std::function<void(std::string& out)>;
  void add_text_collector(TextCollector collector);

  // The text exposition format (version 0.0.4), as served on /metrics.
  std::string serialize() const;
  const std::shared_ptr<prometheus::Registry>& prometheus() const { return registry_; }

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  std::vector<std::shared_ptr<prometheus::Collectable>> collectors_;
  std::vector<TextCollector> text_collectors_;
  mutable std::unique_ptr<std::mutex> mu_ = std::make_unique<std::mutex>();
};

// The process-wide registry; it carries the process_* metrics (process_metrics.h).
Registry& registry();

}  // namespace tailor::kube::metrics
