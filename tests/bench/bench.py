"""Benchmark jaxlint against a bare LibCST parse loop and peer linters, in one run.

Not a test: run it by hand on a real tree, e.g.

    python tests/bench/bench.py /path/to/jax --ruff --fixit-timeout 1200

It prints wall and CPU seconds, files and lines per second, peak memory (RSS summed
over the process tree), and the ratios the project's speed targets are stated in.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def py_files(root: str) -> list[str]:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from jaxlint.files.discover import discover

    return [os.path.join(root, f) if not os.path.isabs(f) else f for f in discover([root], root, [], [])]


def _tree_rss_kib(pid: int) -> int:
    """RSS of a process and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def measure(name: str, cmd: list[str], cwd: str | None = None, timeout: float | None = None) -> dict:
    """Run a command; wall time, CPU time of the tree (children rusage), peak summed RSS."""
    before = os.times()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss_kib(proc.pid))
            done.wait(0.05)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    timed_out = False
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        timed_out = True
    done.set()
    th.join()
    wall = time.perf_counter() - t0
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return {
        "name": name,
        "wall": wall,
        "cpu": cpu,
        "peak_mib": peak / 1024,
        "rc": proc.returncode,
        "timed_out": timed_out,
        "err": err.decode(errors="replace")[-300:],
    }


# Users' Pythons cache bytecode; some sandboxes turn that off, which would time the
# compilation of jaxlint's own modules on every start instead of linting.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

PARSE_LOOP = """
import sys, libcst
files = [l.rstrip('\\n') for l in open(sys.argv[1])]
for p in files:
    with open(p, 'rb') as f:
        data = f.read()
    try:
        libcst.parse_module(data)
    except Exception:
        pass
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", help="folder with Python code (e.g. a checkout of jax-ml/jax)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--ruff", action="store_true", default=True, help="also time ruff (if installed)")
    ap.add_argument("--fixit-timeout", type=float, default=0, help="run fixit with this timeout (0: skip)")
    ap.add_argument(
        "--small-file", help="file for the pre-commit case (default: the tree's smallest file with a trigger)"
    )
    args = ap.parse_args()

    tree = os.path.abspath(args.tree)
    files = py_files(tree)
    lines = 0
    for p in files:
        with open(p, "rb") as f:
            lines += f.read().count(b"\n")
    print(f"tree: {tree}\nfiles: {len(files)}  lines: {lines}  cores: {os.cpu_count()}  jobs: {args.jobs}\n")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as lst:
        lst.write("\n".join(files) + "\n")
    # ``-P``: the tree is the working folder, and its modules (jax/_src has ``typing.py``)
    # must not shadow the standard library or jaxlint
    jaxlint = [
        sys.executable,
        "-P",
        "-m",
        "jaxlint",
        "check",
        "--exit-zero",
        "--quiet",
        "--output-format",
        "concise",
        "--jobs",
        str(args.jobs),
    ]
    cache = os.path.join(tree, ".jaxlint_cache")
    shutil.rmtree(cache, ignore_errors=True)
    rows = []
    measure("warm-up (bytecode caches)", [sys.executable, "-m", "jaxlint", "--version"])
    rows.append(measure("libcst.parse_module loop (sequential)", [sys.executable, "-c", PARSE_LOOP, lst.name]))
    rows.append(measure("jaxlint cold (--no-cache)", [*jaxlint, "--no-cache", tree], cwd=tree))
    rows.append(measure("jaxlint fill cache", [*jaxlint, tree], cwd=tree))
    rows.append(measure("jaxlint warm (nothing changed)", [*jaxlint, tree], cwd=tree))
    touched = max(files, key=os.path.getsize)
    with open(touched, "rb") as f:
        original = f.read()
    try:
        with open(touched, "ab") as f:
            f.write(b"\n# touched by bench.py\n")
        rows.append(measure("jaxlint after touching one file", [*jaxlint, tree], cwd=tree))
    finally:
        with open(touched, "wb") as f:
            f.write(original)
    ruff = shutil.which("ruff") or shutil.which("ruff", path=os.path.dirname(sys.executable))
    if args.ruff and ruff:
        rows.append(
            measure(
                "ruff check --no-cache",
                [ruff, "check", "--no-cache", "--exit-zero", "--quiet", "--isolated", tree],
                cwd=tree,
            )
        )
    fixit = shutil.which("fixit") or shutil.which("fixit", path=os.path.dirname(sys.executable))
    if args.fixit_timeout and fixit:
        rows.append(measure("fixit lint", [fixit, "lint", tree], cwd=tree, timeout=args.fixit_timeout))
    small = args.small_file or min(
        (p for p in files if b"grad" in Path(p).read_bytes()), key=os.path.getsize, default=files[0]
    )
    rows.append(measure("python -c 'import libcst, click, rich'", [sys.executable, "-c", "import libcst, click, rich"]))
    rows.append(
        measure(
            f"jaxlint one small file ({os.path.basename(small)})",
            [*jaxlint[:-2], "--jobs", "1", "--no-cache", small],
            cwd=tree,
        )
    )
    shutil.rmtree(cache, ignore_errors=True)
    os.unlink(lst.name)

    print(f"{'what':<48} {'wall s':>8} {'cpu s':>8} {'files/s':>9} {'lines/s':>10} {'peak MiB':>9}")
    for r in rows:
        note = (
            " (timed out)"
            if r["timed_out"]
            else ("" if r["rc"] in (0, 1) else f" (exit {r['rc']}: {r['err'].strip()[-120:]})")
        )
        n = 1 if "one small file" in r["name"] or "import" in r["name"] else len(files)
        ln = lines if n == len(files) else 0
        print(
            f"{r['name']:<48} {r['wall']:>8.2f} {r['cpu']:>8.2f} {n / r['wall']:>9.0f} {ln / r['wall']:>10.0f} {r['peak_mib']:>9.0f}{note}"
        )
    parse = rows[0]["wall"]
    cold = rows[1]["wall"]
    warm = rows[3]["wall"]
    touch = rows[4]["wall"]
    print()
    print(f"cold / parse loop:        {cold / parse:.2f}   (target <= 0.6)")
    ruff = next((r for r in rows if r["name"].startswith("ruff")), None)
    if ruff:
        print(f"warm / ruff --no-cache:   {warm / ruff['wall']:.2f}   (target <= 1.0)")
    print(f"touched one / warm:       {touch / warm:.2f}")
    imp = next(r for r in rows if r["name"].startswith("python -c"))
    small_row = rows[-1]
    print(f"one small file / imports: {small_row['wall'] / imp['wall']:.2f}   (target <= 1.5)")
    print(f"peak memory, cold:        {rows[1]['peak_mib']:.0f} MiB   (target < 400)")
    fixit = next((r for r in rows if r["name"].startswith("fixit")), None)
    if fixit:
        print(
            f"fixit / jaxlint cold:     {fixit['wall'] / cold:.1f}{' (fixit timed out)' if fixit['timed_out'] else ''}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
