#!/usr/bin/env bash
# build.sh BUILD_DIR OUT_DIR
# `make image`: one OCI image holding tailor-controller, tailor-node-agent and tailor from
# BUILD_DIR/bin (optimized builds, stripped here), the shared libraries they load from this Debian
# machine (found with ldd, the dynamic loader included), Debian's CA certificates and a non-root
# user (65532, the uid the chart runs the controller as). Built with buildah from scratch on a
# private vfs store, so it works offline and leaves no image or layer in /var/lib/containers (only
# buildah's small blob-info cache, /var/lib/containers/cache, which no flag moves); written as
# OUT_DIR/tailor-VERSION.oci.tar, named docker.io/library/tailor:VERSION (what the chart's default
# image "tailor:<appVersion>" means to containerd), ready for `ctr images import`.
# VERSION is the chart's appVersion, which the binaries also print for --version.
# Prints the archive's path. Needs root (buildah's vfs store keeps file ownership).
set -euo pipefail
build=$(realpath "$1")
out=$(realpath -m "$2")
root=$(cd "$(dirname "$0")/../.." && pwd)
readonly programs=(tailor-controller tailor-node-agent tailor)
readonly user=65532 group=65532

fail() { echo "image: $*" >&2; exit 1; }
[[ $(id -u) == 0 ]] || fail "must run as root (uid $(id -u)): buildah's vfs store keeps file owners"
command -v buildah >/dev/null || fail "buildah not found (bash scripts/install-deps.sh installs it)"
readonly ca_bundle=/etc/ssl/certs/ca-certificates.crt
[[ -s $ca_bundle ]] || fail "$ca_bundle missing (apt-get install ca-certificates)"

version=$(sed -n 's/^appVersion: *"\{0,1\}\([^" ]*\)"\{0,1\} *$/\1/p' "$root/charts/tailor/Chart.yaml")
[[ -n $version ]] || fail "no appVersion in charts/tailor/Chart.yaml"
readonly name=docker.io/library/tailor:$version
# A build from before the version changed would carry the wrong number into a tagged image.
for p in "${programs[@]}"; do
  [[ -x $build/bin/$p ]] || fail "$build/bin/$p missing (build the $p target)"
  said=$("$build/bin/$p" --version) || fail "$p --version failed"
  [[ $said == "$p $version" ]] || fail "$p says \"$said\", the chart's appVersion is $version: rebuild"
done

work=$(mktemp -d)
store=$work/store
bah() { buildah --root "$store/root" --runroot "$store/run" --storage-driver vfs "$@"; }
cleanup() {  # never fails: the script's exit status is the build's
  [[ -z ${container:-} ]] || bah rm "$container" >/dev/null 2>&1 || true
  # vfs layers are plain directories, but buildah may leave its run state mounted.
  { grep -o " $work[^ ]*" /proc/self/mounts || true; } | sort -r | xargs -r -n1 umount -l || true
  rm -rf "$work"
}
trap cleanup EXIT

# The root file system: programs in /usr/bin (where the chart runs them), each library at the
# path ldd resolved it to (copied, not linked: the image has no merged /usr), the loader at the
# path the programs name as their interpreter.
rootfs=$work/rootfs
mkdir -p "$rootfs/usr/bin" "$rootfs/etc/ssl/certs" "$rootfs/tmp" "$rootfs/home" "$work/home"
for p in "${programs[@]}"; do
  strip --strip-all -o "$rootfs/usr/bin/$p" "$build/bin/$p"
done
libraries() {  # the shared objects the programs load, one path a line
  ldd "${programs[@]/#/$build/bin/}" | awk '
    /:$/ { next }  # the header line naming each program
    /not found/ { print "MISSING " $1; next }
    $2 == "=>" && $3 ~ /^\// { print $3 }
    $1 ~ /^\// { print $1 }'
}
mapfile -t libs < <(libraries | sort -u)
for lib in "${libs[@]}"; do
  [[ $lib != MISSING* ]] || fail "ldd cannot find ${lib#MISSING } for ${programs[*]}"
  mkdir -p "$rootfs$(dirname "$lib")"
  cp -L "$lib" "$rootfs$lib"
done
interpreter=$(readelf -l "$build/bin/tailor-controller" |
  sed -n 's/.*program interpreter: \(.*\)]/\1/p')
[[ -f $rootfs$interpreter ]] || fail "the dynamic loader $interpreter is not in the image"
cp "$ca_bundle" "$rootfs$ca_bundle"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%s:%s:nonroot:/home/nonroot:/sbin/nologin\n' \
  "$user" "$group" > "$rootfs/etc/passwd"
printf 'root:x:0:\nnonroot:x:%s:\n' "$group" > "$rootfs/etc/group"
# glibc's own lookup order when the file is missing puts DNS before /etc/hosts.
echo 'hosts: files dns' > "$rootfs/etc/nsswitch.conf"
chmod 1777 "$rootfs/tmp"

revision=$(git -C "$root" describe --always --dirty --abbrev=40 2>/dev/null || echo unknown)
container=$(bah from --quiet scratch)
# buildah copy makes everything root's unless told; only the user's home is the user's.
bah copy --quiet "$container" "$rootfs" / >/dev/null
bah copy --quiet --chown "$user:$group" "$container" "$work/home" /home/nonroot >/dev/null
bah config \
  --entrypoint '["/usr/bin/tailor-controller"]' \
  --user "$user:$group" --workingdir /home/nonroot \
  --env PATH=/usr/bin --env SSL_CERT_FILE="$ca_bundle" \
  --created-by "scripts/image/build.sh" --os linux --arch "$(dpkg --print-architecture)" \
  --label org.opencontainers.image.title=tailor \
  --label org.opencontainers.image.description="Tailor: tailor-controller, tailor-node-agent, tailor" \
  --label org.opencontainers.image.version="$version" \
  --label org.opencontainers.image.revision="$revision" \
  --label org.opencontainers.image.source=charts/tailor \
  "$container"
# Dated by the commit, not the clock: the same commit and programs give the same image digest.
created=$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)
mkdir -p "$out"
archive=$out/tailor-$version.oci.tar
rm -f "$archive"
# A gzip layer, as registries serve them (ctr imports either).
bah commit --quiet --format oci --disable-compression=false --timestamp "$created" \
  "$container" "oci-archive:$archive:$name" >/dev/null
echo "$archive"
