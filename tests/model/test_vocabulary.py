"""The project's axis vocabulary (jaxlint/model/vocabulary.py): mentions in code, read as
values, and in configuration files, read as data; the "did you mean" suggestion."""

from __future__ import annotations

import json

from jaxlint.model import vocabulary as V

from .helpers import model_of

COLLECTIVES = frozenset({"psum", "pmean", "axis_index"})


def _mentions(source: str) -> list[str]:
    return V.module_mentions(model_of(source), COLLECTIVES)


def test_binding_sites_of_any_library_are_read_as_values():
    assert _mentions(
        """
    import jax
    import flax.linen as nn
    from jax import lax
    from jax.sharding import Mesh, PartitionSpec as P
    AXES = ("data", "model")
    RULES = (("batch", "replica"), ("embed", None))
    mesh = Mesh(devices, AXES)
    spec = P("rows", None)
    f = nn.vmap(g, axis_name="layers")
    with nn.logical_axis_rules(RULES):
        pass
    y = jax.make_jaxpr(h, axis_env=[("env", 2)])
    z = lax.psum(x, "not_a_binding")
    def fit(step, mesh_axes=("fsdp",)):
        return step
    """
    ) == sorted(["data", "model", "batch", "replica", "embed", "rows", "layers", "env", "fsdp"])


def test_a_parameter_given_by_every_visible_call_is_a_mention_and_an_unknown_one_is_none():
    assert _mentions(
        """
    import jax
    def run(f, axis):
        return jax.pmap(f, axis_name=axis)
    run(g, "given")
    def free(f, axis):
        return jax.pmap(f, axis_name=axis)
    """
    ) == ["given"]


def test_config_files_are_read_as_data_under_axis_keys(tmp_path):
    (tmp_path / "a.yaml").write_text("mesh:\n  axis_names: [data, model]\nname: not_an_axis\n")
    (tmp_path / "b.json").write_text(json.dumps({"sharding": {"rules": [["batch", "data"]]}, "lr": "x"}))
    (tmp_path / "c.toml").write_text("[train]\nmesh_axes = ['fsdp']\noptimizer = 'adam'\n")
    (tmp_path / "broken.yaml").write_text("mesh: [unclosed\n")
    (tmp_path / "big.json").write_text(json.dumps({"mesh_axes": ["huge"], "pad": "x" * V.MAX_CONFIG_BYTES}))
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "d.yaml").write_text("mesh_axes: [hidden]\n")
    assert V.config_mentions(str(tmp_path)) == {"data", "model", "batch", "fsdp"}
    assert V.config_mentions(None) == set()


def test_config_root_is_the_common_folder_of_the_linted_modules(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    paths = [str(tmp_path / "pkg" / "a.py"), str(tmp_path / "pkg" / "sub" / "b.py")]
    assert V.config_root(paths) == str(tmp_path / "pkg")
    assert V.config_root(["-"]) is None


def test_closest_suggests_only_close_names():
    names = ["data", "fsdp", "devices", "batch", "i"]
    assert V.closest("fsdpp", names) == "fsdp"
    assert V.closest("device", names) == "devices"
    assert V.closest("bacth", names) == "batch"  # a transposition is one edit
    assert V.closest("j", names) is None  # one letter: any other letter is one edit away
    assert V.closest("pipeline", names) is None
    assert V.closest("data", names) is None  # it is there: nothing to suggest
    assert V.distance("bacth", "batch") == 1
    assert V.distance("kitten", "sitting") == 3


def test_a_module_exports_its_helpers_and_what_it_gives_functions_it_cannot_read():
    got = V.module_vocabulary(
        model_of(
            """
    import jax
    from jax._src import test_util as jtu
    AXES = ("fsdp",)  # a variable: only what reads it decides
    def spec(name):
        return jax.P(None, name)
    s = spec("x")  # a caller in view: still a helper for the other modules
    def test():
        mesh = jtu.create_mesh((2, 4), ("data", "model"))
        jtu.with_mesh(AXES)
        jtu.create_mesh((8,), axis_names=("y",))  # an axis keyword: a mention of its own
        print("not_given_to_a_function_it_cannot_read")
    """
        ),
        COLLECTIVES,
    )
    assert got[V.KEY] == ["x", "y"]
    assert got[V.HELPERS] == {"spec": [[0, "name"]]}
    assert sorted(got[V.GIVEN], key=str) == [
        ["jax._src.test_util.create_mesh", 1, ["data", "model"]],
        ["jax._src.test_util.with_mesh", 0, ["fsdp"]],
    ]


def test_the_project_joins_what_modules_give_the_helpers_of_others():
    from jaxlint.model.facts import ModuleFacts

    helper = ModuleFacts("pkg.meshes", "pkg/meshes.py")
    helper.extra["JAX201"] = {V.HELPERS: {"make": [[0, "shape"], [1, "names"], [-1, "axes"]]}}
    user = ModuleFacts("train", "train.py")
    user.extra["JAX201"] = {
        V.GIVEN: [
            ["pkg.make", 1, ["data"]],  # a re-export of pkg.meshes.make
            ["pkg.make", "axes", ["fsdp"]],
            ["pkg.make", 2, ["not_a_binding_slot"]],
            ["pkg.other", 1, ["not_a_helper"]],
        ]
    }
    reexports = {"pkg.make": "pkg.meshes.make"}
    found = V.project_helpers_mentions([helper, user], "JAX201", lambda q: reexports.get(q, q))
    assert found == {"data", "fsdp"}


def test_what_a_field_attribute_or_dict_entry_about_axes_holds_is_a_mention():
    # a variable is not: ``DEVICE_AXIS`` given only to a collective binds nothing
    assert _mentions(
        """
    import dataclasses
    DEVICE_AXIS = "devices"
    LEARNING_RATE = "not_an_axis"
    @dataclasses.dataclass
    class ParallelConfig:
        axis_name: str = "batch"
        name: str
        tag: str = "experiment"
    class Trainer:
        def __init__(self):
            self.mesh_axis = "model"
    overrides = {"spmd_axis_name": "stage", "note": "free text"}
    """
    ) == sorted(["batch", "model", "stage"])
