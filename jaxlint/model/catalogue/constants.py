"""The numeric constants of ``jax.numpy``, ``numpy`` and ``math``: Python floats
(``jnp.pi * count / steps`` is arithmetic on a float, as it is at run time). Checked
against the modules in tests/model/test_catalogue.py."""

from __future__ import annotations

import math

from ..abstract import Const

_VALUES = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "euler_gamma": 0.5772156649015329}

CONSTANTS: dict[str, Const] = {
    f"{module}.{name}": Const(value)
    for module in ("jax.numpy", "numpy", "math")
    for name, value in _VALUES.items()
    if not (module == "math" and name == "euler_gamma")
}
