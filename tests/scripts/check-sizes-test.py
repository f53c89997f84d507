#!/usr/bin/env python3
"""The size check's scanner (ctest SizeCheck.scanner), on the fixtures of
tests/data/sizes: what counts as a function and its lines, what counts as a
class's data member, what braces do not count, and what the check prints and
returns with and without its allowlist.
"""

import contextlib
import importlib.util
import io
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "data" / "sizes"

spec = importlib.util.spec_from_file_location("check_sizes", ROOT / "scripts" / "check-sizes.py")
cs = importlib.util.module_from_spec(spec)
sys.modules["check_sizes"] = cs
spec.loader.exec_module(cs)


def scan_fixture(name):
    return cs.scan(name, (FIXTURES / name).read_text())


def sizes(findings, kind):
    return {f.name: (f.line, f.size) for f in findings if f.kind == kind}


class Functions(unittest.TestCase):
    def test_lines_run_from_the_declarations_first_line_to_the_closing_brace(self):
        found = sizes(scan_fixture("long.cpp"), "function")
        self.assertEqual(found["overLimit"], (6, 61))  # the signature's two lines count
        self.assertEqual(found["atLimit"], (68, 60))  # so does its template line

    def test_sixty_one_lines_offend_and_sixty_do_not(self):
        self.assertEqual([f.name for f in cs.offenders(scan_fixture("long.cpp"))], ["overLimit"])

    def test_a_lambda_is_a_function_and_lines_of_the_one_that_holds_it(self):
        found = sizes(scan_fixture("lambda.cpp"), "function")
        self.assertEqual(found["holder"], (11, 16))
        self.assertEqual(found["holder::step"], (12, 4))  # named after its variable
        self.assertEqual(found["holder::<lambda>"], (16, 3))  # an argument
        self.assertEqual(found["holder::nothing"], (19, 2))  # no parameter list
        self.assertEqual(found["kTwice"], (9, 1))  # at namespace scope

    def test_subscripts_and_attributes_are_not_lambdas(self):
        source = "int f(int* a) {\n  [[maybe_unused]] int b{};\n  a[0] = b;\n  return a[1];\n}\n"
        self.assertEqual([f.name for f in cs.scan("x.cpp", source)], ["f"])

    def test_methods_defined_in_a_class_are_functions_named_after_it(self):
        found = sizes(scan_fixture("methods.h"), "function")
        self.assertEqual(
            found,
            {
                "WithMethods::WithMethods": (14, 3),  # braces in its initialiser list
                "WithMethods::empty": (17, 1),
                "WithMethods::operator[]": (18, 3),
                "WithMethods::sum": (21, 5),  # trailing return type
                "WithMethods::Inner::deeper": (28, 3),
            },
        )

    def test_a_long_lambda_offends_alone(self):
        body = "".join(f"    x += {k};\n" for k in range(60))
        source = f"void f() {{\n  auto g = [](int x) {{\n{body}    return x;\n  }};\n}}\n"
        self.assertEqual([(f.name, f.size) for f in cs.offenders(cs.scan("x.cpp", source))],
                         [("f::g", 63), ("f", 65)])


class Classes(unittest.TestCase):
    def test_twenty_six_data_members_offend_and_twenty_five_do_not(self):
        found = scan_fixture("members.h")
        self.assertEqual(sizes(found, "class")["TooMany"], (16, 26))
        self.assertEqual(sizes(found, "class")["JustEnough"], (73, 25))
        self.assertEqual([f.name for f in cs.offenders(found)], ["TooMany"])

    def test_a_nested_class_counts_its_own_members(self):
        self.assertEqual(sizes(scan_fixture("members.h"), "class")["TooMany::Nested"], (21, 2))
        self.assertEqual(sizes(scan_fixture("methods.h"), "class")["WithMethods::Inner"], (26, 1))

    def test_methods_are_not_data_members(self):
        self.assertEqual(sizes(scan_fixture("methods.h"), "class")["WithMethods"], (10, 2))

    def test_what_a_declaration_declares(self):
        cases = {
            "int a, b = 2": 2,
            "std::map<int, std::vector<int>> m": 1,
            "std::function<void(int)> f": 1,
            "void (*fp)(int) = nullptr": 1,
            "int f(int) const": 0,
            "Foo& operator=(const Foo&) = delete": 0,
            "static constexpr int k = 1": 0,
            "inline static int n": 0,
            "using T = int": 0,
            "friend struct X": 0,
            "class Forward": 0,
            "private: int hidden": 1,
        }
        for statement, members in cases.items():
            with self.subTest(statement=statement):
                self.assertEqual(cs.data_members(statement), members)


class Literals(unittest.TestCase):
    def test_braces_in_comments_strings_raw_strings_and_macros_do_not_count(self):
        found = sizes(scan_fixture("literals.cpp"), "function")
        self.assertEqual(found, {"braces": (16, 10), "after": (27, 3)})

    def test_blanking_keeps_every_line(self):
        source = (FIXTURES / "literals.cpp").read_text()
        blanked = cs.blank(source)
        self.assertEqual(len(blanked), len(source))
        self.assertEqual(blanked.count("\n"), source.count("\n"))
        self.assertNotIn("json", blanked)
        self.assertEqual(blanked.count("{"), blanked.count("}"))

    def test_a_digit_separator_is_not_a_character_literal(self):
        self.assertEqual(cs.blank("x = 1'000; c = '{';"), "x = 1'000; c = ' ';")


class Check(unittest.TestCase):
    def run_check(self, allow_lines):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "sm" / "x").mkdir(parents=True)
            shutil.copy(FIXTURES / "long.cpp", root / "sm" / "x" / "long.cpp")
            shutil.copy(FIXTURES / "members.h", root / "sm" / "x" / "members.h")
            allow = root / "check-sizes.allow"
            allow.write_text("".join(line + "\n" for line in allow_lines))
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = cs.main(["--root", str(root), "--allow", str(allow)])
            return code, out.getvalue()

    def test_each_offender_is_printed_with_its_size_and_limit_and_fails(self):
        code, out = self.run_check([])
        self.assertEqual(code, 1)
        self.assertIn("sm/x/long.cpp:6: overLimit, 61 lines, limit 60\n", out)
        self.assertIn("sm/x/members.h:16: TooMany, 26 data members, limit 25\n", out)
        self.assertNotIn("atLimit", out)

    def test_the_allowlist_lets_what_it_names_pass_and_says_when_an_entry_is_stale(self):
        code, out = self.run_check([
            "# a comment line",
            "sm/x/long.cpp:overLimit  # who removes it",
            "sm/x/members.h:TooMany",
            "sm/x/long.cpp:atLimit",
            "sm/y/elsewhere.cpp:notScanned",
        ])
        self.assertEqual(code, 0)
        self.assertIn("sm/x/long.cpp:6: overLimit, 61 lines, limit 60 (allowed)", out)
        self.assertIn("names sm/x/long.cpp:atLimit, which is within the limits now", out)
        self.assertNotIn("notScanned", out)  # a file the run did not read

    def test_an_allowlist_entry_names_one_offender_only(self):
        code, out = self.run_check(["sm/x/long.cpp:overLimit"])
        self.assertEqual(code, 1)
        self.assertIn("sm/x/members.h:16: TooMany, 26 data members, limit 25\n", out)


if __name__ == "__main__":
    unittest.main()
