"""Windowed ``lax`` operations: ``conv_general_dilated`` (and ``conv``,
``conv_with_general_padding``) and ``reduce_window``, whose output sizes follow from the
window, the strides, the dilations and the padding (``"VALID"``, ``"SAME"`` or pairs);
and the ``lax`` calls that give one of their operands' shapes (``custom_linear_solve``,
``custom_root``, ``select_n``, ``split``, ``reduce``, ``ragged_dot``, ...)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jaxlint.base.literals import UNKNOWN

from .. import dims
from ..abstract import FLOAT, Array, Const, External, List, Shape, Tuple, as_array, constant
from ..dims import Dim
from . import Call
from .joining import sequence
from .rules import (
    COMPLEX,
    array_of,
    dims_of_value,
    dtype_of,
    full_dims,
    given_dtype,
    int_const,
    ints,
    normalize,
    promote,
    real_of,
    rule,
    shape_of,
)


def _out_size(size: Dim, window: int, stride: int, padding: Any, base: int = 1, dilation: int = 1) -> Dim:
    """One output size of a window sliding over ``size``; ``padding`` "VALID", "SAME" or a pair."""
    span = (window - 1) * dilation + 1
    n = dims.as_int(size)
    if n is None:
        if stride != 1 or base != 1:
            return None
        if padding == "VALID":
            return dims.sub(size, span - 1)
        if padding in ("SAME", "SAME_LOWER"):
            return size
        if isinstance(padding, tuple):
            return dims.add(size, padding[0] + padding[1] - span + 1)
        return None
    n = (n - 1) * base + 1 if n else 0
    if padding in ("SAME", "SAME_LOWER"):
        return -(-n // stride)
    lo, hi = (0, 0) if padding == "VALID" else padding
    return max(0, (n + lo + hi - span) // stride + 1)


def _paddings(v: Any, n: int) -> list[Any] | None:
    c = constant(v)
    if c in ("VALID", "SAME", "SAME_LOWER"):
        return [c] * n
    pairs = (
        isinstance(c, (tuple, list)) and len(c) == n and all(isinstance(p, (tuple, list)) and len(p) == 2 for p in c)
    )
    if pairs and all(type(x) is int for p in c for x in p):
        return [tuple(p) for p in c]
    return None


def _ones(v: Any, n: int) -> tuple[int, ...] | None:
    if type(v) is Const and v.value is None:
        return (1,) * n
    got = ints(v)
    return got if got is not None and len(got) == n else None


def _layout(v: Any, rank: int) -> tuple[str, str, str] | None:
    """The (lhs, rhs, out) layouts: NC..., OI..., NC... by default; strings like
    ``("NHWC", "HWIO", "NHWC")`` whose spatial letters come in one order."""
    c = constant(v)
    if c is None:
        sp = "".join(chr(ord("0") + i) for i in range(rank - 2))
        return "NC" + sp, "OI" + sp, "NC" + sp
    if not (isinstance(c, (tuple, list)) and len(c) == 3 and all(isinstance(s, str) and len(s) == rank for s in c)):
        return None
    lhs, rhs, out = c
    spatial = [ch for ch in lhs if ch not in "NC"]
    if [ch for ch in rhs if ch not in "OI"] != spatial or [ch for ch in out if ch not in "NC"] != spatial:
        return None
    return lhs, rhs, out


@rule
def conv(call: Call) -> Any:
    """``conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
    dimension_numbers)``: batch from ``lhs``, features from ``rhs``, spatial sizes by window."""
    lhs, rhs = as_array(call.arg("lhs")), as_array(call.arg("rhs"))
    if lhs is None or rhs is None:
        return UNKNOWN
    dt = given_dtype(call, "preferred_element_type") or promote([lhs.dtype, rhs.dtype])
    dl, dr = full_dims(lhs), full_dims(rhs)
    if dl is None or dr is None or len(dl) != len(dr) or len(dl) < 3:
        return array_of(call, None, dt)
    rank = len(dl)
    layout = _layout(call.arg("dimension_numbers") if call.sig.param("dimension_numbers") else Const(None), rank)
    n_sp = rank - 2
    strides = _ones(call.arg("window_strides"), n_sp)
    pads = _paddings(call.arg("padding"), n_sp)
    base = _ones(call.arg("lhs_dilation"), n_sp) if call.sig.param("lhs_dilation") else (1,) * n_sp
    dil = _ones(call.arg("rhs_dilation"), n_sp) if call.sig.param("rhs_dilation") else (1,) * n_sp
    if layout is None or strides is None or pads is None or base is None or dil is None:
        return array_of(call, None, dt)
    ls, rs, os_ = layout
    spatial = [ch for ch in ls if ch not in "NC"]
    sizes: dict[str, Dim] = {}
    for j, ch in enumerate(spatial):
        w = dims.as_int(dr[rs.index(ch)])
        if w is None:
            sizes[ch] = None
            continue
        sizes[ch] = _out_size(dl[ls.index(ch)], w, strides[j], pads[j], base[j], dil[j])
    batch_groups = int_const(call.arg("batch_group_count")) if call.sig.param("batch_group_count") else 1
    sizes["N"] = dl[ls.index("N")] if batch_groups == 1 else None
    sizes["C"] = dr[rs.index("O")]
    return array_of(call, Shape(tuple(sizes[ch] for ch in os_)), dt)


@rule
def reduce_window(call: Call) -> Any:
    """``reduce_window(operand, init_value, computation, window_dimensions, window_strides,
    padding)``: each axis slid over by its window."""
    a = as_array(call.arg("operand"))
    if a is None:
        return UNKNOWN
    d = full_dims(a)
    win = ints(call.arg("window_dimensions"))
    if d is None or win is None or len(win) != len(d):
        return array_of(call, None, a.dtype)
    n = len(d)
    strides, pads = _ones(call.arg("window_strides"), n), _paddings(call.arg("padding"), n)
    base, dil = _ones(call.arg("base_dilation"), n), _ones(call.arg("window_dilation"), n)
    if strides is None or pads is None or base is None or dil is None:
        return array_of(call, None, a.dtype)
    out = tuple(_out_size(d[i], win[i], strides[i], pads[i], base[i], dil[i]) for i in range(n))
    return array_of(call, Shape(out), a.dtype)


def operand_like(call: Call, param: str) -> Any:
    """The value of ``param`` as the result (``custom_linear_solve``'s ``b``,
    ``custom_root``'s ``initial_guess``, ``tridiagonal_solve``'s ``b``)."""
    v = call.arg(param)
    a = as_array(v)
    if type(v) is Array and a is not None:
        return array_of(call, a.shape, a.dtype)
    return v


def select_n(call: Call) -> Any:
    cases = sequence(call.arg("cases"))
    if not cases:
        return UNKNOWN
    return array_of(call, cases[0].shape, cases[0].dtype)


@rule
def lax_split(call: Call) -> Any:
    """``split(operand, sizes, axis=0)``: a list of arrays of those sizes along ``axis``."""
    a = as_array(call.arg("operand"))
    sizes = dims_of_value(call.arg("sizes"))
    if a is None or sizes is None:
        return UNKNOWN
    d, ax = full_dims(a), int_const(call.arg("axis"))
    if d is None or ax is None:
        return List(tuple(array_of(call, None, a.dtype) for _ in sizes))
    k = normalize(ax, len(d))
    return List(tuple(array_of(call, Shape((*d[:k], s, *d[k + 1 :])), a.dtype) for s in sizes))


def _reduced(a: Array, gone: Sequence[int]) -> Shape | None:
    d = full_dims(a)
    if d is None:
        return None
    return Shape(tuple(x for i, x in enumerate(d) if i not in {g % len(d) for g in gone}))


def lax_reduce(call: Call) -> Any:
    """``reduce(operands, init_values, computation, dimensions)``: those axes removed (a
    tuple of operands gives a tuple)."""
    v = call.arg("operands")
    gone = ints(call.arg("dimensions"))
    if gone is None:
        return UNKNOWN
    if type(v) in (Tuple, List):
        arrays = sequence(v)
        if arrays is None:
            return UNKNOWN
        return type(v)(tuple(array_of(call, _reduced(a, gone), a.dtype) for a in arrays))
    a = as_array(v)
    return array_of(call, _reduced(a, gone), a.dtype) if a is not None else UNKNOWN


def platform_dependent(call: Call) -> Any:
    """``platform_dependent(*args, default=None, **per_platform)``: what the branches agree on."""
    from ..abstract import join_all

    args = call.arg("args")
    branches = (
        [v for _, v in sorted(call.arg("per_platform").items())] if isinstance(call.arg("per_platform"), dict) else []
    )
    if type(call.arg("default")) is not Const:
        branches.append(call.arg("default"))
    if not isinstance(args, tuple) or not branches:
        return UNKNOWN
    return join_all([call.call(b, list(args)) for b in branches])


@rule
def ragged_dot(call: Call) -> Any:
    """``ragged_dot(lhs (m, k), rhs (g, k, n), group_sizes (g,))``: ``(m, n)``."""
    lhs, rhs = as_array(call.arg("lhs")), as_array(call.arg("rhs"))
    if lhs is None or rhs is None:
        return UNKNOWN
    dl, dr = full_dims(lhs), full_dims(rhs)
    dt = given_dtype(call, "preferred_element_type") or promote([lhs.dtype, rhs.dtype])
    if dl is None or dr is None or len(dl) != 2 or len(dr) != 3:
        return array_of(call, None, dt)
    return array_of(call, Shape((dl[0], dr[2])), dt)


def gather(call: Call) -> Any:
    """``gather``: the operand's dtype; the shape (from the dimension numbers) is not modelled."""
    a = as_array(call.arg("operand"))
    return array_of(call, None, a.dtype) if a is not None else UNKNOWN


@rule
def patches(call: Call) -> Any:
    """``conv_general_dilated_patches(lhs, filter_shape, window_strides, padding)`` (the
    default ``NC...`` layout): ``(N, C * prod(filter_shape), *spatial)``."""
    lhs = as_array(call.arg("lhs"))
    if lhs is None:
        return UNKNOWN
    d, window = full_dims(lhs), ints(call.arg("filter_shape"))
    layout = constant(call.arg("dimension_numbers"))
    if d is None or window is None or len(window) != len(d) - 2 or layout is not None:
        return array_of(call, None, lhs.dtype)
    n = len(window)
    strides, pads = _ones(call.arg("window_strides"), n), _paddings(call.arg("padding"), n)
    base, dil = _ones(call.arg("lhs_dilation"), n), _ones(call.arg("rhs_dilation"), n)
    if strides is None or pads is None or base is None or dil is None:
        return array_of(call, None, lhs.dtype)
    spatial = tuple(_out_size(d[2 + i], window[i], strides[i], pads[i], base[i], dil[i]) for i in range(n))
    return array_of(call, Shape((d[0], dims.mul(d[1], dims.product(window)), *spatial)), lhs.dtype)


def lax_fft(call: Call) -> Any:
    """``fft(x, fft_type, fft_lengths)``: FFT/IFFT keep the shape (complex); RFFT's last
    axis becomes ``n // 2 + 1`` (complex), IRFFT's ``n`` (real)."""
    a = as_array(call.arg("x"))
    kind_v = call.arg("fft_type")
    kind = kind_v.qualified.rsplit(".", 1)[-1] if type(kind_v) is External else constant(kind_v)
    lengths = ints(call.arg("fft_lengths"))
    if a is None or not isinstance(kind, str) or lengths is None:
        return UNKNOWN
    kind = kind.upper()
    d = full_dims(a)
    if kind in ("FFT", "IFFT"):
        return array_of(call, a.shape, COMPLEX)
    if d is None or not d:
        return array_of(call, None, COMPLEX if kind == "RFFT" else real_of(a.dtype))
    if kind == "RFFT":
        return array_of(call, Shape((*d[:-1], lengths[-1] // 2 + 1)), COMPLEX)
    if kind == "IRFFT":
        return array_of(call, Shape((*d[:-1], lengths[-1])), real_of(a.dtype))
    return UNKNOWN


def rng_bit_generator(call: Call) -> Any:
    """``rng_bit_generator(key, shape, dtype=uint32)``: (the next key, bits of ``shape``)."""
    k = as_array(call.arg("key"))
    if k is None:
        return UNKNOWN
    bits = array_of(call, shape_of(call.arg("shape")), dtype_of(call.arg("dtype")))
    return Tuple((array_of(call, k.shape, k.dtype), bits))


def scaled_dot(call: Call) -> Any:
    """``scaled_dot(lhs, rhs)`` without dimension numbers: a batched ``(b, m, k) @ (b, k, n)``."""
    lhs, rhs = as_array(call.arg("lhs")), as_array(call.arg("rhs"))
    if lhs is None or rhs is None:
        return UNKNOWN
    dt = given_dtype(call, "preferred_element_type") or FLOAT
    dl, dr = full_dims(lhs), full_dims(rhs)
    if dl is None or dr is None or len(dl) != 3 or len(dr) != 3 or type(call.arg("dimension_numbers")) is not Const:
        return array_of(call, None, dt)
    if call.arg("dimension_numbers").value is not None:
        return array_of(call, None, dt)
    return array_of(call, Shape((dl[0], dl[1], dr[2])), dt)
