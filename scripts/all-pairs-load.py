#!/usr/bin/env python3
"""Every CA pair of a dry run's tables, walked independently of ibsm's report.

    scripts/all-pairs-load.py NET_FILE DIR

NET_FILE: the ibsim net file routed; DIR: `ibsm route -o DIR` (its
opensm-lfts.dump), or any directory holding an opensm-lfts.dump written by
OpenSM or dump_fts for the same fabric (names must match the net file's).

Prints, for all CA pairs and per class beside (issue 33: every pair counts):
the busiest directed inter-switch link (routes over it, CA port to CA port,
destination base LIDs), the longest route in switch hops, and the pairs longer
than the fewest switch hops. Classes: "compute" (neither end an aggregation
node nor an upper host), "hosts" (no aggregation node at either end), "all".
An upper host is a CA whose name starts with io, stor or mgmt (the
generator's names); an aggregation node one whose name holds
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


def switch_graph(kind, links):
    """Switches, directed inter-switch links and CA ports per class on each switch."""
    switches = sorted(n for n, k in kind.items() if k == "Switch")
    sw_links = {}  # (sw, port) -> peer switch
    sources = {s: [0, 0, 0] for s in switches}
    for (n, p), (r, _) in links.items():
        if kind.get(n) == "Switch" and kind.get(r) == "Switch":
            sw_links[(n, p)] = r
        elif kind.get(n) == "Switch" and r in kind:
            sources[n][ca_class(r)] += 1
    return switches, sw_links, sources


def bfs_hops(switches, sw_links):
    """Fewest switch hops between every two switches."""
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
    return dist


def chains(lid, name, switches, lft, links, sw_links):
    """Next hop of every switch toward lid, the delivering switch and depths."""
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
        return nxt, None, depth
    depth[target] = 0
    for s in switches:
        path, u = [], s
        while u not in depth and u in nxt and len(path) <= len(switches):
            path.append(u)
            u = nxt[u][1]
        base = depth.get(u)
        for v in reversed(path):
            base = None if base is None else base + 1
            depth[v] = base
    return nxt, target, depth


class Tally:
    def __init__(self):
        self.load = [collections.Counter() for _ in CLASSES]
        self.maxhops, self.longer, self.pairs = [0, 0, 0], [0, 0, 0], [0, 0, 0]
        self.unrouted = 0

    def destination(self, dcls, graph, walk, dist):
        switches, _, sources = graph
        nxt, target, depth = walk
        order = sorted((s for s in switches if depth.get(s) is not None), key=lambda s: -depth[s])
        for c in range(3):
            # Classes that count a destination of class dcls.
            if c == 0 and dcls != 0 or c == 1 and dcls == 2:
                continue
            flow = collections.Counter()
            for s in switches:
                n = sum(sources[s][: c + 1])
                n -= s == target  # the destination does not send to itself
                if n <= 0:
                    continue
                if depth.get(s) is None:
                    self.unrouted += n
                    continue
                flow[s] += n
                self.pairs[c] += n
                self.maxhops[c] = max(self.maxhops[c], depth[s])
                self.longer[c] += n if depth[s] > dist[s].get(target, 0) else 0
            for s in order:
                if s != target and flow[s]:
                    p, peer = nxt[s]
                    self.load[c][(s, p)] += flow[s]
                    flow[peer] += flow[s]

    def print(self, links_n):
        for c, name in enumerate(CLASSES):
            busiest = self.load[c].most_common(1)
            mean = sum(self.load[c].values()) / links_n if links_n else 0
            b = busiest[0] if busiest else (("-", 0), 0)
            print(f"{name:8} pairs {self.pairs[c]:>9}  busiest {b[1]:>7} ({b[0][0]}[{b[0][1]}])  "
                  f"mean {mean:8.1f}  longest {self.maxhops[c]} hops  "
                  f"longer than shortest {self.longer[c]}")
        if self.unrouted:
            print(f"unrouted or looping: {self.unrouted}")


CLASSES = ("compute", "hosts", "all")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: all-pairs-load.py NET_FILE DIR")
    kind, links = read_net(sys.argv[1])
    lft, owner = read_lfts(sys.argv[2] + "/opensm-lfts.dump")
    graph = switch_graph(kind, links)
    switches, sw_links, _ = graph
    dist = bfs_hops(switches, sw_links)
    tally = Tally()
    for lid, (k, name) in sorted(owner.items()):
        if k != "Channel Adapter":
            continue
        walk = chains(lid, name, switches, lft, links, sw_links)
        if walk[1] is None:
            tally.unrouted += 1
            continue
        tally.destination(ca_class(name), graph, walk, dist)
    tally.print(len(sw_links))


if __name__ == "__main__":
    main()
