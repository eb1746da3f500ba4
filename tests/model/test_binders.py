"""Binding sites (jaxlint/model/binders.py): which callee is a binding API, which
parameters of a def reach one, and what a call gives those parameters."""

from __future__ import annotations

import libcst as cst

from jaxlint.model import binders as B

from .helpers import model_of

COLLECTIVES = frozenset({"psum", "pmean"})


def _defs(p):
    return {n.name.value: n for n, entering in p.ctx.events() if entering and type(n) is cst.FunctionDef}


def _calls(p):
    return [n for n, entering in p.ctx.events() if entering and type(n) is cst.Call]


def test_a_callee_is_the_api_jax_names_it():
    p = model_of(
        """
    import jax
    from jax import P as Spec
    import flax.linen as nn
    a = jax.P("x")
    b = Spec("y")
    c = jax.sharding.PartitionSpec("z")
    d = nn.vmap(f, axis_name="l")
    """
    )
    assert [B.api_name(p, c.func) for c in _calls(p)] == ["PartitionSpec", "PartitionSpec", "PartitionSpec", "vmap"]


def test_the_parameters_that_reach_a_binding_argument():
    p = model_of(
        """
    import jax
    from jax.sharding import Mesh
    from jax import lax
    def create_mesh(shape, axis_names, iota=False, *, axis_types=None):
        if iota:
            return Mesh(devices, tuple(axis_names))
        return jax.make_mesh(shape, axis_names)
    def outer(label, names):
        print(label)
        return create_mesh((2,), names)
    class Meshes:
        def build(self, *, axes):
            return Mesh(devices, (axes,))
    def reduce(x, name):
        return lax.psum(x, name)
    def spec(name):
        return jax.P(None, name)
    def with_mesh(sizes, names):
        def decorator(fn):
            def wrapped(*args):
                mesh = create_mesh(sizes, names)
                return fn(*args, mesh=mesh)
            return wrapped
        return decorator
    """
    )
    d = _defs(p)
    names = ("create_mesh", "outer", "build", "reduce", "spec", "with_mesh")
    found = {n: B.binding_parameters(p, d[n], COLLECTIVES) for n in names}
    assert found == {
        "create_mesh": ((0, "shape"), (1, "axis_names")),  # every argument of make_mesh counts: read generously
        "outer": ((1, "names"),),  # through another helper
        "build": ((-1, "axes"),),  # keyword-only; the receiver is not probed
        "reduce": (),  # a collective's axis name binds nothing
        "spec": ((0, "name"),),
        "with_mesh": ((0, "sizes"), (1, "names")),  # a decorator factory: its wrapper builds the mesh
    }


def test_what_a_call_gives_a_binding_helper():
    p = model_of(
        """
    import functools
    import jax
    def create_mesh(shape, names):
        return jax.make_mesh(shape, names)
    def log(shape, label):
        print(label)
        return jax.make_mesh(shape, ("x",))
    create_mesh((8,), "data")
    create_mesh(names=("fsdp", "tp"), shape=(2, 4))
    functools.partial(create_mesh, names="pp")((8,))
    log((8,), "given_to_no_binding")
    print("no_helper")
    """
    )
    ev = p.evaluator
    module_level = [c for c in _calls(p) if p.ctx.enclosing_function(c) is None and type(c.func) is not cst.Attribute]
    assert [B.given(ev, c, None, COLLECTIVES) for c in module_level] == [
        {"data"},
        {"fsdp", "tp"},
        {"pp"},
        set(),  # a helper (its ``shape`` reaches make_mesh), but the string is given to ``label``
        None,  # no helper
    ]
