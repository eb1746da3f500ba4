"""JAX801 removed-api / JAX802 deprecated-api: messages, target versions, fixes, runtime."""

import glob
import os
import runpy
import subprocess
import sys

import libcst as cst
import pytest
from conftest import FIXTURES

from jaxlint import testing
from jaxlint.api import fix_paths
from jaxlint.rules.migration.table import ENTRIES


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _lint(source, target=None):
    return [(d.code, d.start.line, d.message) for d in testing.lint(source, "JAX801", "JAX802", target=target)]


def test_tree_map_message_and_fix():
    src = "import jax\nparams = jax.tree_map(f, params)\n"
    assert _lint(src) == [
        ("JAX801", 2, "`jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`")
    ]
    assert testing.fix(src, "JAX801") == "import jax\nparams = jax.tree.map(f, params)\n"


def test_alias_is_reused():
    assert testing.fix("import jax as J\nJ.tree_map(f, t)\n", "JAX801") == "import jax as J\nJ.tree.map(f, t)\n"


def test_import_is_added_after_docstring_and_future():
    src = '"""Doc."""\nfrom __future__ import annotations\nimport jax.numpy as jnp\ny = jnp.trapz(x)\n'
    want = (
        '"""Doc."""\nfrom __future__ import annotations\nimport jax\nimport jax.scipy.integrate\n'
        "import jax.numpy as jnp\ny = jax.scipy.integrate.trapezoid(x)\n"
    )
    assert testing.fix(src, "JAX801") == want


def test_from_import_keeps_local_names():
    src = "from jax import grad, tree_map\ny = tree_map(f, grad(g))\n"
    assert _lint(src) == [
        ("JAX801", 1, "`jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`")
    ]
    assert (
        testing.fix(src, "JAX801")
        == "from jax import grad\nfrom jax.tree_util import tree_map\ny = tree_map(f, grad(g))\n"
    )


def test_old_target_suggests_only_existing_replacements():
    src = "import jax\nleaves = jax.tree_flatten(t)\nm = jax.tree_map(f, t)\n"
    # 0.4.20: tree_flatten is deprecated (0.3.15), jax.tree does not exist yet, tree_map is not deprecated
    assert _lint(src, "0.4.20") == [
        (
            "JAX802",
            2,
            "`jax.tree_flatten` is deprecated since JAX 0.3.15 and removed in 0.6.0; use `jax.tree_util.tree_flatten`",
        )
    ]
    assert (
        testing.fix(src, "JAX802", target="0.4.20")
        == "import jax\nleaves = jax.tree_util.tree_flatten(t)\nm = jax.tree_map(f, t)\n"
    )
    # 0.5.0: both deprecated, jax.tree exists
    assert [c for c, _, _ in _lint(src, "0.5.0")] == ["JAX802", "JAX802"]
    assert "use `jax.tree.map`" in _lint(src, "0.5.0")[1][2]
    # 0.10.2: both removed
    assert [c for c, _, _ in _lint(src)] == ["JAX801", "JAX801"]


def test_not_yet_removed_keyword_is_silent_for_old_targets():
    src = "import jax.numpy as jnp\ny = jnp.reshape(x, newshape=(2, 3))\n"
    assert _lint(src, "0.4.20") == []
    assert [c for c, _, _ in _lint(src, "0.5.0")] == ["JAX802"]


def test_deprecated_messages():
    found = testing.lint("from jax.experimental.shard_map import shard_map\n", "JAX802")
    assert [(d.code, d.start.line, d.message, d.note) for d in found] == [
        (
            "JAX802",
            1,
            "`jax.experimental.shard_map.shard_map` is deprecated since JAX 0.8.0; use `jax.shard_map`",
            "The signature changed: `mesh`, `in_specs` and `out_specs` are keyword-only and `check_rep` is now"
            " `check_vma`.",
        )
    ]
    assert testing.fix("import jax\ni = jax.host_id()\n", "JAX802") == "import jax\ni = jax.process_index()\n"


def test_long_advice_moves_to_the_note():
    """A headline fits a line: advice that would not goes first in the note."""
    src = "import jax\ny = jax.device_put_replicated(x, jax.devices())\n"
    (d,) = testing.lint(src, "JAX801")
    assert d.message == "`jax.device_put_replicated` was removed in JAX 0.10.0 (deprecated since 0.8.1)"
    assert d.note.startswith("Use `jax.device_put(jnp.stack([x] * len(devices)), NamedSharding(")
    assert d.note.endswith("map it over a pytree with `jax.tree.map`.")


def test_call_rewrites():
    assert (
        testing.fix("import jax\ny = jax.ops.index_update(x, jax.ops.index[0, 1:], v)\n", "JAX801")
        == "import jax\ny = x.at[0, 1:].set(v)\n"
    )
    assert (
        testing.fix("from jax import lax\ny = lax.tie_in(x, a + b) * 2\n", "JAX801")
        == "from jax import lax\ny = (a + b) * 2\n"
    )
    # dropping a call could drop a side effect: unsafe only
    src = "from jax import lax\ny = lax.tie_in(g(), b)\n"
    assert testing.fix(src, "JAX801", unsafe=False) == src
    assert testing.fix(src, "JAX801") == "from jax import lax\ny = b\n"


def test_shims_are_silent():
    src = (
        "import jax\n"
        "try:\n    tm = jax.tree.map\nexcept AttributeError:\n    tm = jax.tree_map\n"
        "if jax.__version__ >= '0.4.25':\n    f = jax.tree.flatten\nelse:\n    f = jax.tree_flatten\n"
        "g = jax.tree.leaves if hasattr(jax, 'tree') else jax.tree_leaves\n"
    )
    assert _lint(src) == []


def test_with_mesh_needs_a_known_mesh():
    src = "import jax\nmesh = jax.make_mesh((1,), ('x',))\nwith mesh:\n    pass\n"
    assert [c for c, _, _ in _lint(src)] == ["JAX802"]
    assert _lint(src, "0.10.0") == []
    assert _lint("import jax\nwith mesh:\n    pass\n") == []


def test_with_mesh_reads_the_mesh_as_a_value():
    """The catalogue's mesh value, through names (the model's evaluator): a mesh kept under
    another name is one; a name that may be something else, an abstract mesh and a mesh
    given a name by ``as`` are not reported."""
    src = (
        "import jax\nfrom jax.sharding import Mesh, AbstractMesh\n"
        "def run(devices, names):\n"
        "    mesh = Mesh(devices, names)\n"
        "    m = mesh\n"
        "    with m:\n        pass\n"
        "    with jax.make_mesh((1,), ('x',)):\n        pass\n"
        "    other = mesh if devices else open('f')\n"
        "    with other:\n        pass\n"
        "    with AbstractMesh((2,), ('x',)):\n        pass\n"
        "    with Mesh(devices, names) as named:\n        pass\n"
    )
    assert [(c, line) for c, line, _ in _lint(src)] == [("JAX802", 6), ("JAX802", 8)]
    assert _lint(src)[0][2].startswith("`with m:` is deprecated since JAX 0.10.2; use `with jax.set_mesh(m):`")


def _fixable(entry):
    return entry.fix is not None and (
        entry.kind in ("rename", "module", "call", "keyword") or (entry.kind == "positional" and entry.then_keywords)
    )


def test_every_fixable_entry_has_a_fixture_pair():
    text = ""
    for path in glob.glob(os.path.join(FIXTURES, "JAX80[12]", "lint", "*.py")):
        if not path.endswith(".fixed.py") and os.path.exists(path[:-3] + ".fixed.py"):
            text += _read(path)
    missing = []
    for e in ENTRIES:
        if not _fixable(e):
            continue
        word = f"{e.keyword}=" if e.kind == "keyword" else e.old.rsplit(".", 1)[-1]
        if word not in text:
            missing.append(e.old + (f"({e.keyword}=)" if e.keyword else ""))
    assert not missing


def _fixed_files():
    return sorted(glob.glob(os.path.join(FIXTURES, "JAX80[12]", "lint", "*.fixed.py")))


@pytest.mark.parametrize("path", _fixed_files(), ids=os.path.basename)
def test_fix_is_idempotent_and_parses(path):
    text = _read(path)
    cst.parse_module(text)
    compile(text, path, "exec")
    assert testing.fix(text, "JAX801", "JAX802") == text


def _run(path, env=None):
    e = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=300, env=e, check=False)


@pytest.mark.slow
def test_seed_training_loop_fix_runs(tmp_path):
    """`jaxlint --fix` turns the seed's jax.tree_map into jax.tree.map, and that line runs."""
    jax = pytest.importorskip("jax")
    assert jax.__version__
    work = tmp_path / "seed.py"
    work.write_text(_read(os.path.join(FIXTURES, "seeds", "c4_4_training_loop.py")), encoding="utf-8")
    settings = testing.settings_for("JAX801")
    settings.root = str(tmp_path)
    fix_paths([str(work)], settings, unsafe=False, jobs=1)
    fixed = work.read_text(encoding="utf-8")
    lines = [ln.strip() for ln in fixed.splitlines() if "tree.map" in ln or "tree_map" in ln]
    assert lines == ["params = jax.tree.map(lambda p, g: p - lr * g, params, grads)"]
    program = tmp_path / "run_line.py"
    program.write_text(
        "import jax\nimport jax.numpy as jnp\n"
        "lr = 0.01\nparams = {'w': jnp.ones((10,)), 'b': jnp.zeros(())}\n"
        "grads = {'w': jnp.ones((10,)), 'b': jnp.ones(())}\n"
        f"{lines[0]}\n"
        "assert abs(float(params['w'][0]) - 0.99) < 1e-6 and abs(float(params['b']) + 0.01) < 1e-6\n"
        "print('ok')\n",
        encoding="utf-8",
    )
    p = _run(str(program))
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr


_EXPECT = {
    "JAX801": {"bad.py": "AttributeError", "bad_keyword.py": "TypeError", "bad_index_update.py": "AttributeError"},
    "JAX802": {"bad.py": "DeprecationWarning", "bad_core.py": "DeprecationWarning"},
}


@pytest.mark.slow
@pytest.mark.parametrize("code", sorted(_EXPECT))
def test_runtime_reference(code, tmp_path):
    """bad programs raise under the installed jax; fixed.py and the autofix of bad.py match the oracle."""
    pytest.importorskip("jax")
    import numpy as np

    folder = os.path.join(FIXTURES, code)
    for name, exc in _EXPECT[code].items():
        p = _run(os.path.join(folder, name))
        assert p.returncode != 0 and exc in p.stderr.strip().splitlines()[-1], p.stderr[-500:]
        assert any(d.code == code for d in testing.lint(_read(os.path.join(folder, name)), code))
    fixed_src = _read(os.path.join(folder, "fixed.py"))
    assert not testing.lint(fixed_src, code)
    autofixed = testing.fix(_read(os.path.join(folder, "bad.py")), code)
    ns_oracle = runpy.run_path(os.path.join(folder, "oracle.py"))
    for label, src in (("fixed", fixed_src), ("autofix", autofixed)):
        prog = tmp_path / f"{label}.py"
        prog.write_text(
            src + "\nimport numpy as _np, jax as _jax\n"
            "print(repr(_jax.tree.map(lambda a: _np.asarray(a).tolist(), RESULT)))\n",
            encoding="utf-8",
        )
        p = _run(str(prog))
        assert p.returncode == 0, p.stderr[-500:]
        got = eval(p.stdout.strip().splitlines()[-1])
        want = ns_oracle["ORACLE"]
        if isinstance(want, dict):
            for k in want:
                np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# the importer: spellings through the file's imports, and the import a fix adds ------------
def test_fix_reuses_the_import_alias_as_written():
    assert testing.fix("import jax.numpy as jnp\ny = jnp.msort(a)\n", "JAX801") == (
        "import jax.numpy as jnp\ny = jnp.sort(a, axis=0)\n"
    )
    assert testing.fix("from jax import lax\ny = lax.pvary(x, 'i')\n", "JAX801") == (
        "from jax import lax\ny = lax.pcast(x, 'i', to='varying')\n"
    )
    assert testing.fix("from jax import random\nk = random.threefry2x32_key(0)\n", "JAX801") == (
        "from jax import random\nk = random.PRNGKey(0, impl='threefry2x32')\n"
    )


def test_fix_adds_the_import_before_the_other_imports():
    src = '"""Doc."""\nfrom __future__ import annotations\n\nimport numpy as np\nfrom jax import numpy as jnp\ny = jnp.trapz(x)\n'
    assert _lint(src)[0][:2] == ("JAX801", 6)
    assert testing.fix(src, "JAX801") == (
        '"""Doc."""\nfrom __future__ import annotations\n\nimport jax\nimport jax.scipy.integrate\n'
        "import numpy as np\nfrom jax import numpy as jnp\ny = jax.scipy.integrate.trapezoid(x)\n"
    )


# version guards: the rules are silent in a shim, not next to it ---------------------------
GUARDED = [
    "if hasattr(jax, 'tree'):\n    f = jax.tree.map\nelse:\n    f = jax.tree_map\n",
    "f = getattr(jax, 'tree', None) and jax.tree.map or jax.tree_map\n",
    "if getattr(jax, 'tree', None) is None:\n    f = jax.tree_map\n",
    "try:\n    f = jax.tree.map\nexcept (ImportError, AttributeError, ModuleNotFoundError):\n    f = jax.tree_map\n",
    "if jax.__version__ >= '0.4':\n    f = jax.tree.map\nelse:\n    f = jax.tree_map\n",
    "if jax.__version_info__ >= (0, 4, 30):\n    f = jax.tree.map\nelse:\n    f = jax.tree_map\n",
    "_V = tuple(int(p) for p in jax.__version__.split('.')[:3])\nif _V >= (0, 4, 30):\n"
    "    f = jax.tree.map\nelse:\n    f = jax.tree_map\n",
]


@pytest.mark.parametrize("guard", GUARDED)
def test_a_guarded_use_is_silent_and_the_next_one_is_reported(guard):
    src = "import jax\n" + guard + "g = jax.tree_map(h, t)\n"
    last = src.count("\n")
    assert _lint(src) == [
        ("JAX801", last, "`jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`")
    ]
    assert testing.fix(src, "JAX801") == src.replace("g = jax.tree_map(h, t)", "g = jax.tree.map(h, t)")


def test_a_test_about_something_else_is_no_guard():
    src = "import jax\nimport numpy\nif numpy.__version__ >= '1.2':\n    f = jax.tree_map\n"
    assert [(c, line) for c, line, _ in _lint(src)] == [("JAX801", 4)]
    src = "import jax\ntry:\n    f = jax.tree_map\nexcept ValueError:\n    pass\n"
    assert [(c, line) for c, line, _ in _lint(src)] == [("JAX801", 3)]


def test_config_option_name_is_evaluated():
    """The option's name is a value the model's evaluator reads: a literal or a constant."""
    src = "import jax\nNAME = 'jax_array'\njax.config.update(NAME, True)\njax.config.update('jax_enable_x64', True)\n"
    assert _lint(src) == [("JAX801", 3, "The config option 'jax_array' was removed in JAX 0.4.14; delete the call")]


def test_a_guard_computed_in_another_module(tmp_path):
    (tmp_path / "compat.py").write_text(
        "import jax\n\nJAX_VERSION = tuple(int(p) for p in jax.__version__.split('.')[:3])\n\n"
        "def has_tree():\n    return hasattr(jax, 'tree')\n\nDEBUG = False\n"
    )
    (tmp_path / "train.py").write_text(
        "import jax\nimport compat\nfrom compat import JAX_VERSION, DEBUG\n"
        "if JAX_VERSION >= (0, 4, 25):\n    f = jax.tree.map\nelse:\n    f = jax.tree_map\n"
        "if compat.has_tree():\n    g = jax.tree.map\nelse:\n    g = jax.tree_map\n"
        "if DEBUG:\n    h = jax.tree_map\n"
    )
    run = testing.lint_folder(tmp_path, testing.settings_for("JAX801"))
    assert [(os.path.basename(d.path), d.start.line, d.code) for d in run.diagnostics] == [("train.py", 13, "JAX801")]
