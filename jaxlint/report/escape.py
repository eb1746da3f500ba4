"""Text from the linted project, made safe to print: file names and quoted source go to
terminals and CI logs, which obey what they read.

- Control characters are shown escaped, as ruff shows them (``\\n``, ``\\t``, ``\\x1b``): a
  newline in a file name must not start a line of its own, an escape sequence must not
  recolour or rewrite the terminal. So are the characters that reorder text (bidi
  controls, "Trojan Source") and line or paragraph separators. A byte of a file name that
  is not UTF-8 (a surrogate escape) is shown as ``\\xff``.
- No line may be a GitHub Actions workflow command: ``::command ...`` at the start of a
  line (after blanks) and ``##[command]`` anywhere in it are read by the runner from any
  step's output (an annotation, ``add-mask``, ``stop-commands``). The ``github`` format's
  own lines are the only commands jaxlint writes.
"""

from __future__ import annotations

import re

_BEYOND_ASCII = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_CHARACTERS = "\x00-\x1f" + _BEYOND_ASCII
_UNSAFE = re.compile(f"[{_CHARACTERS}]")
_UNSAFE_IN_JSON = re.compile(f"[{_BEYOND_ASCII}]")  # json.dumps escapes the rest
_UNSAFE_BUT_LINE_BREAKS = re.compile(f"(?![\r\n])[{_CHARACTERS}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(m: re.Match) -> str:
    c = m.group()
    named = _NAMED.get(c)
    if named is not None:
        return named
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:  # a byte the file name's encoding could not decode
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(text: str, line_breaks: bool = False) -> str:
    """``text`` with every control, reordering and separator character escaped (but ``\r``
    and ``\n`` with ``line_breaks``: a format that encodes them itself)."""
    unsafe = _UNSAFE_BUT_LINE_BREAKS if line_breaks else _UNSAFE
    return unsafe.sub(_escaped, text) if unsafe.search(text) else text


def no_workflow_commands(text: str) -> str:
    """``text`` (already printable) with no line a workflow command: ``::`` at the start
    of a line becomes ``\\x3a:``, ``##[`` anywhere ``##\\x5b``."""
    if "::" not in text and "##[" not in text:
        return text
    text = text.replace("##[", "##\\x5b")
    lines = text.split("\n")
    for i, line in enumerate(lines):
        body = line.lstrip()
        if body.startswith("::"):
            lines[i] = line[: len(line) - len(body)] + "\\x3a" + body[1:]
    return "\n".join(lines)


def safe(text: str) -> str:
    """Both: what a human-readable format prints."""
    return no_workflow_commands(printable(text))


def shown_path(path: str) -> str:
    """A path at the start of a line, as printed (a file named ``::error ...py`` too, and
    before any colour code a terminal format puts in front of it)."""
    return safe(path)


def json_text(text: str) -> str:
    """JSON from ``json.dumps(..., ensure_ascii=False)`` made safe to print, with the same
    values: a surrogate (a file name byte that is not UTF-8; a raw one is invalid UTF-8), a
    reordering or separator character, and the ``[`` of ``##[`` become ``\\uXXXX`` escapes."""
    text = _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text.replace("##[", "##\\u005b")
