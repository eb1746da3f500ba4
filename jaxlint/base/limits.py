"""Limits every stage checks before it spends anything on a file."""

from __future__ import annotations

MAX_FILE_BYTES = 16 * 1024 * 1024  # larger files are reported (JAX003), never read or hashed
