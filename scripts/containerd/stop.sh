#!/usr/bin/env bash
# stop.sh DIR
# Stops the private containerd started by start.sh DIR (and its supervisor, when `tailor cluster
# up` ran it under one: DIR/containerd.supervisor.pid), kills what is left of its containers,
# removes the network namespaces of sandboxes still there and the pod network's bridge (named in
# DIR/cni/*.conflist), unmounts what it mounted under DIR and removes DIR.
set -uo pipefail
dir=$(realpath -m "$1")
[[ -d "$dir" ]] || exit 0
socket=$dir/containerd.sock

if [[ -S "$socket" ]]; then
  # Containers whose sandboxes were not removed: kill their tasks so no process outlives the test.
  for id in $(ctr -a "$socket" -n k8s.io tasks ls -q 2>/dev/null); do
    ctr -a "$socket" -n k8s.io tasks kill -s SIGKILL "$id" >/dev/null 2>&1
  done
  # Sandboxes not removed keep their network namespaces (and veths, IPs) until these go.
  for id in $(ctr -a "$socket" -n k8s.io containers ls -q 2>/dev/null); do
    ctr -a "$socket" -n k8s.io containers info "$id" 2>/dev/null |
      grep -o '"/var/run/netns/cni-[0-9a-f-]*"' | tr -d '"'
  done | sort -u | while read -r netns; do
    ip netns delete "$(basename "$netns")" 2>/dev/null
  done
fi
# The supervisor first, or it would start containerd again; on SIGTERM it stops containerd too.
if [[ -f "$dir/containerd.supervisor.pid" ]]; then
  supervisor=$(cat "$dir/containerd.supervisor.pid")
  kill "$supervisor" 2>/dev/null
  for _ in $(seq 1 150); do kill -0 "$supervisor" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$supervisor" 2>/dev/null
fi
if [[ -f "$dir/containerd.pid" ]]; then
  pid=$(cat "$dir/containerd.pid")
  kill "$pid" 2>/dev/null
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null
fi
# Shims outlive containerd by design; ours are the ones whose address points into DIR.
for shim in $(pgrep -f "containerd-shim.*-address $socket" 2>/dev/null); do
  kill -9 "$shim" 2>/dev/null
done
# The bridge cli/cluster_network.cpp reserved for this node's pods.
for conflist in "$dir"/cni/*.conflist; do
  [[ -f "$conflist" ]] || continue
  bridge=$(grep -o '"bridge":"[^"]*"' "$conflist" | cut -d'"' -f4)
  [[ -n "$bridge" ]] && ip link del "$bridge" 2>/dev/null
done
# Unmount deepest first (rootfs, shm, snapshot mounts).
grep -F " $dir/" /proc/self/mounts | awk '{print $2}' | sort -r | while read -r mount; do
  umount -l "$mount" 2>/dev/null
done
# A lazily unmounted filesystem may keep a directory busy for a moment.
for _ in $(seq 1 20); do
  rm -rf "$dir" 2>/dev/null && exit 0
  sleep 0.1
done
echo "containerd stop: could not remove $dir: $(rm -rf "$dir" 2>&1 | head -3)" >&2
exit 1
