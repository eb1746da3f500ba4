"""The result cache: same answers warm as cold, robust to corruption, opt-out works."""

import glob
import os

from conftest import run_cli

TREE_MAP = "import jax\n\nparams = jax.tree_map(lambda p: p, params)\n"


def _packed(root):
    """The per-file entries in the (one) namespace's pack."""
    from jaxlint.cache.store import Cache

    (ns,) = [
        d
        for d in os.listdir(os.path.join(root, ".jaxlint_cache"))
        if os.path.isdir(os.path.join(root, ".jaxlint_cache", d))
    ]
    return Cache(os.path.join(root, ".jaxlint_cache"), ns)._load_pack()


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def test_warm_run_matches_cold_and_sees_edits(tmp_path):
    _write(tmp_path, "pyproject.toml", "[tool.jaxlint]\n")
    a = _write(tmp_path, "a.py", TREE_MAP)
    _write(tmp_path, "b.py", "import jax\nx = jax.tree.map(f, t)  # noqa: JAX801\n")
    cold = run_cli("--output-format", "json", ".", cwd=str(tmp_path))
    # a first-pass entry and a result per file (both mention jax, which JAX501/JAX503 read)
    assert len(_packed(tmp_path)) == 4
    warm = run_cli("--output-format", "json", ".", cwd=str(tmp_path))
    assert warm == cold and cold[0] == 1
    a.write_text("import jax\n\nparams = jax.tree.map(lambda p: p, params)\n")
    _code, out, _ = run_cli("--output-format", "concise", ".", cwd=str(tmp_path))
    assert (
        out
        == "b.py:2:25: JAX002 [*] Unused `# noqa` for JAX801: nothing on the suppressed lines is reported with this code\n"
    )


def test_corrupt_entries_are_misses(tmp_path):
    _write(tmp_path, "pyproject.toml", "[tool.jaxlint]\n")
    _write(tmp_path, "a.py", TREE_MAP)
    cold = run_cli("--output-format", "concise", ".", cwd=str(tmp_path))
    entries = glob.glob(str(tmp_path / ".jaxlint_cache" / "*" / "*"))
    assert sorted(os.path.basename(e)[:4] for e in entries) == ["pack", "run-"]
    for entry in entries:
        with open(entry, "wb") as f:
            f.write(b"\x80garbage")
    assert run_cli("--output-format", "concise", ".", cwd=str(tmp_path)) == cold


def test_settings_change_the_key_and_no_cache_writes_nothing(tmp_path):
    _write(tmp_path, "pyproject.toml", "[tool.jaxlint]\n")
    _write(tmp_path, "a.py", TREE_MAP)
    assert run_cli("--output-format", "concise", "--no-cache", ".", cwd=str(tmp_path))[0] == 1
    assert not os.path.exists(tmp_path / ".jaxlint_cache")
    assert run_cli("--output-format", "concise", ".", cwd=str(tmp_path))[0] == 1
    # the same file under another target version must not reuse the entry
    assert run_cli("--output-format", "concise", "--target-jax-version", "0.4.1", ".", cwd=str(tmp_path))[0] == 0
    assert len(glob.glob(os.path.join(tmp_path, ".jaxlint_cache", "*", ""))) == 2  # one folder per settings namespace


SYNC = """from jax import lax


def sync_grads(grads):
    return lax.pmean(grads, axis_name='devices')
"""

TRAIN = """import jax

import sync

step = jax.pmap(sync.sync_grads, axis_name={name!r})
"""


def test_a_change_in_the_pmapping_module_rechecks_the_pmean_module(tmp_path):
    _write(tmp_path, "pyproject.toml", "[tool.jaxlint]\nselect = ['JAX201']\n")
    _write(tmp_path, "sync.py", SYNC)
    train = _write(tmp_path, "train.py", TRAIN.format(name="devices"))
    assert run_cli("--output-format", "concise", ".", cwd=str(tmp_path))[:2] == (0, "")
    train.write_text(TRAIN.format(name="batch"))  # sync.py is unchanged and cached
    code, out, _ = run_cli("--output-format", "concise", ".", cwd=str(tmp_path))
    assert code == 1
    assert out.startswith("sync.py:5:12: JAX201 ")
    assert "binds 'batch', not 'devices'" in out
    train.write_text(TRAIN.format(name="devices"))
    assert run_cli("--output-format", "concise", ".", cwd=str(tmp_path))[:2] == (0, "")


def test_a_run_that_writes_keeps_the_newest_entries_and_drops_stale_namespaces(tmp_path):
    import time

    from jaxlint.base.types import FileResult
    from jaxlint.cache.store import Cache

    files = []
    for i in range(12):
        f = tmp_path / f"m{i}.py"
        f.write_text(f"x = {i}\n")
        files.append(str(f))
    stale = tmp_path / ".jaxlint_cache" / "old-namespace"
    stale.mkdir(parents=True)
    old = time.time() - 40 * 86400
    os.utime(stale, (old, old))
    first = Cache(str(tmp_path / ".jaxlint_cache"), "ns", secret=b"k" * 32)
    first.MAX_ENTRIES = 10
    for path in files[:6]:
        first.put(path, FileResult(path=path))
    first.flush()
    assert not stale.exists()
    second = Cache(str(tmp_path / ".jaxlint_cache"), "ns", secret=b"k" * 32)
    second.MAX_ENTRIES = 10
    assert second.get(files[0]) is not None  # read by this run: fresher than m1 ... m5
    for path in files[6:]:
        second.put(path, FileResult(path=path))
    second.flush()
    third = Cache(str(tmp_path / ".jaxlint_cache"), "ns", secret=b"k" * 32)
    kept = [p for p in files if third.get(p) is not None]
    assert kept == [files[0], *files[5:]]  # 12 > 10: down to 80% of the cap, the least recently used dropped
    assert os.listdir(tmp_path / ".jaxlint_cache" / "ns") == ["pack"]


def test_the_pack_costs_one_file_and_compresses(tmp_path):
    from jaxlint.base.records import dumps
    from jaxlint.base.types import FileResult
    from jaxlint.cache.store import Cache

    cache = Cache(str(tmp_path / "c"), "ns", secret=b"k" * 32)
    (tmp_path / "m.py").write_text("x = 1\n")
    value = FileResult(path=str(tmp_path / "m.py"), rule_errors=["JAX101 (vmap-maps-shared-param): x" * 50] * 20)
    for i in range(40):
        cache.put(str(tmp_path / "m.py"), value, variant=str(i))
    cache.flush()
    files = [os.path.join(d, n) for d, _, ns in os.walk(tmp_path / "c" / "ns") for n in ns]
    assert [os.path.basename(f) for f in files] == ["pack"]
    assert os.path.getsize(files[0]) < 40 * len(dumps(value)) / 10
    again = Cache(str(tmp_path / "c"), "ns", secret=b"k" * 32)
    assert all(again.get(str(tmp_path / "m.py"), str(i)) == value for i in range(40))


def test_a_lone_surrogate_in_a_file_is_cached_and_answered_again(tmp_path):
    # the pre-commit hook found it on jaxlint's own sources: a string literal "\ud800" in a
    # file's facts made writing its cache entry an internal error for the whole run
    from jaxlint.base.records import dumps, loads

    assert loads(dumps(["a\ud800b", ("\udcff",)])) == ["a\ud800b", ("\udcff",)]
    (tmp_path / "a.py").write_text('import jax\ns = "\\ud800"\nx = jax.tree_map(f, s)\n')
    first = run_cli("--output-format", "concise", ".", cwd=str(tmp_path))
    second = run_cli("--output-format", "concise", ".", cwd=str(tmp_path))
    assert first == second
    assert first[0] == 1 and first[1].startswith("a.py:3:5: JAX801")


INIT_UTILS = "import jax.numpy as jnp\n\n\ndef set_forget_bias(bias, n):\n    bias[n : 2 * n] = 1.0\n    return bias\n"


def test_a_new_or_changed_importer_rechecks_the_module_it_imports(tmp_path):
    _write(tmp_path, "pyproject.toml", "[tool.jaxlint]\nselect = ['JAX501']\n")
    _write(tmp_path, "init_utils.py", INIT_UTILS)
    assert run_cli("--output-format", "concise", ".", cwd=str(tmp_path))[:2] == (0, "")
    # init_utils.py is unchanged and cached; a new module calls its def with a JAX array
    run = _write(
        tmp_path,
        "run.py",
        "import jax.numpy as jnp\nfrom init_utils import set_forget_bias\n\nb = set_forget_bias(jnp.zeros(8), 2)\n",
    )
    code, out, _ = run_cli("--output-format", "concise", ".", cwd=str(tmp_path))
    assert (code, out.splitlines()[0]) == (
        1,
        "init_utils.py:5:5: JAX501 `bias[n : 2 * n]` assigns in place into `bias`, a JAX array (as called at line 4 of run.py)",
    )
    # the importer changes: it passes a NumPy array, which may be written in place
    run.write_text(
        "import numpy as np\nfrom init_utils import set_forget_bias\n\nb = set_forget_bias(np.zeros(8), 2)\n"
    )
    assert run_cli("--output-format", "concise", ".", cwd=str(tmp_path))[:2] == (0, "")
