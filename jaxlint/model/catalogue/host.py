"""``numpy.random`` (the legacy global generator: ``size`` is the shape, ``None`` one
draw) and ``numpy.testing`` (assertions: they return None)."""

from __future__ import annotations

from typing import Any

from jaxlint.base.literals import UNKNOWN

from ..abstract import FLOAT, INT, Const, External, Shape, Struct, Tuple, as_array, as_dim
from . import Call, register
from .build import Entries, family, op
from .rules import array_of, broadcast, constant_result, dtype_of, full_dims, is_none, rule, shape_of
from .signatures import SIGNATURES

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


# The distributions whose draws are integers (their support): every other sampler draws floats.
DISCRETE = frozenset(
    {
        "binomial",
        "poisson",
        "geometric",
        "negative_binomial",
        "hypergeometric",
        "zipf",
        "logseries",
        "randint",
        "random_integers",
    }
)
# the module functions a ``Generator`` does not have (the legacy global generator's own)
LEGACY = frozenset({"rand", "randn", "randint", "random_integers", "random_sample", "ranf", "sample", "seed"})


def _samplers(written: Entries) -> Entries:
    """The ``numpy.random`` samplers not written out: every function whose last parameter
    is ``size`` draws that shape from the distribution its other parameters give (their
    broadcast shape without ``size``), read off its signature (``weibull(a, size=None)``,
    ``triangular(left, mode, right, size=None)``)."""
    out: Entries = {}
    for q, sig in SIGNATURES.items():
        name = q.rsplit(".", 1)[1]
        if not q.startswith("numpy.random.") or q.count(".") != 2 or q in written or not sig:
            continue
        names = [p[0] for p in sig]
        if names[-1] != "size" or any(p[1] != 1 for p in sig):
            continue
        out.update(family(RANDOM, [name], sample, params=tuple(names[:-1]), dtype=INT if name in DISCRETE else FLOAT))
    return out


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
    **family(RANDOM, ["multinomial"], sample, suffix="pvals", dtype=INT),
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
TABLE.update(_samplers(TABLE))

# the methods of those objects: the module's functions they are (a ``Generator`` has all but
# the legacy ones, and draws integers with ``integers``)
_METHODS = sorted(q.rsplit(".", 1)[1] for q in TABLE if q.startswith("numpy.random.") and q.count(".") == 2)
INSTANCE_METHODS: dict[str, dict[str, str]] = {
    "numpy.random.RandomState": {m: f"numpy.random.{m}" for m in _METHODS if m[0].islower() and m != "default_rng"},
    "numpy.random.Generator": {
        **{m: f"numpy.random.{m}" for m in _METHODS if m[0].islower() and m != "default_rng" and m not in LEGACY},
        "integers": "numpy.random.randint",
    },
}

register(TABLE)
