#!/usr/bin/env bash
# scripts/check-include-order.sh passes on the tree, and fails with the offending file and line on
# a copy of the tree with one back-include planted in it (one case per rule it enforces).
set -uo pipefail
src=${1:?usage: include_order_test.sh SOURCE_DIR}
check=$src/scripts/check-include-order.sh
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

out=$("$check" "$src" 2>&1) || fail "the tree itself: $out"

# file to plant into | include planted | why it is a back-include
cases=(
  'kube/model/quantity.h|controller/app/controller.h|kube is the leaf'
  'policy/types.h|actuator/resize_plan.h|policy comes before actuator'
  'actuator/resize_plan.h|controller/app/controller.h|actuator comes before controller'
  'recommender/trace.h|kube/model/quantity.h|recommender is pure'
  'node-agent/cri/cri_client.h|node-agent/allocation/resize_manager.h|cri is the node agent leaf'
  'node-agent/usage/usage_window.h|node-agent/runtime/pod_runtime.h|usage and runtime are siblings'
  'node-agent/allocation/checkpoint.h|actuator/resize_plan.h|node-agent meets actuator only through the API'
  'embedded/api/pod_qos.h|policy/types.h|embedded knows nothing of Tailor logic'
  'controller/app/controller.h|cli/demo_api.h|no library uses cli'
)
for c in "${cases[@]}"; do
  IFS='|' read -r file include why <<<"$c"
  [[ -f $src/$file ]] || { fail "$file is not in the tree (update the case)"; continue; }
  copy=$(mktemp -d)
  cp -r "$src"/{kube,policy,recommender,actuator,controller,node-agent,embedded,cli} "$copy"/
  # Planted after the first line so the reported line number is not trivially 1.
  sed -i "1a #include \"$include\"" "$copy/$file"
  out=$("$check" "$copy" 2>&1)
  status=$?
  if [[ $status -ne 1 ]]; then
    fail "$why: planted $include in $file, exit $status (want 1): $out"
  elif [[ $out != *"$file:2: "*"\"$include\""* ]]; then
    fail "$why: output does not name $file:2 and the include: $out"
  fi
  rm -rf "$copy"
done

((failures == 0)) && echo "include order: the tree passes and ${#cases[@]} planted back-includes fail"
exit $((failures > 0))
