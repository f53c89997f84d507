#!/usr/bin/env python3
"""Every CA pair of a dry run's tables, walked independently of ibsm's report.

    scripts/all-pairs-load.py NET_FILE DIR

NET_FILE: the ibsim net file routed; DIR: `ibsm route -o DIR` (its
opensm-lfts.dump), or any directory holding an opensm-lfts.dump written by
OpenSM or dump_fts for the same fabric (names must match the net file's).

Prints, for all CA pairs and per class beside (issue 33: every pair counts):
the busiest directed inter-switch link (routes over it, CA port to CA port,
destination base LIDs), the longest route in switch hops, and the pairs longer
than the fewest switch hops. Classes: "compute" (both ends hosts on switches
without switches below... read here as: neither end an aggregation node nor an
upper host), "hosts" (no aggregation node at either end), "all". An upper host
is a CA whose name starts with io, stor or mgmt (the generator's and
make-test-topologies.sh's names); an aggregation node one whose name holds
"Aggregation Node". Unrouted pairs and loops are counted and printed.
"""
import collections
import re
import sys

NODE = re.compile(r'^(Switch|Hca|Ca)\s+(\d+)\s+"([^"]+)"')
PORT = re.compile(r'^\[(\d+)\]\s+"([^"]+)"\[(\d+)\]')
LFT_HEAD = re.compile(r"^Unicast lids .* guid (0x[0-9a-f]+) \('(.*)'\)")
LFT_LINE = re.compile(r"^(0x[0-9a-f]+) (\d+) # (Switch|Channel Adapter|Router) portguid (0x[0-9a-f]+): '(.*)'")


def read_net(path):
    kind, links, node = {}, {}, None
    for line in open(path):
        m = NODE.match(line)
        if m:
            node = m.group(3)
            kind[node] = m.group(1)
            continue
        m = PORT.match(line.strip())
        if m and node:
            links[(node, int(m.group(1)))] = (m.group(2), int(m.group(3)))
    return kind, links


def read_lfts(path):
    lft, owner = collections.defaultdict(dict), {}
    sw = None
    for line in open(path):
        m = LFT_HEAD.match(line)
        if m:
            sw = m.group(2)
            continue
        m = LFT_LINE.match(line)
        if m and sw:
            lid = int(m.group(1), 16)
            lft[sw][lid] = int(m.group(2))
            owner[lid] = (m.group(3), m.group(5))
    return lft, owner


def ca_class(name):
    if "Aggregation Node" in name:
        return 2
    if re.match(r"^(io|stor|mgmt)", name):
        return 1
    return 0


def main():
    net, out = sys.argv[1], sys.argv[2]
    kind, links = read_net(net)
    lft, owner = read_lfts(out + "/opensm-lfts.dump")
    switches = sorted(n for n, k in kind.items() if k == "Switch")
    sw_links = {}  # (sw, port) -> peer switch
    sources = {s: [0, 0, 0] for s in switches}  # CA ports per class on each switch
    for (n, p), (r, rp) in links.items():
        if kind.get(n) == "Switch" and kind.get(r) == "Switch":
            sw_links[(n, p)] = r
        elif kind.get(n) == "Switch" and r in kind:
            sources[n][ca_class(r)] += 1
    # Shortest switch hops (BFS) for the stretch.
    adj = collections.defaultdict(set)
    for (s, _), t in sw_links.items():
        adj[s].add(t)
    dist = {}
    for s in switches:
        d = {s: 0}
        q = collections.deque([s])
        while q:
            u = q.popleft()
            for v in adj[u]:
                if v not in d:
                    d[v] = d[u] + 1
                    q.append(v)
        dist[s] = d
    classes = ("compute", "hosts", "all")
    load = [collections.Counter() for _ in classes]
    maxhops = [0, 0, 0]
    longer = [0, 0, 0]
    pairs = [0, 0, 0]
    unrouted = 0
    cas = [(lid, name) for lid, (k, name) in owner.items() if k == "Channel Adapter"]
    for lid, name in sorted(cas):
        dcls = ca_class(name)
        # Chain of every switch toward lid; depth and the delivering switch.
        nxt, target = {}, None
        for s in switches:
            p = lft.get(s, {}).get(lid)
            if p is None:
                continue
            peer = sw_links.get((s, p))
            if peer is None:
                if links.get((s, p), (None,))[0] == name:
                    target = s
            else:
                nxt[s] = (p, peer)
        depth = {}
        if target is None:
            unrouted += 1
            continue
        depth[target] = 0
        for s in switches:
            path, u = [], s
            while u not in depth and u in nxt and len(path) <= len(switches):
                path.append(u)
                u = nxt[u][1]
            if u not in depth:
                for v in path:
                    depth[v] = None
                continue
            base = depth[u]
            for v in reversed(path):
                base = None if base is None else base + 1
                depth[v] = base
        order = sorted((s for s in switches if depth.get(s) is not None), key=lambda s: -depth[s])
        for c in range(3):
            # Source ports that count in class c toward a destination of class dcls.
            if c == 0 and dcls != 0 or c == 1 and dcls == 2:
                continue
            flow = collections.Counter()
            for s in switches:
                n = sources[s][0] + (sources[s][1] if c >= 1 else 0) + (sources[s][2] if c == 2 else 0)
                if s == target:
                    n -= 1  # the destination itself does not send to itself
                if n <= 0:
                    continue
                if depth.get(s) is None:
                    unrouted += n
                    continue
                flow[s] += n
                pairs[c] += n
                maxhops[c] = max(maxhops[c], depth[s])
                if depth[s] > dist[s].get(target, 0):
                    longer[c] += n
            for s in order:
                if s == target or flow[s] == 0:
                    continue
                p, peer = nxt[s]
                load[c][(s, p)] += flow[s]
                flow[peer] += flow[s]
    for c, name in enumerate(classes):
        busiest = load[c].most_common(1)
        links_n = len(sw_links)
        mean = sum(load[c].values()) / links_n if links_n else 0
        b = busiest[0] if busiest else (("-", 0), 0)
        print(f"{name:8} pairs {pairs[c]:>9}  busiest {b[1]:>7} ({b[0][0]}[{b[0][1]}])  "
              f"mean {mean:8.1f}  longest {maxhops[c]} hops  longer than shortest {longer[c]}")
    if unrouted:
        print(f"unrouted or looping: {unrouted}")


if __name__ == "__main__":
    main()
