#!/usr/bin/env bash
# Runs COMMAND under a real systemd where systemd is not PID 1 (a container,
# CI): systemd boots as PID 1 of its own PID, mount, cgroup, UTS, IPC and
# network namespaces, on a throw-away copy of this machine's root -- an
# overlay of / whose writes land in a tmpfs -- with its own /proc (/proc/sys
# read-only), a read-only /sys, a minimal /dev, /run and /tmp, and a cgroup
# of its own. COMMAND then runs inside it (nsenter) and can use systemctl
# and journalctl; apt-get installs, /etc edits and systemd-tmpfiles' boot
# clean-up of /tmp all land in the overlay and are gone afterwards.
#
#   scripts/systemd-sandbox.sh COMMAND [ARGS...]    # as root; exit status is COMMAND's
#
# Why so many walls: a systemd booted on the machine's own /tmp empties it
# (tmpfiles.d's "D /tmp"), on its own /proc/sys would apply sysctls to the
# machine, with a writable /sys would replay udev events. The target is
# basic.target, so no service enabled on the machine (a database, OpenSM)
# starts; units that touch the kernel are masked in the overlay's /etc.
set -euo pipefail
[[ $(id -u) -eq 0 ]] || { echo "$0: run as root (it mounts and boots systemd)" >&2; exit 2; }
(($# > 0)) || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }

masked=(systemd-modules-load.service systemd-sysctl.service systemd-udevd.service
  systemd-udev-trigger.service systemd-udev-settle.service systemd-timesyncd.service
  systemd-binfmt.service proc-sys-fs-binfmt_misc.automount proc-sys-fs-binfmt_misc.mount
  systemd-remount-fs.service systemd-random-seed.service systemd-pstore.service swap.target
  systemd-hwdb-update.service ldconfig.service getty.target console-getty.service
  apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer
  man-db.timer opensm.service postgresql.service)

# PID 1 of the new namespaces: builds the root and becomes systemd.
if [[ ${1:-} == --boot ]]; then
  box=$2
  mount -t tmpfs -o size=8g,mode=700 ibsm-sandbox "$box"
  mkdir "$box/upper" "$box/work" "$box/root"
  mount -t overlay overlay -o "lowerdir=/,upperdir=$box/upper,workdir=$box/work" "$box/root"
  r=$box/root
  mount -t proc proc "$r/proc"
  mount --bind "$r/proc/sys" "$r/proc/sys"
  mount -o remount,bind,ro "$r/proc/sys"
  mount -t sysfs -o ro sysfs "$r/sys"
  mount -t tmpfs -o mode=755 cgroup "$r/sys/fs/cgroup"
  mkdir "$r/sys/fs/cgroup/systemd" "$r/sys/fs/cgroup/unified"
  mount -t cgroup -o none,name=systemd cgroup "$r/sys/fs/cgroup/systemd"
  mount -t cgroup2 cgroup2 "$r/sys/fs/cgroup/unified"
  mount -t tmpfs -o mode=755 dev "$r/dev"
  for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
    IFS=: read -r name major minor <<<"$node"
    mknod -m 666 "$r/dev/$name" c "$major" "$minor"
  done
  mkdir "$r/dev/pts" "$r/dev/shm"
  mount -t devpts -o newinstance,ptmxmode=0666 devpts "$r/dev/pts"
  ln -s pts/ptmx "$r/dev/ptmx"
  mount -t tmpfs -o mode=1777 shm "$r/dev/shm"
  mount -t tmpfs -o mode=755 run "$r/run"
  mount -t tmpfs -o mode=1777 tmp "$r/tmp"
  rm -f "$r/etc/systemd/system/"*.wants/*
  for unit in "${masked[@]}"; do ln -sf /dev/null "$r/etc/systemd/system/$unit"; done
  echo ibsm-sandbox >"$r/etc/hostname"
  cd "$r"
  exec chroot . /usr/bin/env -i container=ibsm-sandbox \
    PATH=/usr/sbin:/usr/bin:/sbin:/bin /lib/systemd/systemd --unit=basic.target
fi

box=$(mktemp -d /run/ibsm-sandbox.XXXXXX)
cg=ibsm-sandbox.$$
mkdir /sys/fs/cgroup/systemd/"$cg" /sys/fs/cgroup/unified/"$cg"
cleanup() {
  [[ -n ${init:-} ]] && kill -KILL "$init" 2>/dev/null
  wait 2>/dev/null || true
  # Children first: systemd made its slices under ours.
  for h in systemd unified; do
    find "/sys/fs/cgroup/$h/$cg" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
  rmdir "$box" 2>/dev/null || true
  rm -f "$box.log"
}
trap cleanup EXIT
# Into our cgroup first, so the new cgroup namespace is rooted there.
(
  echo 0 >/sys/fs/cgroup/systemd/"$cg"/cgroup.procs
  echo 0 >/sys/fs/cgroup/unified/"$cg"/cgroup.procs
  exec unshare --pid --fork --mount --propagation private --cgroup --uts --ipc --net \
    "$(realpath "$0")" --boot "$box"
) >"$box.log" 2>&1 &
launcher=$!
until init=$(pgrep -P "$launcher" 2>/dev/null | head -n 1) &&
  [[ -n $init && $(cat "/proc/$init/comm" 2>/dev/null) == systemd ]]; do
  kill -0 "$launcher" 2>/dev/null || { echo "$0: systemd did not start: $(tail -3 "$box.log")" >&2; exit 1; }
  sleep 0.1
done
inside() { nsenter -t "$init" -m -p -u -i -n -C -r -w "$@"; }
for _ in $(seq 300); do
  inside test -S /run/systemd/private 2>/dev/null && break
  sleep 0.1
done
state=$(inside systemctl is-system-running --wait 2>/dev/null || true)
echo "systemd-sandbox: $(inside systemctl --version | head -n 1), system $state" >&2
set +e
# In the same directory, seen through the overlay.
inside /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb \
  /bin/bash -c 'cd "$0" && exec "$@"' "$PWD" "$@"
code=$?
set -e
exit "$code"
