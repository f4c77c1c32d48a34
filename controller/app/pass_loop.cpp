#include "controller/app/pass_loop.h"

#include <chrono>

#include "controller/usage/prometheus_bootstrap.h"
#include "kube/observe/log.h"

namespace tailor::controller {
namespace {

kube::TimePoint wall_now() { return kube::TimePoint(std::chrono::system_clock::now()); }

// Before the first pass (after a refresh: which pods belong to which policy, so that the history
// finds its models). Pods that no longer exist match no policy: their windows are
// counted as unmatched (VPA maps them through pod labels scraped into Prometheus; Tailor's
// checkpoints already keep what the models learnt from them).
void bootstrap_history(Controller& controller, const ProcessOptions& o, std::int64_t until_s,
                       const std::atomic<bool>& stopping) {
  const ControllerStats before = controller.stats();
  usage::bootstrap_from_prometheus(
      o.usage_sources.prometheus, until_s,
      [&](const usage::UsageWindow& w) { controller.on_usage(w); },
      [&] { return stopping.load(); });
  const ControllerStats after = controller.stats();
  kube::log::info("Usage history folded into the models",
                  {{"windows", after.windows - before.windows},
                   {"unmatched", after.windows_unmatched - before.windows_unmatched}});
}

}  // namespace

PassLoop::PassLoop(Controller& controller, const ProcessOptions& options)
    : controller_(controller), options_(options), leading_(!options.leader_elect) {}

PassLoop::~PassLoop() { stop(); }

void PassLoop::start(std::int64_t started_s, usage::MetricsApiPoller* poller) {
  thread_ = std::thread([this, started_s, poller] { run(started_s, poller); });
}

void PassLoop::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void PassLoop::stopped_leading() {
  leading_ = false;
  state_loaded_ = false;
}

void PassLoop::run(std::int64_t started_s, usage::MetricsApiPoller* poller) {
  if (!wait_for_sync()) return;
  synced_ = true;
  prepare(started_s, poller);
  while (!stopping_) {
    pass();
    sleep_interval();
  }
}

// False when stopped first: the informers may never sync (an API server that is unreachable).
bool PassLoop::wait_for_sync() {
  while (!controller_.wait_for_sync(std::chrono::seconds(1))) {
    if (stopping_) return false;
  }
  return true;
}

void PassLoop::prepare(std::int64_t started_s, usage::MetricsApiPoller* poller) {
  const bool from_prometheus = options_.usage_sources.storage == "prometheus";
  if (from_prometheus || poller) {
    // Which pods belong to which policy, so that the first windows find their models.
    controller_.refresh(wall_now());
  }
  if (from_prometheus) bootstrap_history(controller_, options_, started_s, stopping_);
  if (poller) poller->start();
}

void PassLoop::pass() {
  const kube::TimePoint now = wall_now();
  try {
    if (leading_) {
      if (!state_loaded_) {
        controller_.load_state();
        state_loaded_ = true;
      }
      controller_.run_pass(now);
    } else {
      controller_.refresh(now);
    }
  } catch (const std::exception& e) {
    kube::log::error(e, "Pass failed; retried at the next interval");
  }
}

// In steps of a tenth of a second, so that a stop does not wait for the whole interval.
void PassLoop::sleep_interval() {
  const auto until =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(options_.pass_interval);
  while (!stopping_ && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace tailor::controller
