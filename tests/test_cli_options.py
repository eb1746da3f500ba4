"""The ruff options people reach for: --add-noqa, --output-file, --fix-only, unfixable, ..."""

import json
import os
import subprocess
import sys

from conftest import ROOT, run_cli

TREE_MAP = "import jax\n\nparams = jax.tree_map(lambda p: p, params)\n"


def write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def concise(*args, cwd):
    return run_cli("--no-cache", "--output-format", "concise", *args, cwd=str(cwd))


def test_add_noqa_adds_merges_and_never_writes_into_a_string(tmp_path):
    src = (
        "import jax\n"
        "a = jax.tree_map(f, x)\n"
        "b = jax.tree_map(f, x)  # noqa: E501\n"
        "c = jax.tree_map(f, x)  # noqa\n"
        'd = jax.tree_map(f, """\n# not a comment\n""")\n'
        "e = jax.tree_map(f, \\\n    x)\n"
    )
    p = write(tmp_path, "m.py", src)
    code, out, err = concise("--add-noqa", "m.py", cwd=tmp_path)
    assert (code, out) == (0, "") and "Added 4 noqa directives." in err
    assert p.read_text() == (
        "import jax\n"
        "a = jax.tree_map(f, x)  # noqa: JAX801\n"
        "b = jax.tree_map(f, x)  # noqa: E501, JAX801\n"
        "c = jax.tree_map(f, x)  # noqa\n"
        'd = jax.tree_map(f, """\n# not a comment\n""")  # noqa: JAX801\n'
        "e = jax.tree_map(f, \\\n    x)  # noqa: JAX801\n"
    )
    assert concise("m.py", cwd=tmp_path)[:2] == (0, "")  # every comment suppresses its finding
    code, _, err = concise("--add-noqa", "m.py", cwd=tmp_path)
    assert code == 0 and "Added 0 noqa directives." in err


def test_output_file_gets_the_report(tmp_path):
    write(tmp_path, "a.py", TREE_MAP)
    code, out, err = concise("--output-file", "report.txt", "a.py", cwd=tmp_path)
    assert (code, out) == (1, "")
    assert (tmp_path / "report.txt").read_text().startswith("a.py:3:10: JAX801 ")
    assert "Found 1 problem" in err


def test_fix_only_fixes_and_reports_nothing_else(tmp_path):
    p = write(tmp_path, "a.py", TREE_MAP + "jax.pmap(f)(jax.numpy.ones((32, 10)))\n")
    code, out, err = concise("--fix-only", "a.py", cwd=tmp_path)
    assert (code, out) == (0, "")
    assert "Fixed 1 problem." in err
    assert "jax.tree.map" in p.read_text()


def test_unfixable_from_config_and_command_line(tmp_path):
    p = write(tmp_path, "a.py", TREE_MAP)
    code, out, _ = concise("--unfixable", "JAX8", "a.py", cwd=tmp_path)
    assert code == 1 and "[*]" not in out
    concise("--unfixable", "JAX801", "--fix", "a.py", cwd=tmp_path)
    assert p.read_text() == TREE_MAP
    write(tmp_path, "pyproject.toml", "[tool.jaxlint]\nunfixable = ['JAX801']\n")
    concise("--fix", "a.py", cwd=tmp_path)
    assert p.read_text() == TREE_MAP


def test_exclude_and_per_file_ignores_on_the_command_line(tmp_path):
    write(tmp_path, "src/a.py", TREE_MAP)
    write(tmp_path, "src/gen/g.py", TREE_MAP)
    write(tmp_path, "tests/t.py", TREE_MAP)
    _, out, _ = concise("--extend-exclude", "gen/", "--per-file-ignores", "tests/*.py:JAX8", ".", cwd=tmp_path)
    assert [line.split(":")[0] for line in out.splitlines()] == ["src/a.py"]
    # patterns are relative to the working directory, whatever the project root
    write(tmp_path, "pyproject.toml", "[tool.jaxlint]\n")
    _, out, _ = concise("--per-file-ignores", "a.py:JAX801", ".", cwd=tmp_path / "src")
    assert [line.split(":")[0] for line in out.splitlines()] == ["gen/g.py"]
    code, _, err = concise("--per-file-ignores", "tests", ".", cwd=tmp_path)
    assert code == 2 and "--per-file-ignores: expected PATTERN:CODES" in err


def test_short_version_flag():
    from jaxlint import __version__

    assert run_cli("-V")[:2] == (0, f"jaxlint {__version__}\n")


def test_statistics_as_json(tmp_path):
    write(tmp_path, "a.py", TREE_MAP + "b = jax.tree_map(f, x)\nk = jax.random.PRNGKey(0)\n")
    code, out, _ = concise("--statistics", "--output-format", "json", "a.py", cwd=tmp_path)
    assert code == 1
    assert json.loads(out) == [
        {"code": "JAX801", "name": "removed-api", "count": 2, "fixable": True, "fixable_count": 2},
    ]


def test_gitlab_report_matches_gitlabs_schema(tmp_path):
    import jsonschema

    write(tmp_path, "a.py", TREE_MAP + "params = jax.tree_map(lambda p: p, params)\n")
    code, out, _ = run_cli("--no-cache", "--output-format", "gitlab", "a.py", cwd=str(tmp_path))
    assert code == 1
    report = json.loads(out)
    with open(os.path.join(ROOT, "tests", "data", "gitlab-codequality.schema.json")) as f:
        jsonschema.validate(report, json.load(f))
    assert [(r["check_name"], r["location"]["path"], r["location"]["positions"]["begin"]) for r in report] == [
        ("JAX801", "a.py", {"line": 3, "column": 10}),
        ("JAX801", "a.py", {"line": 4, "column": 10}),
    ]
    assert len({r["fingerprint"] for r in report}) == 2  # the same finding twice: two issues
    again = json.loads(run_cli("--no-cache", "--output-format", "gitlab", "a.py", cwd=str(tmp_path))[1])
    assert [r["fingerprint"] for r in again] == [r["fingerprint"] for r in report]


def test_an_unknown_command_gets_did_you_mean(tmp_path):
    code, out, err = run_cli("chek", cwd=str(tmp_path))
    assert (code, out) == (2, "")
    assert (
        err
        == "jaxlint: error: unknown command 'chek' (did you mean 'check'?); a path of that name does not exist either\n"
    )
    write(tmp_path, "chek", "import jax\n")  # a file of that name is a path
    assert run_cli("--no-cache", "chek", cwd=str(tmp_path))[0] == 0


def test_help_groups_options_as_ruff_does():
    code, out, _ = run_cli("--help")
    assert code == 0
    headings = [line for line in out.splitlines() if line and not line.startswith(" ") and line.endswith(":")]
    assert headings == [
        "Commands:",
        "Global options:",
        "Options:",
        "Rule selection:",
        "File selection:",
        "Miscellaneous:",
        "Log levels:",
        "Global options:",
    ]
    code, out, _ = run_cli("check", "--help")
    headings = [line for line in out.splitlines() if line and not line.startswith(" ") and line.endswith(":")]
    assert headings == [
        "Options:",
        "Rule selection:",
        "File selection:",
        "Miscellaneous:",
        "Log levels:",
        "Global options:",
    ]
    assert "--add-noqa" in out and "--show-settings" in out and "--cache-dir" in out


def test_a_closed_pipe_ends_quietly():
    p = subprocess.Popen(
        [sys.executable, "-m", "jaxlint", "rules"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    )
    p.stdout.close()  # `jaxlint rules | head -0`: the reader is gone before the first line
    err = p.stderr.read()
    assert (p.wait(timeout=120), err) == (0, b"")


def test_cache_dir_and_clean(tmp_path):
    write(tmp_path, "a.py", TREE_MAP)
    run_cli("--cache-dir", str(tmp_path / "elsewhere"), "a.py", cwd=str(tmp_path))
    assert not (tmp_path / ".jaxlint_cache").exists()
    assert (tmp_path / "elsewhere" / "CACHEDIR.TAG").is_file()
    run_cli("a.py", cwd=str(tmp_path))
    assert (tmp_path / ".jaxlint_cache").is_dir()
    code, _, err = run_cli("clean", cwd=str(tmp_path))
    assert code == 0 and "Removed cache at: ./.jaxlint_cache" in err
    assert not (tmp_path / ".jaxlint_cache").exists()
    code, _, err = run_cli("clean", "--cache-dir", str(tmp_path), cwd=str(tmp_path))
    assert code == 2 and "not a jaxlint cache" in err and (tmp_path / "a.py").exists()
    code, _, err = run_cli("clean", "--cache-dir", str(tmp_path / "elsewhere"), cwd=str(tmp_path))
    assert code == 0 and not (tmp_path / "elsewhere").exists()
