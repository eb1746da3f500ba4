"""A run ends cleanly however it is ended, and never forks without bound (issue 31).

Before: SIGTERM or SIGHUP to a run left its pool workers orphaned and blocked, holding
the output pipe open (``jaxlint … | cat`` never ended: a CI job hung until its timeout);
after ``kill -9`` of the main process workers lived on for 46 minutes; ``--jobs 100000``
forked one process per requested worker.
"""

import os
import signal
import subprocess
import sys
import time

import pytest

BODY = "".join(f"def g{j}(x):\n    return jax.vmap(lambda y: y)(x)\n" for j in range(60))


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("many")
    for i in range(300):
        (root / f"f{i}.py").write_text("import jax\n" + BODY)
    return root


def children(pid: int) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    return out


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def start(tree, *args: str) -> tuple[subprocess.Popen, list[int]]:
    """A run whose output goes to a pipe, once its workers are up."""
    p = subprocess.Popen(
        [sys.executable, "-m", "jaxlint", "--no-cache", "--jobs", "2", *args, "."],
        cwd=tree,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "CI": "1"},
    )
    for _ in range(600):
        workers = children(p.pid)
        if len(workers) >= 2:
            return p, workers
        time.sleep(0.05)
    p.kill()
    pytest.fail("no workers started")


def gone(pids: list[int], within: float = 60.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(alive(w) for w in pids):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize(("sig", "code", "name"), [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGHUP, 129, "SIGHUP")])
def test_a_signal_ends_the_workers_and_the_run_with_one_line(tree, sig, code, name):
    p, workers = start(tree)
    p.send_signal(sig)
    _, err = p.communicate(timeout=120)  # the pipe closes: nothing holds it open
    assert p.returncode == code
    assert err.decode() == f"jaxlint: terminated by {name}\n"
    assert gone(workers)


def test_workers_exit_when_the_main_process_is_killed(tree):
    p, workers = start(tree)
    p.kill()
    p.wait()
    assert gone(workers)  # before: alive 46 minutes later


def test_jobs_is_capped_by_the_files_and_the_cpus(tmp_path):
    for i in range(50):
        (tmp_path / f"f{i}.py").write_text("import jax\nx = jax.tree_map(f, y)\n")
    p = subprocess.Popen(
        [sys.executable, "-m", "jaxlint", "--no-cache", "--jobs", "100000", "--output-format", "concise", "."],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    most = 0
    while p.poll() is None:
        most = max(most, len(children(p.pid)))
        time.sleep(0.02)
    out, err = p.communicate()
    cap = 4 * (os.cpu_count() or 1)
    assert most <= min(50, cap) + 1  # +1: multiprocessing's resource tracker, if any
    assert p.returncode == 1
    assert len(out.splitlines()) == 50
    assert err.decode().splitlines() == [
        "Found 50 problems in 50 files (50 fixable with --fix).",
        f"jaxlint: warning: --jobs 100000 is more than {cap} (4 per CPU): using {cap} worker processes",
    ]


def test_workers_started_by_a_fork_server_live_for_the_run(tmp_path):
    """The language server's pool starts its workers from a fork server, so their parent is
    not the run: each must watch the run, not exit at once (every file was a JAX003
    "worker process died" in the editor)."""
    from jaxlint.api import Runner
    from jaxlint.lint.config import Settings

    paths = []
    for i in range(4):
        p = tmp_path / f"m{i}.py"
        p.write_text("import jax\nt = jax.tree_map(f, t)\n")
        paths.append(str(p))
    runner = Runner(Settings(), jobs=2)
    runner.start_method = "forkserver"
    results, errors = runner.lint_files(paths)
    found = sorted((os.path.basename(d.path), d.code) for r in results for d in r.diagnostics)
    assert (errors, found) == ([], [(f"m{i}.py", "JAX801") for i in range(4)])
