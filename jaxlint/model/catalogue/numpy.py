"""``jax.numpy`` and ``numpy`` (host arrays: ``Call.host``), with their ``linalg`` and
``fft``; ``numpy.random`` and ``numpy.testing`` live in ``host.py``."""

from __future__ import annotations

from functools import partial
from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import BOOL, FLOAT, INT, Const, Scalar, Shape, Tuple, as_array, as_dim, int_value
from . import Call, register
from . import contractions as c
from . import decompositions as la
from . import indexing as ix
from . import joining as jn
from . import reductions as red
from . import shaping as sh
from .build import Entries, family
from .primitives import convert
from .rules import (
    arange,
    array,
    array_of,
    boolean,
    broadcast,
    create,
    eye,
    full,
    full_dims,
    given_dtype,
    inexact,
    int_const,
    is_none,
    like,
    linspace,
    opaque,
    positional,
    python_bool,
    real_of,
    rule,
    scalar_type,
    shape_tuple,
    size_value,
    ufunc,
)

BOTH = ("jax.numpy", "numpy")
LINALG = ("jax.numpy.linalg", "numpy.linalg")
FFT = ("jax.numpy.fft", "numpy.fft")
AXIS = ("axis", "keepdims", "dtype")


def _same(d: Any) -> Any:
    return d


# ----------------------------------------------------------------------------------
# rules that only these namespaces need
# ----------------------------------------------------------------------------------
@rule
def clip(call: Call) -> Any:
    """``clip(arr, min, max)`` (NumPy also ``a_min``/``a_max``): the broadcast of the three."""
    values = positional(call)
    if not values:
        return UNKNOWN
    parts = [values[0]]
    for name in ("min", "max", "a_min", "a_max"):
        if call.sig.param(name) is not None and not is_none(call.arg(name)):
            parts.append(call.arg(name))
    arrays = [as_array(v) for v in parts]
    if any(a is None for a in arrays):
        return UNKNOWN
    known = [a for a in arrays if a is not None]
    return array_of(call, broadcast(known), known[0].dtype)


@rule
def divmod_(call: Call) -> Any:
    """``divmod(x1, x2)``: (the quotient, the remainder), both broadcast."""
    out = ufunc(call, nin=2)
    return Tuple((out, out)) if out is not UNKNOWN else UNKNOWN


def shape(call: Call, param: str = "a") -> Any:
    """``shape(a)``: the Python tuple of its sizes."""
    a = as_array(call.arg(param))
    d = full_dims(a) if a is not None else None
    return shape_tuple(d) if d is not None else UNKNOWN


def ndim(call: Call, param: str = "a") -> Any:
    a = as_array(call.arg(param))
    r = a.rank if a is not None else None
    return Const(r) if r is not None else Scalar("int")


def size(call: Call, param: str = "a") -> Any:
    """``size(a, axis=None)``: the product of the sizes, or one of them."""
    a = as_array(call.arg(param))
    d = full_dims(a) if a is not None else None
    if d is None:
        return Scalar("int")
    ax = call.arg("axis") if call.sig.param("axis") is not None else Const(None)
    if is_none(ax):
        return size_value(dims.product(d))
    k = int_const(ax)
    return size_value(d[k]) if k is not None and -len(d) <= k < len(d) else Scalar("int")


def host_prod(call: Call) -> Any:
    """``np.prod(x.shape)``: the product of a tuple of sizes is a size (a NumPy int)."""
    v = call.arg("a")
    if type(v) is Tuple and is_none(call.arg("axis")) and not call.given("dtype"):
        sizes = [as_dim(x) for x in v.items]
        if all(type(x) is Const or (type(x) is Scalar and x.kind == "int") for x in v.items):
            total = dims.product(sizes)
            return int_value(total) if total is not None else Scalar("int")
    return red.reduction(call, "a", red.summed)


def array_equal(call: Call) -> Any:
    """``array_equal``/``allclose``: a Python bool in NumPy, a rank-0 bool array in jax."""
    return Scalar("bool") if call.host else array_of(call, Shape(()), BOOL)


def astype(call: Call, param: str = "x") -> Any:
    return convert(call, param, "dtype")


def unique(call: Call) -> Any:
    """``unique(ar, size=None)``: the distinct values, flattened; a tuple with ``return_*``."""
    a = as_array(call.arg("ar"))
    if a is None or any(call.arg(f) != Const(False) for f in ("return_index", "return_inverse", "return_counts")):
        return UNKNOWN
    n = None
    if call.sig.param("size") is not None and not is_none(call.arg("size")):
        n = as_dim(call.arg("size"))
    if call.arg("axis") != Const(None):
        return array_of(call, None, a.dtype)
    return array_of(call, Shape((n,)), a.dtype)


def sort(call: Call, result: Any = None) -> Any:
    """``sort(a, axis=-1)``/``argsort``: the shape (flattened for ``axis=None``)."""
    return red.cumulative(call, "a", "axis", result or _same)


def searchsorted(call: Call) -> Any:
    v = as_array(call.arg("v"))
    return array_of(call, v.shape, INT) if v is not None else UNKNOWN


def bincount(call: Call) -> Any:
    n = call.arg("length") if call.sig.param("length") is not None else Const(None)
    size_ = None if is_none(n) else as_dim(n)
    return array_of(call, Shape((size_,)), INT)


def interp(call: Call) -> Any:
    x = as_array(call.arg("x"))
    return array_of(call, x.shape, inexact(x.dtype)) if x is not None else UNKNOWN


def polyval(call: Call) -> Any:
    p, x = as_array(call.arg("p")), as_array(call.arg("x"))
    if p is None or x is None or p.rank != 1:
        return UNKNOWN
    return array_of(call, x.shape, inexact(x.dtype) if x.dtype and x.dtype.kind != "int" else x.dtype)


@rule
def select(call: Call) -> Any:
    """``select(condlist, choicelist, default=0)``: the broadcast of every condition and choice."""
    conds, choices = jn.sequence(call.arg("condlist")), jn.sequence(call.arg("choicelist"))
    if conds is None or choices is None or not choices:
        return UNKNOWN
    return array_of(call, broadcast([*conds, *choices]), choices[0].dtype)


def piecewise(call: Call) -> Any:
    x = as_array(call.arg("x"))
    return array_of(call, x.shape, x.dtype) if x is not None else UNKNOWN


def tri(call: Call) -> Any:
    n = as_dim(call.arg("N"))
    m = call.arg("M")
    return array_of(call, Shape((n, n if is_none(m) else as_dim(m))), given_dtype(call) or FLOAT)


def tri_indices(call: Call) -> Any:
    """``tril_indices(n, k=0, m=None)``: two index arrays of the triangle's size."""
    n, k = int_const(call.arg("n")), int_const(call.arg("k"))
    m = call.arg("m")
    mi = n if is_none(m) else int_const(m)
    count = None
    if n is not None and k is not None and mi is not None:
        upper = call.name.startswith("triu")
        count = sum(1 for i in range(n) for j in range(mi) if (j - i >= k if upper else j - i <= k))
    return Tuple((array_of(call, Shape((count,)), INT), array_of(call, Shape((count,)), INT)))


def indices(call: Call) -> Any:
    from .rules import dims_of_value

    d = dims_of_value(call.arg("dimensions"))
    if d is None:
        return UNKNOWN
    return array_of(call, Shape((len(d), *d)), INT)


def unravel_index(call: Call) -> Any:
    from .rules import dims_of_value

    i = as_array(call.arg("indices"))
    d = dims_of_value(call.arg("shape"))
    if i is None or d is None:
        return UNKNOWN
    return Tuple(tuple(array_of(call, i.shape, INT) for _ in d))


def same_shape(call: Call) -> Any:
    """The first operand's shape and dtype (``flip``, ``roll``, ``tril``, ``copy``)."""
    values = positional(call)
    a = as_array(values[0]) if values else None
    return array_of(call, a.shape, a.dtype) if a is not None else UNKNOWN


def _scalar_types() -> Entries:
    """``jnp.float32(x)``, ``np.int64(x)``: ``x`` as an array of that dtype."""
    out: Entries = {}
    names = [
        "float16",
        "float32",
        "float64",
        "bfloat16",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool_",
        "complex64",
        "complex128",
    ]
    for name in names:
        out.update(family(BOTH, [name], partial(scalar_type, name=name)))
    return out


def _atleast(n: int) -> Entries:
    return family(BOTH, [f"atleast_{n}d"], partial(sh.atleast, n=n))


UNARY_SAME = [
    "negative",
    "positive",
    "sign",
    "floor",
    "ceil",
    "rint",
    "trunc",
    "fix",
    "conj",
    "conjugate",
    "square",
    "fabs",
    "round",
    "around",
    "flip",
    "fliplr",
    "flipud",
    "roll",
    "tril",
    "triu",
    "copy",
    "nan_to_num",
    "invert",
    "bitwise_not",
    "bitwise_invert",
    "spacing",
]
UNARY_INEXACT = [
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sqrt",
    "cbrt",
    "reciprocal",
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "asin",
    "acos",
    "atan",
    "asinh",
    "acosh",
    "atanh",
    "deg2rad",
    "rad2deg",
    "degrees",
    "radians",
    "sinc",
    "i0",
]
UNARY_REAL = ["abs", "absolute", "real", "imag"]
UNARY_BOOL = ["isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit", "logical_not", "iscomplex", "isreal"]
BINARY = [
    "add",
    "subtract",
    "multiply",
    "floor_divide",
    "mod",
    "remainder",
    "fmod",
    "power",
    "pow",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "nextafter",
    "copysign",
    "heaviside",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "gcd",
    "lcm",
    "ldexp",
]
BINARY_INEXACT = ["divide", "true_divide", "float_power", "arctan2", "atan2", "hypot", "logaddexp", "logaddexp2"]
BINARY_BOOL = [
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "isclose",
]

TABLE: Entries = {
    **family(BOTH, UNARY_SAME, ufunc, nin=1),
    **family(BOTH, UNARY_INEXACT, ufunc, nin=1, result=inexact),
    **family(BOTH, UNARY_REAL, ufunc, nin=1, result=real_of),
    **family(BOTH, ["angle"], ufunc, nin=1, result=lambda d: real_of(inexact(d))),
    **family(BOTH, UNARY_BOOL, ufunc, nin=1, result=boolean),
    **family(BOTH, BINARY, ufunc, nin=2),
    **family(BOTH, BINARY_INEXACT, ufunc, nin=2, result=inexact),
    **family(BOTH, BINARY_BOOL, ufunc, nin=2, result=boolean),
    **family(BOTH, ["clip"], clip),
    **family(BOTH, ["divmod"], divmod_),
    **family(BOTH, ["where"], ix.where, static=("size",)),
    # reductions
    **family(BOTH, ["sum", "nansum", "nanprod"], red.reduction, static=AXIS, result=red.summed),
    **family(["jax.numpy"], ["prod"], red.reduction, static=AXIS, result=red.summed),
    **family(["numpy"], ["prod"], host_prod),
    **family(BOTH, ["max", "min", "amax", "amin", "nanmax", "nanmin", "ptp"], red.reduction, static=AXIS),
    **family(
        BOTH, ["mean", "std", "var", "nanmean", "nanstd", "nanvar", "median", "nanmedian"], red.moment, static=AXIS
    ),
    **family(BOTH, ["all", "any"], red.reduction, static=AXIS, result=red.to_bool),
    **family(BOTH, ["count_nonzero"], red.count, static=AXIS),
    **family(BOTH, ["average"], red.moment, static=AXIS),
    **family(BOTH, ["argmax", "argmin", "nanargmax", "nanargmin"], red.argreduction, static=("axis", "keepdims")),
    **family(BOTH, ["cumsum", "cumprod", "nancumsum", "nancumprod"], red.cumulative, static=("axis", "dtype")),
    **family(BOTH, ["percentile", "quantile", "nanpercentile", "nanquantile"], red.quantile, static=AXIS),
    **family(BOTH, ["sort"], sort, static=("axis",)),
    **family(BOTH, ["argsort"], sort, static=("axis",), result=lambda d: INT),
    # contractions
    **family(["jax.numpy"], ["matmul"], c.matmul),
    **family(["numpy"], ["matmul"], c.matmul, a="x1", b="x2"),
    **family(BOTH, ["dot"], c.dot),
    **family(BOTH, ["vdot"], c.vdot),
    **family(BOTH, ["inner"], c.inner),
    **family(BOTH, ["outer"], c.outer),
    **family(BOTH, ["tensordot"], c.tensordot, static=("axes",)),
    **family(BOTH, ["einsum"], c.einsum, static=("subscripts",)),
    # shapes
    **family(BOTH, ["reshape"], sh.reshape, static=("shape", "order")),
    **family(BOTH, ["ravel"], sh.ravel, static=("order",)),
    **family(BOTH, ["transpose", "permute_dims"], sh.transpose, static=("axes",)),
    **family(BOTH, ["matrix_transpose"], sh.matrix_transpose),
    **family(BOTH, ["swapaxes"], sh.swapaxes, static=("axis1", "axis2")),
    **family(BOTH, ["moveaxis"], sh.moveaxis, static=("source", "destination")),
    **family(BOTH, ["expand_dims"], sh.expand_dims, static=("axis",)),
    **family(BOTH, ["squeeze"], sh.squeeze, static=("axis",)),
    **family(BOTH, ["broadcast_to"], sh.broadcast_to, static=("shape",)),
    **family(BOTH, ["tile"], sh.tile, static=("reps",)),
    **family(BOTH, ["repeat"], sh.repeat, static=("axis", "total_repeat_length")),
    **family(BOTH, ["pad"], sh.pad, static=("pad_width", "mode")),
    **family(BOTH, ["diagonal"], sh.diagonal, static=("offset", "axis1", "axis2")),
    **family(BOTH, ["trace"], sh.trace, static=("offset", "axis1", "axis2")),
    **family(BOTH, ["diag"], sh.diag, static=("k",)),
    **family(BOTH, ["diff"], sh.diff, static=("n", "axis")),
    **_atleast(1),
    **_atleast(2),
    **_atleast(3),
    # joining and splitting
    **family(BOTH, ["concatenate", "concat"], jn.concatenate, static=("axis",)),
    **family(BOTH, ["stack"], jn.stack, static=("axis",)),
    **family(BOTH, ["vstack"], jn.vstack),
    **family(BOTH, ["hstack"], jn.hstack),
    **family(BOTH, ["dstack"], jn.dstack),
    **family(BOTH, ["column_stack"], jn.column_stack),
    **family(BOTH, ["split"], jn.split, static=("indices_or_sections", "axis")),
    **family(BOTH, ["array_split"], jn.split, static=("indices_or_sections", "axis"), equal=False),
    **family(["jax.numpy"], ["unstack"], jn.unstack, static=("axis",)),
    **family(BOTH, ["meshgrid"], jn.meshgrid, static=("indexing", "sparse")),
    **family(BOTH, ["broadcast_arrays"], jn.broadcast_arrays),
    **family(BOTH, ["broadcast_shapes"], jn.broadcast_shapes_value),
    # indexing
    **family(BOTH, ["take"], ix.take, static=("axis", "mode")),
    **family(BOTH, ["take_along_axis"], ix.take_along_axis, static=("axis",)),
    **family(BOTH, ["nonzero"], ix.nonzero, static=("size",)),
    **family(BOTH, ["argwhere"], ix.argwhere, static=("size",)),
    **family(BOTH, ["flatnonzero"], ix.flatnonzero, static=("size",)),
    **family(BOTH, ["searchsorted"], searchsorted, static=("side",)),
    # creation
    **family(BOTH, ["zeros", "ones", "empty"], create, static=("shape", "dtype")),
    **family(BOTH, ["full"], full, static=("shape", "dtype")),
    **family(BOTH, ["zeros_like", "ones_like", "full_like"], like, static=("shape", "dtype")),
    **family(BOTH, ["empty_like"], like, param="prototype", static=("shape", "dtype")),
    **family(BOTH, ["eye"], eye, static=("N", "M", "k", "dtype")),
    **family(BOTH, ["identity"], eye, n="n", static=("n", "dtype")),
    **family(BOTH, ["arange"], arange, static=("start", "stop", "step", "dtype")),
    **family(
        BOTH, ["linspace", "logspace", "geomspace"], linspace, static=("num", "endpoint", "retstep", "dtype", "axis")
    ),
    **family(BOTH, ["array"], array, static=("dtype", "ndmin")),
    **family(BOTH, ["asarray"], array, param="a", static=("dtype",)),
    **family(BOTH, ["astype"], astype, static=("dtype",)),
    **family(BOTH, ["tri"], tri, static=("N", "M", "k", "dtype")),
    **family(BOTH, ["tril_indices", "triu_indices"], tri_indices, static=("n", "k", "m")),
    **family(BOTH, ["indices"], indices, static=("dimensions", "dtype")),
    **family(BOTH, ["unravel_index"], unravel_index, static=("shape",)),
    **_scalar_types(),
    # properties of arrays and dtypes
    **family(BOTH, ["shape"], shape),
    **family(BOTH, ["ndim"], ndim),
    **family(BOTH, ["size"], size),
    **family(BOTH, ["issubdtype", "isscalar", "iscomplexobj", "isrealobj", "isdtype", "can_cast"], python_bool),
    **family(BOTH, ["array_equal", "array_equiv", "allclose"], array_equal),
    **family(BOTH, ["dtype", "finfo", "iinfo", "result_type", "promote_types"], opaque),
    **family(BOTH, ["vectorize", "frompyfunc", "einsum_path", "apply_along_axis"], opaque),
    # the rest
    **family(BOTH, ["unique"], unique, static=("size", "axis")),
    **family(BOTH, ["bincount"], bincount, static=("length", "minlength")),
    **family(BOTH, ["interp"], interp),
    **family(BOTH, ["polyval"], polyval),
    **family(BOTH, ["select"], select),
    **family(BOTH, ["piecewise"], piecewise),
    # linalg
    **family(LINALG, ["norm"], red.norm, static=("ord", "axis", "keepdims")),
    **family(LINALG, ["solve"], la.solve),
    **family(LINALG, ["inv", "cholesky", "matrix_power"], la.same_matrix),
    **family(LINALG, ["pinv"], la.pinv),
    **family(LINALG, ["det"], la.batch_scalar),
    **family(LINALG, ["matrix_rank"], la.batch_scalar, integer=True),
    **family(LINALG, ["slogdet"], la.slogdet),
    **family(LINALG, ["eigh"], la.eigh, static=("UPLO", "symmetrize_input")),
    **family(LINALG, ["eigvalsh"], la.eigvalsh, static=("UPLO",)),
    **family(LINALG, ["eig"], la.eig),
    **family(LINALG, ["eigvals"], la.eigvals),
    **family(LINALG, ["svd"], la.svd, static=("full_matrices", "compute_uv", "hermitian")),
    **family(LINALG, ["qr"], la.qr, static=("mode",)),
    # fft
    **family(FFT, ["fft", "ifft"], la.fft, static=("n", "axis", "norm")),
    **family(FFT, ["rfft", "ihfft"], la.fft, kind="r2c", static=("n", "axis", "norm")),
    **family(FFT, ["irfft", "hfft"], la.fft, kind="c2r", static=("n", "axis", "norm")),
    **family(FFT, ["fftfreq"], la.fftfreq, static=("n", "d")),
    **family(FFT, ["rfftfreq"], la.rfftfreq, static=("n", "d")),
    **family(FFT, ["fftshift", "ifftshift"], same_shape, static=("axes",)),
}


register(TABLE)
