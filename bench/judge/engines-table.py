#!/usr/bin/env python3
"""The table of scripts/bench-engines.sh from its results.tsv files (several:
one table): fabric x engine -> busiest link (all pairs, then compute / hosts
above the leaves / aggregation nodes), longest path, VLs, unrouted pairs,
credit-loop freedom; then ibsm's row against dfsssp's on each fabric.

  engines-table.py RESULTS.tsv... [--check]
--check: exit 1 unless every row is complete, ibsm's rows route every pair
without a credit loop, and ibsm's busiest link is at most updn's wherever
both ran.
"""
import csv
import sys

args = [a for a in sys.argv[1:] if a != "--check"]
check = "--check" in sys.argv[1:]
rows = []
for path in args:
    with open(path) as f:
        rows += list(csv.DictReader(f, delimiter="\t"))
print("| fabric | engine (routed by) | busiest link: all (compute / upper / AN) | longest: all (compute / upper / AN) | VLs | unrouted / pairs | credit-loop free |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    if not r.get("busiest"):
        print(f"| {r['fabric']} | {r['engine']} | {r['routed_by']} | | | | |")
        continue
    eng = r["engine"] if r["routed_by"] in (r["engine"], "") else f"{r['engine']} ({r['routed_by']})"
    print(f"| {r['fabric']} | {eng} | {r['busiest']} ({r['busiest_compute']} / {r['busiest_upper']} / {r['busiest_an']}) "
          f"| {r['longest']} ({r['longest_compute']} / {r['longest_upper']} / {r['longest_an']}) | {r['vls']} "
          f"| {r['unrouted']} / {r['pairs']} | {r['credit_loop_free']} |")
by = {(r["fabric"], r["engine"]): r for r in rows if r.get("busiest")}
fabrics = list(dict.fromkeys(r["fabric"] for r in rows))
print("\nibsm against dfsssp (busiest link, longest path, VLs):")
for f in fabrics:
    i, d = by.get((f, "ibsm")), by.get((f, "dfsssp"))
    if i and d:
        b, db = int(i["busiest"]), int(d["busiest"])
        verdict = "ibsm <= dfsssp" if b <= db and int(i["vls"]) <= int(d["vls"]) else \
            f"ibsm LOSES by {b - db} routes ({b / db:.2f}x)" if b > db else "ibsm uses more VLs"
        print(f"  {f}: ibsm {b}, {i['longest']} hops, {i['vls']} VLs; dfsssp {db}, {d['longest']} hops, {d['vls']} VLs: {verdict}")
bad = []
for f in fabrics:
    for r in (x for x in rows if x["fabric"] == f):
        if not r.get("busiest"):
            bad.append(f"{f} {r['engine']}: {r['routed_by']}")
        elif r["engine"].startswith("ibsm") and r["unrouted"] != "0":
            bad.append(f"{f} {r['engine']}: {r['unrouted']} pairs unrouted")
        elif r["engine"].startswith("ibsm") and r["credit_loop_free"] != "yes":
            bad.append(f"{f} {r['engine']}: a credit loop")
    i, u = by.get((f, "ibsm")), by.get((f, "updn"))
    if i and u and int(i["busiest"]) > int(u["busiest"]):
        bad.append(f"{f}: ibsm's busiest link {i['busiest']} > updn's {u['busiest']}")
for b in bad:
    print("CHECK:", b)
if check and bad:
    sys.exit(1)
