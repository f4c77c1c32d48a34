#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what clang-format makes of it with the repo's
# .clang-format (Debian 12's clang-format 14, which scripts/install-deps.sh installs).
#   scripts/check-format.sh [ROOT]      `make format` rewrites the files instead.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed" >&2; exit 2; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -d '' files < <(git ls-files -z '*.cpp' '*.h')
else
  mapfile -d '' files < <(find . -path ./build -prune -o -type f \( -name '*.cpp' -o -name '*.h' \) -print0)
fi
report=$(printf '%s\0' "${files[@]}" | xargs -0 -r clang-format --dry-run 2>&1 || true)
if [[ -n $report ]]; then
  grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' <<<"$report" | head -40 >&2 || true
  echo "check-format: $(grep -c 'warning:' <<<"$report") places differ from clang-format (make format rewrites them)" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files as clang-format writes them"
