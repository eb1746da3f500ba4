"""Time and peak memory of jaxlint on generated pathological files, per size.

Not a test: run it by hand (a full run takes several minutes on a 2-core machine):

    python tests/bench/pathological.py                  # every kind, up to 100k lines / 10 MB
    python tests/bench/pathological.py --kinds rebind,literal --max-lines 10000

Each kind is one file that a real project could contain, scaled up: many statements
rebinding one name, many same-named defs and lambdas, a huge literal, a long implicit
string concatenation, many suppression comments, many defs that call each other. Every
file also holds a ``jax.tree_map`` call (a JAX801 finding) and a ``pmean`` (JAX201's
callers closure runs), so every stage of a run has work to do. A file is linted alone
(``--no-cache``, in jaxlint's own process, as one file always is), so the process's peak
RSS is the run's. The ``CPU ratio`` column is (CPU time growth) / (size growth) from the row
above: about 1 means linear, 10 would mean quadratic (below 1 at small sizes: the start-up
cost, about 1 s, is shared).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

HEAD = "import jax\n\ny = jax.tree_map(f, x)\n\n\ndef sync(g):\n    return jax.lax.pmean(g, axis_name='i')\n\n\n"


def rebind(n: int) -> str:
    """``x = x + 1`` n times: every statement refers to every other one's binding."""
    return HEAD + "x = 0\n" + "x = x + 1\n" * n


def defs(n: int) -> str:
    """n one-line defs of the same name."""
    return HEAD + "def f(p): return p\n" * n


def lambdas(n: int) -> str:
    """n module-level lambdas (each one is ``<lambda>`` to the model)."""
    return HEAD + "".join(f"x{i} = lambda p: p\n" for i in range(n))


def calls(n: int) -> str:
    """n defs, each calling the one before and the collective's def: a long callers chain."""
    body = "".join(f"def g{i}(x):\n    return g{i - 1}(sync(x))\n\n\n" for i in range(1, n // 4))
    return HEAD + "def g0(x):\n    return sync(x)\n\n\n" + body


def vmaps(n: int) -> str:
    """n/2 defs that each vmap a lambda: every def is a rule's seed."""
    return HEAD + "".join(f"def g{i}(x):\n    return jax.vmap(lambda y: y)(x)\n" for i in range(n // 2))


def noqa(n: int) -> str:
    """n suppression comments, half of them statement-level ``# jaxlint: ignore``."""
    return HEAD + "".join(
        f"# jaxlint: ignore[JAX801]\nz{i} = jax.tree_map(f, x)\n"
        if i % 2
        else f"w{i} = jax.tree_map(f, x)  # noqa: JAX801\n"
        for i in range(n // 2)
    )


def literal(size: int) -> str:
    """One list literal of ``size`` bytes on one line."""
    return HEAD + "data = [" + "1, " * (size // 3) + "]\n"


def table(size: int) -> str:
    """A dict literal of ``size`` bytes, one entry per line (generated lookup tables)."""
    entries = size // 20
    return HEAD + "TABLE = {\n" + "".join(f"    {i}: ({i}, 'v'),\n" for i in range(entries)) + "}\n"


def concat(size: int) -> str:
    """An implicit concatenation of string literals, one per line, ``size`` bytes."""
    return HEAD + "text = (\n" + "".join(f'    "line {i}\\n"\n' for i in range(size // 16)) + ")\n"


def string(size: int) -> str:
    """One string literal of ``size`` bytes."""
    return HEAD + 's = """' + ("abcdefghi\n" * (size // 10)) + '"""\n'


# kind -> (generator, unit of its size argument)
KINDS: dict[str, tuple[Callable[[int], str], str]] = {
    "rebind": (rebind, "lines"),
    "defs": (defs, "lines"),
    "lambdas": (lambdas, "lines"),
    "calls": (calls, "lines"),
    "vmaps": (vmaps, "lines"),
    "noqa": (noqa, "lines"),
    "literal": (literal, "bytes"),
    "table": (table, "bytes"),
    "concat": (concat, "bytes"),
    "string": (string, "bytes"),
}


def measure(path: str, timeout: float) -> tuple[float, float, float, int, str]:
    """(wall seconds, CPU seconds, peak RSS MiB, exit code, last stderr line) of one jaxlint
    run on ``path``. CPU time (user + system) is the figure to read on a shared machine:
    wall time there also counts the other processes' turns."""
    cmd = [sys.executable, "-m", "jaxlint", "check", "--no-cache", "--exit-zero", "--output-format", "concise", path]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    deadline = t0 + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            return float("inf"), usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, -9, "timed out"
        time.sleep(0.02)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace").strip().splitlines() if proc.stderr else []
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), (err[-1] if err else "")


def sizes(unit: str, max_lines: int, max_bytes: int) -> list[int]:
    top = max_lines if unit == "lines" else max_bytes
    start = 1000 if unit == "lines" else 100_000
    out = []
    n = start
    while n <= top:
        out.append(n)
        n *= 10
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of: {', '.join(KINDS)}")
    ap.add_argument("--max-lines", type=int, default=100_000)
    ap.add_argument("--max-bytes", type=int, default=10_000_000)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per run")
    args = ap.parse_args()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    print("| kind | size | file | wall s | CPU s | peak MiB | CPU ratio | result |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        measure(os.path.join(tmp, "none.py"), args.timeout)  # warm the bytecode caches
        for kind in args.kinds.split(","):
            make, unit = KINDS[kind]
            prev: tuple[int, float] | None = None
            for n in sizes(unit, args.max_lines, args.max_bytes):
                text = make(n)
                path = os.path.join(tmp, f"{kind}_{n}.py")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                wall, cpu, peak, rc, last = measure(path, args.timeout)
                ratio = f"{(cpu / prev[1]) / (n / prev[0]):.2f}" if prev and prev[1] > 0 and rc != -9 else ""
                lines = text.count("\n")
                size = f"{n:,} {unit}"
                print(
                    f"| {kind} | {size} | {lines:,} lines, {len(text) / 1e6:.2f} MB | {wall:.2f} | {cpu:.2f} | {peak:.0f} | "
                    f"{ratio} | exit {rc}: {last[:90]} |",
                    flush=True,
                )
                prev = (n, cpu)
                os.unlink(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
