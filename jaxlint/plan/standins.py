"""Stand-ins for the expressions no parser can afford, so the rest of the file is checked.

Two kinds of valid code defeat the parsers:

- a literal display with a very large number of constants (a 10 MB lookup table):
  CPython's own parser takes about 10 µs and 500 bytes per character of it (``ast.parse``
  of a 400 KB list: 3 s, 200 MB), LibCST about 1.5 KB per character while it parses the
  statement that holds it (the file's other statements are parsed in pieces,
  ``jaxlint.lint.parse``);
- an implicit concatenation of many string literals: LibCST nests them one level per
  literal; 400 exhaust Python's stack in every walk over the tree, 5,000 on one line
  make its parser fail outright.

Before either parser sees the text, each such expression is replaced by a call of a name
that nothing binds, ``__jaxlint_literal__("   ")`` (a triple-quoted string when it spans
lines), written over exactly the characters and lines it took, so every other position in
the file stays where it is. To the rules the value is unknown, and unknown means silent:
a literal nobody could read anyway loses nothing.

They are found in the text, without a parser, in time linear in its length: strings,
comments and ``True``/``False``/``None`` are masked first (same offsets), then long runs
of characters that can only be literals and punctuation are read by a small automaton that
checks the display grammar, so a stand-in never hides a syntax error in the display, and
a bracket after a name (a call, a subscript) is never taken for one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

MAX_LEAVES = 10_000  # constants in one display (20,000 characters at the least)
MAX_PARTS = 100  # string literals in one implicit concatenation (LibCST's walks fail near 400)
NAME = "__jaxlint_literal__"

Span = tuple[int, int]  # character offsets [start, end) in the text

STRING, STRING_REST, CONSTANT = "\x01", "\x02", "\x03"


def _lazy(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A pattern compiled on first use: compiling these took a third of the start-up of a
    one-file run, and most files never need them (``worth_a_look``)."""
    return functools.cache(lambda: re.compile(pattern, flags))


# String literals, with their prefix and over line breaks, as runs (possessive: no state kept
# per character, a 10 MB string in constant memory; a lazy ``*?`` kept 120 bytes a character)
STRING_LITERAL = (
    r"[rRbBuUfF]{0,2}"
    r"(?:\"\"\"(?:[^\"\\]++|\\[\s\S]|\"(?!\"\"))*+\"\"\"|'''(?:[^'\\]++|\\[\s\S]|'(?!''))*+'''"
    r"|\"(?:[^\"\\\r\n]++|\\[\s\S])*+\"|'(?:[^'\\\r\n]++|\\[\s\S])*+')"
)

# strings, comments, and the constant keywords (the lookahead lets every other character
# fail at once: four times faster)
_MASKED = _lazy(
    r"#[^\r\n]*+"
    r"|(?=[TFN\"'rRbBuUfF])(?:(?<![\w])(?:True|False|None)(?![\w])|(?<![\w])" + STRING_LITERAL + ")"
)


def _mask(m: re.Match) -> str:
    text = m.group()
    if text[0] == "#":
        return " " * len(text)
    if text[0] in "TFN" and text in ("True", "False", "None"):
        return CONSTANT * len(text)
    return STRING + STRING_REST * (len(text) - 1)


# what a literal display can be made of, once masked (hex digits and number letters too:
# a run is only a candidate, the automaton decides)
_RUN = _lazy(r"[0-9a-fA-FxXoObBjJ_.+\- \t\r\n\f\\,:()\[\]{}\x01\x02\x03]+")
# The patterns below match each token one way only, so they are possessive (``*+``, ``(?>``):
# no backtracking state is kept, five times faster on a 10 MB list.
_SEP = r"[ \t\f]*+(?:(?:\\?\r?\n|\\?\r(?!\n))[ \t\f]*+)*+"
_CONCAT = _lazy(rf"\x01\x02*+(?:{_SEP}\x01\x02*+){{{MAX_PARTS},}}")
# numbers, loosely (no nested repetition); what the loose form lets through that Python
# refuses is looked for separately (``_BAD_NUMBER``)
_NUMBER = (
    r"[-+]?+(?>0[xXoObB][0-9a-fA-F_]++"
    r"|[0-9][0-9_]*+(?:\.[0-9_]*+)?+(?:[eE][-+]?+[0-9][0-9_]*+)?+[jJ]?+"
    r"|\.[0-9][0-9_]*+(?:[eE][-+]?+[0-9][0-9_]*+)?+[jJ]?+)"
)
_BAD_NUMBER = _lazy(  # every alternative starts with 0 or _: the lookahead skips the rest fast
    r"(?=[0_])(?:(?<![\w.])0[0-9_]*[1-9][0-9_]*(?![\w.])"  # 012: a leading zero (0.5, 01.5, 01e5, 00 are fine)
    r"|__|_(?![0-9a-fA-F])|(?<![0-9a-fA-FxXoObB])_(?=[0-9])"  # 1__0, 1_, 1_.5, 1._5
    r"|(?<![\w.])0[oO][0-7_]*[89a-fA-F]|(?<![\w.])0[bB][01_]*[2-9a-fA-F])"  # 0o8, 0b2
)
_SCALAR = rf"(?>{_NUMBER}|\x01\x02*+(?:{_SEP}\x01\x02*+)*+|\x03++)"
# a display of scalars only (``(1, 'v')``, ``[]``): one element, read in one step
_ITEMS = rf"{_SEP}(?:{_SCALAR}{_SEP},{_SEP})*+(?:{_SCALAR}{_SEP})?+"
_ELEMENT = rf"(?>{_SCALAR}|\({_ITEMS}\)|\[{_ITEMS}\]|\{{{_SEP}(?:{_SCALAR}{_SEP},{_SEP})*+{_SCALAR}{_SEP},?+{_SEP}\}})"
_TOKENS = _lazy(
    rf"(?P<element>(?=[\[({{]){_ELEMENT}(?!{_SEP}[,:]))"  # a display of scalars alone: read once
    rf"|(?P<flat>(?:{_ELEMENT}{_SEP},{_SEP})++)"  # ``1, 2, 3, `` in one step
    rf"|(?P<pairs>(?:{_ELEMENT}{_SEP}:{_SEP}{_ELEMENT}{_SEP},{_SEP})++)"  # ``1: 'a', 2: 'b', ``
    rf"|(?P<scalar>{_ELEMENT})"
    r"|(?P<space>[ \t\f\r\n]+|\\\r?\n|\\\r)"
    r"|(?P<open>[\[({])|(?P<close>[\])}])|(?P<comma>,)|(?P<colon>:)"
    r"|(?P<name>[A-Za-z_]\w*)|(?P<other>.)",
    re.DOTALL,
)
_CLOSES = {"(": ")", "[": "]", "{": "}"}
# a bracket after one of these words is a display; after any other name, a call or subscript
_BEFORE_DISPLAY = frozenset(
    {"in", "return", "yield", "else", "and", "or", "not", "is", "assert", "await", "from", "if", "elif", "lambda"}
)


def worth_a_look(text: str) -> bool:
    """Can ``text`` hold an expression that needs a stand-in? (A cheap test: most files fail it.)"""
    return len(text) >= 2 * MAX_LEAVES or text.count('"') + text.count("'") >= 2 * MAX_PARTS


def find(text: str) -> list[Span]:
    """The outermost expressions of ``text`` that need a stand-in, in text order."""
    if not worth_a_look(text):
        return []
    masked = _MASKED().sub(_mask, text)
    spans = [m.span() for m in _CONCAT().finditer(masked)]
    for m in _RUN().finditer(masked):
        if m.end() - m.start() >= 2 * MAX_LEAVES:
            spans += _displays(masked, m.start(), m.end())
    spans.sort(key=lambda s: (s[0], -s[1]))
    out: list[Span] = []
    for s in spans:
        if out and s[0] < out[-1][1]:
            continue  # inside (or across) one already taken
        out.append(s)
    return out


class _Frame:
    __slots__ = ("colon", "dict", "display", "kind", "leaves", "ok", "start", "state")

    def __init__(self, kind: str, start: int, display: bool) -> None:
        self.kind, self.start, self.display = kind, start, display
        self.leaves, self.ok, self.state = 0, display, "start"  # start | element | sep | colon
        self.dict: bool | None = None  # braces: a dict (key: value) or a set, once known
        self.colon = False  # a key's colon since the last comma


def _displays(masked: str, start: int, end: int) -> list[Span]:
    """Displays between ``start`` and ``end`` that hold only constants, more than MAX_LEAVES."""
    out: list[Span] = []
    stack: list[_Frame] = []
    previous = _word_before(masked, start)  # "name", "display" (a keyword or an operator) or "value"
    for m in _TOKENS().finditer(masked, start, end):
        kind = m.lastgroup
        if kind == "space":
            continue
        top = stack[-1] if stack else None
        if kind == "open":
            stack.append(_Frame(m.group(), m.start(), previous == "display"))
            previous = "display"
            continue
        if kind == "close":
            if top is None or _CLOSES[top.kind] != m.group():
                stack.clear()  # a bracket opened before the run: nothing here is whole
                previous = "value"
                continue
            stack.pop()
            complete = top.ok and top.state != "colon" and not (top.dict and top.state == "element" and not top.colon)
            if complete and top.leaves > MAX_LEAVES and not _BAD_NUMBER().search(masked, top.start, m.end()):
                out.append((top.start, m.end()))
            if stack:
                _element(stack[-1], top.leaves if complete else -1)
            previous = "value"
            continue
        before, previous = previous, "name" if kind == "name" and m.group() not in _BEFORE_DISPLAY else "display"
        if kind == "scalar":
            kind = "element"
        if kind in ("element", "flat", "pairs"):
            previous = "value" if kind == "element" else "display"  # flat and pairs end with a comma
            if m.group()[0] in "([{":  # a display of scalars, read as one token
                if before != "display":  # after a name or a value: a call or a subscript
                    if top is not None:
                        top.ok = False
                    continue
                if kind == "element" and m.group().count(",") + 1 > MAX_LEAVES and not _bad_number(masked, m):
                    out.append(m.span())
        if top is None or not top.ok:
            continue
        if kind == "element":
            _element(top, 1)
        elif kind == "flat":
            if top.state not in ("start", "sep") or top.dict:
                top.ok = False
            else:
                top.dict = False if top.kind == "{" else None
                top.leaves += m.group().count(",")
                top.state = "sep"
        elif kind == "pairs":
            if top.kind != "{" or top.state not in ("start", "sep") or top.dict is False:
                top.ok = False
            else:
                top.dict = True
                top.leaves += 2 * m.group().count(",")
                top.state, top.colon = "sep", False
        elif kind == "comma":
            if top.state != "element" or (top.dict and not top.colon):
                top.ok = False
            else:
                if top.kind == "{" and top.dict is None:
                    top.dict = False
                top.state, top.colon = "sep", False
        elif kind == "colon":
            if top.kind != "{" or top.state != "element" or top.dict is False or top.colon:
                top.ok = False
            else:
                top.dict, top.colon, top.state = True, True, "colon"
        else:  # a name, an operator: not a display of constants
            top.ok = False
    return out


def _bad_number(masked: str, m: re.Match) -> bool:
    return _BAD_NUMBER().search(masked, m.start(), m.end()) is not None


def _element(frame: _Frame, leaves: int) -> None:
    """One element (``leaves`` constants; -1: not a constant) inside ``frame``."""
    if not frame.ok:
        return
    if leaves < 0 or frame.state not in ("start", "sep", "colon"):
        frame.ok = False
        return
    frame.leaves += leaves
    frame.state = "element"


def _word_before(masked: str, pos: int) -> str:
    """What precedes ``pos``: a name (then a bracket is a call), a value, or neither."""
    i = pos
    while i > 0 and masked[i - 1] in " \t":
        i -= 1
    if i == 0 or not (masked[i - 1].isalnum() or masked[i - 1] == "_"):
        return "value" if i and masked[i - 1] in "\x01\x02\x03" else "display"
    j = i
    while j > 0 and (masked[j - 1].isalnum() or masked[j - 1] == "_"):
        j -= 1
    return "display" if masked[j:i] in _BEFORE_DISPLAY else "name"


def apply(text: str, spans: list[Span]) -> str:
    """``text`` with a stand-in written over each span: every line keeps its number and every
    character outside the spans its column."""
    if not spans:
        return text
    parts: list[str] = []
    pos = 0
    for start, end in spans:
        parts.append(text[pos:start])
        parts.append(_stand_in(text[start:end]))
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _stand_in(original: str) -> str:
    """``__jaxlint_literal__("...")`` with the line breaks of ``original`` and the length of
    its last line."""
    # the lines between the breaks are empty here, so a lone ``\r`` followed by a ``\n``
    # would read as one ``\r\n``, one line fewer: write ``\n``, the same one character
    breaks = ["\n" if m.group() == "\r" else m.group() for m in _LINE_BREAK.finditer(original)]
    if not breaks:
        width = len(original)
        if width < len(NAME) + 4:
            return original
        return f'{NAME}("' + " " * (width - len(NAME) - 4) + '")'
    last = len(original) - max(original.rfind("\n"), original.rfind("\r")) - 1
    lines = [f'{NAME}("""'] + [""] * (len(breaks) - 1)
    if last >= 4:
        tail = " " * (last - 4) + '""")'
    else:  # no room on the last line: the string closes on the line before
        lines[-1] += '"""'
        tail = " " * (last - 1) + ")"
    return "".join(line + brk for line, brk in zip(lines, breaks, strict=True)) + tail
