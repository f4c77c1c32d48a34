#include "kube/client/leader_election_elector.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace tailor::kube {
namespace {

using Steady = std::chrono::steady_clock;

template <class F>
void call(const F& callback) {
  if (callback) callback();
}

}  // namespace

LeaderElector::LeaderElector(std::shared_ptr<LeaseLock> lock, LeaderElectionConfig config,
                             LeaderCallbacks callbacks, Now now)
    : lock_(std::move(lock)),
      config_(std::move(config)),
      callbacks_(std::move(callbacks)),
      now_(std::move(now)),
      random_(std::random_device{}()) {
  validate(config_);
  if (!lock_) throw LeaderElectionConfigError("leader election: no lease lock");
  if (!now_) throw LeaderElectionConfigError("leader election: no clock");
}

LeaderElector::~LeaderElector() { stop(); }

void LeaderElector::start() {
  {
    std::lock_guard lock(mutex_);
    if (started_) throw std::logic_error("leader election: started twice");
    started_ = true;
  }
  thread_ = std::thread([this] { run(); });
}

void LeaderElector::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool LeaderElector::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

bool LeaderElector::is_leader() const {
  std::lock_guard lock(mutex_);
  return leading_;
}

std::string LeaderElector::leader() const {
  std::lock_guard lock(mutex_);
  return observed_.holder_identity;
}

bool LeaderElector::wait(std::chrono::milliseconds delay) {
  std::unique_lock lock(mutex_);
  return !stop_changed_.wait_for(lock, delay, [this] { return stopping_; });
}

void LeaderElector::observe(const LeaseRecord& record, WallClock::time_point now) {
  std::lock_guard lock(mutex_);
  observed_ = record;
  observed_since_ = now;
}

bool LeaderElector::try_acquire_or_renew() {
  const auto now = now_();
  std::optional<LeaseState> current;
  try {
    current = lock_->get();
    if (!current) {
      LeaseDecision decision = decide_lease(std::nullopt, now, now, config_);
      lock_->create(decision.record);
      observe(decision.record, now);
      return true;
    }
  } catch (const std::exception& e) {
    spdlog::warn("leader election {}: cannot read or create the lease: {}", lock_->describe(),
                 e.what());
    return false;
  }
  WallClock::time_point since;
  {
    std::lock_guard lock(mutex_);
    // Expiry is measured from when this candidate first saw the record as it is now.
    if (current->record != observed_) {
      observed_ = current->record;
      observed_since_ = now;
    }
    since = observed_since_;
  }
  LeaseDecision decision = decide_lease(current->record, since, now, config_);
  if (decision.action == LeaseAction::Wait) return false;
  try {
    lock_->update(decision.record, current->resource_version);
  } catch (const ApiError& e) {
    if (e.is_conflict()) {
      spdlog::info("leader election {}: lost an update race", lock_->describe());
    } else {
      spdlog::warn("leader election {}: update failed: {}", lock_->describe(), e.what());
    }
    return false;
  } catch (const std::exception& e) {
    spdlog::warn("leader election {}: update failed: {}", lock_->describe(), e.what());
    return false;
  }
  observe(decision.record, now);
  return true;
}

void LeaderElector::report_transition() {
  std::string holder;
  {
    std::lock_guard lock(mutex_);
    if (observed_.holder_identity == reported_leader_) return;
    reported_leader_ = observed_.holder_identity;
    holder = reported_leader_;
  }
  if (callbacks_.on_new_leader) callbacks_.on_new_leader(holder);
}

bool LeaderElector::acquire() {
  std::uniform_real_distribution<double> jitter(0.0, kLeaderElectionJitter);
  while (!stopping()) {
    bool acquired = try_acquire_or_renew();
    report_transition();
    if (acquired) {
      spdlog::info("leader election {}: {} acquired the lease", lock_->describe(),
                   config_.identity);
      return true;
    }
    auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(config_.retry_period *
                                                                       (1.0 + jitter(random_)));
    if (!wait(delay)) return false;
  }
  return false;
}

// Retries every retry_period until a renewal succeeds; a renewal that only completes after
// renew_deadline counts as failed, as client-go's timeout does.
bool LeaderElector::renew_within_deadline() {
  const auto deadline = Steady::now() + config_.renew_deadline;
  while (!stopping()) {
    bool renewed = try_acquire_or_renew();
    report_transition();
    if (Steady::now() > deadline) return false;
    if (renewed) return true;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Steady::now());
    if (!wait(std::min(config_.retry_period, left)) || Steady::now() >= deadline) return false;
  }
  return false;
}

void LeaderElector::release() {
  try {
    std::optional<LeaseState> current = lock_->get();
    if (!current || current->record.holder_identity != config_.identity) return;
    auto now = now_();
    LeaseRecord released = released_record(current->record, now);
    lock_->update(released, current->resource_version);
    observe(released, now);
    spdlog::info("leader election {}: {} released the lease", lock_->describe(), config_.identity);
  } catch (const std::exception& e) {
    spdlog::warn("leader election {}: release failed: {}", lock_->describe(), e.what());
  }
}

void LeaderElector::run() {
  while (acquire()) {
    {
      std::lock_guard lock(mutex_);
      leading_ = true;
    }
    call(callbacks_.on_started_leading);
    while (wait(config_.retry_period) && renew_within_deadline()) {
    }
    const bool stopped = stopping();
    if (stopped && config_.release_on_cancel) release();
    if (!stopped) {
      spdlog::warn("leader election {}: {} lost the lease", lock_->describe(), config_.identity);
    }
    {
      std::lock_guard lock(mutex_);
      leading_ = false;
    }
    call(callbacks_.on_stopped_leading);
    report_transition();
    if (stopped) break;
  }
}

}  // namespace tailor::kube
