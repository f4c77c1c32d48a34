#include "recommender/replay.h"

#include <algorithm>
#include <cmath>

#include "recommender/sample_period.h"

namespace tailor::recommender {
namespace {

bool starts_new_pod(const TraceWindow* previous, const TraceWindow& w, Seconds window,
                    Seconds max_gap) {
  return previous != nullptr && w.start - (previous->start + window) > max_gap;
}

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

ContainerScore replay_strategy(const ContainerSeries& s, const StrategyFactory& factory,
                               const ReplayConfig& config, std::vector<TimelinePoint>* timeline) {
  ContainerScore c;
  c.container = s.container;
  if (s.windows.empty()) return c;
  auto strategy = factory.create();
  const Seconds warm_end = s.windows.front().start + config.warm_up;
  Resources req = initial_requests(s, config.min_resources);
  Seconds pod_start = s.windows.front().start;
  const TraceWindow* previous = nullptr;
  for (const TraceWindow& w : s.windows) {
    if (starts_new_pod(previous, w, s.window, config.max_gap)) {
      // An admission webhook gives the new pod the current target.
      req = floor_at(strategy->recommend(w.start).target, config.min_resources);
      strategy->applied(req, w.start);
      pod_start = w.start;
    }
    previous = &w;
    const bool scored = w.start >= warm_end;
    const bool oom = is_oom(w, req);
    if (scored) {
      score_window(c, w, req, s.window);
      if (oom) ++c.ooms;
    }
    if (timeline)
      timeline->push_back({w.start, w.avg_cpu, w.max_mem, req.cpu_cores, req.memory_bytes});
    const Seconds end = w.start + s.window;
    const UsageSample sample = usage_sample(w, s.window);
    strategy->observe(sample, req);
    if (oom) strategy->on_oom(w.start, req.memory_bytes, req.memory_bytes);
    const Recommendation r = strategy->recommend(end);
    if (timeline) timeline->back().target = r.target;
    // As the live controller asks it (ModelRegistry::decide): with this pod's own last period.
    const auto update = strategy->decide(r, req, end, end - pod_start, pod_usage(sample));
    if (!update) continue;
    const Resources next = floor_at(*update, config.min_resources);
    if (next == req) continue;
    req = next;
    strategy->applied(req, end);
    pod_start = end;
    if (scored) ++c.resizes;
  }
  c.state_bytes = strategy->state_bytes();
  return c;
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
