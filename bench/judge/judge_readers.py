"""What the routing judge (judge-routes.py) reads, each in the form the
diags print it: ibnetdiscover output or an ibsim net file, guid2lid, LFTs as
dump_fts or opensm-lfts.dump list them, SL2VL tables in ibsm's sl2vl.dump
line form, and the SA's SL per pair (`sa-client pathsls`). Every reader
raises InputError naming file:line on input it cannot read.
"""
import re


class InputError(Exception):
    pass


def read_lines(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from e


NODE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([^"]+)"\s*(?:#\s*"([^"]*)")?(.*)$')
PORT = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s+"([^"]+)"\[(\d+)\](?:\(([0-9a-fA-F]+)\))?(.*)$')


def read_topology(path):
    """ibnetdiscover output -> nodes {name: {...}}."""
    nodes, node, sysimg = {}, None, None
    for n, line in enumerate(read_lines(path), 1):
        line = line.strip()
        if line.startswith("sysimgguid="):
            sysimg = int(line.split("=", 1)[1], 16)
            continue
        m = NODE.match(line)
        if m:
            kind, _, name, desc, rest = m.groups()
            guid = int(name.split("-", 1)[1], 16) if re.match(r"^[SHR]-[0-9a-fA-F]+$", name) else None
            lid = re.search(r"\blid (\d+)", rest or "")
            node = nodes[name] = {"kind": kind, "desc": desc or name, "guid": guid, "sysimg": sysimg,
                                  "lid": int(lid.group(1)) if lid and kind == "Switch" else 0,
                                  "ports": {}, "port_lid": {}, "port_guid": {}}
            sysimg = None
            continue
        m = PORT.match(line)
        if m:
            if node is None:
                raise InputError(f"{path}:{n}: expected a node line before this port line")
            port, pguid, peer, peer_port, _, rest = m.groups()
            node["ports"][int(port)] = (peer, int(peer_port))
            if node["kind"] != "Switch":
                lid = re.search(r"#\s*lid (\d+)", rest)
                node["port_lid"][int(port)] = int(lid.group(1)) if lid else 0
                node["port_guid"][int(port)] = int(pguid, 16) if pguid else node["guid"]
    if not any(v["kind"] == "Switch" for v in nodes.values()):
        raise InputError(f"{path}: expected ibnetdiscover output, but no Switch line was found")
    return nodes


NET_NODE = re.compile(r'^(Switch|Hca|Ca|Rt)\s+(\d+)\s+"([^"]+)"')
NET_PORT = re.compile(r'^\[(\d+)\]\s+"([^"]+)"\[(\d+)\]')


def read_net(path):
    """ibsim net file -> nodes as read_topology gives them, named by the
    file's names, without GUIDs or LIDs (read_lft_lids fills the LIDs)."""
    nodes, node = {}, None
    for n, line in enumerate(read_lines(path), 1):
        line = line.strip()
        m = NET_NODE.match(line)
        if m:
            kind = "Switch" if m.group(1) == "Switch" else m.group(1).replace("Hca", "Ca")
            node = nodes[m.group(3)] = {"kind": kind, "desc": m.group(3), "guid": None, "sysimg": None,
                                        "lid": 0, "ports": {}, "port_lid": {}, "port_guid": {}}
            continue
        m = NET_PORT.match(line)
        if m:
            if node is None:
                raise InputError(f"{path}:{n}: expected a Switch or Hca line before this port line")
            node["ports"][int(m.group(1))] = (m.group(2), int(m.group(3)))
            if node["kind"] != "Switch":
                node["port_lid"][int(m.group(1))] = 0
    if not any(v["kind"] == "Switch" for v in nodes.values()):
        raise InputError(f"{path}: expected an ibsim net file, but no Switch line was found")
    return nodes


def read_lft_lids(lfts, owners, nodes):
    """The LIDs of a net file's CA ports: each CA LID the dump names, on the
    CA port its delivering switch's entry leads to (the lowest, where two
    lead to one port; the highest is the last of its LMC range); switch
    LIDs by name."""
    for lid, (kind, name) in owners.items():
        if kind == "Switch" and nodes.get(name, {}).get("kind") == "Switch":
            nodes[name]["lid"] = lid
        if kind != "Channel Adapter" or name not in nodes:
            continue
        for sw, v in nodes.items():
            port = lfts.get(sw, {}).get(lid) if v["kind"] == "Switch" else None
            peer = v["ports"].get(port) if port is not None else None
            if peer and peer[0] == name:
                first = nodes[name]["port_lid"].get(peer[1])
                nodes[name]["port_lid"][peer[1]] = min(first, lid) if first else lid
                top = nodes[name].setdefault("port_top", {})
                top[peer[1]] = max(top.get(peer[1], 0), lid)
                break


def read_guid2lid(path, nodes):
    lids, tops = {}, {}
    for n, line in enumerate(read_lines(path), 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        try:
            lids[int(words[0], 16)] = int(words[1], 0)
            tops[int(words[0], 16)] = int(words[2], 0) if len(words) > 2 else lids[int(words[0], 16)]
        except (ValueError, IndexError) as e:
            raise InputError(f"{path}:{n}: expected '0xPORTGUID LID LID'") from e
    for v in nodes.values():
        if v["kind"] == "Switch":
            v["lid"] = lids.get(v["guid"], v["lid"])
        else:
            for p, g in v["port_guid"].items():
                v["port_lid"][p] = lids.get(g, 0)
                # The last LID of the port's LMC range (its base LID when LMC is 0).
                v.setdefault("port_top", {})[p] = max(tops.get(g, 0), v["port_lid"][p])
    return lids


def read_lfts(path, owners=None, guids=None):
    """dump_fts / opensm-lfts.dump -> {switch guid: {lid: port}}, each table
    under its switch's name too (a string key: no GUID collides with it);
    `owners` (a dict) gets {lid: (kind, name)} from the entries' comments,
    `guids` (a dict) {switch name: guid} from the tables' headings."""
    lfts, table = {}, None
    head = re.compile(r"^Unicast lids .* guid (0x[0-9a-fA-F]+)\s*(?:\('?(.*?)'?\))?:?\s*$")
    entry = re.compile(r"^(0x[0-9a-fA-F]+)\s+(\d+)\b")
    owner = re.compile(r"(Switch|Channel Adapter|Router) portguid 0x[0-9a-fA-F]+: '(.*)'")
    for line in read_lines(path):
        m = head.match(line)
        if m:
            table = lfts.setdefault(int(m.group(1), 16), {})
            if m.group(2):
                lfts[m.group(2)] = table
                if guids is not None:
                    guids[m.group(2)] = int(m.group(1), 16)
            continue
        m = entry.match(line)
        if m and table is not None:
            table[int(m.group(1), 16)] = int(m.group(2))
            o = owner.search(line) if owners is not None else None
            if o:
                owners[int(m.group(1), 16)] = (o.group(1), o.group(2))
    if not lfts:
        raise InputError(f"{path}:1: expected LFTs as dump_fts lists them ('Unicast lids ... guid 0x...')")
    return lfts


def read_sl2vl(path):
    """'switch 0xGUID in_port N out_port M : v0 .. v15' -> {(guid, in, out): [16 VLs]}.
    A CA or router port's own table ('ca ...', 'router ...': a host's first
    hop, on no credit loop) is passed over."""
    tables = {}
    line_re = re.compile(r"^switch (0x[0-9a-fA-F]+) in_port (\d+) out_port (\d+) :((?:\s+\d+){16})\s*$")
    for n, line in enumerate(read_lines(path), 1):
        if not line.strip() or line.startswith(("ca ", "router ")):
            continue
        m = line_re.match(line)
        if not m:
            raise InputError(f"{path}:{n}: expected 'switch 0xGUID in_port N out_port M : v0 ... v15'")
        tables[(int(m.group(1), 16), int(m.group(2)), int(m.group(3)))] = [int(v) for v in m.group(4).split()]
    return tables


def read_pair_sls(path):
    """The SL of each pair, in either form: the SA's answers (`sa-client
    pathsls`: "path SLID DLID SL", "nopath ...", "timeout ...") -> {(slid,
    dlid): sl}; or the engine's, as `ibsm route -o DIR` writes DIR/pair-sls
    ("node 0xNODEGUID port N dlid 0xLID sl K") -> [(node guid, port, dlid,
    sl, line)], for the caller to find each source port's LID. Returns (sls,
    nopath, by_node)."""
    sls, nopath, by_node = {}, 0, []
    for n, line in enumerate(read_lines(path), 1):
        words = line.split()
        if not words or words[0] not in ("path", "nopath", "timeout", "node"):
            continue
        if words[0] == "node":
            if len(words) != 8 or (words[2], words[4], words[6]) != ("port", "dlid", "sl"):
                raise InputError(f"{path}:{n}: expected 'node 0xNODEGUID port N dlid 0xLID sl K'")
            try:
                by_node.append((int(words[1], 16), int(words[3], 0), int(words[5], 0), int(words[7], 0), n))
            except ValueError as e:
                raise InputError(f"{path}:{n}: expected 'node 0xNODEGUID port N dlid 0xLID sl K'") from e
            continue
        try:
            if words[0] == "path":
                sls[(int(words[1]), int(words[2]))] = int(words[3])
            else:
                nopath += 1
        except (ValueError, IndexError) as e:
            raise InputError(f"{path}:{n}: expected 'path SLID DLID SL'") from e
    return sls, nopath, by_node


def pair_sls_by_lid(path, by_node, nodes, guid2lid):
    """The engine's pairs (read_pair_sls' by_node) by (source LID, dlid): a
    CA port's LID from the topology (node GUID and port), or, for a net file
    (no GUIDs), from guid2lid by its port GUID, node GUID + port as ibsim and
    `ibsm route` number a CA's ports. A switch's own port 0 is no CA pair:
    left out."""
    lid_of = {}
    for v in nodes.values():
        if v["kind"] != "Switch" and v["guid"] is not None:
            for p, lid in v["port_lid"].items():
                lid_of[(v["guid"], p)] = lid
    sls = {}
    for guid, port, dlid, sl, n in by_node:
        if port == 0:
            continue
        lid = lid_of.get((guid, port)) or guid2lid.get(guid + port)
        if not lid:
            raise InputError(f"{path}:{n}: no CA port with node GUID 0x{guid:016x} port {port} "
                             "(expected one in the topology, or its port GUID in --guid2lid)")
        sls[(lid, dlid)] = sl
    return sls
