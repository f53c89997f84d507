#!/usr/bin/env python3
"""Unit tests of mft-check.py, the multicast judge: hand-made fabrics and
tables, right and wrong, each wrong one caught by the line that names it.
Run by ctest (label unit) or directly: python3 mft-check-test.py.

The fabric: leaves L1 (0x10) and L2 (0x20) under spines S1 (0x30) and S2
(0x40); L3 (0x50) under S1 only. Hosts a, b on L1 ports 1, 2; c, d on L2
ports 1, 2; e on L3 port 1 (port GUIDs 0xa1 ... 0xe1). Leaf port 3 goes to
S1, port 4 to S2; S1 port 1/2/3 to L1/L2/L3, S2 port 1/2 to L1/L2.
"""
import os
import subprocess
import sys
import tempfile
import unittest

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mft-check.py")

FABRIC = """\
#
# Topology file: hand-made for mft-check-test.py
#
switchguid=0x10(10)
Switch\t4 "S-0000000000000010"\t\t# "L1" base port 0 lid 1 lmc 0
[1]\t"H-00000000000000a0"[1](a1) \t\t# "a" lid 11 4xSDR
[2]\t"H-00000000000000b0"[1](b1) \t\t# "b" lid 12 4xSDR
[3]\t"S-0000000000000030"[1]\t\t# "S1" lid 3 4xSDR
[4]\t"S-0000000000000040"[1]\t\t# "S2" lid 4 4xSDR

switchguid=0x20(20)
Switch\t4 "S-0000000000000020"\t\t# "L2" base port 0 lid 2 lmc 0
[1]\t"H-00000000000000c0"[1](c1) \t\t# "c" lid 13 4xSDR
[2]\t"H-00000000000000d0"[1](d1) \t\t# "d" lid 14 4xSDR
[3]\t"S-0000000000000030"[2]\t\t# "S1" lid 3 4xSDR
[4]\t"S-0000000000000040"[2]\t\t# "S2" lid 4 4xSDR

switchguid=0x30(30)
Switch\t3 "S-0000000000000030"\t\t# "S1" base port 0 lid 3 lmc 0
[1]\t"S-0000000000000010"[3]\t\t# "L1" lid 1 4xSDR
[2]\t"S-0000000000000020"[3]\t\t# "L2" lid 2 4xSDR
[3]\t"S-0000000000000050"[3]\t\t# "L3" lid 5 4xSDR

switchguid=0x40(40)
Switch\t2 "S-0000000000000040"\t\t# "S2" base port 0 lid 4 lmc 0
[1]\t"S-0000000000000010"[4]\t\t# "L1" lid 1 4xSDR
[2]\t"S-0000000000000020"[4]\t\t# "L2" lid 2 4xSDR

switchguid=0x50(50)
Switch\t3 "S-0000000000000050"\t\t# "L3" base port 0 lid 5 lmc 0
[1]\t"H-00000000000000e0"[1](e1) \t\t# "e" lid 15 4xSDR
[3]\t"S-0000000000000030"[3]\t\t# "S1" lid 3 4xSDR

caguid=0xa0
Ca\t1 "H-00000000000000a0"\t\t# "a"
[1](a1) \t"S-0000000000000010"[1]\t\t# lid 11 lmc 0 "L1" lid 1 4xSDR
"""
SWITCHES = {0x10: 4, 0x20: 4, 0x30: 3, 0x40: 2, 0x50: 3}
MLID = 0xC000
# A right tree for receivers a, c, d: L1 -> S1 -> L2.
GOOD = {0x10: {MLID: {1, 3}}, 0x30: {MLID: {1, 2}}, 0x20: {MLID: {1, 2, 3}}}
MEMBERS = [("join", 0xA1, 0x1), ("join", 0xC1, 0x1), ("join", 0xD1, 0x2)]


def ibroute(tables, brief=False):
    """`ibroute [-b] -M` output of every switch for TABLES {sw: {mlid: ports}}."""
    out = []
    for sw, nports in SWITCHES.items():
        out.append(f"Multicast mlids [0xc000-0xc3ff] of switch Lid {sw} guid 0x{sw:016x} (x):")
        if brief:
            out.append(" MLid       Port Mask")
        else:
            out.append("     Ports: " + "".join(f"{i % 10} " for i in range(nports + 1)))
            out.append(" MLid")
        for mlid, ports in sorted(tables.get(sw, {}).items()):
            if brief:
                mask = sum(1 << p for p in ports)
                out.append(f"0x{mlid:04x}      {mask:04x}")
            else:
                cols = "".join("x " if i in ports else "  " for i in range(nports + 1))
                out.append(f"0x{mlid:04x}      {cols}")
        out.append(f"{len(tables.get(sw, {}))} valid mlids dumped ")
    return "\n".join(out) + "\n"


def record(members, mlid=MLID):
    """sa-client's --record lines; a leave is answered with MLID 0 (as OpenSM does)."""
    return "".join(f"{verb} ff12:401b:ffff::ffff:ffff 0x{g:x} 0x{s:x}"
                   f" 0x{mlid if verb == 'join' else 0:x}\n" for verb, g, s in members)


class MftCheckTest(unittest.TestCase):
    def run_checker(self, tables, members=MEMBERS, brief=False, saquery=None, fabric=FABRIC,
                    extra=()):
        with tempfile.TemporaryDirectory() as d:
            paths = {}
            for name, text in (("fabric", fabric), ("mfts", ibroute(tables, brief)),
                               ("members", record(members)), ("saquery", saquery or "")):
                paths[name] = os.path.join(d, name)
                with open(paths[name], "w") as f:
                    f.write(text)
            who = ["--saquery", paths["saquery"]] if saquery else ["--members", paths["members"]]
            done = subprocess.run([sys.executable, CHECKER, "--fabric", paths["fabric"], "--mfts",
                                   paths["mfts"], *who, *extra], capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr

    def assertProblem(self, tables, words, members=MEMBERS):
        rc, out = self.run_checker(tables, members)
        self.assertEqual(rc, 1, out)
        self.assertTrue(any(all(w in line for w in words) for line in out.splitlines()),
                        f"no line with {words} in:\n{out}")

    def test_a_right_tree_passes(self):
        rc, out = self.run_checker(GOOD)
        self.assertEqual(rc, 0, out)
        self.assertIn("1 groups, 3 memberships, 5 switch tables: 0 problems", out)

    def test_the_blocks_that_hold_entries_are_counted(self):
        # One block (MLIDs 0xc000-0xc01f, ports 0-15) on each of 3 switches;
        # an MLID of the next 32 is another block.
        self.assertIn("nonempty_blocks 3", self.run_checker(GOOD, extra=["--count-blocks"])[1])
        tables = {**GOOD, 0x10: {MLID: {1, 3}, 0xC01F: {2}, 0xC020: {2}}}
        self.assertIn("nonempty_blocks 4", self.run_checker(tables, extra=["--count-blocks"])[1])

    def test_the_blocks_that_changed_are_counted(self):
        # Against the same tables nothing changed; a port added to one entry
        # and one entry of another block gone: 2 blocks.
        with tempfile.TemporaryDirectory() as d:
            same = os.path.join(d, "same")
            with open(same, "w") as f:
                f.write(ibroute(GOOD, False))
            self.assertIn("changed_blocks 0",
                          self.run_checker(GOOD, extra=["--changed-from", same])[1])
            earlier = {**GOOD, 0x10: {MLID: {1}}, 0x20: {MLID: set(GOOD[0x20][MLID]), 0xC020: {1}}}
            path = os.path.join(d, "earlier")
            with open(path, "w") as f:
                f.write(ibroute(earlier, False))
            self.assertIn("changed_blocks 2",
                          self.run_checker(GOOD, extra=["--changed-from", path])[1])

    def test_the_brief_format_reads_the_same(self):
        self.assertEqual(self.run_checker(GOOD, brief=True)[0], 0)
        bad = {**GOOD, 0x20: {MLID: {1, 3}}}
        rc, out = self.run_checker(bad, brief=True)
        self.assertEqual(rc, 1, out)
        self.assertIn("receiver 0x00000000000000d1 gets 0 copies", out)

    def test_a_receiver_left_out_is_caught(self):
        tables = {**GOOD, 0x20: {MLID: {2, 3}}}
        self.assertProblem(tables, ["from 0x00000000000000a1", "receiver 0x00000000000000c1",
                                    "gets 0 copies"])

    def test_two_paths_give_duplicates(self):
        tables = {0x10: {MLID: {1, 3, 4}}, 0x30: {MLID: {1, 2}}, 0x40: {MLID: {1, 2}},
                  0x20: {MLID: {1, 2, 3, 4}}}
        self.assertProblem(tables, ["switch 0x0000000000000020 gets 2 copies"])
        self.assertProblem(tables, ["receiver 0x00000000000000c1 gets 2 copies"])

    def test_a_non_member_in_a_mask_is_caught(self):
        tables = {**GOOD, 0x10: {MLID: {1, 2, 3}}}
        self.assertProblem(tables, ["CA port 0x00000000000000b1 is no member"])

    def test_a_dead_branch_is_caught(self):
        tables = {**GOOD, 0x30: {MLID: {1, 2, 3}}, 0x50: {MLID: {3}}}
        self.assertProblem(tables, ["switch 0x0000000000000030 port 3", "dead branch"])

    def test_a_lone_receivers_own_port_is_no_dead_branch(self):
        # Its port is its membership: whatever a later member sends reaches it.
        rc, out = self.run_checker({0x10: {MLID: {1}}}, [("join", 0xA1, 0x1)])
        self.assertEqual(rc, 0, out)
        # A cable toward nobody, beside it, still is one.
        self.assertProblem({0x10: {MLID: {1, 3}}}, ["switch 0x0000000000000010 port 3",
                                                   "dead branch"], [("join", 0xA1, 0x1)])

    def test_a_mask_port_without_cable_is_caught(self):
        tables = {**GOOD, 0x50: {MLID: {2}}, 0x30: {MLID: {1, 2, 3}}}
        self.assertProblem(tables, ["switch 0x0000000000000050 port 2", "has no cable"])

    def test_an_mlid_no_group_uses_is_caught(self):
        tables = {**GOOD, 0x40: {0xC001: {1, 2}}}
        self.assertProblem(tables, ["MLID 0xc001: entries on 1 switches but no group"])

    def test_a_group_everyone_left_must_have_no_entries(self):
        members = MEMBERS + [("leave", 0xA1, 0x1), ("leave", 0xC1, 0x1), ("leave", 0xD1, 0x2)]
        self.assertProblem(GOOD, ["MLID 0xc000: entries on 3 switches"], members)
        self.assertEqual(self.run_checker({}, members)[0], 0)

    def test_a_send_only_member_need_not_receive(self):
        # e sends only (SendOnlyFull): the tree must reach L3 from e, e need not get copies.
        members = MEMBERS + [("join", 0xE1, 0x8)]
        tables = {**GOOD, 0x30: {MLID: {1, 2, 3}}, 0x50: {MLID: {3}}}
        rc, out = self.run_checker(tables, members)
        self.assertEqual(rc, 0, out)
        # ...but its packets must reach every receiver.
        self.assertProblem(GOOD, ["from 0x00000000000000e1", "receiver 0x00000000000000a1",
                                  "gets 0 copies"], members)

    def test_a_partial_leave_keeps_the_other_bits(self):
        # 0x9 then leave of 0x1: e is still SendOnlyFull, so its branch is needed.
        members = MEMBERS + [("join", 0xE1, 0x9), ("leave", 0xE1, 0x1)]
        tables = {**GOOD, 0x30: {MLID: {1, 2, 3}}, 0x50: {MLID: {1, 3}}}
        self.assertEqual(self.run_checker(tables, members)[0], 0)

    def test_saquery_member_dumps_are_read(self):
        dump = ""
        for g, s in ((0xA1, 1), (0xC1, 1), (0xD1, 2)):
            dump += ("MCMemberRecord member dump:\n\t\tMGID....................ff12:401b:ffff::ffff:ffff\n"
                     f"\t\tMlid....................0xC000\n\t\tPortGid.................fe80::{g:x}\n"
                     f"\t\tScopeState..............0x2{s}\n\t\tProxyJoin...............0x0\n")
        self.assertEqual(self.run_checker(GOOD, saquery=dump)[0], 0)
        rc, out = self.run_checker({**GOOD, 0x20: {MLID: {1, 3}}}, saquery=dump)
        self.assertEqual(rc, 1, out)

    def test_bad_input_exits_2(self):
        rc, out = self.run_checker(GOOD, fabric="not a fabric\n")
        self.assertEqual(rc, 2, out)
        self.assertIn("no switch", out)
        rc, out = self.run_checker(GOOD, members=[("joined", 0xA1, 1)])
        self.assertEqual(rc, 2, out)


if __name__ == "__main__":
    unittest.main()
