"""Valid code the parsers cannot afford (issue 31): huge literals, long implicit string
concatenations, long operator chains, brackets in strings.

Before: a 10 MB one-line list took over 300 s at about 2 KB of memory per byte; 400
concatenated string literals cost the whole file ("nested too deeply", JAX003), 5,000 on
one line gave a false JAX001; 600 ``(`` inside a string were a false JAX001; 10,000 ``and``
on one line crashed the process (a one-file run ended with a segmentation fault).
"""

import ast
import os
import resource
import subprocess
import sys

import pytest
from scaling import LINEAR, growth

from jaxlint.api import lint_source
from jaxlint.plan import standins

TAIL = "y = jax.tree_map(f, x)\n"
JAX801 = "`jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`"


def findings(text: str) -> list[tuple[str, int, int, str]]:
    return [(d.code, d.start.line, d.start.column, d.message) for d in lint_source(text, "m.py")]


def replaced(text: str) -> str:
    return standins.apply(text, standins.find(text))


# -- the stand-ins themselves -----------------------------------------------------------
BIG = "1, " * 12_000


@pytest.mark.parametrize(
    "display",
    [
        "[" + BIG + "]",
        "(" + BIG + ")",
        "{" + "1: 'a', " * 12_000 + "}",
        "{" + "".join(f"\n    {i}: ({i}, 'v')," for i in range(12_000)) + "\n}",
        "[" + "-1.5e3, 0x1F, 1_000, 2j, True, None, 'a' 'b', (), [1], {2}, " * 2_000 + "]",
        "(\n" + "".join(f'    "line {i}\\n"  # a comment\n' for i in range(150)) + ")",
        '"a" ' * 5_000,
    ],
)
def test_a_huge_literal_becomes_a_call_in_the_same_place(display):
    text = f"import jax\nx = {display}\n{TAIL}"
    out = replaced(text)
    assert out != text
    assert out.count("\n") == text.count("\n")
    assert out.endswith(f"\n{TAIL}")  # what follows keeps its line and column
    tree = ast.parse(out)  # still Python
    value = tree.body[1].value
    assert isinstance(value, ast.Call) and value.func.id == standins.NAME


@pytest.mark.parametrize(
    "display",
    [
        "f(" + BIG + ")",  # a call
        "a[" + BIG + "]",  # a subscript
        "[" + BIG + "name]",  # not only constants
        "[" + BIG + "1,, 2]",  # a syntax error stays for Python to find
        "[" + BIG + "012]",  # a leading zero: not a Python number
        "[" + BIG + "1_]",
        "[" + BIG + "'a' + 'b']",  # an operation
        "{" + "1: 'a', " * 12_000 + "2}",  # a dict with a set's element
        "[" + "1, " * 9_000 + "]",  # small enough for the parsers
        '"a", ' * 5_000,  # a tuple of strings, not one concatenation
    ],
)
def test_no_stand_in_where_it_could_change_what_the_code_means(display):
    text = f"import jax\nx = {display}\n{TAIL}"
    assert replaced(text) == text


def test_finding_them_is_linear():
    assert growth(standins.find, lambda n: "x = [" + "(1, 'v'), " * n + "]\n" + "y = f(a, b)\n" * n, 3_000) < LINEAR


# -- linting such files -------------------------------------------------------------------
def test_a_huge_literal_costs_neither_the_file_nor_memory(tmp_path):
    """A 3 MB one-line list under a 1 GB address-space limit: before, about 6 GB."""
    p = tmp_path / "lit.py"
    p.write_text("import jax\nx = [" + "1, " * 1_000_000 + "]\n" + TAIL)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    r = subprocess.run(
        [sys.executable, "-m", "jaxlint", "--no-cache", "--output-format", "concise", str(p)],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=600,
        env={**os.environ, "CI": ""},
    )
    assert (r.returncode, r.stdout) == (1, f"{p}:3:5: JAX801 [*] {JAX801}\n")


@pytest.mark.parametrize(
    "source",
    [
        "x = (\n" + "".join(f'"line {i}\\n"\n' for i in range(400)) + ")\n",  # was JAX003, nested too deeply
        "x = " + '"a" ' * 5_000 + "\n",  # was a false JAX001 (LibCST's parser fails)
        "s = '" + "(" * 600 + "'\n",  # was a false JAX001 (brackets counted in a string)
        # a notebook's base64 image in a comment, and in a string: was JAX003, its + and / counted
        "# <img src='data:image/png;base64," + "iVB+/w" * 4_000 + "'>\nx = 1\n",
        "s = '" + "a+b/" * 6_000 + "'\n",
    ],
)
def test_valid_code_libcst_cannot_read_is_checked_around_it(source):
    text = "import jax\n" + source + TAIL
    line = text.count("\n")
    assert findings(text) == [("JAX801", line, 5, JAX801)]


def test_an_operator_chain_libcst_cannot_survive_is_a_precise_jax003_not_a_crash():
    text = "import jax\n" + TAIL + "x = " + " and ".join(["a"] * 10_000) + "\n"
    assert findings(text) == [
        (
            "JAX003",
            3,
            1,
            "Line 3 has more than 5,000 operators in one chain, more than LibCST, the parser jaxlint's rules "
            "read, survives; the file was not checked",
        )
    ]


def test_a_fix_next_to_a_huge_literal(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("import jax\nx = [" + BIG + "]\n" + TAIL)
    r = subprocess.run(
        [sys.executable, "-m", "jaxlint", "--no-cache", "--fix", str(p)], capture_output=True, text=True, timeout=300
    )
    assert (r.returncode, r.stderr) == (0, "Fixed 1 problem; no problems remain.\n")
    assert p.read_text() == "import jax\nx = [" + BIG + "]\ny = jax.tree.map(f, x)\n"


@pytest.mark.parametrize("endings", [("\r", "\n"), ("\r", "\r\n"), ("\r",), ("\r\n",)])
def test_a_concatenation_with_any_line_endings_keeps_every_later_position(tmp_path, endings):
    """Lines that end in a lone ``\r`` are lines to Python. In the stand-in of a
    concatenation over them, a lone ``\r`` before a ``\n`` would make one ``\r\n``, one line
    fewer, and every finding and fix after it would land on another line (a fix was written
    into a string of the concatenation)."""
    parts = "".join(f'    "part {i}"{endings[i % len(endings)]}' for i in range(500))
    text = f"import jax\nx = 1\nTABLE = (\n{parts})\n{TAIL}"
    line = len(text.splitlines())  # the last line, as Python counts it
    assert findings(text) == [("JAX801", line, 5, JAX801)]
    p = tmp_path / "m.py"
    p.write_bytes(text.encode())
    r = subprocess.run(
        [sys.executable, "-m", "jaxlint", "--no-cache", "--fix", str(p)], capture_output=True, text=True, timeout=300
    )
    assert (r.returncode, r.stderr) == (0, "Fixed 1 problem; no problems remain.\n")
    assert p.read_bytes() == text.replace("jax.tree_map", "jax.tree.map").encode()


def test_a_huge_string_is_read_in_constant_memory(tmp_path):
    """The text scans (masking strings, counting tokens, a unit's code words) matched a
    string character by character with a lazy or backtracking pattern: about 120 bytes
    a character, 1.2 GB for a 10 MB string."""
    p = tmp_path / "s.py"
    p.write_text('import jax\ns = """' + "abcdefghi grad\n" * 600_000 + '"""\n' + TAIL)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    r = subprocess.run(
        [sys.executable, "-m", "jaxlint", "--no-cache", "--output-format", "concise", str(p)],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=600,
        env={**os.environ, "CI": ""},
    )
    assert (r.returncode, r.stdout) == (1, f"{p}:600003:5: JAX801 [*] {JAX801}\n"), r.stderr
