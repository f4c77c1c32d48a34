#!/usr/bin/env bash
# Installs every Debian 12 package Tailor needs to build and test. Idempotent:
# packages already present are not fetched again, and apt's index is refreshed
# only when something is missing.
set -euo pipefail

build_packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libboost1.81-dev libboost-json1.81-dev libboost-program-options1.81-dev
  libarmadillo-dev libspdlog-dev libyaml-cpp-dev prometheus-cpp-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev libsimdjson-dev zlib1g-dev libsqlite3-dev libre2-dev
  libpng-dev
)
# Real peers the tests run against (containerd + runc for CRI, the CNI plugins and iproute2 for
# pod networks, kubectl, Prometheus); dnsmasq-base (the binary, no system service on port 53) is
# `tailor cluster up`'s cluster DNS; tzdata's /usr/share/zoneinfo for CronJob spec.timeZone.
# Chromium, headless, draws `tailor report -o html` for the e2e test to screenshot (libpng-dev
# above decodes it); DejaVu is the font it draws the page's text in.
peer_packages=(openssl prometheus containerd runc busybox-static containernetworking-plugins
  iproute2 dnsmasq-base tzdata chromium fonts-dejavu-core)
# clang-format for the format check of `make test` (scripts/check-format.sh); clang-14 with its
# runtime libraries (libFuzzer, the sanitizers) for the fuzz pass (scripts/run-fuzz.sh); Go, sprig,
# YAML and gojsonschema, the libraries of Helm's template engine, for tests/tools/helm-render (the
# chart tests render the chart with it; scripts/build-helm-render.sh).
check_packages=(clang-format clang-14 libclang-rt-14-dev golang-go golang-github-masterminds-sprig-dev
  golang-k8s-sigs-yaml-dev golang-github-xeipuuv-gojsonschema-dev)
# `make image` (scripts/image/build.sh): buildah writes the OCI archive; the CA bundle goes in it.
image_packages=(buildah ca-certificates)

missing=()
for p in "${build_packages[@]}" "${peer_packages[@]}" "${check_packages[@]}" "${image_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi
