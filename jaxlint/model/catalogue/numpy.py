"""``jax.numpy`` and ``numpy`` (host arrays: ``Call.host``), with their ``linalg`` and
``fft``; ``numpy.random`` and ``numpy.testing`` live in ``host.py``."""

from __future__ import annotations

from functools import partial

from ..abstract import INT
from . import contractions as c
from . import decompositions as la
from . import indexing as ix
from . import joining as jn
from . import reductions as red
from . import register
from . import shaping as sh
from .build import Entries, family
from .creation import arange, array, eye, full, like, linspace, scalar_type
from .rules import boolean, create, inexact, opaque, python_bool, real_of, ufunc
from .singles import (
    append,
    array_equal,
    astype,
    bincount,
    clip,
    convolve,
    cov,
    delete,
    divmod_,
    gradient,
    host_prod,
    indices,
    interp,
    ndim,
    piecewise,
    polyval,
    same_shape,
    searchsorted,
    select,
    shape,
    size,
    sort,
    tri,
    tri_indices,
    unique,
    unravel_index,
)

BOTH = ("jax.numpy", "numpy")
LINALG = ("jax.numpy.linalg", "numpy.linalg")
FFT = ("jax.numpy.fft", "numpy.fft")
N_ONLY = ("numpy",)
AXIS = ("axis", "keepdims", "dtype")


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
    **family(BOTH, ["cov"], cov, static=("rowvar", "bias", "ddof", "dtype")),
    **family(BOTH, ["corrcoef"], cov, param="x", static=("rowvar", "dtype")),
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
    **family(BOTH, ["delete", "insert"], delete, static=("axis",)),
    **family(BOTH, ["append"], append, static=("axis",)),
    **family(N_ONLY, ["ndindex"], opaque),
    **family(BOTH, ["bincount"], bincount, static=("length", "minlength")),
    **family(BOTH, ["interp"], interp),
    **family(BOTH, ["gradient"], gradient, static=("axis",)),
    **family(BOTH, ["convolve", "correlate"], convolve, static=("mode",)),
    **family(BOTH, ["polyval"], polyval),
    **family(BOTH, ["select"], select),
    **family(BOTH, ["piecewise"], piecewise),
    # linalg
    **family(LINALG, ["norm"], red.norm, static=("ord", "axis", "keepdims")),
    **family(LINALG, ["solve"], la.solve),
    **family(LINALG, ["lstsq"], la.lstsq),
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
