"""``linalg``: functions of stacks of matrices (the last two axes): ``solve``, ``inv``,
``cholesky``, ``det``, ``slogdet``, ``eigh``, ``svd``, ``qr``, ``pinv``, ``eig``, ``lstsq``; and the
``fft`` functions along one axis."""

from __future__ import annotations

from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import FLOAT, INT, Array, Shape, Tuple, as_array, as_dim
from ..dims import Dim
from . import Call
from .rules import (
    COMPLEX,
    array_of,
    bool_const,
    full_dims,
    given_dtype,
    inexact,
    int_const,
    is_none,
    normalize,
    positional,
    real_of,
    rule,
)


def _matrix(call: Call, param: str) -> tuple[Array, tuple[Dim, ...]] | None:
    """The stack of matrices the first operand is (``a``, NumPy's ``A``, jax's ``M``)."""
    values = positional(call)
    a = as_array(values[0]) if values else None
    if a is None:
        return None
    d = full_dims(a)
    if d is None or len(d) < 2:
        return None
    return a, d


def same_matrix(call: Call, param: str = "a") -> Any:
    """``inv``, ``cholesky``, ``expm``: the shape, inexact."""
    a = as_array(call.arg(param))
    return array_of(call, a.shape, inexact(a.dtype)) if a is not None else UNKNOWN


def pinv(call: Call, param: str = "a") -> Any:
    m = _matrix(call, param)
    if m is None:
        return UNKNOWN
    a, d = m
    return array_of(call, Shape((*d[:-2], d[-1], d[-2])), inexact(a.dtype))


def batch_scalar(call: Call, param: str = "a", integer: bool = False) -> Any:
    """``det``, ``matrix_rank``: one value per matrix."""
    m = _matrix(call, param)
    if m is None:
        return UNKNOWN
    a, d = m
    return array_of(call, Shape(d[:-2]), INT if integer else inexact(a.dtype))


def slogdet(call: Call, param: str = "a") -> Any:
    m = _matrix(call, param)
    if m is None:
        return UNKNOWN
    a, d = m
    s = Shape(d[:-2])
    return Tuple((array_of(call, s, inexact(a.dtype)), array_of(call, s, real_of(inexact(a.dtype)))))


def eigh(call: Call, param: str = "a") -> Any:
    """``eigh``: (eigenvalues ``(..., n)``, real; eigenvectors ``(..., n, n)``)."""
    m = _matrix(call, param)
    if m is None:
        return UNKNOWN
    a, d = m
    dt = inexact(a.dtype)
    return Tuple((array_of(call, Shape(d[:-1]), real_of(dt)), array_of(call, Shape(d), dt)))


def eigvalsh(call: Call, param: str = "a") -> Any:
    m = _matrix(call, param)
    if m is None:
        return UNKNOWN
    a, d = m
    return array_of(call, Shape(d[:-1]), real_of(inexact(a.dtype)))


def eig(call: Call, param: str = "a") -> Any:
    """``eig``: complex in jax; in NumPy real when every eigenvalue is (the data decides)."""
    m = _matrix(call, param)
    if m is None:
        return UNKNOWN
    _, d = m
    dt = None if call.host else COMPLEX
    return Tuple((array_of(call, Shape(d[:-1]), dt), array_of(call, Shape(d), dt)))


def eigvals(call: Call, param: str = "a") -> Any:
    m = _matrix(call, param)
    if m is None:
        return UNKNOWN
    _, d = m
    return array_of(call, Shape(d[:-1]), None if call.host else COMPLEX)


def _min(a: Dim, b: Dim) -> Dim:
    if dims.equal(a, b):
        return a
    ia, ib = dims.as_int(a), dims.as_int(b)
    return min(ia, ib) if ia is not None and ib is not None else None


def svd(call: Call, param: str = "a") -> Any:
    """``svd(a, full_matrices=True, compute_uv=True)``: ``(u, s, vh)`` or ``s``."""
    m = _matrix(call, param)
    if m is None:
        return UNKNOWN
    a, d = m
    full, uv = bool_const(call.arg("full_matrices")), bool_const(call.arg("compute_uv"))
    dt = inexact(a.dtype)
    *batch, rows, cols = d
    k = _min(rows, cols)
    s = array_of(call, Shape((*batch, k)), real_of(dt))
    if uv is False:
        return s
    if uv is None or full is None:
        return UNKNOWN
    u = Shape((*batch, rows, rows if full else k))
    vh = Shape((*batch, cols if full else k, cols))
    return Tuple((array_of(call, u, dt), s, array_of(call, vh, dt)))


def qr(call: Call, param: str = "a") -> Any:
    """``qr(a, mode="reduced")``: ``(q (..., m, k), r (..., k, n))``; "complete": ``k = m``; "r": ``r``."""
    m = _matrix(call, param)
    if m is None:
        return UNKNOWN
    a, d = m
    mode = call.arg("mode")
    mv = getattr(mode, "value", None)
    dt = inexact(a.dtype)
    *batch, rows, cols = d
    if mv == "reduced":
        k = _min(rows, cols)
    elif mv == "complete":
        k = rows
    elif mv == "r":
        return array_of(call, Shape((*batch, _min(rows, cols), cols)), dt)
    else:
        return UNKNOWN
    return Tuple((array_of(call, Shape((*batch, rows, k)), dt), array_of(call, Shape((*batch, k, cols)), dt)))


def lstsq(call: Call) -> Any:
    """``lstsq(a, b)`` of a matrix ``a (M, N)`` and ``b (M,)`` or ``(M, K)``: ``(x,
    residuals, rank, s)``, ``x`` ``(N,)`` or ``(N, K)``, ``rank`` one int, ``s`` the
    ``min(M, N)`` singular values. The residuals' shape is left unknown: NumPy's are empty
    for a rank-deficient or wide ``a`` (JAX's are ``(1,)`` or ``(K,)``, unless
    ``numpy_resid``)."""
    a, b = as_array(call.arg("a")), as_array(call.arg("b"))
    da, db = (full_dims(a), full_dims(b)) if a is not None and b is not None else (None, None)
    if a is None or b is None or da is None or db is None or len(da) != 2 or len(db) not in (1, 2):
        return UNKNOWN
    rows, cols = da
    dt = inexact(a.dtype)
    x = Shape((cols,) if len(db) == 1 else (cols, db[1]))
    return Tuple(
        (
            array_of(call, x, dt),
            array_of(call, None, real_of(dt)),
            array_of(call, Shape(()), INT),
            array_of(call, Shape((_min(rows, cols),)), real_of(dt)),
        )
    )


def solve(call: Call) -> Any:
    """``solve(a, b)``: ``b``'s shape (a vector or a stack of matrices)."""
    a, b = as_array(call.arg("a")), as_array(call.arg("b"))
    if a is None or b is None:
        return UNKNOWN
    return array_of(call, b.shape, inexact(b.dtype))


@rule
def fft(call: Call, kind: str = "c2c") -> Any:
    """``fft(a, n=None, axis=-1)`` (``c2c``), ``rfft`` (``r2c``: ``n // 2 + 1``), ``irfft``
    (``c2r``: ``n`` or ``2 * (m - 1)``)."""
    a = as_array(call.arg("a"))
    if a is None:
        return UNKNOWN
    d, ax = full_dims(a), int_const(call.arg("axis"))
    dt = COMPLEX if kind != "c2r" else real_of(inexact(a.dtype))
    if d is None or ax is None:
        return array_of(call, None, dt)
    k = normalize(ax, len(d))
    nv = call.arg("n")
    n = d[k] if is_none(nv) else as_dim(nv)
    out = list(d)
    if kind == "r2c":
        ni = dims.as_int(n)
        out[k] = ni // 2 + 1 if ni is not None else None
    elif kind == "c2r":
        out[k] = dims.mul(2, dims.sub(d[k], 1)) if is_none(nv) else n
    else:
        out[k] = n
    return array_of(call, Shape(tuple(out)), dt)


def fftfreq(call: Call) -> Any:
    return array_of(call, Shape((as_dim(call.arg("n")),)), given_float(call))


def rfftfreq(call: Call) -> Any:
    n = dims.as_int(as_dim(call.arg("n")))
    return array_of(call, Shape((n // 2 + 1 if n is not None else None,)), given_float(call))


def given_float(call: Call) -> Any:
    return given_dtype(call) or FLOAT
