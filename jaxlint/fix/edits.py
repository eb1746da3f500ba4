"""Apply fix edits to source text, and write files atomically.

Edits of one pass never overlap (an overlapping fix waits for the next pass); the
caller loops to a fixed point and never writes text that does not parse.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable

from jaxlint.base.types import Diagnostic, Fix, Position


def _offsets(text: str) -> list[int]:
    starts = [0]
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\n" or (c == "\r" and (i + 1 >= n or text[i + 1] != "\n")):
            starts.append(i + 1)
        i += 1
    return starts


def _offset(starts: list[int], text: str, pos: Position) -> int:
    if pos.line - 1 >= len(starts):
        return len(text)
    return min(starts[pos.line - 1] + pos.column - 1, len(text))


def newline_of(text: str) -> str:
    """The file's line ending: the most frequent of CRLF, LF and CR alone (old Mac files)."""
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    cr = text.count("\r") - crlf
    if cr > lf and cr > crlf:
        return "\r"
    return "\r\n" if crlf > lf else "\n"


def apply_fixes(text: str, fixes: Iterable[Fix]) -> tuple[str, list[Fix]]:
    """Apply as many non-overlapping fixes as possible; return new text and applied fixes."""
    starts = _offsets(text)
    nl = newline_of(text)
    taken: list[tuple[int, int]] = []
    chosen: list[tuple[int, int, str]] = []
    applied: list[Fix] = []
    for fix in fixes:
        spans = []
        for e in fix.edits:
            a, b = _offset(starts, text, e.start), _offset(starts, text, e.end)
            spans.append((a, b, e.content.replace("\n", nl) if nl != "\n" else e.content))
        if any(not (b2 <= a or b <= a2) or (a == b == a2 == b2) for a, b, _ in spans for a2, b2 in taken):
            continue
        taken.extend((a, b) for a, b, _ in spans)
        chosen.extend(spans)
        applied.append(fix)
    out = text
    for a, b, content in sorted(chosen, key=lambda s: (s[0], s[1]), reverse=True):
        out = out[:a] + content + out[b:]
    return out, applied


def fixes_to_apply(diagnostics: Iterable[Diagnostic], unsafe: bool) -> list[Fix]:
    out = []
    for d in diagnostics:
        if d.fix is None:
            continue
        if d.fix.applicability == "unsafe" and not unsafe:
            continue
        out.append(d.fix)
    return out


class FileChanged(Exception):
    """The file on disk is no longer the one the fixes were computed from."""


def atomic_write(path: str, text: str, encoding: str = "utf-8", expected: bytes | None = None) -> None:
    """Replace the file's contents all at once, or not at all.

    The new text goes to a temporary file beside the target (a symlink's target), flushed
    to disk, with the old file's mode (and owner, where allowed), then is renamed over
    it: a crash or a kill leaves the old file or the new one, never a mix. With
    ``expected``, a file whose bytes changed since they were read is not overwritten
    (``FileChanged``). The text is encoded first: a fix the file's encoding cannot hold
    changes nothing (``UnicodeEncodeError``)."""
    target = os.path.realpath(path)
    data = text.encode(encoding)
    st = os.stat(target)
    fd, tmp = tempfile.mkstemp(prefix=".jaxlint-", suffix=".tmp", dir=os.path.dirname(target))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        if hasattr(os, "chown") and (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
            with contextlib.suppress(OSError):  # not allowed to give the file away: it keeps its mode, and is ours
                os.chown(tmp, st.st_uid, st.st_gid)
        if expected is not None:
            with open(target, "rb") as f:
                if f.read() != expected:
                    raise FileChanged("it changed on disk while jaxlint was fixing it")
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
