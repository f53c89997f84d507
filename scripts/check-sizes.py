#!/usr/bin/env python3
"""Size limits of sm/ (issue 28), checked in CI as ctest SizeCheck.

No function in sm/ longer than 60 lines, from the line its declaration opens
(template and attributes included) to its closing brace; lambdas count as
functions of their own and inside the function that holds them. No class,
struct or union in sm/ with more than 25 data members: non-static data
members, whatever access section declares them; methods, nested types,
using, typedef, friend, static members and static_assert are not members,
and a nested class's members are its own, not its enclosing class's.

Why a scanner and not clang-tidy's readability-function-size: clang-tidy-19
takes about 12 s a file here (scripts/lint.sh; 55 s for sm/program/PortDiff.cpp
alone on a busy build box), so 13 minutes or more for sm/'s 126 .cpp files on
CI's two cores, and it counts no data members; this reads sm/ in under a
second of CPU. It is not a C++
parser: it strips comments, string, character and raw string literals and
preprocessor lines, then follows braces, deciding what each one opens from
the text before it. What it cannot know (macros that hide braces, `#if`
branches) does not occur in sm/; the scanner's own test
(tests/scripts/check-sizes-test.py) shows the cases it does handle.

Prints each offender as `file:line: name, N lines, limit 60` (or `N data
members, limit 25`) and exits 1 when there is one that the allowlist
(scripts/check-sizes.allow: `path:name` a line) does not name.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

MAX_FUNCTION_LINES = 60
MAX_DATA_MEMBERS = 25


# --- Blanking what braces inside text must not count -------------------------


def blank(source: str) -> str:
    """The source with comments, literals' contents and preprocessor lines
    replaced by spaces; newlines are kept, so offsets keep their lines."""
    out = list(source)
    n = len(source)
    i = 0
    line_start = True  # only whitespace since the last newline

    def wipe(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = source[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if line_start and c == "#":
            j = i
            while j < n and source[j] != "\n":
                if source[j] == "\\" and j + 1 < n and source[j + 1] == "\n":
                    j += 2
                    continue
                if source.startswith("/*", j):  # a block comment may run on
                    end = source.find("*/", j + 2)
                    j = n if end < 0 else end + 2
                    continue
                j += 1
            wipe(i, j)
            i = j
            continue
        line_start = False
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            wipe(i, j)
            i = j
        elif c == '"':
            raw = _raw_string_prefix(source, i)
            if raw is not None:
                close = ")" + raw + '"'
                j = source.find(close, i + 1)
                j = n if j < 0 else j + len(close)
            else:
                j = _literal_end(source, i, '"')
            wipe(i + 1, j - 1)
            i = j
        elif c == "'" and not _digit_separator(source, i):
            j = _literal_end(source, i, "'")
            wipe(i + 1, j - 1)
            i = j
        else:
            i += 1
    return "".join(out)


def _raw_string_prefix(s: str, quote: int) -> str | None:
    """The delimiter when the quote at `quote` opens a raw string (R"d( ),
    u8R"d(, LR"d( ...), else None."""
    m = re.search(r"(?:^|[^\w])(?:u8|u|U|L)?R$", s[max(0, quote - 4) : quote])
    if not m:
        return None
    paren = s.find("(", quote)
    if paren < 0 or paren - quote > 17:
        return None
    return s[quote + 1 : paren]


def _literal_end(s: str, start: int, quote: str) -> int:
    j = start + 1
    while j < len(s):
        if s[j] == "\\":
            j += 2
            continue
        if s[j] == quote or s[j] == "\n":
            return j + 1
        j += 1
    return len(s)


def _digit_separator(s: str, i: int) -> bool:
    """True for the ' of 1'000'000: inside a number, not a character literal."""
    j = i
    while j > 0 and (s[j - 1].isalnum() or s[j - 1] in "_'."):
        j -= 1
    return j < i and s[j].isdigit()


# --- What a brace opens -------------------------------------------------------

_ATTRIBUTE = re.compile(r"\[\[.*?\]\]|\balignas\s*\([^()]*\)|__attribute__\s*\(\(.*?\)\)", re.S)
_ACCESS = re.compile(r"^\s*(?:public|protected|private)\s*:(?!:)")
_NAMESPACE = re.compile(r"^(?:inline\s+)?namespace\b|^extern\s*\"[^\"]*\"$")
_ENUM = re.compile(r"^(?:typedef\s+)?enum\b")
_CLASS = re.compile(r"^(?:typedef\s+)?(class|struct|union)\b(.*)$", re.S)
_SPECIFIERS = re.compile(
    r"(?:\s*(?:const|volatile|&&|&|override|final|mutable|constexpr|consteval|try"
    r"|noexcept(?:\s*\((?:[^()]|\([^()]*\))*\))?|->[^;{}]*|requires[^;{}]*))*\s*$",
    re.S,
)
_NAME_BEFORE_PARAMS = re.compile(
    r"((?:[A-Za-z_~][\w]*(?:<[^;{}()]*>)?::)*"
    r"(?:operator\s*(?:\(\)|\[\]|[^\w\s(]+|\w[\w\s:<>*&]*)|~?[A-Za-z_]\w*))\s*(?:<[^;{}()]*>)?\s*$"
)
_CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof"}


def _strip_templates(head: str) -> str:
    """`template <...>` prefixes removed (angle brackets may nest)."""
    while True:
        m = re.match(r"\s*template\s*<", head)
        if not m:
            return head.strip()
        depth, j = 1, m.end()
        while j < len(head) and depth:
            depth += {"<": 1, ">": -1}.get(head[j], 0)
            j += 1
        head = head[j:]


def _normalise(head: str) -> str:
    head = _ATTRIBUTE.sub(" ", head)
    while True:
        m = _ACCESS.match(head)
        if not m:
            break
        head = head[m.end() :]
    return _strip_templates(head)


def _top_level_groups(text: str) -> list[tuple[int, int]]:
    """Spans of the top-level ( ) groups of `text` (brace groups skipped)."""
    groups, depth, brace, start = [], 0, 0, 0
    for k, c in enumerate(text):
        if c == "{":
            brace += 1
        elif c == "}":
            brace -= 1
        elif brace:
            continue
        elif c == "(":
            if depth == 0:
                start = k
            depth += 1
        elif c == ")" and depth:
            depth -= 1
            if depth == 0:
                groups.append((start, k + 1))
    return groups


def _tidy_name(name: str) -> str:
    """One spelling of a name however it was spaced: `operator bool`, `a::b<int>`."""
    name = re.sub(r"\s+", " ", name).strip()
    return re.sub(r"\s*(::|<|>|,|\*|&)\s*", r"\1", name)


def class_head(head: str) -> str | None:
    """The class's name ('' when unnamed) when `head` opens a class body."""
    h = _normalise(head)
    m = _CLASS.match(h)
    if not m:
        return None
    rest = re.split(r"(?<!:):(?!:)", m.group(2), maxsplit=1)[0]
    if "(" in rest or "=" in rest:
        return None
    return _tidy_name(re.sub(r"\bfinal\b", "", rest))


def function_head(head: str) -> tuple[str, bool] | None:
    """(name, is_body) when `head` is a function's declaration: is_body is
    False while a constructor's member initialiser list still opens a brace
    of its own (`: a_{1}`)."""
    h = _normalise(head)
    if not h or _CLASS.match(h) or _ENUM.match(h) or _NAMESPACE.match(h):
        return None
    for start, end in _top_level_groups(h):
        m = _NAME_BEFORE_PARAMS.search(h[:start])
        if not m or m.group(1) in _CONTROL:
            continue
        before = h[: m.start()]
        if "=" in before.replace("==", "").replace("operator=", ""):
            continue  # a variable initialised from a call
        tail = h[end:]
        if _SPECIFIERS.fullmatch(tail):
            return _tidy_name(m.group(1)), True
        init = re.match(r"(?:\s*noexcept(?:\s*\([^()]*\))?)?\s*:(?!:)(.*)$", tail, re.S)
        if init:
            last = init.group(1).rstrip()
            return _tidy_name(m.group(1)), last.endswith((")", "}"))
    return None


def lambda_head(head: str) -> tuple[str, int] | None:
    """(name, offset of its `[`) when `head` ends with a lambda's introducer:
    [captures](params) specifiers, or [captures] alone. The name is the
    variable it initialises, else ''."""
    h = _ATTRIBUTE.sub(lambda m: " " * len(m.group(0)), head)
    spec = re.search(
        r"(?:\s*(?:mutable|constexpr|noexcept(?:\s*\([^()]*\))?|->\s*[\w:<>,\s*&]+))*\s*$", h
    )
    k = _skip_back_space(h, spec.start() if spec else len(h))
    if k > 0 and h[k - 1] == ")":
        k = _match_back(h, k - 1, "(", ")")
        if k < 0:
            return None
        k = _skip_back_space(h, k)
    if k == 0 or h[k - 1] != "]":
        return None
    start = _match_back(h, k - 1, "[", "]")
    if start < 0 or (start > 0 and h[start - 1] == "[") or h[start + 1 : start + 2] == "[":
        return None
    before = h[:start].rstrip()
    word = re.search(r"\w+$", before)
    if word and word.group(0) not in ("return", "co_return", "co_yield", "throw"):
        return None  # a subscript, not a capture list
    if before.endswith((")", "]", ">")) and not before.endswith("->"):
        return None
    m = re.search(r"([A-Za-z_]\w*)\s*(?:\{\})?\s*=$", before)
    return (m.group(1) if m else ""), start


def _skip_back_space(s: str, k: int) -> int:
    while k > 0 and s[k - 1].isspace():
        k -= 1
    return k


def _match_back(s: str, close_at: int, open_: str, close: str) -> int:
    depth = 0
    for k in range(close_at, -1, -1):
        if s[k] == close:
            depth += 1
        elif s[k] == open_:
            depth -= 1
            if depth == 0:
                return k
    return -1


# --- Data members -------------------------------------------------------------

_NOT_A_MEMBER = re.compile(
    r"^(?:using|typedef|friend|static_assert|template|enum|namespace)\b|\bstatic\b|\boperator\b"
)


def data_members(statement: str) -> int:
    """How many non-static data members a class-scope declaration declares."""
    s = _normalise(statement)
    if not s or _NOT_A_MEMBER.search(s):
        return 0
    if _CLASS.match(s) and "{}" not in s:
        return 0  # a forward declaration: class X;
    while True:  # template arguments out, innermost first
        t = re.sub(r"<[^<>;{}]*>", "", s)
        if t == s:
            break
        s = t
    count = 0
    for declarator in _split_top_level(s, ","):
        name = re.split(r"(?<![=!<>])=(?!=)", declarator, maxsplit=1)[0]
        if "(" in name and not re.search(r"\(\s*[*&]", name):
            return 0  # a function's declaration
        if re.search(r"\w", name):
            count += 1
    return count


def _split_top_level(s: str, sep: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for c in s:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


# --- The walk -----------------------------------------------------------------


@dataclass
class Finding:
    path: str
    line: int
    kind: str  # "function" or "class"
    name: str
    size: int

    @property
    def limit(self) -> int:
        return MAX_FUNCTION_LINES if self.kind == "function" else MAX_DATA_MEMBERS

    def __str__(self) -> str:
        unit = "lines" if self.kind == "function" else "data members"
        return f"{self.path}:{self.line}: {self.name}, {self.size} {unit}, limit {self.limit}"


@dataclass
class _Scope:
    kind: str  # namespace, class, function, block, init
    name: str = ""
    line: int = 0
    continues: bool = False  # its closing brace does not end the parent's statement
    buf: list = field(default_factory=list)  # the statement so far, nested braces as {}
    pos: list = field(default_factory=list)  # each character's offset in the source
    members: int = 0
    anonymous_members: int = 0  # of an unnamed nested class, until its `;`

    def add(self, text: str, at: int) -> None:
        self.buf.extend(text)
        self.pos.extend([at] * len(text))

    def clear(self) -> None:
        self.buf.clear()
        self.pos.clear()

    def statement(self) -> str:
        return "".join(self.buf)


class _Walk:
    def __init__(self, path: str, source: str):
        self.path = path
        self.text = blank(source)
        self.line_at = []
        line = 1
        for c in self.text:
            self.line_at.append(line)
            line += c == "\n"
        self.found: list[Finding] = []
        self.stack = [_Scope("namespace")]

    def run(self) -> list[Finding]:
        for i, c in enumerate(self.text):
            top = self.stack[-1]
            if c == "{":
                self.open(i)
            elif c == "}":
                self.close(i)
            elif c == ";":
                self.end_statement(top)
            elif top.buf or not c.isspace():
                top.add(c, i)
                if c == ":" and top.kind == "class" and _ACCESS.match(top.statement()):
                    top.clear()
        return self.found

    def qualified(self, name: str) -> str:
        """`name` after the innermost named class or function around it
        (whose own name is already qualified)."""
        outer = [s.name for s in self.stack if s.kind in ("class", "function") and s.name]
        return "::".join(outer[-1:] + [name])

    def open(self, i: int) -> None:
        top = self.stack[-1]
        head = top.statement()
        line = self.line_at[top.pos[0] if top.pos else i]
        if top.kind in ("namespace", "class"):
            scope = self.classify_declaration(head, line)
        else:
            scope = self.classify_inner(head, line)
        self.stack.append(scope)

    def classify_declaration(self, head: str, line: int) -> _Scope:
        if _NAMESPACE.match(_normalise(head)):
            return _Scope("namespace")
        name = class_head(head)
        if name is not None:
            return _Scope("class", self.qualified(name) if name else "", line)
        if _ENUM.match(_normalise(head)):
            return _Scope("init", continues=True)
        fn = function_head(head)
        if fn is not None:
            name, is_body = fn
            if is_body:
                return _Scope("function", self.qualified(name), line)
            return _Scope("init", continues=True)
        return self.classify_inner(head, line)

    def classify_inner(self, head: str, line: int) -> _Scope:
        lam = lambda_head(head)
        if lam is not None:
            start = self.line_at[self.stack[-1].pos[lam[1]]]
            return _Scope("function", self.qualified(lam[0] or "<lambda>"), start, continues=True)
        last = head.rsplit("{}", 1)[-1]
        name = class_head(last)
        if name is not None and self.stack[-1].kind not in ("namespace", "class"):
            return _Scope("class", self.qualified(name) if name else "", line)
        if self.stack[-1].kind in ("namespace", "class"):
            return _Scope("init", continues=True)
        return _Scope("block", continues=True)

    def close(self, i: int) -> None:
        scope = self.stack.pop()
        if not self.stack:  # a stray brace: start again at file scope
            self.stack.append(_Scope("namespace"))
        parent = self.stack[-1]
        if scope.kind == "function":
            size = self.line_at[i] - scope.line + 1
            self.found.append(Finding(self.path, scope.line, "function", scope.name, size))
        elif scope.kind == "class":
            if scope.name:
                self.found.append(Finding(self.path, scope.line, "class", scope.name, scope.members))
            else:
                parent.anonymous_members = scope.members
        if scope.continues:
            parent.add("{}", i)
        elif scope.kind == "class":  # declarators may follow: } a, b;
            parent.clear()
            parent.add("{}", i)
        else:
            parent.clear()

    def end_statement(self, top: _Scope) -> None:
        if top.kind == "class":
            statement = top.statement().strip()
            if statement.startswith("{}"):  # after a nested class body
                declarators = statement[2:]
                if re.search(r"\w", declarators):
                    top.members += len(_split_top_level(declarators, ","))
                else:
                    top.members += top.anonymous_members
            else:
                top.members += data_members(statement)
            top.anonymous_members = 0
        top.clear()


def scan(path: str, source: str) -> list[Finding]:
    """Every function's length and every class's member count in `source`."""
    return _Walk(path, source).run()


# --- The check ----------------------------------------------------------------


def read_allowlist(path: Path) -> set[str]:
    allowed = set()
    if path.exists():
        for raw in path.read_text().splitlines():
            entry = raw.split("#", 1)[0].strip()
            if entry:
                allowed.add(entry)
    return allowed


def offenders(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.size > f.limit]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=["sm"], help="folders or files (default sm)")
    parser.add_argument("--root", default=Path(__file__).resolve().parent.parent, type=Path)
    parser.add_argument("--allow", type=Path, help="allowlist (default scripts/check-sizes.allow)")
    args = parser.parse_args(argv)
    root = args.root
    allow_file = args.allow or root / "scripts" / "check-sizes.allow"
    allowed = read_allowlist(allow_file)
    files = []
    for p in args.paths:
        full = root / p
        files += sorted(full.rglob("*")) if full.is_dir() else [full]
    failing, allowed_seen, scanned = [], set(), set()
    for f in files:
        if f.suffix not in (".h", ".cpp", ".hpp", ".cc") or not f.is_file():
            continue
        rel = f.relative_to(root).as_posix()
        scanned.add(rel)
        for found in offenders(scan(rel, f.read_text(errors="replace"))):
            key = f"{rel}:{found.name}"
            if key in allowed:
                allowed_seen.add(key)
                print(f"{found} (allowed)")
            else:
                failing.append(found)
    for key in sorted(k for k in allowed - allowed_seen if k.split(":", 1)[0] in scanned):
        print(f"note: {allow_file.name} names {key}, which is within the limits now: remove it")
    for found in failing:
        print(found)
    if failing:
        print(f"{len(failing)} over the limits (functions {MAX_FUNCTION_LINES} lines, "
              f"classes {MAX_DATA_MEMBERS} data members)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
