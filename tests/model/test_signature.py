"""Signatures and binding: where each argument lands, and why a call cannot bind."""

from jaxlint.base.literals import UNKNOWN
from jaxlint.model.abstract import Const
from jaxlint.model.signature import REQUIRED, Signature, bind

ONE, TWO, THREE = Const(1), Const(2), Const(3)


def pos(*vs):
    return [(v, None, "") for v in vs]


def test_positional_and_keywords_bind_as_python_does():
    sig = Signature.of("x", "w", "b", b=Const(0))
    b = bind(sig, [*pos(ONE, TWO), (THREE, "b", "")])
    assert b.error is None and b.arguments == {"x": ONE, "w": TWO, "b": THREE}
    b = bind(sig, pos(ONE, TWO))
    assert b.defaulted == ["b"] and b.value(sig, "b") == Const(0)


def test_errors_are_the_type_errors_python_raises():
    sig = Signature.of("x", "y")
    assert bind(sig, pos(ONE, TWO, THREE)).error == "takes 2 positional arguments but 3 were given"
    assert bind(sig, pos(ONE)).error == "missing a required argument: 'y'"
    assert bind(sig, [*pos(ONE, TWO), (THREE, "z", "")]).error == "got an unexpected keyword argument 'z'"
    assert bind(sig, [*pos(ONE), (TWO, "x", "")]).error == "got multiple values for argument 'x'"


def test_var_positional_and_keyword_only():
    sig = Signature.of("f", "*args", "k", k=Const(None))
    b = bind(sig, pos(ONE, TWO, THREE))
    assert b.arguments == {"f": ONE, "args": (TWO, THREE)}
    assert sig.positional_counts() == (1, None)


def test_a_spread_argument_makes_the_binding_partial():
    sig = Signature.of("x", "y", "z")
    b = bind(sig, [*pos(ONE), (UNKNOWN, None, "*")])
    assert b.partial and b.error is None and b.arguments == {"x": ONE}


def test_partial_drops_positionals_and_keywords_become_keyword_only():
    sig = Signature.of("a", "b", "c")
    assert [p.name for p in sig.drop_positional(1).params] == ["b", "c"]
    kw = sig.with_defaults({"b": TWO})
    assert [(p.name, p.kind) for p in kw.params] == [("a", "pos"), ("b", "kwonly"), ("c", "kwonly")]
    assert kw.param("b").default == TWO and kw.param("c").default is REQUIRED
    assert Signature.of("a").drop_positional(2) is None


def test_a_spread_argument_may_give_every_parameter_it_can_reach():
    sig = Signature.of("x", "axis_name", "*", "lr", axis_name=Const("batch"), lr=Const(0.1))
    b = bind(sig, [(Const(1), None, ""), (UNKNOWN, None, "**")])
    assert b.spread == {"axis_name", "lr"} and b.defaulted == []
    assert b.value(sig, "axis_name") is UNKNOWN and b.value(sig, "x") == Const(1)
    b = bind(sig, [(UNKNOWN, None, "*")])
    assert b.spread == {"x", "axis_name"} and b.defaulted == ["lr"]
    assert b.value(sig, "lr") == Const(0.1)
