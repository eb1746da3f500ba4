"""Jupyter notebooks: code cells linted as one module, positions in cells, fixes in place.

Notebooks are written with ``nbformat`` (the test extra), as Jupyter writes them; jaxlint
itself reads them with the stdlib.
"""

from __future__ import annotations

import json
import os

import nbformat
import pytest
from conftest import run_cli
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from test_output_formats import _validate
from test_output_formats import sarif_schema as sarif_schema  # a fixture: pytest finds it by this name

from jaxlint import api
from jaxlint.cache.store import Cache
from jaxlint.files.magics import cell_code
from jaxlint.files.notebook import parse
from jaxlint.lint.config import Settings
from jaxlint.report import render

PMEAN_CELL = (
    "def train_step(params, grads, lr=0.1):\n"
    "    grads = jax.lax.pmean(grads, axis_name='devices')\n"
    "    params = jax.tree_map(lambda p, g: p - lr * g, params, grads)\n"
    "    return params"
)
TREE_MAP = "`jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`"


def code(source: str, n: int, **kw):
    return new_code_cell(source, id=f"code-{n}", execution_count=n, **kw)


def text(source: str, n: int):
    return new_markdown_cell(source, id=f"text-{n}")


def notebook_json(cells, **metadata) -> str:
    meta = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    meta.update(metadata)
    return nbformat.writes(new_notebook(cells=cells, metadata=meta))


def seed_notebook(axis: str) -> str:
    """The seed chapter's training loop split like a tutorial: the def in cell 3, the pmap in cell 5."""
    return notebook_json(
        [
            text("# Data-parallel training", 1),
            code("import jax\nimport jax.numpy as jnp", 2),
            code(PMEAN_CELL, 3),
            text("Now map it over the devices.", 4),
            code(
                "%time n = jax.local_device_count()\n"
                f"p_train_step = jax.pmap(train_step, axis_name='{axis}')\n"
                "params = p_train_step(params, grads)",
                5,
                outputs=[new_output("stream", name="stdout", text="CPU times: user 1 ms\n")],
            ),
        ]
    )


def write(tmp_path, name: str, content: str):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(content, encoding="utf-8")
    return p


def concise(*args: str, cwd=None, stdin=None) -> tuple[int, str, str]:
    return run_cli("--no-cache", "--output-format", "concise", *args, cwd=cwd, stdin=stdin)


# -- cells as one module ---------------------------------------------------------------
def test_seed_bug_in_one_cell_and_pmap_in_another_is_flagged_at_the_cell_and_line(tmp_path):
    write(tmp_path, "demo.ipynb", seed_notebook(axis="batch"))
    write(tmp_path, "ok.ipynb", seed_notebook(axis="devices"))
    code_, out, err = concise(str(tmp_path), cwd=tmp_path)
    assert code_ == 1, err
    assert out.splitlines() == [
        f"{tmp_path}/demo.ipynb:cell 3:2:13: JAX201 `jax.lax.pmean` uses axis name 'devices', but the pmap at cell 5, "
        "line 2 binds 'batch', not 'devices'",
        f"{tmp_path}/demo.ipynb:cell 3:3:14: JAX801 [*] {TREE_MAP}",
        # the pmap in cell 5 binds 'devices': the def in cell 3 resolves across cells
        f"{tmp_path}/ok.ipynb:cell 3:3:14: JAX801 [*] {TREE_MAP}",
    ]


def test_a_collective_called_directly_in_a_later_cell_names_that_cell():
    nb = notebook_json([code("import jax", 1), code(PMEAN_CELL, 2), code("params = train_step(params, grads)", 3)])
    [d] = api.lint_source(nb, "loop.ipynb", Settings(select=["JAX201"]))
    assert (d.cell, d.start.line, d.start.column, d.end.line, d.end.column) == (2, 2, 13, 2, 54)
    assert d.message.endswith("`train_step` is called directly at cell 3, line 1")


def test_magics_do_not_shift_positions():
    nb = notebook_json(
        [
            code("!pip install -q jax\n%matplotlib inline\nimport jax\njax.vmap?\nfiles = !ls\npip install optax", 1),
            code("%%capture\nfor i in range(2):\n    !echo {i}\n    y = jax.tree_map(f, x)\ns = '''\n%d items\n'''", 2),
            code("%%bash\necho jax.tree_map", 3),
            code("%timeit -n 1 \\\n   f(x)\nz = jax.tree_map(f, x)", 4),
        ]
    )
    diags = api.lint_source(nb, "magic.ipynb", Settings(select=["JAX001", "JAX801"]))
    assert [(d.code, d.cell, d.start.line, d.start.column) for d in diags] == [
        ("JAX801", 2, 4, 9),
        ("JAX801", 4, 3, 5),
    ]


def test_masked_lines_keep_the_line_count_and_blocks():
    c = cell_code(
        "%%time\nfor i in range(3):\n    %time f(i)\n    !echo \\\n      more\nx = a ? b\ns = '''\n!not a shell escape\n'''\n"
    )
    assert c.text == "\nfor i in range(3):\n    pass\n    pass\n\nx = a ? b\ns = '''\n!not a shell escape\n'''\n"
    assert c.masked == frozenset({1, 3, 4, 5}) and not c.opaque
    opaque = cell_code("%%writefile train.py\nimport jax\n")
    assert (opaque.text, opaque.opaque) == ("\n\n", True)
    # `time = 3` is Python, `time f(x)` is an automagic
    assert cell_code("time = 3\ntime f(x)\n").text == "time = 3\n\n"
    # an automagic word that starts a multi-line assignment or call is Python (brax's notebooks)
    src = "env = envs.get_environment(env_name=env_name,\n                           backend=backend)\nenv , x = 1, 2\nrun (f,\n  x)\n"
    assert cell_code(src).text == src and not cell_code(src).masked


def test_a_cell_with_an_indented_first_line_runs_dedented_as_ipython_runs_it():
    # IPython strips the first line's indentation from every line that starts with it
    c = cell_code('\n  def f(x):\n      return jax.tree_map(g, x)\n s = """\nkept\n"""\n')
    assert c.text == '\ndef f(x):\n    return jax.tree_map(g, x)\n s = """\nkept\n"""\n'
    assert (c.indent, c.dedented) == ("  ", frozenset({2, 3}))
    nb = notebook_json([code("import jax", 1), code(" def f(x):\n     return jax.tree_map(g, x)\n y = f(1)", 2)])
    diags = api.lint_source(nb, "indented.ipynb", Settings(select=["JAX001", "JAX801"]))
    # reported at the cell's own column (the dedented virtual module has it at 12)
    assert [(d.code, d.cell, d.start.line, d.start.column, d.end.column) for d in diags] == [("JAX801", 2, 2, 13, 25)]


def test_a_fix_in_a_dedented_cell_keeps_its_indentation():
    from jaxlint.base.types import Edit, Fix
    from jaxlint.base.types import Position as P
    from jaxlint.fix.notebook import apply_fixes

    nb = notebook_json([code("import jax", 1), code("  y = jax.tree_map(g, x)\n  z = 1", 2)])
    [d] = api.lint_source(nb, "indented.ipynb", Settings(select=["JAX801"]))
    assert (d.cell, d.start.line, d.start.column) == (2, 1, 7)
    new, applied = apply_fixes(
        nb,
        [
            Fix("f", (Edit(P(2, 5), P(2, 17), "jax.tree.map"),)),
            Fix("g", (Edit(P(3, 1), P(3, 1), "if x:\n    w = 2\n"),)),
        ],
    )
    assert len(applied) == 2
    # every new line carries the cell's indentation, so IPython dedents it to the fixed code
    assert [c.source for c in parse(new).cells] == [
        "import jax",
        "  y = jax.tree.map(g, x)\n  if x:\n      w = 2\n  z = 1",
    ]
    assert parse(new).python == "import jax\ny = jax.tree.map(g, x)\nif x:\n    w = 2\nz = 1\n"


def test_cells_are_numbered_over_all_cells_and_other_languages_are_skipped():
    nb = parse(notebook_json([text("# t", 1), code("a = 1", 2), code("b = 2\n", 3), text("x", 4), code("c = 3", 5)]))
    assert [(c.number, c.first, c.line_count) for c in nb.cells] == [(2, 1, 1), (3, 2, 1), (5, 3, 1)]
    assert nb.python == "a = 1\nb = 2\nc = 3\n"
    r = notebook_json([code("x = jax.tree_map(f, x)", 1)], language_info={"name": "R"})
    assert parse(r).cells == []
    vscode = new_code_cell("SELECT jax.tree_map", id="sql", metadata={"vscode": {"languageId": "sql"}})
    assert parse(notebook_json([vscode])).cells == []


# -- bad notebooks ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "content, expected",
    [
        (
            '{"cells": [\n  {"cell_type": "code",, }\n]}',
            ":2:24: JAX001 The notebook could not be parsed: invalid JSON: Expecting property name enclosed in double quotes",
        ),
        (
            '{"nbformat": 3, "nbformat_minor": 0, "worksheets": []}',
            ":1:1: JAX001 The notebook could not be parsed: nbformat 3 is not supported (only nbformat 4; `jupyter nbconvert --to notebook` upgrades it)",
        ),
        ("[1, 2]", ":1:1: JAX001 The notebook could not be parsed: not a notebook: the JSON value is not an object"),
    ],
)
def test_an_invalid_notebook_is_one_diagnostic(tmp_path, content, expected):
    p = write(tmp_path, "bad.ipynb", content)
    write(tmp_path, "good.py", "import jax\nx = jax.tree_map(f, x)\n")
    code_, out, err = concise("--select", "JAX801", str(tmp_path))
    assert code_ == 1 and "Traceback" not in err
    assert out.splitlines() == [f"{p}{expected}", f"{tmp_path}/good.py:2:5: JAX801 [*] {TREE_MAP}"]


def test_a_syntax_error_in_a_cell_is_reported_in_that_cell():
    nb = notebook_json([code("import jax", 1), code("def f(x)\n    return jax.grad(x)", 2)])
    [d] = api.lint_source(nb, "broken.ipynb", Settings())
    assert (d.code, d.cell, d.start.line, d.start.column) == ("JAX001", 2, 1, 9)


# -- discovery -------------------------------------------------------------------------
def test_notebooks_are_discovered_and_extend_exclude_applies(tmp_path):
    bad = seed_notebook(axis="devices")
    write(tmp_path, "pyproject.toml", '[tool.jaxlint]\nextend-exclude = ["drafts/"]\n')
    write(tmp_path, "a.ipynb", bad)
    write(tmp_path, "drafts/b.ipynb", bad)
    write(tmp_path, ".ipynb_checkpoints/a-checkpoint.ipynb", bad)
    write(tmp_path, "c.py", "import jax\nx = jax.tree_map(f, x)\n")
    code_, out, _ = concise("--select", "JAX801", ".", cwd=tmp_path)
    assert code_ == 1
    assert [line.split(": JAX801")[0] for line in out.splitlines()] == ["a.ipynb:cell 3:3:14", "c.py:2:5"]


# -- suppressions ----------------------------------------------------------------------
def test_suppressions_work_per_cell_line():
    nb = notebook_json(
        [
            code("import jax", 1),
            code("x = jax.tree_map(f, x)  # noqa: JAX801\ny = jax.tree_map(f, y)", 2),
            code("# jaxlint: ignore[JAX801]\nz = jax.tree_map(\n    f, z)\nw = 1  # noqa: JAX801", 3),
        ]
    )
    diags = api.lint_source(nb, "s.ipynb", Settings(select=["JAX801", "JAX002"]))
    assert [(d.code, d.cell, d.start.line, d.start.column) for d in diags] == [("JAX801", 2, 2, 5), ("JAX002", 3, 4, 8)]
    unused = diags[1]
    assert [(e.cell, e.start.line, e.start.column, e.end.line, e.end.column) for e in unused.fix.edits] == [
        (3, 4, 6, 4, 22)
    ]


def test_a_file_level_suppression_in_the_first_code_cell_covers_every_cell():
    nb = notebook_json(
        [text("# t", 1), code("# jaxlint: noqa: JAX801\nimport jax", 2), code("x = jax.tree_map(f, x)", 3)]
    )
    assert api.lint_source(nb, "f.ipynb", Settings(select=["JAX801", "JAX002"])) == []


def test_fix_removes_an_unused_suppression_from_its_cell(tmp_path):
    p = write(tmp_path, "u.ipynb", notebook_json([code("import jax\nx = 1  # noqa: JAX801", 1), code("y = 2", 2)]))
    code_, _out, _ = run_cli("--no-cache", "--fix", "--select", "JAX002,JAX801", str(p))
    assert code_ == 0
    data = json.loads(p.read_text())
    assert [c["source"] for c in data["cells"]] == [["import jax\n", "x = 1"], ["y = 2"]]


# -- fixes -----------------------------------------------------------------------------
def rich_notebook() -> str:
    """A notebook as a run leaves it: outputs, images, execution counts, metadata."""
    return notebook_json(
        [
            text("# Fit\nSome *markdown* with `jax.tree_map` in it.", 1),
            code(
                "import jax\nimport jax.numpy as jnp\nparams = {'w': jnp.ones(3)}",
                2,
                outputs=[
                    new_output(
                        "execute_result", data={"text/plain": "Array([1., 1., 1.], dtype=float32)"}, execution_count=2
                    )
                ],
                metadata={"collapsed": False, "tags": ["setup"]},
            ),
            code(
                "%%time\nparams = jax.tree_map(lambda p: 0.9 * p, params)\nparams",
                3,
                outputs=[
                    new_output("stream", name="stdout", text="CPU times: user 3 ms\nWall time: 3 ms\n"),
                    new_output(
                        "display_data",
                        data={
                            "image/png": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
                            "text/plain": "<Figure size 640x480 with 1 Axes>",
                        },
                    ),
                ],
            ),
            code(
                "leaves = jax.tree_leaves(params)  # 数据",
                4,
                outputs=[
                    new_output(
                        "error",
                        ename="AttributeError",
                        evalue="module 'jax' has no attribute 'tree_leaves'",
                        traceback=[],
                    )
                ],
            ),
        ],
        language_info={"name": "python", "version": "3.11.4"},
    )


def test_fix_changes_only_the_fixed_cells_sources_and_the_notebook_stays_valid(tmp_path):
    before = rich_notebook()
    p = write(tmp_path, "fit.ipynb", before)
    code_, out, err = run_cli("--no-cache", "--fix", "--output-format", "concise", "--select", "JAX801", str(p))
    assert (code_, out) == (0, ""), err
    after = p.read_text(encoding="utf-8")
    # only the two source lines changed, byte for byte; the rest of the file is as it was
    changed = [(a, b) for a, b in zip(before.splitlines(True), after.splitlines(True), strict=False) if a != b]
    assert changed == [
        (
            '    "params = jax.tree_map(lambda p: 0.9 * p, params)\\n",\n',
            '    "params = jax.tree.map(lambda p: 0.9 * p, params)\\n",\n',
        ),
        ('    "leaves = jax.tree_leaves(params)  # 数据"\n', '    "leaves = jax.tree.leaves(params)  # 数据"\n'),
    ]
    assert len(before.splitlines()) == len(after.splitlines()) and after[-2:] == before[-2:]
    nb = nbformat.reads(after, as_version=nbformat.NO_CONVERT)
    nbformat.validate(nb)
    old = nbformat.reads(before, as_version=nbformat.NO_CONVERT)
    for c_old, c_new in zip(old.cells, nb.cells, strict=False):
        assert {k: v for k, v in c_old.items() if k != "source"} == {k: v for k, v in c_new.items() if k != "source"}
    assert [c.source for c in nb.cells][2:] == [
        "%%time\nparams = jax.tree.map(lambda p: 0.9 * p, params)\nparams",
        "leaves = jax.tree.leaves(params)  # 数据",
    ]
    assert nb.metadata == old.metadata


def test_fix_keeps_a_string_source_an_unusual_indent_and_no_final_newline(tmp_path):
    data = json.loads(rich_notebook())
    for cell in data["cells"]:
        cell["source"] = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    before = json.dumps(data, indent=4, ensure_ascii=True)  # no final newline, \u escapes
    p = write(tmp_path, "fit.ipynb", before)
    code_, _, err = run_cli("--no-cache", "--fix", "--select", "JAX801", str(p))
    assert code_ == 0, err
    after = p.read_text(encoding="utf-8")
    expected = before.replace("jax.tree_map(lambda", "jax.tree.map(lambda").replace(
        "jax.tree_leaves(params)  # \\u6570", "jax.tree.leaves(params)  # \\u6570"
    )
    assert after == expected and after != before
    nbformat.validate(nbformat.reads(after, as_version=nbformat.NO_CONVERT))


def test_diff_shows_cells_and_writes_nothing(tmp_path):
    before = rich_notebook()
    p = write(tmp_path, "fit.ipynb", before)
    code_, out, err = run_cli("--no-cache", "--diff", "--select", "JAX801", str(p))
    assert code_ == 1
    assert out == (
        f"--- a/{p}:cell 3\n+++ b/{p}:cell 3\n@@ -1,3 +1,3 @@\n %%time\n"
        "-params = jax.tree_map(lambda p: 0.9 * p, params)\n+params = jax.tree.map(lambda p: 0.9 * p, params)\n params\n"
        f"--- a/{p}:cell 4\n+++ b/{p}:cell 4\n@@ -1 +1 @@\n"
        "-leaves = jax.tree_leaves(params)  # 数据\n+leaves = jax.tree.leaves(params)  # 数据\n"
    )
    assert "Would fix 2 problems in 1 file." in err
    assert p.read_text(encoding="utf-8") == before


def test_fixes_never_touch_ipython_lines_or_cross_cells():
    from jaxlint.base.types import Edit, Fix
    from jaxlint.base.types import Position as P
    from jaxlint.fix.notebook import apply_fixes

    nb = notebook_json([code("%%time\nx = 1", 1), code("%matplotlib inline\ny = 2", 2)])

    # virtual lines: 1 `%%time` (masked), 2 `x = 1`, 3 `%matplotlib` (masked), 4 `y = 2`
    def fixed(*edits):
        new, applied = apply_fixes(nb, [Fix("f", tuple(edits))])
        return [c.source for c in parse(new).cells] if applied else None

    assert fixed(Edit(P(1, 1), P(1, 1), "import jax\n")) is None  # above a cell magic
    assert fixed(Edit(P(1, 3), P(1, 7), "")) is None  # inside a magic
    assert fixed(Edit(P(2, 1), P(4, 1), "")) is None  # across two cells
    assert fixed(Edit(P(3, 1), P(3, 1), "import jax\n")) == ["%%time\nx = 1", "import jax\n%matplotlib inline\ny = 2"]
    assert fixed(Edit(P(2, 5), P(2, 6), "2"), Edit(P(4, 5), P(4, 6), "3")) == [
        "%%time\nx = 2",
        "%matplotlib inline\ny = 3",
    ]
    assert fixed(Edit(P(5, 1), P(5, 1), "z = 4\n")) == ["%%time\nx = 1", "%matplotlib inline\ny = 2\nz = 4"]


def test_stdin_notebook():
    code_, out, _ = concise(
        "--select", "JAX801", "-", "--stdin-filename", "nb/demo.ipynb", stdin=seed_notebook("devices")
    )
    assert code_ == 1
    assert out == f"nb/demo.ipynb:cell 3:3:14: JAX801 [*] {TREE_MAP}\n"
    code_, out, _ = run_cli(
        "--no-cache",
        "--fix",
        "--select",
        "JAX801",
        "-",
        "--stdin-filename",
        "demo.ipynb",
        stdin=seed_notebook("devices"),
    )
    assert code_ == 0 and out == seed_notebook("devices").replace("jax.tree_map(", "jax.tree.map(")


# -- every output format ---------------------------------------------------------------
@pytest.fixture(scope="module")
def formats(tmp_path_factory):
    root = tmp_path_factory.mktemp("formats")
    (root / "demo.ipynb").write_text(seed_notebook(axis="batch"), encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(root)
    try:
        run = api.lint_paths(["demo.ipynb"], Settings(root=str(root)), jobs=1)
        lines = lambda path, cell=None: api._lines(path) if cell is None else api.cell_lines(path, cell)  # noqa: E731
        yield {
            fmt: render(fmt, run.diagnostics, source=lines, width=100)
            for fmt in ("concise", "full", "json", "github", "sarif")
        }
    finally:
        os.chdir(cwd)


def test_concise_and_full_name_the_cell_and_show_its_own_lines(formats):
    assert formats["concise"].splitlines()[1] == f"demo.ipynb:cell 3:3:14: JAX801 [*] {TREE_MAP}"
    full = formats["full"].split("\n\n")
    assert full[1].splitlines()[:5] == [
        f"demo.ipynb:cell 3:3:14: JAX801 [*] {TREE_MAP}",
        "2 |     grads = jax.lax.pmean(grads, axis_name='devices')",
        "3 |     params = jax.tree_map(lambda p, g: p - lr * g, params, grads)",
        "  |              ^^^^^^^^^^^^ JAX801",
        "4 |     return params",
    ]


def test_json_has_a_cell_field_and_rows_in_the_cell(formats):
    tree_map = json.loads(formats["json"])[1]
    assert tree_map["cell"] == 3
    assert (tree_map["location"], tree_map["end_location"]) == ({"row": 3, "column": 14}, {"row": 3, "column": 26})
    [edit] = tree_map["fix"]["edits"]
    assert edit == {
        "content": "jax.tree.map",
        "location": {"row": 3, "column": 14},
        "end_location": {"row": 3, "column": 26},
        "cell": 3,
    }


def test_github_and_sarif_point_at_the_json_line_of_the_source_line(formats):
    lines = seed_notebook(axis="batch").splitlines()
    row = next(i for i, line in enumerate(lines, 1) if "jax.tree_map" in line)
    col = lines[row - 1].index("jax.tree_map") + 1
    gh = formats["github"].splitlines()[1]
    assert gh.startswith(
        f"::error title=jaxlint (JAX801) cell 3%3A3%3A14,file=demo.ipynb,line={row},col={col},endLine={row},endColumn={col + 12}::JAX801 "
    )
    result = json.loads(formats["sarif"])["runs"][0]["results"][1]
    assert result["locations"][0]["physicalLocation"]["region"] == {
        "startLine": row,
        "startColumn": col,
        "endLine": row,
        "endColumn": col + 12,
    }
    assert result["properties"] == {
        "cell": 3,
        "cellRegion": {"startLine": 3, "startColumn": 14, "endLine": 3, "endColumn": 26},
    }
    assert result["message"]["text"].endswith("(cell 3, line 3, column 14)") and "fixes" not in result


def test_sarif_for_notebooks_is_valid(formats, sarif_schema):
    _validate(json.loads(formats["sarif"]), sarif_schema)


# -- cache -----------------------------------------------------------------------------
def test_cache_on_and_off_give_the_same_findings(tmp_path):
    write(tmp_path, "demo.ipynb", seed_notebook(axis="batch"))
    write(tmp_path, "lib.py", "import jax\ndef g(x):\n    return jax.lax.psum(x, 'i')\n")
    write(
        tmp_path,
        "use.ipynb",
        notebook_json([code("import jax\nfrom lib import g", 1), code("jax.pmap(g, axis_name='j')(x)", 2)]),
    )
    settings = Settings(root=str(tmp_path))
    paths = [str(tmp_path)]
    off = api.lint_paths(paths, settings, jobs=1).diagnostics
    cold = api.lint_paths(paths, settings, jobs=1, cache=Cache.for_settings(settings)).diagnostics
    warm = api.lint_paths(paths, settings, jobs=1, cache=Cache.for_settings(settings)).diagnostics
    assert off == cold == warm
    assert [(os.path.basename(d.path), d.code, d.cell, d.start.line) for d in off] == [
        ("demo.ipynb", "JAX201", 3, 2),
        ("demo.ipynb", "JAX801", 3, 3),
        ("lib.py", "JAX201", None, 3),
    ]
    assert "the pmap at use.ipynb:cell 2:1 binds 'j'" in off[2].message


def test_slicing_on_and_off_give_the_same_findings(tmp_path, monkeypatch):
    write(tmp_path, "demo.ipynb", seed_notebook(axis="batch"))
    settings = Settings(root=str(tmp_path))
    sliced = api.lint_paths([str(tmp_path)], settings, jobs=1).diagnostics
    monkeypatch.setenv("JAXLINT_NO_SLICING", "1")
    assert api.lint_paths([str(tmp_path)], settings, jobs=1).diagnostics == sliced and len(sliced) == 2


def test_a_fix_may_edit_two_cells_when_each_edit_stays_in_one():
    # the rename is in cell 4; the import it needs goes to the top of the module: cell 2, after the magic
    nb = notebook_json(
        [
            text("# t", 1),
            code("%matplotlib inline\nimport numpy as np", 2),
            code("import jax", 3),
            code("%%time\nopt = jax.experimental.optimizers.adam(0.1)", 4),
        ]
    )
    new, count, remaining, gave_up = api.fix_source(nb, "opt.ipynb", Settings(select=["JAX801"]), unsafe=False)
    assert (count, remaining, gave_up) == (1, [], False)
    assert [c.source for c in nbformat.reads(new, as_version=4).cells] == [
        "# t",
        "%matplotlib inline\nimport jax.example_libraries.optimizers\nimport numpy as np",
        "import jax",
        "%%time\nopt = jax.example_libraries.optimizers.adam(0.1)",
    ]


def test_json_positions_follow_the_decoded_strings():
    # a writer may split a source into strings anywhere, and escape what it likes
    raw = (
        '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,\n'
        '  "source": ["x = 1\\ny = \\"\\u00e9\\"; ", "z = jax.tree_map(f)\\n"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    )
    nb = parse(raw)
    [cell] = nb.cells
    assert cell.source == 'x = 1\ny = "é"; z = jax.tree_map(f)\n'
    p = nb.file_position(cell, 2, 14)  # the `j` of `jax` on the cell's line 2
    assert raw.splitlines()[p.line - 1][p.column - 1 :].startswith("jax.tree_map")
    p = nb.file_position(cell, 2, 6)  # the `é`, written as \u00e9
    assert raw.splitlines()[p.line - 1][p.column - 1 :].startswith("\\u00e9")


def test_a_cell_tagged_raises_exception_is_expected_to_raise():
    # Jupyter's ``raises-exception`` tag (nbval, Jupyter Book): the error is the point of the
    # cell, as inside ``with pytest.raises``; the same code in an untagged cell is reported
    setitem = "x = jnp.arange(10)\nx[0] = 10"
    vmap = "jax.vmap(lambda a, b: a + b)(jnp.ones((4, 3)), jnp.ones((5, 3)))"
    cells = [
        code("import jax\nimport jax.numpy as jnp", 1),
        code(setitem, 2, metadata={"tags": ["raises-exception"]}),
        code(vmap, 3, metadata={"tags": ["raises-exception", "hide-output"]}),
        code(setitem, 4),
        code(vmap, 5),
    ]
    found = api.lint_source(notebook_json(cells), "gotchas.ipynb", Settings(select=["JAX501", "JAX105"], preview=True))
    assert [(d.code, d.cell, d.start.line) for d in found] == [("JAX501", 4, 2), ("JAX105", 5, 1)]
