#!/usr/bin/env bash
# Builds tests/tools/helm-render (Helm's template engine for the chart tests) offline from
# Debian's Go packages: GOPATH mode, with the two module paths sprig imports under /v3 linked
# to Debian's copies.
#   scripts/build-helm-render.sh OUTPUT WORKDIR
set -euo pipefail
out=${1:?usage: build-helm-render.sh OUTPUT WORKDIR}
work=${2:?usage: build-helm-render.sh OUTPUT WORKDIR}
src=$(cd "$(dirname "$0")/../tests/tools/helm-render" && pwd)
gocode=/usr/share/gocode/src

if ! command -v go >/dev/null; then
  echo "build-helm-render: 'go' is not installed; the chart tests render the chart with Helm's" \
    "engine built from Debian's Go packages: run scripts/install-deps.sh (golang-go," \
    "golang-github-masterminds-sprig-dev, golang-k8s-sigs-yaml-dev," \
    "golang-github-xeipuuv-gojsonschema-dev)" >&2
  exit 1
fi
for dir in github.com/Masterminds/sprig github.com/Masterminds/semver sigs.k8s.io/yaml \
  github.com/xeipuuv/gojsonschema; do
  if [[ ! -d $gocode/$dir ]]; then
    echo "build-helm-render: $gocode/$dir is missing: run scripts/install-deps.sh" >&2
    exit 1
  fi
done

mkdir -p "$work/cache"
# The import paths end in /v3; Debian installs the packages without it.
mkdir -p "$work/v3/src/github.com/Masterminds/sprig" "$work/v3/src/github.com/Masterminds/semver"
ln -sfn "$gocode/github.com/Masterminds/sprig" "$work/v3/src/github.com/Masterminds/sprig/v3"
ln -sfn "$gocode/github.com/Masterminds/semver" "$work/v3/src/github.com/Masterminds/semver/v3"
cd "$src"
env GO111MODULE=off GOPATH="$work/v3:/usr/share/gocode" GOCACHE="$work/cache" GOENV=off GOFLAGS= \
  CGO_ENABLED=0 go build -o "$out" .
