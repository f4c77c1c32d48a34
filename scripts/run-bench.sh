#!/usr/bin/env bash
# `make bench`: runs the benchmarks whose figures bench/RESULTS.md records, each as RESULTS.md's
# section runs it, and keeps every output in BUILD/bench-results/<name>.txt. RESULTS.md is written by
# hand from these outputs, with the machine and its load: figures are never asserted here.
#   scripts/run-bench.sh [BUILD_DIR]       BENCH_SIZE=quick (default) or full
# quick: every benchmark at a size that ends in about a minute (a smoke run of the whole set);
# full: the sizes RESULTS.md records (tens of minutes). The containerd benchmarks need root.
set -uo pipefail
build=$(cd "${1:-build}" && pwd)
size=${BENCH_SIZE:-quick}
src=$(cd "$(dirname "$0")/.." && pwd)
out=$build/bench-results
mkdir -p "$out"
bin=$build/bin
failed=()

# run NAME COMMAND...: runs it from the checkout, tees its output, remembers a failure.
run() {
  local name=$1
  shift
  echo "=== $name: $*"
  if (cd "$src" && "$@") 2>&1 | tee "$out/$name.txt"; [[ ${PIPESTATUS[0]} -eq 0 ]]; then
    echo "=== $name: ok ($out/$name.txt)"
  else
    failed+=("$name")
  fi
}

case $size in
  quick) reps=1 pods=20000 watchers=10 updates=1000 policies=1000 passes=2 calls=5 repeats=1 \
         agent_seconds=10 agent_resizes=5 store_pods=300 idle=500 fault_runs=10 ;;
  full) reps=5 pods=100000 watchers=100 updates=10000 policies=10000 passes=8 calls=20 repeats=5 \
        agent_seconds=60 agent_resizes=20 store_pods=2000 idle=2500 fault_runs=220 ;;
  *) echo "run-bench: BENCH_SIZE must be quick or full, not '$size'" >&2; exit 2 ;;
esac
gb=(--benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true)

run decode "$bin/bench_decode" "${gb[@]}"
run recommender "$bin/bench_recommender" "${gb[@]}"
run replay "$bin/tailor" replay data/google2019 --json "$out/replay.json"
run recommender_bound "$bin/bench_recommender_bound" data/google2019
run cluster_scale "$bin/bench_cluster_scale" "$pods" "$watchers" "$updates"
run store_write "$bin/bench_store_write" "$store_pods" "$out"
run idle_connections "$bin/bench_idle_connections" --binary "$bin/tailor-cluster" \
  --connections "$idle"
run controller_scale "$bin/bench_controller_scale" "$policies" 10 "$passes"
run controller_api_calls "$bin/bench_controller_api_calls" "$calls"
if [[ $EUID -eq 0 ]]; then
  run controller_latency "$bin/bench_controller_latency" "$repeats"
  run node_agent_latency "$bin/bench_node_agent_latency" "$agent_seconds" "$agent_resizes"
  run fault_campaign "$bin/bench_fault_campaign" --runs "$fault_runs" --seed 1601
else
  echo "=== controller_latency, node_agent_latency, fault_campaign: not run (they start containerd: run as root)"
  failed+=(containerd-benchmarks-need-root)
fi

if ((${#failed[@]})); then
  echo "run-bench: failed: ${failed[*]}" >&2
  exit 1
fi
echo "run-bench: every benchmark ran ($size); outputs in $out"
