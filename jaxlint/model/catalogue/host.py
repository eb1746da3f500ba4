"""``numpy.random`` (the legacy global generator: ``size`` is the shape, ``None`` one
draw) and ``numpy.testing`` (assertions: they return None)."""

from __future__ import annotations

from typing import Any

from jaxlint.base.literals import UNKNOWN

from ..abstract import FLOAT, INT, Const, External, Shape, Struct, Tuple, as_array, as_dim
from . import Call, register
from .build import Entries, family, op
from .rules import array_of, broadcast, constant_result, dtype_of, full_dims, is_none, rule, shape_of

RANDOM = ("numpy.random",)


@rule
def sample(call: Call, params: tuple[str, ...] = (), dtype: Any = FLOAT, suffix: str | None = None) -> Any:
    """``normal(loc, scale, size=None)``: ``size``, else the broadcast of the parameters."""
    dt = dtype
    if call.sig.param("dtype") is not None:
        dt = dtype_of(call.arg("dtype")) or dtype
    tail: tuple[Any, ...] = ()
    if suffix is not None:
        a = as_array(call.arg(suffix))
        d = full_dims(a) if a is not None else None
        if not d:
            return array_of(call, None, dt)
        tail = (d[-1],)
    size = call.arg("size")
    if not is_none(size):
        s = shape_of(size)
        return array_of(call, Shape((*s.dims, *tail)) if s is not None else None, dt)
    if suffix is not None:
        return array_of(call, Shape(tail), dt)
    values = [as_array(call.arg(p)) for p in params if not is_none(call.arg(p))]
    if any(v is None for v in values):
        return array_of(call, None, dt)
    return array_of(call, broadcast([v for v in values if v is not None]) if values else Shape(()), dt)


def dimensions(call: Call) -> Any:
    """``randn(d0, d1, ...)``/``rand``: the shape given as separate ints."""
    args = call.arg("args")
    if not isinstance(args, tuple):
        return UNKNOWN
    return array_of(call, shape_of(Tuple(args)), FLOAT)


def choice(call: Call) -> Any:
    s = call.arg("size")
    a = as_array(call.arg("a"))
    dt = INT if a is None or a.rank == 0 else a.dtype
    if a is not None and a.rank not in (0, 1):
        return UNKNOWN
    return array_of(call, Shape(()) if is_none(s) else shape_of(s), dt)


def permutation(call: Call) -> Any:
    x = call.arg("x")
    a = as_array(x)
    if a is None:
        return UNKNOWN
    if a.rank == 0:
        return array_of(call, Shape((as_dim(x),)), INT)
    return array_of(call, a.shape, a.dtype)


NONE = Const(None)


def generator(cls: str) -> Any:
    """``RandomState(0)``, ``default_rng(0)``: an object whose methods are the module's
    functions (``RandomState(0).randn(3, 4)`` is ``numpy.random.randn(3, 4)``)."""
    return lambda call: Struct(External(cls), (), "object")


# the methods of those objects: the functions they are
INSTANCE_METHODS: dict[str, dict[str, str]] = {
    "numpy.random.RandomState": {
        m: f"numpy.random.{m}"
        for m in (
            "randn",
            "rand",
            "randint",
            "normal",
            "uniform",
            "choice",
            "permutation",
            "standard_normal",
            "random_sample",
            "random",
            "binomial",
            "poisson",
            "exponential",
            "gamma",
            "beta",
            "shuffle",
        )
    },
    "numpy.random.Generator": {
        **{
            m: f"numpy.random.{m}"
            for m in (
                "normal",
                "uniform",
                "choice",
                "permutation",
                "standard_normal",
                "random",
                "binomial",
                "poisson",
                "exponential",
                "gamma",
                "beta",
                "shuffle",
            )
        },
        "integers": "numpy.random.randint",
    },
}

TABLE: Entries = {
    "numpy.random.RandomState": lambda: op("numpy.random.RandomState", generator("numpy.random.RandomState")),
    "numpy.random.Generator": lambda: op("numpy.random.Generator", generator("numpy.random.Generator")),
    "numpy.random.default_rng": lambda: op("numpy.random.default_rng", generator("numpy.random.Generator")),
    **family(RANDOM, ["normal", "logistic", "gumbel", "laplace"], sample, params=("loc", "scale")),
    **family(RANDOM, ["uniform"], sample, params=("low", "high")),
    **family(RANDOM, ["randint"], sample, params=("low", "high"), dtype=INT),
    **family(RANDOM, ["random", "random_sample", "standard_normal"], sample),
    **family(RANDOM, ["rand", "randn"], dimensions),
    **family(RANDOM, ["beta"], sample, params=("a", "b")),
    **family(RANDOM, ["binomial"], sample, params=("n", "p"), dtype=INT),
    **family(RANDOM, ["poisson"], sample, params=("lam",), dtype=INT),
    **family(RANDOM, ["exponential"], sample, params=("scale",)),
    **family(RANDOM, ["gamma"], sample, params=("shape", "scale")),
    **family(RANDOM, ["dirichlet"], sample, suffix="alpha"),
    **family(RANDOM, ["multivariate_normal"], sample, suffix="mean"),
    **family(RANDOM, ["choice"], choice),
    **family(RANDOM, ["permutation"], permutation),
    **family(RANDOM, ["shuffle", "seed"], constant_result(NONE)),
    **family(
        ("numpy.testing",),
        [
            "assert_",
            "assert_allclose",
            "assert_almost_equal",
            "assert_approx_equal",
            "assert_array_almost_equal",
            "assert_array_almost_equal_nulp",
            "assert_array_equal",
            "assert_array_less",
            "assert_equal",
            "assert_string_equal",
        ],
        constant_result(NONE),
    ),
}

register(TABLE)
