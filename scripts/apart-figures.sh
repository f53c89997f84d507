#!/usr/bin/env bash
# Issue 33's figures for the pairs ftree routes apart (hosts above the leaves,
# SHARP aggregation nodes): every CA pair walked by bench/judge/judge-routes.py
# (--net: the net file and the dump; independent of ibsm's report), all pairs
# and per class beside, for ftree (--engine auto), ftree-vl (the same engine) and updn, on the DGX-like
# and Lassen-like look-alikes and the generated kinds of scripts/ftree-kinds.sh
# (its --list: the kinds are listed there only), and sssp (balanced shortest
# paths on VL layers; what auto takes on trees with director pods where its
# busiest link is lower). Classes: "compute" (neither
# end an aggregation node nor a host above the leaves), "upper" (a host above
# the leaves at either end, no aggregation node), "an" (an aggregation node
# at either end), "hosts" (no aggregation node at either end), "all".
#   scripts/apart-figures.sh [--ibsm BIN] [--route-with BIN] [--radix K] [--only NAME]
#                            [--dfsssp]
# --dfsssp: OpenSM's dfsssp too, once on ibsim (tests/sm/ibsim/run-with-ibsim.sh,
#   `opensm -o -R dfsssp`), its opensm-lfts.dump walked the same way and the
#   VLs it needed taken from its log.
#
# The look-alikes (made by `ibsm topo generate` alone; the generator's 3-level
# trees have radix/trunk pods, so the counts are near, not equal, to the
# captures of the issue):
#  - dgx-like: 3 levels of radix-16 switches (320 switches: 128 leaves, 128
#    spines, 64 cores), 128 8-rail servers (1,024 HCAs, HCA r of a server on
#    leaf r of its rail group of 8 leaves: a scalable unit), 10 storage and
#    management hosts above the leaves (6 on spines, 4 on cores), a SHARP
#    aggregation node on every switch. The capture: 206 switches, 140 servers
#    (1,120 HCAs), 10 hosts above the leaves, 206 aggregation nodes.
#  - lassen-like: 3 levels of radix-24 switches with every cable doubled
#    (--trunk 2: 12 pods of 6 leaves and 6 spines, 36 cores), the first pod a
#    director chassis (its spine chips take the hosts), 174 switches as in the
#    capture; 432 dual-rail nodes (two HCAs each on two leaves: the capture's
#    dual-port nodes; 864 HCAs against its 1,644 CA ports), 12 I/O hosts above
#    the leaves (8 on spines, 4 on cores), an aggregation node on every switch
#    (Switch-IB 2 carries SHARP). Public descriptions of Lassen (LLNL: about
#    790 IBM AC922 nodes, dual-port EDR HCAs, a fat tree of Mellanox EDR
#    switches) give no cabling plan; the shape above is assumed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ibsm=${BUILD_DIR:-$root/build}/sm/cli/ibsm
route_with=""
radix=12
only=""
dfsssp=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --ibsm) ibsm=$2; shift 2 ;;
    --route-with) route_with=$2; shift 2 ;;
    --radix) radix=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --dfsssp) dfsssp=1; shift ;;
    *) echo "usage: $0 [--ibsm BIN] [--route-with BIN] [--radix K] [--only NAME] [--dfsssp]" >&2
       exit 2 ;;
  esac
done
route_with=${route_with:-$ibsm}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/opensm.sh" <<'OPENSM'
#!/usr/bin/env bash
# Under run-with-ibsim.sh: OpenSM once with dfsssp, its dumps into $1.
mkdir -p "$1"
OSM_TMP_DIR=$1 OSM_CACHE_DIR=$1 opensm -o -R dfsssp -D 0x43 -d0 --dump_files_dir "$1" \
  -f "$1/log" >"$1/stdout" 2>&1
grep -q 'SUBNET UP' "$1/log"
OPENSM
chmod +x "$work/opensm.sh"
fabrics=(
  "dgx-like|--levels 3 --radix 16 --rails 8 --aggregation-nodes --io-hosts 1:6 --io-hosts 2:4"
  "lassen-like|--levels 3 --radix 24 --trunk 2 --director-pods 1 --rails 2 --aggregation-nodes --io-hosts 1:8 --io-hosts 2:4"
)
while IFS= read -r kind; do
  fabrics+=("${kind%%|*}|--radix $radix ${kind#*|}")
done < <("$root/scripts/ftree-kinds.sh" --list --radix "$radix")
# walk NET DUMP_DIR: the judge's figures as compute / hosts / all lines.
# With the engine's SL2VL and pair SLs (sssp's layers) when it wrote them, so
# the credit-loop verdict walks each pair on its SL.
walk() {
  local sls=()
  [[ -f $2/sl2vl.dump ]] && sls+=(--sl2vl "$2/sl2vl.dump")
  [[ -f $2/pair-sls ]] && sls+=(--pair-sls "$2/pair-sls" --guid2lid "$2/guid2lid")
  python3 "$root/bench/judge/judge-routes.py" --net "$1" --lfts "$2/opensm-lfts.dump" \
    "${sls[@]}" --json "$work/judge.json" >/dev/null || return
  python3 - "$work/judge.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for name, busiest, pairs, longest in (("compute", "busiest_compute", "pairs_compute", "longest_compute"),
                                      ("upper", "busiest_upper", "pairs_upper", "longest_upper"),
                                      ("an", "busiest_an", "pairs_an", "longest_an"),
                                      ("hosts", "busiest_hosts", "pairs_hosts", "longest_hosts"),
                                      ("all", "busiest", "pairs", "longest")):
    if not j.get(pairs):
        continue  # no pair of this class on the fabric
    print(f"{name:8} pairs {j[pairs]:>9}  busiest {j[busiest]:>7} ({j.get('busiest_link_' + name)})  "
          f"mean {j.get('mean_' + name, 0):8.1f}  longest {j[longest]} hops  "
          f"longer than shortest {j.get('longer_' + name)}")
print(f"VLs {j['vls']}  credit-loop free {j['credit_loop_free']}")
if j["unrouted"]:
    print(f"unrouted or looping: {j['unrouted']}")
PY
}
for f in "${fabrics[@]}"; do
  name=${f%%|*}
  [[ -z $only || $name == "$only" ]] || continue
  # shellcheck disable=SC2086
  "$ibsm" topo generate fat-tree ${f#*|} -o "$work/net" >/dev/null
  # ftree-vl: the same engine as ftree (auto) now (issue 33); both kept to show they agree.
  for engine in auto ftree-vl updn sssp; do
    if ! /usr/bin/time -f "%e s wall %U user %S sys %M KB" -o "$work/time" \
      "$route_with" route --topology "$work/net" --engine "$engine" --out "$work/$engine" \
      --force >"$work/summary" 2>&1; then
      echo "== $name: $engine: $(tail -1 "$work/summary")"
      continue
    fi
    used=$(sed -n 's/^routing engine: //p' "$work/summary")
    echo "== $name: $engine ($used; $(cat "$work/time"))"
    walk "$work/net" "$work/$engine"
  done
  [[ -n $dfsssp ]] || continue
  rm -rf "$work/dfsssp"
  if "$root/tests/sm/ibsim/run-with-ibsim.sh" -N 4096 -S 1024 -P 20000 "$work/net" -- \
    "$work/opensm.sh" "$work/dfsssp" >/dev/null 2>&1; then
    vls=$(sed -n 's/.*Virtual Lanes needed: //p' "$work/dfsssp/log" | tail -1)
    echo "== $name: OpenSM dfsssp (${vls:-?} VLs)"
    walk "$work/net" "$work/dfsssp"
  else
    echo "== $name: OpenSM dfsssp did not bring the subnet up"
  fi
done
