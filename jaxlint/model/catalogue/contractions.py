"""Contractions: ``matmul`` (and ``@``), ``dot``, ``vdot``, ``inner``, ``outer``,
``tensordot``, ``einsum`` (its subscripts parsed, ``...`` included), ``lax.dot`` and
``lax.dot_general``. A rank-0 operand is a ``scalar-contraction`` problem: ``matmul``
raises, ``dot``/``inner`` silently scale instead of contracting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import Array, Const, List, Shape, Tuple, as_array, constant
from ..dims import Dim
from . import Call
from .rules import (
    Fails,
    array_of,
    broadcast_shapes,
    full_dims,
    given_dtype,
    int_const,
    ints,
    normalize,
    operands,
    promote,
    rule,
    shape_text,
    type_text,
)


def _dtype(call: Call, values: Sequence[Array]) -> Any:
    return given_dtype(call, "preferred_element_type") or promote([a.dtype for a in values])


def contract(lhs: Sequence[Dim], rhs: Sequence[Dim]) -> None:
    """Contracted sizes must agree; JAX's message when two ints differ."""
    for a, b in zip(lhs, rhs, strict=True):
        if dims.different(a, b) and dims.as_int(a) is not None and dims.as_int(b) is not None:
            raise Fails(
                "shape",
                f"dot_general requires contracting dimensions to have the same shape, got {shape_text(lhs)} and {shape_text(rhs)}.",
            )


def _pair(call: Call, a: str, b: str) -> tuple[Array, Array] | None:
    x, y = as_array(call.arg(a)), as_array(call.arg(b))
    if x is None or y is None:
        return None
    return x, y


@rule
def matmul(call: Call, a: str = "a", b: str = "b") -> Any:
    """``matmul(a, b)``: batch axes broadcast, the last of ``a`` against the second to
    last of ``b`` (a vector operand is promoted and its axis dropped)."""
    pair = _pair(call, a, b)
    if pair is None:
        return UNKNOWN
    x, y = pair
    for i, v in enumerate(pair):
        if v.rank == 0:
            raise Fails("scalar-contraction", f"matmul input operand {i} must have ndim at least 1, but it has ndim 0")
    dt = _dtype(call, pair)
    dx, dy = full_dims(x), full_dims(y)
    if dx is None or dy is None:
        return array_of(call, None, dt)
    lx, ly = list(dx), list(dy)
    vec_x, vec_y = len(lx) == 1, len(ly) == 1
    if vec_x:
        lx = [1, *lx]
    if vec_y:
        ly = [*ly, 1]
    contract([lx[-1]], [ly[-2]])
    ok, batch = broadcast_shapes([Shape(tuple(lx[:-2])), Shape(tuple(ly[:-2]))])
    if not ok:
        raise Fails("shape", f"Incompatible types for matmul arguments: {type_text(x)} and {type_text(y)}")
    assert batch is not None
    out = list(batch.dims)
    if not vec_x:
        out.append(lx[-2])
    if not vec_y:
        out.append(ly[-1])
    return array_of(call, Shape(tuple(out)), dt)


def _scalar_scales(call: Call, x: Array, y: Array, name: str) -> Any:
    """A rank-0 operand of ``dot``/``inner``: JAX multiplies, the problem is recorded."""
    call.problem(
        "scalar-contraction",
        f"{name} of a rank-0 operand multiplies elementwise instead of contracting (shapes {x.shape} and {y.shape})",
    )
    ok, shape = broadcast_shapes([x.shape, y.shape])
    return array_of(call, shape if ok else None, promote([x.dtype, y.dtype]))


@rule
def dot(call: Call, a: str = "a", b: str = "b") -> Any:
    """``dot(a, b)``: the last axis of ``a`` against the second to last of ``b`` (its
    only one when ``b`` is a vector)."""
    pair = _pair(call, a, b)
    if pair is None:
        return UNKNOWN
    x, y = pair
    if x.rank == 0 or y.rank == 0:
        return _scalar_scales(call, x, y, "dot")
    dt = _dtype(call, pair)
    dx, dy = full_dims(x), full_dims(y)
    if dx is None or dy is None:
        return array_of(call, None, dt)
    k = -1 if len(dy) == 1 else -2
    contract([dx[-1]], [dy[k]])
    rest_y = dy[:-2] + dy[-1:] if len(dy) > 1 else ()
    return array_of(call, Shape(dx[:-1] + rest_y), dt)


@rule
def inner(call: Call, a: str = "a", b: str = "b") -> Any:
    """``inner(a, b)``: the last axes contracted; ``a.shape[:-1] + b.shape[:-1]``."""
    pair = _pair(call, a, b)
    if pair is None:
        return UNKNOWN
    x, y = pair
    if x.rank == 0 or y.rank == 0:
        return _scalar_scales(call, x, y, "inner")
    dt = _dtype(call, pair)
    dx, dy = full_dims(x), full_dims(y)
    if dx is None or dy is None:
        return array_of(call, None, dt)
    contract([dx[-1]], [dy[-1]])
    return array_of(call, Shape(dx[:-1] + dy[:-1]), dt)


@rule
def vdot(call: Call, a: str = "a", b: str = "b") -> Any:
    """``vdot(a, b)``: both flattened, contracted: a scalar."""
    pair = _pair(call, a, b)
    if pair is None:
        return UNKNOWN
    x, y = pair
    dx, dy = full_dims(x), full_dims(y)
    if dx is not None and dy is not None:
        contract([dims.product(dx)], [dims.product(dy)])
    return array_of(call, Shape(()), _dtype(call, pair))


def outer(call: Call, a: str = "a", b: str = "b") -> Any:
    """``outer(a, b)``: ``(a.size, b.size)``."""
    pair = _pair(call, a, b)
    if pair is None:
        return UNKNOWN
    dx, dy = full_dims(pair[0]), full_dims(pair[1])
    size_x = dims.product(dx) if dx is not None else None
    size_y = dims.product(dy) if dy is not None else None
    return array_of(call, Shape((size_x, size_y)), _dtype(call, pair))


@rule
def tensordot(call: Call, a: str = "a", b: str = "b") -> Any:
    """``tensordot(a, b, axes=2)``: an int (the last axes of ``a`` against the first of
    ``b``) or a pair of axis sequences."""
    pair = _pair(call, a, b)
    if pair is None:
        return UNKNOWN
    dt = _dtype(call, pair)
    dx, dy = full_dims(pair[0]), full_dims(pair[1])
    if dx is None or dy is None:
        return array_of(call, None, dt)
    axes = call.arg("axes")
    n = int_const(axes)
    if n is not None:
        if n > len(dx) or n > len(dy) or n < 0:
            return UNKNOWN
        ax_x, ax_y = list(range(len(dx) - n, len(dx))), list(range(n))
    else:
        if type(axes) not in (Tuple, List) or len(axes.items) != 2:
            return array_of(call, None, dt)
        ix, iy = ints(axes.items[0]), ints(axes.items[1])
        if ix is None or iy is None or len(ix) != len(iy):
            return array_of(call, None, dt)
        ax_x = [normalize(i, len(dx)) for i in ix]
        ax_y = [normalize(i, len(dy)) for i in iy]
    contract([dx[i] for i in ax_x], [dy[i] for i in ax_y])
    out = tuple(d for i, d in enumerate(dx) if i not in ax_x) + tuple(d for i, d in enumerate(dy) if i not in ax_y)
    return array_of(call, Shape(out), dt)


@rule
def dot_general(call: Call) -> Any:
    """``lax.dot_general(lhs, rhs, dimension_numbers)``: batch axes, then the free axes of
    ``lhs``, then those of ``rhs``."""
    pair = _pair(call, "lhs", "rhs")
    if pair is None:
        return UNKNOWN
    dt = _dtype(call, pair)
    dn = constant(call.arg("dimension_numbers"))
    dx, dy = full_dims(pair[0]), full_dims(pair[1])
    try:
        (lc, rc), (lb, rb) = dn
        lc, rc, lb, rb = (tuple(int(i) for i in t) for t in (lc, rc, lb, rb))
    except (TypeError, ValueError):
        return array_of(call, None, dt)
    if dx is None or dy is None:
        return array_of(call, None, dt)
    if any(not 0 <= i < len(dx) for i in lc + lb) or any(not 0 <= i < len(dy) for i in rc + rb):
        return UNKNOWN
    contract([dx[i] for i in lc], [dy[i] for i in rc])
    batch = tuple(dx[i] for i in lb)
    free_x = tuple(d for i, d in enumerate(dx) if i not in lc and i not in lb)
    free_y = tuple(d for i, d in enumerate(dy) if i not in rc and i not in rb)
    return array_of(call, Shape(batch + free_x + free_y), dt)


@rule
def lax_dot(call: Call) -> Any:
    """``lax.dot(lhs, rhs)``: vector and matrix products only."""
    pair = _pair(call, "lhs", "rhs")
    if pair is None:
        return UNKNOWN
    x, y = pair
    dt = _dtype(call, pair)
    dx, dy = full_dims(x), full_dims(y)
    if dx is None or dy is None:
        return array_of(call, None, dt)
    if len(dx) not in (1, 2) or len(dy) not in (1, 2):
        kind = "scalar-contraction" if 0 in (len(dx), len(dy)) else "rank"
        raise Fails(
            kind,
            "jax.lax.dot: dimension_numbers must be specified when not performing simple un-batched "
            f"matrix-matrix, matrix-vector, or vector-vector products; got lhs_shape={shape_text(dx)} rhs_shape={shape_text(dy)}",
        )
    k = 0
    contract([dx[-1]], [dy[k]])
    return array_of(call, Shape(dx[:-1] + dy[1:]), dt)


# ----------------------------------------------------------------------------------
# einsum
# ----------------------------------------------------------------------------------
def _terms(spec: str) -> list[str] | None:
    out = []
    for t in spec.split(","):
        t = t.strip()
        if t.replace("...", "").isalpha() or t in ("", "..."):
            if t.count("...") > 1 or "." in t.replace("...", ""):
                return None
            out.append(t)
        else:
            return None
    return out


@rule
def einsum(call: Call) -> Any:
    """``einsum(subscripts, *operands)``: each label's size from the operands (they must
    agree, or be 1 for a broadcast label), the output's labels given after ``->`` or, when
    implicit, those appearing once in alphabetical order; ``...`` broadcasts."""
    values = operands(call, "operands")
    if call.sig.param("subscripts") is not None:
        spec = call.arg("subscripts")
    elif values:  # numpy declares einsum(*operands)
        spec, values = values[0], values[1:]
    else:
        return UNKNOWN
    if type(spec) is not Const or not isinstance(spec.value, str) or values is None:
        return UNKNOWN
    arrays = [as_array(v) for v in values]
    if any(a is None for a in arrays):
        return UNKNOWN
    known = [a for a in arrays if a is not None]
    dt = _dtype(call, known)
    text = spec.value.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    terms = _terms(lhs)
    if terms is None or len(terms) != len(known):
        return UNKNOWN
    all_dims = [full_dims(a) for a in known]
    if any(d is None for d in all_dims):
        return array_of(call, None, dt)
    sizes: dict[str, Dim] = {}
    ellipses: list[Shape] = []
    for i, (term, d) in enumerate(zip(terms, all_dims, strict=True)):
        assert d is not None
        labels = term.replace("...", "")
        if "..." in term:
            n_ell = len(d) - len(labels)
            if n_ell < 0:
                raise Fails(
                    "rank",
                    f"Einstein sum subscript '{term}' does not contain the correct number of indices for operand {i}.",
                )
            before = term.index("...")
            ell = d[before : before + n_ell]
            d = d[:before] + d[before + n_ell :]
            ellipses.append(Shape(tuple(ell)))
        elif len(labels) != len(d):
            raise Fails(
                "rank",
                f"Einstein sum subscript '{term}' does not contain the correct number of indices for operand {i}.",
            )
        for label, size in zip(labels, d, strict=True):
            if label not in sizes or sizes[label] == 1:
                sizes[label] = size
                continue
            prev = sizes[label]
            if size == 1 or dims.equal(prev, size):
                continue
            if dims.as_int(prev) is not None and dims.as_int(size) is not None:
                # (jax's message shows the earlier size first)
                raise Fails(
                    "shape", f"Size of label '{label}' for operand {i} ({prev}) does not match previous terms ({size})."
                )
            sizes[label] = None
    ok, ell_shape = broadcast_shapes(ellipses) if ellipses else (True, Shape(()))
    if not ok:
        return UNKNOWN
    if arrow:
        out_term = rhs
    else:
        counts: dict[str, int] = {}
        for t in terms:
            for ch in t.replace("...", ""):
                counts[ch] = counts.get(ch, 0) + 1
        out_term = ("..." if ellipses else "") + "".join(sorted(c for c, n in counts.items() if n == 1))
    out: list[Dim] = []
    rest = False
    pieces = out_term.split("...")
    for j, part in enumerate(pieces):
        for ch in part:
            if ch not in sizes:
                return UNKNOWN
            out.append(sizes[ch])
        if j < len(pieces) - 1:
            if ell_shape is None:
                rest = True
                break
            out.extend(ell_shape.dims)
    if rest:
        return array_of(call, None, dt)
    return array_of(call, Shape(tuple(out)), dt)
