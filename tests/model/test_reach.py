"""What a callable can reach besides its arguments (model/reach.py)."""

import libcst as cst

from jaxlint.model.reach import built_without_receiver

from .helpers import model_of

SRC = """
import jax
from functools import partial

def helper(x):
    return x

class Sampler:
    def __init__(self, log_prob, model):
        self.score = jax.jit(jax.vmap(jax.grad(log_prob)))
        self.apply = partial(helper, model)
        self.step = jax.jit(self.advance)
        self.closure = lambda x: self.key
        self.twice = log_prob
        self.twice = self.advance

    def advance(self, x):
        return x

    def run(self, fn):
        local = self.score
        return (self.score, local, self.apply, self.step, self.closure, self.twice, fn, helper)
"""


def _items():
    p = model_of(SRC)
    run = next(f for f in p.ctx.nodes_of(cst.FunctionDef) if f.name.value == "run")
    ret = run.body.body[-1].body[0]
    return p, [e.value for e in ret.value.elements]


def test_values_built_from_constructor_arguments_and_globals_cannot_reach_self():
    p, items = _items()
    got = [built_without_receiver(p, e) for e in items]
    # score, a local bound to it, a partial of a module def and an argument: made before
    # the object; a jit of a bound method, a closure over self, an attribute stored twice
    # (once a bound method), another method's argument: may reach it; a module def: yes
    assert got == [True, True, True, False, False, False, False, True]


KEEPS = """
import jax
from functools import partial

class Sampler:
    def __init__(self, model):
        self.model = model
        self.key = jax.random.PRNGKey(0)
        self.step = jax.jit(self._step)
        self.refresh = self._refresh
        self.leak = partial(helper, self)

    def _step(self, x):
        return self.model(x) + self._scale(x)

    def _scale(self, x):
        return 2 * x

    def _refresh(self):
        self.key, _ = jax.random.split(self.key)

    def _hand_on(self, x):
        return helper(self)

    def run(self):
        return (self.step, self.refresh, self.leak, self._hand_on, self._scale)

def helper(obj):
    return obj
"""


def test_a_callee_keeps_the_receivers_attributes_unless_its_body_may_assign_them():
    from jaxlint.model.reach import keeps_receiver

    p = model_of(KEEPS)
    run = next(f for f in p.ctx.nodes_of(cst.FunctionDef) if f.name.value == "run")
    items = [e.value for e in run.body.body[-1].body[0].value.elements]
    got = [keeps_receiver(p, e, frozenset({"key"})) for e in items]
    # a jit of a method reading the model and calling another method: keeps; a method
    # splitting self.key, a partial handed self, a method handing self on: may not
    assert got == [True, False, False, False, True]
