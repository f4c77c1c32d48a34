#!/usr/bin/env bash
# start.sh [--config | --run | --images] DIR
# Starts a private containerd (Debian's containerd + runc) whose root, state and sockets all live
# under DIR, so several can run side by side and none touches the system instance. Imports the
# local busybox image (docker.io/library/busybox:latest) and the pause image the sandboxes use.
# Pod networks: the CRI plugin runs Debian's CNI plugins (/usr/lib/cni) with the conflist found in
# DIR/cni (the caller writes it: cli/cluster_network.h); without one, only hostNetwork pods run.
# Prints the CRI socket path on success. Needs root (cgroups, mounts, namespaces).
# Without a mode, all three steps below, containerd in the background (its pid in
# DIR/containerd.pid, output in DIR/containerd.log): what the containerd test fixtures use. For a
# supervisor (`tailor cluster up` runs containerd under `tailor supervise`, as systemd would):
#   --config  writes DIR/config.toml;
#   --run     execs containerd with it, in the foreground (the supervisor's command);
#   --images  waits for the socket, imports the images (once: they stay in DIR/root across
#             restarts of containerd) and prints the socket.
set -euo pipefail
mode=all
case ${1:-} in
  --config | --run | --images) mode=${1#--}; shift ;;
esac
dir=$(realpath -m "$1")
here=$(dirname "$(realpath "$0")")
readonly busybox_image=docker.io/library/busybox:latest
readonly pause_image=tailor.local/pause:1
socket=$dir/containerd.sock

fail() { echo "containerd start: $*" >&2; exit 1; }

write_config() {
  [[ $(id -u) == 0 ]] || fail "must run as root (uid $(id -u)): containerd needs cgroups and mounts"
  for tool in containerd runc ctr; do
    command -v "$tool" >/dev/null || fail "$tool not found (apt-get install containerd runc busybox-static)"
  done
  mkdir -p "$dir/root" "$dir/state"
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
}

# Waits up to 10 s for containerd to answer on the socket; fails early when the process in
# DIR/containerd.pid is gone (a supervisor may be between two runs: then only the time counts).
wait_for_socket() {
  for _ in $(seq 1 100); do
    [[ -S "$socket" ]] && ctr -a "$socket" version >/dev/null 2>&1 && return
    [[ $mode == all ]] && ! kill -0 "$(cat "$dir/containerd.pid")" 2>/dev/null &&
      fail "containerd exited; log: $(tail -5 "$dir/containerd.log")"
    sleep 0.1
  done
  ctr -a "$socket" version >/dev/null 2>&1 ||
    fail "containerd did not open $socket within 10 s; log: $(tail -5 "$dir/containerd.log" 2>/dev/null)"
}

import_images() {
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
}

case $mode in
  config) write_config ;;
  run)
    [[ -f "$dir/config.toml" ]] || fail "no $dir/config.toml (start.sh --config $dir first)"
    exec containerd --config "$dir/config.toml" ;;
  images)
    wait_for_socket
    import_images
    echo "$socket" ;;
  all)
    write_config
    containerd --config "$dir/config.toml" > "$dir/containerd.log" 2>&1 &
    echo $! > "$dir/containerd.pid"
    wait_for_socket
    import_images
    echo "$socket" ;;
esac
