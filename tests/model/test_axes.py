"""Axis names as values (jaxlint/model/axes.py): what a map binds and what a mesh names,
read from the evaluator's abstract values (exact answers)."""

from __future__ import annotations

import libcst as cst

from jaxlint.model.abstract import Const, List, Tuple
from jaxlint.model.axes import in_contexts, map_names, mesh_names, names_of

from .helpers import model_of


def _map_calls(p, short: str) -> list[cst.Call]:
    """Every call ``*.short(...)`` of the file, in text order."""
    return [
        n
        for n, entering in p.ctx._events
        if entering and type(n) is cst.Call and type(n.func) is cst.Attribute and n.func.attr.value == short
    ]


def _bound(source: str, short: str) -> list:
    p = model_of(source)
    ev = p.evaluator
    return [map_names(ev.value(c, None)) for c in _map_calls(p, short)]


def test_names_of_values():
    assert names_of(Const(None)) == ()
    assert names_of(Const("i")) == ("i",)
    assert names_of(Tuple((Const("i"), Const("j")))) == ("i", "j")
    assert names_of(List((Const("i"),))) == ("i",)
    assert names_of(Const(3)) is None
    assert names_of(Tuple((Const("i"), Const(3)))) is None


def test_pmap_axis_name_by_keyword_position_value_and_absent():
    assert _bound(
        """
    import jax
    AXIS = "batch"
    class Config:
        axis = "cfg"
    def local():
        ax = "loc"
        return jax.pmap(f, axis_name=ax)
    a = jax.pmap(f, axis_name="i")
    b = jax.pmap(f, "j")
    c = jax.pmap(f, axis_name=AXIS)
    d = jax.pmap(f)
    e = jax.pmap(f, **opts)
    g = jax.pmap(f, axis_name=name_from_elsewhere)
    h = jax.pmap(f, axis_name=f"dev_{AXIS}")
    k = jax.pmap(f, axis_name=Config.axis)
    """,
        "pmap",
    ) == [("loc",), ("i",), ("j",), ("batch",), (), None, None, ("dev_batch",), ("cfg",)]


def test_vmap_joins_axis_name_and_spmd_axis_name():
    assert _bound(
        """
    import jax
    a = jax.vmap(f, axis_name="i", spmd_axis_name="d")
    b = jax.vmap(f, 0, 0, "k")
    c = jax.vmap(f)
    d = jax.vmap(f, axis_name=unknown)
    """,
        "vmap",
    ) == [("i", "d"), ("k",), (), None]


def test_shard_map_reads_the_mesh_as_a_value():
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
    g = jax.shard_map(f, mesh=Mesh(devices, axis_names=("k",)), in_specs=P(), out_specs=P())
    """,
        "shard_map",
    ) == [("data", "model"), ("data", "model"), ("x",), None, None, ("k",)]


def test_mesh_bound_in_two_branches_is_unknown_and_with_target_is_the_mesh():
    p = model_of("""
    from jax.sharding import Mesh
    if cond:
        mesh = Mesh(devices, ("a",))
    else:
        mesh = Mesh(devices, ("b",))
    use(mesh)
    with Mesh(devices, ("w",)) as m:
        use(m, m.axis_names)
    """)
    ev = p.evaluator
    reads = [n for n, e in p.ctx._events if e and type(n) is cst.Name and n.value in ("mesh", "m")]
    assert mesh_names(ev.value(reads[-3], None)) is None
    assert mesh_names(ev.value(reads[-2], None)) == ("w",)
    attr = p.ctx.parents[reads[-1]]
    assert names_of(ev.value(attr, None)) == ("w",)


def test_smap_needs_an_explicit_axis_name():
    assert _bound(
        """
    import jax
    a = jax.smap(f, axis_name="i", in_axes=0, out_axes=0)
    b = jax.smap(f, in_axes=0, out_axes=0)
    """,
        "smap",
    ) == [("i",), None]


def test_a_parameter_takes_the_names_of_its_visible_calls_and_a_closure_its_factory_s():
    p = model_of("""
    import jax
    def run(f, axis):
        return jax.pmap(f, axis_name=axis)
    run(g, "i")
    run(h, "i")
    def mixed(f, axis):
        return jax.pmap(f, axis_name=axis)
    mixed(g, "i")
    mixed(g, "j")
    def make(axis="dflt"):
        def step(x):
            return jax.pmap(f, axis_name=axis)
        return step
    s = make()
    """)
    ev = p.evaluator
    got = []
    for c in _map_calls(p, "pmap"):

        def read(frame, c=c):
            return map_names(ev.value(c, frame))

        got.append(in_contexts(ev, read, p.ctx.enclosing_function(c)))
    assert got == [("i",), None, ("dflt",)]
