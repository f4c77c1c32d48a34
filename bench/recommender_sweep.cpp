// Robustness of the default strategy's knobs: replays variants of TailoredConfig over the whole
// trace set and over held-out halves (containers split by index parity within each job; each
// series cut at its midpoint in time), so that a setting is kept only if it wins on every part.
//   bench_recommender_sweep TRACE... [--dump CONTAINER]
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "recommender/replay.h"
#include "recommender/tailored_strategy.h"
#include "recommender/trace.h"

namespace rec = tailor::recommender;

namespace {

struct Variant {
  std::string name;
  std::function<void(rec::TailoredConfig&)> change;
};

std::vector<rec::ContainerSeries> parity(const std::vector<rec::ContainerSeries>& all, int odd) {
  std::vector<rec::ContainerSeries> out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (int(i % 2) == odd) out.push_back(all[i]);
  }
  return out;
}

std::vector<rec::ContainerSeries> time_half(const std::vector<rec::ContainerSeries>& all,
                                            int second) {
  std::vector<rec::ContainerSeries> out;
  for (const auto& s : all) {
    rec::ContainerSeries h = s;
    const std::size_t mid = s.windows.size() / 2;
    h.windows.assign(second ? s.windows.begin() + mid : s.windows.begin(),
                     second ? s.windows.end() : s.windows.begin() + mid);
    out.push_back(std::move(h));
  }
  return out;
}

void print_row(const char* part, const char* name, const rec::ScoreRow& r) {
  std::printf("%-12s %-28s %6.3f %6.3f %7.4f %7.4f %6.3f\n", part, name, r.cpu_slack, r.mem_slack,
              r.cpu_shortfall, r.ooms_per_day, r.resizes_per_day);
}

void dump(const std::vector<rec::ContainerSeries>& all, const std::string& container,
          const rec::StrategyFactory& f) {
  for (const auto& s : all) {
    if (s.container != container) continue;
    std::vector<rec::TimelinePoint> t;
    rec::replay_strategy(s, f, {}, &t);
    for (std::size_t i = 0; i < t.size(); ++i) {
      std::printf("%ld %.4f %.4f %.4f %.3e\n", long(t[i].time), t[i].cpu_usage,
                  s.windows[i].p95_cpu, t[i].cpu_request, t[i].memory_request);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> paths;
  std::string dump_container;
  bool detail = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--detail")) {
      detail = true;
    } else if (!std::strcmp(argv[i], "--dump") && i + 1 < argc) {
      dump_container = argv[++i];
    } else {
      paths.push_back(argv[i]);
    }
  }
  rec::TraceDiagnostics diag;
  const auto all = rec::read_traces(paths, diag);
  if (!dump_container.empty()) {
    dump(all, dump_container, *rec::make_default_strategy());
    return 0;
  }
  // The alternatives weighed against the defaults (bench/RESULTS.md, Recommender).
  const std::vector<Variant> variants = {
      {"default", [](rec::TailoredConfig&) {}},
      {"cpu tau 0.90", [](rec::TailoredConfig& c) { c.cpu.tau = 0.90; }},
      {"cpu tau 0.98", [](rec::TailoredConfig& c) { c.cpu.tau = 0.98; }},
      {"scoring cost, price 3", [](rec::TailoredConfig& c) { c.cpu.shortfall_price = 3; }},
      {"scoring cost, price 8", [](rec::TailoredConfig& c) { c.cpu.shortfall_price = 8; }},
      {"daily profile",
       [](rec::TailoredConfig& c) {
         c.cpu.profile_ranks = {1, 2};
       }},
      {"daily profile, tau 0.97",
       [](rec::TailoredConfig& c) {
         c.cpu.profile_ranks = {1, 2};
         c.cpu.tau = 0.97;
       }},
      {"decrease after 12 h",
       [](rec::TailoredConfig& c) { c.down_confidence = c.down_min_interval = 12 * rec::kHour; }},
      {"no memory peak floor", [](rec::TailoredConfig& c) { c.peak_days = 0; }},
      {"peak floor 3 days", [](rec::TailoredConfig& c) { c.peak_days = 3; }},
      {"peak floor, no margin", [](rec::TailoredConfig& c) { c.peak_margin_cap = 0; }},
      {"peak margin cap 0.1", [](rec::TailoredConfig& c) { c.peak_margin_cap = 0.1; }},
      {"peak margin cap 0.3", [](rec::TailoredConfig& c) { c.peak_margin_cap = 0.3; }},
      {"peak margin cap 0.5", [](rec::TailoredConfig& c) { c.peak_margin_cap = 0.5; }},
      {"peak min margin 0", [](rec::TailoredConfig& c) { c.peak_min_margin = 0; }},
      {"peak min margin 0.02", [](rec::TailoredConfig& c) { c.peak_min_margin = 0.02; }},
      {"peak min margin 0.08", [](rec::TailoredConfig& c) { c.peak_min_margin = 0.08; }},
      {"memory margins 4-12 %",
       [](rec::TailoredConfig& c) {
         c.memory.margins = {0.04, 0.08, 0.12};
       }},
      {"memory tau 0.99", [](rec::TailoredConfig& c) { c.memory.tau = 0.99; }},
      {"memory tau 0.98", [](rec::TailoredConfig& c) { c.memory.tau = 0.98; }},
      {"OOM hold 1 day", [](rec::TailoredConfig& c) { c.oom_hold = rec::kDay; }}};
  const auto vpa = rec::make_vpa_strategy();
  const std::vector<std::pair<const char*, std::vector<rec::ContainerSeries>>> parts = {
      {"all", all},
      {"even", parity(all, 0)},
      {"odd", parity(all, 1)},
      {"first-half", time_half(all, 0)},
      {"second-half", time_half(all, 1)}};
  std::printf("%-12s %-28s %6s %6s %7s %7s %6s\n", "part", "strategy", "cpu_sl", "mem_sl", "cpu_sh",
              "oom/d", "rsz/d");
  for (const auto& [part, series] : parts) {
    std::vector<std::unique_ptr<rec::StrategyFactory>> factories;
    std::vector<const rec::StrategyFactory*> views{vpa.get()};
    for (const auto& v : variants) {
      rec::TailoredConfig c;
      v.change(c);
      factories.push_back(rec::make_tailored_strategy(c));
      views.push_back(factories.back().get());
    }
    const auto rows = rec::replay_table(series, views);
    print_row(part, "vpa", rows[1]);
    for (std::size_t i = 0; i < variants.size(); ++i) {
      print_row(part, variants[i].name.c_str(), rows[i + 2]);
      if (detail && std::strcmp(part, "all") == 0) {
        for (const auto& c : rows[i + 2].per_container) {
          std::printf("    %-24s %6.3f %7.4f %6.2f\n", c.container.c_str(),
                      c.cpu_slack / c.cpu_request, c.cpu_short / c.cpu_p95, c.resizes / c.days);
        }
      }
    }
  }
  return 0;
}
