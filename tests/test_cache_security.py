"""The cache can never run code or lie: planted, copied, damaged or racing entries are misses.

People lint untrusted pull requests in CI, and ``.jaxlint_cache/`` is inside the project,
so everything under it is attacker-controlled input.
"""

import glob
import hashlib
import hmac
import json
import os
import pickle
import stat
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import pytest
from conftest import FIXTURES, run_cli

from jaxlint.base.records import RecordError, dumps, loads
from jaxlint.cache.key import key_path, load_secret
from jaxlint.cache.store import CACHE_DIR, MAGIC, PACK_MAGIC, Cache
from jaxlint.lint.config import Settings

TREE_MAP = "import jax\n\nparams = jax.tree_map(lambda p: p, params)\n"
EXPECTED = (
    "a.py:3:10: JAX801 [*] `jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`\n"
)


def _project(tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "a.py").write_text(TREE_MAP)
    return str(tmp_path)


def _entries(root):
    return [p for p in glob.glob(os.path.join(root, CACHE_DIR, "*", "**"), recursive=True) if os.path.isfile(p)]


def _lint(root, *extra, env=None):
    return run_cli("--output-format", "concise", *extra, ".", cwd=root, env=env)


class Payload:
    """Unpickling this runs a shell command that leaves a marker file."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_planted_pickle_runs_nothing_and_changes_nothing(tmp_path):
    root = _project(tmp_path / "p")
    cold = _lint(root)
    assert cold[:2] == (1, EXPECTED)
    marker = tmp_path / "pwned"
    entries = _entries(root)
    assert len(entries) == 2  # the run entry, and the pack of a plan entry and a result entry for a.py
    assert len(_packed(root)) == 2
    for entry in entries:
        with open(entry, "wb") as f:
            pickle.dump(Payload(marker), f)
    # sanity: the payload really runs when unpickled
    pickle.loads(pickle.dumps(Payload(tmp_path / "control")))
    assert (tmp_path / "control").exists()
    assert _lint(root) == cold
    assert not marker.exists()
    assert _lint(root, "--no-cache")[:2] == cold[:2]


def _packed(root):
    """The per-file entries (name -> sealed bytes) in the namespace's pack."""
    (ns,) = [d for d in os.listdir(os.path.join(root, CACHE_DIR)) if os.path.isdir(os.path.join(root, CACHE_DIR, d))]
    return Cache(os.path.join(root, CACHE_DIR), ns)._load_pack()


def _reseal(data, namespace, name, secret, mutate):
    payload = zlib.decompress(data[len(MAGIC) + 65 :])
    new = zlib.compress(json.dumps(mutate(json.loads(payload)), separators=(",", ":")).encode())
    m = hmac.new(secret, digestmod=hashlib.sha256)
    m.update(f"{namespace}/{name}\0".encode())
    m.update(new)
    return MAGIC + m.hexdigest().encode() + b"\n" + new


def _forge(path, secret, mutate):
    """Rewrite a sealed entry (or every entry of a pack) with ``mutate`` applied to its JSON,
    sealed with ``secret``."""
    namespace = os.path.basename(os.path.dirname(path))
    name = os.path.basename(path)
    if name != "pack":
        Path(path).write_bytes(_reseal(Path(path).read_bytes(), namespace, name, secret, mutate))
        return
    parts = [PACK_MAGIC]
    for key, blob in Cache(os.path.dirname(os.path.dirname(path)), namespace)._load_pack().items():
        sealed = _reseal(blob, namespace, key, secret, mutate)
        parts += [key.encode(), b"\n", str(len(sealed)).encode(), b"\n", sealed]
    Path(path).write_bytes(b"".join(parts))


def _replace_message(obj):
    text = json.dumps(obj).replace("was removed in JAX 0.6.0", "FORGED")
    return json.loads(text)


def test_entries_need_this_users_key(tmp_path):
    """A well-formed entry under the right key name is trusted only with this user's HMAC."""
    root = _project(tmp_path / "p")
    home_a, home_b = str(tmp_path / "home-a"), str(tmp_path / "home-b")
    cold = _lint(root, env={"XDG_CACHE_HOME": home_a})
    assert cold[:2] == (1, EXPECTED)
    secret_a = Path(os.path.join(home_a, "jaxlint", "cache.key")).read_bytes()
    run_entries = [e for e in _entries(root) if os.path.basename(e).startswith("run-")]
    assert len(run_entries) == 1
    # sealed with the right key: jaxlint believes it (this is what the cache is for) ...
    _forge(run_entries[0], secret_a, _replace_message)
    assert "FORGED" in _lint(root, env={"XDG_CACHE_HOME": home_a})[1]
    # ... but another user's (or machine's, or a committed) cache is a miss
    assert _lint(root, env={"XDG_CACHE_HOME": home_b})[:2] == cold[:2]
    # and so is an entry sealed with any key but ours
    for entry in _entries(root):
        _forge(entry, b"x" * 32, _replace_message)
    assert _lint(root, env={"XDG_CACHE_HOME": home_a})[:2] == cold[:2]


def test_damaged_entries_are_misses(tmp_path):
    root = _project(tmp_path / "p")
    cold = _lint(root)
    for i, entry in enumerate(sorted(_entries(root))):
        data = Path(entry).read_bytes()
        damaged = [data[: len(data) // 2], data[:-1] + b"X", b"", MAGIC + b"0" * 64 + b"\n{}"][i % 4]
        with open(entry, "wb") as f:
            f.write(damaged)
    assert _lint(root) == cold
    # and the next run repairs them: warm again
    assert _lint(root) == cold


def test_records_decode_only_jaxlints_own_types():
    from jaxlint.base.types import Diagnostic, Position

    d = Diagnostic("a.py", "JAX801", "removed-api", "m", Position(1, 2), Position(1, 5))
    value = (["x", 1, 2.5, None, True], {"k": frozenset({1, 2}), (1, "t"): {3}}, d, Ellipsis, 1j)
    assert loads(dumps(value)) == value
    for forged in (
        b'{"C":"os:system","v":["touch /tmp/x"]}',
        b'{"C":"jaxlint.cli:main","v":[]}',
        b'{"C":"jaxlint.base.types:Position","v":[1]}',  # wrong field count
        b'{"C":"subprocess:Popen","v":[]}',
        b'{"Q":1}',
        b"[",
    ):
        with pytest.raises(RecordError):
            loads(forged)
    with pytest.raises(RecordError):
        dumps(object())


def test_writes_never_follow_symlinks(tmp_path):
    root = _project(tmp_path / "p")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # the whole cache folder is a symlink (committed to the repository): not used
    os.symlink(elsewhere, os.path.join(root, CACHE_DIR))
    assert _lint(root)[:2] == (1, EXPECTED)
    assert os.listdir(elsewhere) == []
    # a dangling .gitignore symlink must not create its target
    os.unlink(os.path.join(root, CACHE_DIR))
    os.mkdir(os.path.join(root, CACHE_DIR))
    target = tmp_path / "created-by-jaxlint"
    os.symlink(target, os.path.join(root, CACHE_DIR, ".gitignore"))
    assert _lint(root)[:2] == (1, EXPECTED)
    assert not target.exists()
    # an entry that is a symlink is replaced, its target untouched
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    for entry in _entries(root):
        os.unlink(entry)
        os.symlink(victim, entry)
    assert _lint(root)[:2] == (1, EXPECTED)
    assert victim.read_text() == "keep me"
    assert all(not os.path.islink(e) for e in _entries(root))


def test_nothing_is_world_writable_even_with_umask_0(tmp_path):
    root = _project(tmp_path / "p")
    env = dict(os.environ)
    env.pop("CI", None)
    env["XDG_CACHE_HOME"] = str(tmp_path / "home")
    subprocess.run(
        [sys.executable, "-m", "jaxlint", "--output-format", "concise", "."],
        cwd=root,
        env=env,
        preexec_fn=lambda: os.umask(0),
        capture_output=True,
        check=False,
    )
    made = [os.path.join(d, n) for d, dirs, files in os.walk(os.path.join(root, CACHE_DIR)) for n in dirs + files]
    made.append(os.path.join(root, CACHE_DIR))
    assert len(made) >= 6
    for p in made:
        assert not os.lstat(p).st_mode & stat.S_IWOTH, p
    key = os.path.join(tmp_path, "home", "jaxlint", "cache.key")
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(key)).st_mode) == 0o700


def test_a_key_others_can_read_disables_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    secret = load_secret()
    assert secret is not None and len(secret) == 32 and load_secret() == secret
    os.chmod(key_path(), 0o644)
    assert load_secret() is None
    os.chmod(key_path(), 0o600)
    os.unlink(key_path())
    os.symlink(tmp_path / "planted", key_path())
    (tmp_path / "planted").write_bytes(b"k" * 32)
    os.chmod(tmp_path / "planted", 0o600)
    assert load_secret() is None  # a symlinked key is refused
    # no key: the run lints and writes no cache at all
    root = _project(tmp_path / "p")
    assert _lint(root, env={"XDG_CACHE_HOME": str(tmp_path / "home")})[:2] == (1, EXPECTED)
    assert not os.path.exists(os.path.join(root, CACHE_DIR))


def test_cachedir_tag_and_gitignore(tmp_path):
    root = _project(tmp_path / "p")
    _lint(root)
    tag = Path(os.path.join(root, CACHE_DIR, "CACHEDIR.TAG")).read_text(encoding="utf-8")
    assert tag.startswith("Signature: 8a477f597d28d172789f06886806bc55\n")
    assert Path(os.path.join(root, CACHE_DIR, ".gitignore")).read_text(encoding="utf-8") == "# created by jaxlint\n*\n"


def _api_run(root, cache):
    from jaxlint import api

    settings = Settings(root=root)
    return api.lint_paths([root], settings, jobs=1, cache=cache).diagnostics


def test_unwritable_or_full_cache_still_lints(tmp_path, monkeypatch):
    import tempfile

    root = _project(tmp_path / "p")
    expected = _api_run(root, None)
    assert [d.code for d in expected] == ["JAX801"]
    # the cache folder's place is taken by a file: nothing can be written
    open(os.path.join(root, CACHE_DIR), "w").close()
    assert _api_run(root, Cache(os.path.join(root, CACHE_DIR), "ns", b"k" * 32)) == expected
    os.unlink(os.path.join(root, CACHE_DIR))

    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "mkstemp", full)
    assert _api_run(root, Cache(os.path.join(root, CACHE_DIR), "ns", b"k" * 32)) == expected
    assert list(_entries(root)) == []


def test_a_run_killed_while_writing_leaves_only_misses(tmp_path):
    root = _project(tmp_path / "p")
    cold = _lint(root)
    # what a kill leaves: temporary files beside half-written entries
    for entry in _entries(root):
        data = Path(entry).read_bytes()
        with open(os.path.join(os.path.dirname(entry), ".tmp-killed"), "wb") as f:
            f.write(data[:10])
        with open(entry, "wb") as f:
            f.write(data[: len(data) // 3])
    assert _lint(root) == cold


def test_concurrent_runs_agree_with_no_cache(tmp_path):
    root = str(tmp_path / "p")
    os.makedirs(root)
    (tmp_path / "p" / "pyproject.toml").write_text("[tool.jaxlint]\n")
    for name in os.listdir(os.path.join(FIXTURES, "seeds")):
        if not name.endswith(".py"):
            continue  # a cache or notes someone left in the checkout
        with open(os.path.join(FIXTURES, "seeds", name), "rb") as src:
            (tmp_path / "p" / name).write_bytes(src.read())
    expected = _lint(root, "--no-cache")
    assert expected[0] == 1
    results = []

    def run():
        results.append(_lint(root, "--jobs", "1"))

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r[:2] for r in results] == [expected[:2]] * 3
    assert _lint(root)[:2] == expected[:2]


def test_every_fixture_result_is_a_cacheable_record(tmp_path, monkeypatch):
    """Rules' facts and pending data must be plain records, or they silently stop being cached."""
    import jaxlint.base.records as records
    from jaxlint import api

    failures = []
    original = records.dumps

    def dumps(value):
        try:
            return original(value)
        except RecordError as e:
            failures.append(str(e))
            raise

    monkeypatch.setattr(records, "dumps", dumps)
    cache = Cache(str(tmp_path / "c"), "ns", b"k" * 32)
    run = api.lint_paths([FIXTURES], Settings(root=FIXTURES, preview=True), jobs=1, cache=cache)
    assert run.diagnostics and failures == []
    again = api.lint_paths(
        [FIXTURES], Settings(root=FIXTURES, preview=True), jobs=1, cache=Cache(str(tmp_path / "c"), "ns", b"k" * 32)
    )
    assert again.diagnostics == run.diagnostics


def test_swapped_or_forged_pack_framing_is_a_miss(tmp_path):
    """The pack's names and lengths are not sealed; every entry in it is, under its name."""
    root = _project(tmp_path / "p")
    cold = _lint(root)
    (pack,) = [e for e in _entries(root) if os.path.basename(e) == "pack"]
    entries = _packed(root)
    assert len(entries) == 2
    (a, blob_a), (b, blob_b) = entries.items()
    parts = [PACK_MAGIC]
    for name, blob in ((a, blob_b), (b, blob_a)):  # each entry filed under the other's name
        parts += [name.encode(), b"\n", str(len(blob)).encode(), b"\n", blob]
    parts += [b"../../escape\n5\nhello", b"x" * 10]  # a bad name ends the list
    Path(pack).write_bytes(b"".join(parts))
    cache = Cache(os.path.dirname(os.path.dirname(pack)), os.path.basename(os.path.dirname(pack)), load_secret())
    assert sorted(cache._load_pack()) == sorted([a, b])
    assert cache._load(a) is None and cache._load(b) is None
    for run_entry in [e for e in _entries(root) if os.path.basename(e).startswith("run-")]:
        os.unlink(run_entry)  # so the per-file entries are read
    assert _lint(root) == cold
