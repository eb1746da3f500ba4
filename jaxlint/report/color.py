"""Whether to colour terminal output (kept apart from rich, which costs an import)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO


def use_color(stream: TextIO, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether to colour output written to ``stream``.

    ``NO_COLOR`` (non-empty, no-color.org) wins; ``FORCE_COLOR`` (non-empty,
    force-color.org) colours a pipe too; otherwise only a terminal that is not ``dumb``.
    """
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    if environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except ValueError:  # a closed stream
        return False
