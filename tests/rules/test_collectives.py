"""JAX2xx (collectives): exact codes, lines and messages of JAX201 unbound-axis-name."""

import os
from pathlib import Path

import pytest

from jaxlint import testing
from jaxlint.api import lint_paths

SEED = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "seeds", "c4_4_training_loop.py")


def _found(source):
    return [(d.code, d.start.line, d.message) for d in testing.lint(source, "JAX201")]


def test_the_headline_names_the_call_and_the_note_what_to_do():
    (d,) = testing.lint("from jax import lax\ndef f(x):\n    return lax.psum(x, 'i')\ny = f(1.0)\n", "JAX201")
    assert d.message == "`lax.psum` uses axis name 'i', but nothing binds it: `f` is called directly at line 4"
    assert d.note == (
        "It runs outside any pmap/vmap/shard_map. Call the collective inside the function you map with"
        " `jax.pmap(..., axis_name='i')` (or `jax.shard_map` over a mesh with a 'i' axis), or reduce on the host"
        " (e.g. `jnp.mean(x, axis=0)`)."
    )


def test_seed_training_loop_is_flagged_at_the_pmean():
    source = Path(SEED).read_text(encoding="utf-8")
    assert _found(source) == [
        (
            "JAX201",
            25,
            (
                "`jax.lax.pmean` uses axis name 'devices', but nothing binds it: `train_step` is called directly "
                "at line 36"
            ),
        )
    ]


def test_seed_training_loop_corrected_is_clean():
    source = Path(SEED).read_text(encoding="utf-8")
    source = source.replace(
        "parallel_grad = pmap(compute_grad, in_axes=(None, 0, 0))",
        "def step(params, batch_x, batch_y):\n"
        "    return jax.lax.pmean(compute_grad(params, batch_x, batch_y), axis_name='devices')\n"
        "parallel_grad = pmap(step, axis_name='devices', in_axes=(None, 0, 0))",
    ).replace("    grads = jax.lax.pmean(grads, axis_name='devices')\n", "")
    assert "pmean" in source
    assert _found(source) == []


def test_pmap_without_axis_name():
    src = "import jax\nfrom jax import lax\nf = jax.pmap(lambda x: lax.psum(x, 'devices'))\n"
    assert _found(src) == [
        (
            "JAX201",
            3,
            (
                "`lax.psum` uses axis name 'devices', but the pmap at line 3 binds no axis name; "
                "pass `axis_name='devices'` to that pmap"
            ),
        )
    ]


def test_pmap_with_another_name_and_module_constant():
    src = (
        "import jax\nfrom jax import lax\nAXIS = 'devices'\n"
        "def f(x):\n    return lax.pmean(x, AXIS)\n"
        "g = jax.pmap(f, axis_name='batch')\n"
    )
    assert _found(src) == [
        (
            "JAX201",
            5,
            ("`lax.pmean` uses axis name 'devices', but the pmap at line 6 binds 'batch', not 'devices'"),
        )
    ]


def test_import_spellings():
    for head, call in [
        ("import jax as J", "J.lax.pmax(x, 'i')"),
        ("from jax.lax import pmin as pm", "pm(x, 'i')"),
        ("from jax import lax", "lax.all_gather(x, axis_name='i')"),
    ]:
        src = f"{head}\ndef f(x):\n    return {call}\ny = f(1.0)\n"
        assert [(c, line) for c, line, _ in _found(src)] == [("JAX201", 3)], head


def test_shard_map_mesh_axes():
    src = (
        "import jax\nfrom jax import lax\nfrom jax.sharding import Mesh, PartitionSpec as P\n"
        "mesh = Mesh(jax.devices(), ('x',))\n"
        "ok = jax.shard_map(lambda v: lax.psum(v, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())\n"
        "bad = jax.shard_map(lambda v: lax.psum(v, 'y'), mesh=mesh, in_specs=P('x'), out_specs=P())\n"
    )
    assert _found(src) == [
        (
            "JAX201",
            6,
            (
                "`lax.psum` uses axis name 'y', but the shard_map at line 6 runs over mesh axes 'x', which do not "
                "include it"
            ),
        )
    ]


def test_nested_maps_and_helpers():
    src = (
        "import jax\nfrom jax import lax\n"
        "def helper(x):\n    return lax.psum(x, ('i', 'j'))\n"
        "def inner(x):\n    return helper(x)\n"
        "f = jax.pmap(jax.vmap(inner, axis_name='j'), axis_name='i')\n"
        "y = f(xs)\n"
    )
    assert _found(src) == []


def test_jit_binds_nothing_and_transitive_message():
    src = (
        "import jax\nfrom jax import lax\n"
        "def helper(x):\n    return lax.psum(x, 'devices')\n"
        "@jax.jit\ndef step(x):\n    return helper(x)\n"
        "y = step(1.0)\n"
    )
    assert [(c, line) for c, line, _ in _found(src)] == [("JAX201", 4)]
    assert "`helper` runs from `step`, which is called directly at line 8" in _found(src)[0][2]


def test_unknown_is_silent():
    # 'i' is bound somewhere in each project (the last line): without a known path, silent
    mention = "import jax as _j\nmesh = _j.make_mesh((4,), ('i',))\n"
    sources = [
        "from jax import lax\ndef f(x, name):\n    return lax.psum(x, name)\n",
        "from jax import lax\ndef f(x):\n    return lax.psum(x, 'i')\n",
        "from jax import lax\nclass M:\n    def f(self, x):\n        return lax.psum(x, 'i')\n",
        "import jax\nfrom jax import lax\ndef mk(n):\n    return jax.pmap(lambda x: lax.psum(x, 'i'), axis_name=n)\n",
        (
            "import jax, pytest\nfrom jax import lax\ndef test():\n    with pytest.raises(NameError):\n"
            "        jax.pmap(lambda x: lax.psum(x, 'i'))(x)\n"
        ),
        "import jax\nfrom jax import lax\ndef f(x):\n    return lax.psum(x, 'i')\ny = unknown_map(f)(x)\n",
    ]
    for src in sources:
        assert _found(src + mention) == [], src


def test_cross_module(tmp_path, monkeypatch):
    (tmp_path / "sync.py").write_text(
        "from jax import lax\n\ndef train_step(g):\n    return lax.pmean(g, axis_name='devices')\n"
    )
    (tmp_path / "train.py").write_text(
        "import jax\nfrom sync import train_step\np = jax.pmap(train_step, axis_name='devices')\ny = p(x)\n"
    )
    monkeypatch.chdir(tmp_path)
    settings = testing.settings_for("JAX201")
    settings.root = str(tmp_path)
    assert lint_paths(["."], settings, jobs=1).diagnostics == []
    (tmp_path / "train.py").write_text("import jax\nimport sync\ny = sync.train_step(x)  # direct\nz = jax.vmap(f)\n")
    diags = lint_paths(["."], settings, jobs=1).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.code) for d in diags] == [("sync.py", 4, "JAX201")]
    assert diags[0].message.endswith("`train_step` is called directly at train.py:3")


def test_axis_names_are_values_local_config_field_partial():
    local = (
        "import jax\nfrom jax import lax\ndef step(x):\n    ax = 'devices'\n    return lax.psum(x, ax)\n"
        "jax.pmap(step, axis_name='batch')(xs)\n"
    )
    assert _found(local) == [
        (
            "JAX201",
            5,
            "`lax.psum` uses axis name 'devices', but the pmap at line 6 binds 'batch', not 'devices'",
        )
    ]
    config = (
        "import dataclasses, jax\nfrom jax import lax\n@dataclasses.dataclass(frozen=True)\nclass Cfg:\n"
        "    axis_name: str = 'data'\ncfg = Cfg()\ndef step(g):\n    return lax.pmean(g, cfg.axis_name)\n"
        "jax.pmap(step, axis_name='batch')(g)\n"
    )
    assert [(c, line) for c, line, _ in _found(config)] == [("JAX201", 8)]
    assert "uses axis name 'data'" in _found(config)[0][2]
    partial = (
        "import jax\nfrom functools import partial\nfrom jax import lax\ndef sync(x, axis_name):\n"
        "    return lax.psum(x, axis_name)\njax.pmap(partial(sync, axis_name='replica'), axis_name='devices')(x)\n"
    )
    assert [(c, line) for c, line, _ in _found(partial)] == [("JAX201", 5)]
    assert "uses axis name 'replica', but the pmap at line 6 binds 'devices'" in _found(partial)[0][2]
    same = partial.replace("'replica'", "'devices'")
    assert _found(same) == []


def test_a_parameter_every_visible_call_gives_one_name():
    src = "from jax import lax\ndef f(x, name):\n    return lax.psum(x, name)\ny = f(1.0, 'i')\n"
    assert _found(src) == [
        (
            "JAX201",
            3,
            "`lax.psum` uses axis name 'i', but nothing binds it: `f` is called directly at line 4",
        )
    ]
    # the calls disagree, so the name is no one value; but each path takes its own call's
    # name: 'j' is bound by its pmap, 'i' by nothing
    two = src + "z = jax.pmap(lambda x: f(x, 'j'), axis_name='j')(x)\nimport jax\n"
    assert _found(two) == _found(src)
    bound = src.replace("y = f(1.0, 'i')\n", "") + "z = jax.pmap(lambda x: f(x, 'j'), axis_name='j')(x)\nimport jax\n"
    assert _found(bound + "w = jax.vmap(lambda x: f(x, 'i'), axis_name='i')(x)\n") == []


def test_a_mesh_through_a_parameter():
    src = (
        "import jax\nfrom jax import lax\nfrom jax.sharding import PartitionSpec as P\n"
        "def body(v):\n    return lax.psum(v, 'model')\n"
        "def run(mesh, x):\n    return jax.shard_map(body, mesh=mesh, in_specs=P(), out_specs=P())(x)\n"
        "run(jax.make_mesh((4,), ('data',)), x)\n"
    )
    assert _found(src) == [
        (
            "JAX201",
            5,
            "`lax.psum` uses axis name 'model', but the shard_map at line 7 runs over mesh axes 'data', which do "
            "not include it",
        )
    ]


def test_vocabulary_reports_a_name_no_binding_mentions_with_a_suggestion():
    src = (
        "import jax\nfrom jax import lax\nmesh = jax.make_mesh((2, 4), ('data', 'fsdp'))\n"
        "def shard_grads(g):\n    return lax.psum(g, 'fsdpp')\n"
    )
    assert _found(src) == [
        (
            "JAX201",
            5,
            "`lax.psum` uses axis name 'fsdpp', which no map or mesh of the project names; did you mean 'fsdp'?",
        )
    ]
    far = src.replace("'fsdpp'", "'pipeline'")
    (d,) = testing.lint(far, "JAX201")
    assert d.message == "`lax.psum` uses axis name 'pipeline', which no map or mesh of the project names"
    assert d.note == (
        "No pmap, vmap, shard_map, mesh, PartitionSpec or axis-rule configuration of the project mentions"
        " 'pipeline', so it is unbound wherever this runs. Use the axis name of the map that runs this code."
    )
    mentioned = [
        "spec = jax.sharding.PartitionSpec('fsdpp')\n",
        "f = jax.vmap(g, axis_name='fsdpp')\n",
        "h = some_lib.filter_pmap(g, axis_name='fsdpp')\n",
        "j = jax.make_jaxpr(g, axis_env=[('fsdpp', 2)])\n",
        "def fit(step, mesh_axes=('fsdpp',)):\n    return step\n",
    ]
    for extra in mentioned:
        assert _found(src + extra) == [], extra
    silent = [  # the name may come from outside
        src.replace("'fsdpp'", "axis").replace("def shard_grads(g)", "def shard_grads(g, axis)"),
        src.replace("'fsdpp'", "'fs' + str(n)"),
    ]
    for s in silent:
        assert _found(s) == [], s


def test_vocabulary_reads_the_project_config_files(tmp_path, monkeypatch):
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "mesh.yaml").write_text("mesh:\n  axis_names: [data, model]\n")
    (tmp_path / "layers.py").write_text("from jax import lax\n\ndef tp_sum(x):\n    return lax.psum(x, 'model')\n")
    monkeypatch.chdir(tmp_path)
    settings = testing.settings_for("JAX201")
    settings.root = str(tmp_path)
    assert lint_paths(["."], settings, jobs=1).diagnostics == []
    (tmp_path / "configs" / "mesh.yaml").write_text("mesh:\n  axis_names: [data, tensor]\n")
    (tmp_path / "pyproject.toml").write_text("[tool.launcher]\nmesh_axes = ['data', 'modle']\n")
    found = lint_paths(["."], settings, jobs=1).diagnostics
    assert [(d.code, d.start.line) for d in found] == [("JAX201", 4)]
    assert found[0].message.endswith("did you mean 'modle'?")


SHARDED = (
    "import jax\nfrom jax import lax\n{setup}"
    "def step(mesh, g):\n"
    "    return jax.shard_map(lambda v: lax.pmean(v, {name!r}), mesh=mesh, in_specs=jax.P(), out_specs=jax.P())(g)\n"
)


def test_a_shard_map_over_a_mesh_out_of_sight_is_decided_by_the_vocabulary():
    setup = "mesh = jax.make_mesh((8,), ('batch',))\n"
    assert _found(SHARDED.format(setup=setup, name="bacth")) == [
        (
            "JAX201",
            5,
            "`lax.pmean` uses axis name 'bacth', which no map or mesh of the project names; did you mean 'batch'?",
        )
    ]
    assert _found(SHARDED.format(setup=setup, name="batch")) == []
    # a subset of the mesh's axes the model cannot read (``axis_names=names``) may name it
    subset = SHARDED.format(setup=setup, name="bacth").replace(
        "out_specs=jax.P()", "out_specs=jax.P(), axis_names=names"
    )
    assert _found(subset) == []


def test_the_vocabulary_reads_jax_p_and_strings_given_to_a_binding_helper():
    # jax.P is jax's name for PartitionSpec
    for setup in ("spec = jax.P('batch')\n", "from jax import P\nspec = P(None, 'batch')\n"):
        assert _found(SHARDED.format(setup=setup, name="batch")) == [], setup
        (d,) = testing.lint(SHARDED.format(setup=setup, name="bacth"), "JAX201")
        assert d.message.endswith("did you mean 'batch'?")
    # a helper whose parameter reaches a mesh, directly or through another helper, a
    # method, a keyword or a partial
    helpers = [
        "def create_mesh(shape, names):\n    return jax.make_mesh(shape, names)\nm = create_mesh((8,), 'batch')\n",
        "def create_mesh(shape, names):\n    return jax.sharding.Mesh(devices, tuple(names))\n"
        "def outer(names):\n    return create_mesh((8,), names)\n"
        "m = outer(['batch'])\n",
        "class Meshes:\n    def build(self, shape, *, axes):\n        return jax.make_mesh(shape, axes)\n"
        "m = Meshes().build((8,), axes=('batch',))\n",
        "import functools\ndef create_mesh(shape, names):\n    return jax.make_mesh(shape, names)\n"
        "m = functools.partial(create_mesh, names=('batch',))((8,))\n",
    ]
    for setup in helpers:
        assert _found(SHARDED.format(setup=setup, name="batch")) == [], setup
        assert [
            d.message.rsplit("; ", 1)[-1] for d in testing.lint(SHARDED.format(setup=setup, name="bacth"), "JAX201")
        ] == ["did you mean 'batch'?"], setup
    # a string given to a parameter that reaches no binding is no mention
    unrelated = (
        "def log(shape, label):\n    print(label)\n    return jax.make_mesh(shape, ('x',))\nm = log((8,), 'batch')\n"
    )
    assert [d.message for d in testing.lint(SHARDED.format(setup=unrelated, name="batch"), "JAX201")] == [
        "`lax.pmean` uses axis name 'batch', which no map or mesh of the project names"
    ]


def test_a_binding_helper_of_a_module_the_model_never_reads(tmp_path, monkeypatch):
    """Linting jax itself: ``jax._src.test_util`` is never read for values (the catalogue
    says what jax means), so what a test gives its ``create_mesh`` is joined with the
    helper's parameters in the project phase."""
    (tmp_path / "jax" / "_src").mkdir(parents=True)
    (tmp_path / "jax" / "__init__.py").write_text("")
    (tmp_path / "jax" / "_src" / "__init__.py").write_text("")
    (tmp_path / "jax" / "_src" / "test_util.py").write_text(
        "from jax._src import mesh as mesh_lib\n\n"
        "def create_mesh(mesh_shape, axis_names, iota_order=False):\n"
        "    return mesh_lib.Mesh(devices(mesh_shape), axis_names)\n"
    )
    (tmp_path / "tests").mkdir()
    test = (
        "import jax\nfrom jax import lax\nfrom jax._src import test_util as jtu\n\n"
        "def test_psum():\n"
        "    mesh = jtu.create_mesh((jax.device_count(),), 'x')\n"
        "    f = jax.shard_map(lambda v: lax.psum(v, {name!r}), mesh=mesh, in_specs=spec, out_specs=spec)\n"
        "    return f(1.0)\n"
    )
    monkeypatch.chdir(tmp_path)
    settings = testing.settings_for("JAX201")
    settings.root = str(tmp_path)
    (tmp_path / "tests" / "psum_test.py").write_text(test.format(name="x"))
    assert lint_paths(["."], settings, jobs=1).diagnostics == []
    (tmp_path / "tests" / "psum_test.py").write_text(test.format(name="y"))
    found = lint_paths(["."], settings, jobs=1).diagnostics
    assert [(d.code, d.start.line, d.message) for d in found] == [
        ("JAX201", 7, "`lax.psum` uses axis name 'y', which no map or mesh of the project names")
    ]


PARAMETER_AXIS = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX201", "lint", "parameter_axis_{}")


def _lint_folder(folder):
    return testing.lint_folder(folder, testing.settings_for("JAX201")).diagnostics


def test_an_axis_name_parameter_takes_the_name_the_call_in_another_module_gives():
    (d,) = _lint_folder(PARAMETER_AXIS.format("bad"))
    assert (os.path.basename(d.path), d.start.line, d.code) == ("norms.py", 8, "JAX201")
    assert (
        d.message == "`jax.lax.pmean` uses axis name 'batch', but the vmap at train.py:8 binds 'replicas', not 'batch'"
    )
    assert d.note == (
        "The axis name is the parameter `axis_name`, which the lambda in train.py gives as 'batch'."
        " Use the same axis name in the vmap and the collective."
    )
    # each call's own name, bound by its own map; no name; a name the model cannot read: silent
    assert _lint_folder(PARAMETER_AXIS.format("ok")) == []


IMPORTER_CONFIG = os.path.join(
    os.path.dirname(__file__), "..", "..", "fixtures", "JAX201", "lint", "importer_config_{}"
)


def test_an_axis_name_a_config_object_of_an_importer_gives():
    """`cfg.grad_axis` of a config object run.py makes and hands to the factory: the name
    is what that call gives, read in the contexts of the files importing the module."""
    (d,) = _lint_folder(IMPORTER_CONFIG.format("bad"))
    assert (os.path.basename(d.path), d.start.line, d.code) == ("train.py", 11, "JAX201")
    assert d.message == "`lax.pmean` uses axis name 'replica', but the pmap at line 18 binds 'replicas', not 'replica'"
    # `parallel_step(cfg)` passes its own parameter to the factory: what run.py gives it
    assert d.note == (
        "The axis name is `cfg.grad_axis`, a field of `cfg`, the parameter of `make_step`, which its call in this"
        " file gives an object whose `grad_axis` is 'replica'. Use the same axis name in the pmap and the collective."
    )
    assert _lint_folder(IMPORTER_CONFIG.format("ok")) == []


def test_an_axis_name_parameter_given_by_a_direct_call_is_bound_nowhere(tmp_path):
    (tmp_path / "norms.py").write_text(Path(PARAMETER_AXIS.format("bad"), "norms.py").read_text())
    (tmp_path / "train.py").write_text(
        "import jax\nfrom norms import batch_norm\nys = batch_norm(xs, 'batch')\nzs = jax.vmap(jax.numpy.sin)(xs)\n"
    )
    (d,) = _lint_folder(tmp_path)
    assert d.start.line == 8
    assert d.message.startswith(
        "`jax.lax.pmean` uses axis name 'batch', but nothing binds it: `batch_norm` is called directly at train.py:3"
    )
    assert d.note.startswith(
        "The axis name is the parameter `axis_name`, which module-level code in train.py gives as 'batch'."
    )


def test_the_parameter_axis_fixture_fails_under_jax_as_linted():
    import pytest
    from conftest import raised_by_project

    pytest.importorskip("jax")
    e = raised_by_project(PARAMETER_AXIS.format("bad"), "train.py", ("norms",))
    assert type(e) is NameError and "unbound axis name: batch" in str(e), e
    assert raised_by_project(PARAMETER_AXIS.format("ok"), "train.py", ("norms",)) is None


CONFIG_FIELD = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX201", "lint", "config_field_{}")


def test_an_axis_name_that_is_a_field_of_a_factory_parameter_is_what_the_call_gives():
    (d,) = _lint_folder(CONFIG_FIELD.format("bad"))
    assert (os.path.basename(d.path), d.start.line) == ("step.py", 15)
    assert d.message == "`lax.pmean` uses axis name 'batch', but the pmap at run.py:8 binds 'data', not 'batch'"
    assert d.note.startswith(
        "The axis name is `cfg.data_axis`, a field of `cfg`, the parameter of `make_train_step`, which its "
        "call at run.py:8 gives an object whose `data_axis` is 'batch'."
    )
    assert _lint_folder(CONFIG_FIELD.format("ok")) == []


def test_an_axis_name_that_is_a_field_of_the_defs_parameter(tmp_path):
    (tmp_path / "norms.py").write_text("from jax import lax\n\ndef sync(g, cfg):\n    return lax.pmean(g, cfg.axis)\n")
    (tmp_path / "train.py").write_text(
        "import jax\nfrom dataclasses import dataclass\nfrom norms import sync\n\n"
        "@dataclass\nclass Cfg:\n    axis: str = 'batch'\n\n"
        "def step(g):\n    return sync(g, Cfg())\n\n"
        "out = jax.pmap(step, axis_name='devices')(jax.numpy.ones((1, 3)))\n"
    )
    (d,) = _lint_folder(tmp_path)
    assert (os.path.basename(d.path), d.start.line) == ("norms.py", 4)
    assert d.note.startswith(
        "The axis name is `cfg.axis`, a field of the parameter `cfg`, which `step` in train.py gives an object "
        "whose `axis` is 'batch'."
    )
    (tmp_path / "train.py").write_text((tmp_path / "train.py").read_text().replace("'devices'", "'batch'"))
    assert _lint_folder(tmp_path) == []


def test_a_config_that_is_a_parameters_default_is_what_the_call_leaves_it(tmp_path):
    # `def main(cfg=Config())`, called with nothing: its default gives the step its axis name
    (tmp_path / "step.py").write_text(
        "from jax import lax\n\ndef make_step(cfg):\n    def step(g):\n"
        "        return lax.pmean(g, axis_name=cfg.axis_name)\n\n    return step\n"
    )
    (tmp_path / "run.py").write_text(
        "import jax\nfrom dataclasses import dataclass\nfrom step import make_step\n\n"
        "@dataclass(frozen=True)\nclass Config:\n    axis_name: str = 'data'\n\n"
        "def main(cfg=Config()):\n    return jax.pmap(make_step(cfg), axis_name='batch')(jax.numpy.ones((1, 3)))\n\n"
        "main()\n"
    )
    (d,) = _lint_folder(tmp_path)
    assert (os.path.basename(d.path), d.start.line) == ("step.py", 5)
    assert d.message == "`lax.pmean` uses axis name 'data', but the pmap at run.py:10 binds 'batch', not 'data'"
    (tmp_path / "run.py").write_text((tmp_path / "run.py").read_text().replace("'batch'", "'data'"))
    assert _lint_folder(tmp_path) == []


def test_the_config_field_fixture_fails_under_jax_as_linted():
    import pytest
    from conftest import raised_by_project

    pytest.importorskip("jax")
    e = raised_by_project(CONFIG_FIELD.format("bad"), "run.py", ("config", "step"))
    assert type(e) is NameError and "unbound axis name: batch" in str(e), e
    assert raised_by_project(CONFIG_FIELD.format("ok"), "run.py", ("config", "step")) is None


def test_an_axis_name_in_a_field_of_the_instance_a_method_runs_on():
    src = (
        "import dataclasses\nimport jax\nimport jax.numpy as jnp\n\n"
        "@dataclasses.dataclass\nclass Norm:\n    axis_name: str = 'batch'\n\n"
        "    def __call__(self, x):\n        return x - jax.lax.pmean(x.mean(0), self.axis_name)\n\n"
        "model = Norm()\nout = jax.pmap(lambda x: model(x), axis_name='data')(xs)\n"
    )
    # the call path goes through the instance: ``model(x)`` runs ``Norm.__call__``
    assert _found(src) == [
        ("JAX201", 10, "`jax.lax.pmean` uses axis name 'batch', but the pmap at line 13 binds 'data', not 'batch'")
    ]
    assert _found(src.replace("Norm()", "Norm('data')")) == []  # the instance's own field
    # also a method through the instance, and where the project binds the name elsewhere
    method = src.replace("def __call__(self, x)", "def center(self, x)").replace("model(x)", "model.center(x)")
    elsewhere = method + "other = jax.vmap(lambda v: v, axis_name='batch')\n"
    assert [line for _, line, _ in _found(elsewhere)] == [10]


def test_an_axis_name_in_a_flax_module_field_on_the_path_through_apply():
    src = (
        "import flax.linen as nn\nimport jax\n\n"
        "class Norm(nn.Module):\n    axis_name: str = 'batch'\n\n"
        "    @nn.compact\n    def __call__(self, x):\n        return x - jax.lax.pmean(x.mean(0), self.axis_name)\n\n"
        "def unrelated(y):\n    return y\n\n"
        "def train(xs):\n    model = Norm(name='norm')\n    params = model.init(jax.random.key(0), xs[0])\n\n"
        "    def step(x):\n        return model.apply(params, x)\n\n"
        "    return jax.pmap(step, axis_name='data')(xs)\n"
    )
    expected = [
        ("JAX201", 9, "`jax.lax.pmean` uses axis name 'batch', but the pmap at line 21 binds 'data', not 'batch'")
    ]
    assert _found(src) == expected
    assert _found(src.replace("Norm(name='norm')", "Norm(axis_name='data', name='norm')")) == []
    # ``apply(..., method=...)`` runs that method, on the same path
    method = src.replace("@nn.compact\n    def __call__", "def center").replace(
        "model.apply(params, x)", "model.apply(params, x, method=Norm.center)"
    )
    assert _found(method) == [(c, line - 1, m.replace("line 21", "line 20")) for c, line, m in expected]


CLI_TRAINER = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX201", "lint", "cli_trainer_{}")


def test_an_axis_name_from_a_command_line_default_through_a_trainer_class():
    """main.py parses the flags of cli.py's parser and makes `Trainer(args)` of trainer.py,
    whose `__init__` pmaps the step with `args.axis_name` (default 'replicas'); the step's
    factory default is 'batch'. The pmap's name is read in main.py's call of the class."""
    (d,) = _lint_folder(CLI_TRAINER.format("bad"))
    assert (os.path.basename(d.path), d.start.line, d.code) == ("steps.py", 10, "JAX201")
    assert d.message == (
        "`lax.pmean` uses axis name 'batch', but the pmap at trainer.py:12 binds 'replicas', not 'batch'"
    )
    assert _lint_folder(CLI_TRAINER.format("ok")) == []


def test_the_cli_trainer_fixture_fails_under_jax_as_linted(monkeypatch):
    import pytest
    from conftest import raised_by_project

    pytest.importorskip("jax")
    monkeypatch.setattr("sys.argv", ["main.py"])  # no flags: their defaults
    modules = ("cli", "steps", "trainer")
    e = raised_by_project(CLI_TRAINER.format("bad"), "main.py", modules)
    assert type(e) is NameError and "unbound axis name: batch" in str(e), e
    assert raised_by_project(CLI_TRAINER.format("ok"), "main.py", modules) is None


PARTIAL_KEYWORD = os.path.join(
    os.path.dirname(__file__), "..", "..", "fixtures", "JAX201", "lint", "partial_keyword_{}"
)


def test_an_axis_name_a_partial_binds_for_a_map_of_another_module():
    """`jax.vmap(partial(centred, settings=settings))`: the function gets the partial's
    keyword, whose `network_axis` the map does not bind."""
    (d,) = _lint_folder(PARTIAL_KEYWORD.format("bad"))
    assert (os.path.basename(d.path), d.start.line, d.code) == ("gauges.py", 15, "JAX201")
    assert d.message == "`lax.pmean` uses axis name 'gauges', but the vmap at main.py:11 binds no axis name"
    assert d.note == (
        "The axis name is `settings.network_axis`, a field of the parameter `settings`, which module-level code in"
        " main.py gives an object whose `network_axis` is 'gauges'. Pass `axis_name='gauges'` to that vmap."
    )
    assert _lint_folder(PARTIAL_KEYWORD.format("ok")) == []


def test_a_partials_positional_arguments_come_before_the_calls(tmp_path):
    (tmp_path / "norms.py").write_text(
        "from jax import lax\n\n\ndef centred(axis, scale, x):\n    return scale * (x - lax.pmean(x, axis))\n"
    )
    (tmp_path / "main.py").write_text(
        "import functools\nimport jax\nfrom norms import centred\n"
        "ys = jax.vmap(functools.partial(centred, 'rows'), in_axes=(None, 0), axis_name='cols')(2.0, xs)\n"
        "zs = jax.vmap(functools.partial(centred, 'cols'), in_axes=(None, 0), axis_name='cols')(2.0, xs)\n"
    )
    (d,) = _lint_folder(tmp_path)
    assert (d.start.line, d.message) == (
        5,
        "`lax.pmean` uses axis name 'rows', but the vmap at main.py:4 binds 'cols', not 'rows'",
    )


def test_the_partial_keyword_fixture_fails_under_jax_as_linted():
    import pytest
    from conftest import raised_by_project

    pytest.importorskip("jax")
    e = raised_by_project(PARTIAL_KEYWORD.format("bad"), "main.py", ("gauges",))
    assert type(e) is NameError and "unbound axis name: gauges" in str(e), e
    assert raised_by_project(PARTIAL_KEYWORD.format("ok"), "main.py", ("gauges",)) is None


FACTORY_PARTIAL = os.path.join(
    os.path.dirname(__file__), "..", "..", "fixtures", "JAX201", "lint", "factory_partial_{}"
)


@pytest.mark.parametrize("slicing", [True, False])
def test_an_axis_name_a_partial_binds_in_a_factory_that_returns_its_pmap(monkeypatch, slicing):
    """`build_spectral_step(cfg)` returns `jax.pmap(partial(network_mean_spectrum, cfg=cfg))`:
    the function gets the partial's `cfg`, the object main.py passes to the factory."""
    if not slicing:
        monkeypatch.setenv("JAXLINT_NO_SLICING", "1")
    (d,) = _lint_folder(FACTORY_PARTIAL.format("bad"))
    assert (os.path.basename(d.path), d.start.line, d.code) == ("spectra.py", 17, "JAX201")
    assert d.message == "`lax.pmean` uses axis name 'buoys', but the pmap at pipeline.py:9 binds no axis name"
    assert d.note == (
        "The axis name is `cfg.axis`, a field of the parameter `cfg`, which the `partial` that"
        " `build_spectral_step` returns in pipeline.py gives an object whose `axis` is 'buoys'."
        " Pass `axis_name='buoys'` to that pmap."
    )
    assert _lint_folder(FACTORY_PARTIAL.format("ok")) == []


INSTANCE_METHOD = os.path.join(
    os.path.dirname(__file__), "..", "..", "fixtures", "JAX201", "lint", "instance_method_{}"
)


@pytest.mark.parametrize("slicing", [True, False])
def test_a_method_another_module_calls_on_an_instance_is_a_path_to_the_collective(monkeypatch, slicing):
    """main.py makes `trainer = MarkdownTrainer(...)` of the imported class and calls
    `trainer.evaluate(...)`: the jitted `_eval_step` runs `_sync` outside any map."""
    if not slicing:
        monkeypatch.setenv("JAXLINT_NO_SLICING", "1")
    (d,) = _lint_folder(INSTANCE_METHOD.format("bad"))
    assert (os.path.basename(d.path), d.start.line, d.code) == ("trainer.py", 17, "JAX201")
    assert d.message == "`lax.pmean` uses axis name 'stores', but nothing binds it"
    assert d.note.startswith(
        "`_sync` runs from `_eval_step`, reached from `main`, which is called directly at main.py:11, so it runs"
        " outside any pmap/vmap/shard_map."
    ), d.note
    assert _lint_folder(INSTANCE_METHOD.format("ok")) == []


@pytest.mark.parametrize("name", ["factory_partial", "instance_method"])
def test_the_factory_partial_and_instance_method_fixtures_fail_under_jax_as_linted(name):
    from conftest import raised_by_project

    pytest.importorskip("jax")
    folder = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX201", "lint", name + "_{}")
    modules = {"factory_partial": ("spectra", "pipeline"), "instance_method": ("trainer",)}[name]
    e = raised_by_project(folder.format("bad"), "main.py", modules)
    assert type(e) is NameError and "unbound axis name" in str(e), e
    assert raised_by_project(folder.format("ok"), "main.py", modules) is None
