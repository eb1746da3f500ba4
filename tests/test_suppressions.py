"""Suppression comments are read from real comment tokens only, never from strings."""

import json
import textwrap

from conftest import run_cli

from jaxlint.lint.suppress import scan_suppressions
from jaxlint.testing import fix, lint


def _codes(diags):
    return [(d.code, d.start.line) for d in diags]


def test_a_docstring_line_does_not_suppress_the_file():
    src = textwrap.dedent('''\
        """Helpers.

        # jaxlint: noqa
        """
        import jax
        x = jax.tree_map(f, t)
    ''')
    assert _codes(lint(src, "JAX801", "JAX002")) == [("JAX801", 6)]


def test_a_string_with_noqa_hides_nothing_on_its_line():
    src = 'import jax\nx = jax.tree_map(f, "# noqa: JAX801")\n'
    assert _codes(lint(src, "JAX801", "JAX002")) == [("JAX801", 2)]


def test_jax002_never_edits_a_string():
    src = 'import jax\ns = "x = 1  # noqa: JAX802"\nt = """\n# jaxlint: ignore[JAX801]\n"""\n'
    assert lint(src, "JAX801", "JAX802", "JAX002") == []
    assert fix(src, "JAX801", "JAX802", "JAX002") == src


def test_a_lone_carriage_return_ends_a_line_for_comments_as_for_the_parsers():
    """Python and LibCST end a line at a lone ``\\r``; the comments are read on the same
    lines (a fuzzed file made the unused-suppression fix an IndexError and every later
    noqa a line early)."""
    src = "import jax\nx = 1\ry = 2\nt = jax.tree_map(f, t)  # noqa: JAX801\nu = 1  # noqa: JAX802\n"
    assert _codes(lint(src, "JAX801", "JAX802", "JAX002")) == [("JAX002", 5)]
    assert fix(src, "JAX801", "JAX802", "JAX002") == src.replace("  # noqa: JAX802", "")


def test_the_comments_of_a_cr_only_file_are_on_the_lines_python_counts():
    # found by fuzzing: the tokenizer was given lines split at \n only, so each comment of a
    # CR-only file was on line 1, and the fix of an unused one indexed past that line: an
    # internal error for the run
    src = "import jax\rx = jax.tree_map(f, t)  # noqa: JAX801\ry = 1  # noqa: JAX101\r"
    diags = lint(src, "JAX801", "JAX101", "JAX002")
    assert [(d.code, d.start.line, d.start.column) for d in diags] == [("JAX002", 3, 8)]
    assert fix(src, "JAX801", "JAX101", "JAX002") == "import jax\rx = jax.tree_map(f, t)  # noqa: JAX801\ry = 1\r"


def test_a_noqa_after_another_comment_still_counts():
    src = "import jax\nx = jax.tree_map(f, t)  # legacy code # noqa: JAX801\n"
    assert lint(src, "JAX801", "JAX002") == []


def test_a_comment_inside_a_bracketed_call_counts_and_a_string_beside_it_does_not():
    src = 'import jax\nx = jax.tree_map(  # noqa: JAX801\n    f, "# noqa: JAX802",\n)\n'
    assert lint(src, "JAX801", "JAX002") == []


def test_scan_reads_comment_tokens_of_a_file_that_does_not_tokenize_to_the_end():
    supp = scan_suppressions("x = 1  # noqa: JAX801\ny = (\n")
    assert [(c.line, c.kind, sorted(c.codes)) for c in supp.comments] == [(1, "noqa", ["JAX801"])]


def test_notebook_cell_strings_do_not_suppress(tmp_path):
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": src}
        for src in ('"""\n# jaxlint: noqa\n"""\nimport jax', 'x = jax.tree_map(f, "# noqa: JAX801")')
    ]
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
    p = tmp_path / "n.ipynb"
    p.write_text(json.dumps(nb))
    code, out, _ = run_cli("--no-cache", "--output-format", "concise", "--select", "JAX801,JAX002", str(p))
    assert code == 1
    assert out.startswith(f"{p}:cell 2:1:5: JAX801 ")


def test_malformed_directives_are_warnings_naming_file_and_line(tmp_path):
    src = textwrap.dedent("""\
        import jax
        a = jax.tree_map(f, x)  # noqa:
        b = jax.tree_map(f, x)  # noqa: removed-api
        c = jax.tree_map(f, x)  # noqa: JAX801 because the old API is needed
        # jaxlint: ignore[]
        d = 1
        # jaxlint: noqa: nothing here
    """)
    p = tmp_path / "m.py"
    p.write_text(src)
    code, out, err = run_cli("--no-cache", "--output-format", "concise", "--select", "JAX801,JAX002", str(p))
    assert code == 1
    assert [line.split(":")[1] for line in out.splitlines()] == ["2", "3"]  # line 4 is still suppressed
    assert [line for line in err.splitlines() if "warning" in line] == [
        f"jaxlint: warning: Invalid `# noqa` directive at {p}:2: expected a comma-separated list of codes"
        " (e.g., `# noqa: JAX801, JAX802`); it suppresses nothing",
        f"jaxlint: warning: Invalid `# noqa` directive at {p}:3: `removed-api` is a rule name, not a code"
        " (write `# noqa: JAX801`); it suppresses nothing",
        f"jaxlint: warning: Invalid `# noqa` directive at {p}:4: unexpected text after the codes (`because`);"
        " write a reason after a second `#` (`# noqa: JAX801  # because ...`)",
        f"jaxlint: warning: Invalid `# jaxlint: ignore` directive at {p}:5: expected a comma-separated list of codes"
        " (e.g., `# jaxlint: ignore[JAX801, JAX802]`); it suppresses nothing",
        f"jaxlint: warning: Invalid `# jaxlint: noqa` directive at {p}:7: expected a comma-separated list of codes"
        " (e.g., `# jaxlint: noqa: JAX801, JAX802`); it suppresses nothing",
    ]


def test_codes_of_other_tools_are_not_malformed(tmp_path):
    p = tmp_path / "o.py"
    p.write_text("import jax\nx = jax.tree.map(f, t)  # noqa: E501, F401\ny = 1  # noqa\nz = 2  # NOQA:E731\n")
    code, out, err = run_cli("--no-cache", "--output-format", "concise", str(p))
    assert (code, out) == (0, "")
    assert "warning" not in err


def test_a_missing_colon_a_misplaced_file_directive_and_an_unknown_directive_are_warnings():
    from jaxlint.lint.suppress import malformed_message

    supp = scan_suppressions("x = 1  # noqa JAX801\ny = 2  # jaxlint: noqa\n# jaxlint: disable=JAX801\n")
    assert [(c.line, c.codes) for c in supp.comments] == [(1, None)]  # a bare noqa, as flake8 reads it
    assert [malformed_message(m, f"f.py:{m.line}", {}) for m in supp.malformed] == [
        "Invalid `# noqa` directive at f.py:1: expected `:` before the codes (`# noqa: JAX801`);"
        " as written it suppresses every code",
        "Invalid `# jaxlint: noqa` directive at f.py:2: it must be on its own line to suppress the whole file;"
        " it suppresses nothing",
        "Unknown `# jaxlint: disable` directive at f.py:3: expected `# jaxlint: noqa` or"
        " `# jaxlint: ignore[CODES]`; it suppresses nothing",
    ]


def test_warnings_survive_the_whole_run_cache(tmp_path):
    p = tmp_path / "w.py"
    p.write_text("import jax\nx = jax.tree.map(f, t)  # noqa:\n")
    for _ in range(2):
        code, _, err = run_cli("--output-format", "concise", str(p), cwd=str(tmp_path))
        assert code == 0
        assert f"jaxlint: warning: Invalid `# noqa` directive at {p}:2: expected" in err


def test_an_unused_noqa_after_a_lone_carriage_return_is_reported_with_a_fix_in_its_place(tmp_path):
    # a lone \r ends a line for the parsers and the comments alike (found by test_fuzz: the
    # comment's column lay past the end of the line the fix would edit)
    (tmp_path / "m.py").write_bytes(b"x = 1\rimport jax\nu = jax.tree_util.tree_map(f, t)  # noqa: JAX101\n")
    code, out, err = run_cli("--no-cache", "--output-format", "json", "m.py", cwd=str(tmp_path))
    assert (code, err) == (1, "")
    found = [d for d in json.loads(out) if d["code"] == "JAX002"]
    assert [(d["location"]["row"], d["location"]["column"]) for d in found] == [(3, 35)]
    run_cli("--no-cache", "--fix", "m.py", cwd=str(tmp_path))
    assert (tmp_path / "m.py").read_bytes() == b"x = 1\rimport jax\nu = jax.tree_util.tree_map(f, t)\n"
