#!/usr/bin/env bash
# Runs the whole suite: the tree's checks (clang-format, include order), every test of the release
# build, the unit tests again under ASan + UBSan, the unit tests that start threads under TSan, and
# every libFuzzer target of fuzz/ for FUZZ_SECONDS (default 30) each on its corpus (clang).
# Prints each pass's summary; exits non-zero on any failure, after running every pass.
set -uo pipefail
build_dir=${1:-build}
asan_dir=${2:-build-asan}
tsan_dir=${3:-build-tsan}
fuzz_dir=${4:-build-fuzz}
jobs=$(nproc)
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)

status=0
failed_passes=()
pass() { echo; echo "=== $* ==="; }
# failed NAME [CTEST_DIR]: records a failed pass and, for a ctest pass, the tests that failed, so
# the summary at the end (the part of a long log a CI page shows) names them.
failed() {
  status=1
  local list=${2:+$2/Testing/Temporary/LastTestsFailed.log}
  failed_passes+=("$1${list:+: $(tr '\n' ' ' <"$list" 2>/dev/null)}")
}

pass "checks: clang-format and include order"
bash scripts/check-format.sh || failed "clang-format"
bash scripts/check-include-order.sh || failed "include order"

pass "release build: every label"
rm -f "$build_dir/Testing/Temporary/LastTestsFailed.log"
(cd "$build_dir" && ctest --output-on-failure --no-tests=error -j "$jobs" --timeout 600) ||
  failed "release build" "$build_dir"

# sanitizer_pass DIR SANITIZER TARGET LABEL: configure, build only TARGET, run the LABEL tests.
sanitizer_pass() {
  local dir=$1 sanitizer=$2 target=$3 label=$4
  pass "$sanitizer sanitizer: label $label"
  cmake -S . -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=Debug -DTAILOR_SANITIZE="$sanitizer" \
    -DTAILOR_BUILD_BENCH=OFF >/dev/null || return 1
  cmake --build "$dir" --target "$target" -j "$jobs" || return 1
  rm -f "$dir/Testing/Temporary/LastTestsFailed.log"
  (cd "$dir" && ctest -L "$label" --output-on-failure --no-tests=error -j "$jobs" --timeout 600)
}
sanitizer_pass "$asan_dir" address unit-tests unit || failed "address sanitizer" "$asan_dir"
# Every report fails the test (TSan exits 66); suppressions only for races inside Debian's
# uninstrumented libraries, each with its reason in the file.
export TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
sanitizer_pass "$tsan_dir" thread thread-tests unit-threads || failed "thread sanitizer" "$tsan_dir"

# fuzz_pass DIR: the fuzz targets built with clang (libFuzzer), each run on its committed corpus.
# A machine without clang fails this pass; it is never skipped.
fuzz_pass() {
  local dir=$1
  pass "fuzz: every target for ${FUZZ_SECONDS:-30}s on its corpus"
  if ! command -v clang++-14 >/dev/null 2>&1; then
    echo "fuzz: clang++-14 is missing (scripts/install-deps.sh installs clang-14)"
    return 1
  fi
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=Debug \
    -DTAILOR_FUZZ=ON -DTAILOR_BUILD_TESTS=OFF -DTAILOR_BUILD_BENCH=OFF >/dev/null || return 1
  cmake --build "$dir" --target fuzz-targets -j "$jobs" || return 1
  bash scripts/run-fuzz.sh "$dir" "${FUZZ_SECONDS:-30}"
}
fuzz_pass "$fuzz_dir" || failed "fuzz"

pass "summary"
if ((status == 0)); then
  echo "every pass passed"
else
  printf 'FAILED %s\n' "${failed_passes[@]}"
fi
exit $status
