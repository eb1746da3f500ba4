"""How much of a tree LibCST parses: the text the slicer keeps, for a rule selection.

Not a test: run it by hand on a real tree, e.g.

    python tests/bench/kept.py /path/to/jax/jax/_src
    python tests/bench/kept.py /path/to/jax/jax/_src --select JAX503
    python tests/bench/kept.py /path/to/jax/jax/_src --ignore JAX2,JAX5,JAX8

It plans and decides as ``jaxlint check`` does (jaxlint/plan/slicing.py) and prints the
files linted, those parsed whole (no plan: ``ast`` cannot read them), those the trigger
pre-filter answered without parsing, and the share of the characters LibCST sees. The
cold-run speed target is stated against a parse of everything: this is the share of that
parse jaxlint cannot avoid.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from jaxlint.api import Runner
from jaxlint.files.discover import discover
from jaxlint.lint.config import Settings
from jaxlint.plan.slicing import FilePlan


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree")
    ap.add_argument("--select", default="", help="comma-separated codes or prefixes (default: the default rules)")
    ap.add_argument("--ignore", default="")
    ap.add_argument("--preview", action="store_true")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    args = ap.parse_args()
    root = os.path.abspath(args.tree)
    files = [f if os.path.isabs(f) else os.path.join(root, f) for f in discover([root], root, [], [])]
    settings = Settings(root=root, preview=args.preview)
    settings.select = [c for c in args.select.split(",") if c] or None
    settings.ignore = [c for c in args.ignore.split(",") if c]
    record: dict = {}
    Runner(settings, jobs=args.jobs).lint_files(files, record=record)
    plans, jobs = record["plans"], record.get("jobs", {})
    total = kept = linted = whole = answered = 0
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        total += len(text)
        if path not in jobs:
            answered += 1
            continue
        linted += 1
        plan = plans.get(path)
        if not isinstance(plan, FilePlan):
            whole += 1
            kept += len(text)
            continue
        lines = text.splitlines(keepends=True)
        blanked = sum(len(line) for first, last, _ in jobs[path][1] for line in lines[first - 1 : last])
        kept += len(text) - blanked
    print(
        f"files {len(files)}: linted {linted} (whole {whole}), answered by the pre-filter {answered}; "
        f"LibCST sees {kept:,} of {total:,} characters ({kept / max(total, 1):.0%})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
