"""The JAX API catalogue: its rules on symbolic sizes (no jax needed), and every entry
checked against JAX itself (``jax.eval_shape`` or a run on CPU; marked ``jax``): the same
shapes and dtype kinds, the same failures, the same signatures."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import warnings
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from jaxlint.base.literals import UNKNOWN
from jaxlint.model import dims
from jaxlint.model.abstract import (
    FLOAT,
    INT,
    KEY,
    UINT32,
    Array,
    Const,
    Dict,
    DType,
    External,
    List,
    Partial,
    Scalar,
    Seq,
    Shape,
    Struct,
    Tuple,
    from_constant,
)
from jaxlint.model.catalogue import TABLE, Call, Problem, lookup
from jaxlint.model.catalogue.indexing import IndexRef, make_slice
from jaxlint.model.catalogue.signatures import ATTRIBUTES, SIGNATURES
from jaxlint.model.signature import bind

from . import catalogue_examples as cx

needs_jax = pytest.mark.skipif(find_spec("jax") is None, reason="needs jax")


# ----------------------------------------------------------------------------------
# calling a rule
# ----------------------------------------------------------------------------------
def _kind(name: str) -> str:
    if name.startswith("bool"):
        return "bool"
    for k in ("uint", "int", "complex"):
        if name.startswith(k):
            return k
    return "float"


def abstract(v: Any) -> Any:
    """The abstract value of an example value."""
    if isinstance(v, cx.A):
        return Array(Shape(v.shape), DType(_kind(v.dtype), v.dtype))  # type: ignore[arg-type]
    if isinstance(v, cx.Key):
        return Array(Shape((*v.batch, 2)), UINT32) if v.raw else Array(Shape(v.batch), KEY)
    if isinstance(v, cx.Fn):
        return External(v.qualified)
    if isinstance(v, cx.DT):
        return External(f"jax.numpy.{v.name}")
    if isinstance(v, cx.At):
        return IndexRef(abstract(v.array), abstract(v.index))
    if isinstance(v, cx.Raw):
        return UNKNOWN
    if isinstance(v, slice):
        return make_slice(*(None if x is None else abstract(x) for x in (v.start, v.stop, v.step)))
    if isinstance(v, tuple):
        return Tuple(tuple(abstract(x) for x in v))
    if isinstance(v, list):
        return List(tuple(abstract(x) for x in v))
    if isinstance(v, dict):
        return Dict(tuple((k, abstract(x)) for k, x in v.items()))
    return from_constant(v)


def call_values(
    q: str, args: list[Any], kwargs: dict[str, Any], axis_sizes: dict[str, int] | None = None
) -> tuple[Any, list[Problem]]:
    """``q`` called with abstract values, as the evaluator calls it (``axis_sizes``: the
    maps the call runs under)."""
    op = lookup(q)
    assert op is not None, q
    b = bind(op.signature, [(a, None, "") for a in args] + [(v, k, "") for k, v in kwargs.items()])
    assert b.error is None, f"{q}: {b.error}"
    problems: list[Problem] = []
    sizes = axis_sizes or {}

    def axis_size(name: Any) -> Any:
        return sizes.get(name.value) if type(name) is Const and isinstance(name.value, str) else None

    call = Call(q, op.signature, b, None, problems.append, _call_hook, axis_size)
    return op.result(call), problems


def _call_hook(fn: Any, args: list[Any]) -> Any:
    if type(fn) is External and lookup(fn.qualified) is not None:
        return call_values(fn.qualified, args, {})[0]
    return UNKNOWN


def run(q: str, *args: Any, **kwargs: Any) -> tuple[Any, list[Problem]]:
    return call_values(q, [abstract(a) for a in args], {k: abstract(v) for k, v in kwargs.items()})


def run_example(q: str, e: cx.Ex) -> tuple[Any, list[Problem]]:
    """An example's rule result; under a map (``mapped``: size 2, ``sharded``: 1) the
    axis "i" has that size."""
    sizes = {"i": 2} if e.mapped else {"i": 1} if e.sharded else None
    return call_values(q, [abstract(a) for a in e.args], {k: abstract(v) for k, v in e.kwargs.items()}, sizes)


def result(q: str, *args: Any, **kwargs: Any) -> Any:
    out, problems = run(q, *args, **kwargs)
    assert problems == [], problems
    return out


def shape_of(q: str, *args: Any, **kwargs: Any) -> Shape | None:
    out = result(q, *args, **kwargs)
    assert type(out) is Array, out
    return out.shape


def problem(q: str, *args: Any, **kwargs: Any) -> Problem:
    _, problems = run(q, *args, **kwargs)
    assert len(problems) == 1, problems
    return problems[0]


# ----------------------------------------------------------------------------------
# (a) the rules on symbolic sizes, without jax
# ----------------------------------------------------------------------------------
N, M = dims.sym("f.n", "n"), dims.sym("f.m", "m")


def sym_array(*d: Any, dtype: DType = FLOAT) -> Array:
    return Array(Shape(tuple(d)), dtype)


def sym_run(q: str, *args: Any, **kwargs: Any) -> tuple[Any, list[Problem]]:
    """Like ``run``, but the arguments are abstract values already."""
    return call_values(q, list(args), kwargs)


def sym_shape(q: str, *args: Any, **kwargs: Any) -> Shape | None:
    out, problems = sym_run(q, *args, **kwargs)
    assert problems == [], problems
    assert type(out) is Array, out
    return out.shape


def n_int(d: Any) -> Any:
    return Scalar("int", d)


def test_broadcasting_with_symbols():
    assert sym_shape("jax.numpy.add", sym_array(N, 1), sym_array(M)) == Shape((N, M))
    assert sym_shape("jax.numpy.add", sym_array(N, 3), sym_array(3)) == Shape((N, 3))
    # n and m may be equal or 1: the result size is not known, and no problem
    assert sym_shape("jax.numpy.multiply", sym_array(N), sym_array(M)) == Shape((None,))
    # a known size other than 1 fixes the result even against a symbol
    assert sym_shape("jax.numpy.where", sym_array(N, dtype=DType("bool")), sym_array(4), Const(0.0)) == Shape((4,))
    assert sym_shape("jax.numpy.tanh", sym_array(N, 2 * 1)) == Shape((N, 2))


def test_broadcasting_problems():
    p = problem("jax.numpy.add", cx.A((3,)), cx.A((4,)))
    assert (p.kind, p.message) == ("shape", "add got incompatible shapes for broadcasting: (3,), (4,).")
    p = problem("jax.numpy.where", cx.A((3,), "bool"), cx.A((4,)), cx.A((3,)))
    assert p.message == "Incompatible shapes for broadcasting: shapes=[(3,), (4,), (3,)]"
    # n + 1 against n: one of them may be 1, so no problem
    assert sym_run("jax.numpy.add", sym_array(dims.add(N, 1)), sym_array(N))[1] == []


def test_reductions_with_symbols():
    x = sym_array(N, M, 4)
    assert sym_shape("jax.numpy.sum", x, axis=Const(1)) == Shape((N, 4))
    assert sym_shape("jax.numpy.mean", x, axis=Const(-1), keepdims=Const(True)) == Shape((N, M, 1))
    assert sym_shape("jax.numpy.max", x, axis=Tuple((Const(0), Const(2)))) == Shape((M,))
    assert sym_shape("jax.numpy.argmax", x) == Shape(())
    assert sym_shape("jax.numpy.linalg.norm", x, axis=Const(0)) == Shape((M, 4))
    out, _ = sym_run("jax.numpy.std", sym_array(N, dtype=INT))
    assert out.dtype.kind == "float"
    p = sym_run("jax.numpy.sum", x, axis=Const(3))[1][0]
    assert (p.kind, p.message) == ("rank", "axis 3 is out of bounds for array of dimension 3")
    # an axis not known: the rank is not known either
    assert sym_shape("jax.numpy.sum", x, axis=Scalar("int")) is None


def test_reshape_infers_minus_one_with_exact_division():
    x = sym_array(N, 3, 4)
    assert sym_shape("jax.numpy.reshape", x, Tuple((Const(-1), Const(12)))) == Shape((N, 12))
    assert sym_shape("jax.numpy.reshape", x, Tuple((Const(-1),))) == Shape((dims.mul(N, 12),))
    assert sym_shape("jax.numpy.reshape", x, Tuple((Const(-1), Const(6)))) == Shape((dims.mul(N, 2), 6))
    assert sym_shape("jax.numpy.reshape", x, Tuple((n_int(N), Const(-1)))) == Shape((N, 12))
    # 5 does not divide 12 * n: the quotient is not a polynomial, so not known (and no problem)
    assert sym_shape("jax.numpy.reshape", x, Tuple((Const(5), Const(-1)))) == Shape((5, None))
    assert sym_shape("jax.Array.reshape", x, Const(-1)) == Shape((dims.mul(N, 12),))
    p = sym_run("jax.numpy.reshape", sym_array(3, 4), Tuple((Const(5), Const(-1))))[1][0]
    assert p.message == (
        "cannot reshape array of shape (3, 4) (size 12) into shape (5, -1) because the product of "
        "specified axis sizes (5) does not evenly divide 12"
    )
    # n + 1 elements cannot be n: provably different sizes
    p = sym_run("jax.numpy.reshape", sym_array(dims.add(N, 1)), Tuple((n_int(N),)))[1][0]
    assert (p.kind, p.message) == (
        "shape",
        "cannot reshape array of shape (n + 1,) (size n + 1) into shape (n,) (size n)",
    )


def test_contractions_with_symbols():
    assert sym_shape("jax.numpy.matmul", sym_array(N, 3), sym_array(3, M)) == Shape((N, M))
    assert sym_shape(
        "jax.numpy.matmul",
        sym_array(2, N, 3),
        sym_array(
            3,
        ),
    ) == Shape((2, N))
    # n against m: not provably different, no problem
    assert sym_shape("jax.numpy.dot", sym_array(4, N), sym_array(M, 2)) == Shape((4, 2))
    p = sym_run("jax.numpy.matmul", sym_array(N, 3), sym_array(4, M))[1][0]
    assert p.message == "dot_general requires contracting dimensions to have the same shape, got (3,) and (4,)."
    assert sym_shape("jax.numpy.einsum", Const("bij,bjk->bik"), sym_array(N, 2, 3), sym_array(N, 3, M)) == Shape(
        (N, 2, M)
    )
    assert sym_shape("jax.numpy.einsum", Const("...i,i"), sym_array(N, M, 3), sym_array(3)) == Shape((N, M))
    assert sym_shape("jax.numpy.outer", sym_array(N), sym_array(M, 2)) == Shape((N, dims.mul(M, 2)))
    dn = from_constant((((2,), (1,)), ((0,), (0,))))
    assert sym_shape("jax.lax.dot_general", sym_array(N, 2, 3), sym_array(N, 3, 5), dn) == Shape((N, 2, 5))


def test_scalar_contraction():
    p = problem("jax.numpy.matmul", cx.A(()), cx.A((3,)))
    assert (p.kind, p.message) == (
        "scalar-contraction",
        "matmul input operand 0 must have ndim at least 1, but it has ndim 0",
    )
    out, problems = run("jax.numpy.dot", cx.A(()), cx.A((3,)))
    assert out.shape == Shape((3,)) and [p.kind for p in problems] == ["scalar-contraction"]


def test_joining_and_splitting_with_symbols():
    parts = List((sym_array(N, 3), sym_array(M, 3)))
    assert sym_shape("jax.numpy.concatenate", parts) == Shape((dims.add(N, M), 3))
    assert sym_shape("jax.numpy.stack", List((sym_array(N), sym_array(N))), axis=Const(1)) == Shape((N, 2))
    out, _ = sym_run("jax.numpy.split", sym_array(dims.mul(N, 2), 3), Const(2))
    assert out == List((Array(Shape((N, 3)), FLOAT), Array(Shape((N, 3)), FLOAT)))
    out, _ = sym_run("jax.numpy.split", sym_array(N), List((Const(2),)))
    assert [a.shape for a in out.items] == [Shape((2,)), Shape((dims.sub(N, 2),))]
    p = sym_run("jax.numpy.concatenate", List((sym_array(N, 3), sym_array(N, 4))))[1][0]
    assert p.kind == "shape"
    # n + 1 and n differ whatever n is
    p = sym_run("jax.numpy.stack", List((sym_array(N), sym_array(dims.add(N, 1)))))[1][0]
    assert p.message == "All input arrays must have the same shape. Got (n,), (n + 1,)."


def test_indexing_with_symbols():
    x = sym_array(N, M, 4)
    sl = make_slice
    assert sym_shape("jax.Array.__getitem__", x, Const(0)) == Shape((M, 4))
    assert sym_shape("jax.Array.__getitem__", x, Tuple((Const(Ellipsis), Const(None)))) == Shape((N, M, 4, 1))
    assert sym_shape("jax.Array.__getitem__", x, sl(Const(1))) == Shape((dims.sub(N, 1), M, 4))
    assert sym_shape("jax.Array.__getitem__", x, sl(None, Const(-2))) == Shape((dims.sub(N, 2), M, 4))
    assert sym_shape("jax.Array.__getitem__", x, sl(None, n_int(N))) == Shape((N, M, 4))
    # x[:k] of a symbolic axis: min(k, n), not known
    assert sym_shape("jax.Array.__getitem__", x, sl(None, Const(2))) == Shape((None, M, 4))
    idx = sym_array(5, dtype=INT)
    assert sym_shape("jax.Array.__getitem__", x, Tuple((sl(), idx, idx))) == Shape((N, 5))
    assert sym_shape("jax.Array.__getitem__", x, Tuple((idx, sl(), idx))) == Shape((5, M))
    mask = sym_array(N, M, dtype=DType("bool"))
    assert sym_shape("jax.Array.__getitem__", x, mask) == Shape((None, 4))
    p = sym_run("jax.Array.__getitem__", sym_array(N), Tuple((Const(0), Const(0))))[1][0]
    assert p.message == "Too many indices: array is 1-dimensional, but 2 were indexed"


def test_creation_with_symbols():
    assert sym_shape("jax.numpy.zeros", Tuple((n_int(N), Const(3)))) == Shape((N, 3))
    assert sym_shape("jax.numpy.arange", n_int(N)) == Shape((N,))
    assert sym_shape("jax.numpy.arange", Const(1), n_int(N)) == Shape((dims.sub(N, 1),))
    assert sym_shape("jax.numpy.eye", n_int(N)) == Shape((N, N))
    assert sym_shape("jax.numpy.zeros_like", sym_array(N), shape=Tuple((n_int(M),))) == Shape((M,))
    assert sym_shape("jax.numpy.linspace", Const(0.0), Const(1.0), n_int(N)) == Shape((N,))
    assert sym_shape("jax.numpy.array", List((sym_array(N), sym_array(N)))) == Shape((2, N))
    assert result("jax.numpy.shape", cx.A((2, 3))) == Tuple((Const(2), Const(3)))
    assert sym_run("numpy.prod", Tuple((n_int(N), Const(3))))[0] == Scalar("int", dims.mul(N, 3))


def test_random_keys_and_draws():
    raw, typed = Array(Shape((2,)), UINT32), Array(Shape(()), KEY)
    assert sym_shape("jax.random.split", raw, n_int(N)) == Shape((N, 2))
    assert sym_shape("jax.random.split", typed) == Shape((2,))
    assert sym_shape("jax.random.split", Array(None, None), Const(4)) == Shape((4,), rest=True)
    assert sym_shape("jax.random.normal", typed, Tuple((n_int(N), Const(3)))) == Shape((N, 3))
    assert sym_shape("jax.random.bernoulli", typed, sym_array(N, 2)) == Shape((N, 2))
    assert sym_shape("jax.random.categorical", typed, sym_array(N, 10)) == Shape((N,))
    assert sym_shape("jax.random.key_data", typed) == Shape((2,))
    assert lookup("jax.random.normal").key == "key" and lookup("jax.random.split").key == "key"
    assert lookup("jax.random.normal").static == ("shape", "dtype")
    p = sym_run("jax.random.split", Array(Shape((N,)), KEY))[1][0]
    assert p.message == (
        "split accepts a single key, but was given a key array of shape (n,) != (). Use jax.vmap for batching."
    )


def test_nn_and_collectives():
    assert sym_shape("jax.nn.one_hot", sym_array(N, dtype=INT), n_int(M)) == Shape((N, M))
    assert sym_shape("jax.nn.softmax", sym_array(N, 3)) == Shape((N, 3))
    assert sym_shape("jax.lax.all_gather", sym_array(N), Const("i")) == Shape((None, N))
    out, _ = call_values("jax.lax.all_gather", [sym_array(N), Const("i")], {"tiled": Const(True)}, {"i": 4})
    assert out.shape == Shape((dims.mul(N, 4),))
    assert call_values("jax.lax.axis_size", [Const("i")], {}, {"i": 4})[0] == Const(4)
    assert result("jax.lax.axis_index", "i") == Array(Shape(()), INT)
    assert result("jax.lax.psum", {"a": cx.A((3,))}, "i") == Dict(
        (("a", Array(Shape((3,)), DType("float", "float32"))),)
    )


def test_tree_map_calls_the_function_on_each_leaf():
    tree = Dict((("w", sym_array(N, 3)), ("b", Tuple((sym_array(3), Const(None))))))
    out, _ = sym_run("jax.tree.map", External("jax.numpy.sum"), tree)
    assert out == Dict((("w", Array(Shape(()), FLOAT)), ("b", Tuple((Array(Shape(()), FLOAT), Const(None))))))
    out, _ = sym_run("jax.tree_util.tree_map", External("jax.numpy.add"), tree, tree)
    assert out.get("w") == Array(Shape((N, 3)), FLOAT)
    leaves, _ = sym_run("jax.tree.leaves", tree)
    assert leaves == List((Array(Shape((3,)), FLOAT), Array(Shape((N, 3)), FLOAT)))  # sorted keys: "b" first
    assert sym_run("jax.tree.leaves", Tuple((UNKNOWN,)))[0] is UNKNOWN


def test_a_loop_keeps_the_type_of_its_carry_when_the_body_is_not_known():
    # JAX requires the body to return a carry of the initial carry's structure, shapes and
    # dtypes (it raises otherwise): a body whose result is not known still gives that type,
    # every leaf an array (the Python int too)
    carry = Tuple((sym_array(N, 3), Const(0)))
    typed = Tuple((Array(Shape((N, 3)), FLOAT), Array(Shape(()), INT)))
    assert sym_run("jax.lax.fori_loop", Const(0), Const(3), UNKNOWN, carry)[0] == typed
    assert sym_run("jax.lax.while_loop", UNKNOWN, UNKNOWN, carry)[0] == typed
    # a body whose result is partly known: item by item
    half = Tuple((UNKNOWN, Array(Shape(()), INT)))
    assert sym_run("jax.lax.while_loop", UNKNOWN, External("jax.numpy.negative"), carry)[0] == typed
    from jaxlint.model.catalogue.control import carried

    assert carried(carry, half) == typed
    # a body whose result is known: what it and the initial carry agree on
    assert sym_run("jax.lax.fori_loop", Const(0), Const(3), External("jax.lax.add"), sym_array(N))[0] == sym_array(N)


def test_unknown_inputs_give_unknown_parts():
    # a reduction over every axis gives a 0-d array whatever it is given; over some axes, unknown
    assert sym_run("jax.numpy.sum", UNKNOWN)[0] == Array(Shape(()), None)
    assert sym_shape("jax.numpy.mean", Array(None, FLOAT)) == Shape(())
    assert sym_run("jax.numpy.sum", UNKNOWN, axis=Const(0))[0] is UNKNOWN
    assert sym_run("jax.numpy.sum", UNKNOWN, keepdims=Const(True))[0] is UNKNOWN
    assert sym_shape("jax.numpy.stack", List((UNKNOWN, UNKNOWN))) == Shape((2,), rest=True)
    assert sym_run("jax.numpy.stack", List((UNKNOWN, UNKNOWN)), axis=Const(1))[0] is UNKNOWN
    assert sym_shape("jax.numpy.sum", Array(None, FLOAT), axis=Const(0)) is None
    assert sym_shape("jax.numpy.reshape", sym_array(N), UNKNOWN) is None
    assert sym_shape("jax.numpy.tanh", Array(Shape((N,), rest=True), FLOAT)) == Shape((N,), rest=True)


def test_reducing_an_array_of_a_known_least_rank():
    # rank >= 2 (its first size n): axis -1 is at position >= 1, so n stays and rank >= 1;
    # axis 0 removes n; two axes of rank >= 2 may leave nothing; keepdims keeps the rank
    x = Array(Shape((N, None), rest=True), FLOAT)
    assert sym_shape("jax.numpy.mean", x, axis=Const(-1)) == Shape((N,), rest=True)
    assert sym_shape("jax.numpy.sum", x, axis=Const(0)) == Shape((None,), rest=True)
    assert sym_shape("jax.numpy.sum", x, axis=Const(1)) == Shape((N,), rest=True)
    assert sym_shape("jax.numpy.sum", x, axis=Tuple((Const(-1), Const(-2)))) is None
    assert sym_shape("jax.numpy.max", x, axis=Const(-1), keepdims=Const(True)) == Shape((N, None), rest=True)
    assert sym_shape("jax.numpy.sum", x) == Shape(())


def test_catalogue_entries_are_consistent():
    names = set(TABLE)
    for q in names:
        op = TABLE[q]
        params = {p.name for p in op.signature.params}
        assert op.key is None or op.key in params, q
        assert set(op.static) <= params, q
        assert op.attribute == (q in ATTRIBUTES), q
    assert lookup("jax.numpy.not_a_function") is None
    assert lookup("jax.Array.T").attribute and not lookup("jax.Array.reshape").attribute


def test_every_entry_has_an_example():
    missing = [q for q in TABLE if not cx.examples(q, TABLE[q])]
    assert missing == []
    unknown = [(n, p) for n, p in cx.NAMES if not any(f"{x}.{n}" in TABLE for x in p)]
    assert unknown == []


# ----------------------------------------------------------------------------------
# (b) against JAX
# ----------------------------------------------------------------------------------
def _resolve(q: str) -> Any:
    parts = q.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    raise ImportError(q)


class RealAt:
    def __init__(self, array: Any, index: Any) -> None:
        self.array, self.index = array, index


def real_function(q: str) -> Any:
    import jax

    op = TABLE[q]
    if q.startswith("jax.Array.at."):
        m = q.rsplit(".", 1)[1]
        return lambda ref, *a, **k: getattr(ref.array.at[ref.index], m)(*a, **k)
    if q.startswith(("jax.Array.", "numpy.ndarray.")):
        name = q.split(".", 2)[2]
        if op.attribute:
            return lambda x: getattr(x, name)
        if name == "__getitem__":
            return lambda x, i: x[i]
        return lambda x, *a, **k: getattr(x, name)(*a, **k)
    if q == "jax.nn.initializers.Initializer.__call__":
        return jax.nn.initializers.normal()
    return _resolve(q)


def _fill(a: cx.A) -> Any:
    import numpy as np

    dt = np.dtype(a.dtype) if a.dtype != "bfloat16" else np.float32
    if a.fill == "eye" and len(a.shape) >= 2:
        return np.broadcast_to(np.eye(a.shape[-2], a.shape[-1]), a.shape).astype(dt)
    if a.fill == "zeros":
        return np.zeros(a.shape, dt)
    if a.fill == "arange":
        return np.arange(int(np.prod(a.shape))).reshape(a.shape).astype(dt)
    return np.ones(a.shape, dt)


def materialize(v: Any, array: Any, key: Any, host: bool) -> Any:
    """The real value of an example value; ``array``/``key`` make the arrays."""
    import jax.numpy as jnp
    import numpy as np

    m = lambda x: materialize(x, array, key, host)  # noqa: E731
    if isinstance(v, cx.A):
        return array(v)
    if isinstance(v, cx.Key):
        return key(v)
    if isinstance(v, cx.Fn):
        return _resolve(v.qualified)
    if isinstance(v, cx.DT):
        return getattr(np if host else jnp, v.name)
    if isinstance(v, cx.At):
        return RealAt(m(v.array), m(v.index))
    if isinstance(v, cx.Raw):
        return v.obj
    if isinstance(v, tuple):
        return tuple(m(x) for x in v)
    if isinstance(v, list):
        return [m(x) for x in v]
    if isinstance(v, dict):
        return {k: m(x) for k, x in v.items()}
    return v


NOT_TRACEABLE: tuple[type[BaseException], ...] = ()


def _not_traceable() -> tuple[type[BaseException], ...]:
    import jax

    return (
        jax.errors.ConcretizationTypeError,
        jax.errors.TracerArrayConversionError,
        jax.errors.TracerIntegerConversionError,
        jax.errors.TracerBoolConversionError,
        jax.errors.NonConcreteBooleanIndexError,
    )


def real_result(q: str, e: cx.Ex) -> Any:
    """What the real function gives for the example: traced values (shape and dtype) from
    ``jax.eval_shape``, or the value of a run on CPU for NumPy and untraceable calls."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    fn = real_function(q)
    host = q.startswith("numpy")

    def concrete() -> Any:
        def key(k: cx.Key) -> Any:
            base = jax.random.key(0) if not k.raw else jax.random.PRNGKey(0)
            return jax.random.split(base, k.batch) if k.batch else base

        def arr(a: cx.A) -> Any:
            return _fill(a) if host else jnp.asarray(_fill(a), dtype=a.dtype)

        args = materialize(e.args, arr, key, host)
        kwargs = materialize(e.kwargs, arr, key, host)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)

    if host or e.concrete:
        return concrete()
    specs: list[Any] = []
    lead = (2,) if e.mapped else ()

    def spec_array(a: cx.A) -> Any:
        specs.append(jax.ShapeDtypeStruct((*lead, *a.shape), jnp.dtype(a.dtype)))
        return None

    def spec_key(k: cx.Key) -> Any:
        shape = (*lead, *k.batch, 2) if k.raw else (*lead, *k.batch)
        specs.append(jax.ShapeDtypeStruct(shape, jnp.uint32 if k.raw else jax.random.key(0).dtype))
        return None

    materialize((e.args, e.kwargs), spec_array, spec_key, host)
    captured: list[Any] = []

    def traced(*dyn: Any) -> None:
        if e.sharded == "varying":
            dyn = tuple(jax.lax.pcast(x, ("i",), to="varying") for x in dyn)
        it = iter(dyn)
        args, kwargs = materialize((e.args, e.kwargs), lambda a: next(it), lambda k: next(it), host)
        captured.append(fn(*args, **kwargs))

    f: Any = traced
    if e.mapped:
        f = jax.vmap(traced, axis_name="i", axis_size=2)
    elif e.sharded:
        from jax.sharding import PartitionSpec as P

        f = jax.shard_map(traced, mesh=jax.make_mesh((1,), ("i",)), in_specs=P(), out_specs=P())
    try:
        jax.eval_shape(f, *specs)
    except _not_traceable():
        return concrete()
    return captured[0]


def _is_host(real: Any) -> bool:
    import numpy as np

    return isinstance(real, (np.ndarray, np.generic, bool, int, float, complex))


def _real_kind(dtype: Any) -> str:
    import jax
    import jax.numpy as jnp

    if jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
        return "key"
    for kind, cls in (("bool", jnp.bool_), ("uint", jnp.unsignedinteger), ("int", jnp.integer)):
        if jnp.issubdtype(dtype, cls):
            return kind
    return "complex" if jnp.issubdtype(dtype, jnp.complexfloating) else "float"


def mismatches(rule: Any, real: Any, e: cx.Ex, where: str = "") -> list[str]:
    """How the rule's value differs from the real one (empty: it agrees)."""
    import jax
    import numpy as np

    t = type(rule)
    if rule is UNKNOWN:
        return [] if e.partial or e.opaque else [f"{where}: the rule gives UNKNOWN, jax {type(real).__name__}"]
    if e.opaque and not where:
        return [f"the rule gives {rule!r} for an example marked opaque"]
    if t is Array:
        if isinstance(real, (bool, int, float, complex)):
            real = np.asarray(real)
        if not hasattr(real, "shape") or not hasattr(real, "dtype"):
            return [f"{where}: the rule gives an array, jax {type(real).__name__}"]
        out = []
        if rule.host != _is_host(real):
            out.append(f"{where}: host={rule.host}, jax gives {type(real).__name__}")
        shape = tuple(real.shape)
        if rule.shape is None or rule.shape.rest:
            if not e.partial:
                out.append(f"{where}: shape not known, jax {shape}")
        elif len(rule.shape.dims) != len(shape):
            out.append(f"{where}: shape {rule.shape}, jax {shape}")
        else:
            for d, r in zip(rule.shape.dims, shape, strict=True):
                if d is None and not e.partial:
                    out.append(f"{where}: shape {rule.shape}, jax {shape}")
                    break
                if d is not None and d != r:
                    out.append(f"{where}: shape {rule.shape}, jax {shape}")
                    break
        if rule.dtype is None:
            if not e.partial:
                out.append(f"{where}: dtype not known, jax {real.dtype}")
        elif rule.dtype.kind != _real_kind(real.dtype):
            out.append(f"{where}: dtype {rule.dtype.kind}, jax {real.dtype}")
        return out
    if t in (Tuple, List):
        want = tuple if t is Tuple else list
        # a NamedTuple (``EighResult``) is a tuple to the model: it unpacks and indexes as one
        if not (type(real) is want or (want is tuple and isinstance(real, tuple))) or len(real) != len(rule.items):
            return [
                f"{where}: the rule gives a {want.__name__} of {len(rule.items)}, jax {type(real).__name__} {real!r:.60}"
            ]
        return [
            m
            for i, (a, b) in enumerate(zip(rule.items, real, strict=True))
            for m in mismatches(a, b, e, f"{where}[{i}]")
        ]
    if t is Dict:
        if not isinstance(real, dict) or set(real) != {k for k, _ in rule.items}:
            return [f"{where}: dict keys differ"]
        return [m for k, v in rule.items for m in mismatches(v, real[k], e, f"{where}[{k!r}]")]
    if t is Const:
        ok = (
            real is None
            if rule.value is None
            else ((real == rule.value and not hasattr(real, "shape")) or np.ndim(real) == 0)
        )
        return [] if ok and (rule.value is None or real == rule.value) else [f"{where}: {rule!r}, jax {real!r}"]
    if t is Scalar and rule.dim is not None:
        if rule.dim == dims.DEVICES:
            return [] if real == jax.device_count() else [f"{where}: the device count, jax {real!r}"]
        return [f"{where}: the rule gives {rule!r}"]
    if t is Seq:
        n = jax.device_count() if rule.length == dims.DEVICES else rule.length
        if not isinstance(real, (list, tuple)) or (n is not None and len(real) != n):
            return [f"{where}: a sequence of {rule.length!r}, jax {real!r:.60}"]
        if rule.item == External("jax.Device") and not all(isinstance(x, jax.Device) for x in real):
            return [f"{where}: devices, jax {real!r:.60}"]
        return []
    if t is Struct and type(rule.cls) is External:
        if not isinstance(real, _resolve(rule.cls.qualified)):
            return [f"{where}: {rule!r}, jax {real!r:.60}"]
        # the fields the model knows are the instance's attributes (a mesh's ``axis_names``)
        return [m for k, v in rule.fields for m in mismatches(v, getattr(real, k), e, f"{where}.{k}")]
    if t is Scalar:
        py = {"bool": (bool, np.bool_), "int": (int, np.integer), "float": (float, np.floating), "complex": (complex,)}
        ok = isinstance(real, py[rule.kind]) and not (rule.kind == "int" and isinstance(real, bool))
        return [] if ok else [f"{where}: {rule!r}, jax {type(real).__name__}"]
    if t is External:
        return [] if callable(real) else [f"{where}: a function, jax {real!r}"]
    if t is Partial:
        return [] if isinstance(real, jax.tree_util.Partial) else [f"{where}: a Partial, jax {real!r}"]
    return [f"{where}: the rule gives {rule!r}"]


GROUPS = {
    "jax.numpy": lambda q: q.startswith("jax.numpy."),
    "numpy": lambda q: (
        q.startswith("numpy.") and not q.startswith(("numpy.random.", "numpy.testing.", "numpy.ndarray."))
    ),
    "jax.lax": lambda q: q.startswith("jax.lax."),
    "jax.random": lambda q: q.startswith("jax.random."),
    "jax.nn": lambda q: q.startswith("jax.nn."),
    "jax.tree": lambda q: q.startswith(("jax.tree.", "jax.tree_util.")) or q == "jax.tree_map",
    "numpy.random+testing": lambda q: q.startswith(("numpy.random.", "numpy.testing.")),
    "methods": lambda q: q.startswith(("jax.Array.", "numpy.ndarray.")),
    "devices": lambda q: q.startswith("jax.") and q.rsplit(".", 1)[0] == "jax",
    "jax.sharding": lambda q: q.startswith("jax.sharding."),
}
# entries of functions the installed jax no longer has: their examples cannot run here
NOT_IN_THIS_JAX = frozenset({"jax.device_put_replicated", "jax.device_put_sharded", "jax.tree_map"})


def test_groups_cover_the_catalogue():
    assert [q for q in TABLE if not any(g(q) for g in GROUPS.values())] == []


@pytest.mark.jax
@needs_jax
@pytest.mark.parametrize("group", list(GROUPS))
def test_every_entry_agrees_with_jax(group: str):
    failures = []
    import jax

    for q in sorted(q for q in TABLE if GROUPS[group](q)):
        if q in NOT_IN_THIS_JAX:
            assert not hasattr(jax, q.rsplit(".", 1)[1]), f"{q} is back: check its examples"
            continue
        for e in cx.examples(q, TABLE[q]):
            shown = f"{q}{e.args!r:.80} {e.kwargs!r:.60}"
            try:
                rule, problems = run_example(q, e)
            except Exception as err:  # a rule that crashes is a failure to report, not to hide
                failures.append(f"{shown}: the rule raised {type(err).__name__}: {err}")
                continue
            if problems:
                failures.append(f"{shown}: the rule reports {problems[0].message}")
            try:
                real = real_result(q, e)
            except Exception as err:
                failures.append(f"{shown}: jax raised {type(err).__name__}: {str(err)[:200]}")
                continue
            failures += [f"{shown}: {m}" for m in mismatches(rule, real, e)]
    assert failures == []


def _recording(fn: Any, name: str, called: list[str]) -> Any:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        called.append(name)
        return fn(*args, **kwargs)

    return wrapped


@pytest.mark.jax
@needs_jax
def test_the_functions_an_entry_calls_are_called_before_it_returns():
    """``Op.calls`` (the call paths read it: that function runs here): every example of
    every entry that says so, run on CPU with that argument wrapped, calls it."""
    import jax
    import jax.numpy as jnp

    marked = sorted(q for q in TABLE if TABLE[q].calls)
    assert {"jax.tree.map", "jax.tree_util.tree_map_with_path", "jax.tree.reduce"} <= set(marked)
    failures = []
    for q in marked:
        if q in NOT_IN_THIS_JAX:
            assert not hasattr(jax, q.rsplit(".", 1)[1]), f"{q} is back: check its examples"
            continue
        fn = real_function(q)
        for e in cx.examples(q, TABLE[q]):
            make = (lambda a: jnp.asarray(_fill(a), dtype=a.dtype), lambda k: jax.random.key(0), False)
            bound = inspect.signature(fn).bind(*materialize(e.args, *make), **materialize(e.kwargs, *make))
            called: list[str] = []
            for name in TABLE[q].calls:
                inner = bound.arguments[name]
                bound.arguments[name] = _recording(inner, name, called)
            fn(*bound.args, **bound.kwargs)
            if sorted(set(called)) != sorted(TABLE[q].calls):
                failures.append(f"{q}{e.args!r:.60}: called {sorted(set(called))}, not {list(TABLE[q].calls)}")
    assert failures == []


@pytest.mark.jax
@needs_jax
def test_every_problem_is_a_real_failure():
    failures = []
    for q, e, kind in cx.FAILING:
        _, problems = run(q, *e.args, **e.kwargs)
        if [p.kind for p in problems] != [kind]:
            failures.append(f"{q}{e.args}: the rule reports {[(p.kind, p.message) for p in problems]}")
            continue
        try:
            real_result(q, e)
        except Exception as err:
            jax_says = str(err).split("\n")[0]
            if problems[0].message not in jax_says and not isinstance(err, IndexError):
                failures.append(f"{q}{e.args}: the rule says {problems[0].message!r}, jax {jax_says!r}")
            continue
        failures.append(f"{q}{e.args}: jax does not raise")
    assert failures == []


@pytest.mark.jax
@needs_jax
def test_scaling_by_a_rank0_operand_is_recorded_and_does_not_raise():
    for q, e in cx.SCALING:
        rule, problems = run(q, *e.args, **e.kwargs)
        assert [p.kind for p in problems] == ["scalar-contraction"], q
        assert mismatches(rule, real_result(q, e), e) == [], q


@pytest.mark.jax
@needs_jax
def test_a_choice_among_one_element_is_recorded_and_does_not_raise():
    for q, e in cx.DEGENERATE:
        rule, problems = run(q, *e.args, **e.kwargs)
        assert [p.kind for p in problems] == ["degenerate"], q
        assert mismatches(rule, real_result(q, e), e) == [], q


def _generator_path() -> Path:
    return Path(__file__).resolve().parents[1] / "bench" / "catalogue_signatures.py"


def _generator() -> Any:
    path = _generator_path()
    spec = importlib.util.spec_from_file_location("catalogue_signatures", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.jax
@needs_jax
def test_signatures_are_what_jax_declares():
    """The generated signatures are those ``inspect.signature`` reads from the installed
    jax and numpy (for every name the generator covers, so for every entry)."""
    from jaxlint.model.catalogue.encoding import E, U

    entries, attributes = _generator().functions()
    fresh = {q: eval(code, {"E": E, "U": U}) for q, code in entries.items()}
    assert {q: v for q, v in fresh.items() if SIGNATURES.get(q) != v} == {}
    assert set(SIGNATURES) == set(fresh)
    assert set(ATTRIBUTES) == set(attributes)
    for q in TABLE:
        assert q in SIGNATURES or q in ATTRIBUTES or q in NOT_IN_THIS_JAX, q
    from jaxlint.model.transforms import TABLE as TRANSFORMS

    for q, api in TRANSFORMS.items():  # the transfer functions read their signatures there
        if api.kind != "removed":
            assert (api.same_as or q) in SIGNATURES, q


@pytest.mark.jax
@needs_jax
def test_definitions_are_where_jax_holds_its_public_functions():
    """``base/definitions.py`` says what the generator reads off a fresh interpreter (the
    loaded ``jax._src`` modules depend on what else was imported: not this process), and
    each private path is the public function itself."""
    import json
    import subprocess
    import sys

    from jaxlint.base.definitions import DEFINED_AT

    script = (
        "import importlib.util, json, sys\n"
        f"spec = importlib.util.spec_from_file_location('g', {str(_generator_path())!r})\n"
        "g = importlib.util.module_from_spec(spec); spec.loader.exec_module(g)\n"
        "entries, _ = g.functions()\n"
        "json.dump(g.definitions(list(entries)), sys.stdout)\n"
    )
    fresh = json.loads(
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    )
    assert fresh == DEFINED_AT
    for private, public in [("jax._src.api.vmap", "jax.vmap"), ("jax._src.shard_map.shard_map", "jax.shard_map")]:
        mod, _, name = private.rpartition(".")
        pmod, _, pname = public.rpartition(".")
        assert getattr(importlib.import_module(mod), name) is getattr(importlib.import_module(pmod), pname)
        assert DEFINED_AT[private] == public


@pytest.mark.jax
@needs_jax
def test_attributes_are_properties_of_the_real_classes():
    import jax
    import numpy as np

    for q in ATTRIBUTES:
        cls = jax.Array if q.startswith("jax.Array.") else np.ndarray
        attr = inspect.getattr_static(cls, q.rsplit(".", 1)[1])
        assert not callable(attr) or isinstance(attr, property), q


@pytest.mark.jax
@needs_jax
def test_what_consumes_or_makes_a_key_is_what_jax_key_reuse_checker_says():
    """``Op.key`` is a sink of JAX's key-reuse checker, ``Op.makes_key`` a source: asked of
    ``jax.experimental.key_reuse`` with a typed key (it sees no raw ``PRNGKey`` words)."""
    import jax
    import jax.numpy as jnp
    from jax.experimental.key_reuse import _core

    disagree, checked = [], 0
    for q in sorted(q for q in TABLE if q.startswith("jax.random.")):
        op = TABLE[q]
        for e in cx.examples(q, op):
            flat = [*e.args, *e.kwargs.values()]
            if not any(isinstance(v, cx.Key) and not v.raw and not v.batch for v in flat):
                continue
            fn = real_function(q)

            def call(key: Any, fn: Any = fn, e: cx.Ex = e) -> Any:
                one = lambda k: key if not k.raw and not k.batch else jax.random.PRNGKey(0)  # noqa: E731
                arr = lambda a: jnp.asarray(_fill(a), dtype=a.dtype)  # noqa: E731
                out = fn(*materialize(e.args, arr, one, False), **materialize(e.kwargs, arr, one, False))
                return [x for x in jax.tree.leaves(out) if isinstance(x, jax.Array)]  # not ``key_impl``'s name

            sig = _core.function_type_signature(call, jax.random.key(0))
            consumes = any(s.idx == 0 for s in sig.sinks)
            makes = any(True for _ in sig.sources)
            if consumes != (op.key is not None) or makes != op.makes_key:
                disagree.append(f"{q}: jax says consumes={consumes} makes a key={makes}")
            checked += 1
            break
    assert disagree == []
    assert checked >= 40


@pytest.mark.jax
@needs_jax
def test_a_selecting_draw_picks_the_same_positions_of_arrays_of_one_length():
    """``Op.selects``: from one key, the positions picked depend on the length, not the array."""
    import jax
    import jax.numpy as jnp

    selecting = sorted(q for q in TABLE if TABLE[q].selects is not None)
    assert selecting == ["jax.random.choice", "jax.random.permutation"]
    key = jax.random.key(7)
    wide = jnp.arange(7 * 3, dtype=jnp.float32).reshape(7, 3)
    narrow = jnp.arange(7, dtype=jnp.int32) * 10
    for q in selecting:
        op, fn = TABLE[q], real_function(q)
        assert op.key is not None and op.selects is not None
        a = fn(**{op.key: key, op.selects: wide})
        b = fn(**{op.key: key, op.selects: narrow})
        assert bool(jnp.all(a[..., 0] / 3 == b / 10)), q


def test_the_numeric_constants_are_the_modules_own():
    import importlib
    import math

    from jaxlint.model.catalogue.constants import CONSTANTS

    for q, c in CONSTANTS.items():
        module, name = q.rsplit(".", 1)
        if module != "math":
            pytest.importorskip(module.split(".")[0])
        real = getattr(importlib.import_module(module), name)
        assert type(real) is float and (real == c.value or (math.isnan(real) and math.isnan(c.value))), q


def test_numpy_samplers_are_read_off_their_signatures():
    """Every ``numpy.random`` function whose last parameter is ``size`` draws that shape;
    a ``Generator``'s and a ``RandomState``'s methods are the module's functions."""
    from jaxlint.model.abstract import FLOAT, INT, Array, Shape, Tuple

    from .helpers import value_of

    got = value_of(
        "import numpy as np\nrng = np.random.default_rng(0)\nlegacy = np.random.RandomState(0)\n"
        "result = (rng.weibull(2.0, (3, 4)), rng.geometric(0.5, 5), legacy.triangular(0.0, 1.0, 2.0, size=7),\n"
        "          np.random.vonmises(0.0, 1.0), rng.integers(0, 4, (2,)), rng.multinomial(10, [0.5, 0.5], 3))\n"
    )
    assert type(got) is Tuple
    shapes = [(x.shape, x.dtype.kind) if type(x) is Array and x.shape is not None else x for x in got.items]
    assert shapes[:5] == [
        (Shape((3, 4)), FLOAT.kind),
        (Shape((5,)), INT.kind),
        (Shape((7,)), FLOAT.kind),
        (Shape(()), FLOAT.kind),
        (Shape((2,)), INT.kind),
    ]
