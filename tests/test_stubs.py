"""jaxlint's library stubs (jaxlint/model/stubs/) say what the library says: each stub's
functions and methods have the library's parameters, its dataclass fields are the
library's fields (pytree children or static alike), and the mistake a stub lets the model
find fails with the real library."""

import ast
import dataclasses
import importlib
import inspect
import os
import subprocess
import sys

import pytest

from jaxlint.lint.imports import STUBS

STUB_FILES = sorted(f for f in os.listdir(STUBS) if f.endswith(".stub"))


def _library(module):
    top = module.split(".")[0]
    pytest.importorskip(top)
    return importlib.import_module(module)


def _params(args: ast.arguments):
    out = []
    for kind, group in (
        (inspect.Parameter.POSITIONAL_ONLY, args.posonlyargs),
        (inspect.Parameter.POSITIONAL_OR_KEYWORD, args.args),
    ):
        out += [(a.arg, kind) for a in group]
    if args.vararg:
        out.append((args.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
    out += [(a.arg, inspect.Parameter.KEYWORD_ONLY) for a in args.kwonlyargs]
    if args.kwarg:
        out.append((args.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
    return out


def _signature(obj, bound: bool):
    params = list(inspect.signature(obj).parameters.values())
    return [(p.name, p.kind) for p in params][1 if bound else 0 :]


def _defs(path):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, None, node
        elif isinstance(node, ast.ClassDef):
            yield node.name, node, None
            for member in node.body:
                if isinstance(member, ast.FunctionDef):
                    yield f"{node.name}.{member.name}", node, member


def test_there_are_stubs():
    assert {"flax.training.train_state.stub", "optax.stub"} <= set(STUB_FILES)


@pytest.mark.parametrize("stub", STUB_FILES)
def test_a_stub_has_the_library_signatures_and_fields(stub):
    module = stub[: -len(".stub")]
    lib = _library(module)
    for name, cls, fn in _defs(os.path.join(STUBS, stub)):
        obj = lib
        for part in name.split("."):
            obj = getattr(obj, part)
        if fn is None:  # a class: its dataclass fields, in order, pytree children or static
            declared = [
                (s.target.id, _static(s.value))
                for s in cls.body
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
            ]
            if dataclasses.is_dataclass(obj):
                real = [
                    (f.name, not f.metadata.get("pytree_node", True) or f.metadata.get("static", False))
                    for f in dataclasses.fields(obj)
                ]
                added = _library_added(obj)  # the model appends them (classes.DATACLASS_BASES)
                if added:
                    assert [n for n, _ in real[-len(added) :]] == list(added), name
                    real = real[: -len(added)]
            else:  # a NamedTuple: every field is a pytree child
                real = [(name, False) for name in obj._fields]
            assert declared == real, name
            continue
        method = cls is not None and not any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list
        )
        ours = _params(fn.args)[1 if method else 0 :]
        assert ours == _signature(obj, bound=False)[1 if method and not inspect.ismethod(obj) else 0 :], name


def _library_added(cls) -> tuple[str, ...]:
    """The fields a library base appends to its dataclass subclasses (flax linen's
    ``parent`` and ``name``), as ``classes.DATACLASS_BASES`` says."""
    from jaxlint.model.classes import DATACLASS_BASES

    for base in cls.__mro__[1:]:
        q = f"{base.__module__}.{base.__qualname__}"
        if q in DATACLASS_BASES:
            return DATACLASS_BASES[q]
    return ()


def _static(value):
    """``struct.field(pytree_node=False)`` (flax) or ``eqx.field(static=True)``."""
    if not isinstance(value, ast.Call):
        return False
    return any(
        (k.arg, k.value.value) in (("pytree_node", False), ("static", True))
        for k in value.keywords
        if isinstance(k.value, ast.Constant)
    )


UNREPLICATED = """
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
import jax, jax.numpy as jnp, optax
import flax.linen as nn
from flax import jax_utils
from flax.training.train_state import TrainState

model = nn.Dense(3)
params = model.init(jax.random.key(0), jnp.ones((1, 4)))["params"]


def train_step(state, batch):
    def loss(p):
        return jnp.mean((state.apply_fn({"params": p}, batch["x"]) - batch["y"]) ** 2)

    return state.apply_gradients(grads=jax.lax.pmean(jax.grad(loss)(state.params), "batch"))


p_train_step = jax.pmap(train_step, axis_name="batch")
batch = {"x": jnp.ones((2, 5, 4)), "y": jnp.ones((2, 5, 3))}
state = TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))
print(p_train_step(jax_utils.replicate(state), batch).step.tolist())
for bad in (state, optax.adam(1e-3).init(params)):  # step=0; Adam's rank-0 count
    try:
        p_train_step(bad, batch) if bad is state else jax.pmap(lambda s, x: s)(bad, batch)
    except (ValueError, IndexError) as e:
        print(type(e).__name__, "rank at least 1" in str(e) or str(e))
"""


@pytest.mark.jax
@pytest.mark.slow
def test_an_unreplicated_train_state_fails_under_pmap():
    # what fixtures/JAX204/lint/train_state.py flags: the stubs' step=0 and Adam count are what flax and optax give
    pytest.importorskip("flax")
    out = subprocess.run([sys.executable, "-c", UNREPLICATED], capture_output=True, text=True, timeout=300)
    assert out.stdout.split("\n")[:3] == [
        "[1, 1]",
        "ValueError True",  # "... only valid for values of rank at least 1, but was applied to ... rank 0"
        "IndexError tuple index out of range",
    ], out.stderr[-2000:]


def test_the_key_consumers_jax502_declares_are_those_the_model_finds_in_the_stubs():
    # JAX502's pre-filter and slicer keep code naming them (stubs.KEY_CONSUMERS): the list
    # must be exactly the stubs' classes and functions that consume a key argument, found by
    # giving one key twice at each parameter in turn
    from jaxlint import testing
    from jaxlint.model.stubs import KEY_CONSUMERS

    found = set()
    for stub in STUB_FILES:
        module = stub[: -len(".stub")]
        for name, cls, fn in _defs(os.path.join(STUBS, stub)):
            if "." in name:
                continue  # a method
            init = fn or next((m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)
            if init is None:
                continue
            params = [
                p
                for p, kind in _params(init.args)
                if kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
            ]
            params = params[1:] if cls is not None else params
            for given in params:
                args = ", ".join(f"{p}={'k' if p == given else 'unknown_' + p}" for p in params)
                call = f"{module}.{name}({args})"
                source = f"import jax.random\nimport {module}\nk = jax.random.key(0)\n{call}\n{call}\n"
                if testing.lint(source, "JAX502", path="probe.py"):
                    found.add(f"{module}.{name}")
    assert found == set(KEY_CONSUMERS)


LAYERS_FROM_ONE_KEY = """
import jax, equinox as eqx
jax.config.update("jax_debug_key_reuse", True)
key = jax.random.key(0)
eqx.nn.Linear(2, 3, key=key)
try:
    eqx.nn.Linear(2, 3, key=key)
except Exception as e:
    print(type(e).__name__)
k1, k2 = jax.random.split(jax.random.key(1))
eqx.nn.MLP(4, 8, 16, 2, key=k1), eqx.nn.MLP(4, 8, 16, 2, key=k2)
print("split keys ok")


def make_critic(n_in, key):
    return eqx.nn.MLP(n_in, "scalar", 16, 2, key=key)


jax.config.update("jax_debug_key_reuse", False)
q1, q2 = make_critic(6, jax.random.key(2)), make_critic(6, jax.random.key(2))
print("twin critics equal", bool((q1.layers[0].weight == q2.layers[0].weight).all()))
"""


@pytest.mark.jax
@pytest.mark.slow
def test_two_layers_from_one_key_is_key_reuse():
    # what fixtures/JAX502/lint/library_layers.py flags: the stub's split of the key is equinox's
    pytest.importorskip("equinox")
    out = subprocess.run([sys.executable, "-c", LAYERS_FROM_ONE_KEY], capture_output=True, text=True, timeout=300)
    assert out.stdout.split("\n")[:3] == ["KeyReuseError", "split keys ok", "twin critics equal True"], out.stderr[
        -2000:
    ]


def test_the_maps_the_stubs_declare_are_those_the_model_finds_in_them():
    # the vmap rules take a call of a stubs.MAPS function for an application: the list must be
    # exactly the stubs' functions whose result, called, calls that JAX map with its arguments
    # (found by calling each on a function and what it returns on an array); compared by the
    # def each name resolves to (``equinox.filter_vmap`` is ``equinox._vmap_pmap``'s)
    from jaxlint.model.stubs import MAPS
    from tests.model.helpers import model_with_stubs

    def made(p, q):
        v = p.evaluator.world.resolve(q)  # a Function of a stub: its file and name
        return (os.path.basename(v.program.ctx.path), v.name) if v is not None and hasattr(v, "program") else q

    found = set()
    for stub in STUB_FILES:
        module = stub[: -len(".stub")]
        for name, cls, _fn in _defs(os.path.join(STUBS, stub)):
            if cls is not None or name.startswith("_"):
                continue
            p = model_with_stubs(
                f"import jax.numpy as jnp\nimport {module}\n\ndef g(x):\n    return x\n\n"
                f"out = {module}.{name}(g)(jnp.ones(3))\n"
            )
            ev = p.evaluator
            ev.value(p.module_scope.bindings["out"][0].value, None)
            for key, records in ev.records.items():
                if key[0] == "map":
                    found |= {(made(p, f"{module}.{name}"), r.t.api) for r in records}
    p = model_with_stubs("")
    assert found == {(made(p, q), api) for q, api in MAPS.items()}


def test_the_grads_the_stubs_declare_are_those_the_model_finds_in_them():
    # the JAX4xx rules take a call of a stubs.GRADS function for an application of its JAX
    # grad: the list must be exactly the stubs' functions whose result of a function is that
    # grad of it (the model's value of ``f(g)``), compared by the def each name resolves to
    from jaxlint.model.abstract import Function, Transformed
    from jaxlint.model.stubs import GRADS
    from tests.model.helpers import model_with_stubs

    def made(p, q):
        v = p.evaluator.world.resolve(q)
        return (os.path.basename(v.program.ctx.path), v.name) if v is not None and hasattr(v, "program") else q

    found = set()
    for stub in STUB_FILES:
        module = stub[: -len(".stub")]
        for name, cls, _fn in _defs(os.path.join(STUBS, stub)):
            if cls is not None or name.startswith("_"):
                continue
            p = model_with_stubs(f"import {module}\n\ndef g(x):\n    return x\n\nout = {module}.{name}(g)\n")
            v = p.evaluator.value(p.module_scope.bindings["out"][0].value, None)
            grads = ("jax.grad", "jax.value_and_grad")
            if type(v) is Transformed and v.api in grads and type(v.target) is Function and v.target.name == "g":
                found.add((made(p, f"{module}.{name}"), v.api))
    p = model_with_stubs("")
    assert found == {(made(p, q), api) for q, api in GRADS.items()}


# optax's losses give one value per example (per element for the elementwise ones): the
# model reads the shapes from the stub, jax.eval_shape reads them from optax itself
OPTAX_LOSSES = [
    ("optax.softmax_cross_entropy_with_integer_labels(x @ w, jnp.zeros(8, jnp.int32))", (8,)),
    ("optax.softmax_cross_entropy(x @ w, jnp.ones((8, 4)))", (8,)),
    ("optax.sigmoid_binary_cross_entropy(x @ w, jnp.ones((8, 4)))", (8, 4)),
    ("optax.l2_loss(x @ w, jnp.ones((8, 4)))", (8, 4)),
    ("optax.squared_error(x @ w)", (8, 4)),
]
OPTAX_LOSS = """
import jax
import jax.numpy as jnp
import optax

x = jnp.ones((8, 3))


def loss(w):
    return {expr}


g = jax.grad(loss)(jnp.ones((3, 4)))
"""


@pytest.mark.parametrize("expr,shape", OPTAX_LOSSES)
def test_the_model_reads_the_shape_of_an_optax_loss_from_the_stub(expr, shape):
    from jaxlint import testing

    (d,) = testing.lint(OPTAX_LOSS.format(expr=expr), "JAX407")
    assert d.start.line == 13 and f"an array of shape {shape}" in (d.message + " " + d.note).lower()


@pytest.mark.jax
@pytest.mark.parametrize("expr,shape", OPTAX_LOSSES)
def test_an_optax_loss_has_the_shape_the_stub_gives(expr, shape):
    jax = pytest.importorskip("jax")
    pytest.importorskip("optax")
    import jax.numpy as jnp
    import optax

    x = jnp.ones((8, 3))
    got = jax.eval_shape(lambda w: eval(expr, {"optax": optax, "jnp": jnp, "x": x, "w": w}), jnp.ones((3, 4)))
    assert got.shape == shape


@pytest.mark.jax
def test_optax_global_norm_is_one_rank_0_array_as_the_stub_gives():
    jax = pytest.importorskip("jax")
    optax = pytest.importorskip("optax")
    import jax.numpy as jnp

    got = jax.eval_shape(optax.global_norm, {"w": jnp.ones((3, 4)), "b": [jnp.ones(2)]})
    assert got.shape == ()
    from jaxlint import testing

    source = (
        "import jax\nimport optax\n\n\n@jax.jit\ndef step(grads):\n"
        "    if optax.global_norm(grads) > 1.0:\n        return grads\n    return grads\n"
    )
    (d,) = testing.lint(source, "JAX503")
    assert d.start.line == 7


# a schedule gives, for one step count, one value: rank 0 (vmap cannot map it)
OPTAX_SCHEDULES = [
    "optax.constant_schedule(0.5)",
    "optax.linear_schedule(1.0, 0.1, 50)",
    "optax.polynomial_schedule(1.0, 0.1, 2.0, 50)",
    "optax.cosine_decay_schedule(init_value=1.0, decay_steps=100, alpha=0.01)",
    "optax.exponential_decay(1.0, 10, 0.9)",
    "optax.warmup_cosine_decay_schedule(0.0, 1.0, 10, 100)",
]
SCHEDULED = """
import jax
import optax


def add_noise(x, key, sigma):
    return x + sigma * jax.random.normal(key, x.shape)


schedule = {expr}
keys = jax.random.split(jax.random.key(0), 8)
noisy = jax.vmap(add_noise)(jax.numpy.ones((8, 3)), keys, schedule(5))
"""


@pytest.mark.parametrize("expr", OPTAX_SCHEDULES)
def test_the_model_reads_a_schedules_value_from_the_stub(expr):
    from jaxlint import testing

    (d,) = testing.lint(SCHEDULED.format(expr=expr), "JAX104")
    assert d.start.line == 12 and "schedule(5)" in d.message


@pytest.mark.jax
@pytest.mark.parametrize("expr", OPTAX_SCHEDULES)
def test_an_optax_schedule_gives_one_value_per_step_as_the_stub_does(expr):
    jax = pytest.importorskip("jax")
    optax = pytest.importorskip("optax")
    import jax.numpy as jnp

    schedule = eval(expr, {"optax": optax})
    assert jnp.shape(schedule(5)) == ()
    # for an array of counts, the count's shape (the constant one ignores its count)
    every = () if "constant" in expr else (4,)
    assert jax.eval_shape(schedule, jnp.arange(4)).shape == every
