#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ for SECONDS each on its committed corpus (fuzz/corpus/NAME/),
# one after the other, and prints each one's runs, executions per second and corpus growth. New
# inputs go to a scratch directory, never into the committed corpus. Exits non-zero when a target
# crashes, breaks an invariant, leaks, times out on an input, or has no binary or no corpus; the
# crashing input is kept under the scratch directory and its path printed.
# Each run explores from a random seed, which it prints; FUZZ_SEED=N runs every target from seed
# N instead, to replay a run (the first mutations are the same; a timed run is not otherwise
# deterministic, so the kept input is what reproduces a finding).
#   [FUZZ_SEED=N] scripts/run-fuzz.sh BUILD_DIR [SECONDS]
set -uo pipefail
build_dir=${1:?usage: scripts/run-fuzz.sh BUILD_DIR [SECONDS]}
seconds=${2:-30}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/tailor-fuzz.XXXXXX")
seed_flag=()
[[ -n ${FUZZ_SEED:-} ]] && seed_flag=("-seed=$FUZZ_SEED")

targets=()
for source in fuzz/*.cpp; do targets+=("$(basename "$source" .cpp)"); done
((${#targets[@]})) || { echo "run-fuzz: no targets in fuzz/"; exit 1; }

status=0
printf '%-24s %10s %10s %8s %10s %s\n' target runs exec/s corpus seed result
for t in "${targets[@]}"; do
  binary=$build_dir/fuzz/fuzz_$t corpus=fuzz/corpus/$t
  if [[ ! -x $binary ]]; then echo "run-fuzz: $binary was not built"; status=1; continue; fi
  if [[ -z $(ls -A "$corpus" 2>/dev/null) ]]; then echo "run-fuzz: $corpus is empty"; status=1; continue; fi
  mkdir -p "$scratch/$t/new" "$scratch/$t/crash"
  log=$scratch/$t/log
  # -timeout: an input that takes this long is itself a finding (one request stalls a server).
  "$binary" "${seed_flag[@]}" -max_total_time="$seconds" -timeout=25 -print_final_stats=1 \
    -artifact_prefix="$scratch/$t/crash/" "$scratch/$t/new" "$corpus" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  size=$(find "$scratch/$t/new" "$corpus" -type f | wc -l)
  seed=$(sed -n 's/^INFO: Seed: *//p' "$log")
  row=$(printf '%-24s %10s %10s %8s %10s' "$t" "${runs:-?}" "${speed:-?}" "$size" "${seed:-?}")
  if ((rc == 0)); then
    echo "$row ok"
  else
    echo "$row FAILED (exit $rc)"
    grep -E 'ERROR|fuzz invariant|SUMMARY|Test unit written|uncaught exception|what\(\)' "$log" | head -20
    echo "run-fuzz: full log $log; crashing input under $scratch/$t/crash/"
    status=1
  fi
done
((status == 0)) && rm -rf "$scratch"
exit $status
