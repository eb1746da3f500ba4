"""Ordinary faults are one clear line (exit 2) or one JAX003, never "internal error" (issue 31).

Before, each of these was "jaxlint: error: internal error …" (or worse): ``tool = 5`` or a
``pyproject.toml`` that is not UTF-8; an invalid glob in ``exclude``/``per-file-ignores``;
binary or latin-1 input on stdin, a closed stdin or stdout, a full stdout; ``--config``
naming a FIFO hung, ``/dev/zero`` ate memory; ``--fix`` on a read-only or full file system
was labelled a jaxlint bug. A ``punycode`` coding cookie took 84 s to decode (CPython
refuses it at once), and a cookie Python refuses passed as clean and was fixed.
"""

import os
import subprocess
import sys

import pytest
from conftest import run_cli
from scaling import LINEAR, growth
from test_faults import run_injected

TREE_MAP = "import jax\nx = jax.tree_map(f, y)\n"
JAX801 = "JAX801 [*] `jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`"


def raw(*args: str, stdin: bytes | int | None = None, cwd=None, **kw) -> tuple[int, bytes, str]:
    p = subprocess.run(
        [sys.executable, "-m", "jaxlint", *args],
        input=stdin if isinstance(stdin, bytes) else None,
        stdin=stdin if isinstance(stdin, int) else None,
        capture_output="stdout" not in kw,
        cwd=cwd,
        timeout=120,
        **kw,
    )
    return p.returncode, p.stdout or b"", (p.stderr or b"").decode()


# -- decoding ---------------------------------------------------------------------------
LATIN1 = b'# -*- coding: latin-1 -*-\nimport jax\ns = "caf\xe9"\ny = jax.tree_map(f, x)\n'


def test_stdin_is_decoded_as_its_coding_declaration_says_and_fixed_in_it():
    assert raw("--no-cache", "--output-format", "concise", "-", stdin=LATIN1)[:2] == (1, f"-:4:5: {JAX801}\n".encode())
    code, out, _ = raw("--fix", "-", stdin=LATIN1)
    assert (code, out) == (0, LATIN1.replace(b"jax.tree_map", b"jax.tree.map"))  # still latin-1


def test_stdin_that_cannot_be_decoded_is_one_jax003():
    code, out, _ = raw("--output-format", "concise", "-", "--stdin-filename", "m.py", stdin=b"x = '\xff'\n")
    assert (code, out.decode()) == (
        1,
        "m.py:1:6: JAX003 Cannot decode the file as utf-8 (byte ff: invalid start byte); it was not checked\n",
    )
    code, out, _ = raw("--fix", "-", stdin=b"x = '\xff\xfe'\njax\n")
    assert (code, out) == (1, b"x = '\xff\xfe'\njax\n")  # --fix prints the input as it came


@pytest.mark.parametrize(
    ("cookie", "reason"),
    [
        ("nope", "Unknown encoding 'nope' in the coding declaration"),
        ("rot13", "The coding declaration names 'rot13', which is not a text encoding"),
        ("utf-16", "The coding declaration names 'utf-16', but the declaration itself is not written in it"),
        ("punycode", "The coding declaration names 'punycode', which source code is never written in"),
    ],
)
def test_a_coding_declaration_python_refuses_is_one_jax003_and_nothing_is_fixed(tmp_path, cookie, reason):
    p = tmp_path / "m.py"
    p.write_bytes(f"# -*- coding: {cookie} -*-\n".encode() + TREE_MAP.encode())
    before = p.read_bytes()
    code, out, _ = run_cli("--no-cache", "--fix", "--output-format", "concise", str(p))
    assert (code, out) == (1, f"{p}:1:1: JAX003 {reason}; the file was not checked\n")
    assert p.read_bytes() == before


def test_decoding_is_linear_in_the_file():
    from jaxlint.api import decode

    def latin1(n: int) -> bytes:
        return b"# coding: latin-1\n" + b"x = '\xe9'\n" * n

    assert growth(lambda data: decode(data, "m.py"), latin1, 20_000) < LINEAR


# -- configuration ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "error"),
    [
        (b"tool = 5\n", None),  # no [tool] table: no jaxlint settings there, defaults apply
        (b"\xff\xfe[tool.jaxlint]\n", "{p}: cannot read configuration: it is not UTF-8 text (byte ff at 1:1)"),
        (
            b'[tool.jaxlint]\nexclude = ["[z-a]"]\n',
            "{p}:2: `exclude`: invalid pattern '[z-a]' (bad character range z-a)",
        ),
        (
            b'[tool.jaxlint.per-file-ignores]\n"[z-a]" = ["JAX8"]\n',
            "{p}:2: `per-file-ignores`: invalid pattern '[z-a]' (bad character range z-a)",
        ),
        (
            b'[tool.jaxlint]\nextend-exclude = ["a\\\\"]\n',
            "{p}:2: `extend-exclude`: invalid pattern 'a\\\\' (not a gitignore-style pattern: a trailing backslash?)",
        ),
    ],
)
def test_configuration_faults_are_one_line_naming_the_file_and_key(tmp_path, content, error):
    (tmp_path / "a.py").write_text(TREE_MAP)
    (tmp_path / "pyproject.toml").write_bytes(content)
    code, out, err = run_cli("--no-cache", "--output-format", "concise", ".", cwd=str(tmp_path))
    if error is None:
        assert (code, out) == (1, f"a.py:2:5: {JAX801}\n")
    else:
        p = tmp_path / "pyproject.toml"
        assert (code, out, err) == (2, "", f"jaxlint: error: {error.format(p=p)}\n")


def test_config_that_is_not_a_regular_file_is_refused_without_reading_it(tmp_path):
    (tmp_path / "a.py").write_text(TREE_MAP)
    os.mkfifo(tmp_path / "fifo.toml")
    for target, kind in (
        (str(tmp_path / "fifo.toml"), "a FIFO"),
        ("/dev/zero", "a character device"),
        (str(tmp_path), "a folder"),
    ):
        code, out, err = run_cli("--config", target, str(tmp_path / "a.py"))  # would hang or fill memory
        assert (code, out, err) == (2, "", f"jaxlint: error: {target}: not a regular file ({kind})\n")


# -- standard streams -------------------------------------------------------------------
def test_a_full_or_closed_standard_stream_is_one_line(tmp_path):
    (tmp_path / "a.py").write_text(TREE_MAP)
    with open("/dev/full", "wb") as full:
        code, _, err = raw("--no-cache", str(tmp_path / "a.py"), stdout=full, stderr=subprocess.PIPE)
    assert (code, err) == (2, "jaxlint: error: could not write <stdout>: No space left on device\n")
    code, _, err = raw("--no-cache", str(tmp_path / "a.py"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert code == 1
    closed = subprocess.run(
        f"{sys.executable} -m jaxlint --no-cache {tmp_path / 'a.py'} >&-", shell=True, capture_output=True, text=True
    )
    assert (closed.returncode, closed.stderr) == (2, "jaxlint: error: could not write <stdout>: it is closed\n")
    closed = subprocess.run(f"{sys.executable} -m jaxlint - <&-", shell=True, capture_output=True, text=True)
    assert (closed.returncode, closed.stderr) == (2, "jaxlint: error: could not read <stdin>: it is closed\n")


# -- --fix on a file system that refuses the write ----------------------------------------
@pytest.mark.parametrize(
    ("errno_name", "reason"), [("EROFS", "Read-only file system"), ("ENOSPC", "No space left on device")]
)
def test_a_fix_the_file_system_refuses_is_one_line_and_the_file_unchanged(tmp_path, errno_name, reason):
    p = tmp_path / "a.py"
    p.write_text(TREE_MAP)
    setup = f"""
    import errno, tempfile
    def refuse(*a, **k):
        raise OSError(errno.{errno_name}, {reason!r})
    tempfile.mkstemp = refuse
    """
    code, out, err = run_injected(setup, "--no-cache", "--fix", "--output-format", "concise", str(p))
    assert (code, out) == (2, f"{p}:2:5: {JAX801}\n")
    assert err == f"Found 1 problem in 1 file (1 fixable with --fix).\njaxlint: error: could not write {p}: {reason}\n"
    assert p.read_text() == TREE_MAP
