"""``--add-noqa``: a ``# noqa: CODE`` comment on every line with a diagnostic.

Merged into a ``# noqa: ...`` comment the line already has; never inside a string: a
finding inside a multi-line string (or on a backslash-continued line) gets its comment
after the line where the string (the continuation) ends, which is where a ``# noqa``
covers it (``jaxlint.lint.suppress.noqa_spans``). A bare ``# noqa`` already suppresses
everything. Notebooks are not edited (a warning says so).
"""

from __future__ import annotations

import io
import tokenize
from collections import defaultdict

from jaxlint.base.types import Diagnostic
from jaxlint.fix.edits import FileChanged, atomic_write
from jaxlint.lint.suppress import noqa_spans, scan_suppressions

_NOT_SUPPRESSIBLE = frozenset({"JAX001", "JAX002", "JAX003"})


def _line_ends(text: str) -> list[tuple[int, int]]:
    """(start offset, offset of the line ending) of every line."""
    out = []
    pos = 0
    for line in io.StringIO(text, newline="").readlines() if text else []:
        body = line.rstrip("\r\n")
        out.append((pos, pos + len(body)))
        pos += len(line)
    return out


def add_to_text(text: str, codes_by_line: dict[int, set[str]]) -> tuple[str, int]:
    """The text with the directives added, and how many lines changed."""
    spans = noqa_spans(text)
    last_of = {}
    for last, first in spans.items():
        for line in range(first, last + 1):
            last_of[line] = last
    wanted: dict[int, set[str]] = defaultdict(set)
    for line, codes in codes_by_line.items():
        wanted[last_of.get(line, line)] |= codes
    existing = {c.line: c for c in scan_suppressions(text).comments if c.kind == "noqa"}
    lines = _line_ends(text)
    edits: list[tuple[int, int, str]] = []
    for line, codes in sorted(wanted.items()):
        if line - 1 >= len(lines):
            continue
        start, end = lines[line - 1]
        c = existing.get(line)
        if c is not None:
            if c.codes is None or codes <= c.codes:
                continue
            merged = ", ".join(sorted(c.codes | codes))
            edits.append((start + c.start - 1, start + c.end - 1, f"# noqa: {merged}"))
        else:
            body = text[start:end]
            pad = "" if not body.strip() else "  "
            edits.append((start + len(body.rstrip()), end, f"{pad}# noqa: {', '.join(sorted(codes))}"))
    for a, b, new in reversed(edits):
        text = text[:a] + new + text[b:]
    return text, len(edits)


def add_noqa(diagnostics: list[Diagnostic]) -> tuple[int, list[str]]:
    """Write the directives into each file; (lines changed, warnings)."""
    by_path: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for d in diagnostics:
        if d.code not in _NOT_SUPPRESSIBLE:
            by_path[d.path][d.start.line].add(d.code)
    added = 0
    warnings: list[str] = []
    for path, codes_by_line in sorted(by_path.items()):
        if path.endswith(".ipynb"):
            warnings.append(f"{path}: --add-noqa does not edit notebooks; add the directives in the cells")
            continue
        try:
            with open(path, "rb") as f:
                data = f.read()
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            text = data.decode(encoding)
        except (OSError, SyntaxError, LookupError, UnicodeDecodeError) as e:
            warnings.append(f"{path}: cannot read it ({e}); no noqa added")
            continue
        bom = text.startswith("\ufeff")
        new, n = add_to_text(text[1:] if bom else text, codes_by_line)
        if not n:
            continue
        try:
            atomic_write(path, ("\ufeff" if bom else "") + new, encoding, expected=data)
        except (OSError, UnicodeEncodeError, FileChanged) as e:
            warnings.append(f"{path}: not written ({e}); no noqa added")
            continue
        added += n
    return added, warnings
