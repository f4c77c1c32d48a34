#include "controller/usage/metrics_api_poller.h"

#include "kube/observe/log.h"

namespace tailor::controller::usage {
namespace {

// A container's agent window is forgotten once it covers no reading ending in the last ten
// minutes: metrics-server serves readings of its last scrape or two, never that old.
constexpr std::int64_t kForgetStreamedAfterMs = 10 * 60 * 1000;

}  // namespace

const kube::ResourceType kPodMetrics{
    .group = "metrics.k8s.io", .version = "v1beta1", .resource = "pods", .namespaced = true};

MetricsApiPoller::MetricsApiPoller(kube::RestClient& client, MetricsApiPollerOptions options,
                                   UsageSink sink)
    : client_(client),
      options_(options),
      readings_(options.metrics ? *options.metrics : kube::metrics::registry()),
      sink_(std::move(sink)) {}

MetricsApiPoller::~MetricsApiPoller() { stop(); }

void MetricsApiPoller::start() {
  std::lock_guard lock(mutex_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      poll_once();
      lock.lock();
      wake_.wait_for(lock, options_.interval, [this] { return stopping_; });
    }
  });
}

void MetricsApiPoller::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void MetricsApiPoller::poll_once() {
  std::string body;
  try {
    body = client_.list({.type = kPodMetrics});
  } catch (const kube::ApiError& e) {
    std::lock_guard lock(mutex_);
    ++stats_.failures;
    if (!e.is_not_found()) {
      kube::log::error(e, "Listing PodMetrics failed", {{"code", e.code()}});
    } else if (!told_not_served_) {
      told_not_served_ = true;
      kube::log::warning(
          "The metrics.k8s.io API is not served (is metrics-server installed?); polling on",
          {{"interval", options_.interval}});
    }
    return;
  } catch (const std::exception& e) {
    std::lock_guard lock(mutex_);
    ++stats_.failures;
    kube::log::error(e, "Listing PodMetrics failed");
    return;
  }
  try {
    PodMetricsWindows parsed = windows_from_pod_metrics(body);
    std::lock_guard lock(mutex_);
    told_not_served_ = false;  // served now: a later 404 is news again
    // Unusable readings first, so that one from a clock far ahead does not make the next
    // good ones look stale.
    const std::int64_t now = unix_now_ms();
    FeedCounts dropped = drop_unusable(parsed.windows, now);
    const std::size_t usable = parsed.windows.size();
    std::vector<UsageWindow> fresh = fresh_.keep_fresh(std::move(parsed.windows));
    const std::size_t streamed = skip_streamed(fresh, now);
    const std::size_t stale = usable - fresh.size() - streamed;
    FeedCounts fed = feed_windows(fresh, sink_, now);
    ++stats_.polls;
    stats_.fed += fed.fed;
    stats_.dropped += dropped.dropped + fed.dropped;
    stats_.stale += stale;
    stats_.streamed += streamed;
    stats_.unreadable += parsed.skipped;
    readings_.add(fed.fed, stale, streamed);
    if (auto v = kube::log::v(2)) {
      // streamed: readings a node agent's stream already brings (not counted twice).
      v.info("PodMetrics polled", {{"fed", fed.fed}, {"stale", stale}, {"streamed", streamed}});
    }
    if (parsed.skipped > 0) {
      kube::log::warning("Some PodMetrics could not be read",
                         {{"skipped", parsed.skipped}, {"first", parsed.first_problem}});
    }
    if (dropped.dropped > 0) {
      kube::log::warning("Some PodMetrics windows were unusable",
                         {{"dropped", dropped.dropped}, {"first", dropped.first_problem}});
    }
  } catch (const std::exception& e) {
    std::lock_guard lock(mutex_);
    ++stats_.failures;
    kube::log::error(e, "Reading the PodMetricsList failed");
  }
}

std::size_t MetricsApiPoller::skip_streamed(std::vector<UsageWindow>& fresh, std::int64_t now) {
  if (!options_.streamed) return 0;
  options_.streamed->forget_uncovered_since(now - kForgetStreamedAfterMs);
  return std::erase_if(fresh, [&](const UsageWindow& w) { return options_.streamed->covers(w); });
}

PollStats MetricsApiPoller::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace tailor::controller::usage
