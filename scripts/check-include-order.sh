#!/usr/bin/env bash
# Fails when a component includes a folder later than itself in the dependency order of
# docs/conventions.md: kube -> policy -> actuator -> controller, recommender pure, node-agent's
# libraries cri -> {allocation, usage, runtime} -> main, embedded on kube alone, no library on cli.
# Reads only the `#include "..."` lines, so it also runs on a copy of the tree:
#   scripts/check-include-order.sh [ROOT]
# Prints each offending include as FILE:LINE and exits 1; exits 0 when every include is allowed.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

# Component: the components its files may include besides their own. A folder missing here (tests,
# bench, fuzz, proto's generated code) is not checked.
rules='
kube:
policy: kube
recommender:
actuator: kube policy
controller: kube policy actuator recommender proto
node-agent/cri: kube proto
node-agent/allocation: kube proto node-agent/cri
node-agent/usage: kube proto node-agent/cri
node-agent/runtime: kube proto node-agent/cri
node-agent/main: kube proto node-agent/cri node-agent/allocation node-agent/usage node-agent/runtime
embedded: kube proto
cli: kube policy recommender actuator controller proto embedded node-agent/cri node-agent/allocation node-agent/usage node-agent/runtime node-agent/main
'
dirs=(kube policy recommender actuator controller node-agent embedded cli)
present=()
for d in "${dirs[@]}"; do [[ -d $d ]] && present+=("$d"); done
((${#present[@]})) || { echo "check-include-order: no component folder under $root" >&2; exit 2; }

if ! find "${present[@]}" -type f \( -name '*.h' -o -name '*.cpp' \) -print0 | sort -z |
  xargs -0 -r awk -v rules="$rules" '
    # node-agent/<lib>/... is its own component; any other path belongs to its first folder.
    function component(path,    parts, n) {
      n = split(path, parts, "/")
      if (parts[1] == "node-agent" && n > 2) return parts[1] "/" parts[2]
      return parts[1]
    }
    BEGIN {
      n = split(rules, lines, "\n")
      for (i = 1; i <= n; i++) {
        if (lines[i] !~ /:/) continue
        split(lines[i], kv, ":")
        known[kv[1]] = 1
        allowed_text[kv[1]] = kv[2]
        m = split(kv[2], names, " ")
        for (j = 1; j <= m; j++) allowed[kv[1], names[j]] = 1
      }
      known["node-agent"] = 1; known["proto"] = 1; known["tests"] = 1; known["bench"] = 1; known["fuzz"] = 1
      bad = 0
    }
    /^[ \t]*#[ \t]*include[ \t]*"/ {
      inc = $0
      sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
      from = component(FILENAME); to = component(inc)
      if (!(to in known) || to == from) next
      if (inc !~ /\//) next
      if (!((from, to) in allowed)) {
        printf "%s:%d: %s includes \"%s\" (%s may include only:%s)\n", FILENAME, FNR, from, inc,
               from, (allowed_text[from] == "" ? " nothing outside itself" : allowed_text[from])
        bad = 1
      }
    }
    END { exit bad }
  '; then
  exit 1  # xargs reports the failure as 123; the offending lines are printed above
fi
echo "check-include-order: every include follows the dependency order"
