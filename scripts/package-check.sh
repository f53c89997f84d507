#!/usr/bin/env bash
# Checks the Debian package the way an operator uses it. As root, on a test
# machine or container: it installs and removes the package here.
#   1. builds it (scripts/build-deb.sh) and installs it: apt-get install ./ibsm_*.deb
#   2. starts ibsm@ibsim0:1 against a bundled ibsim fabric and waits for READY=1:
#      - under systemd: systemctl start, with a drop-in that points the unit at
#        the simulator (umad2sim) and loosens what umad2sim needs; where systemd
#        is not PID 1 (a container, CI), the whole check runs under a systemd
#        booted in scripts/systemd-sandbox.sh (namespaces over an overlay of /:
#        the install, the edits and the purge never reach this machine);
#      - with --no-systemd (or where namespaces cannot be made): the installed
#        unit's ExecStart as written, %i/%I and the state/runtime directories
#        as systemd would make them, NOTIFY_SOCKET given to a listener standing
#        in for systemd;
#   3. edits /etc/ibsm/ibsm.toml (priority) and reloads: RELOADING=1/READY=1, and
#      ibsm status shows the new priority;
#   4. apt-get remove: the edited config and /var/lib/ibsm/ibsim0:1 stay;
#      apt-get purge then removes both.
#   scripts/package-check.sh [--no-systemd] [FABRIC]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
no_systemd=0
[[ ${1:-} == --no-systemd ]] && { no_systemd=1; shift; }
fabric=${1:-$root/tests/data/topologies/two-switch-dual-port-hcas.net}
[[ $(id -u) -eq 0 ]] || { echo "$0: run as root (it installs the package)" >&2; exit 2; }
if [[ ! -d /run/systemd/system && $no_systemd == 0 ]]; then
  echo "systemd is not PID 1 here: the check runs under systemd in scripts/systemd-sandbox.sh"
  exec "$root/scripts/systemd-sandbox.sh" "$root/scripts/package-check.sh" "$fabric"
fi

deb=$("$root/scripts/build-deb.sh" | tail -n 1)
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null
echo "installed: $(dpkg-query -W -f='${Package} ${Version}' ibsm)"
for f in /usr/sbin/ibsm /etc/ibsm/ibsm.toml /usr/lib/systemd/system/ibsm@.service \
  /usr/share/man/man8/ibsm.8.gz /usr/share/man/man8/ibsm.8; do
  [[ -e $f ]] && echo "  $f"
done
cp /etc/ibsm/ibsm.toml /tmp/ibsm.toml.shipped
export IBSM_PACKAGE_CHECK_ROOT=$root IBSM_PACKAGE_CHECK_NO_SYSTEMD=$no_systemd
"$root/tests/sm/ibsim/run-with-ibsim.sh" "$fabric" -- "$root/scripts/package-check-unit.sh"

sed -i 's/^priority = .*/priority = 3/' /etc/ibsm/ibsm.toml  # an edit to keep
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq ibsm >/dev/null
[[ ! -e /usr/sbin/ibsm ]] || { echo "FAIL: remove left the binary" >&2; exit 1; }
grep -q '^priority = 3$' /etc/ibsm/ibsm.toml || { echo "FAIL: remove lost the edited config" >&2; exit 1; }
[[ -d /var/lib/ibsm/ibsim0:1 ]] || { echo "FAIL: remove lost the state directory" >&2; exit 1; }
echo "removed: the edited /etc/ibsm/ibsm.toml and /var/lib/ibsm/ibsim0:1 stay"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq ibsm >/dev/null
[[ ! -e /etc/ibsm/ibsm.toml && ! -e /var/lib/ibsm ]] || { echo "FAIL: purge left files" >&2; exit 1; }
echo "purged: config and state gone"
echo "package check: passed"
