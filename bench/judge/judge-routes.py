#!/usr/bin/env python3
"""The routing judge of scripts/bench-engines.sh (issue 33): one walker for
every engine's tables, OpenSM's and ibsm's alike.

It reads what can be read back from a fabric, never what an engine says of
itself: the cabling, GUIDs and LIDs as `ibnetdiscover` prints them, the LFTs
as `dump_fts` (or opensm-lfts.dump) lists them, the SL2VL tables as `smpquery
sl2vl` reads them (in ibsm's sl2vl.dump line form), and the SL of each pair as
the SA answers it (`sa-client pathsls` lines). It shares no code with ibsm's
engines nor with its report, so it judges ibsm the way it judges OpenSM.

Every ordered pair of distinct CA ports is walked through the tables:
  - pairs routed and unrouted (an entry missing, a port without a cable, a
    forwarding loop, or a walk that ends at another port);
  - the busiest inter-switch link: the most CA-to-CA routes any one direction
    of a cable carries, over all pairs and per class of pair;
  - the longest path in inter-switch links (switch hops);
  - the VLs the routes use (VL of each hop = the switch's SL2VL of the pair's
    SL for its in and out port; a port without a table: VL = SL, as ibsim
    starts), and credit loops: cycles of the channel dependency graph whose
    channels are (switch, out port, VL).
Classes of pairs: "an" when either end is a SHARP aggregation node (its
NodeDescription says "Aggregation Node", or it shares its switch's system
image GUID), else "upper" when either end is a host on a switch that is not
a leaf (a leaf holds at least half as many hosts as it has cables to other
switches, or at least half the median host count of the switches with
hosts: a spine or core with a few I/O hosts is no leaf, a dragonfly's router
or an irregular cluster's sparse switch is), else "compute".

Beside them, per class and for "hosts" (compute and upper together: no
aggregation node at either end): the mean routes per directed inter-switch
link, the busiest link's name, and the pairs routed longer than the fewest
switch hops.

  judge-routes.py (--topology IBNETDISCOVER | --net NET_FILE) --lfts DUMP
                  [--guid2lid FILE] [--sl2vl FILE] [--pair-sls FILE] [--json OUT]
--net reads the ibsim net file an offline run routed (`ibsm route -o DIR`:
DIR/opensm-lfts.dump, or OpenSM's dump for the same file). A net file has no
GUIDs: each switch's table is the one that names it, and each CA LID belongs
to the CA port its delivering switch's entry leads to (the dump names the
CA each LID belongs to); each switch's GUID is the one its table's heading
names, so DIR/sl2vl.dump applies. --pair-sls reads the SA's answers or the
engine's own DIR/pair-sls ("node 0xGUID port N dlid 0xLID sl K": a CA
port's LID by its node GUID in the topology, or with a net file by its port
GUID, node GUID + port, in --guid2lid; a switch's port 0 is no CA pair).
Where --guid2lid gives a CA port an LMC range ("0xPORTGUID BASE LAST"), each
of its later LIDs is walked from every CA too, on the SL its pair is given,
for the credit-loop verdict (lmc_pairs, lmc_unrouted); the loads and lengths
stay the base LIDs'.
Prints "key value" lines; exits 2 on input it cannot read, naming file:line.
"""
import argparse
import json
import sys
from collections import defaultdict

from judge_readers import (InputError, pair_sls_by_lid, read_guid2lid, read_lft_lids, read_lfts, read_net,
                           read_pair_sls, read_sl2vl, read_topology)

CLASSES = ("compute", "upper", "an")


class Fabric:
    def __init__(self, nodes):
        self.names = [k for k, v in nodes.items() if v["kind"] == "Switch"]
        self.index = {k: i for i, k in enumerate(self.names)}
        self.guid = [nodes[k]["guid"] for k in self.names]
        self.label = [nodes[k]["desc"] for k in self.names]
        # A switch's table: by GUID, or by name where there is none (a net file).
        self.key = [g if g is not None else k for g, k in zip(self.guid, self.names)]
        self.sysimg = [nodes[k]["sysimg"] for k in self.names]
        # link[s][p] = ("sw", t, q) or ("ca", ca index)
        self.link = [dict() for _ in self.names]
        self.cas = []  # (lid, switch, port, class, desc, last LID of its LMC range)
        ca_at = {}
        for name, v in nodes.items():
            if v["kind"] == "Switch":
                continue
            for p, (peer, pp) in v["ports"].items():
                if peer not in self.index:
                    continue
                s = self.index[peer]
                ca_at[(name, p)] = len(self.cas)
                an = "Aggregation Node" in v["desc"] or (v["sysimg"] and v["sysimg"] == self.sysimg[s])
                lid = v["port_lid"].get(p, 0)
                top = max(v.get("port_top", {}).get(p, 0), lid)
                self.cas.append([lid, s, pp, "an" if an else "host", v["desc"], top])
        for i, name in enumerate(self.names):
            for p, (peer, pp) in nodes[name]["ports"].items():
                if peer in self.index:
                    self.link[i][p] = ("sw", self.index[peer], pp)
                elif (peer, pp) in ca_at:
                    self.link[i][p] = ("ca", ca_at[(peer, pp)])
        hosts = defaultdict(int)
        for c in self.cas:
            if c[3] == "host":
                hosts[c[1]] += 1
        counts = sorted(hosts.values())
        median = counts[(len(counts) - 1) // 2] if counts else 0
        for c in self.cas:
            if c[3] == "host":
                h, cables = hosts[c[1]], sum(1 for far in self.link[c[1]].values() if far[0] == "sw")
                c[3] = "compute" if h * 2 >= cables or h * 2 >= median else "upper"


def pair_class(a, b):
    if "an" in (a, b):
        return 2
    return 1 if "upper" in (a, b) else 0


def next_hops(fab, tables, di, dlid=None):
    """Per switch, toward CA di (its LID dlid, the base LID by default): (out
    port, next switch or -1 at the CA, its in port), or False where the walk
    ends (no entry, no cable, another port)."""
    dlid = fab.cas[di][0] if dlid is None else dlid
    nxt = []
    for s in range(len(fab.names)):
        o = tables[s].get(dlid) if dlid else None
        far = fab.link[s].get(o) if o is not None else None
        if far is None:
            nxt.append(False)
        elif far[0] == "sw":
            nxt.append((o, far[1], far[2]))
        else:
            nxt.append((o, -1, 0) if far[1] == di else False)
    return nxt


def depths(nxt):
    """Inter-switch links from each switch to the destination; -1 unrouted
    (a walk that ends early or loops)."""
    n_sw = len(nxt)
    depth = [None] * n_sw
    for s in range(n_sw):
        trail, t = [], s
        while depth[t] is None and len(trail) <= n_sw:
            trail.append(t)
            step = nxt[t]
            if step is False:
                depth[t] = -1
            elif step[1] == -1:
                depth[t] = 0
            else:
                t = step[1]
        base = depth[t] if depth[t] is not None else -1
        for u in reversed(trail):
            if depth[u] is None:
                base = -1 if base < 0 else base + 1
                depth[u] = base
            else:
                base = depth[u]
    return depth


class Tally:
    """What the walks add up: pairs, unrouted and longest per class, routes
    per directed inter-switch link per class, VLs and channel dependencies."""

    def __init__(self):
        self.pairs, self.unrouted, self.longest = [0, 0, 0], [0, 0, 0], [0, 0, 0]
        self.longer = [0, 0, 0]
        self.load = defaultdict(lambda: [0, 0, 0])
        self.vls, self.deps = set(), set()
        self.lmc_pairs, self.lmc_unrouted = 0, 0


def switch_hops(fab, target):
    """Fewest inter-switch links from every switch to `target` (None where
    the cabling joins none)."""
    dist = [None] * len(fab.names)
    dist[target], queue = 0, [target]
    for u in queue:
        for far in fab.link[u].values():
            if far[0] == "sw" and dist[far[1]] is None:
                dist[far[1]] = dist[u] + 1
                queue.append(far[1])
    return dist


def add_loads(tally, nxt, depth, own):
    """Every source's routes on the links toward one destination, pushed
    down the tree of next hops from the farthest switches."""
    acc = [row[:] for row in own]
    for s in sorted((s for s in range(len(nxt)) if depth[s] > 0), key=lambda s: -depth[s]):
        o, t, _ = nxt[s]
        row = tally.load[(s, o)]
        for k in range(3):
            row[k] += acc[s][k]
            acc[t][k] += acc[s][k]


def add_dependencies(tally, fab, sl2vl, nxt, sl, starts):
    """The channels (switch, out port, VL) of one destination's routes on SL
    sl from the sources' (switch, in port), and each hop's dependency on the
    next; a (switch, in port) walked once is not walked again."""
    seen = set()
    for s, i in starts:
        prev = None
        while True:
            o, t, q = nxt[s]
            table = sl2vl.get((fab.guid[s], i, o))
            chan = (s, o, table[sl] if table else sl)
            tally.vls.add(chan[2])
            if prev is not None:
                tally.deps.add((prev, chan))
            if (s, i) in seen or t == -1:
                break
            seen.add((s, i))
            prev, s, i = chan, t, q


def judge(fab, lfts, sl2vl, pair_sls):
    tables = [lfts.get(k, {}) for k in fab.key]
    tally = Tally()
    fewest = {}
    for di, d in enumerate(fab.cas):
        nxt = next_hops(fab, tables, di)
        depth = depths(nxt)
        if d[1] not in fewest:
            fewest[d[1]] = switch_hops(fab, d[1])
        shortest = fewest[d[1]]
        own = [[0, 0, 0] for _ in fab.names]  # routed sources per switch, by class of pair
        starts = defaultdict(list)  # SL -> the sources' (switch, in port)
        for ci, c in enumerate(fab.cas):
            if ci == di:
                continue
            k = pair_class(c[3], d[3])
            tally.pairs[k] += 1
            if not c[0] or depth[c[1]] < 0:
                tally.unrouted[k] += 1
                continue
            own[c[1]][k] += 1
            tally.longest[k] = max(tally.longest[k], depth[c[1]])
            tally.longer[k] += depth[c[1]] > shortest[c[1]]
            starts[pair_sls.get((c[0], d[0]), 0)].append((c[1], c[2]))
        add_loads(tally, nxt, depth, own)
        for sl, where in starts.items():
            add_dependencies(tally, fab, sl2vl, nxt, sl, where)
        for dlid in range(d[0] + 1, d[5] + 1) if d[0] else ():
            walk_later_lid(tally, fab, tables, sl2vl, pair_sls, di, dlid)
    return tally


def walk_later_lid(tally, fab, tables, sl2vl, pair_sls, di, dlid):
    """An LMC range's later LID: every CA pair walked on the SL the engine or
    the SA gives it, for the credit-loop verdict only (the link loads and
    path lengths are the base LIDs')."""
    nxt = next_hops(fab, tables, di, dlid)
    depth = depths(nxt)
    starts = defaultdict(list)
    for ci, c in enumerate(fab.cas):
        if ci == di:
            continue
        tally.lmc_pairs += 1
        if not c[0] or depth[c[1]] < 0:
            tally.lmc_unrouted += 1
            continue
        starts[pair_sls.get((c[0], dlid), 0)].append((c[1], c[2]))
    for sl, where in starts.items():
        add_dependencies(tally, fab, sl2vl, nxt, sl, where)


def loop_vls(deps):
    """VLs of the channels on a cycle of the dependency graph (Kahn's
    algorithm both ways leaves the cycles and what lies between them)."""
    succ, pred = defaultdict(set), defaultdict(set)
    for a, b in deps:
        succ[a].add(b)
        pred[b].add(a)
    alive = set(succ) | set(pred)
    for fwd, back in ((pred, succ), (succ, pred)):
        count = {c: len(fwd[c] & alive) for c in alive}
        todo = [c for c in alive if count[c] == 0]
        while todo:
            c = todo.pop()
            alive.discard(c)
            for x in back[c]:
                if x in alive:
                    count[x] -= 1
                    if count[x] == 0:
                        todo.append(x)
    return sorted({c[2] for c in alive}), len(alive)


def per_link(fab, t):
    """Mean routes per directed inter-switch link, the busiest link's name
    and the pairs longer than the fewest switch hops: per class, for
    "hosts" (compute and upper) and for all pairs."""
    links = sum(1 for row in fab.link for far in row.values() if far[0] == "sw")
    groups = [(name, (k,)) for k, name in enumerate(CLASSES)] + [("hosts", (0, 1)), ("all", (0, 1, 2))]
    out = {}
    for name, ks in groups:
        sums = {hop: sum(row[k] for k in ks) for hop, row in t.load.items()}
        hop = max(sums, key=lambda h: (sums[h], -h[0], -h[1]), default=None)
        out[f"mean_{name}"] = round(sum(sums.values()) / links, 1) if links else 0
        out[f"busiest_link_{name}"] = f"{fab.label[hop[0]]}[{hop[1]}]" if hop and sums[hop] else "-"
        out[f"longer_{name}"] = sum(t.longer[k] for k in ks)
        if name == "hosts":
            out["busiest_hosts"] = sums[hop] if hop else 0
            out["pairs_hosts"] = sum(t.pairs[k] for k in ks)
            out["longest_hosts"] = max(t.longest[k] for k in ks)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--topology")
    where.add_argument("--net")
    ap.add_argument("--lfts", required=True)
    ap.add_argument("--guid2lid")
    ap.add_argument("--sl2vl")
    ap.add_argument("--pair-sls")
    ap.add_argument("--json")
    a = ap.parse_args()
    try:
        owners, guids = {}, {}
        nodes = read_topology(a.topology) if a.topology else read_net(a.net)
        lfts = read_lfts(a.lfts, owners, guids)
        if a.net:
            read_lft_lids(lfts, owners, nodes)
            for name, guid in guids.items():  # a net file has none: SL2VL tables name them
                if nodes.get(name, {}).get("kind") == "Switch":
                    nodes[name]["guid"] = guid
        guid2lid = read_guid2lid(a.guid2lid, nodes) if a.guid2lid else {}
        fab = Fabric(nodes)
        sl2vl = read_sl2vl(a.sl2vl) if a.sl2vl else {}
        pair_sls, nopath, by_node = read_pair_sls(a.pair_sls) if a.pair_sls else ({}, 0, [])
        pair_sls.update(pair_sls_by_lid(a.pair_sls, by_node, nodes, guid2lid))
    except InputError as e:
        print(f"judge-routes: {e}", file=sys.stderr)
        return 2
    t = judge(fab, lfts, sl2vl, pair_sls)
    pairs, unrouted, load, longest, vls = t.pairs, t.unrouted, t.load, t.longest, t.vls
    loops, looped = loop_vls(t.deps)
    out = {
        "switches": len(fab.names),
        "ca_ports": len(fab.cas),
        "pairs": sum(pairs),
        "unrouted": sum(unrouted),
        "busiest": max((sum(r) for r in load.values()), default=0),
        "longest": max(longest),
        "vls": len(vls),
        "vl_list": ",".join(str(v) for v in sorted(vls)) or "-",
        "credit_loop_free": "yes" if not loops else "no",
        "loop_vls": ",".join(str(v) for v in loops) or "-",
        "loop_channels": looped,
        "pair_sls": len(pair_sls),
        "sl_list": ",".join(str(v) for v in sorted(set(pair_sls.values()))) or "0",
        "nopath": nopath,
        "lmc_pairs": t.lmc_pairs,
        "lmc_unrouted": t.lmc_unrouted,
    }
    for k, name in enumerate(CLASSES):
        out[f"pairs_{name}"] = pairs[k]
        out[f"unrouted_{name}"] = unrouted[k]
        out[f"busiest_{name}"] = max((r[k] for r in load.values()), default=0)
        out[f"longest_{name}"] = longest[k]
    out.update(per_link(fab, t))
    for k, v in out.items():
        print(k, v)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
