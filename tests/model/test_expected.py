"""Where the code expects an error (jaxlint/model/expected.py)."""

from __future__ import annotations

import libcst as cst

from jaxlint.model.expected import expects_error, runs_where_expected

from .helpers import model_of

SOURCE = """
import pytest
import jax

def test(self):
    with self.assertRaisesRegex(ValueError, "in_axes"):
        jax.vmap(f, in_axes=(0,))(a, b)
    with pytest.raises(TypeError):
        jax.grad(g)(x)
    with core.extend_axis_env_nd([("i", 2)]):
        jax.lax.psum(x, "i")
    with open(path) as fh:
        jax.jit(h)(x)
    jax.jit(k)(x)
"""


def _calls(p) -> dict[str, cst.Call]:
    """The transform and collective calls, by the name of their first argument."""
    out = {}

    class Calls(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            if type(n.func) is cst.Attribute and n.func.attr.value in ("vmap", "grad", "psum", "jit"):
                out[n.args[0].value.value] = n

    p.ctx.module.visit(Calls())
    return out


def test_calls_inside_assert_raises_and_pytest_raises_expect_an_error():
    p = model_of(SOURCE)
    calls = _calls(p)
    assert {name: expects_error(p.ctx, c) for name, c in calls.items()} == {
        "f": True,
        "g": True,
        "x": False,
        "h": False,
        "k": False,
    }


def test_an_axis_environment_set_up_by_hand_counts_only_when_asked():
    p = model_of(SOURCE)
    psum = _calls(p)["x"]
    assert expects_error(p.ctx, psum, also=("axis_env",)) is True
    assert expects_error(p.ctx, psum) is False


CALLABLE_FORMS = """
import pytest
import jax
from jax._src import test_util as jtu

def test(self):
    self.assertRaises(ValueError, jax.vmap(a), x)
    self.assertRaisesRegex(ValueError, "msg", jax.vmap(b), x)
    self.assertRaisesRegex(ValueError, jax.vmap(c), x)
    pytest.raises(TypeError, jax.grad(d), x)
    jtu.check_raises(lambda: jax.grad(e)(x), TypeError, "msg")
    jtu.check_raises_regexp(jax.grad(f), TypeError, "msg")
    jtu.check_raises(print, TypeError, jax.grad(g)(x))
    self.assertRaises(jax.vmap(h), print)
    self.assertRaises(ValueError, *args, jax.vmap(i))
    self.assertEqual(jax.vmap(j), x)
"""


def test_the_callable_of_a_callable_form_expects_an_error_and_nothing_else_does():
    p = model_of(CALLABLE_FORMS)
    calls = _calls(p)
    assert {name: expects_error(p.ctx, c) for name, c in calls.items()} == {
        "a": True,
        "b": True,
        "c": False,
        "d": True,
        "e": True,
        "f": True,
        "g": False,
        "h": False,
        "i": False,
        "j": False,
    }


DEFINITIONS = """
import pytest
import jax
from functools import partial

def loss(x):
    return x, x

class T:
    def test_local(self):
        def pair(x):
            return x, x

        step = jax.grad(pair)
        with self.assertRaises(TypeError):
            step(1.0)
        self.assertRaises(TypeError, step, 2.0)

    def test_used_outside(self):
        def twice(x):
            return x, x

        with self.assertRaises(TypeError):
            jax.grad(twice)(1.0)
        return twice

    def test_module_level(self):
        with self.assertRaises(TypeError):
            jax.grad(loss)(1.0)

    def test_unknown_decorator(self):
        @register
        def noted(x):
            return x, x

        with self.assertRaises(TypeError):
            jax.grad(noted)(1.0)

    def test_decorated(self):
        @partial(jax.vmap, in_axes=(0, 0))
        def mapped(x):
            return x

        with self.assertRaises(ValueError):
            mapped(1.0)

    def test_recursive(self):
        def walk(n):
            return walk(n - 1) if n else jax.grad(loss)

        with self.assertRaises(TypeError):
            walk(3)

    def test_never_used(self):
        def unused(x):
            return x, x
"""


def _returns(p) -> dict[str, cst.CSTNode]:
    """The returned expression of each def, by the def's name."""
    out = {}

    class Returns(cst.CSTVisitor):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> None:
            body = n.body.body
            if body and type(body[0]) is cst.SimpleStatementLine and type(body[0].body[0]) is cst.Return:
                out[n.name.value] = body[0].body[0].value

    p.ctx.module.visit(Returns())
    return out


def test_a_local_definition_runs_where_expected_when_every_use_does():
    p = model_of(DEFINITIONS)
    got = {name: runs_where_expected(p.ctx, node) for name, node in _returns(p).items()}
    assert got == {
        "loss": False,  # module level: other modules may use it
        "pair": True,  # through ``step``, used in a with block and as a callable
        "twice": False,  # also returned
        "noted": False,  # a decorator that may keep it
        "mapped": True,
        "walk": True,  # its recursive call runs where the function does
        "unused": False,  # no use at all: unknown
    }


def test_the_decorator_of_a_local_def_belongs_to_the_def():
    p = model_of(DEFINITIONS)
    mapped = p.ctx.enclosing_function(_returns(p)["mapped"])
    assert runs_where_expected(p.ctx, mapped.decorators[0].decorator) is True
    twice = p.ctx.enclosing_function(_returns(p)["twice"])
    assert runs_where_expected(p.ctx, twice.name) is False


RULES = """
import pytest
import jax

def test_bwd(self):
    @jax.custom_vjp
    def f(x):
        return x

    def f_bwd(_, g):
        return (g, g)

    f.defvjp(lambda x: (x, None), f_bwd)
    f(2.0)
    with pytest.raises(TypeError):
        jax.grad(f)(2.0)

def test_bwd_differentiated_outside(self):
    @jax.custom_vjp
    def h(x):
        return x

    def h_bwd(_, g):
        return (g, g)

    h.defvjp(lambda x: (x, None), h_bwd)
    with pytest.raises(TypeError):
        jax.grad(h)(2.0)
    return jax.grad(h)(1.0)

def helper():
    @jax.custom_jvp
    def k(x):
        return x

    @k.defjvp
    def k_jvp(x, t):
        return k(x), t

    k(1.0)
    with pytest.raises(TypeError):
        jax.jvp(k, (1.0,), (1.0,))
"""


def test_a_rule_runs_where_its_function_is_differentiated():
    p = model_of(RULES)
    got = {name: runs_where_expected(p.ctx, node) for name, node in _returns(p).items()}
    assert got == {
        "f": False,  # the primal is called directly: it runs outside
        "f_bwd": True,  # ``f(2.0)`` in a test runs f, not its rules
        "h": False,
        "h_bwd": False,  # differentiated outside too
        "k": False,
        "k_jvp": False,  # ``k(1.0)`` in a helper: whoever calls it may differentiate it
    }


RESOLVED = """
import warnings
import pytest
from pytest import raises as expect, warns as expect_warning
import jax

class raises:
    def __init__(self, kind):
        pass

def catch_warnings():
    return open("log")

def test(self, helper):
    with raises(ValueError):
        jax.jit(a)(x)
    with expect(ValueError):
        jax.jit(b)(x)
    with self.assertRaises(ValueError):
        jax.jit(c)(x)
    with helper.raises(ValueError):
        jax.jit(d)(x)
    with catch_warnings():
        jax.jit(e)(x)
    with warnings.catch_warnings():
        jax.jit(f)(x)
    with expect_warning(UserWarning):
        jax.jit(g)(x)
"""


def test_contexts_are_known_by_what_their_names_resolve_to():
    from jaxlint.model.expected import expects_warning

    p = model_of(RESOLVED)
    calls = _calls(p)
    # a local class or def with a framework's name is not the framework's; an alias of one
    # is; a name the model cannot resolve (``self``'s, a parameter's) may be: expected
    assert {name: expects_error(p.ctx, c) for name, c in calls.items()} == {
        "a": False,
        "b": True,
        "c": True,
        "d": True,
        "e": False,
        "f": False,
        "g": False,
    }
    assert {name: expects_warning(p.ctx, c) for name, c in calls.items()} == {
        "a": False,
        "b": True,
        "c": True,
        "d": True,
        "e": False,
        "f": True,
        "g": True,
    }


def test_a_helper_def_that_hands_its_parameter_to_an_assertion_is_read_from_the_tree():
    p = model_of(
        """
import jax

def check(test, etype, f):
    test.assertRaises(etype, f)

def assert_raises(etype, f):
    return f()

def test(self):
    check(self, TypeError, lambda: jax.jit(a)(x))
    assert_raises(TypeError, lambda: jax.jit(b)(x))
"""
    )
    calls = _calls(p)
    assert {name: expects_error(p.ctx, c) for name, c in calls.items()} == {"a": True, "b": False}
