"""Which calls a value made at an application can reach (jaxlint/model/carriers.py): the
bound over the calls map sites ask the evaluator about. Every way a value goes is followed;
a call no value of the application can reach is not."""

import libcst as cst

from jaxlint.model.carriers import carrying_calls

from .helpers import model_of


def _reached(source: str, marker: str = "jax.vmap(") -> list[str]:
    p = model_of(source)
    sources = [n for n in p.ctx.nodes_of(cst.Call) if p.ctx.code(n).startswith(marker)]
    return sorted(p.ctx.code(c) for c in carrying_calls(p, sources))


def test_the_value_goes_through_names_attributes_returns_parameters_and_wrappers():
    source = """
import jax
from functools import partial

def make():
    return jax.vmap(f)

class M:
    def __init__(self):
        self.apply = make()

    def __call__(self, x):
        return self.apply(x)

def run(fn, x):
    return fn(x)

step = make()
step(1)
jitted = jax.jit(step)
jitted(2)
run(step, 3)
partial(run, step)(4)
other(5)
"""
    assert _reached(source, "jax.vmap(f)") == [
        "fn(x)",  # the parameter it is passed as, directly or beside `run` in a partial
        "jax.jit(step)",
        "jitted(2)",  # what a call it is handed to gives
        "partial(run, step)",
        "partial(run, step)(4)",
        "run(step, 3)",
        "self.apply(x)",  # a store on self: any read of `.apply`
        "step(1)",  # a factory's calls give its result (`make()` itself is no call of it)
    ]


def test_a_parameter_the_value_is_passed_to_is_followed_into_its_calls():
    source = """
import jax
from functools import partial

def run(fn, x):
    return fn(x)

def bound(fn, x):
    return fn(x)

run(jax.vmap(f), 1)
partial(bound, jax.vmap(g))(2)
unrelated(3)
"""
    # both `fn(x)`: through the call, and through the def handed beside it in a partial
    assert _reached(source) == [
        "fn(x)",
        "fn(x)",
        "partial(bound, jax.vmap(g))",
        "partial(bound, jax.vmap(g))(2)",
        "run(jax.vmap(f), 1)",
    ]


def test_a_call_no_value_reaches_is_left_out():
    source = """
import jax

vm = jax.vmap(f)
y = other(2)
z = y + 1
print(z)
"""
    assert _reached(source) == []
