#!/usr/bin/env bash
# The recommender's quality run of bench/RESULTS.md ("Quality on the synthetic corpus"):
# generates the corpus, replays each half, every family of each half and the Google data with
# VPA's curve (--frontier), and writes tables, JSON and the curve SVGs to OUT.
#   bench/recommender_corpus.sh [OUT] [SEED]     (from the checkout, after the build)
set -euo pipefail
out=${1:-build/recommender-corpus}
seed=${2:-14}
tailor=build/bin/tailor
mkdir -p "$out"
"$tailor" corpus --out "$out/corpus" --seed "$seed" --per-family 8 >"$out/corpus.txt"
run() {  # name, trace...
  local name=$1
  shift
  "$tailor" replay "$@" --frontier --json "$out/$name.json" --curve-svg "$out/$name.svg" \
    >"$out/$name.txt" 2>"$out/$name.err"
}
run google2019 data/google2019
for half in held-out tuning; do
  run "$half" "$out/corpus/$half"
  for family in "$out/corpus/$half"/*/; do
    run "$half-$(basename "$family")" "$family"
  done
done
echo "results in $out"
