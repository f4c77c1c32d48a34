#include "kube/observe/metrics.h"

#include <prometheus/text_serializer.h>

#include <stdexcept>

#include "kube/observe/process_metrics.h"

namespace tailor::kube::metrics {
namespace {

bool valid_metric_name(std::string_view n) {
  if (n.empty()) return false;
  for (std::size_t i = 0; i < n.size(); ++i) {
    char c = n[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool valid_label_name(std::string_view n) {
  return valid_metric_name(n) && n.find(':') == std::string_view::npos && n.substr(0, 2) != "__";
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

[[noreturn]] void invalid(const std::string& name, const std::string& why) {
  throw std::invalid_argument("metric \"" + name + "\": " + why);
}

enum class Kind { Counter, Gauge, Histogram };

// Kubernetes' instrumentation conventions, as promlint checks them.
std::string checked_name(const Opts& o, Kind kind) {
  std::string name = fq_name(o.namespace_, o.subsystem, o.name);
  if (!valid_metric_name(name)) invalid(name, "invalid name");
  if (o.help.empty()) invalid(name, "help text is required");
  bool total = ends_with(name, "_total");
  if (kind == Kind::Counter && !total) invalid(name, "counter names must end in _total");
  if (kind != Kind::Counter && total) invalid(name, "only counters may end in _total");
  for (const auto& [label, value] : o.const_labels) {
    if (!valid_label_name(label)) invalid(name, "invalid label name \"" + label + "\"");
  }
  return name;
}

std::string help_text(const Opts& o) {
  switch (o.stability) {
    case Stability::Beta:
      return "[BETA] " + o.help;
    case Stability::Stable:
      return "[STABLE] " + o.help;
    default:
      return "[ALPHA] " + o.help;
  }
}

template <class Builder>
auto& build(Builder builder, const Opts& o, const std::string& name, prometheus::Registry& r) {
  try {
    return builder.Name(name).Help(help_text(o)).Labels(o.const_labels).Register(r);
  } catch (const std::invalid_argument& e) {
    invalid(name, e.what());  // e.g. registered before with another type
  }
}

}  // namespace

std::string fq_name(std::string_view namespace_, std::string_view subsystem,
                    std::string_view name) {
  if (name.empty()) return "";
  std::string out;
  for (std::string_view part : {namespace_, subsystem}) {
    if (!part.empty()) out.append(part).append("_");
  }
  return out.append(name);
}

std::vector<double> default_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

std::vector<double> exponential_buckets(double start, double factor, int count) {
  if (count < 1) throw std::invalid_argument("exponential_buckets: count must be at least 1");
  if (!(start > 0)) throw std::invalid_argument("exponential_buckets: start must be positive");
  if (!(factor > 1)) throw std::invalid_argument("exponential_buckets: factor must exceed 1");
  std::vector<double> b;
  for (int i = 0; i < count; ++i, start *= factor) b.push_back(start);
  return b;
}

std::vector<double> linear_buckets(double start, double width, int count) {
  if (count < 1) throw std::invalid_argument("linear_buckets: count must be at least 1");
  if (!(width > 0)) throw std::invalid_argument("linear_buckets: width must be positive");
  std::vector<double> b;
  for (int i = 0; i < count; ++i) b.push_back(start + width * i);
  return b;
}

Registry::Registry() : registry_(std::make_shared<prometheus::Registry>()) {}

Vec<prometheus::Counter> Registry::counter(const Opts& opts) {
  auto name = checked_name(opts, Kind::Counter);
  return Vec<prometheus::Counter>(build(prometheus::BuildCounter(), opts, name, *registry_));
}

Vec<prometheus::Gauge> Registry::gauge(const Opts& opts) {
  auto name = checked_name(opts, Kind::Gauge);
  return Vec<prometheus::Gauge>(build(prometheus::BuildGauge(), opts, name, *registry_));
}

HistogramVec Registry::histogram(const Opts& opts, std::vector<double> buckets) {
  auto name = checked_name(opts, Kind::Histogram);
  if (buckets.empty()) invalid(name, "histogram needs at least one bucket");
  for (std::size_t i = 1; i < buckets.size(); ++i) {
    if (!(buckets[i] > buckets[i - 1])) invalid(name, "buckets must be strictly increasing");
  }
  return HistogramVec(build(prometheus::BuildHistogram(), opts, name, *registry_),
                      std::move(buckets));
}

void Registry::add_collector(std::shared_ptr<prometheus::Collectable> collector) {
  std::lock_guard lock(*mu_);
  collectors_.push_back(std::move(collector));
}

std::string Registry::serialize() const {
  auto families = registry_->Collect();
  std::lock_guard lock(*mu_);
  for (const auto& c : collectors_) {
    auto more = c->Collect();
    families.insert(families.end(), std::make_move_iterator(more.begin()),
                    std::make_move_iterator(more.end()));
  }
  std::string text = prometheus::TextSerializer().Serialize(families);
  for (const TextCollector& c : text_collectors_) c(text);
  return text;
}

void Registry::add_text_collector(TextCollector collector) {
  std::lock_guard lock(*mu_);
  text_collectors_.push_back(std::move(collector));
}

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry();  // never destroyed: metrics may be updated during exit
    reg->add_collector(make_process_collector());
    return reg;
  }();
  return *r;
}

}  // namespace tailor::kube::metrics
