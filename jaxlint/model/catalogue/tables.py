"""Every namespace's entries (imported once by ``lookup``)."""

from __future__ import annotations

from functools import partial

from ..abstract import Const
from ..signature import Signature
from . import (
    Op,
    _bootstrap,  # noqa: F401  (registers its entries; temporary, until the full catalogue lands)
    register,
)
from .rules import create, elementwise, nary

NONE = Const(None)

register(
    {
        **{
            f"{m}.{f}": Op(Signature.of("x", "/"), partial(elementwise, param="x"))
            for m in ("jax.numpy", "numpy")
            for f in ("tanh", "exp", "log", "abs", "sin", "cos", "negative")
        },
        **{
            f"{m}.{f}": Op(Signature.of("x", "y", "/"), partial(nary, params=("x", "y")))
            for m in ("jax.numpy", "numpy")
            for f in ("add", "subtract", "multiply", "maximum", "minimum")
        },
        **{
            f"{m}.{f}": Op(Signature.of("shape", "dtype", dtype=NONE), create, static=("shape",))
            for m in ("jax.numpy", "numpy")
            for f in ("zeros", "ones", "empty")
        },
    }
)
