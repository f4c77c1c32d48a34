#!/usr/bin/env bash
# Runs the whole suite: every test of the release build, then the unit tests
# under ASan+UBSan. Prints ctest's summary for each pass; exits non-zero on any failure.
set -uo pipefail
build_dir=${1:-build}
asan_dir=${2:-build-asan}
jobs=$(nproc)
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)

status=0
(cd "$build_dir" && ctest --output-on-failure -j "$jobs" --timeout 600) || status=1

cmake -S . -B "$asan_dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=Debug -DTAILOR_SANITIZE=ON \
  -DTAILOR_BUILD_BENCH=OFF >/dev/null || exit 1
cmake --build "$asan_dir" --target unit-tests -j "$jobs" || exit 1
(cd "$asan_dir" && ctest -L unit --output-on-failure -j "$jobs" --timeout 600) || status=1
exit $status
