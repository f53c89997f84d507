#!/bin/bash
# once_more_on_crash (run-checks.sh), on a stand-in diag that prints, then
# crashes (SIGSEGV) or fails on the runs it is told to: a crash is run once
# more and only the last run's output is kept; a plain failure, timeout's
# 124 and a second crash are passed on as they are. No simulator needed.
set -u
source "$(dirname "$0")/run-checks.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
runs=$scratch/runs

# diag OUTCOME...: run k prints "run k of $SIM_HOST" and then ends as the
# k-th OUTCOME says: ok, segv, or an exit status.
diag() {
  local k
  k=$(($(cat "$runs" 2>/dev/null || echo 0) + 1))
  echo "$k" >"$runs"
  shift $((k - 1))
  sh -c 'echo "run $1 of $SIM_HOST"; case $2 in ok) exit 0 ;; segv) kill -SEGV $$ ;; *) exit "$2" ;; esac' \
    sh "$k" "${1:-ok}"
}

# expect OUTCOMES -- STATUS RUNS OUTPUT: what once_more_on_crash gives.
expect() {
  local outcomes=() out rc
  while [[ $1 != -- ]]; do outcomes+=("$1"); shift; done
  shift
  rm -f "$runs"
  out=$(SIM_HOST=host1 once_more_on_crash diag "${outcomes[@]}" 2>"$scratch/err")
  rc=$?
  [[ $rc -eq $1 ]] || fail "${outcomes[*]}: status $rc, expected $1"
  [[ $(cat "$runs") -eq $2 ]] || fail "${outcomes[*]}: $(cat "$runs") runs, expected $2"
  [[ $out == "$3" ]] || fail "${outcomes[*]}: printed '$out', expected '$3'"
  if [[ $2 -eq 2 ]]; then
    grep -q "crashed (exit 139); once more" "$scratch/err" || fail "${outcomes[*]}: no note of the crash"
  fi
}

expect ok -- 0 1 "run 1 of host1"
expect segv ok -- 0 2 "run 2 of host1"
expect segv segv -- 139 2 "run 2 of host1"
expect segv 3 -- 3 2 "run 2 of host1"
expect 1 ok -- 1 1 "run 1 of host1"
expect 124 ok -- 124 1 "run 1 of host1" # timeout's own: no crash
expect 127 ok -- 127 1 "run 1 of host1"
finish "once_more_on_crash"
