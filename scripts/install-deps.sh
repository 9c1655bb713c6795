#!/usr/bin/env bash
# Installs every Debian package that building, testing, benchmarking and the demo need.
# Only missing packages are installed, so a second run is a quick no-op.
set -euo pipefail
PKGS=(libeigen3-dev libboost-dev libblas-dev llvm-22-dev llvm-22-tools clang-22 libclang-22-dev lld-22 libclang-rt-22-dev
      cmake ninja-build make python3 libgtest-dev libbenchmark-dev libadolc-dev
      zlib1g-dev libzstd-dev libedit-dev libxml2-dev libcurl4-openssl-dev
      libomp-22-dev libopenmpi-dev openmpi-bin)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "install-deps: installing ${missing[*]}"
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
