#!/usr/bin/env python3
"""The include rules' checker (ctest IncludeRule.checker), on small trees
written here: which include/ibsm headers the pure side needs, through
other contracts too, and which includes cross from the pure side to sm/.
"""

import importlib.util
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("check_includes",
                                              ROOT / "scripts" / "check-includes.py")
ci = importlib.util.module_from_spec(spec)
sys.modules["check_includes"] = ci
spec.loader.exec_module(ci)


def tree(files):
    """A temporary tree holding `files` (path -> text); the caller cleans it."""
    tmp = tempfile.TemporaryDirectory()
    for path, text in files.items():
        full = Path(tmp.name) / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(text)
    return tmp


def problems(files):
    with tree(files) as root:
        return ci.check(Path(root))


class Contracts(unittest.TestCase):
    def test_a_contract_the_pure_side_includes_through_another_is_needed(self):
        self.assertEqual(problems({
            "routing/plan/Plan.cpp": "#include <ibsm/Plan.h>\n",
            "include/ibsm/Plan.h": "#pragma once\n#include <ibsm/Ids.h>\n",
            "include/ibsm/Ids.h": "#pragma once\n",
            "partition/Keys.cpp": "#include <ibsm/Keys.h>\n",
            "include/ibsm/Keys.h": "#pragma once\n",
        }), [])

    def test_a_contract_only_sm_includes_belongs_under_sm(self):
        found = problems({
            "routing/plan/Plan.cpp": "#include <ibsm/Plan.h>\n",
            "include/ibsm/Plan.h": "#pragma once\n",
            "include/ibsm/Wire.h": "#pragma once\n#include <ibsm/Plan.h>\n",
            "sm/mad/Engine.cpp": "#include <ibsm/Wire.h>\n",
            # A comment that names it is no include.
            "routing/plan/Other.cpp": "// #include <ibsm/Wire.h>\n/* see <ibsm/Wire.h> */\n",
        })
        self.assertEqual(len(found), 1)
        self.assertTrue(found[0].startswith("include/ibsm/Wire.h: no file of routing/, "
                                            "partition/ or qos/ needs it"), found[0])


class Direction(unittest.TestCase):
    def test_the_pure_side_never_includes_sm(self):
        found = problems({
            "routing/a/A.cpp": '#include <vector>\n\n#include "sm/mad/Wire.h"\n',
            "partition/P.h": '#pragma once\n#include "routing/a/A.h"\n',
            "include/ibsm/C.h": '#pragma once\n  #  include "sm/sa/Records.h"\n',
            "sm/sa/Records.cpp": '#include "sm/sa/Records.h"\n',
            "routing/a/Uses.cpp": "#include <ibsm/C.h>\n",
        })
        self.assertEqual(found, [
            "routing/a/A.cpp:3: includes sm/mad/Wire.h: the pure side never includes sm/",
            "include/ibsm/C.h:2: includes sm/sa/Records.h: the pure side never includes sm/",
        ])


class Tree(unittest.TestCase):
    def test_the_real_tree_is_read_whole(self):
        # The rules hold on the repository (ctest IncludeRule); here, only
        # that the checker reads it: every contract of include/ibsm counted.
        contracts = ci.sources(ROOT, ci.CONTRACTS)
        self.assertGreater(len(contracts), 10)


if __name__ == "__main__":
    unittest.main()
