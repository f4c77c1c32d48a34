#include "recommender/replay.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "recommender/sample_period.h"

namespace tailor::recommender {
namespace {

void score_window(ContainerScore& c, const TraceWindow& w, const Resources& req, Seconds window) {
  ++c.scored_windows;
  c.cpu_request += req.cpu_cores;
  c.cpu_slack += std::max(0.0, req.cpu_cores - w.avg_cpu);
  c.cpu_p95 += w.p95_cpu;
  c.cpu_short += std::max(0.0, w.p95_cpu - req.cpu_cores);
  if (w.max_mem > 0) {
    c.mem_request += req.memory_bytes;
    c.mem_slack += std::max(0.0, req.memory_bytes - w.max_mem);
  }
  c.cpu_request_time += req.cpu_cores * static_cast<double>(window);
  c.mem_request_time += req.memory_bytes * static_cast<double>(window);
  c.days += static_cast<double>(window) / kDay;
}

bool is_oom(const TraceWindow& w, const Resources& req) {
  return w.max_mem > 0 && w.max_mem > req.memory_bytes;
}

Resources initial_requests(const ContainerSeries& s, const MinResources& min) {
  const TraceWindow& first = s.windows.front();
  if (s.has_limits) return floor_at({first.cpu_limit, first.memory_limit}, min);
  return floor_at({first.max_cpu, first.max_mem}, min);
}

double ratio(double x, double base) { return base > 0 ? x / base : 0; }

}  // namespace

ContainerScore replay_as_run(const ContainerSeries& s, const ReplayConfig& config) {
  ContainerScore c;
  c.container = s.container;
  if (s.windows.empty()) return c;
  const Seconds warm_end = s.windows.front().start + config.warm_up;
  Resources req = initial_requests(s, config.min_resources);
  for (const TraceWindow& w : s.windows) {
    if (s.has_limits) {
      Resources now = floor_at({w.cpu_limit, w.memory_limit}, config.min_resources);
      if (!(now == req) && w.start >= warm_end) ++c.resizes;
      req = now;
    }
    if (w.start < warm_end) continue;
    score_window(c, w, req, s.window);
    if (is_oom(w, req)) ++c.ooms;
  }
  return c;
}

namespace {

// One container's replay under a strategy, period by period.
class StrategyReplay {
 public:
  StrategyReplay(const ContainerSeries& s, const StrategyFactory& factory,
                 const ReplayConfig& config, std::vector<TimelinePoint>* timeline)
      : s_(s),
        config_(config),
        timeline_(timeline),
        strategy_(factory.create()),
        warm_end_(s.windows.front().start + config.warm_up),
        req_(initial_requests(s, config.min_resources)),
        pod_start_(s.windows.front().start),
        container_start_(pod_start_) {
    c_.container = s.container;
  }

  // The sample periods: a recording's windows folded with the requests in force, as the live
  // controller folds them (a window far over its request ends its period early); a trace's rows
  // as they are.
  ContainerScore run() {
    if (s_.measured.empty()) {
      for (const TraceWindow& w : s_.windows) period(w);
    } else {
      SamplePeriodFold fold;
      for (const MeasuredWindow& m : s_.measured) {
        // The rule is asked once the window's periods are in, as the live controller asks it
        // after a window arrived (one window may complete two: the part before a burst, and it).
        const std::vector<TraceWindow> done = fold.fold(m, req_.cpu_cores);
        for (std::size_t i = 0; i < done.size(); ++i) period(done[i], i + 1 == done.size());
      }
      if (auto last = fold.close()) period(*last);
    }
    c_.state_bytes = strategy_->state_bytes();
    return std::move(c_);
  }

 private:
  void period(const TraceWindow& w, bool decide = true) {
    const Seconds length = w.length > 0 ? w.length : s_.window;
    if (previous_end_ && w.start - *previous_end_ > config_.max_gap) {
      // An admission webhook gives the new pod the current target.
      req_ = floor_at(strategy_->recommend(w.start).target, config_.min_resources);
      strategy_->applied(req_, w.start);
      restarted(w.start);
    }
    const Seconds end = w.start + length;
    previous_end_ = end;
    const bool scored = w.start >= warm_end_;
    const bool oom = is_oom(w, req_);
    if (scored) {
      score_window(c_, w, req_, length);
      if (oom) ++c_.ooms;
    }
    if (timeline_)
      timeline_->push_back({w.start, w.avg_cpu, w.max_mem, req_.cpu_cores, req_.memory_bytes});
    const UsageSample sample = usage_sample(w, length);
    strategy_->observe(sample, req_);
    if (oom) {
      strategy_->on_oom(w.start, req_.memory_bytes, req_.memory_bytes);
      // The container restarts; its last termination, an OOM kill, ran since its last start.
      oom_run_ = w.start - container_start_;
      container_start_ = w.start;
    }
    const Recommendation r = strategy_->recommend(end);
    if (timeline_) timeline_->back().target = r.target;
    if (!decide) return;
    // As the live controller asks it (ModelRegistry::decide): with this pod's own last period
    // and its container's last termination.
    PodUsage last = pod_usage(sample);
    last.oom_run = oom_run_;
    const auto update = strategy_->decide(r, req_, end, end - pod_start_, last);
    if (!update) return;
    const Resources next = floor_at(*update, config_.min_resources);
    if (next == req_) return;
    req_ = next;
    strategy_->applied(req_, end);
    restarted(end);
    if (scored) ++c_.resizes;
  }

  // A change of the requests, or a new pod: scored as VPA's updater acts, by recreation, so the
  // pod starts anew with no last termination.
  void restarted(Seconds t) {
    pod_start_ = t;
    container_start_ = t;
    oom_run_ = -1;
  }

  const ContainerSeries& s_;
  const ReplayConfig& config_;
  std::vector<TimelinePoint>* timeline_;
  std::unique_ptr<Strategy> strategy_;
  ContainerScore c_;
  Seconds warm_end_;
  Resources req_;
  Seconds pod_start_;
  // The container's last start (the pod's, or its restart after an OOM kill at a window's
  // start, the kill's time on_oom is told) and how long the run its last OOM kill ended had run
  // (< 0: none since the pod started).
  Seconds container_start_;
  Seconds oom_run_ = -1;
  std::optional<Seconds> previous_end_;
};

}  // namespace

ContainerScore replay_strategy(const ContainerSeries& s, const StrategyFactory& factory,
                               const ReplayConfig& config, std::vector<TimelinePoint>* timeline) {
  if (s.windows.empty()) {
    ContainerScore c;
    c.container = s.container;
    return c;
  }
  return StrategyReplay(s, factory, config, timeline).run();
}

ScoreRow summarize(const std::string& strategy, const std::string& update_rule,
                   std::vector<ContainerScore> scores, const std::vector<ContainerScore>& as_run) {
  ScoreRow row;
  row.strategy = strategy;
  row.update_rule = update_rule;
  ContainerScore pooled;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const ContainerScore& c = scores[i];
    if (c.scored_windows == 0 || c.days <= 0) continue;
    ++row.containers;
    pooled.cpu_slack += c.cpu_slack;
    pooled.cpu_request += c.cpu_request;
    pooled.mem_slack += c.mem_slack;
    pooled.mem_request += c.mem_request;
    row.cpu_slack += ratio(c.cpu_slack, c.cpu_request);
    row.mem_slack += ratio(c.mem_slack, c.mem_request);
    row.cpu_shortfall += ratio(c.cpu_short, c.cpu_p95);
    row.ooms_per_day += c.ooms / c.days;
    row.resizes_per_day += c.resizes / c.days;
    const ContainerScore& base = as_run[i];
    row.cost += 0.5 * (ratio(c.cpu_request_time, base.cpu_request_time) +
                       ratio(c.mem_request_time, base.mem_request_time));
  }
  if (row.containers > 0) {
    const double n = row.containers;
    for (double* f : {&row.cpu_slack, &row.mem_slack, &row.cpu_shortfall, &row.ooms_per_day,
                      &row.resizes_per_day, &row.cost}) {
      *f /= n;
    }
  }
  row.cpu_slack_weighted = ratio(pooled.cpu_slack, pooled.cpu_request);
  row.mem_slack_weighted = ratio(pooled.mem_slack, pooled.mem_request);
  row.per_container = std::move(scores);
  return row;
}

std::vector<ScoreRow> replay_table(const std::vector<ContainerSeries>& series,
                                   const std::vector<const StrategyFactory*>& strategies,
                                   const ReplayConfig& config) {
  std::vector<ContainerScore> as_run;
  for (const auto& s : series) as_run.push_back(replay_as_run(s, config));
  std::vector<ScoreRow> rows;
  rows.push_back(summarize("as-run", "trace limits", as_run, as_run));
  for (const StrategyFactory* f : strategies) {
    std::vector<ContainerScore> scores;
    for (const auto& s : series) scores.push_back(replay_strategy(s, *f, config));
    rows.push_back(summarize(f->name(), f->update_rule(), std::move(scores), as_run));
  }
  return rows;
}

}  // namespace tailor::recommender
