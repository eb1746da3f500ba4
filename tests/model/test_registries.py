"""Module-level dicts filled while the module is imported (jaxlint/model/registries.py):
a function reading the dict sees every store that ran at import."""

from jaxlint.base.literals import UNKNOWN
from jaxlint.model.abstract import Const, Dict, Function

from .helpers import model_of, value_of

DECORATED = """
REGISTRY = {}

def register(name):
    def deco(fn):
        REGISTRY[name] = fn
        return fn
    return deco

@register("mse")
def mse(a, b):
    return (a - b) ** 2

@register("mae")
def mae(a, b):
    return abs(a - b)

def get(name):
    return REGISTRY[name]

result = get("mae")
"""


def _names(d):
    assert type(d) is Dict, d
    return {k: (v.name if type(v) is Function else v) for k, v in d.items}


def test_a_decorator_factory_fills_the_registry_at_import():
    assert type(value_of(DECORATED)) is Function and value_of(DECORATED).name == "mae"
    p = model_of(DECORATED)
    get = p.module_scope.bindings["get"][0].node
    read = next(n for n in p.ctx.descendants(get) if getattr(n, "value", None) == "REGISTRY")
    assert _names(p.evaluator.value(read, None)) == {"mse": "mse", "mae": "mae"}


def test_module_level_stores_and_a_plain_decorator():
    src = """
LOSSES = {"l2": 2}
LOSSES["l1"] = 1

def add(fn):
    LOSSES[fn.__name__] = fn
    return fn

@add
def huber(x):
    return x

def pick(name):
    return LOSSES[name]

result = pick("l1")
"""
    assert value_of(src) == Const(1)


def test_a_registry_filled_otherwise_is_unknown():
    # the decorator is also called at run time: the dict may hold more
    runtime = DECORATED.replace('result = get("mae")', 'def later(f):\n    register("x")(f)\n\nresult = get("mae")')
    assert value_of(runtime) is UNKNOWN
    # a store under an ``if`` in the decorator: not every application stores
    guarded = DECORATED.replace("        REGISTRY[name] = fn", "        if name:\n            REGISTRY[name] = fn")
    assert value_of(guarded) is UNKNOWN
    # a function that stores into it at run time
    mutated = DECORATED.replace("def get(name):", "def put(k, v):\n    REGISTRY[k] = v\n\ndef get(name):")
    assert value_of(mutated) is UNKNOWN


def test_a_decorator_that_may_return_before_storing_is_not_read():
    # "first registration wins": the second application returns before its store
    first_wins = DECORATED.replace(
        "    def deco(fn):\n        REGISTRY[name] = fn",
        "    def deco(fn):\n        if name in REGISTRY:\n            return fn\n        REGISTRY[name] = fn",
    )
    assert value_of(first_wins) is UNKNOWN


def test_what_a_short_budget_cut_is_not_kept_for_later_reads():
    p = model_of(DECORATED)
    ev = p.evaluator
    get = p.module_scope.bindings["get"][0].node
    read = next(n for n in p.ctx.descendants(get) if getattr(n, "value", None) == "REGISTRY")
    with ev.query(1):
        ev.value(read, None)
    assert _names(ev.value(read, None)) == {"mse": "mse", "mae": "mae"}
