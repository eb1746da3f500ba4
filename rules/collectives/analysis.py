"""What JAX201 needs beyond the program model: the collectives and their axis-name
arguments, and how a message names a place or a function.

Where a collective runs, and which maps bind axis names on each path there, is the
program model's call paths (``jaxlint/model/calls.py`` per module, ``model/paths.py``
across the project).
"""

from __future__ import annotations

import os
from typing import Any

# collective -> index of the positional axis_name argument (None: keyword only)
COLLECTIVES: dict[str, int | None] = {
    "psum": 1,
    "pmean": 1,
    "pmax": 1,
    "pmin": 1,
    "all_gather": 1,
    "all_to_all": 1,
    "ppermute": 1,
    "psum_scatter": 1,
    "pshuffle": 1,
    "pswapaxes": 1,
    "pbroadcast": 1,
    "pcast": 1,
    "axis_index": 0,
    "axis_size": 0,
    "ragged_all_to_all": None,
}
COLLECTIVE_NAMES = {f"jax.lax.{k}": k for k in COLLECTIVES}


def where(rec: dict[str, Any], here: str) -> str:
    """``at line 12`` / ``at train.py:12``; without a known line ``in this file`` / ``in train.py``."""
    if rec["path"] == here:
        return f"at line {rec['line']}" if rec["line"] else "in this file"
    name = os.path.basename(rec["path"])
    return f"at {name}:{rec['line']}" if rec["line"] else f"in {name}"


def local_name(ref: str) -> str:
    last = ref.rsplit(".", 1)[-1]
    if last.startswith("<lambda>"):
        return "the lambda"
    if last.startswith("<partial:"):
        return "the partial"
    return f"`{last}`"
