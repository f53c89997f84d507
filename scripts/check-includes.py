#!/usr/bin/env python3
"""The include rules of the tree's layout, checked in CI as ctest IncludeRule.

1. The pure side never includes the wire side: no file under routing/,
   partition/, qos/ or include/ibsm includes a header of sm/ (the dry run builds
   without sm/; sm/ builds on routing/ and partition/, never the reverse).
2. include/ holds what the dry run and the live SM share (issue 28): every
   header of include/ibsm is included by a file under routing/, partition/ or qos/,
   or by an include/ibsm header that is. A contract only sm/ uses (the MAD
   engine and transport, GMPs, the SA's MADs and records, PerfMgt counters)
   lives under sm/ beside its code.

Prints each breach as `file:line: what` (or `file: what`) and exits 1 when
there is one.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

PURE = ("routing", "partition", "qos")
CONTRACTS = Path("include") / "ibsm"
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.M)
_SOURCES = (".h", ".cpp", ".hpp", ".cc")


def includes(text: str) -> list[tuple[int, str, str]]:
    """(line, kind, path) of each #include: kind '<' or '"'."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2))
            for m in _INCLUDE.finditer(text)]


def sources(root: Path, folder: Path) -> list[Path]:
    full = root / folder
    return sorted(p for p in full.rglob("*") if p.suffix in _SOURCES and p.is_file())


def contract_name(kind: str, path: str) -> str | None:
    """The include/ibsm header an include names (`<ibsm/Fabric.h>`), else None."""
    return path[len("ibsm/"):] if kind == "<" and path.startswith("ibsm/") else None


def check(root: Path) -> list[str]:
    problems = []
    pure_files = [p for folder in PURE for p in sources(root, Path(folder))]
    contract_files = sources(root, CONTRACTS)
    needed: set[str] = set()
    for path in pure_files + contract_files:
        rel = path.relative_to(root).as_posix()
        for line, kind, name in includes(path.read_text(errors="replace")):
            if kind == '"' and name.startswith("sm/"):
                problems.append(f"{rel}:{line}: includes {name}: the pure side never includes sm/")
            contract = contract_name(kind, name)
            if contract and path in pure_files:
                needed.add(contract)
    # What the needed contracts include is needed too.
    by_name = {p.relative_to(root / CONTRACTS).as_posix(): p for p in contract_files}
    pending = list(needed)
    while pending:
        header = by_name.get(pending.pop())
        if header is None:
            continue
        for _, kind, name in includes(header.read_text(errors="replace")):
            contract = contract_name(kind, name)
            if contract and contract not in needed:
                needed.add(contract)
                pending.append(contract)
    for name, path in sorted(by_name.items()):
        if name not in needed:
            problems.append(
                f"{path.relative_to(root).as_posix()}: no file of routing/, partition/ or qos/ needs it: "
                "a contract only sm/ uses lives under sm/")
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=Path(__file__).resolve().parent.parent, type=Path)
    args = parser.parse_args(argv)
    problems = check(args.root)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
