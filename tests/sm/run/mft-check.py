#!/usr/bin/env python3
"""The multicast judge (issue 13): walks the multicast forwarding tables the
switches hold, read back with infiniband-diags, for every group from every
member as a source, and says what is wrong. It shares no code with ibsm: it
judges ibsm's trees (and OpenSM's) from outside, as tests/sm/run/*.sh read
them on ibsim, which stores MFTs but forwards no multicast packet.

  mft-check.py --fabric IBNETDISCOVER --mfts FILE... (--members FILE | --saquery FILE)
               [--max-sources N] [--count-blocks] [--changed-from FILE...]

  --fabric       plain `ibnetdiscover` output: switches, their cables, CA ports
  --mfts         `ibroute -M LID` (or `ibroute -b -M LID`) output of every
                 switch, one file or several, concatenated or not
  --members      the record sa-client's `mcast join|leave --record` appends:
                 "join|leave MGID 0xPORTGUID 0xSTATE 0xMLID" lines, replayed in
                 order (a join ORs the bits, a leave clears them)
  --saquery      `saquery -m` output (MCMemberRecord member dumps)
  --max-sources  walk from at most N members of each group, spread evenly
                 (benchmarks on thousands of ports; default every member;
                 dead branches are then not looked for)
  --count-blocks also print "nonempty_blocks N": the MFT blocks (32 MLIDs x
                 16 ports) that hold an entry, what an SM must write at
                 least to program these tables on empty switches
  --changed-from also print "changed_blocks N": the MFT blocks whose entries
                 differ between these earlier dumps (ibroute -M, as --mfts)
                 and --mfts, what an SM must write at least to go from those
                 tables to these (a single join or leave: benchmarks)

A packet a member sends enters its switch by the CA's cable; every switch
floods a copy out of every port of the group's mask but the one it came in
by. For each group (MLID) and each member as the source it asserts:
  - every receiver (JoinState Full or NonMember) but the source gets exactly
    one copy; a send-only member need not receive (it may);
  - no switch sees the packet twice (a loop, or two paths: duplicates);
  - no copy goes to a CA port that is not a member, or out of a mask port
    with no cable;
and over all sources: no mask port that carries nothing any member needs (a
dead branch: no receiver beyond it and no source behind it); no MLID in a
table that no group with members uses (a leaked or stale entry).

Exit status: 0 when nothing is wrong (one summary line), 1 with one line per
problem (then the summary), 2 when an input cannot be read.
"""
import argparse
import ipaddress
import re
import sys
from collections import defaultdict

RECEIVES = 0x1 | 0x2  # Full, NonMember


class InputError(Exception):
    pass


def parse_fabric(path):
    """-> (links, ca_ports, switches): links[(sw, port)] = ("sw", guid, port) or
    ("ca", portguid); ca_ports: portguid -> (sw, port) of the switch it is cabled to."""
    links, ca_ports, switches = {}, {}, set()
    current = None
    head = re.compile(r'^switchguid=0x([0-9a-fA-F]+)')
    port = re.compile(r'^\[(\d+)\]\s+"([SH])-([0-9a-fA-F]+)"\[(\d+)\](?:\(([0-9a-fA-F]+)\))?')
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}")
    for n, line in enumerate(lines, 1):
        m = head.match(line)
        if m:
            current = int(m.group(1), 16)
            switches.add(current)
            continue
        if line.startswith(("Ca", "Hca", "Rt", "caguid", "rtguid")):
            current = None
            continue
        m = port.match(line)
        if not m or current is None:
            continue
        local, kind, guid, far = int(m.group(1)), m.group(2), int(m.group(3), 16), int(m.group(4))
        if kind == "S":
            links[(current, local)] = ("sw", guid, far)
        else:
            if not m.group(5):
                raise InputError(f"{path}:{n}: a CA port without its port GUID")
            pg = int(m.group(5), 16)
            links[(current, local)] = ("ca", pg)
            ca_ports[pg] = (current, local)
    if not switches:
        raise InputError(f"{path}: no switch (not ibnetdiscover output?)")
    return links, ca_ports, switches


def parse_mfts(paths):
    """-> {switch guid: {mlid: set(ports)}} from ibroute -M (or -b -M) output."""
    mfts = {}
    head = re.compile(r'^Multicast mlids \[.*\] of switch .* guid 0x([0-9a-fA-F]+)')
    for path in paths:
        try:
            lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
        except OSError as e:
            raise InputError(f"{path}: {e.strerror}")
        table, brief = None, False
        for n, line in enumerate(lines, 1):
            m = head.match(line)
            if m:
                table = mfts.setdefault(int(m.group(1), 16), {})
                brief = False
                continue
            if line.startswith(" MLid       Port Mask"):
                brief = True
                continue
            if table is None or not line.startswith("0x"):
                continue
            mlid = int(line[:6], 16)
            rest = line[12:]
            if brief:
                words = rest.split()
                if not words or not re.fullmatch(r"[0-9a-fA-F]+", words[0]):
                    raise InputError(f"{path}:{n}: expected the port mask in hex")
                ports = set()
                for chunk in range(len(words[0]) // 4):
                    mask = int(words[0][4 * chunk:4 * chunk + 4], 16)
                    ports |= {16 * chunk + b for b in range(16) if mask >> b & 1}
            else:
                ports = {i // 2 for i, c in enumerate(rest) if c == "x" and i % 2 == 0}
                if any(c not in " x" for c in rest):
                    raise InputError(f"{path}:{n}: expected 'x' columns after the MLID")
            if ports:
                table[mlid] = ports
    return mfts


def parse_record(path):
    """-> {mlid: {portguid: state}}, {mlid: mgid} from sa-client's --record.
    Groups are keyed by MGID while replaying (an SA may answer a leave with
    MLID 0); a group's MLID is the one its joins were answered with."""
    by_mgid, mlid_of = defaultdict(dict), {}
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}")
    for n, line in enumerate(lines, 1):
        words = line.split()
        if not words:
            continue
        if len(words) != 5 or words[0] not in ("join", "leave"):
            raise InputError(f"{path}:{n}: expected 'join|leave MGID 0xPORTGUID 0xSTATE 0xMLID'")
        try:
            mgid = str(ipaddress.IPv6Address(words[1]))
            guid, state, mlid = (int(w, 16) for w in words[2:])
        except ValueError:
            raise InputError(f"{path}:{n}: expected 'join|leave MGID 0xPORTGUID 0xSTATE 0xMLID'")
        members = by_mgid[mgid]
        if words[0] == "join":
            members[guid] = members.get(guid, 0) | state
            if mlid:
                mlid_of[mgid] = mlid
        else:
            left = members.get(guid, 0) & ~state
            if left:
                members[guid] = left
            else:
                members.pop(guid, None)
    groups, names = defaultdict(dict), {}
    for mgid, members in by_mgid.items():
        if mgid not in mlid_of:
            continue  # never joined here: nothing to route
        groups[mlid_of[mgid]].update(members)
        names[mlid_of[mgid]] = mgid
    return groups, names


def parse_saquery(path):
    """-> {mlid: {portguid: state}}, {mlid: mgid} from `saquery -m` output."""
    groups, names = defaultdict(dict), {}
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}")
    for block in text.split("MCMemberRecord member dump:")[1:]:
        fields = dict(re.findall(r"^\s*(\w+)\.+(\S+)", block, re.M))
        try:
            mlid = int(fields["Mlid"], 16)
            gid = fields["PortGid"]
            state = int(fields["ScopeState"], 16) & 0xF
            guid_of(gid)
        except (KeyError, ValueError):
            raise InputError(f"{path}: a member dump without Mlid, PortGid or ScopeState")
        names[mlid] = fields.get("MGID", "?")
        if state == 0 or guid_of(gid) == 0:
            continue  # the group's own record, no member
        groups[mlid][guid_of(gid)] = state
    return groups, names


def guid_of(gid):
    """The interface ID (low 64 bits) of an inet6 GID text."""
    return int(ipaddress.IPv6Address(gid)) & ((1 << 64) - 1)


def flood(source, mlid, members, links, ca_ports, mfts):
    """Copies of one packet from CA port `source`: -> (arrivals, switch visits,
    problems, useful): arrivals[portguid] = copies; useful = the mask ports
    (sw, port) a copy came in by, or went out of on its way to a member."""
    arrivals, visits, problems, useful = defaultdict(int), defaultdict(int), [], set()
    if source not in ca_ports:
        return arrivals, visits, [f"source 0x{source:016x} is not a CA port of the fabric"], useful
    stack = [(*ca_ports[source], ())]
    expanded = set()  # (sw, inport): each floods once, so that a loop ends
    while stack:
        sw, inport, path = stack.pop()
        visits[sw] += 1
        if path:
            useful.add((sw, inport))
        if (sw, inport) in expanded:
            continue
        expanded.add((sw, inport))
        for out in sorted(mfts.get(sw, {}).get(mlid, ())):
            if out == inport:
                continue
            here = path + ((sw, out),)
            if out == 0:
                arrivals[sw] += 1  # the switch's own port (its port GUID is its node GUID)
                continue
            far = links.get((sw, out))
            if far is None:
                problems.append(f"switch 0x{sw:016x} port {out} is in the mask but has no cable")
                continue
            if far[0] == "ca":
                arrivals[far[1]] += 1
                if far[1] in members:
                    useful.update(here)
            else:
                stack.append((far[1], far[2], here))
    return arrivals, visits, problems, useful


def sample(members, most):
    if most is None or len(members) <= most:
        return members
    step = len(members) / most
    return [members[int(i * step)] for i in range(most)]


def check_group(mlid, members, links, ca_ports, mfts, most):
    """One group's problems (strings)."""
    problems = []
    name = f"MLID 0x{mlid:04x}"
    receivers = {g for g, s in members.items() if s & RECEIVES}
    send_only = {g for g, s in members.items() if not s & RECEIVES}
    used_any = set()
    for source in sample(sorted(members), most):
        arrivals, visits, walk_problems, useful = flood(source, mlid, members, links, ca_ports,
                                                        mfts)
        used_any |= useful
        problems += [f"{name} from 0x{source:016x}: {p}" for p in walk_problems]
        for sw, n in sorted(visits.items()):
            if n > 1:
                problems.append(f"{name} from 0x{source:016x}: switch 0x{sw:016x} gets {n} copies"
                                " (a loop or two paths)")
        for r in sorted(receivers - {source}):
            if arrivals.get(r, 0) != 1:
                problems.append(f"{name} from 0x{source:016x}: receiver 0x{r:016x} gets"
                                f" {arrivals.get(r, 0)} copies, not 1")
        for g, n in sorted(arrivals.items()):
            if g not in receivers and g not in send_only and g in ca_ports:
                problems.append(f"{name} from 0x{source:016x}: CA port 0x{g:016x} is no member"
                                f" but gets {n} copies")
            if g == source and n:
                problems.append(f"{name} from 0x{source:016x}: the source gets its own packet back")
    # Dead branches: mask ports no member's packet ever needed.
    if most is None:
        for sw, table in sorted(mfts.items()):
            for port in sorted(table.get(mlid, ())):
                far = links.get((sw, port))
                # A receiver's own port is its membership, not a branch: it
                # carries what any member sends, even when it is the only one.
                if far is not None and far[0] == "ca" and far[1] in receivers:
                    continue
                if port != 0 and (sw, port) not in used_any and far is not None:
                    problems.append(f"{name}: switch 0x{sw:016x} port {port} is in the mask but"
                                    " carries nothing a member needs (a dead branch)")
    return problems


def block_contents(mfts):
    """-> {(switch, MLID block, port position): frozenset((mlid, port))}, the
    entries of each MFT block (32 MLIDs x 16 ports) that holds any."""
    blocks = defaultdict(set)
    for sw, table in mfts.items():
        for mlid, ports in table.items():
            for port in ports:
                blocks[(sw, (mlid - 0xC000) // 32, port // 16)].add((mlid, port))
    return {b: frozenset(e) for b, e in blocks.items()}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fabric", required=True)
    p.add_argument("--mfts", required=True, nargs="+")
    p.add_argument("--members")
    p.add_argument("--saquery")
    p.add_argument("--max-sources", type=int)
    p.add_argument("--count-blocks", action="store_true")
    p.add_argument("--changed-from", nargs="+")
    a = p.parse_args(argv)
    if bool(a.members) == bool(a.saquery):
        print("mft-check: give --members FILE or --saquery FILE (one)", file=sys.stderr)
        return 2
    try:
        links, ca_ports, switches = parse_fabric(a.fabric)
        mfts = parse_mfts(a.mfts)
        before = parse_mfts(a.changed_from) if a.changed_from else None
        groups, names = parse_record(a.members) if a.members else parse_saquery(a.saquery)
    except InputError as e:
        print(f"mft-check: {e}", file=sys.stderr)
        return 2
    problems = []
    missing = sorted(switches - set(mfts))
    problems += [f"switch 0x{sw:016x}: no MFT dump" for sw in missing]
    live = {mlid: m for mlid, m in groups.items() if m}
    for mlid, members in sorted(live.items()):
        problems += check_group(mlid, members, links, ca_ports, mfts, a.max_sources)
    stale = defaultdict(int)
    for sw, table in mfts.items():
        for mlid in table:
            if mlid not in live:
                stale[mlid] += 1
    for mlid, n in sorted(stale.items()):
        problems.append(f"MLID 0x{mlid:04x}: entries on {n} switches but no group with members"
                        f" ({names.get(mlid, 'unknown group')})")
    for line in problems:
        print(line)
    if a.count_blocks:
        blocks = {(sw, (mlid - 0xC000) // 32, port // 16)
                  for sw, table in mfts.items() for mlid, ports in table.items() for port in ports}
        print(f"nonempty_blocks {len(blocks)}")
    if before is not None:
        old, new = block_contents(before), block_contents(mfts)
        changed = [b for b in old.keys() | new.keys() if old.get(b) != new.get(b)]
        print(f"changed_blocks {len(changed)}")
    members = sum(len(m) for m in live.values())
    print(f"mft-check: {len(live)} groups, {members} memberships, {len(mfts)} switch tables:"
          f" {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
