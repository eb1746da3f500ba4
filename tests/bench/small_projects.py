"""Precision as small projects: what a file that calls a collective gets when it is linted
with only the project modules it imports, as pre-commit (the changed files) or the
mutation script (``mutate.py``: a file and its imports) lints it.

Not a test: run it by hand on trees of real JAX code, e.g.

    python tests/bench/small_projects.py /work/corpus/C/jax /work/corpus/C/flax --select JAX201

A whole-repository run sees every binding site of the project; a small project sees only
what the file and its imports show, so a rule that decides from the project (JAX201's
axis vocabulary) must stay quiet there too. Each finding is printed as
``path:line: CODE message``, then a count per root.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mutate import COLLECTIVES, last_name, py_files, small_project


def calls_collective(text: str) -> bool:
    """Does the file call a collective (by its last name, as the mutation script finds them)?"""
    if not any(c in text for c in COLLECTIVES):
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(n, ast.Call) and last_name(n.func) in COLLECTIVES for n in ast.walk(tree))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="+")
    ap.add_argument("--select", action="append", default=None, help="rule codes (default: JAX201)")
    args = ap.parse_args()
    codes = args.select or ["JAX201"]
    total = 0
    for root in args.roots:
        files = found = 0
        for path in py_files([root]):
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except (OSError, UnicodeDecodeError):
                continue
            if not calls_collective(text):
                continue
            files += 1
            for d in sorted(small_project(text, path, root, codes), key=lambda d: (d.start.line, d.code)):
                found += 1
                print(
                    f"{os.path.basename(os.path.abspath(root))}/{os.path.relpath(path, root)}:{d.start.line}: {d.code} {d.message}",
                    flush=True,
                )
        print(f"{root}: {found} findings in {files} files calling a collective", flush=True)
        total += found
    print(f"total: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
