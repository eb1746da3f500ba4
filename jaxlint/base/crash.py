"""Internal errors (bugs in jaxlint): one line that says where, the traceback on request.

``JAXLINT_DEBUG=1`` adds the traceback under the line; without it a user sees one clear
line and how to get the rest.
"""

from __future__ import annotations

import contextlib
import os
import traceback
from collections.abc import Iterator
from contextlib import contextmanager

HINT = "JAXLINT_DEBUG=1 shows the traceback"


def debug() -> bool:
    return os.environ.get("JAXLINT_DEBUG", "") not in ("", "0")


def describe(exc: BaseException) -> str:
    """``Type: message (at file:line); <hint>``, and the traceback when debugging."""
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" (at {tb[-1].filename}:{tb[-1].lineno})" if tb else ""
    text = f"{type(exc).__name__}: {exc}{where}"
    if debug():
        return text + "\n" + "".join(traceback.format_exception(exc)).rstrip()
    return f"{text}; {HINT}"


@contextmanager
def doing(what: str) -> Iterator[None]:
    """Name the step under way in any internal error raised inside (the innermost wins)."""
    try:
        yield
    except Exception as exc:
        if not hasattr(exc, "jaxlint_doing"):
            with contextlib.suppress(AttributeError):  # an exception type with __slots__
                exc.jaxlint_doing = what  # type: ignore[attr-defined]  # jaxlint's own mark, on an exception of any class
        raise


def internal_error_line(exc: BaseException) -> str:
    """The one line ``jaxlint`` prints for a bug that escaped every per-file guard."""
    what = getattr(exc, "jaxlint_doing", None)
    return f"internal error{f' while {what}' if what else ''}: {describe(exc)}"
