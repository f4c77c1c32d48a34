#!/usr/bin/env bash
# install.sh
# Installs Debian's containerd, runc, busybox-static, the CNI plugins and iproute2 when any is
# missing (what start.sh and `tailor cluster up` need). Needs root to install; does nothing when all are present.
set -euo pipefail
missing=()
command -v containerd >/dev/null || missing+=(containerd)
command -v runc >/dev/null || missing+=(runc)
[[ -x /bin/busybox ]] || missing+=(busybox-static)
[[ -x /usr/lib/cni/bridge ]] || missing+=(containernetworking-plugins)
command -v ip >/dev/null || missing+=(iproute2)
((${#missing[@]})) || exit 0
[[ $(id -u) == 0 ]] || { echo "install: need root to install ${missing[*]}" >&2; exit 1; }
echo "installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
