"""Defs that forward their ``*args`` to a callable parameter (jaxlint.model.forwarding)."""

from __future__ import annotations

import libcst as cst

from jaxlint.model.facts import FunctionFact, ModuleFacts
from jaxlint.model.forwarding import assumption, forwarded_call, forwards, holds, keeps_calls, keeps_shapes
from jaxlint.model.project import Project

from .helpers import def_named, model_of

SOURCE = """
import jax
from jax.experimental import shard_map
from helpers import apply


def plain(fn, *args):
    return fn(*args)


def with_kwargs(fn, *args, **kwargs):
    return fn(*args, **kwargs)


def jitted(fn, *args, jit=False):
    if jit:
        fn = jax.jit(fn)
    return fn(*args)


def sharded(fn, *args):
    if jax.device_count() > 1:
        fn = shard_map.shard_map(fn, mesh=None, in_specs=None, out_specs=None)
    return fn(*args)


def used_later(self, func, *args):
    out = func(*args)
    log(func)
    return out


def used_first(func, *args):
    log(func)
    return func(*args)


def sliced(fn, *args):
    return fn(*args[1:])


def indexed(fn, *args):
    return fn(args[0])


def extra(fn, *args):
    return fn(*args, 1)


def in_branch(fn, *args):
    if args:
        return fn(*args)


def rebound(fn, *args):
    fn = wrap(fn)
    return fn(*args)


def early_return(fn, *args):
    if not args:
        return None
    return fn(*args)


def generator(fn, *args):
    yield fn(*args)


def args_rebound(fn, *args):
    args = args[1:]
    return fn(*args)


def run(f, x, y):
    plain(f, x, y)
    apply(f, x, y)
    sharded(f, x, y)
    plain(f, x, y=y)
"""


def _defs(p) -> dict[str, cst.FunctionDef]:
    return {n.name.value: n for n in p.ctx.descendants(p.ctx.module, ()) if isinstance(n, cst.FunctionDef)}


def test_which_defs_forward_which_parameter():
    p = model_of(SOURCE)
    got = {name: forwards(p, fn) for name, fn in _defs(p).items() if forwards(p, fn)}
    assert got == {
        "plain": {"0": {"named": 1, "shapes": True, "kwargs": False}},
        "with_kwargs": {"0": {"named": 1, "shapes": True, "kwargs": True}},
        "jitted": {"0": {"named": 1, "shapes": True, "kwargs": False}},
        "sharded": {"0": {"named": 1, "shapes": False, "kwargs": False}},
        "used_later": {"1": {"named": 2, "shapes": True, "kwargs": False}},
    }


def _calls_in_run(p):
    run = _defs(p)["run"]
    return [
        n
        for n in p.ctx.descendants(run)
        if isinstance(n, cst.Call) and p.ctx.code(n).split("(")[0] in ("plain", "apply", "sharded")
    ]


def test_a_call_through_a_forwarder_gets_the_trailing_arguments():
    p = model_of(SOURCE)
    local, imported, sharded, keyword = _calls_in_run(p)
    made = forwarded_call(p, local, local.args[0])
    assert p.ctx.code(made) == "f(x, y)" and p.written_call(made) is local
    assert assumption(p, made) is None and keeps_shapes(p, made)
    made = forwarded_call(p, imported, imported.args[0])
    assert p.ctx.code(made) == "f(x, y)"
    assert assumption(p, made) == {"refs": ["helpers.apply"], "param": 0, "named": 1}
    made = forwarded_call(p, sharded, sharded.args[0])
    assert p.ctx.code(made) == "f(x, y)" and not keeps_shapes(p, made)
    # ``y=`` would go to ``plain``'s own parameters or nowhere: not forwarded
    assert forwarded_call(p, keyword, keyword.args[0]) is None


def test_a_catalogue_function_is_no_forwarder():
    # ``lax.scan(body, init, xs)`` calls ``body(carry, x)`` with slices (its result rule
    # says so), never ``body(init, xs)``
    p = model_of("import jax\nfrom jax import lax\ndef body(c, x):\n    return c, x\nout = lax.scan(body, 0.0, xs)\n")
    (call,) = [c for c in p.ctx.nodes_of(cst.Call) if p.ctx.code(c.func) == "lax.scan"]
    assert forwarded_call(p, call, call.args[0]) is None


def _project(path: str, module: str, forwards_fact: dict) -> Project:
    facts = ModuleFacts(module=module, path=path)
    facts.functions["apply"] = FunctionFact("apply")
    facts.extra["forwards"] = {"apply": forwards_fact}
    return Project([facts])


def test_the_project_confirms_an_assumption():
    assumed = {"refs": ["helpers.apply"], "param": 0, "named": 1}
    fact = {"0": {"named": 1, "shapes": True, "kwargs": False}}
    assert holds(_project("helpers.py", "helpers", fact), assumed)
    assert not holds(_project("helpers.py", "helpers", {"0": {"named": 2, "shapes": True, "kwargs": False}}), assumed)
    assert not holds(_project("other.py", "other", fact), assumed)
    sharded = {"0": {"named": 1, "shapes": False, "kwargs": False}}
    assert not holds(_project("helpers.py", "helpers", sharded), assumed)
    assert holds(_project("helpers.py", "helpers", sharded), assumed, shapes=False)


def test_a_module_of_a_namespace_package_is_found_by_its_path():
    # ``big_vision/models/proj/image_text/`` has no ``__init__.py``: jaxlint names the file ``utils``
    assumed = {"refs": ["pkg.proj.utils.apply"], "param": 0, "named": 1}
    fact = {"0": {"named": 1, "shapes": True, "kwargs": False}}
    assert holds(_project("pkg/proj/utils.py", "utils", fact), assumed)
    assert not holds(_project("pkg/other/utils.py", "utils", fact), assumed)


DECORATORS = """
import functools

def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        print(fn.__name__)
        return fn(*args, **kwargs)
    return wrapper

def positional_only(fn):
    def wrapper(*args):
        out = fn(*args)
        return out
    return wrapper

def drops_first(fn):
    def wrapper(*args):
        return fn(*args[1:])
    return wrapper

def maybe(fn):
    def wrapper(*args, **kwargs):
        if kwargs:
            return None
        return fn(*args, **kwargs)
    return wrapper

def conditional(fn):
    def wrapper(*args):
        if args:
            fn(*args)
    return wrapper

def with_option(fn, level=1):
    def wrapper(*args):
        return fn(*args)
    return wrapper

def factory(fn, level):
    def wrapper(*args):
        return fn(*args)
    return wrapper
"""


def test_a_decorator_keeps_the_calls_when_its_wrapper_forwards_every_argument():
    p = model_of(DECORATORS)
    got = {
        name: keeps_calls(p, def_named(p, name))
        for name in ("logged", "positional_only", "drops_first", "maybe", "conditional", "with_option", "factory")
    }
    assert got == {
        "logged": True,
        "positional_only": True,
        "drops_first": False,  # not the caller's arguments
        "maybe": False,  # may return before calling
        "conditional": False,  # the call is not on every path
        "with_option": True,  # ``@with_option`` leaves ``level`` its default
        "factory": False,  # ``@factory`` alone would fail: a second argument is needed
    }
