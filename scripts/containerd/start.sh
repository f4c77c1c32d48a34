#!/usr/bin/env bash
# start.sh DIR
# Starts a private containerd (Debian's containerd + runc) whose root, state and sockets all live
# under DIR, so several can run side by side and none touches the system instance. Imports the
# local busybox image (docker.io/library/busybox:latest) and the pause image the sandboxes use.
# Pod networks: the CRI plugin runs Debian's CNI plugins (/usr/lib/cni) with the conflist found in
# DIR/cni (the caller writes it: cli/cluster_network.h); without one, only hostNetwork pods run.
# Prints the CRI socket path on success. Needs root (cgroups, mounts, namespaces).
set -euo pipefail
dir=$(realpath -m "$1")
here=$(dirname "$(realpath "$0")")
readonly busybox_image=docker.io/library/busybox:latest
readonly pause_image=tailor.local/pause:1

fail() { echo "containerd start: $*" >&2; exit 1; }
[[ $(id -u) == 0 ]] || fail "must run as root (uid $(id -u)): containerd needs cgroups and mounts"
for tool in containerd runc ctr; do
  command -v "$tool" >/dev/null || fail "$tool not found (apt-get install containerd runc busybox-static)"
done

mkdir -p "$dir/root" "$dir/state"
socket=$dir/containerd.sock

# The sandbox lacks CAP_SYS_RESOURCE: without restrict_oom_score_adj runc fails with
# "can't get final child's PID from pipe".
containerd config default | sed \
  -e "s|^root = .*|root = \"$dir/root\"|" \
  -e "s|^state = .*|state = \"$dir/state\"|" \
  -e "s|^\(  address = \)\"/run/containerd/containerd.sock\"|\1\"$socket\"|" \
  -e "s|restrict_oom_score_adj = false|restrict_oom_score_adj = true|" \
  -e "s|sandbox_image = .*|sandbox_image = \"$pause_image\"|" \
  -e "s|conf_dir = \"/etc/cni/net.d\"|conf_dir = \"$dir/cni\"|" \
  -e "s|bin_dir = \"/opt/cni/bin\"|bin_dir = \"/usr/lib/cni\"|" \
  -e "s|^            Root = \"\"|            Root = \"$dir/runc\"|" \
  > "$dir/config.toml"
grep -q "$socket" "$dir/config.toml" || fail "could not set the socket path in $dir/config.toml"
grep -q 'bin_dir = "/usr/lib/cni"' "$dir/config.toml" || fail "could not set the CNI bin_dir in $dir/config.toml"

containerd --config "$dir/config.toml" > "$dir/containerd.log" 2>&1 &
echo $! > "$dir/containerd.pid"

for _ in $(seq 1 100); do
  [[ -S "$socket" ]] && ctr -a "$socket" version >/dev/null 2>&1 && break
  kill -0 "$(cat "$dir/containerd.pid")" 2>/dev/null || fail "containerd exited; log: $(tail -5 "$dir/containerd.log")"
  sleep 0.1
done
ctr -a "$socket" version >/dev/null 2>&1 || fail "containerd did not open $socket within 10 s"

# The archives depend only on the busybox binary and the image script: build them once per
# machine (atomic rename, so concurrent starts never see half a file).
cache=${TAILOR_IMAGE_CACHE:-${TMPDIR:-/tmp}/tailor-image-cache}/$(cat /bin/busybox "$here/build-image.sh" | sha256sum | cut -c1-16)
mkdir -p "$cache"
build() {  # build FILE NAME [ENTRYPOINT...]
  local file=$cache/$1
  [[ -s "$file" ]] && return
  "$here/build-image.sh" "$file.$$" "${@:2}"
  mv -f "$file.$$" "$file"
}
build busybox.tar "$busybox_image"
build pause.tar "$pause_image" /bin/sleep 2147483647
for image in busybox pause; do
  ctr -a "$socket" -n k8s.io images import --no-unpack "$cache/$image.tar" >/dev/null \
    || fail "importing $image failed"
done
echo "$socket"
