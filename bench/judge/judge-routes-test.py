#!/usr/bin/env python3
"""Unit tests of judge-routes.py, the routing judge of bench-engines.sh:
hand-made tables on a hand-made fabric, each figure checked against what a
reader works out by hand. Run by ctest (label unit) or directly.

The fabric: a ring of three switches A (0x10, LID 1), B (0x20, LID 2) and C
(0x30, LID 3), each with one host on port 1 (a, b, c: LIDs 11, 12, 13).
Port 2 of each switch goes clockwise (A->B, B->C, C->A), port 3
counter-clockwise.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

JUDGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "judge-routes.py")


def switch(name, guid, lid, host, cw, ccw):
    return (f'switchguid=0x{guid:x}({guid:x})\n'
            f'Switch\t3 "S-{guid:016x}"\t\t# "{name}" base port 0 lid {lid} lmc 0\n'
            f'[1]\t"H-{host[1]:016x}"[1]({host[1] + 1:x}) \t\t# "{host[0]}" lid {host[2]} 4xSDR\n'
            f'[2]\t"S-{cw:016x}"[3]\t\t# lid 0 4xSDR\n'
            f'[3]\t"S-{ccw:016x}"[2]\t\t# lid 0 4xSDR\n\n')


def ca(name, guid, lid, sw, desc=None):
    return (f'caguid=0x{guid:x}\nCa\t1 "H-{guid:016x}"\t\t# "{desc or name}"\n'
            f'[1]({guid + 1:x}) \t"S-{sw:016x}"[1]\t\t# lid {lid} lmc 0 "x" lid 1 4xSDR\n\n')


FABRIC = (switch("A", 0x10, 1, ("a", 0xa0, 11), 0x20, 0x30) + switch("B", 0x20, 2, ("b", 0xb0, 12), 0x30, 0x10)
          + switch("C", 0x30, 3, ("c", 0xc0, 13), 0x10, 0x20)
          + ca("a", 0xa0, 11, 0x10) + ca("b", 0xb0, 12, 0x20) + ca("c", 0xc0, 13, 0x30))
SWITCHES = {"A": (0x10, 1, 11), "B": (0x20, 2, 12), "C": (0x30, 3, 13)}


def lfts(ports):
    """ports: {switch: {host LID: port}} -> dump_fts text."""
    text = ""
    for name, table in ports.items():
        guid, lid, _ = SWITCHES[name]
        text += f"Unicast lids [0x0-0xd] of switch Lid {lid} guid 0x{guid:016x} ({name}):\n"
        for dlid, port in sorted(table.items()):
            text += f"0x{dlid:04x} {port:03d} : (Channel Adapter portguid 0x0: 'x')\n"
    return text


SHORTEST = lfts({"A": {11: 1, 12: 2, 13: 3}, "B": {11: 3, 12: 1, 13: 2}, "C": {11: 2, 12: 3, 13: 1}})
CLOCKWISE = lfts({s: {lid: (1 if lid == SWITCHES[s][2] else 2) for lid in (11, 12, 13)} for s in SWITCHES})


def sl2vl(rows):
    """rows: (switch, in, out, [16 VLs]) -> sl2vl.dump text."""
    return "".join(f"switch 0x{SWITCHES[s][0]:016x} in_port {i} out_port {o} : {' '.join(map(str, v))}\n"
                   for s, i, o, v in rows)


class Judge(unittest.TestCase):
    def run_judge(self, tables, sl2vl_text=None, pair_sls=None, fabric=FABRIC, expect_rc=0):
        with tempfile.TemporaryDirectory() as d:
            files = {"topology": fabric, "lfts": tables, "sl2vl": sl2vl_text, "pair-sls": pair_sls}
            args = [sys.executable, JUDGE, "--json", os.path.join(d, "out.json")]
            for key, text in files.items():
                if text is None:
                    continue
                with open(os.path.join(d, key), "w") as f:
                    f.write(text)
                args += [f"--{key}", os.path.join(d, key)]
            r = subprocess.run(args, capture_output=True, text=True)
            self.assertEqual(r.returncode, expect_rc, r.stderr)
            if expect_rc:
                return r.stderr
            with open(os.path.join(d, "out.json")) as f:
                return json.load(f)

    def test_shortest_routes_carry_one_route_a_link_without_a_loop(self):
        j = self.run_judge(SHORTEST)
        self.assertEqual((j["pairs"], j["unrouted"], j["busiest"], j["longest"]), (6, 0, 1, 1))
        self.assertEqual((j["vls"], j["credit_loop_free"]), (1, "yes"))

    def test_one_way_round_the_ring_loads_links_and_closes_a_credit_loop(self):
        # a->b, a->c and c->b all cross A->B; a->c is two links long; the three
        # two-link routes wait on each other round the ring on VL 0.
        j = self.run_judge(CLOCKWISE)
        self.assertEqual((j["busiest"], j["longest"], j["unrouted"]), (3, 2, 0))
        self.assertEqual((j["credit_loop_free"], j["loop_vls"], j["loop_channels"]), ("no", "0", 3))

    def test_a_vl_climbing_at_each_transit_breaks_the_loop(self):
        up = [1] * 16
        rows = [(s, 3, 2, up) for s in SWITCHES]  # in from the counter-clockwise side, on clockwise
        j = self.run_judge(CLOCKWISE, sl2vl(rows))
        self.assertEqual((j["credit_loop_free"], j["vls"], j["vl_list"]), ("yes", 2, "0,1"))

    def test_the_sl_the_sa_gives_one_pair_moves_it_to_its_vl(self):
        # SL 1 -> VL 1 everywhere; c->b (LID 13 -> 12) on SL 1 leaves the ring's
        # VL 0 dependencies one short of a cycle.
        sl1 = [0, 1] + [0] * 14
        rows = [(s, i, o, sl1) for s in SWITCHES for i in (1, 2, 3) for o in (1, 2, 3) if i != o]
        j = self.run_judge(CLOCKWISE, sl2vl(rows), "path 13 12 1\n")
        self.assertEqual((j["credit_loop_free"], j["vl_list"], j["pair_sls"]), ("yes", "0,1", 1))
        j = self.run_judge(CLOCKWISE, sl2vl(rows), "path 13 12 0\n")
        self.assertEqual(j["credit_loop_free"], "no")

    def test_a_missing_entry_and_a_wrong_port_leave_pairs_unrouted(self):
        tables = lfts({"A": {11: 1, 12: 2, 13: 3}, "B": {11: 3, 12: 1}, "C": {11: 2, 12: 3, 13: 1}})
        j = self.run_judge(tables)  # B has no entry for c: b->c only (a->c goes A->C)
        self.assertEqual((j["unrouted"], j["pairs"]), (1, 6))
        # A and B send LID 13 to each other (a->c and b->c loop); C sends LID
        # 11 to its own host (c->a ends at the wrong port).
        tables = lfts({"A": {11: 1, 12: 2, 13: 2}, "B": {11: 3, 12: 1, 13: 3}, "C": {11: 1, 12: 3, 13: 1}})
        j = self.run_judge(tables)
        self.assertEqual((j["unrouted"], j["busiest"]), (3, 1))

    def test_pairs_with_an_aggregation_node_are_a_class_of_their_own(self):
        fabric = FABRIC.replace('# "c"\n', '# "Mellanox Technologies Aggregation Node C"\n')
        j = self.run_judge(CLOCKWISE, fabric=fabric)
        # c is the AN: its 4 pairs are class "an"; a<->b the 2 compute pairs.
        self.assertEqual((j["pairs_an"], j["pairs_compute"]), (4, 2))
        self.assertEqual((j["busiest_compute"], j["longest_compute"]), (1, 2))  # b->a: B->C->A
        self.assertEqual(j["busiest_an"], 2)  # A->B: a->c, c->b

    def test_bad_input_names_the_file_and_line(self):
        err = self.run_judge(SHORTEST, "switch 0x10 in_port 1 out_port 2 : 0 1\n", expect_rc=2)
        self.assertIn("sl2vl:1: expected 'switch 0xGUID in_port N out_port M : v0 ... v15'", err)
        err = self.run_judge("no tables here\n", expect_rc=2)
        self.assertIn("lfts:1: expected LFTs", err)


if __name__ == "__main__":
    unittest.main()
