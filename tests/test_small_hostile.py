"""The smaller defects of issue 31, one test each.

Before: a notebook cell holding a lone surrogate escape (``"\\ud800"``, valid JSON) was an
internal error for the whole run; a fix in a file whose lines end with CR alone inserted a
line ending with LF.
"""

import json

from conftest import run_cli

JAX801 = "JAX801 [*] `jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`"


def notebook(*sources: str) -> str:
    cells = [
        {"cell_type": "code", "source": s, "metadata": {}, "outputs": [], "execution_count": None} for s in sources
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def test_a_lone_surrogate_in_a_notebook_cell_is_linted_and_fixed_around(tmp_path):
    p = tmp_path / "sur.ipynb"
    p.write_text(notebook('import jax\ns = "\ud800"\ny = jax.tree_map(f, x)\n'))  # json.dumps writes \ud800
    assert "\\ud800" in p.read_text()
    code, out, err = run_cli("--no-cache", "--output-format", "concise", str(p))
    assert (code, out) == (1, f"{p}:cell 1:3:5: {JAX801}\n"), err
    code, _, err = run_cli("--no-cache", "--fix", str(p))
    assert code == 0, err
    fixed = p.read_text()
    assert "\\ud800" in fixed  # the escape is kept, the file stays valid JSON
    assert json.loads(fixed)["cells"][0]["source"] == 'import jax\ns = "\ud800"\ny = jax.tree.map(f, x)\n'


def test_a_fix_in_a_cr_only_file_keeps_its_line_endings(tmp_path):
    p = tmp_path / "cr.py"
    p.write_bytes(b"from jax import tree_map, numpy as jnp\rx = tree_map(f, y)\r")
    code, _, err = run_cli("--no-cache", "--fix", "--quiet", str(p))
    assert code == 0, err
    assert p.read_bytes() == b"from jax import numpy as jnp\rfrom jax.tree_util import tree_map\rx = tree_map(f, y)\r"
