"""What counts as a command example in ibsm's docs, and which of them run.

The rules (run-doc-examples.py applies them; doc-examples-test.py checks them):

Where examples are
  README.md: fenced blocks. In ```sh, ```bash and ```shell blocks every line
  is a command (a line that is only a comment is not; a line ending in a
  backslash goes on on the next). In any other fenced block (```console,
  untagged, ...) only lines that start with "$ " are commands: the rest is
  what they print.
  man/*.5, man/*.8: the lines between .nf and .fi (or .EX and .EE) that start
  with "$ " or whose first word is a command: `ibsm`, a script path
  (scripts/..., ./...) or a word of COMMAND_WORDS. The other lines of such
  blocks are output, file contents or syntax.

Synopses are not examples
  A command line is a usage synopsis when, outside its quoted strings, it
  has an optional part in brackets ("[--json]", "[RADIX]"), a placeholder in
  capitals ("FILE", "DIR", "N"), an alternative inside one word
  ("dragonfly|dragonfly-plus") or an elision ("..."). Synopses are listed,
  not run.

Every example runs, or is listed in NOT_RUN with the reason; an example whose
first word is not a command this machine runs (RUNNABLE_WORDS) and that is
not listed fails the test, so an example cannot slip past.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Commands an example may start with in a man page block (beside ibsm and
# script paths). Words that only ever start output or file lines ("state:",
# "name =") are not here.
COMMAND_WORDS = {
    "apt-get", "curl", "dump_fts", "ibnetdiscover", "ibqueryerrors", "ibroute",
    "ibsim", "ibtracert", "jq", "journalctl", "kill", "node_exporter", "opensm",
    "perfquery", "saquery", "smpquery", "systemctl",
}

# First words the harness can run here: ibsm itself and the tools the
# bundled fabric answers or that read files.
RUNNABLE_WORDS = {"ibsm", "jq", "grep", "kill", "cat", "ls", "cmp", "opensm", "ibnetdiscover",
                  "ibroute", "dump_fts", "ibtracert", "smpquery", "perfquery",
                  "ibqueryerrors", "saquery"}


@dataclass
class Example:
    doc: str       # README.md, man/ibsm.8, ...
    line: int      # 1-based line of its first line in the doc
    command: str   # as a shell runs it (continuations joined, troff unescaped)
    block: int = 0  # line of the block it stands in: a block's examples are one sequence

    def where(self) -> str:
        return f"{self.doc}:{self.line}"


_TROFF_ESCAPES = [
    (r"\(dq", '"'), (r"\(aq", "'"), (r"\(cq", "'"), (r"\(oq", "'"),
    (r"\(lq", '"'), (r"\(rq", '"'), (r"\(em", "--"), (r"\(en", "-"),
    (r"\-", "-"), (r"\&", ""), (r"\e", "\\"), (r"\ ", " "), (r"\~", " "),
]


def unescape_troff(text: str) -> str:
    text = re.sub(r"\\f[BIRP]|\\f\(..|\\f\[[^]]*\]", "", text)
    for escape, plain in _TROFF_ESCAPES:
        text = text.replace(escape, plain)
    return text


def _join_continued(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Joins lines that end in a backslash with the next; keeps the first line number."""
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for number, text in lines:
        if pending is not None:
            number, text = pending[0], pending[1] + " " + text.strip()
            pending = None
        if text.rstrip().endswith("\\"):
            pending = (number, text.rstrip()[:-1].rstrip())
            continue
        out.append((number, text))
    if pending is not None:
        out.append(pending)
    return out


def _is_comment(text: str) -> bool:
    return text.strip().startswith("#") or not text.strip()


def markdown_examples(doc: str, text: str) -> list[Example]:
    examples: list[Example] = []
    fence: str | None = None   # the info string of the open block
    block: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("```"):
            if fence is None:
                fence = stripped[3:].strip().lower()
                block = []
                continue
            examples += _block_examples(doc, fence, block, number)
            fence = None
            continue
        if fence is not None:
            block.append((number, line))
    return examples


def _block_examples(doc: str, fence: str, block: list[tuple[int, str]],
                    end: int) -> list[Example]:
    if fence in ("sh", "bash", "shell"):
        lines = [(n, t) for n, t in block if not _is_comment(t)]
        return [Example(doc, n, t.strip(), end) for n, t in _join_continued(lines)]
    prompted = [(n, t.strip()[2:]) for n, t in block if t.strip().startswith("$ ")]
    return [Example(doc, n, t.strip(), end) for n, t in _join_continued(prompted)]


def _starts_a_command(text: str) -> bool:
    words = text.split()
    if not words:
        return False
    first = words[0]
    return (first == "ibsm" or first.startswith(("scripts/", "./")) or
            first in COMMAND_WORDS)


def man_examples(doc: str, text: str) -> list[Example]:
    examples: list[Example] = []
    in_block = False
    block: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        request = raw.strip()
        if request in (".nf", ".EX"):
            in_block, block = True, []
            continue
        if request in (".fi", ".EE"):
            in_block = False
            lines = [(n, unescape_troff(t)) for n, t in block if not t.startswith(".")]
            commands = []
            joined = _join_continued(lines)
            for n, t in joined:
                t = t.strip()
                if t.startswith("$ "):
                    commands.append((n, t[2:].strip()))
                elif _starts_a_command(t):
                    commands.append((n, t))
            examples += [Example(doc, n, t, number) for n, t in commands]
            continue
        if in_block:
            block.append((number, raw))
    return examples


def _outside_quotes(command: str) -> str:
    return re.sub(r"'[^']*'|\"[^\"]*\"", "''", command)


def without_comment(command: str) -> str:
    """The command without a trailing shell comment (" #" outside quotes)."""
    quote = ""
    for i, ch in enumerate(command):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or command[i - 1] in " \t"):
            return command[:i].rstrip()
    return command


def is_synopsis(command: str) -> bool:
    bare = _outside_quotes(without_comment(command))
    bare = re.sub(r"\$\([^)]*\)", "", bare)  # a command substitution is no synopsis
    if re.search(r"\[[^\]\s]*[-A-Z]", bare):  # [--json], [RADIX], [-o FILE]
        return True
    for word in bare.split():
        if word == "...":
            return True
        if "|" in word and word != "|" and word != "||":
            return True
        if re.fullmatch(r"[A-Z][A-Z0-9_]*", word.strip("[]")):
            return True
    return False


def first_word(command: str) -> str:
    words = command.split()
    return words[0] if words else ""
