#!/usr/bin/env python3
"""Writes the seed corpus of SaFuzz (tests/fuzz/corpus/SaFuzz/): one well-formed
SA query of each kind the responder serves, addressed to the fuzz target's fabric
(one switch, hosts with port GUIDs 0x301-0x303, default subnet prefix), so that
a few seconds of fuzzing in CI start from inside every branch rather than from
empty input. Run it again after changing a seed; the files are committed.
Files named regression-* are inputs that once crashed SaFuzz, kept as found.
SmpFuzz's corpus (tests/fuzz/corpus/SmpFuzz/) is written by the C++ program
SmpCorpus from ibsm's own encoders instead (SmpSeeds.cpp), and checked
against them by SmpSeedsTest."""
import pathlib
import struct

PREFIX = 0xFE80000000000000
OUT = pathlib.Path(__file__).resolve().parent / "corpus" / "SaFuzz"


def gid(guid):
    return struct.pack(">QQ", PREFIX, guid)


def mad(method, attr, mask, data=b"", sm_key=0, rmpp_flags=0, tid=1):
    header = struct.pack(">BBBBHHQHHI", 1, 0x03, 2, method, 0, 0, tid, attr, 0, 0)
    rmpp = struct.pack(">BBBBII", 1 if rmpp_flags else 0, 1 if rmpp_flags else 0,
                       rmpp_flags, 0, 1 if rmpp_flags else 0,
                       20 + len(data) if rmpp_flags else 0)
    sa = struct.pack(">QHHQ", sm_key, 0, 0, mask)
    return (header + rmpp + sa + data).ljust(256, b"\0")


def path_record(sgid, dgid):
    # ServiceID(8) DGID(16) SGID(16) DLID SLID, then zeros to 64 bytes.
    return (b"\0" * 8 + gid(dgid) + gid(sgid)).ljust(64, b"\0")


def service_record(guid, lease):
    # ServiceID, ServiceGID, PKey, reserved, Lease, Key, Name, Data.
    return (struct.pack(">Q", 0x1000) + gid(guid) + struct.pack(">HHI", 0xFFFF, 0, lease) +
            b"\0" * 16 + b"storage".ljust(64, b"\0")).ljust(176, b"\0")


def multipath(sources, dests, numb_path=2):
    # FlowLabel.., TClass, Reversible|NumbPath, PKey, QoS|SL, MTU, Rate, Life,
    # ServiceID msb, Independence, SGIDCount, DGIDCount, ServiceID lsb; GIDs.
    head = struct.pack(">IBBHHBBBBBBB7s", 0, 0, 0x80 | numb_path, 0, 0, 0, 0, 0, 0, 0,
                       len(sources), len(dests), b"\0" * 7)
    return head + b"".join(gid(g) for g in sources + dests)


def mcmember(mgid, port_guid, join_state, qkey=0x0B1B, pkey=0xFFFF, mlid=0):
    # MGID, PortGID, Q_Key, MLID, MTUSelector|MTU, TClass, P_Key,
    # RateSelector|Rate, PacketLifeTimeSelector|PacketLifeTime,
    # SL|FlowLabel|HopLimit, Scope|JoinState, ProxyJoin|reserved: 52 bytes.
    return (mgid + gid(port_guid) + struct.pack(">IHBBHBBIBB", qkey, mlid, 0x84, 0, pkey, 0x83,
                                                0x92, 0, 0x20 | join_state, 0)).ljust(56, b"\0")


def mgid(scope_flags, signature, pkey, tail):
    return struct.pack(">BBHH6sI", 0xFF, scope_flags, signature, pkey, b"\0" * 6, tail)


MCM = 0x0038
CREATE = 0x1 | 0x2 | 0x4 | 0x40 | 0x80 | 0x1000 | 0x2000 | 0x10000  # o15-0.2.3
JOIN = 0x1 | 0x2 | 0x10000
APP = mgid(0x12, 0, 0, 1)
BROADCAST_V4 = mgid(0x12, 0x401B, 0xFFFF, 0xE0000001)

SEEDS = {
    "class-port-info": mad(0x01, 0x0001, 0),
    "node-record-get": mad(0x01, 0x0011, 0x1, struct.pack(">H", 2).ljust(108, b"\0")),
    "node-record-table": mad(0x12, 0x0011, 0),
    "port-info-record-table": mad(0x12, 0x0012, 0),
    "link-record-table": mad(0x12, 0x0020, 0),
    "lft-record-table": mad(0x12, 0x0015, 0),
    "sl2vl-record-table": mad(0x12, 0x0013, 0),
    "pkey-record-table": mad(0x12, 0x0033, 0, sm_key=1),
    "sm-info-record-table": mad(0x12, 0x0018, 0),
    "path-get": mad(0x01, 0x0035, 0xC, path_record(0x301, 0x302)),
    "path-table": mad(0x12, 0x0035, 0),
    "service-set": mad(0x02, 0x0031, 0x13, service_record(0x301, 60)),
    "service-delete": mad(0x15, 0x0031, 0x3, service_record(0x301, 60)),
    "service-table": mad(0x12, 0x0031, 0),
    "inform-info-set": mad(0x02, 0x0003, 0, b"\0" * 16 + struct.pack(">HHHBB", 0xFFFF, 0, 0, 1, 0)),
    "multipath-getmulti": mad(0x14, 0x003A, (1 << 19) | (1 << 20) | (1 << 6),
                              multipath([0x301], [0x302, 0x303]), rmpp_flags=0x7),
    "multipath-segmented": mad(0x14, 0x003A, (1 << 19) | (1 << 20),
                               multipath([0x301], [0x302]), rmpp_flags=0x3),
    # Multicast: sequences of MADs, one per 256 bytes, from hosts 0x301,
    # 0x302, 0x303 in turn (SaFuzz.cpp).
    "mcm-create-join-leave": mad(0x02, MCM, CREATE, mcmember(APP, 0x301, 0x1)) +
    mad(0x02, MCM, JOIN, mcmember(APP, 0x302, 0x2)) +
    mad(0x15, MCM, JOIN, mcmember(APP, 0x303, 0x1)) +
    mad(0x15, MCM, JOIN, mcmember(APP, 0x301, 0x1)),
    # OpenSM PR #43: 0x9 joined by proxy, 0x1 left, then 0x8 by the port itself.
    "mcm-send-only-full-leave": mad(0x02, MCM, CREATE, mcmember(APP, 0x303, 0x9)) +
    mad(0x15, MCM, JOIN, mcmember(APP, 0x303, 0x1)) +
    mad(0x15, MCM, JOIN, mcmember(APP, 0x303, 0x8)),
    "mcm-sa-assigned": mad(0x02, MCM, CREATE | 0x8000, mcmember(b"\0" * 16, 0x301, 0x1)),
    "mcm-ipoib": mad(0x02, MCM, CREATE, mcmember(BROADCAST_V4, 0x301, 0x1)) +
    mad(0x12, MCM, 0, mcmember(b"\0" * 16, 0, 0), sm_key=1),
    "mcm-table": mad(0x12, MCM, 0),
    "mcm-get-broadcast": mad(0x01, MCM, 0x1, mcmember(mgid(0x12, 0x401B, 0xFFFF, 0xFFFFFFFF),
                                                      0, 0)),
}

if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in SEEDS.items():
        (OUT / name).write_bytes(data)
    print(f"{len(SEEDS)} seeds in {OUT}")
