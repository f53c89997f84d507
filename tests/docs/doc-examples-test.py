#!/usr/bin/env python3
"""The rules by which the doc tests find examples (ctest DocExamples.rules).

What is an example, what is output, what is a synopsis, and that an example
nobody can run and nobody listed fails, shown on small docs written here.
"""

import importlib.util
import re
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import doc_examples as de  # noqa: E402

spec = importlib.util.spec_from_file_location("runner", HERE / "run-doc-examples.py")
runner = importlib.util.module_from_spec(spec)
sys.modules["runner"] = runner
spec.loader.exec_module(runner)


def commands(examples):
    return [e.command for e in examples]


class Markdown(unittest.TestCase):
    def test_every_line_of_a_sh_block_is_a_command_but_comments(self):
        doc = "text\n```sh\n# a comment\nibsm route -t a.net \\\n    -o out\n\nibsm health\n```\n"
        found = de.markdown_examples("README.md", doc)
        self.assertEqual(commands(found), ["ibsm route -t a.net -o out", "ibsm health"])
        self.assertEqual([e.line for e in found], [4, 7])

    def test_only_prompted_lines_of_other_blocks_are_commands(self):
        doc = ("```\n$ ibsm status | grep '^health:'\nhealth: healthy\n```\n"
               "```console\n$ ibsm health\nhealthy\n```\n"
               "```\nfabric  engine  moved\nk8      ftree   62\n```\n")
        self.assertEqual(commands(de.markdown_examples("README.md", doc)),
                         ["ibsm status | grep '^health:'", "ibsm health"])


class ManPage(unittest.TestCase):
    def test_commands_in_nf_blocks_are_examples_and_output_is_not(self):
        doc = (".SH EXAMPLES\n.nf\nibsm route \\-\\-topology ft.net \\-\\-out /tmp/ft\n"
               "state: MASTER\nkill \\-HUP $(pidof ibsm)\n.fi\n"
               ".nf\n.RS\nibsm_unhealthy{condition=\"errors\"} 1\n.RE\n.fi\n"
               ".EX\n$ ibsm path leaf0 host3\n.EE\n")
        self.assertEqual(commands(de.man_examples("man/ibsm.8", doc)),
                         ["ibsm route --topology ft.net --out /tmp/ft",
                          "kill -HUP $(pidof ibsm)", "ibsm path leaf0 host3"])

    def test_a_troff_continuation_joins_the_next_line(self):
        doc = ".nf\nibsm partitions \\-\\-topology f \\e\n   \\-\\-sm\\-guid 0x1\n.fi\n"
        self.assertEqual(commands(de.man_examples("man/x.5", doc)),
                         ["ibsm partitions --topology f --sm-guid 0x1"])

    def test_commands_outside_nf_blocks_are_prose(self):
        self.assertEqual(de.man_examples("man/x.5", ".B ibsm route \\-t f.net\n"), [])


class Synopsis(unittest.TestCase):
    def test_optional_parts_placeholders_alternatives_and_elisions_make_a_synopsis(self):
        for line in ["ibsm status [--json] [--socket PATH]",
                     "scripts/soak.sh [MINUTES] [RADIX]",
                     "ibsm route --topology FILE",
                     "ibsm topo generate dragonfly|dragonfly-plus ...   # see man 8 ibsm",
                     "opensm -R file -U ft/opensm-lfts.dump ..."]:
            self.assertTrue(de.is_synopsis(line), line)

    def test_quoted_strings_substitutions_and_comments_do_not(self):
        for line in ["ibsm status | grep -E '^(state|master|last_sweep):'",
                     "ibsm health --json | jq '.ports[] | select(.x > 0) | .name'",
                     "kill -HUP $(pidof ibsm)     # after editing /etc/ibsm/ibsm.toml",
                     "ibsm topo generate fat-tree --levels 3 --radix 12 -o before.net",
                     "ibsm metrics | grep SymbolErrorCounter   # the same text [FROM] the socket"]:
            self.assertFalse(de.is_synopsis(line), line)


class Plan(unittest.TestCase):
    def plan(self, readme):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            (root / "man").mkdir()
            (root / "README.md").write_text(readme)
            for doc in runner.DOCS[1:]:
                (root / doc).write_text("")
            return runner.plan(root)

    def test_an_example_neither_runnable_nor_listed_is_a_problem(self):
        runs, lines, problems = self.plan("```sh\nibdiagnet -o out\nibsm health\n```\n")
        self.assertEqual(problems, 1)
        self.assertEqual(commands(runs), ["ibsm health"])
        self.assertTrue(any("UNLISTED" in line and "ibdiagnet" in line for line in lines))

    def test_listed_examples_and_synopses_are_reported_not_run(self):
        runs, lines, problems = self.plan(
            "```sh\nscripts/demo.sh   # demo\nibsm status [--json]\n```\n")
        self.assertEqual((runs, problems), ([], 0))
        self.assertEqual([line.split()[0] for line in lines], ["not", "synopsis"])

    def test_examples_run_in_the_phase_their_command_needs(self):
        phase = lambda c: runner.phase(de.Example("README.md", 1, c))  # noqa: E731
        self.assertEqual(phase("ibsm route -t a.net -o a"), "offline")
        self.assertEqual(phase("ibsm draw -t a.net -o a.svg"), "offline")
        self.assertEqual(phase("ibsm route -t a.net -o f   # what `ibsm sweep --rebalance` writes"),
                         "offline")
        self.assertEqual(phase("ibsm draw -o a.svg"), "daemon")
        self.assertEqual(phase("ibsm run --once --stats run.json"), "fabric")
        self.assertEqual(phase("ibsm status --json | jq .up"), "daemon")
        self.assertEqual(phase("kill -HUP $(pidof ibsm)"), "daemon")

    def test_an_example_after_a_daemon_example_of_its_block_runs_with_the_daemon(self):
        block = [de.Example("README.md", 10, "ibsm dump all -o held", 9),
                 de.Example("README.md", 11, "ibsm route -t f.net --guid2lid held/guid2lid", 9),
                 de.Example("README.md", 12, "ibsm run --once", 9),
                 de.Example("README.md", 21, "ibsm route -t f.net -o dry", 20)]
        self.assertEqual(runner.phases(block), ["daemon", "daemon", "fabric", "offline"])


class Figures(unittest.TestCase):
    def test_a_figure_is_compared_as_the_doc_rounds_it(self):
        self.assertTrue(runner.same_figures({"pct": "43.5", "n": "1,184"},
                                            {"pct": "43.50", "n": "1184"}))
        self.assertTrue(runner.same_figures({"pct": "0.25"}, {"pct": "0.249"}))
        self.assertFalse(runner.same_figures({"n": "47922"}, {"n": "278"}))
        self.assertFalse(runner.same_figures({"pct": "43.5"}, {"pct": "43.56"}))


class TheDocs(unittest.TestCase):
    def test_every_example_in_the_repository_docs_is_run_listed_or_a_synopsis(self):
        runs, lines, problems = runner.plan(HERE.parent.parent)
        self.assertEqual(problems, 0, "\n".join(line for line in lines if "UNLISTED" in line))
        self.assertGreater(len(runs), 10)

    def test_every_doc_says_the_default_partition_is_managed_without_a_partition_source(self):
        # sm/config/PartitionSources.cpp: no file and no [[partition]] table
        # means partition::defaultPartitionConfig(), not tables left alone.
        root = HERE.parent.parent
        for doc in ["README.md", "man/ibsm.8", "man/ibsm.toml.5", "man/ibsm-partitions.conf.5",
                    "conf/ibsm.toml"]:
            text = " ".join(de.unescape_troff((root / doc).read_text()).replace("#", " ").split())
            self.assertTrue("Default=0x7fff, ipoib : ALL=full" in text,
                            f"{doc} does not say the default partition is managed")
            wrong = re.search(r"leaves PKey tables as[^.]*|PKey tables are managed only if[^.]*", text)
            self.assertIsNone(wrong, f"{doc}: {wrong.group(0) if wrong else ''}")

    def test_every_figure_the_table_names_is_still_in_its_doc(self):
        for f in runner.FIGURES:
            text = re.sub(r"\s+", " ", (HERE.parent.parent / f.doc).read_text())
            self.assertTrue(re.search(f.text, text), f"{f.doc} no longer says /{f.text}/")


if __name__ == "__main__":
    unittest.main(verbosity=2)
