"""Source text shown in messages."""

from __future__ import annotations


def clipped(text: str, limit: int = 60) -> str:
    """Source text for a message: whitespace folded, cut to ``limit`` with ``...``."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
