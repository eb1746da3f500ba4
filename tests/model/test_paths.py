"""Call paths (jaxlint/model/calls.py, model/paths.py): uses recorded per module, joined
across the project, each path with the layers (maps, tracing transforms, lax bodies) it
runs under, and a path set that knows when it is incomplete."""

from __future__ import annotations

import textwrap

import libcst as cst

from jaxlint.base.records import dumps, loads
from jaxlint.lint.engine import walk_events
from jaxlint.model.calls import record
from jaxlint.model.context import FileContext
from jaxlint.model.facts import collect_facts
from jaxlint.model.paths import call_paths
from jaxlint.model.project import Project


def module_facts(name: str, source: str, is_package: bool = False):
    source = textwrap.dedent(source)
    module = cst.parse_module(source)
    events, parents = walk_events(module)
    path = name.replace(".", "/") + ("/__init__.py" if is_package else ".py")
    names, facts, qualnames = collect_facts(path, module, events, name, is_package)
    ctx = FileContext(path, source, module, names, facts, qualnames, parents, None, events)
    record(ctx)
    return facts


def project(**sources: str) -> Project:
    return Project(module_facts(name, src, is_package=(name == "pkg")) for name, src in sources.items())


def layers(path) -> list[tuple[str, str, object]]:
    return [(x["api"], x["kind"], x["names"]) for x in path.layers]


def test_scan_body_inside_a_pmap():
    p = project(
        m="""
        import jax
        from jax import lax

        def step(params, batch):
            def body(carry, x):
                return carry + lax.psum(x, "i"), None
            out, _ = lax.scan(body, params, batch)
            return out

        pstep = jax.pmap(step, axis_name="i")
        pstep(0, 1)
    """
    )
    found = call_paths(p).paths("m.step.body")
    assert found.complete
    assert len(found.paths) == 1
    path = found.paths[0]
    assert layers(path) == [("scan", "body", ()), ("pmap", "map", ("i",))]
    assert path.trail == ["m.step.body", "m.step", "m.pstep"]
    assert path.root["line"] == 12  # the source starts with an empty line
    assert path.bound_names() == {"i"}
    assert path.traced


def test_cond_branches_and_a_direct_call():
    p = project(
        m="""
        import jax
        from jax import lax

        def yes(x):
            return x
        def no(x):
            return -x
        def pick(flag, x):
            return lax.cond(flag, yes, no, x)

        pick(True, 1.0)
        jax.jit(pick)(True, 1.0)
    """
    )
    cp = call_paths(p)
    for branch in ("m.yes", "m.no"):
        found = cp.paths(branch)
        assert found.complete
        assert [layers(x) for x in found.paths] == [
            [("cond", "body", ())],
            [("cond", "body", ()), ("jit", "trace", ())],
        ]
    plain = cp.paths("m.pick").paths
    assert [x.traced for x in plain] == [False, True]
    assert [x.root["line"] for x in plain] == [12, 13]


def test_a_function_a_catalogue_entry_calls_runs_there():
    """``jax.tree.reduce(f, xs)``, ``jax.tree_map`` (jax < 0.6): the catalogue says they call
    ``f`` before they return, so ``f`` runs at that line; ``jax.tree.leaves`` calls nothing."""
    p = project(
        m="""
        import jax

        def f(a, b):
            return a + b
        def g(a):
            return a
        def h(a):
            return a

        total = jax.tree.reduce(f, xs)
        ys = jax.tree_map(g, xs)
        leaves = jax.tree.leaves(h)
    """
    )
    cp = call_paths(p)
    for fn, line in (("m.f", 11), ("m.g", 12)):
        found = cp.paths(fn)
        assert found.complete, fn
        assert [(layers(x), x.root["line"], x.traced) for x in found.paths] == [([], line, False)], fn
    assert cp.paths("m.h").paths == []


def test_decorated_def_and_bound_names():
    p = project(
        m="""
        import jax
        from functools import partial

        @partial(jax.pmap, axis_name="devices")
        def f(x):
            return x

        f(1)
    """
    )
    (path,) = call_paths(p).paths("m.f").paths
    assert layers(path) == [("pmap", "map", ("devices",))]


def test_rebound_name_is_a_path_of_its_own():
    p = project(
        m="""
        import jax

        def main():
            def step(x):
                return x
            step = jax.pmap(step, axis_name="i")
            return step(1)

        main()
    """
    )
    (path,) = call_paths(p).paths("m.main.step").paths
    assert path.trail == ["m.main.step", "m.main.step@bound", "m.main"]
    assert layers(path) == [("pmap", "map", ("i",))]


def test_re_export_across_two_modules():
    p = project(
        pkg="from pkg.impl import step\n",
        **{
            "pkg.impl": "from jax import lax\ndef step(x):\n    return lax.psum(x, 'i')\n",
            "train": "import jax\nfrom pkg import step\nrun = jax.pmap(step, axis_name='j')\nrun(1)\n",
        },
    )
    found = call_paths(p).paths("pkg.impl.step")
    assert found.complete
    (path,) = found.paths
    assert path.trail == ["pkg.impl.step", "train.run"]
    assert layers(path) == [("pmap", "map", ("j",))]
    assert path.root["path"] == "train.py"


def test_an_escaping_use_makes_the_set_incomplete():
    p = project(
        m="""
        import jax

        def f(x):
            return x

        registry = {"f": f}
        jax.jit(f)(1)
    """
    )
    found = call_paths(p).paths("m.f")
    assert not found.complete
    assert [layers(x) for x in found.paths] == [[("jit", "trace", ())]]


def test_an_unknown_decorator_and_an_unknown_caller():
    p = project(
        m="""
        import mylib

        @mylib.magic
        def f(x):
            return x

        def g(x):
            return x
    """
    )
    cp = call_paths(p)
    assert cp.paths("m.f").paths == [] and not cp.paths("m.f").complete
    (path,) = cp.paths("m.g").paths  # nothing here calls it: an unknown caller
    assert path.root is None and path.layers == []


def test_use_facts_survive_the_cache_encoding():
    facts = module_facts("m", "import jax\ndef f(x):\n    return x\njax.vmap(f, axis_name='b')(1)\n")
    assert loads(dumps(facts)).extra["calls"] == facts.extra["calls"]


def test_a_factory_closure_goes_where_the_factory_result_goes():
    p = project(
        m="""
        import jax

        def make(scale):
            def inner(x):
                return x * scale
            return jax.jit(inner)

        run = jax.pmap(make(2.0), axis_name="d")
        run(1)
        make(3.0)(1)
        kept = [make(4.0)]
    """
    )
    found = call_paths(p).paths("m.make.inner")
    assert not found.complete  # the closure kept in a list escapes
    assert [layers(x) for x in found.paths] == [
        [("jit", "trace", ()), ("pmap", "map", ("d",))],
        [("jit", "trace", ())],
    ]
    assert [x.root["line"] for x in found.paths] == [10, 11]


def test_an_item_of_a_returned_tuple_goes_where_the_unpacked_name_goes():
    p = project(
        m="""
        import jax

        def make(scale):
            def inner(x):
                return x * scale
            return scale, inner

        _, step = make(2.0)
        run = jax.pmap(step, axis_name="d")
        run(1)
        both = make(3.0)
        first, second = make(4.0)
        first(1)
    """
    )
    found = call_paths(p).paths("m.make.inner")
    assert not found.complete  # ``both`` keeps the whole tuple: where it goes is not followed
    # ``second`` (item 1 of the last call) is used nowhere: an unknown caller; ``first`` is not it
    assert [layers(x) for x in found.paths] == [[("pmap", "map", ("d",))], []]
    assert [x.root and x.root["line"] for x in found.paths] == [11, None]  # ``run(1)``
    assert [x.trail for x in found.paths] == [["m.make.inner", "m.step", "m.run"], ["m.make.inner", "m.second"]]


def test_self_method_and_module_level_rebinding_across_modules():
    p = project(
        m="""
        import jax

        class Model:
            def helper(self, x):
                return x
            def step(self, x):
                return self.helper(x)
            def run(self, xs):
                return jax.vmap(self.step, axis_name="b")(xs)

        def train_step(x):
            return x
        train_step = jax.pmap(train_step, axis_name="i")
        """,
        user="from m import train_step\ntrain_step(1)\n",
    )
    cp = call_paths(p)
    (path,) = cp.paths("m.Model.helper").paths
    assert path.trail == ["m.Model.helper", "m.Model.step", "m.Model.run"]
    assert path.root is None and layers(path) == [("vmap", "map", ("b",))]
    (path,) = cp.paths("m.train_step").paths  # the importer calls the pmapped value
    assert path.trail == ["m.train_step", "m.train_step@bound"]
    assert layers(path) == [("pmap", "map", ("i",))] and path.root["path"] == "user.py"


def test_a_decorated_factory_hides_its_closure():
    p = project(
        m="""
        import jax
        import mylib

        @mylib.cached
        def make():
            def inner(x):
                return x
            return inner

        jax.pmap(make(), axis_name="d")(1)
    """
    )
    found = call_paths(p).paths("m.make.inner")
    assert found.paths == [] and not found.complete


def test_entry_points_main_guard_and_app_run():
    p = project(
        m="""
        import jax
        from absl import app

        def train():
            return 1
        def main(argv):
            return train()

        if __name__ == "__main__":
            app.run(main)
            jax.vmap(train, axis_name="b")()
    """
    )
    found = call_paths(p).paths("m.train")
    assert found.complete
    assert [(x.trail, layers(x), x.root["line"]) for x in found.paths] == [
        (["m.train", "m.main"], [], 11),
        (["m.train"], [("vmap", "map", ("b",))], 12),
    ]
    assert not any(x.traced for x in call_paths(p).paths("m.main").paths)


def test_a_transform_given_its_function_by_keyword_is_a_layer():
    """``jax.pmap(fun=step)``: the keyword JAX declares for the function."""
    p = project(
        m="""
        import jax
        from jax import lax

        def step(x):
            return lax.psum(x, "i")

        pstep = jax.pmap(fun=step, axis_name="i")
        pstep(1)
    """
    )
    found = call_paths(p).paths("m.step")
    assert [layers(x) for x in found.paths] == [[("pmap", "map", ("i",))]]
