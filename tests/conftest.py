import os
import sys

import pytest

# the cache's secret key lives in the user's cache folder: tests use their own
os.environ["XDG_CACHE_HOME"] = __import__("tempfile").mkdtemp(prefix="jaxlint-tests-cache-home-")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures")


@pytest.fixture
def root() -> str:
    return ROOT


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
