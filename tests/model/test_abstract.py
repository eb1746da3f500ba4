"""The abstract-value lattice: join, constants, pytree leaves."""

from jaxlint.base.literals import UNKNOWN
from jaxlint.model.abstract import (
    FLOAT,
    INT,
    Array,
    Const,
    Dict,
    List,
    Scalar,
    Shape,
    Struct,
    Tuple,
    as_array,
    as_dim,
    constant,
    from_constant,
    join,
    leaves,
    path_text,
)
from jaxlint.model.dims import sym


def test_join_keeps_what_both_agree_on():
    a, b = Array(Shape((3, 4)), FLOAT), Array(Shape((3, 5)), FLOAT)
    assert join(a, b) == Array(Shape((3, None)), FLOAT)
    assert join(Array(Shape((3,))), Array(Shape((3, 1)))) == Array(None)
    assert join(Const(1), Const(2)) == Scalar("int")
    assert join(Const(1), Const("a")) is UNKNOWN
    assert join(Tuple((Const(1), a)), Tuple((Const(1), b))) == Tuple((Const(1), join(a, b)))
    assert join(Tuple((a,)), Tuple((a, a))) is UNKNOWN
    assert join(a, UNKNOWN) is UNKNOWN


def test_shapes_with_more_axes_keep_the_leading_ones():
    s = Shape((4,), rest=True)
    assert s.rank is None and s.axis(0) == 4 and s.axis(-1) is None
    assert s.has_axis(0) is True and s.has_axis(3) is None
    assert Shape((2, 3)).has_axis(2) is False and str(Shape((2,))) == "(2,)"


def test_numbers_are_rank_zero_arrays_and_ints_are_sizes():
    assert as_array(Const(1.5)) == Array(Shape(()), FLOAT)
    assert as_array(Const(2)) == Array(Shape(()), INT)
    assert as_array(Const("s")) is None
    n = sym("f.n", "n")
    assert as_dim(Scalar("int", n)) == n and as_dim(Const(3)) == 3 and as_dim(Const(True)) is None


def test_constants_round_trip():
    v = from_constant({"a": (1, None), "b": [2.0]})
    assert v == Dict((("a", Tuple((Const(1), Const(None)))), ("b", List((Const(2.0),)))))
    assert constant(v) == {"a": (1, None), "b": [2.0]}
    assert constant(Tuple((Array(),))) is UNKNOWN


def test_leaves_flatten_as_jax_does():
    w, b = Array(Shape((3, 2))), Array(Shape((2,)))
    tree = Dict((("w", w), ("b", b), ("none", Const(None))))
    assert [(path_text("params", p), v) for p, v in leaves(tree)] == [("params['b']", b), ("params['w']", w)]
    s = Struct("Cls", (("step", Const(0)), ("fn", UNKNOWN)), "pytree", frozenset({"fn"}))
    assert [path_text("state", p) for p, _ in leaves(s)] == ["state.step"]
    assert [p for p, _ in leaves(Tuple((w, List((b, b)))))] == [(0,), (1, 0), (1, 1)]
