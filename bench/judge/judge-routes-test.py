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


# The same ring as an ibsim net file (names, no GUIDs), with a dual-port HCA
# d besides: port 1 on A[4] (LID 14), port 2 on B[4] (LID 15).
NET = ('Switch\t4 "A"\n[1]\t"a"[1]\n[2]\t"B"[3]\n[3]\t"C"[2]\n[4]\t"d"[1]\n\n'
       'Switch\t4 "B"\n[1]\t"b"[1]\n[2]\t"C"[3]\n[3]\t"A"[2]\n[4]\t"d"[2]\n\n'
       'Switch\t3 "C"\n[1]\t"c"[1]\n[2]\t"A"[3]\n[3]\t"B"[2]\n\n'
       'Hca\t1 "a"\n[1]\t"A"[1]\n\nHca\t1 "b"\n[1]\t"B"[1]\n\nHca\t1 "c"\n[1]\t"C"[1]\n\n'
       'Hca\t2 "d"\n[1]\t"A"[4]\n[2]\t"B"[4]\n')
OWNER = {11: "a", 12: "b", 13: "c", 14: "d", 15: "d"}


def named_lfts(ports):
    """ports: {switch: {LID: port}} -> opensm-lfts.dump text, as `ibsm route` writes it."""
    text = ""
    for name, table in ports.items():
        guid, lid, _ = SWITCHES[name]
        text += f"Unicast lids [0-15] of switch Lid {lid} guid 0x{guid:016x} ('{name}'):\n"
        for dlid, port in sorted(table.items()):
            text += f"0x{dlid:04x} {port:03d} # Channel Adapter portguid 0x{dlid:016x}: '{OWNER[dlid]}'\n"
    return text


NET_SHORTEST = named_lfts({"A": {11: 1, 12: 2, 13: 3, 14: 4, 15: 2}, "B": {11: 3, 12: 1, 13: 2, 14: 3, 15: 4},
                           "C": {11: 2, 12: 3, 13: 1, 14: 2, 15: 3}})


class Judge(unittest.TestCase):
    def run_judge(self, tables, sl2vl_text=None, pair_sls=None, fabric=FABRIC, expect_rc=0, where="topology",
                  guid2lid=None):
        with tempfile.TemporaryDirectory() as d:
            files = {where: fabric, "lfts": tables, "sl2vl": sl2vl_text, "pair-sls": pair_sls, "guid2lid": guid2lid}
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

    def test_the_engines_own_pair_sls_name_the_source_by_node_guid_and_port(self):
        # ibsm route's DIR/pair-sls: c (node 0xc0, port 1: LID 13) -> b on SL 1
        # as the SA's "path 13 12 1"; C's own port 0 is no CA pair.
        sl1 = [0, 1] + [0] * 14
        rows = [(s, i, o, sl1) for s in SWITCHES for i in (1, 2, 3) for o in (1, 2, 3) if i != o]
        pairs = ("# comment\nnode 0x00000000000000c0 port 1 dlid 0x000c sl 1\n"
                 "node 0x0000000000000030 port 0 dlid 0x000c sl 1\n")
        j = self.run_judge(CLOCKWISE, sl2vl(rows), pairs)
        self.assertEqual((j["credit_loop_free"], j["vl_list"], j["pair_sls"]), ("yes", "0,1", 1))
        err = self.run_judge(CLOCKWISE, sl2vl(rows), "node 0x99 port 1 dlid 0xc sl 1\n", expect_rc=2)
        self.assertIn("pair-sls:1: no CA port with node GUID 0x0000000000000099 port 1", err)
        err = self.run_judge(CLOCKWISE, sl2vl(rows), "node 0xc0 port 1 dlid 0xc\n", expect_rc=2)
        self.assertIn("pair-sls:1: expected 'node 0xNODEGUID port N dlid 0xLID sl K'", err)

    def test_a_net_file_takes_switch_guids_from_the_tables_and_ca_lids_from_guid2lid(self):
        # Clockwise round the net ring closes a loop on VL 0; the SL2VL rows
        # name switches by GUID, which only the tables' headings give.
        cw = {s: {lid: 2 for lid in OWNER} for s in SWITCHES}
        for s, lid, port in (("A", 11, 1), ("B", 12, 1), ("C", 13, 1), ("A", 14, 4), ("B", 15, 4)):
            cw[s][lid] = port
        tables = named_lfts(cw)
        self.assertEqual(self.run_judge(tables, fabric=NET, where="net")["credit_loop_free"], "no")
        up = [1] * 16
        rows = [(s, 3, 2, up) for s in SWITCHES]
        j = self.run_judge(tables, sl2vl(rows), fabric=NET, where="net")
        self.assertEqual((j["credit_loop_free"], j["vl_list"]), ("yes", "0,1"))
        # c's node GUID 0xc0: its port 1 is port GUID 0xc1, LID 13 by guid2lid.
        sl1 = [0, 1] + [0] * 14
        j = self.run_judge(tables, sl2vl([(s, i, 2, sl1) for s in SWITCHES for i in (1, 3)]),
                           "node 0xc0 port 1 dlid 0xb sl 1\n", fabric=NET, where="net",
                           guid2lid="0x00000000000000c1 13 13\n")
        self.assertEqual((j["pair_sls"], j["sl_list"], j["vl_list"]), (1, "1", "0,1"))

    def test_an_lmc_ranges_later_lids_are_walked_on_the_sl_of_their_pair(self):
        # Each host holds two LIDs (a 21-22, b 23-24, c 25-26): the base LIDs
        # on the shortest routes, the later ones one way round the ring, which
        # closes a loop on VL 0; on SL 1, climbing to VL 2 at each transit, not.
        base = {"A": {21: 1, 23: 2, 25: 3}, "B": {21: 3, 23: 1, 25: 2}, "C": {21: 2, 23: 3, 25: 1}}
        for s in SWITCHES:
            for lid in (22, 24, 26):
                base[s][lid] = 1 if base[s][lid - 1] == 1 else 2
        tables = lfts(base)
        ranges = "0x00000000000000a1 21 22\n0x00000000000000b1 23 24\n0x00000000000000c1 25 26\n"
        j = self.run_judge(tables, guid2lid=ranges)
        self.assertEqual((j["pairs"], j["lmc_pairs"], j["lmc_unrouted"]), (6, 6, 0))
        self.assertEqual(j["credit_loop_free"], "no")
        climb = [0, 2] + [0] * 14
        pairs = "".join(f"node 0x00000000000000{h}0 port 1 dlid {lid} sl 1\n"
                        for h in "abc" for lid in (22, 24, 26))
        j = self.run_judge(tables, sl2vl([(s, 3, 2, climb) for s in SWITCHES]), pairs, guid2lid=ranges)
        self.assertEqual((j["credit_loop_free"], j["sl_list"]), ("yes", "1"))
        self.assertEqual(self.run_judge(tables, guid2lid=ranges.replace(" 22", " 21").replace(" 24", " 23")
                                        .replace(" 26", " 25"))["credit_loop_free"], "yes")

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

    def test_routes_longer_than_the_fewest_switch_hops_are_counted_per_class(self):
        # Clockwise, each host reaches its counter-clockwise neighbour in two
        # links where one would do: a->c, b->a, c->b.
        j = self.run_judge(CLOCKWISE)
        self.assertEqual((j["longer_compute"], j["longer_all"], j["longer_an"]), (3, 3, 0))
        self.assertEqual((j["busiest_hosts"], j["busiest_link_all"]), (3, "A[2]"))
        self.assertEqual(j["mean_all"], round(9 / 6, 1))  # 9 link crossings over 6 directed links
        self.assertEqual(self.run_judge(SHORTEST)["longer_all"], 0)

    def test_a_net_file_is_read_by_names_and_each_hca_port_gets_the_lid_delivered_to_it(self):
        j = self.run_judge(NET_SHORTEST, fabric=NET, where="net")
        # 5 CA ports; A->B carries a and d's port 1 toward b and d's port 2.
        self.assertEqual((j["ca_ports"], j["pairs"], j["unrouted"]), (5, 20, 0))
        self.assertEqual((j["busiest"], j["busiest_link_all"], j["longest"]), (4, "A[2]", 1))
        # The same tables delivering d's LID 15 at its port on A, which holds
        # LID 14: port 2 then has no LID, and its 8 pairs (4 from it, 4
        # toward it) are unrouted.
        wrong = NET_SHORTEST.replace("0x000f 002 #", "0x000f 004 #", 1)
        self.assertEqual(self.run_judge(wrong, fabric=NET, where="net")["unrouted"], 8)

    def test_bad_input_names_the_file_and_line(self):
        err = self.run_judge(SHORTEST, "switch 0x10 in_port 1 out_port 2 : 0 1\n", expect_rc=2)
        self.assertIn("sl2vl:1: expected 'switch 0xGUID in_port N out_port M : v0 ... v15'", err)
        err = self.run_judge("no tables here\n", expect_rc=2)
        self.assertIn("lfts:1: expected LFTs", err)
        err = self.run_judge(NET_SHORTEST, fabric='[1]\t"A"[1]\n', where="net", expect_rc=2)
        self.assertIn("net:1: expected a Switch or Hca line before this port line", err)


if __name__ == "__main__":
    unittest.main()
