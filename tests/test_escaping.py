"""No output of jaxlint can be read as a workflow command or a terminal escape (issue 31).

Before: a file whose name held a newline and ``::error file=...::`` (or a string literal
quoted in a message) forged a GitHub annotation in the ``concise`` and ``full`` formats,
an ESC sequence reached the terminal raw in ``concise``, ``full`` and ``github``, and a
file name that is not UTF-8 made the ``json`` output invalid (a raw 0xff byte) and the
``sarif`` format an internal error.
"""

import json
import os
import re
import subprocess
import sys

import pytest

from jaxlint.report.escape import no_workflow_commands, printable

FORGED_NAME = "x\n::error file=README.md,line=1::forged\n\x1b[31mred\x1b[0m ##[add-mask]v1 \u202eevil.py"
FORGED_AXIS = "a\\n::warning file=setup.py,line=1::forged2\\r\\x1b]0;title\\x07 ##[error]v1 \\u202e b"
NOT_UTF8 = b"bad\xffname.py"
FORMATS = ("concise", "full", "github", "gitlab", "json", "sarif")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    (root / FORGED_NAME).write_text("import jax\nx = jax.tree_map(f, y)\n")
    (root / "msg.py").write_text(
        f'import jax\n\ndef f(x):\n    return jax.lax.pmean(x, axis_name="{FORGED_AXIS}")\n\nf(1)\n'
    )
    with open(os.fsencode(root) + b"/" + NOT_UTF8, "w") as f:
        f.write("import jax\nx = jax.tree_map(f, y)\n")
    return root


def run(root, fmt: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "FORCE_COLOR": "1" if fmt == "full" else "", "CI": ""}
    return subprocess.run(
        [sys.executable, "-m", "jaxlint", "--no-cache", "--output-format", fmt, "."],
        cwd=root,
        capture_output=True,
        env=env,
        timeout=300,
    )


def commands(text: str) -> list[str]:
    """What a GitHub runner would take for a workflow command (its own line splitting)."""
    return [line for line in re.split(r"\r\n|\r|\n", text) if line.lstrip().startswith("::") or "##[" in line]


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_format_prints_a_command_or_an_escape_it_did_not_write(tree, fmt):
    p = run(tree, fmt)
    assert p.returncode == 1, p.stderr
    out, err = p.stdout.decode("utf-8"), p.stderr.decode("utf-8")  # valid UTF-8, both
    assert commands(err) == []
    forged = [c for c in commands(out) if not re.match(r"::(error|warning) title=jaxlint \(JAX\d{3}\)", c)]
    assert forged == []
    assert "\u202e" not in out + err
    if fmt == "full":  # colour was forced: only SGR sequences, jaxlint's own
        assert re.findall(r"\x1b[^\[]|\x1b\[[^m]*[^m\d;]", out) == []
        assert "\x1b]" not in out and "\x1b[31mred" not in out
    else:
        assert "\x1b" not in out + err
    if fmt == "github":
        assert len(out.splitlines()) == 3  # one command per finding, nothing else


def test_concise_shows_the_escapes(tree):
    out = run(tree, "concise").stdout.decode()
    assert out.splitlines()[0] == (
        "bad\\xffname.py:2:5: JAX801 [*] `jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); "
        "use `jax.tree.map`"
    )
    assert "msg.py:4:12: JAX201 `jax.lax.pmean` uses axis name 'a\\n::warning file=setup.py" in out
    assert (
        "x\\n::error file=README.md,line=1::forged\\n\\x1b[31mred\\x1b[0m ##\\x5badd-mask]v1 \\u202eevil.py:2:5" in out
    )


@pytest.mark.parametrize("fmt", ["json", "gitlab", "sarif"])
def test_a_file_name_that_is_not_utf8_keeps_json_and_sarif_valid(tree, fmt):
    out = run(tree, fmt).stdout.decode("utf-8")
    doc = json.loads(out)
    if fmt == "json":
        names = {d["filename"] for d in doc}
        assert os.fsdecode(NOT_UTF8) in names  # the surrogate escape: os.fsencode gives the bytes back
    elif fmt == "gitlab":
        names = {d["location"]["path"] for d in doc}
        assert os.fsdecode(NOT_UTF8) in names
    else:
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]}
        assert "bad%FFname.py" in uris


def test_the_escapes():
    assert printable("a\nb\rc\td\x1be\x7f\x85\u2028\u202e\udcff") == "a\\nb\\rc\\td\\x1be\\x7f\\x85\\u2028\\u202e\\xff"
    assert printable("plain · text ✓") == "plain · text ✓"
    assert printable("a\nb", line_breaks=True) == "a\nb"
    assert (
        no_workflow_commands("ok\n  ::error x::y\nz ##[warning]w\n") == "ok\n  \\x3a:error x::y\nz ##\\x5bwarning]w\n"
    )
