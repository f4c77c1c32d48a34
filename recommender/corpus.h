#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recommender/trace.h"

namespace tailor::recommender {

// The synthetic corpus the recommender's defaults are judged on (issue 14): shape families of
// real workloads, several seeded series each, in the generic trace format `tailor replay` reads.
struct CorpusFamily {
  const char* name;
  const char* description;
  int days;  // weekly cycles need three weeks, the rest two
};
const std::vector<CorpusFamily>& corpus_families();

// One series of `family` (a name from corpus_families(); std::invalid_argument otherwise):
// 5-minute windows from time 0 (a Monday 00:00), absent windows left out, and as-run limits as
// a user sizes from a first day of load: 2x the day's highest CPU p95 (rounded up to 50 m) and
// 1.5x its highest memory peak (rounded up to 64 MiB). The same family and seed give the same
// windows on every platform.
ContainerSeries generate_series(const std::string& family, std::uint64_t seed,
                                const std::string& container);

// The corpus: `per_family` series of each family, named FAMILY-K. Series K's seed mixes `seed`,
// the family and K; the even K form the tuning half (defaults may be chosen on it), the odd K
// the held-out half (reported, never tuned on).
struct CorpusSeries {
  std::string family;
  int index = 0;
  bool held_out = false;
  ContainerSeries series;
};
std::vector<CorpusSeries> generate_corpus(std::uint64_t seed, int per_family);
inline const char* corpus_half(bool held_out) { return held_out ? "held-out" : "tuning"; }

}  // namespace tailor::recommender
