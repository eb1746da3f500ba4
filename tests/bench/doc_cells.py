"""Turn MyST markdown pages (JAX's ``docs/*.md``) into Python modules of their code cells.

Why: JAX's documentation is executable; its code cells are the most-read JAX code there
is. Each page becomes one module whose line N is line N of the page: code-cell lines are
kept, everything else (prose, fences, cell options, IPython magics and shell escapes) is
blanked, so a finding's line is the page's line and cross-cell names resolve in order.

    python tests/bench/doc_cells.py DOCS_DIR OUT_DIR            # write modules + cells.json
    python tests/bench/doc_cells.py DOCS_DIR OUT_DIR --check [--select JAX1,JAX2] [--preview]

``--check`` runs jaxlint (the one on PATH) over OUT_DIR and sorts each finding into the
cell that holds it: cells tagged ``raises-exception`` (the docs show them failing) and
working cells (every other one). It prints both lists and the counts; exit 1 when a
working cell is flagged.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys

FENCE = re.compile(r"^(`{3,}|~{3,})\{code-cell\}\s*(\S*)")
MAGIC = re.compile(r"^\s*(%|!|\?)")
OPTION = re.compile(r"^:(\w[\w-]*):\s*(.*)$")


def cells_of(lines: list[str]) -> list[dict]:
    """The page's code cells: first/last code line (1-based), tags, language."""
    cells, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(1), m.group(2) or "ipython3"
        j = i + 1
        tags: list[str] = []
        # options: ":key: value" lines, or a YAML block between '---' lines
        if j < len(lines) and lines[j].strip() == "---":
            j += 1
            while j < len(lines) and lines[j].strip() != "---":
                tags += _tags(lines[j])
                j += 1
            j += 1
        else:
            while j < len(lines) and OPTION.match(lines[j]):
                tags += _tags(lines[j])
                j += 1
        start = j
        while j < len(lines) and not lines[j].startswith(fence[0] * len(fence)):
            j += 1
        cells.append({"start": start + 1, "end": j, "tags": tags, "lang": lang})
        i = j + 1
    return cells


def _tags(line: str) -> list[str]:
    m = re.match(r"^:?tags:\s*\[(.*)\]", line.strip())
    return [t.strip().strip("'\"") for t in m.group(1).split(",")] if m else []


def module_of(lines: list[str], cells: list[dict]) -> str:
    out = [""] * len(lines)
    for c in cells:
        if not c["lang"].startswith(("ipython", "python")):
            continue
        in_cell_magic = False
        for n in range(c["start"], c["end"] + 1):
            text = lines[n - 1]
            if n == c["start"] and text.startswith("%%"):
                in_cell_magic = not text.startswith(("%%time", "%%timeit", "%%capture"))
                continue
            if in_cell_magic or MAGIC.match(text):
                continue
            out[n - 1] = text
    return "\n".join(out) + "\n"


def convert(docs: str, out: str) -> list[dict]:
    index = []
    for root, dirs, files in os.walk(docs):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        for name in sorted(files):
            if not name.endswith(".md"):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
            cells = cells_of(lines)
            if not cells:
                continue
            rel = os.path.relpath(path, docs)
            target = os.path.join(out, rel[:-3].replace("-", "_") + ".py")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as f:
                f.write(module_of(lines, cells))
            for k, c in enumerate(cells, 1):
                index.append({"page": rel, "module": os.path.relpath(target, out), "cell": k, **c})
    with open(os.path.join(out, "cells.json"), "w") as f:
        json.dump(index, f, indent=1)
    return index


def check(out: str, index: list[dict], select: str | None, preview: bool) -> int:
    cmd = ["jaxlint", "--no-cache", "--exit-zero", "--output-format", "json", out]
    if select:
        cmd[1:1] = ["--select", select]
    if preview:
        cmd.insert(1, "--preview")
    found = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout or "[]")
    by_module: dict[str, list[dict]] = {}
    for c in index:
        by_module.setdefault(c["module"], []).append(c)
    raising, working = [], []
    for d in found:
        module = os.path.relpath(d["filename"], out)
        line = d["location"]["row"]
        cell = next((c for c in by_module.get(module, []) if c["start"] <= line <= c["end"]), None)
        where = f"{cell['page'] if cell else module}:{line} (cell {cell['cell'] if cell else '?'}) {d['code']} {d['message'][:100]}"
        (raising if cell and "raises-exception" in cell["tags"] else working).append(where)
    n_raising = sum("raises-exception" in c["tags"] for c in index)
    print(f"{len(index)} code cells in {len(by_module)} pages; {n_raising} tagged raises-exception")
    print(f"findings in raises-exception cells: {len(raising)}")
    for w in raising:
        print("  ", w)
    print(f"findings in working cells: {len(working)}")
    for w in working:
        print("  ", w)
    return 1 if working else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("docs")
    p.add_argument("out")
    p.add_argument("--check", action="store_true")
    p.add_argument("--select")
    p.add_argument("--preview", action="store_true")
    a = p.parse_args()
    index = convert(a.docs, a.out)
    return check(a.out, index, a.select, a.preview) if a.check else 0


if __name__ == "__main__":
    sys.exit(main())
