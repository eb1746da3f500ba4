"""Suppression comments, and JAX002 for the ones that suppress nothing.

- ``# noqa`` / ``# noqa: JAX201, JAX301`` at the end of the reported line;
- ``# jaxlint: ignore[JAX201]`` on its own line: the next statement, all of its lines;
- ``# jaxlint: noqa`` / ``# jaxlint: noqa: JAX201`` on its own line: the whole file.

Directives are read from the comment tokens of the stdlib tokenizer, never by searching
the text: ``"# noqa: JAX801"`` in a string or a docstring is data, not a suppression (and
JAX002's fix, which deletes a comment, must never edit a string). A directive that is
malformed (no codes, a rule name instead of a code, text after the codes) is kept as a
``Malformed`` record; the run turns it into a warning, as ruff does.
"""

from __future__ import annotations

import bisect
import functools
import re
import tokenize
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from jaxlint.base.statements import split_lines
from jaxlint.base.types import Diagnostic, Edit, Fix, Position

_CODE = re.compile(r"[A-Za-z]+[0-9]+")
_CODES = re.compile(r"[A-Za-z]+[0-9]+(?:(?:\s*,\s*|\s+)[A-Za-z]+[0-9]+)*\s*,?")
_RULE_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")
_NOQA = re.compile(r"#\s*noqa(?![\w-])", re.IGNORECASE)
_JAXLINT = re.compile(r"#\s*jaxlint\s*:\s*(?P<word>[\w-]*)")


@dataclass(slots=True)
class Comment:
    line: int
    start: int  # 1-based column of '#'
    end: int  # 1-based column just past the comment
    codes: frozenset[str] | None  # None = every code
    kind: str  # "noqa" | "ignore" | "file"
    first: int = 0  # lines covered (for "ignore": the next statement)
    last: int = 0
    used: set[str] = field(default_factory=set)


@dataclass(slots=True)
class Malformed:
    """A directive that is not what it looks like: ``problem`` is "codes" (none given),
    "name" (``detail`` is a rule name), "trailing" (``detail``: the text after the codes),
    "colon" (codes without ``:``), "place" (a file directive after code), "unknown"."""

    line: int
    kind: str  # "noqa" | "ignore" | "file"
    problem: str
    detail: str = ""


@dataclass(slots=True)
class Suppressions:
    comments: list[Comment] = field(default_factory=list)
    malformed: list[Malformed] = field(default_factory=list)

    @property
    def needs_statement_ranges(self) -> bool:
        return any(c.kind == "ignore" for c in self.comments)


def _readline(source: str) -> Callable[[], str]:
    """The text's lines for the tokenizer as Python counts them: a lone ``\r`` ends a line
    too (``io.StringIO`` splits at ``\n`` only, so in a CR-only file every comment was on
    line 1, and an unused one's fix indexed past its line: an internal error)."""
    return functools.partial(next, iter(split_lines(source)), "")


def comment_tokens(source: str) -> list[tokenize.TokenInfo]:
    """The file's comments as the tokenizer reads them; in a file that stops tokenizing
    (a syntax error), those before the error."""
    out: list[tokenize.TokenInfo] = []
    try:
        for tok in tokenize.generate_tokens(_readline(source)):
            if tok.type == tokenize.COMMENT:
                out.append(tok)
    except (tokenize.TokenError, SyntaxError):
        pass
    return out


def noqa_spans(source: str) -> dict[int, int]:
    """Last line -> first line of each run of lines that one trailing comment must cover,
    as ruff maps them: a multi-line string (a comment can only follow its last line) and
    lines joined by a backslash. Other lines cover themselves."""
    intervals: list[list[int]] = []
    prev: tokenize.TokenInfo | None = None  # the token before, on the same logical line
    skip = (tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    try:
        for tok in tokenize.generate_tokens(_readline(source)):
            if tok.type in (tokenize.NL, tokenize.NEWLINE):
                prev = None
                continue
            if tok.type in skip:
                continue
            if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
                intervals.append([tok.start[0], tok.end[0]])
            if prev is not None and tok.start[0] > prev.end[0]:
                intervals.append([prev.end[0], tok.start[0]])  # no NL between: a backslash joined them
            prev = tok
    except (tokenize.TokenError, SyntaxError):
        pass
    intervals.sort()
    merged: list[list[int]] = []
    for a, b in intervals:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return {b: a for a, b in merged}


def scan_suppressions(source: str) -> Suppressions:
    out = Suppressions()
    if "noqa" not in source.lower() and "jaxlint" not in source:
        return out
    for tok in comment_tokens(source):
        text = tok.string
        if "noqa" not in text.lower() and "jaxlint" not in text:
            continue
        line, col = tok.start
        own_line = not tok.line[:col].strip()
        m = _JAXLINT.match(text)
        if m:
            _jaxlint_directive(out, m, text, line, col, own_line)
            continue
        m = _NOQA.search(text)
        if m is None:
            continue
        start = col + m.start()
        codes, problem, detail = _after_noqa(text[m.end() :])
        if problem:
            out.malformed.append(Malformed(line, "noqa", problem, detail))
            if problem in ("codes", "name"):
                continue
        end = col + len(text) - len(_trailing(text[m.end() :]))
        out.comments.append(Comment(line, start + 1, end + 1, codes, "noqa", line, line))
    if any(c.kind == "noqa" for c in out.comments):
        spans = noqa_spans(source)
        for c in out.comments:
            if c.kind == "noqa":
                c.first = spans.get(c.line, c.line)
    return out


def _trailing(rest: str) -> str:
    """What follows a noqa directive's codes in its comment (kept by JAX002's fix)."""
    if not rest.startswith(":"):
        return rest
    m = _CODES.match(rest[1:].lstrip())
    if m is None:
        return rest
    used = 1 + (len(rest[1:]) - len(rest[1:].lstrip())) + m.end()
    return rest[used:]


def _after_noqa(rest: str) -> tuple[frozenset[str] | None, str, str]:
    """(codes, problem, detail) of what follows ``# noqa``."""
    if not rest.startswith(":"):
        word = rest.split()[0] if rest.split() else ""
        if _CODE.fullmatch(word.rstrip(",")) and word.upper().startswith("JAX"):
            return None, "colon", word  # codes without the colon: a bare directive, as flake8 reads it
        return None, "", ""
    return _codes_then(rest[1:])


def _codes_then(body: str) -> tuple[frozenset[str] | None, str, str]:
    body = body.strip()
    m = _CODES.match(body)
    if m is None:
        word = body.split()[0].rstrip(",") if body.split() else ""
        return None, ("name" if _RULE_NAME.fullmatch(word) else "codes"), word
    codes = frozenset(c.upper() for c in _CODE.findall(m.group(0)))
    after = body[m.end() :].strip()
    if after and not after.startswith("#") and any(c.startswith("JAX") for c in codes):
        return codes, "trailing", after.split()[0]
    return codes, "", ""


def _jaxlint_directive(out: Suppressions, m: re.Match, text: str, line: int, col: int, own_line: bool) -> None:
    word, rest = m.group("word").lower(), text[m.end() :]
    if word not in ("noqa", "ignore"):
        out.malformed.append(Malformed(line, "file", "unknown", m.group("word")))
        return
    kind = "file" if word == "noqa" else "ignore"
    if not own_line:
        out.malformed.append(Malformed(line, kind, "place"))
        return
    if kind == "file":
        if not rest.strip() or rest.lstrip().startswith("#"):
            codes, problem, detail = None, "", ""
        elif rest.startswith(":"):
            codes, problem, detail = _codes_then(rest[1:])
        else:
            codes, problem, detail = None, "trailing", rest.split()[0]
            out.malformed.append(Malformed(line, kind, problem, detail))
            return
    else:
        inner = re.match(r"\[(?P<body>[^\]]*)\](?P<after>.*)", rest)
        if inner is None or not inner.group("body").strip():
            out.malformed.append(Malformed(line, kind, "codes"))
            return
        codes, problem, detail = _codes_then(inner.group("body"))
        after = inner.group("after").strip()
        if not problem and after and not after.startswith("#"):
            problem, detail = "trailing", after.split()[0]
    if problem:
        out.malformed.append(Malformed(line, kind, problem, detail))
        if problem in ("codes", "name"):
            return
    end = col + len(text)
    first = line + 1 if kind == "ignore" else 0
    out.comments.append(Comment(line, col + 1, end + 1, codes, kind, first, first))


def apply(
    diagnostics: list[Diagnostic],
    supp: Suppressions | None,
    path: str,
    enabled: frozenset[str],
    source_lines: list[str] | None = None,
) -> list[Diagnostic]:
    """Drop suppressed diagnostics; add JAX002 for suppression codes that matched nothing."""
    if supp is None or not supp.comments:
        return diagnostics
    kept: list[Diagnostic] = []
    covering = _covering(supp.comments)
    for d in diagnostics:
        suppressed = False
        for c in covering(d.start.line):
            if c.codes is not None and d.code not in c.codes:
                continue
            c.used.add(d.code)
            suppressed = True
        if not suppressed:
            kept.append(d)
    if "JAX002" in enabled:
        for c in supp.comments:
            if c.codes is None:
                continue  # a bare noqa is shared with other tools
            unused = sorted(code for code in c.codes if code in enabled and code not in c.used)
            if not unused:
                continue
            kept.append(_unused(path, c, unused, source_lines))
    return kept


def _covering(comments: list[Comment]):
    """``line -> the comments that cover it``, found by line (not by trying every comment:
    thousands of comments and findings made that quadratic). Statement ranges nest or are
    disjoint, so the ranges holding a line are one chain of enclosing ranges."""
    whole = [c for c in comments if c.kind == "file"]
    by_range: dict[tuple[int, int], list[Comment]] = {}
    for c in comments:
        if c.kind != "file":
            by_range.setdefault((c.first, c.last), []).append(c)
    ranges = sorted(by_range, key=lambda r: (r[0], -r[1]))
    starts = [r[0] for r in ranges]
    parent: list[int] = []  # index of the nearest earlier range that encloses it, or -1
    open_: list[int] = []
    nested = True
    for i, (first, last) in enumerate(ranges):
        while open_ and ranges[open_[-1]][1] < last:
            nested = nested and ranges[open_.pop()][1] < first
        parent.append(open_[-1] if open_ else -1)
        open_.append(i)

    def covering(line: int) -> list[Comment]:
        out = list(whole)
        if not nested:  # ranges that overlap without nesting: try each
            return out + [c for r in ranges if r[0] <= line <= r[1] for c in by_range[r]]
        i = bisect.bisect_right(starts, line) - 1
        while i >= 0 and ranges[i][1] < line:
            i = parent[i]
        while i >= 0:
            out.extend(by_range[ranges[i]])
            i = parent[i]
        return out

    return covering


def _unused(path: str, c: Comment, unused: list[str], lines: list[str] | None) -> Diagnostic:
    start, end = Position(c.line, c.start), Position(c.line, c.end)
    codes = ", ".join(unused)
    fix = None
    if c.codes is not None and set(unused) == set(c.codes):
        # remove the whole comment (and the line, for own-line comments)
        text = lines[c.line - 1] if lines is not None and c.line - 1 < len(lines) else None
        edit: Edit | None = None
        if c.kind in ("ignore", "file"):
            edit = Edit(Position(c.line, 1), Position(c.line + 1, 1), "")
        elif text is None or text[c.start - 1 : c.start] == "#":
            col = c.start
            while text is not None and col > 1 and text[col - 2] in " \t":
                col -= 1
            edit = Edit(Position(c.line, col), end, "")
        # else: the lines are not split as the comments were found (a lone carriage return
        # ends a line for the tokenizer): no edit rather than one in the wrong place
        if edit is not None:
            fix = Fix("Remove the unused suppression", (edit,), "safe")
    kind = {"noqa": "`# noqa`", "ignore": "`# jaxlint: ignore`", "file": "`# jaxlint: noqa`"}[c.kind]
    return Diagnostic(
        path,
        "JAX002",
        "unused-suppression",
        f"Unused {kind} for {codes}: nothing on {'this file' if c.kind == 'file' else 'the suppressed lines'} is reported with {'this code' if len(unused) == 1 else 'these codes'}",
        start,
        end,
        fix,
        False,
        "Remove the suppression comment",
    )


_SYNTAX = {"noqa": "# noqa: {}", "ignore": "# jaxlint: ignore[{}]", "file": "# jaxlint: noqa: {}"}


def malformed_message(m: Malformed, place: str, codes_by_name: Mapping[str, str]) -> str:
    """The warning for a malformed directive at ``place`` (``path:line``, or a cell)."""
    form = _SYNTAX[m.kind]
    head = {"noqa": "`# noqa`", "ignore": "`# jaxlint: ignore`", "file": "`# jaxlint: noqa`"}[m.kind]
    head = f"Invalid {head} directive at {place}"
    example = form.format("JAX801, JAX802")
    if m.problem == "codes":
        return f"{head}: expected a comma-separated list of codes (e.g., `{example}`); it suppresses nothing"
    if m.problem == "name":
        code = codes_by_name.get(m.detail)
        hint = f" (write `{form.format(code)}`)" if code else " (see `jaxlint rules`)"
        return f"{head}: `{m.detail}` is a rule name, not a code{hint}; it suppresses nothing"
    if m.problem == "trailing":
        return (
            f"{head}: unexpected text after the codes (`{m.detail}`); write a reason after a second `#`"
            f" (`{form.format('JAX801')}  # because ...`)"
        )
    if m.problem == "colon":
        return f"{head}: expected `:` before the codes (`# noqa: {m.detail}`); as written it suppresses every code"
    if m.problem == "place":
        what = "the whole file" if m.kind == "file" else "the next statement"
        return f"{head}: it must be on its own line to suppress {what}; it suppresses nothing"
    return (
        f"Unknown `# jaxlint: {m.detail}` directive at {place}: expected `# jaxlint: noqa` or"
        " `# jaxlint: ignore[CODES]`; it suppresses nothing"
    )


def warnings_for(
    supp: Suppressions | None,
    path: str,
    codes_by_name: Mapping[str, str],
    place: Callable[[str, int], str] | None = None,
) -> list[str]:
    """The warnings of a file's malformed directives, in line order."""
    if supp is None or not supp.malformed:
        return []
    where = place or (lambda p, line: f"{p}:{line}")
    return [malformed_message(m, where(path, m.line), codes_by_name) for m in supp.malformed]
