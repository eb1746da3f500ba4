import os
import sys

import pytest

# the cache's secret key lives in the user's cache folder: tests use their own
os.environ["XDG_CACHE_HOME"] = __import__("tempfile").mkdtemp(prefix="jaxlint-tests-cache-home-")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures")


def raised_by(path: str, call: str) -> Exception | None:
    """Run the fixture at ``path`` (under ``fixtures/``) and evaluate ``call`` in its
    namespace (``"run_bad()"``): what it raises (jax's answer to the fixture's bug), or None
    when it runs."""
    import runpy

    space = runpy.run_path(os.path.join(FIXTURES, path))
    try:
        eval(call, space)
    except Exception as e:
        return e
    return None


def raised_by_project(folder: str, script: str, modules: tuple[str, ...]) -> Exception | None:
    """Run ``script`` of a multi-module fixture folder as ``python script`` there would (the
    folder first on ``sys.path``, its ``modules`` imported afresh): what it raises, or None."""
    import runpy

    def forget() -> None:
        for m in modules:
            sys.modules.pop(m, None)

    sys.path.insert(0, folder)
    forget()
    try:
        runpy.run_path(os.path.join(folder, script))
    except Exception as e:
        return e
    finally:
        forget()
        sys.path.remove(folder)
    return None


@pytest.fixture
def root() -> str:
    return ROOT


@pytest.fixture(scope="session")
def mypy_cache(request, tmp_path_factory):
    """mypy's incremental cache for the self-checks: in pytest's cache folder, so a second
    run is warm (a temporary folder when that plugin is off); never in the tree."""
    cache = getattr(request.config, "cache", None)
    return cache.mkdir("mypy") if cache is not None else tmp_path_factory.mktemp("mypy-cache")


def run_cli(*args: str, cwd: str | None = None, stdin: str | None = None, env: dict | None = None):
    """Run ``python -m jaxlint`` in a subprocess; return (exit code, stdout, stderr)."""
    import subprocess

    e = dict(os.environ)
    e.pop("CI", None)
    e.update(env or {})
    p = subprocess.run(
        [sys.executable, "-m", "jaxlint", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=e,
        timeout=300,
    )
    return p.returncode, p.stdout, p.stderr
