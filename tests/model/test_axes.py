"""The axis names a map binds, read through the program model (exact answers)."""

from __future__ import annotations

import libcst as cst

from jaxlint.model.axes import bound_names, mesh_names, names_of

from .helpers import model_of


def _calls(p, api: str) -> list[cst.Call]:
    """Every call of ``api`` in the file, in text order."""
    ctx = p.ctx
    return [n for n, entering in ctx._events if entering and type(n) is cst.Call and ctx.resolve(n.func) == api]


def _bound(source: str, api: str, with_fun: bool = True) -> list:
    p = model_of(source)
    return [bound_names(p, api, list(c.args), with_fun) for c in _calls(p, api)]


def test_names_of_literals():
    assert names_of(None) == ()
    assert names_of("i") == ("i",)
    assert names_of(("i", "j")) == ("i", "j")
    assert names_of(["i"]) == ("i",)
    assert names_of(3) is None
    assert names_of(("i", 3)) is None


def test_pmap_axis_name_by_keyword_position_constant_and_absent():
    assert _bound(
        """
    import jax
    AXIS = "batch"
    a = jax.pmap(f, axis_name="i")
    b = jax.pmap(f, "j")
    c = jax.pmap(f, axis_name=AXIS)
    d = jax.pmap(f)
    e = jax.pmap(f, **opts)
    g = jax.pmap(f, axis_name=name_from_elsewhere)
    """,
        "jax.pmap",
    ) == [("i",), ("j",), ("batch",), (), None, None]


def test_pmap_in_decorator_form_has_no_function_argument():
    p = model_of("""
    import jax
    from functools import partial
    @partial(jax.pmap, axis_name="i")
    def f(x): return x
    """)
    call = next(
        n
        for n, e in p.ctx._events
        if e and type(n) is cst.Call and n.args and p.ctx.resolve(n.args[0].value) == "jax.pmap"
    )
    assert bound_names(p, "jax.pmap", list(call.args[1:]), False) == ("i",)


def test_vmap_joins_axis_name_and_spmd_axis_name():
    assert _bound(
        """
    import jax
    a = jax.vmap(f, axis_name="i", spmd_axis_name="d")
    b = jax.vmap(f, 0, 0, "k")
    c = jax.vmap(f)
    d = jax.vmap(f, axis_name=unknown)
    """,
        "jax.vmap",
    ) == [("i", "d"), ("k",), (), None]


def test_shard_map_reads_the_mesh_through_names_bound_once():
    assert _bound(
        """
    import jax
    from jax.sharding import Mesh
    mesh = Mesh(devices, ("data", "model"))
    alias = mesh
    a = jax.shard_map(f, mesh=mesh, in_specs=P(), out_specs=P())
    b = jax.shard_map(f, mesh=alias, in_specs=P(), out_specs=P())
    c = jax.shard_map(f, mesh=jax.make_mesh((2,), ("x",)), in_specs=P(), out_specs=P())
    d = jax.shard_map(f, mesh=mesh, axis_names={"data"}, in_specs=P(), out_specs=P())
    e = jax.shard_map(f, mesh=get_mesh(), in_specs=P(), out_specs=P())
    """,
        "jax.shard_map",
    ) == [("data", "model"), ("data", "model"), ("x",), None, None]


def test_mesh_bound_in_two_branches_is_unknown():
    p = model_of("""
    from jax.sharding import Mesh
    if cond:
        mesh = Mesh(devices, ("a",))
    else:
        mesh = Mesh(devices, ("b",))
    use(mesh)
    """)
    read = [n for n, e in p.ctx._events if e and type(n) is cst.Name and n.value == "mesh"][-1]
    assert mesh_names(p, read) is None


def test_smap_needs_an_explicit_axis_name():
    assert _bound(
        """
    import jax
    a = jax.smap(f, axis_name="i", in_axes=0, out_axes=0)
    b = jax.smap(f, in_axes=0, out_axes=0)
    """,
        "jax.smap",
    ) == [("i",), None]
