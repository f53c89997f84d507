#!/usr/bin/env python3
"""Runs every command example of README.md and man/*.5, man/*.8 (ctest DocExamples.run).

  run-doc-examples.py --ibsm path/to/ibsm --source-dir REPO [--list]

What an example is, and what a synopsis is, is said in doc_examples.py. Each
example runs with the freshly built ibsm first on PATH, under bash with
pipefail, in one scratch directory in the order of the docs, so a command
finds what the commands before it wrote, as a reader following the text
would; the scratch directory holds copies of the repository's docs/ and
conf/ and the files of INPUTS, which the examples name. Examples run in
three phases on one ibsim fabric (FABRIC, started by
tests/sm/ibsim/run-with-ibsim.sh):
  offline  everything that needs no SM (route, topo, partitions, draw -t ...)
  fabric   `ibsm run` (no other SM on the fabric yet)
  daemon   what talks to a running SM (status, sweep, health, metrics, draw
           without a topology, `pidof ibsm` ...), against `ibsm run` started
           by this script with the defaults but a counter pass every
           DAEMON_COUNTER_INTERVAL seconds, once the subnet is up and the first
           counter pass is over.
The whole run is in private mount and PID namespaces (unshare, as root): /run,
/var/lib and /tmp (MASKED) are empty tmpfs there (the directory of a clone in
/tmp bound back into it), and /etc/ibsm when it exists, so
the examples use the default paths as printed (/run/ibsm/ibsm.sock,
/var/lib/ibsm) without touching the machine, and `pidof ibsm` sees only
this run's daemon.

A pass is exit status 0; and where the text gives a figure beside an example
(FIGURES), the figure is read from the doc and from the example's output and
must be the same. An example in NOT_RUN is listed with its reason; one that
is neither run nor listed fails.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import doc_examples as de  # noqa: E402

DOCS = ["README.md", "man/ibsm.8", "man/ibsm.toml.5", "man/ibsm-partitions.conf.5"]
FABRIC = "tests/data/topologies/fat-tree-3level-k8.net"

# Files the examples name that no earlier example makes: scratch name ->
# the repository's file.
INPUTS = {
    "fabric.ibnetdiscover": "tests/data/topologies/fat-tree-3level-k8.ibnetdiscover",
    "fabric.net": "tests/data/topologies/fat-tree-3level-k8.net",
    "partitions.conf": "conf/partitions.conf",
}

# Examples not run here: the start of the command -> why.
NOT_RUN = {
    "scripts/demo.sh": "CI runs it: scripts/test.sh runs the demo from a fresh clone",
    "scripts/test.sh": "it is CI itself (.ci/run calls it) and runs this test",
    "scripts/build-deb.sh": "builds the package; scripts/package-check.sh builds and checks it",
    "apt-get install": "installs packages on the machine; scripts/package-check.sh installs "
                       "the .deb inside a sandboxed systemd",
    "systemctl enable": "needs systemd as PID 1 and a real HCA; scripts/package-check.sh "
                        "starts the units in a sandboxed systemd",
    "ibsm status --socket /run/ibsm/mlx5_0:1.sock": "the socket of ibsm@mlx5_0:1, a unit on a "
                                                   "host with that HCA",
    "curl -s localhost:9100/metrics": "needs prometheus-node-exporter serving the textfile",
}


@dataclass
class Figure:
    """Figures the text gives beside an example, read from both sides.

    Both regexes name their groups; the doc's and the output's must hold
    the same values under the same names (in whatever order each prints them).
    """
    doc: str
    text: str      # regex over the doc, its whitespace runs made single spaces
    command: str   # the example whose stdout gives them (or a substring of it)
    output: str | Callable[[str], dict[str, str] | None]  # regex over that stdout (re.S),
    # or a function that reads the figures from it


_ENTRIES_BLOCKS = (r"(?P<entries>\d+) of (?P<entries_of>\d+) entries \((?P<entries_pct>[\d.]+)%\)"
                   r" and (?P<blocks>\d+) of (?P<blocks_of>\d+) blocks \((?P<blocks_pct>[\d.]+)%\)"
                   r" on (?P<switches>\d+) switches")
_PREVIOUS_OUTPUT = (r"; (?P<switches>\d+) changed,.*?"
                    r"entries that differ: (?P<entries>\d+) of (?P<entries_of>\d+)"
                    r" \((?P<entries_pct>[\d.]+)%\).*?"
                    r"blocks that differ: (?P<blocks>\d+) of (?P<blocks_of>\d+)"
                    r" \((?P<blocks_pct>[\d.]+)%\)")
_DEFAULT_PARTITION = "ibsm partitions --topology fabric.ibnetdiscover"
_STABLE = "--guid2lid before/guid2lid -o after"
_FRESH = "--guid2lid before/guid2lid --rebalance -o fresh"

FIGURES = [
    Figure("README.md",
           r"On that tree \((?P<switches>\d+) switches, (?P<lids>\d+) LIDs;",
           _STABLE, r"fabric: (?P<switches>\d+) switches, \d+ CA ports, (?P<lids>\d+) destination"),
    Figure("README.md",
           r"keeping the routes that still hold as the live SM does, rewrites " + _ENTRIES_BLOCKS
           + r", and its busiest link goes from (?P<before>\d+) routes \(max/mean"
           r" (?P<before_ratio>[\d.]+)\) to (?P<after>\d+) \((?P<after_ratio>[\d.]+)\)",
           _STABLE, _PREVIOUS_OUTPUT
           + r".*?busiest link before: (?P<before>\d+) routes, mean [\d.]+, max/mean"
           r" (?P<before_ratio>[\d.]+).*?busiest link after: +(?P<after>\d+) routes, mean"
           r" [\d.]+, max/mean (?P<after_ratio>[\d.]+)"),
    Figure("man/ibsm-partitions.conf.5",
           r"prints one partition, 'Default' 0x7fff, with (?P<members>\d+) members \(128 hosts and"
           r" 80 switch ports 0\), (?P<full>\d+) of them full",
           _DEFAULT_PARTITION, lambda out: default_partition(out)),
    Figure("README.md", r"Routed afresh \(`--rebalance`\) it rewrites " + _ENTRIES_BLOCKS,
           _FRESH, _PREVIOUS_OUTPUT),
]

# The daemon's one setting off the defaults: a first counter pass within
# seconds rather than 180 (the health and metrics examples read its figures).
DAEMON_COUNTER_INTERVAL = 2

# Made empty for the run, so that the examples' default paths and absolute
# outputs stay in the run.
MASKED = ("/run", "/var/lib", "/tmp")

def default_partition(out: str) -> dict[str, str] | None:
    """`ibsm partitions` of one partition, 0x7fff: its members, and how many are full."""
    head = re.search(r"^partitions: 1;.*?^partition 'Default' 0x7fff: (\d+) members\n", out, re.S | re.M)
    if not head:
        return None
    rows = out[head.end():].split("\n\n", 1)[0].splitlines()
    return {"members": head.group(1), "full": str(sum(r.startswith("  full ") for r in rows))}


CONTROL = re.compile(r"\bibsm\s+(status|sweep|health|metrics|dump|log-level)\b|\bpidof\s+ibsm\b")
NEEDS_TOPOLOGY = re.compile(r"\bibsm\s+(draw|path)\b")
HAS_TOPOLOGY = re.compile(r"\s(-t|--topology)\s")
RUN = re.compile(r"\bibsm\s+run\b")


def phase(example: de.Example) -> str:
    c = de.without_comment(example.command)
    if CONTROL.search(c) or (NEEDS_TOPOLOGY.search(c) and not HAS_TOPOLOGY.search(c)):
        return "daemon"
    if RUN.search(c):
        return "fabric"
    return "offline"


PHASES = ("offline", "fabric", "daemon")


def phases(runs: list[de.Example]) -> list[str]:
    """Each example's phase; an offline one that follows, in its block, a
    daemon example runs with the daemon too (a block is one sequence: `ibsm
    dump -o DIR` then `ibsm route --guid2lid DIR/guid2lid` reads what the
    daemon example wrote). `ibsm run` always has the fabric to itself."""
    after_daemon: set[tuple[str, int]] = set()
    out = []
    for e in runs:
        key = (e.doc, e.block)
        own = phase(e)
        if own == "daemon":
            after_daemon.add(key)
        out.append("daemon" if own == "offline" and key in after_daemon else own)
    return out


def not_run_reason(example: de.Example) -> str | None:
    for start, why in NOT_RUN.items():
        if example.command.startswith(start):
            return why
    return None


def extract(source: Path) -> list[de.Example]:
    examples: list[de.Example] = []
    for doc in DOCS:
        text = (source / doc).read_text()
        found = (de.markdown_examples(doc, text) if doc.endswith(".md")
                 else de.man_examples(doc, text))
        examples += found
    return examples


def plan(source: Path) -> tuple[list[de.Example], list[str], int]:
    """The examples to run; the report lines of the others; problems found."""
    runs: list[de.Example] = []
    lines: list[str] = []
    problems = 0
    for e in extract(source):
        if de.is_synopsis(e.command):
            lines.append(f"synopsis  {e.where()}: {e.command}")
        elif (why := not_run_reason(e)) is not None:
            lines.append(f"not run   {e.where()}: {e.command}\n          ({why})")
        elif de.first_word(e.command) not in de.RUNNABLE_WORDS:
            lines.append(f"UNLISTED  {e.where()}: {e.command}\n          (neither run nor "
                         f"listed in NOT_RUN of {Path(__file__).name})")
            problems += 1
        else:
            runs.append(e)
    return runs, lines, problems


def same_figures(said: dict[str, str], printed: dict[str, str]) -> bool:
    """Each figure as the doc rounds it: "43.5" says 43.50 printed, "1,184" 1184."""
    def number(text: str) -> float:
        return float(text.replace(",", ""))
    if said.keys() != printed.keys():
        return False
    for key, text in said.items():
        decimals = len(text.split(".", 1)[1]) if "." in text else 0
        if round(number(printed[key]), decimals) != number(text):
            return False
    return True


def check_figures(source: Path, outputs: dict[str, str]) -> int:
    failed = 0
    for f in FIGURES:
        doc_text = re.sub(r"\s+", " ", (source / f.doc).read_text())
        said = re.search(f.text, doc_text)
        if not said:
            print(f"FAIL figure: {f.doc} no longer says /{f.text}/ (update FIGURES)")
            failed += 1
            continue
        out = outputs.get(f.command, next((o for c, o in outputs.items() if f.command in c), None))
        if out is None:
            print(f"FAIL figure: no example ran with '{f.command}'")
            failed += 1
            continue
        got = (f.output(out) if callable(f.output) else
               (m.groupdict() if (m := re.search(f.output, out, re.S)) else None))
        if not got or not same_figures(said.groupdict(), got):
            print(f"FAIL figure: {f.doc} says {said.groupdict()}; the command printed "
                  f"{got or 'no such figure'}")
            failed += 1
        else:
            print(f"ok   figure: {said.group(0)}")
    return failed


def run_one(e: de.Example, env: dict[str, str], cwd: Path) -> tuple[bool, str]:
    started = time.monotonic()
    try:
        p = subprocess.run(["bash", "-c", "set -o pipefail\n" + e.command], cwd=cwd, env=env,
                           capture_output=True, text=True, timeout=240)
        ok, out, err, rc = p.returncode == 0, p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as t:
        ok, out, err, rc = False, str(t.stdout or ""), "timed out after 240 s", "timeout"
    took = time.monotonic() - started
    print(f"{'ok  ' if ok else 'FAIL'} {e.where()} ({took:.1f} s): {e.command}")
    if not ok:
        print(f"     exit {rc}; stderr:\n" + "\n".join("     " + x for x in err.splitlines()[-15:]))
    return ok, out


def wait_daemon(env: dict[str, str], cwd: Path, deadline_s: float) -> str | None:
    """Waits for the subnet up and a first counter pass; returns why not, or None."""
    end = time.monotonic() + deadline_s
    last = ""
    while time.monotonic() < end:
        p = subprocess.run(["ibsm", "status", "--json"], cwd=cwd, env=env, capture_output=True,
                           text=True)
        if p.returncode == 0:
            last = p.stdout
            s = json.loads(p.stdout)
            counters = (s.get("health") or {}).get("counters") or {}
            if s.get("up") and counters.get("passes", 0) > 0:
                return None
        time.sleep(0.5)
    return f"the daemon was not up with a counter pass after {deadline_s:.0f} s: {last[:400]}"


def inner(args: argparse.Namespace) -> int:
    """In the namespaces, under ibsim: runs the examples in the current directory."""
    source = Path(args.source_dir)
    cwd = Path.cwd() / "examples"
    cwd.mkdir()
    for d in ("docs", "conf"):
        shutil.copytree(source / d, cwd / d)
    for name, path in INPUTS.items():
        shutil.copy(source / path, cwd / name)
    env = dict(os.environ)
    env["PATH"] = str(Path(args.ibsm).resolve().parent) + os.pathsep + env["PATH"]

    runs, lines, problems = plan(source)
    for line in lines:
        print(line)
    failed, passed = problems, 0
    outputs: dict[str, str] = {}
    ran_in = phases(runs)
    for name in PHASES:
        todo = [e for e, p in zip(runs, ran_in) if p == name]
        print(f"--- {name}: {len(todo)} examples")
        daemon = None
        if name == "daemon" and todo:
            log = open(cwd / "daemon.log", "w")
            config = cwd / "daemon-for-examples.toml"
            config.write_text(f"[health]\ncounter_interval = {DAEMON_COUNTER_INTERVAL}\n")
            daemon = subprocess.Popen(["ibsm", "run", "--config", str(config)], cwd=cwd, env=env, stdout=log,
                                      stderr=subprocess.STDOUT)
            why = wait_daemon(env, cwd, 120)
            if why:
                print("FAIL " + why)
                failed += len(todo)
                todo = []
        for e in todo:
            ok, out = run_one(e, env, cwd)
            outputs[e.command] = out
            passed += ok
            failed += not ok
        if daemon is not None:
            daemon.terminate()
            try:
                daemon.wait(timeout=20)
            except subprocess.TimeoutExpired:
                daemon.kill()
            if failed:
                print("--- daemon log (last lines)")
                print("\n".join((cwd / "daemon.log").read_text().splitlines()[-20:]))
    figures_failed = check_figures(source, outputs)
    print(f"{passed + len(FIGURES) - figures_failed} passed, {failed + figures_failed} failed")
    return 0 if failed + figures_failed == 0 else 1


def in_namespace(args: argparse.Namespace) -> int:
    """Root of private mount and PID namespaces: empty /run, /var/lib, /tmp; then ibsim.

    A directory that holds the sources or ibsm (a clone in /tmp) is bound back
    into the empty one.
    """
    source = Path(args.source_dir)
    needed = [source.resolve(), Path(args.ibsm).resolve()]
    for d in MASKED + (("/etc/ibsm",) if Path("/etc/ibsm").is_dir() else ()):
        # What the run needs under d (a clone in /tmp) is bound back into the
        # empty d through a descriptor opened before d was covered, so the
        # examples still never see, nor write into, the machine's d.
        kept = sorted({Path(d) / p.relative_to(d).parts[0]
                       for p in needed if p.is_relative_to(d) and p != Path(d)})
        fds = [os.open(k, os.O_PATH | os.O_DIRECTORY) for k in kept]
        subprocess.run(["mount", "-t", "tmpfs", "doc-examples", d], check=True)
        for k, fd in zip(kept, fds):
            k.mkdir()
            # --no-canonicalize: mount(8) would resolve the link to the covered path.
            subprocess.run(["mount", "--no-canonicalize", "--bind", f"/proc/self/fd/{fd}", str(k)],
                           check=True,
                           pass_fds=(fd,))
            os.close(fd)
    return subprocess.run([str(source / "tests/sm/ibsim/run-with-ibsim.sh"), str(source / FABRIC),
                           "--", sys.executable, __file__, "--inner", "--ibsm", args.ibsm,
                           "--source-dir", args.source_dir]).returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ibsm", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--list", action="store_true", help="print the plan and run nothing")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--namespace", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.ibsm = str(Path(args.ibsm).resolve())
    args.source_dir = str(Path(args.source_dir).resolve())
    if args.inner:
        return inner(args)
    if args.namespace:
        return in_namespace(args)
    if args.list:
        runs, lines, problems = plan(Path(args.source_dir))
        for line in lines:
            print(line)
        for e, p in zip(runs, phases(runs)):
            print(f"{p:9} {e.where()}: {e.command}")
        return 1 if problems else 0
    if os.geteuid() != 0:
        print("the examples run in mount and PID namespaces of their own: run this as root",
              file=sys.stderr)
        return 2
    if shutil.which("unshare") is None:
        print("unshare (util-linux) is needed to run the examples in namespaces", file=sys.stderr)
        return 2
    return subprocess.run(["unshare", "--mount", "--pid", "--fork", "--mount-proc",
                           sys.executable, __file__, "--namespace", "--ibsm", args.ibsm,
                           "--source-dir", args.source_dir]).returncode


if __name__ == "__main__":
    sys.exit(main())
