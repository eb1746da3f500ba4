"""Example calls of every catalogue entry, written once for both sides of the check: the
catalogue's rule (on abstract values) and the real function (``jax.eval_shape``, or a
run on CPU where the function is not traceable or is NumPy's).

An example is ``Ex(args, kwargs, partial=False)``: its values are plain Python values and
the markers below (``A((3, 4))``: an array; ``Key()``: a typed key, ``Key(raw=True)``: a
raw one; ``Fn("jax.numpy.tanh")``: a function by name; ``DT("int32")``: a dtype; ``At(a,
i)``: ``a.at[i]``; ``Raw(obj)``: a real object the model sees as UNKNOWN). ``partial``:
the rule may leave parts unknown (a size the data decides). ``examples(q, op)`` gives an
entry's examples: written below for the entries that need their own, else the default of
its rule's family.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial as _partial
from typing import Any

from jaxlint.model.abstract import Const
from jaxlint.model.catalogue import Op, nn, singles
from jaxlint.model.catalogue import keys as k
from jaxlint.model.catalogue import primitives as pr
from jaxlint.model.catalogue import reductions as red
from jaxlint.model.catalogue import rules as ru


@dataclass(frozen=True)
class A:
    shape: tuple[int, ...]
    dtype: str = "float32"
    fill: str = "ones"  # "ones", "eye" (identity matrices), "zeros", "arange"


@dataclass(frozen=True)
class Key:
    raw: bool = False
    batch: tuple[int, ...] = ()


@dataclass(frozen=True)
class Fn:
    qualified: str


@dataclass(frozen=True)
class DT:
    name: str


@dataclass(frozen=True)
class At:
    array: A
    index: Any


@dataclass(frozen=True)
class Raw:
    obj: Any = field(hash=False, compare=False)


@dataclass
class Ex:
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    partial: bool = False
    opaque: bool = False  # the rule gives UNKNOWN: the real call must run
    mapped: bool = False  # run under jax.vmap(axis_name="i", axis_size=2) (collectives)
    # run under jax.shard_map over a one-device mesh with axis "i": "invariant" arguments,
    # or "varying" ones (pcast to varying first)
    sharded: str = ""
    concrete: bool = False  # run on CPU, not traced: what the function does to a concrete value


def ex(*args: Any, **kwargs: Any) -> Ex:
    return Ex(args, kwargs)


def exp(*args: Any, **kwargs: Any) -> Ex:
    return Ex(args, kwargs, partial=True)


def opq(*args: Any, **kwargs: Any) -> Ex:
    return Ex(args, kwargs, opaque=True)


def mapped(*args: Any, partial: bool = False, **kwargs: Any) -> Ex:
    return Ex(args, kwargs, partial=partial, mapped=True)


def sharded(how: str, *args: Any, **kwargs: Any) -> Ex:
    return Ex(args, kwargs, sharded=how)


def _sharding() -> Raw:
    try:
        import jax
    except ImportError:
        return Raw(None)
    return Raw(jax.sharding.SingleDeviceSharding(jax.devices()[0]))


F34 = A((3, 4))
F345 = A((3, 4, 5))
I34 = A((3, 4), "int32")
B34 = A((3, 4), "bool")
SQ = A((3, 3), fill="eye")

INT_OPS = {
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "bitwise_invert",
    "invert",
    "left_shift",
    "right_shift",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "shift_left",
    "shift_right_logical",
    "shift_right_arithmetic",
    "gcd",
    "lcm",
    "population_count",
    "clz",
}


def _name(q: str) -> str:
    return q.rsplit(".", 1)[-1]


def _base(op: Op) -> tuple[Any, dict[str, Any]]:
    r = op.result
    if isinstance(r, _partial):
        return r.func, dict(r.keywords)
    return r, {}


def default_examples(q: str, op: Op) -> list[Ex]:
    fn, kw = _base(op)
    name = _name(q)
    if fn is ru.ufunc:
        dtype = "int32" if name in INT_OPS else "float32"
        if kw.get("nin", 2) == 1:
            if name == "integer_pow":
                return [ex(F34, 3)]
            return [ex(A((3, 4), dtype))]
        if name == "ldexp":
            return [ex(F34, A((4,), "int32"))]
        return [ex(A((3, 4), dtype), A((4,), dtype)), ex(A((2, 1), dtype), 2)]
    if fn is pr.lax_binary:
        dtype = "int32" if name in INT_OPS else "float32"
        return [ex(A((3, 4), dtype), A((3, 4), dtype)), ex(A((3,), dtype), 2 if dtype == "int32" else 2.0)]
    if fn in (red.reduction, red.moment, red.count):
        a = A((3, 4, 5), "bool") if name in ("all", "any") else F345
        return [ex(a), ex(a, axis=1), ex(a, axis=(0, 2), keepdims=True), ex(a, axis=-1)]
    if fn is red.argreduction:
        return [ex(F345), ex(F345, axis=1), ex(F345, axis=-1, keepdims=True)]
    if fn is red.cumulative:
        if q.startswith("jax.lax."):
            return [ex(F34, axis=1), ex(F34)]
        return [ex(F34), ex(F34, axis=1)] if name not in ("sort", "argsort") else [ex(F34), ex(F34, axis=None)]
    if fn is red.quantile:
        qv = 50.0 if "percentile" in name else 0.5
        return [ex(F345, qv), ex(F345, A((2,), fill="zeros"), axis=1)]
    if fn is red.norm:
        return [ex(F34), ex(F34, axis=1), ex(A((2, 3, 4)), axis=(1, 2)), ex(F34, ord=2)]
    if fn is k.draw:
        params = kw.get("params", ())
        value = {"randint": (0, 5)}.get(name)
        given = {p: (value[i] if value else 0.5) for i, p in enumerate(params)}
        if name == "randint":
            return [ex(Key(), (2, 3), **given)]
        if not params:
            return [ex(Key(), (2, 3)), ex(Key())]
        arrays = {p: A(((3, 1), (1, 2), (1, 1))[i]) for i, p in enumerate(params)}
        by_default = op.signature.param("shape").default != Const(None)  # shape=() unless given
        return [ex(Key(), shape=(2, 3), **given), Ex((Key(),), arrays, partial=by_default), ex(Key(), **given)]
    if fn is nn.initializer:
        return [ex()]
    if fn is singles.host_prod:
        return [ex(F345, axis=1), ex((3, 4))]
    return []


WRITTEN: dict[str, list[Ex]] = {}
NAMES: list[tuple[str, tuple[str, ...]]] = []  # every name written, with its namespaces (for a typo check)


def written(names: str, *cases: Ex, prefixes: tuple[str, ...] = ("jax.numpy", "numpy")) -> None:
    for n in names.split():
        NAMES.append((n, prefixes))
        for p in prefixes:
            WRITTEN.setdefault(f"{p}.{n}", []).extend(cases)


J, N = ("jax.numpy",), ("numpy",)
LAX, RND, NN = ("jax.lax",), ("jax.random",), ("jax.nn",)
LINALG, FFT = ("jax.numpy.linalg", "numpy.linalg"), ("jax.numpy.fft", "numpy.fft")
METHODS = ("jax.Array", "numpy.ndarray")

# elementwise
written("clip", ex(F34, 0.0, 1.0), ex(F34, A((4,)), None))
written("divmod", ex(F34, A((4,))))
written("where", ex(B34, F34, A((4,))), ex(A((3, 1), "bool"), 1.0, A((4,))), exp(B34))
written("where", ex(B34, size=3), prefixes=J)
# contractions
written("matmul", ex(A((2, 3, 4)), A((4, 5))), ex(A((3,)), A((3, 4))), ex(A((5, 1, 2, 3)), A((4, 3, 2))))
written("dot", ex(A((2, 3)), A((3, 4))), ex(A((2, 3, 4)), A((5, 4, 6))), ex(A((3,)), A((3,))), ex(F34, A((4,))))
written("vdot", ex(A((2, 3)), A((6,))))
written("inner", ex(A((2, 3)), A((4, 3))))
written("outer", ex(A((2, 3)), A((4,))))
written(
    "cov corrcoef",
    ex(A((20, 6))),
    ex(A((20, 6)), rowvar=False),
    ex(A((20,))),
    ex(A((1, 20))),
    ex(A((20, 1)), rowvar=False),
)
written(
    "tensordot", ex(A((2, 3, 4)), A((3, 4, 5))), ex(A((2, 3)), A((3, 4)), axes=1), ex(F34, A((4, 3)), ((1, 0), (0, 1)))
)
written(
    "einsum",
    ex("ij,jk->ik", A((2, 3)), A((3, 4))),
    ex("...ij,...jk", A((5, 2, 3)), A((5, 3, 4))),
    ex("ii", SQ),
    ex("ij->", F34),
    ex("ij,j", F34, A((4,))),
    ex("bi,bj->bij", A((2, 3)), A((1, 4))),
)
# shapes
written("reshape", ex(F34, (6, -1)), ex(F34, (12,)), ex(F34, 12))
written("ravel", ex(F34))
written("transpose", ex(A((2, 3, 4))), ex(A((2, 3, 4)), (1, 0, 2)))
written("permute_dims", ex(A((2, 3, 4)), (1, 0, 2)), ex(A((2, 3, 4)), (2, 1, 0)))
written("matrix_transpose", ex(A((2, 3, 4))))
written("swapaxes", ex(A((2, 3, 4)), 0, 2))
written("moveaxis", ex(A((2, 3, 4)), 0, -1), ex(A((2, 3, 4)), (0, 1), (2, 0)))
written("expand_dims", ex(F34, 1), ex(F34, (0, 3)))
written("squeeze", ex(A((1, 3, 1))), ex(A((1, 3, 1)), 0))
written("broadcast_to", ex(A((3,)), (2, 3)))
written("tile", ex(A((2, 3)), 2), ex(A((2, 3)), (2, 1, 2)))
written("repeat", ex(A((2, 3)), 2), ex(A((2, 3)), 3, axis=1))
written("pad", ex(A((2, 3)), 1), ex(A((2, 3)), ((1, 2), (0, 1))))
written("diagonal", ex(F34), ex(A((2, 3, 4)), offset=1, axis1=1, axis2=2))
written("trace", ex(F34))
written("diag", ex(A((3,))), ex(F34), ex(A((3,)), k=1))
written("diff", ex(F34), ex(F34, n=2, axis=0))
written("atleast_1d atleast_2d atleast_3d", ex(A((3,))), ex(A(()), A((2, 3))), ex(A((2, 3))))
written("concatenate concat", ex([A((2, 3)), A((4, 3))]), ex([A((2, 3)), A((2, 4))], axis=1))
written("concatenate", ex([A((2, 3)), A((4,))], axis=None))
written("stack", ex([A((2, 3)), A((2, 3))]), ex([A((2, 3)), A((2, 3))], axis=-1))
written("vstack", ex([A((3,)), A((3,))]), ex([A((2, 3)), A((1, 3))]))
written("hstack", ex([A((2, 3)), A((2, 1))]), ex([A((3,)), A((2,))]))
written("dstack", ex([A((2, 3)), A((2, 3))]))
written("column_stack", ex([A((3,)), A((3, 2))]))
written("split", ex(A((6, 4)), 3), ex(A((6, 4)), [1, 4]), ex(A((6, 4)), 2, axis=1))
written("array_split", ex(A((7,)), 3), ex(A((6, 4)), [1, 4]))
written("unstack", ex(F34), ex(F34, axis=1), prefixes=J)
written("meshgrid", ex(A((3,)), A((4,))), ex(A((3,)), A((4,)), A((2,)), indexing="ij"))
written("broadcast_arrays", ex(A((3, 1)), A((4,))))
written("broadcast_shapes", ex((3, 1), (4,)))
# indexing
written("take", ex(F34, A((2,), "int32")), ex(F34, A((5,), "int32"), axis=1))
written("take_along_axis", ex(F34, A((3, 2), "int32"), axis=1))
written("nonzero", exp(F34))
written("nonzero", ex(F34, size=5), prefixes=J)
written("argwhere flatnonzero", exp(F34))
written("argwhere flatnonzero", ex(F34, size=5), prefixes=J)
written("searchsorted", ex(A((5,)), A((3, 2))))
# creation
written("zeros ones empty", ex((2, 3)), ex((2, 3), DT("int32")), ex(4))
written("full", ex((2, 3), 1.5), ex((2, 3), 1, DT("float32")), ex((2, 3), A((3,))))
written("zeros_like ones_like empty_like", ex(I34), ex(F34, dtype=DT("int32"), shape=(4,)))
written("full_like", ex(F34, 2.0), ex(I34, 2.5, shape=(2,)))
written("eye", ex(3), ex(3, 4))
written("identity", ex(3))
written("arange", ex(5), ex(2, 8, 2), ex(0.0, 1.0, 0.25))
written("linspace", ex(0.0, 1.0, 5), ex(0.0, 1.0), ex(A((2,)), A((2,)), 4, axis=1), ex(0.0, 1.0, 5, retstep=True))
written("logspace geomspace", ex(1.0, 2.0, 4))
written("array", ex([[1, 2], [3, 4]]), ex(A((2, 3))), ex([1.0, 2.0], DT("int32")), ex(3.0), ex([A((3,)), A((3,))]))
written("asarray", ex([[1, 2], [3, 4]]), ex(A((2, 3))), ex(True))
written("astype", ex(F34, DT("int32")))
written("tri", ex(3), ex(3, 4))
written("tril_indices triu_indices", ex(4), ex(4, 1))
written("indices", ex((2, 3)))
written("unravel_index", ex(A((5,), "int32"), (3, 4)))
for _t in [
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
]:
    written(_t, ex(A((2, 3))), ex(1.5) if not _t.startswith(("int", "uint", "bool")) else ex(2))
# properties
written("shape", ex(A((2, 3))))
written("ndim", ex(A((2, 3))))
written("size", ex(A((2, 3))), ex(A((2, 3)), 1))
written("issubdtype", ex(DT("float32"), DT("floating")))
written("isscalar", ex(1.0), ex(A((2,))))
written("iscomplexobj isrealobj", ex(F34))
written("isdtype", ex(DT("float32"), "real floating"))
written("can_cast", ex(DT("int32"), DT("float32")))
written("array_equal array_equiv allclose", ex(F34, F34))
written("dtype", opq("float32"))
written("finfo", opq(DT("float32")))
written("iinfo", opq(DT("int32")))
written("result_type promote_types", opq(DT("float32"), DT("int32")))
written("vectorize", opq(Fn("jax.numpy.tanh")))
written("frompyfunc", opq(Raw(abs), 1, 1))
written("einsum_path", opq("ij,jk", A((2, 3)), A((3, 4))))
written("apply_along_axis", opq(Fn("jax.numpy.sum"), 0, F34))
written("unique", exp(A((5,))))
written("unique", ex(A((5,)), size=3), prefixes=J)
written("bincount", exp(A((5,), "int32")))
written("bincount", ex(A((5,), "int32"), length=4), prefixes=J)
written("interp", ex(A((3,)), A((5,), fill="arange"), A((5,))))
written(
    "gradient",
    ex(A((5,), fill="arange")),
    ex(A((4, 5), fill="arange")),
    ex(A((4, 5), fill="arange"), axis=1),
    ex(A((3, 4, 5), fill="arange"), axis=(0, 2)),
    ex(A((5,), fill="arange"), A((5,), fill="arange")),
)
written(
    "convolve correlate",
    ex(A((6,)), A((3,))),
    ex(A((6,)), A((3,)), mode="same"),
    ex(A((3,)), A((6,)), mode="same"),
    ex(A((6,)), A((3,)), mode="valid"),
    ex(A((6,)), A((3,)), mode="full"),
)
written("polyval", ex(A((3,)), A((4, 2))))
written("select", ex([A((3,), "bool")], [A((3,))]), ex([A((3,), "bool"), A((2, 1), "bool")], [A((3,)), A((3,))]))
written("piecewise", ex(A((4,)), [A((4,), "bool")], [1.0]))
# linalg and fft
written("lstsq", exp(A((4, 3)), A((4,))), exp(A((4, 3)), A((4, 2))), exp(A((2, 3)), A((2,))), prefixes=LINALG)
written("solve", ex(SQ, A((3,))), ex(A((2, 3, 3), fill="eye"), A((2, 3, 4))), prefixes=LINALG)
written("inv cholesky", ex(SQ), ex(A((2, 3, 3), fill="eye")), prefixes=LINALG)
written("matrix_power", ex(SQ, 2), prefixes=LINALG)
written("pinv", ex(F34), prefixes=LINALG)
written("det slogdet eigh eigvalsh", ex(SQ), ex(A((2, 3, 3), fill="eye")), prefixes=LINALG)
written("eig eigvals", ex(SQ), ex(A((2, 3, 3), fill="eye")), prefixes=("jax.numpy.linalg",))
written("eig eigvals", exp(SQ), prefixes=("numpy.linalg",))  # real or complex: the data decides
written("matrix_rank", ex(SQ), prefixes=LINALG)
written("svd", ex(F34), ex(F34, full_matrices=False), ex(F34, compute_uv=False), prefixes=LINALG)
written("qr", ex(F34), ex(A((4, 3))), ex(F34, mode="complete"), ex(F34, mode="r"), prefixes=LINALG)
written("fft ifft", ex(A((4,))), ex(A((3, 8)), n=4, axis=0), prefixes=FFT)
written("rfft ihfft", ex(A((8,))), ex(A((3, 7)), axis=1), prefixes=FFT)
written("irfft hfft", ex(A((5,), "complex64")), ex(A((3, 5), "complex64"), n=6), prefixes=FFT)
written("fftfreq rfftfreq", ex(8), ex(7), prefixes=FFT)
written("fftshift ifftshift", ex(A((4,))), prefixes=FFT)
written("norm", ex(F34), ex(F34, axis=1), ex(A((2, 3, 4)), axis=(1, 2)), ex(F34, ord=2), prefixes=LINALG)
written("roll", ex(F34, 1))
written("sort argsort", ex(F34), ex(F34, axis=0), ex(F34, axis=None))

# jax.lax
written("select", ex(B34, F34, F34), ex(A((), "bool"), F34, F34), prefixes=LAX)
written("clamp", ex(0.0, F34, 1.0), prefixes=LAX)
written("convert_element_type bitcast_convert_type", ex(F34, DT("int32")), prefixes=LAX)
written("reduce_precision", ex(F34, exponent_bits=5, mantissa_bits=10), prefixes=LAX)
written("broadcast", ex(A((3,)), (2,)), prefixes=LAX)
written("broadcast_in_dim", ex(A((3,)), (2, 3), (1,)), prefixes=LAX)
written("iota", ex(DT("int32"), 5), prefixes=LAX)
written("broadcasted_iota", ex(DT("int32"), (2, 3), 1), prefixes=LAX)
written("full", ex((2, 3), 1.5), ex((2,), 1, DT("int32")), prefixes=LAX)
written("full_like", ex(F34, 1.0), ex(I34, 2, shape=(5,)), prefixes=LAX)
written("empty", ex((2, 3), DT("float32")), prefixes=LAX)
written("reshape", ex(F34, (12,)), ex(F34, (2, 6)), prefixes=LAX)
written("squeeze", ex(A((1, 3, 1)), (0, 2)), prefixes=LAX)
written("expand_dims", ex(F34, (0,)), ex(F34, (0, 3)), prefixes=LAX)
written("transpose", ex(A((2, 3, 4)), (2, 0, 1)), prefixes=LAX)
written("rev", ex(F34, (0,)), prefixes=LAX)
written("pad", ex(A((3,)), 0.0, [(1, 2, 1)]), ex(F34, 0.0, [(1, 0, 0), (0, 2, 1)]), prefixes=LAX)
written("concatenate", ex([A((2, 3)), A((4, 3))], 0), prefixes=LAX)
written("broadcast_shapes", ex((3, 1), (4,)), prefixes=LAX)
written("slice", ex(A((5, 6)), (1, 0), (4, 6)), ex(A((5, 6)), (1, 0), (4, 6), (1, 2)), prefixes=LAX)
written("dynamic_slice", ex(A((5, 6)), (1, 2), (2, 3)), prefixes=LAX)
written("dynamic_update_slice", ex(A((5, 6)), A((2, 3)), (1, 2)), prefixes=LAX)
written("dynamic_update_slice_in_dim", ex(A((5, 6)), A((2, 6)), 1, 0), prefixes=LAX)
written("dynamic_update_index_in_dim", ex(A((5, 6)), A((6,)), 1, 0), prefixes=LAX)
written("dynamic_slice_in_dim", ex(A((5, 6)), 1, 2, axis=1), prefixes=LAX)
written("dynamic_index_in_dim index_in_dim", ex(A((5, 6)), 1), ex(A((5, 6)), 1, 1, False), prefixes=LAX)
written("slice_in_dim", ex(A((5, 6)), 1, 4), ex(A((5, 6)), 0, 6, 2, 1), prefixes=LAX)
written("reduce_sum reduce_max reduce_min reduce_prod", ex(F34, (1,)), ex(F345, (0, 2)), prefixes=LAX)
written("reduce_and reduce_or reduce_xor", ex(B34, (0,)), prefixes=LAX)
written("argmax argmin", ex(F34, 1, DT("int32")), prefixes=LAX)
written("top_k", ex(A((3, 5)), 2), prefixes=LAX)
written("sort", ex(F34), ex((A((4,)), A((4,))), num_keys=1), prefixes=LAX)
written("sort_key_val", ex(A((4,)), A((4,))), prefixes=LAX)
written("dot_general", ex(A((5, 2, 3)), A((5, 3, 4)), (((2,), (1,)), ((0,), (0,)))), prefixes=LAX)
written("dot", ex(A((2, 3)), A((3, 4))), ex(A((3,)), A((3, 4))), prefixes=LAX)
written("cond", ex(A((), "bool"), Fn("jax.numpy.sin"), Fn("jax.numpy.cos"), A((3,))), prefixes=LAX)
written("switch", ex(A((), "int32"), [Fn("jax.numpy.sin"), Fn("jax.numpy.cos")], A((3,))), prefixes=LAX)
written("fori_loop", ex(0, 3, Fn("jax.numpy.add"), A((3,))), prefixes=LAX)
written("while_loop", ex(Fn("jax.numpy.all"), Fn("jax.numpy.sin"), A((3,))), prefixes=LAX)
written("scan", ex(Fn("jax.numpy.divmod"), A((3,)), A((5, 3))), prefixes=LAX)
written("map", ex(Fn("jax.numpy.sum"), A((5, 3))), prefixes=LAX)
written("associative_scan", ex(Fn("jax.numpy.add"), A((5,))), prefixes=LAX)
written("psum pmean pmax pmin", mapped(A((3,)), "i"), mapped({"a": A((3,)), "b": A(())}, "i"), prefixes=LAX)
written("ppermute", mapped(A((3,)), "i", [(0, 1), (1, 0)]), prefixes=LAX)
written("pshuffle", mapped(A((3,)), "i", [1, 0]), prefixes=LAX)
written("pswapaxes", mapped(A((2, 3)), "i", 0), prefixes=LAX)
written("pcast", sharded("invariant", A((3,)), ("i",), to="varying"), prefixes=LAX)
written("pbroadcast", sharded("varying", A((3,)), ("i",), 0), prefixes=LAX)
written(
    "all_gather",
    mapped(A((3,)), "i"),
    mapped(A((3, 4)), "i", axis=1, tiled=True),
    prefixes=LAX,
)
written(
    "psum_scatter",
    mapped(A((2, 3)), "i"),
    mapped(A((2, 4)), "i", scatter_dimension=1, tiled=True),
    prefixes=LAX,
)
written("all_to_all", mapped(A((2, 4)), "i", 0, 1, partial=True), prefixes=LAX)
written("axis_index axis_size", mapped("i"), prefixes=LAX)
written("stop_gradient optimization_barrier", ex(F34), ex({"a": F34}), prefixes=LAX)
written("with_sharding_constraint", ex(F34, _sharding()), prefixes=LAX)
written("real imag", ex(A((3, 4), "complex64")), prefixes=LAX)
written("dtype", opq(F34), prefixes=LAX)
written(
    "ScatterDimensionNumbers",
    opq(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)),
    prefixes=LAX,
)
written("GatherDimensionNumbers", opq(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)), prefixes=LAX)
written("ConvDimensionNumbers", opq(("NCHW"), ("OIHW"), ("NCHW")), prefixes=LAX)
written("integer_pow", ex(F34, 3), prefixes=LAX)
_IMG, _K = A((2, 3, 9, 8)), A((4, 3, 3, 2))
written(
    "conv_general_dilated",
    ex(_IMG, _K, (1, 1), "VALID"),
    ex(_IMG, _K, (2, 2), "SAME"),
    ex(_IMG, _K, (1, 2), ((1, 1), (0, 2)), rhs_dilation=(2, 1)),
    ex(A((2, 9, 8, 3)), A((3, 2, 3, 4)), (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
    ex(_IMG, _K, (1, 1), ((0, 0), (1, 1)), lhs_dilation=(2, 2)),
    prefixes=LAX,
)
written("conv", ex(_IMG, _K, (1, 1), "VALID"), ex(_IMG, _K, (2, 1), "SAME"), prefixes=LAX)
written("conv_with_general_padding", ex(_IMG, _K, (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1)), prefixes=LAX)
written(
    "reduce_window",
    ex(A((4, 6)), 0.0, Fn("jax.lax.add"), (2, 2), (2, 2)),
    ex(A((4, 6)), 0.0, Fn("jax.lax.max"), (3, 3), (1, 1), "SAME"),
    ex(A((1, 5, 5, 2)), 0.0, Fn("jax.lax.add"), (1, 2, 2, 1), (1, 1, 1, 1), ((0, 0), (1, 1), (0, 1), (0, 0))),
    prefixes=LAX,
)
written("custom_linear_solve", ex(Fn("jax.numpy.negative"), A((3,)), Raw(lambda mv, b: b)), prefixes=LAX)
written("custom_root", ex(Fn("jax.numpy.sin"), A((3,)), Raw(lambda f, x: x), Raw(lambda g, y: y)), prefixes=LAX)
written("linalg.tridiagonal_solve", ex(A((4,)), A((4,), fill="arange"), A((4,)), A((4, 2))), prefixes=LAX)
written("select_n", ex(A((3,), "bool"), A((3,)), A((3,))), prefixes=LAX)
written("split", ex(A((6, 2)), (1, 5)), ex(A((6, 4)), (2, 2), axis=1), prefixes=LAX)
written(
    "reduce",
    ex(F34, 0.0, Fn("jax.lax.add"), (1,)),
    ex((F34, F34), (0.0, 0.0), Raw(lambda a, b: (a[0] + b[0], a[1] + b[1])), (0,)),
    prefixes=LAX,
)
written("platform_dependent", ex(A((3,)), default=Fn("jax.numpy.sin"), cpu=Fn("jax.numpy.cos")), prefixes=LAX)
written("ragged_dot", ex(A((6, 4)), A((2, 4, 5)), A((2,), "int32")), prefixes=LAX)


def _gather_numbers() -> Raw:
    try:
        import jax
    except ImportError:
        return Raw(None)
    return Raw(jax.lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)))


written("gather", exp(F34, A((2, 1), "int32"), _gather_numbers(), (1, 4)), prefixes=LAX)
written("Tolerance", opq(atol=1e-3), prefixes=LAX)
written("RaggedDotDimensionNumbers", opq((((1,), (1,)), ((), ())), [0], [0]), prefixes=LAX)
written("delete", exp(F34, 1, axis=0), exp(F34, 1))  # the size: as many as the indices remove
written("delete", exp(F34, [0, 2], axis=1), prefixes=N)
written("insert", exp(F34, 1, 0.0, axis=0), exp(F34, 1, 0.0))
written("append", ex(F34, A((3, 4))), ex(F34, A((1, 4)), axis=0))
written("ndindex", opq(2, 3), prefixes=N)
written(
    "conv_general_dilated_patches",
    ex(_IMG, (3, 2), (1, 1), "VALID"),
    ex(_IMG, (3, 3), (2, 2), "SAME"),
    prefixes=LAX,
)
written(
    "fft",
    ex(A((3, 8)), "rfft", (8,)),
    ex(A((3, 5), "complex64"), "irfft", (8,)),
    ex(A((3, 4), "complex64"), "fft", (4,)),
    prefixes=LAX,
)
written("rng_bit_generator", ex(A((4,), "uint32"), (2, 3)), prefixes=LAX)
written("scaled_dot", ex(A((2, 3, 32), "float8_e4m3fn"), A((2, 32, 4), "float8_e4m3fn")), prefixes=LAX)
written("approx_max_k approx_min_k", ex(A((3, 5)), 2), ex(A((3, 5)), 2, reduction_dimension=0), prefixes=LAX)
written("rng_uniform", ex(0.0, 1.0, (2, 3)), prefixes=LAX)
written("broadcast_to_rank", ex(A((3,)), 3), ex(F34, 1), prefixes=LAX)
written("padtype_to_pads", opq((5, 5), (3, 3), (1, 1), "SAME"), prefixes=LAX)
written("create_token", opq(), prefixes=LAX)
written("dce_sink", ex(A((3,))), prefixes=LAX)

# jax.random
written("PRNGKey key", ex(0), prefixes=RND)
written("split", ex(Key()), ex(Key(raw=True), 3), ex(Key(), (2, 3)), prefixes=RND)
written("fold_in", ex(Key(), 3), ex(Key(raw=True), 3), prefixes=RND)
written("key_data", ex(Key()), ex(Key(batch=(3,))), ex(Key(raw=True)), prefixes=RND)
written("wrap_key_data", ex(A((2,), "uint32")), ex(A((3, 2), "uint32")), prefixes=RND)
written("clone", ex(Key()), prefixes=RND)
written("key_impl", opq(Key()), prefixes=RND)
written("key_dtype", opq(), prefixes=RND)
written("multinomial", ex(Key(), 5.0, A((4,)), shape=(2, 4)), ex(Key(), 5.0, A((3, 4))), prefixes=RND)
written(
    "categorical", ex(Key(), A((3, 5))), ex(Key(), A((3, 5)), axis=0), ex(Key(), A((3, 5)), shape=(2, 3)), prefixes=RND
)
written("choice", ex(Key(), 5, (3,)), ex(Key(), A((5, 4)), (2,)), ex(Key(), A((5, 4)), (2,), axis=1), prefixes=RND)
written("permutation", ex(Key(), 5), ex(Key(), A((4, 3))), prefixes=RND)
written("orthogonal", ex(Key(), 3), ex(Key(), 3, (2,)), prefixes=RND)
written("ball", ex(Key(), 3), ex(Key(), 3, shape=(2,)), prefixes=RND)
written("bits", ex(Key(), (2, 3)), ex(Key()), prefixes=RND)
written("dirichlet", ex(Key(), A((3,)), (2,)), ex(Key(), A((4, 3))), prefixes=RND)
written(
    "multivariate_normal",
    ex(Key(), A((3,)), A((3, 3), fill="eye")),
    ex(Key(), A((3,)), A((3, 3), fill="eye"), (2,)),
    prefixes=RND,
)
written("generalized_normal", ex(Key(), 0.5, (2, 3)), ex(Key(), 0.5), prefixes=RND)  # array p with shape=(): jax raises
written("randint", ex(Key(), (2, 3), 0, 5), ex(Key(), (3,), A((3,), "int32"), 9), prefixes=RND)

# jax.nn
written("softmax log_softmax standardize", ex(F34), ex(F34, axis=0), prefixes=NN)
written("glu", ex(F34), ex(A((4, 3)), axis=0), prefixes=NN)
written("one_hot", ex(A((3,), "int32"), 5), ex(I34, 5, axis=0), prefixes=NN)
written("logsumexp", ex(F34), ex(F34, axis=1), ex(F34, axis=1, keepdims=True), ex(F34, return_sign=True), prefixes=NN)
written("logmeanexp", ex(F34, axis=1), prefixes=NN)
written("dot_product_attention", ex(A((2, 5, 4, 8)), A((2, 6, 4, 8)), A((2, 6, 4, 8))), prefixes=NN)
written("constant", ex(1.0), prefixes=("jax.nn.initializers",))
written("variance_scaling", ex(1.0, "fan_in", "normal"), prefixes=("jax.nn.initializers",))
written("zeros ones Initializer.__call__", ex(Key(), (2, 3)), prefixes=("jax.nn.initializers",))

# jax.tree
_TREE = {"a": A((2,)), "b": (A((3,)), A(()))}
written("map", ex(Fn("jax.numpy.tanh"), _TREE), ex(Fn("jax.numpy.add"), (A((2,)),), (A((2,)),)), prefixes=("jax.tree",))
written("tree_map", ex(Fn("jax.numpy.tanh"), _TREE), prefixes=("jax.tree_util", "jax"))
written("leaves", ex({"b": A((3,)), "a": A((2,))}), prefixes=("jax.tree",))
written("tree_leaves", ex({"b": A((3,)), "a": A((2,))}), prefixes=("jax.tree_util",))
written("flatten", exp({"b": A((3,)), "a": A((2,))}), prefixes=("jax.tree",))  # the tree definition: not modelled
written("tree_flatten", exp({"b": A((3,)), "a": A((2,))}), prefixes=("jax.tree_util",))
written("all", ex([True, True]), prefixes=("jax.tree",))
written("tree_all all_leaves", ex([True, True]), prefixes=("jax.tree_util",))
written("Partial", ex(Fn("jax.numpy.add"), A((2,))), prefixes=("jax.tree_util",))
TU = ("jax.tree_util",)


def _treedef(tree: Any) -> Raw:
    try:
        import jax
    except ImportError:
        return Raw(None)
    return Raw(jax.tree.structure(tree))


written("treedef_is_leaf", ex(_treedef(1)), prefixes=TU)
written("structure flatten_with_path", opq({"a": 1}), prefixes=("jax.tree",))
written("tree_structure tree_flatten_with_path", opq({"a": 1}), prefixes=TU)
written("unflatten", opq(_treedef([0, 0]), [1, 2]), prefixes=("jax.tree",))
written("tree_unflatten", opq(_treedef([0, 0]), [1, 2]), prefixes=TU)
written("map_with_path", opq(Raw(lambda p, x: x), {"a": 1}), prefixes=("jax.tree",))
written("tree_map_with_path", opq(Raw(lambda p, x: x), {"a": 1}), prefixes=TU)
written("reduce", opq(Fn("operator.add"), [1, 2], 0), prefixes=("jax.tree",))
written("tree_reduce", opq(Fn("operator.add"), [1, 2], 0), prefixes=TU)
written("transpose", opq(_treedef([0, 0]), _treedef((0, 0)), [(1, 2), (3, 4)]), prefixes=("jax.tree",))
written("tree_transpose", opq(_treedef([0, 0]), _treedef((0, 0)), [(1, 2), (3, 4)]), prefixes=TU)
written("keystr", opq(("a",)), prefixes=TU)


def _fresh_class() -> Raw:
    return Raw(type("Fresh", (), {}))


def _fresh_dataclass() -> Raw:
    import dataclasses

    return Raw(dataclasses.make_dataclass("FreshData", [("x", int)]))


written("register_pytree_node", opq(_fresh_class(), Raw(lambda o: ((), None)), Raw(lambda a, c: None)), prefixes=TU)
written(
    "register_pytree_with_keys", opq(_fresh_class(), Raw(lambda o: ((), None)), Raw(lambda a, c: None)), prefixes=TU
)
written("register_dataclass", opq(_fresh_dataclass(), ["x"], []), prefixes=TU)
written("register_static", opq(_fresh_class()), prefixes=TU)

# numpy.random and numpy.testing
NR = ("numpy.random",)
written("normal logistic gumbel laplace", ex(0.0, 1.0, (2, 3)), ex(A((3,)), 1.0), prefixes=NR)
written("uniform", ex(0.0, 2.0, (2, 3)), ex(A((3,)), 2.0), prefixes=NR)
written("randint", ex(0, 5, (3,)), prefixes=NR)
written("random random_sample standard_normal", ex((2, 3)), ex(), prefixes=NR)
written("rand randn", ex(2, 3), ex(), prefixes=NR)
written("beta", ex(1.0, 2.0, 3), prefixes=NR)
written("binomial", ex(5, 0.5, (3,)), prefixes=NR)
written("poisson exponential", ex(1.0, (3,)), prefixes=NR)
written("gamma", ex(2.0, 1.0, (3,)), prefixes=NR)
written("dirichlet", ex(A((3,)), 2), ex(A((3,))), prefixes=NR)
written(
    "multivariate_normal", ex(A((3,)), A((3, 3), fill="eye"), (2,)), ex(A((3,)), A((3, 3), fill="eye")), prefixes=NR
)
written("choice", ex(5, 3), ex(A((5,)), (2, 2)), prefixes=NR)
# the samplers read off their signatures (catalogue/host.py ``_samplers``)
written("weibull pareto power chisquare standard_t standard_gamma zipf", ex(2.5, (2, 3)), ex(2.5), prefixes=NR)
written("rayleigh", ex(1.0, (2, 3)), ex(A((3,))), prefixes=NR)
written("geometric logseries", ex(0.5, (2, 3)), ex(0.5), prefixes=NR)
written("lognormal vonmises wald", ex(1.0, 0.5, (2, 3)), ex(A((3,)), 0.5), prefixes=NR)
written("f negative_binomial noncentral_chisquare", ex(3, 0.5, (2, 3)), ex(3, 0.5), prefixes=NR)
written("noncentral_f triangular", ex(1.0, 2.0, 3.0, (2, 3)), ex(1.0, 2.0, 3.0), prefixes=NR)
written("hypergeometric", ex(5, 5, 3, (2, 3)), ex(5, 5, 3), prefixes=NR)
written("random_integers", ex(1, 5, (2, 3)), prefixes=NR)
written("standard_cauchy standard_exponential", ex((2, 3)), ex(), prefixes=NR)
written("multinomial", ex(10, A((1,)), (2,)), prefixes=NR)
written("permutation", ex(5), ex(A((4, 3))), prefixes=NR)
written("shuffle", ex(A((4,))), prefixes=NR)
written("seed", ex(0), prefixes=NR)
NT = ("numpy.testing",)
written(
    "assert_allclose assert_almost_equal assert_array_almost_equal assert_array_almost_equal_nulp assert_array_equal assert_equal",
    ex(F34, F34),
    prefixes=NT,
)
written("assert_array_less", ex(A((3,), fill="zeros"), A((3,))), prefixes=NT)
written("assert_", ex(True), prefixes=NT)
written("assert_approx_equal", ex(1.0, 1.0), prefixes=NT)
written("assert_string_equal", ex("a", "a"), prefixes=NT)

# array methods and attributes
written("reshape", ex(F34, 6, 2), ex(F34, (2, -1)), prefixes=METHODS)
written("transpose", ex(A((2, 3, 4))), ex(A((2, 3, 4)), 1, 0, 2), ex(A((2, 3, 4)), (1, 0, 2)), prefixes=METHODS)
written("ravel flatten", ex(F34), prefixes=METHODS)
written("squeeze", ex(A((1, 3))), ex(A((1, 3, 1)), axis=2), prefixes=METHODS)
written("swapaxes", ex(A((2, 3, 4)), 0, 2), prefixes=METHODS)
written("repeat", ex(A((2, 3)), 2), ex(A((2, 3)), 2, axis=0), prefixes=METHODS)
written("diagonal trace", ex(F34), prefixes=METHODS)
written("astype", ex(F34, DT("int32")), prefixes=METHODS)
written("round conj conjugate copy", ex(F34), prefixes=METHODS)
written("clip", ex(F34, 0.0, 1.0), prefixes=METHODS)
written("take", ex(F34, A((2,), "int32")), ex(F34, A((2,), "int32"), axis=1), prefixes=METHODS)
written("nonzero", exp(F34), prefixes=METHODS)
written("searchsorted", ex(A((5,)), A((3,))), prefixes=METHODS)
written("dot", ex(A((2, 3)), A((3, 4))), prefixes=METHODS)
written("item", ex(A((1,))), ex(A((), "int32")), prefixes=METHODS)
written(
    "__getitem__",
    ex(F34, 1),
    ex(F34, (slice(None), None, 0)),
    ex(F345, (A((2,), "int32"), slice(None), A((2,), "int32"))),
    ex(F345, (slice(None), A((2,), "int32"), A((2, 1), "int32"))),
    ex(F34, Ellipsis),
    ex(F34, slice(1, None)),
    ex(F34, (slice(None, -1), slice(None, None, 2))),
    exp(F34, B34),
    ex(F345, (Ellipsis, 0)),
    ex(F34, ([0, 2],)),
    prefixes=METHODS,
)
written("__getitem__", ex(F34, [0, 2]), prefixes=("numpy.ndarray",))
written(
    "at.set at.add at.subtract at.multiply at.mul at.divide at.power at.min at.max",
    ex(At(F34, 0), 1.0),
    ex(At(F34, (slice(None), 1)), A((3,))),
    prefixes=("jax.Array",),
)
written("at.apply", ex(At(F34, 0), Fn("jax.numpy.sin")), prefixes=("jax.Array",))
written("at.get", ex(At(F34, 0)), ex(At(F34, (slice(None), A((2,), "int32")))), prefixes=("jax.Array",))
written("T mT", ex(A((2, 3, 4))), prefixes=METHODS)
written("shape ndim size itemsize nbytes real imag", ex(A((2, 3))), prefixes=METHODS)
written("dtype", opq(F34), prefixes=METHODS)
written("at", opq(F34), prefixes=("jax.Array",))
written("sort argsort", ex(F34), ex(F34, axis=0), prefixes=METHODS)
written("cumsum cumprod", ex(F34), ex(F34, axis=1), prefixes=METHODS)


written("leaves_with_path", exp({"a": A((2,)), "b": A(())}), prefixes=("jax.tree",))
written("tree_leaves_with_path", exp({"a": A((2,)), "b": A(())}), prefixes=TU)
written("is_tree_node", ex(Raw(dict)), prefixes=TU)
written("treedef_tuple", opq([_treedef(1), _treedef(2)]), prefixes=TU)
written("flatten_one_level", opq({"a": 1}), prefixes=TU)
written("tree_broadcast", opq({"a": 1}, {"a": (1, 2)}), prefixes=TU)


def examples(q: str, op: Op) -> list[Ex]:
    if q in WRITTEN:
        return WRITTEN[q]
    return default_examples(q, op)


# the call a rule reports as failing, with what JAX raises: (qualified, example, problem kind)
FAILING: list[tuple[str, Ex, str]] = [
    ("jax.numpy.matmul", ex(A(()), A((3,))), "scalar-contraction"),
    ("jax.numpy.matmul", ex(A((3,)), A(())), "scalar-contraction"),
    ("jax.numpy.matmul", ex(A((2, 3)), A((4, 5))), "shape"),
    ("jax.numpy.matmul", ex(A((2, 2, 3)), A((4, 3, 5))), "shape"),
    ("jax.numpy.dot", ex(A((2, 3)), A((4, 5))), "shape"),
    ("jax.numpy.vdot", ex(A((2, 3)), A((4, 2))), "shape"),
    ("jax.numpy.inner", ex(A((2, 3)), A((4, 2))), "shape"),
    ("jax.numpy.tensordot", ex(A((2, 3)), A((4, 2)), 1), "shape"),
    ("jax.numpy.einsum", ex("ij,jk->ik", A((2, 3)), A((4, 2))), "shape"),
    ("jax.numpy.einsum", ex("ij->i", A((2, 3, 4))), "rank"),
    ("jax.lax.dot_general", ex(A((2, 3)), A((4, 2)), (((1,), (0,)), ((), ()))), "shape"),
    ("jax.lax.dot", ex(A(()), A((3,))), "scalar-contraction"),
    ("jax.lax.dot", ex(A((2, 3, 4)), A((4,))), "rank"),
    ("jax.numpy.reshape", ex(F34, (5, -1)), "shape"),
    ("jax.numpy.reshape", ex(F34, (5, 2)), "shape"),
    ("jax.numpy.reshape", ex(F34, (-1, -1)), "shape"),
    ("jax.Array.reshape", ex(F34, 5, 2), "shape"),
    ("jax.numpy.sum", ex(F34, axis=2), "rank"),
    ("jax.numpy.sum", ex(F34, axis=(0, 0)), "rank"),
    ("jax.numpy.mean", ex(F34, axis=-3), "rank"),
    ("jax.numpy.argmax", ex(F34, axis=2), "rank"),
    ("jax.numpy.cumsum", ex(F34, axis=2), "rank"),
    ("jax.numpy.linalg.norm", ex(F34, axis=2), "rank"),
    ("jax.numpy.linalg.norm", ex(A((2, 3, 4)), ord=2), "rank"),
    ("jax.numpy.squeeze", ex(F34, axis=0), "shape"),
    ("jax.numpy.broadcast_to", ex(A((3,)), (4,)), "shape"),
    ("jax.numpy.broadcast_to", ex(A((2, 3)), (3,)), "shape"),
    ("jax.numpy.concatenate", ex([A((2, 3)), A((2, 4))]), "shape"),
    ("jax.numpy.concatenate", ex([A((2, 3)), A((2,))]), "rank"),
    ("jax.numpy.stack", ex([A((2, 3)), A((2, 4))]), "shape"),
    ("jax.numpy.split", ex(A((4,)), 3), "shape"),
    ("jax.numpy.take_along_axis", ex(F34, A((4,), "int32"), axis=0), "rank"),
    ("jax.numpy.take", ex(F34, A((2,), "int32"), axis=2), "rank"),
    ("jax.Array.__getitem__", ex(A((3,)), (0, 0)), "rank"),
    ("jax.Array.__getitem__", ex(A((3,)), [0, 2]), "type"),
    ("jax.numpy.add", ex(A((3,)), A((4,))), "shape"),
    ("jax.numpy.where", ex(A((3,), "bool"), A((4,)), A((3,))), "shape"),
    ("jax.numpy.full", ex((2, 3), A((4,))), "shape"),
    ("jax.lax.add", ex(F34, A((4,))), "rank"),
    ("jax.lax.add", ex(A((3,)), A((4,))), "shape"),
    ("jax.numpy.transpose", ex(F34, (0, 0)), "rank"),
    ("jax.numpy.transpose", ex(F34, (0,)), "rank"),
    ("jax.numpy.swapaxes", ex(F34, 0, 2), "rank"),
    ("jax.numpy.moveaxis", ex(F34, 0, 2), "rank"),
    ("jax.numpy.expand_dims", ex(F34, 3), "rank"),
    ("jax.numpy.diff", ex(F34, axis=2), "rank"),
    ("jax.nn.softmax", ex(F34, axis=2), "rank"),
    ("jax.nn.one_hot", ex(I34, 3, axis=3), "rank"),
    ("jax.nn.glu", ex(A((3, 5))), "shape"),
    ("jax.random.split", ex(Key(batch=(3,))), "shape"),
    ("jax.random.split", ex(Key(raw=True, batch=(3,))), "shape"),
    ("jax.random.normal", ex(Key(batch=(3,)), (2,)), "shape"),
    ("jax.random.fold_in", ex(Key(batch=(3,)), 1), "shape"),
    ("jax.random.categorical", ex(Key(), A((3, 5)), axis=2), "rank"),
]

# dot and inner of a rank-0 operand: JAX scales instead of contracting (no error), and the
# rule records that with kind "scalar-contraction"
SCALING: list[tuple[str, Ex]] = [
    ("jax.numpy.dot", ex(A(()), A((3,)))),
    ("jax.numpy.dot", ex(F34, A(()))),
    ("jax.numpy.inner", ex(A(()), A((3,)))),
    ("numpy.dot", ex(A(()), A((3,)))),
]

# argmax/argmin of a rank-0 array: an index chosen among one element, always 0; recorded as
# "degenerate", and JAX runs it
DEGENERATE: list[tuple[str, Ex]] = [
    ("jax.numpy.argmax", ex(A(()))),
    ("jax.numpy.argmin", ex(A(()))),
    ("numpy.argmax", ex(A(()))),
    ("jax.Array.argmax", ex(A(()))),
]

# devices (run under eval_shape, and on CPU where jax cannot trace: device_get)
DEV = ("jax",)
written("device_count local_device_count devices local_devices", ex(), prefixes=DEV)
written("device_put", ex(F34), ex({"w": F34, "b": A((4,))}), prefixes=DEV)
written("device_get", Ex((F34,), concrete=True), prefixes=DEV)  # a tracer it leaves as it is
# jax 0.10.2 no longer has these (the test skips an entry the installed jax lacks)
written("device_put_replicated", ex(F34, Raw([])), prefixes=DEV)
written("device_put_sharded", ex([F34, F34], Raw([])), prefixes=DEV)


# meshes: the axis names as jax stores them (one string is a tuple of one); run on CPU
def _devices() -> Raw:
    try:
        import jax
        import numpy as np
    except ImportError:
        return Raw(None)
    return Raw(np.array(jax.devices()[:1]))


written(
    "Mesh",
    Ex((_devices(), ("x",)), concrete=True),
    Ex((_devices(), "x"), concrete=True),
    Ex((_devices(),), {"axis_names": ["x"]}, concrete=True),
    prefixes=("jax.sharding",),
)
written("AbstractMesh", Ex(((2, 4), ("data", "model")), concrete=True), prefixes=("jax.sharding",))
written("make_mesh", Ex(((1,), ("x",)), concrete=True), Ex(((1, 1), ("a", "b")), concrete=True), prefixes=DEV)
# NumPy's generator objects
written("RandomState default_rng", ex(0), prefixes=("numpy.random",))
written("Generator", ex(Raw(__import__("numpy").random.PCG64(0))), prefixes=("numpy.random",))


def _pytree_class(with_keys: bool) -> type:
    """A fresh class with the methods the registering decorators need."""

    class Node:
        def tree_flatten(self) -> tuple[tuple[()], None]:
            return (), None

        def tree_flatten_with_keys(self) -> tuple[tuple[()], None]:
            return (), None

        @classmethod
        def tree_unflatten(cls, aux: Any, children: Any) -> Any:
            return cls()

    if not with_keys:
        del Node.tree_flatten_with_keys
    return Node


# the class they are given, registered (the model sees the example's class as UNKNOWN)
written("register_pytree_node_class", opq(Raw(_pytree_class(False))), prefixes=TU)
written("register_pytree_with_keys_class", opq(Raw(_pytree_class(True))), prefixes=TU)
