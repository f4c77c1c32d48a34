#!/usr/bin/env bash
# build-image.sh OUT.tar NAME [ENTRYPOINT...]
# Builds an OCI image archive (oci-layout, index.json, blobs/sha256/...) whose single layer holds
# Debian's /bin/busybox (busybox-static) with every applet linked in /bin. NAME is the image's
# fully-qualified reference (e.g. docker.io/library/busybox:latest), recorded so that
# `ctr images import` registers the image under that name. There is no registry: this is how the
# local runtime gets its images.
set -euo pipefail
out=$1 name=$2
shift 2
entrypoint=("$@")

busybox=/bin/busybox  # busybox-static: no shared libraries needed inside the image
[[ -x "$busybox" ]] || { echo "build-image: busybox not found (apt-get install busybox-static)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/rootfs/bin" "$work/rootfs/tmp" "$work/rootfs/etc" "$work/blobs/sha256"
# `busybox --install -s` links every applet to the binary's real path (/usr/bin/busybox on a
# merged-/usr Debian), so the binary goes there and /bin/busybox points at it.
real=$(readlink -f "$busybox")
mkdir -p "$work/rootfs$(dirname "$real")"
cp "$real" "$work/rootfs$real"
"$busybox" --install -s "$work/rootfs/bin"
[[ -e "$work/rootfs/bin/busybox" ]] || ln -s "$real" "$work/rootfs/bin/busybox"
echo 'root:x:0:0:root:/root:/bin/sh' > "$work/rootfs/etc/passwd"
echo 'root:x:0:' > "$work/rootfs/etc/group"

tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$work/rootfs" -cf "$work/layer.tar" .

blob() {  # blob FILE -> prints "sha256:<hex> <size>" and stores FILE under blobs/
  local hex size
  hex=$(sha256sum "$1" | cut -d' ' -f1)
  size=$(stat -c %s "$1")
  cp "$1" "$work/blobs/sha256/$hex"
  echo "sha256:$hex $size"
}

read -r layer_digest layer_size < <(blob "$work/layer.tar")

json_array() {
  local first=1
  printf '['
  for item in "$@"; do
    ((first)) || printf ','
    first=0
    printf '"%s"' "$item"
  done
  printf ']'
}
# An entrypoint (the pause image) runs alone; otherwise the shell is the default command.
if ((${#entrypoint[@]})); then
  entry_json=$(json_array "${entrypoint[@]}") cmd_json='null'
else
  entry_json='null' cmd_json='["sh"]'
fi

printf '{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Entrypoint":%s,"Cmd":%s},"rootfs":{"type":"layers","diff_ids":["%s"]}}' \
  "$entry_json" "$cmd_json" "$layer_digest" > "$work/config.json"
read -r config_digest config_size < <(blob "$work/config.json")

printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"%s","size":%s}]}' \
  "$config_digest" "$config_size" "$layer_digest" "$layer_size" > "$work/manifest.json"
read -r manifest_digest manifest_size < <(blob "$work/manifest.json")

printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"%s","size":%s,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
  "$manifest_digest" "$manifest_size" "$name" "$name" > "$work/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' > "$work/oci-layout"

tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$work" -cf "$out" oci-layout index.json blobs
