#!/usr/bin/env bash
# Builds the Debian package from this tree: build-deb/ibsm_<version>_<arch>.deb
# (CPack's DEB generator; dist/CMakeLists.txt says why and what goes in).
#   scripts/build-deb.sh && apt-get install ./build-deb/ibsm_*.deb
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-deb}
"$root/scripts/install-deps.sh"
# dpkg-shlibdeps (dpkg-dev) derives the package's run-time dependencies.
if ! dpkg-query -W -f='${Status}' dpkg-dev 2>/dev/null | grep -q "install ok installed"; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends dpkg-dev file >/dev/null
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DIBSM_TESTS=OFF -DIBSM_BENCH=OFF \
  "$@" >/dev/null
ninja -C "$build" -j"${JOBS:-$(nproc)}" >&2
(cd "$build" && cpack -G DEB >&2)
ls "$build"/ibsm_*.deb
