#!/usr/bin/env bash
# systemd-analyze verify on the units as this build configured them, with
# ExecStart pointed at the binary just built (verify checks that it exists):
# the plain unit, the template, and an instance of it. Any complaint fails.
set -euo pipefail
units=$1 binary=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sbin=$(sed -n 's|^ExecStart=\(/[^ ]*\)/ibsm .*|\1|p' "$units/ibsm.service")
for unit in ibsm.service ibsm@.service; do
  sed "s|$sbin/ibsm|$binary|" "$units/$unit" >"$dir/$unit"
done
cp "$dir/ibsm@.service" "$dir/ibsm@0x0002c903000e0b71.service"
cd "$dir"
out=$(systemd-analyze verify --man=no ./ibsm.service ./ibsm@.service ./ibsm@0x0002c903000e0b71.service 2>&1) || {
  echo "$out"
  exit 1
}
if [[ -n $out ]]; then
  echo "$out"
  exit 1
fi
grep -q '^Type=notify$' ibsm.service
grep -q '^ExecStart=.* --port %I --state-dir /var/lib/ibsm/%i ' ibsm@.service
echo "units verified: ibsm.service ibsm@.service"
