#!/usr/bin/env bash
# The demo: Tailor's main job on what exists so far. It replays real container usage
# (Google cluster trace 2019) through the recommender exactly as bench/SCORING.md defines, and
# prints the as-run / VPA / Tailor rows side by side. Later this becomes `tailor demo` on the
# embedded cluster.
set -euo pipefail
build_dir=${1:-build}
cd "$(dirname "$0")/.."

traces=data/google2019
[ -d "$traces" ] || traces=../shared/data/google2019
if [ ! -d "$traces" ]; then
  echo "demo: no trace data found (data/google2019 or ../shared/data/google2019)" >&2
  exit 1
fi

out="$build_dir/demo"
mkdir -p "$out"
echo "== Replaying the containers of $traces (usage every 5 minutes, ~31 days)"
"$build_dir/bin/tailor" replay "$traces" --json "$out/replay.json" --plot-dir "$out/plots"
echo
echo "== Scoring table: $out/replay.json; per-container plots (SVG): $out/plots/"
