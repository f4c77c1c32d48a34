#!/usr/bin/env bash
# `make demo`: Tailor's main job, run to the end by `tailor demo` on a local cluster (a small and
# a big node on real containerd, tailor-cluster, tailor-controller). Needs root: containerd
# needs cgroups and mounts. Extra arguments go to `tailor demo` (e.g. --keep, --timeout 600).
# The recommender's trace replay is a separate command: `BUILD/bin/tailor replay data/google2019`.
set -euo pipefail
build_dir=${1:-build}
shift || true
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
  echo "demo: run as root (sudo make demo): the local cluster's containerd needs cgroups and mounts" >&2
  exit 1
fi
out="$build_dir/demo"
mkdir -p "$out"
"$build_dir/bin/tailor" demo --json "$out/summary.json" "$@"
echo "demo: summary written to $out/summary.json"
