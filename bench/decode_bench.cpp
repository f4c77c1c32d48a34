// Decoding a 10,000-pod PodList (as an API server returns it) into typed structs on one core.
// Run: build/bin/bench_decode [--benchmark_min_time=2]; results in bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <boost/json.hpp>
#include <cstdint>
#include <cstdlib>

#include "bench/boost_dom_decoder.h"
#include "bench/pod_list_generator.h"
#include "kube/model/decode.h"
#include "kube/model/json_value.h"

namespace {

// 10,000 pods; TAILOR_BENCH_PODS overrides it (e.g. smaller lists for callgrind).
const int kPods = [] {
  const char* text = std::getenv("TAILOR_BENCH_PODS");
  return text ? std::atoi(text) : 10000;
}();

// As the API client keeps bodies: with simdjson's padding reserved, so decoding reads in place.
const std::string& pod_list_json() {
  static const std::string json = [] {
    std::string body = tailor::bench::generate_pod_list({.pods = kPods});
    tailor::kube::reserve_json_padding(body);
    return body;
  }();
  return json;
}

void report(benchmark::State& state, std::size_t items) {
  const std::string& json = pod_list_json();
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * json.size()));
  state.counters["pods/s"] =
      benchmark::Counter(static_cast<double>(kPods), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["pod_bytes"] = static_cast<double>(json.size()) / kPods;
  if (items != static_cast<std::size_t>(kPods)) state.SkipWithError("decoded the wrong pod count");
}

// Decodes the list in each iteration; freeing the result is not timed (a decoded list outlives
// the decode: it goes into the informer's store).
void decode_loop(benchmark::State& state, tailor::kube::JsonInput input) {
  std::size_t items = 0;
  for (auto _ : state) {
    tailor::kube::PodList list = tailor::kube::decode_pod_list(input);
    items = list.items.size();
    benchmark::DoNotOptimize(list);
    state.PauseTiming();
    list = {};
    state.ResumeTiming();
  }
  report(state, items);
}

// Buffers kept between decodes, as for the pages of a paginated list (steady state).
struct RetainAllBuffers {
  RetainAllBuffers() { tailor::kube::set_json_parser_retention(SIZE_MAX); }
  ~RetainAllBuffers() {
    tailor::kube::set_json_parser_retention(tailor::kube::kDefaultJsonParserRetention);
  }
};

// simdjson on-demand into tailor::kube::Pod (the production decoder), body parsed in place.
void BM_DecodePodList_SimdjsonOnDemand(benchmark::State& state) {
  RetainAllBuffers retain;
  decode_loop(state, pod_list_json());
}
BENCHMARK(BM_DecodePodList_SimdjsonOnDemand)->Unit(benchmark::kMillisecond);

// The same from a string_view: the body is first copied into a padded buffer.
void BM_DecodePodList_SimdjsonOnDemand_Copy(benchmark::State& state) {
  RetainAllBuffers retain;
  decode_loop(state, std::string_view(pod_list_json()));
}
BENCHMARK(BM_DecodePodList_SimdjsonOnDemand_Copy)->Unit(benchmark::kMillisecond);

// Default retention: a 120 MB document is above it, so each decode gets fresh parser buffers
// (allocation and page faults included), as a rare unpaginated relist would.
void BM_DecodePodList_SimdjsonOnDemand_ColdBuffers(benchmark::State& state) {
  decode_loop(state, pod_list_json());
}
BENCHMARK(BM_DecodePodList_SimdjsonOnDemand_ColdBuffers)->Unit(benchmark::kMillisecond);

// Steady state including freeing the decoded list.
void BM_DecodePodList_SimdjsonOnDemand_WithFree(benchmark::State& state) {
  RetainAllBuffers retain;
  const std::string& json = pod_list_json();
  std::size_t items = 0;
  for (auto _ : state) {
    tailor::kube::PodList list = tailor::kube::decode_pod_list(json);
    items = list.items.size();
    benchmark::DoNotOptimize(list);
  }
  report(state, items);
}
BENCHMARK(BM_DecodePodList_SimdjsonOnDemand_WithFree)->Unit(benchmark::kMillisecond);

// Baseline: Boost.JSON parse to a DOM, then the same structs read from the DOM.
void BM_DecodePodList_BoostJsonDom(benchmark::State& state) {
  const std::string& json = pod_list_json();
  std::size_t items = 0;
  for (auto _ : state) {
    tailor::kube::PodList list = tailor::bench::decode_pod_list_boost(json);
    items = list.items.size();
    benchmark::DoNotOptimize(list);
    state.PauseTiming();
    list = {};
    state.ResumeTiming();
  }
  report(state, items);
}
BENCHMARK(BM_DecodePodList_BoostJsonDom)->Unit(benchmark::kMillisecond);

template <class Parse>
void parse_only(benchmark::State& state, Parse parse) {
  const std::string& json = pod_list_json();
  std::size_t items = 0;
  for (auto _ : state) {
    boost::json::value dom = parse(json);
    items = dom.as_object().at("items").as_array().size();
    benchmark::DoNotOptimize(dom);
  }
  report(state, items);
}

// Lower bound of the baseline: Boost.JSON's parse to a DOM alone.
void BM_ParseOnly_BoostJsonDom(benchmark::State& state) {
  parse_only(state, [](const std::string& json) { return boost::json::parse(json); });
}
BENCHMARK(BM_ParseOnly_BoostJsonDom)->Unit(benchmark::kMillisecond);

// The same DOM with numbers read as encoding/json reads them (kube/model/json_value.h), the parse
// of every body and stored object in tailor-cluster.
void BM_ParseOnly_KubeJsonValue(benchmark::State& state) {
  parse_only(state, [](const std::string& json) {
    boost::system::error_code ec;
    return tailor::kube::json::parse_value(json, ec);
  });
}
BENCHMARK(BM_ParseOnly_KubeJsonValue)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
