#!/usr/bin/env bash
# Installs the Debian 12 packages ibsm builds and tests with, only those missing.
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache pkg-config clang-format clang-tidy-19
  clang-19 libclang-rt-19-dev
  libibumad-dev libibmad-dev libboost-graph-dev libtomlplusplus-dev libspdlog-dev libfmt-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
  nlohmann-json3-dev libsystemd-dev libzstd-dev libsodium-dev ibsim-utils infiniband-diags opensm time procps jq systemd dpkg-dev file
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
