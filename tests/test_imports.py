"""The project modules a file imports: found as Python would find them, read (never run)
for the semantic model, and a cached result is used only while they are unchanged."""

import os

from conftest import run_cli

from jaxlint.lint.imports import ModuleReader, module_path, read_module_bytes, search_root

MODEL = """\
import jax
import jax.numpy as jnp


def init_params(key, d_in=6, d_hidden=16):
    return {"kernel": jax.random.normal(key, (d_in, d_hidden)), "bias": jnp.zeros(d_hidden)}


def apply(params, x):
    return x @ params["kernel"] + params["bias"]
"""

EVALUATE = """\
import jax

import model


def predict(xs):
    params = model.init_params(jax.random.key(0))
    return jax.vmap(model.apply)(params, xs)


predict(jax.numpy.ones((40, 6)))
"""

FOUND = (
    "evaluate.py:8:12: JAX105 `vmap(model.apply)` maps axes of different sizes:"
    " `params['bias']` has 16, `params['kernel']` has 6\n"
)


def _write(root, name, text):
    p = root / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def _check(root, *args):
    code, out, _err = run_cli("--preview", "--select", "JAX105", "--output-format", "concise", *args, cwd=str(root))
    return code, out


def test_a_value_of_an_imported_module_decides_a_finding(tmp_path):
    _write(tmp_path, "model.py", MODEL)
    _write(tmp_path, "evaluate.py", EVALUATE)
    assert _check(tmp_path, "--no-cache", "evaluate.py") == (1, FOUND)  # model.py is read, not named
    assert _check(tmp_path, "--no-cache", ".") == (1, FOUND)


def test_modules_of_a_package_are_found_from_its_root(tmp_path):
    _write(tmp_path, "src/pkg/__init__.py", "")
    _write(tmp_path, "src/pkg/nets/__init__.py", "")
    _write(tmp_path, "src/pkg/nets/model.py", MODEL)
    _write(
        tmp_path,
        "src/pkg/train.py",
        EVALUATE.replace("import model\n", "from pkg.nets import model\n"),
    )
    code, out = _check(tmp_path, "--no-cache", "src/pkg/train.py")
    assert (code, out) == (1, FOUND.replace("evaluate.py", "src/pkg/train.py"))
    rel = EVALUATE.replace("import model\n", "from .nets import model\n")
    _write(tmp_path, "src/pkg/train.py", rel)
    assert _check(tmp_path, "--no-cache", "src/pkg/train.py") == (1, FOUND.replace("evaluate.py", "src/pkg/train.py"))


def test_a_module_that_is_missing_unreadable_or_too_large_stays_unknown(tmp_path):
    _write(tmp_path, "evaluate.py", EVALUATE)
    assert _check(tmp_path, "--no-cache", "evaluate.py") == (0, "")
    os.mkfifo(tmp_path / "model.py")  # never opened for a blocking read
    assert _check(tmp_path, "--no-cache", "evaluate.py") == (0, "")
    os.unlink(tmp_path / "model.py")
    _write(tmp_path, "model.py", MODEL + "#" * (1 << 20))
    assert _check(tmp_path, "--no-cache", "evaluate.py") == (0, "")
    _write(tmp_path, "model.py", MODEL + "def broken(:\n")
    assert _check(tmp_path, "--no-cache", "evaluate.py") == (0, "")


def test_an_imported_module_is_never_run(tmp_path):
    marker = tmp_path / "ran"
    _write(tmp_path, "model.py", f"open({str(marker)!r}, 'w').close()\n" + MODEL)
    _write(tmp_path, "evaluate.py", EVALUATE)
    assert _check(tmp_path, "--no-cache", "evaluate.py") == (1, FOUND)
    assert not marker.exists()


def test_a_cached_result_is_not_used_once_an_imported_module_changes(tmp_path):
    _write(tmp_path, "pyproject.toml", "[tool.jaxlint]\n")
    model = _write(tmp_path, "model.py", MODEL)
    _write(tmp_path, "evaluate.py", EVALUATE)
    assert _check(tmp_path, "evaluate.py") == (1, FOUND)
    assert _check(tmp_path, "evaluate.py") == (1, FOUND)  # the whole run's entry
    model.write_text(MODEL.replace("d_in=6, d_hidden=16", "d_in=40, d_hidden=40"))  # every mapped size is 40
    assert _check(tmp_path, "evaluate.py") == (0, "")
    model.write_text(MODEL)
    assert _check(tmp_path, "evaluate.py") == (1, FOUND)
    # the per-file entry alone (a second file makes a new whole-run key)
    _write(tmp_path, "other.py", "import jax\n")
    model.write_text(MODEL.replace("d_in=6, d_hidden=16", "d_in=40, d_hidden=40"))
    assert _check(tmp_path, "evaluate.py", "other.py") == (0, "")


def test_search_root_and_module_path(tmp_path):
    _write(tmp_path, "pkg/__init__.py", "")
    _write(tmp_path, "pkg/sub/__init__.py", "")
    _write(tmp_path, "pkg/sub/m.py", "")
    assert search_root(str(tmp_path / "pkg/sub/m.py"), "pkg.sub.m", False) == str(tmp_path)
    assert search_root(str(tmp_path / "pkg/sub/__init__.py"), "pkg.sub", True) == str(tmp_path)
    assert module_path(str(tmp_path), "pkg.sub.m") == str(tmp_path / "pkg/sub/m.py")
    assert module_path(str(tmp_path), "pkg.sub") == str(tmp_path / "pkg/sub/__init__.py")
    assert module_path(str(tmp_path), "pkg.missing") is None
    assert module_path(str(tmp_path), "pkg..sub") is None


def test_the_reader_keeps_a_module_until_its_text_changes(tmp_path):
    p = _write(tmp_path, "m.py", "x = 1\n")
    reader = ModuleReader()
    first = reader.context(str(p))
    assert first is not None and first[1] is not None
    again = reader.context(str(p))
    assert again is not None and again[1] is first[1]  # not parsed again
    p.write_text("x = 2\n")
    second = reader.context(str(p))
    assert second is not None and second[0] != first[0] and second[1] is not first[1]
    assert read_module_bytes(str(tmp_path)) is None  # a folder


FIT = """\
import jax
import optax
from flax.training import train_state


def fit(model, params, batches, step):
    state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))
    p_step = jax.pmap(step, axis_name="batch")
    for batch in batches:
        state = p_step(state, batch)
    return state
"""

UNREPLICATED = "fit.py:10:24: JAX204 pmap maps `state`, a pytree with no device axis (`state.step` is rank 0)\n"


def _check_pmap(root, *args):
    code, out, _err = run_cli("--preview", "--select", "JAX204", "--output-format", "concise", *args, cwd=str(root))
    return code, out


def test_a_library_module_the_project_lacks_is_read_from_its_stub(tmp_path):
    # flax is not installed here, and no file of the project defines flax.training.train_state:
    # jaxlint's stub says that TrainState.create sets step=0
    _write(tmp_path, "fit.py", FIT)
    assert _check_pmap(tmp_path, "--no-cache", "fit.py") == (1, UNREPLICATED)


def test_a_module_of_the_project_wins_over_the_stub(tmp_path):
    # the project's own flax (a vendored copy, or linting flax itself) is what the code imports
    _write(tmp_path, "fit.py", FIT)
    _write(tmp_path, "flax/__init__.py", "")
    _write(tmp_path, "flax/training/__init__.py", "")
    _write(
        tmp_path,
        "flax/training/train_state.py",
        "class TrainState:\n    @classmethod\n    def create(cls, **kwargs):\n        return kwargs['params']\n",
    )
    assert _check_pmap(tmp_path, "--no-cache", "fit.py") == (0, "")


def test_stubs_are_read_once_and_only_for_library_modules():
    reader = ModuleReader()
    ctx = reader.stub("flax.training.train_state")
    assert ctx is not None and reader.stub("flax.training.train_state") is ctx
    assert reader.stub("flax.nothing_here") is None
    assert reader.stub("../etc/passwd") is None


LAYERS = """\
import jax


def init_layer(key, n_in, n_out):
    w_key, b_key = jax.random.split(key)
    return {"w": jax.random.normal(w_key, (n_in, n_out)), "b": jax.random.normal(b_key, (n_out,))}
"""

NET = """\
import jax

import layers


def init_net(key):
    return [layers.init_layer(key, 4, 8), layers.init_layer(key, 8, 8)]


def init_net_split(key, keys):
    return [layers.init_layer(keys[0], 4, 8), layers.init_layer(keys[1], 8, 8)]


params = init_net(jax.random.key(0))
"""


def test_a_helper_of_another_module_consumes_its_key(tmp_path):
    # what init_layer does with its key is read in layers.py: both layers get the same weights
    _write(tmp_path, "layers.py", LAYERS)
    _write(tmp_path, "net.py", NET)
    code, out, _err = run_cli(
        "--select", "JAX502", "--output-format", "concise", "--no-cache", "net.py", cwd=str(tmp_path)
    )
    assert (code, out) == (
        1,
        "net.py:7:43: JAX502 `layers.init_layer` reuses the PRNG key `key`, already consumed by "
        "`layers.init_layer` earlier on the same line\n",
    )
