// Robustness of the default strategy's knobs: replays variants of TailoredConfig over the whole
// trace set and over held-out halves (containers split by index parity within each job; each
// series cut at its midpoint in time), so that a setting is kept only if it wins on every part.
//   bench_recommender_sweep TRACE... [--dump CONTAINER] [--curve]
// --curve: the parts are the whole set and each shape family (the container name up to its last
// '-', as `tailor corpus` names series), and each variant's CPU point is placed against VPA's CPU
// curve on that part (VPA's standard CPU points, recommender/vpa_knobs.h).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "recommender/frontier.h"
#include "recommender/replay.h"
#include "recommender/tailored_strategy.h"
#include "recommender/trace.h"
#include "recommender/vpa_knobs.h"

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

std::vector<std::pair<std::string, std::vector<rec::ContainerSeries>>> by_family(
    const std::vector<rec::ContainerSeries>& all) {
  std::vector<std::pair<std::string, std::vector<rec::ContainerSeries>>> out{{"all", all}};
  for (const auto& s : all) {
    const std::string family = s.container.substr(0, s.container.rfind('-'));
    auto it =
        std::find_if(out.begin() + 1, out.end(), [&](const auto& p) { return p.first == family; });
    if (it == out.end()) {
      out.push_back({family, {}});
      it = out.end() - 1;
    }
    it->second.push_back(s);
  }
  return out;
}

// VPA's CPU points on `series`: the `vpa` row and the standard CPU-only knob settings.
std::vector<rec::CurvePoint> vpa_cpu_envelope(const std::vector<rec::ContainerSeries>& series) {
  std::vector<std::unique_ptr<rec::StrategyFactory>> owned;
  std::vector<const rec::StrategyFactory*> views;
  owned.push_back(rec::make_vpa_strategy());
  for (const std::string& spec : rec::vpa_frontier_specs()) {
    if (rec::parse_vpa_knobs(spec).cpu_only()) owned.push_back(rec::make_vpa_strategy(spec));
  }
  for (const auto& f : owned) views.push_back(f.get());
  return rec::lower_envelope(
      rec::vpa_curve_points(rec::replay_table(series, views), rec::Resource::cpu));
}

void print_curve_row(const std::string& part, const char* name, const rec::ScoreRow& r,
                     const std::vector<rec::CurvePoint>& envelope) {
  const rec::CurveVerdict v = rec::compare_to_curve(envelope, r.cpu_shortfall, r.cpu_slack);
  std::printf("%-10s %-28s %6.3f %7.4f %6s %-6s %6.3f %7.4f %6.3f\n", part.c_str(), name,
              r.cpu_slack, r.cpu_shortfall,
              v.curve_y ? std::to_string(*v.curve_y).substr(0, 5).c_str() : "-",
              rec::side_name(v.side), r.mem_slack, r.ooms_per_day, r.resizes_per_day);
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
      std::printf("%ld %.4f %.4f %.4f %.3e %.4f\n", long(t[i].time), t[i].cpu_usage,
                  s.windows[i].p95_cpu, t[i].cpu_request, t[i].memory_request,
                  t[i].target.cpu_cores);
    }
  }
}

// The replay table of `series`: as-run, vpa, then every variant (row i + 2 is variant i's).
std::vector<rec::ScoreRow> replay_variants(const std::vector<rec::ContainerSeries>& series,
                                           const rec::StrategyFactory& vpa,
                                           const std::vector<Variant>& variants) {
  std::vector<std::unique_ptr<rec::StrategyFactory>> factories;
  std::vector<const rec::StrategyFactory*> views{&vpa};
  for (const auto& v : variants) {
    rec::TailoredConfig c;
    v.change(c);
    factories.push_back(rec::make_tailored_strategy(c));
    views.push_back(factories.back().get());
  }
  return rec::replay_table(series, views);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> paths;
  std::string dump_container;
  bool detail = false;
  bool curve = false;
  std::vector<std::string> only;  // variant names to run, "PREFIX*" for several (all when empty)
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--detail")) {
      detail = true;
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      only.push_back(argv[++i]);
    } else if (!std::strcmp(argv[i], "--curve")) {
      curve = true;
    } else if (!std::strcmp(argv[i], "--dump") && i + 1 < argc) {
      dump_container = argv[++i];
    } else {
      paths.push_back(argv[i]);
    }
  }
  rec::TraceDiagnostics diag;
  const auto all = rec::read_traces(paths, diag);
  // The alternatives weighed against the defaults (bench/RESULTS.md, Recommender).
  std::vector<Variant> variants = {
      {"default", [](rec::TailoredConfig&) {}},
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
  // CPU (bench/RESULTS.md, "CPU below VPA's curve"): the level the rule rests at (the default:
  // VPA's p90 + 15 % over a day's half-life; the 36-model ensemble that was the default; other
  // single models and a day-scale ensemble; daily-profile models on top), each with the rule's
  // knobs varied one at a time.
  const auto level = [](std::vector<rec::Seconds> half_lives, double percentile, double margin) {
    return [=](rec::TailoredConfig& c) {
      c.cpu.half_lives = half_lives;
      c.cpu.percentiles = {percentile};
      c.cpu.margins = {margin};
    };
  };
  std::vector<Variant> levels = {
      {"level", [](rec::TailoredConfig&) {}},
      {"ens36",
       [](rec::TailoredConfig& c) {
         c.cpu.half_lives = {2 * rec::kHour, 12 * rec::kHour, 2 * rec::kDay};
         c.cpu.percentiles = {0.8, 0.9, 0.95, 0.99};
         c.cpu.margins = {0.0, 0.1, 0.2};
       }},
      {"level-vpa", level({rec::kDay}, 0.9, 0.15)},
      {"level-m0.05", level({rec::kDay}, 0.9, 0.05)},
      {"level-p80", level({rec::kDay}, 0.8, 0.15)},
      {"level-p95m10", level({rec::kDay}, 0.95, 0.1)},
      {"level-hl12h", level({12 * rec::kHour}, 0.9, 0.15)},
      {"level-hl2d", level({2 * rec::kDay}, 0.9, 0.15)},
      {"ens18",
       [](rec::TailoredConfig& c) {
         c.cpu.half_lives = {12 * rec::kHour, rec::kDay, 2 * rec::kDay};
         c.cpu.percentiles = {0.9, 0.95};
         c.cpu.margins = {0.1, 0.15, 0.2};
       }},
      {"level+profile", [](rec::TailoredConfig& c) { c.cpu.profile_ranks = {2}; }}};
  // The default's level is the least slack at VPA's shortfall over this grid (bench/RESULTS.md,
  // "CPU at VPA's shortfall").
  for (const auto& [hl_name, hl] :
       {std::pair{"12h", 12 * rec::kHour}, std::pair{"1d", rec::kDay}}) {
    for (const double p : {0.85, 0.9}) {
      for (const double m : {0.05, 0.1, 0.15}) {
        levels.push_back({std::string("grid-") + hl_name + "-p" + std::to_string(p).substr(0, 4) +
                              "-m" + std::to_string(m).substr(0, 4),
                          level({hl}, p, m)});
      }
    }
  }
  const std::vector<Variant> rules = {
      {"", [](rec::TailoredConfig&) {}},
      {" burst0.1", [](rec::TailoredConfig& c) { c.cpu_rule.burst_threshold = 0.1; }},
      {" burst0.5", [](rec::TailoredConfig& c) { c.cpu_rule.burst_threshold = 0.5; }},
      {" hold0", [](rec::TailoredConfig& c) { c.cpu_rule.burst_hold = 0; }},
      {" hold1h", [](rec::TailoredConfig& c) { c.cpu_rule.burst_hold = rec::kHour; }},
      {" band0.1",
       [](rec::TailoredConfig& c) { c.cpu_rule.up_threshold = c.cpu_rule.down_threshold = 0.1; }},
      {" band0.25",
       [](rec::TailoredConfig& c) { c.cpu_rule.up_threshold = c.cpu_rule.down_threshold = 0.25; }},
      {" band0.4",
       [](rec::TailoredConfig& c) { c.cpu_rule.up_threshold = c.cpu_rule.down_threshold = 0.4; }},
      {" band0.6",
       [](rec::TailoredConfig& c) { c.cpu_rule.up_threshold = c.cpu_rule.down_threshold = 0.6; }},
      {" bmargin0.1", [](rec::TailoredConfig& c) { c.cpu_rule.burst_margin = 0.1; }},
      {" bmargin0.3", [](rec::TailoredConfig& c) { c.cpu_rule.burst_margin = 0.3; }}};
  for (const Variant& level : levels) {
    for (const Variant& rule : rules) {
      variants.push_back(
          {level.name + rule.name, [l = level.change, r = rule.change](rec::TailoredConfig& c) {
             l(c);
             r(c);
           }});
    }
  }
  if (!only.empty()) {
    std::erase_if(variants, [&](const Variant& v) {
      return std::none_of(only.begin(), only.end(), [&](const std::string& o) {
        return o == v.name || (o.back() == '*' && v.name.starts_with(o.substr(0, o.size() - 1)));
      });
    });
  }
  if (!dump_container.empty()) {
    rec::TailoredConfig c;
    if (!variants.empty()) variants.front().change(c);
    dump(all, dump_container, *rec::make_tailored_strategy(c));
    return 0;
  }
  const auto vpa = rec::make_vpa_strategy();
  if (curve) {
    std::printf("%-10s %-28s %6s %7s %6s %-6s %6s %7s %6s\n", "part", "strategy", "cpu_sl",
                "cpu_sh", "vpa@x", "side", "mem_sl", "oom/d", "rsz/d");
    for (const auto& [part, series] : by_family(all)) {
      const auto envelope = vpa_cpu_envelope(series);
      const auto rows = replay_variants(series, *vpa, variants);
      print_curve_row(part, "vpa", rows[1], envelope);
      for (std::size_t i = 0; i < variants.size(); ++i) {
        print_curve_row(part, variants[i].name.c_str(), rows[i + 2], envelope);
      }
    }
    return 0;
  }
  const std::vector<std::pair<const char*, std::vector<rec::ContainerSeries>>> parts = {
      {"all", all},
      {"even", parity(all, 0)},
      {"odd", parity(all, 1)},
      {"first-half", time_half(all, 0)},
      {"second-half", time_half(all, 1)}};
  std::printf("%-12s %-28s %6s %6s %7s %7s %6s\n", "part", "strategy", "cpu_sl", "mem_sl", "cpu_sh",
              "oom/d", "rsz/d");
  for (const auto& [part, series] : parts) {
    const auto rows = replay_variants(series, *vpa, variants);
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
