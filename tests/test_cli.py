"""The command-line contract: exit codes, formats, config, suppressions, discovery."""

import json
import os
import stat
import sys
import textwrap

from conftest import FIXTURES, run_cli

TREE_MAP = "import jax\n\nparams = jax.tree_map(lambda p: p, params)\n"
CLEAN = "import jax\n\nparams = jax.tree.map(lambda p: p, params)\n"


def write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def test_seed_training_loop_reports_tree_map_with_exact_position():
    code, out, _err = run_cli(
        "--no-cache", "--output-format", "concise", "--select", "JAX801", os.path.join(FIXTURES, "seeds")
    )
    assert code == 1
    path = os.path.join(FIXTURES, "seeds", "c4_4_training_loop.py")
    assert (
        out
        == f"{path}:27:14: JAX801 [*] `jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`\n"
    )


def test_clean_file_exits_zero(tmp_path):
    p = write(tmp_path, "ok.py", CLEAN)
    code, out, err = run_cli("--output-format", "concise", str(p))
    assert (code, out) == (0, "")
    assert "All checks passed!" in err


def test_default_command_and_check_are_the_same(tmp_path):
    p = write(tmp_path, "bad.py", TREE_MAP)
    a = run_cli("--output-format", "concise", str(p))
    b = run_cli("check", "--output-format", "concise", str(p))
    assert a == b and a[0] == 1


def test_unknown_select_code_is_one_clear_line(tmp_path):
    p = write(tmp_path, "ok.py", CLEAN)
    code, out, err = run_cli("--select", "JAX999", str(p))
    assert code == 2
    assert out == ""
    assert err == "jaxlint: error: --select: unknown rule selector 'JAX999' (see `jaxlint rules`)\n"


def test_missing_path_is_one_clear_line(tmp_path):
    code, _out, err = run_cli(str(tmp_path / "nope.py"))
    assert code == 2
    assert err.strip().endswith("nope.py: no such file or directory") and err.count("\n") == 1


def test_syntax_error_does_not_stop_other_files(tmp_path):
    write(tmp_path, "a_broken.py", "import jax\ndef f(x)\n    return jax.tree_map(f, x)\n")
    write(tmp_path, "b_bad.py", TREE_MAP)
    code, out, _err = run_cli("--output-format", "concise", "--select", "JAX001,JAX801", str(tmp_path))
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(f"{tmp_path}/a_broken.py:2:9: JAX001 SyntaxError:")
    assert lines[1].startswith(f"{tmp_path}/b_bad.py:3:10: JAX801 ")
    assert len(lines) == 2


def test_json_fields(tmp_path):
    p = write(tmp_path, "bad.py", TREE_MAP)
    code, out, _ = run_cli("--output-format", "json", "--select", "JAX801", str(p))
    assert code == 1
    [d] = json.loads(out)
    assert set(d) == {"code", "name", "message", "note", "filename", "location", "end_location", "url", "fix"}
    assert d["code"] == "JAX801" and d["name"] == "removed-api"
    assert d["location"] == {"row": 3, "column": 10} and d["end_location"] == {"row": 3, "column": 22}
    assert d["filename"] == str(p)


def test_exit_zero_statistics_and_quiet(tmp_path):
    p = write(tmp_path, "bad.py", TREE_MAP + "y = jax.tree_map(f, x)\n")
    code, out, err = run_cli("--exit-zero", "--statistics", "--select", "JAX801", str(p))
    assert code == 0
    assert out.split() == ["2", "JAX801", "removed-api"] or out.split()[:2] == ["2", "JAX801"]
    code, out, err = run_cli("--quiet", "--output-format", "concise", "--select", "JAX801", str(p))
    assert code == 1 and err == "" and len(out.splitlines()) == 2


def test_stdin_with_filename():
    code, out, _err = run_cli(
        "--output-format", "concise", "--select", "JAX801", "-", "--stdin-filename", "pkg/mod.py", stdin=TREE_MAP
    )
    assert code == 1
    assert out.startswith("pkg/mod.py:3:10: JAX801 ")


def test_stdin_fix_with_filename_prints_the_fixed_text():
    code, out, _err = run_cli("--fix", "-", "--stdin-filename", "pkg/mod.py", stdin=TREE_MAP)
    assert (code, out) == (0, CLEAN)


def test_output_is_identical_across_hash_seeds(tmp_path):
    for i in range(6):
        write(
            tmp_path,
            f"m{i}.py",
            TREE_MAP + f"z{i} = jax.tree_util.tree_multimap(f, a)  # noqa: JAX801\nw = 1  # noqa: JAX801\n",
        )
    outs = set()
    for seed in ("0", "1", "12345"):
        code, out, _err = run_cli(
            "--output-format", "json", "--jobs", "2", "--no-cache", str(tmp_path), env={"PYTHONHASHSEED": seed}
        )
        assert code == 1
        outs.add(out)
    assert len(outs) == 1


def test_jobs_do_not_change_results(tmp_path):
    for i in range(10):
        write(tmp_path, f"m{i}.py", TREE_MAP * (i % 3 + 1))
    one = run_cli("--output-format", "concise", "--jobs", "1", "--no-cache", str(tmp_path))
    two = run_cli("--output-format", "concise", "--jobs", "2", "--no-cache", str(tmp_path))
    assert one == two and one[0] == 1


def test_rules_and_rule_commands():
    code, out, _ = run_cli("rules")
    assert code == 0
    assert any(line.startswith("JAX801  removed-api") for line in out.splitlines())
    code, out, _ = run_cli("rule", "JAX801")
    assert code == 0 and out.startswith("# JAX801 removed-api (stable)") and "## Why is this bad?" in out
    code, out, err = run_cli("rule", "JAX999")
    assert code == 2 and "unknown rule 'JAX999'" in err


def test_version():
    from jaxlint import __version__

    code, out, _ = run_cli("--version")
    assert (code, out) == (0, f"jaxlint {__version__}\n")


# -- configuration -----------------------------------------------------------------
def test_config_unknown_key_is_an_error(tmp_path):
    write(tmp_path, "pyproject.toml", "[tool.jaxlint]\nselcet = ['JAX8']\n")
    write(tmp_path, "a.py", CLEAN)
    code, _out, err = run_cli(str(tmp_path))
    assert code == 2
    assert err == f"jaxlint: error: {tmp_path}/pyproject.toml:2: unknown key `selcet` in [tool.jaxlint]\n"


def test_config_unknown_code_is_an_error(tmp_path):
    write(tmp_path, "pyproject.toml", "[tool.jaxlint]\nignore = ['JAX8', 'JAX777']\n")
    write(tmp_path, "a.py", CLEAN)
    code, _, err = run_cli(str(tmp_path))
    assert code == 2 and "`ignore`" in err and "'JAX777'" in err and str(tmp_path) in err


def test_config_select_ignore_and_cli_override(tmp_path):
    write(tmp_path, "pyproject.toml", "[tool.jaxlint]\nignore = ['JAX801']\n")
    write(tmp_path, "a.py", TREE_MAP)
    assert run_cli("--output-format", "concise", str(tmp_path))[0] == 0
    code, _out, _ = run_cli(
        "--output-format",
        "concise",
        "--config",
        str(tmp_path / "pyproject.toml"),
        "--select",
        "JAX801",
        "--ignore",
        "JAX002",
        str(tmp_path),
    )
    # --ignore extends the configured ignore list, so JAX801 stays ignored
    assert code == 0


def test_config_per_file_ignores_and_exclude(tmp_path):
    write(
        tmp_path,
        "pyproject.toml",
        textwrap.dedent("""
        [tool.jaxlint]
        extend-exclude = ["generated/"]
        [tool.jaxlint.per-file-ignores]
        "tests/*.py" = ["JAX8"]
    """),
    )
    write(tmp_path, "src/a.py", TREE_MAP)
    write(tmp_path, "tests/test_a.py", TREE_MAP)
    write(tmp_path, "generated/g.py", TREE_MAP)
    code, out, _ = run_cli("--output-format", "concise", "--no-cache", ".", cwd=str(tmp_path))
    assert code == 1
    assert [line.split(":")[0] for line in out.splitlines()] == ["src/a.py"]


def test_target_jax_version(tmp_path):
    p = write(tmp_path, "a.py", TREE_MAP)
    assert run_cli("--target-jax-version", "0.4.20", "--select", "JAX801", str(p))[0] == 0
    assert run_cli("--target-jax-version", "0.6.0", "--select", "JAX801", str(p))[0] == 1
    code, _, err = run_cli("--target-jax-version", "latest", str(p))
    assert code == 2 and "invalid JAX version 'latest'" in err


# -- discovery ---------------------------------------------------------------------
def test_discovery_skips_venvs_build_and_gitignored(tmp_path):
    write(tmp_path, ".gitignore", "ignored_dir/\n*_gen.py\n")
    (tmp_path / ".git").mkdir()
    write(tmp_path, "pkg/a.py", TREE_MAP)
    write(tmp_path, "pkg/b_gen.py", TREE_MAP)
    write(tmp_path, "ignored_dir/c.py", TREE_MAP)
    write(tmp_path, "build/d.py", TREE_MAP)
    write(tmp_path, "myenv/pyvenv.cfg", "home = /usr\n")
    write(tmp_path, "myenv/lib/e.py", TREE_MAP)
    write(tmp_path, "__pycache__/f.py", TREE_MAP)
    code, out, _ = run_cli("--output-format", "concise", "--no-cache", ".", cwd=str(tmp_path))
    assert [line.split(":")[0] for line in out.splitlines()] == ["pkg/a.py"]
    # a file named explicitly is always linted
    code, out, _ = run_cli("--output-format", "concise", "--no-cache", "pkg/b_gen.py", cwd=str(tmp_path))
    assert code == 1 and out.startswith("pkg/b_gen.py:3:10")


# -- suppressions ------------------------------------------------------------------
def test_noqa_ignore_next_statement_and_file_level(tmp_path):
    src = textwrap.dedent("""\
        import jax
        a = jax.tree_map(f, x)  # noqa: JAX801
        b = jax.tree_map(f, x)  # noqa
        # jaxlint: ignore[JAX801]
        c = jax.tree_map(
            f,
            jax.tree_map(g, x),
        )
        d = jax.tree_map(f, x)
        e = jax.tree_map(f, x)  # noqa: JAX101
    """)
    p = write(tmp_path, "s.py", src)
    code, out, _ = run_cli("--output-format", "concise", "--no-cache", "--select", "JAX801,JAX002", str(p))
    lines = [line.split(": ", 1)[0] + " " + line.split(": ", 1)[1].split()[0] for line in out.splitlines()]
    assert lines == [f"{p}:9:5 JAX801", f"{p}:10:5 JAX801"]
    p2 = write(tmp_path, "t.py", "# jaxlint: noqa: JAX801\n" + src)
    code, out, _ = run_cli("--output-format", "concise", "--no-cache", "--select", "JAX801,JAX002", str(p2))
    assert code == 0, out


def test_unused_suppression_is_jax002_with_safe_fix(tmp_path):
    p = write(tmp_path, "s.py", "import jax\nx = jax.tree.map(f, t)  # noqa: JAX801\n")
    code, out, _ = run_cli("--output-format", "concise", "--no-cache", str(p))
    assert (
        out
        == f"{p}:2:25: JAX002 [*] Unused `# noqa` for JAX801: nothing on the suppressed lines is reported with this code\n"
    )
    code, out, _err = run_cli("--fix", "--no-cache", str(p))
    assert code == 0
    assert p.read_text() == "import jax\nx = jax.tree.map(f, t)\n"


# -- fixes -------------------------------------------------------------------------
def test_fix_keeps_mode_and_crlf_and_diff_does_not_write(tmp_path):
    p = tmp_path / "s.py"
    p.write_bytes(b"import jax\r\nx = jax.tree.map(f, t)  # noqa: JAX801\r\ny = 1\r\n")
    os.chmod(p, 0o754)
    code, out, err = run_cli("--diff", "--no-cache", str(p))
    assert code == 1 and out.startswith(f"--- a/{p}\n+++ b/{p}\n")
    assert b"noqa" in p.read_bytes()
    code, out, err = run_cli("--fix", "--show-fixes", "--no-cache", str(p))
    assert code == 0 and f"{p}: 1 fix" in err
    assert p.read_bytes() == b"import jax\r\nx = jax.tree.map(f, t)\r\ny = 1\r\n"
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o754
    assert [f for f in os.listdir(tmp_path) if f.startswith(".jaxlint-")] == []


def test_exit_non_zero_on_fix(tmp_path):
    p = write(tmp_path, "s.py", "import jax\nx = jax.tree.map(f, t)  # noqa: JAX801\n")
    code, _, _ = run_cli("--fix", "--exit-non-zero-on-fix", "--no-cache", str(p))
    assert code == 1


# -- the engine never needs jax ------------------------------------------------------
def test_linting_never_imports_jax(tmp_path):
    import subprocess

    write(tmp_path, "a.py", TREE_MAP)
    prog = (
        "import sys\nfrom jaxlint.api import lint_paths\nfrom jaxlint.lint.config import Settings\n"
        f"r = lint_paths([{str(tmp_path)!r}, {os.path.join(FIXTURES, 'seeds')!r}], Settings(preview=True), jobs=1)\n"
        "assert r.diagnostics, 'expected findings'\n"
        "print('jax' in sys.modules, any(m.startswith('jax.') or m == 'jaxlib' for m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, check=True).stdout
    assert out == "False False\n"


def test_rule_crash_is_an_internal_error_not_a_lost_run(tmp_path):
    import libcst as cst

    from jaxlint.api import Runner
    from jaxlint.lint.config import Settings
    from jaxlint.lint.engine import FileLinter
    from jaxlint.lint.rule import Rule

    class Crash(Rule):
        code = "JAX999"
        name = "crash"
        triggers = ("boom",)

        def visit_Call(self, node: cst.Call) -> None:
            raise ZeroDivisionError("boom")

    linter = FileLinter([Crash])
    res = linter.lint("x.py", "boom()\n")
    assert res.internal_error is None
    assert len(res.rule_errors) == 1 and res.rule_errors[0].startswith("JAX999 (crash): ZeroDivisionError: boom (at ")
    runner = Runner(Settings(select=["JAX801"]), jobs=1)
    ok = FileLinter(list(runner.rules)).lint("y.py", TREE_MAP)
    diags, errors = runner.finish([res, ok])
    assert [d.code for d in diags] == ["JAX801"]
    assert errors == [f"x.py: internal error in {res.rule_errors[0]}"]


def test_fix_keeps_a_latin1_encoding(tmp_path):
    p = tmp_path / "s.py"
    p.write_bytes(
        "# -*- coding: latin-1 -*-\nimport jax\nname = 'caf\u00e9'\nx = jax.tree.map(f, t)  # noqa: JAX801\n".encode(
            "latin-1"
        )
    )
    code, _, err = run_cli("--fix", "--no-cache", str(p))
    assert code == 0, err
    assert (
        p.read_bytes()
        == "# -*- coding: latin-1 -*-\nimport jax\nname = 'caf\u00e9'\nx = jax.tree.map(f, t)\n".encode("latin-1")
    )


def test_a_fix_that_would_not_parse_is_not_applied():
    from jaxlint.api import fix_text
    from jaxlint.base.types import Diagnostic, Edit, Fix, Position

    source = "x = 1\n"
    broken = Fix("break it", (Edit(Position(1, 5), Position(1, 6), "("),), "safe")

    def lint(text):
        return (
            [Diagnostic("s.py", "JAX999", "x", "m", Position(1, 1), Position(1, 2), broken)] if text == source else []
        )

    text, applied, remaining, gave_up = fix_text(source, lint, unsafe=False)
    assert (text, applied, gave_up) == (source, 0, True)
    assert [d.code for d in remaining] == ["JAX999"]


def test_unsafe_fixes_need_the_flag(tmp_path):
    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef project(x, w):\n    return x @ w\n\n"
        "out = jax.vmap(project)(jnp.ones((10, 10)), jnp.ones((10, 5)))\n"
    )
    p = write(tmp_path, "v.py", src)
    code, out, _ = run_cli("--fix", "--no-cache", "--select", "JAX101", "--output-format", "concise", str(p))
    assert code == 1 and p.read_text() == src and " JAX101 " in out and "[*]" not in out
    code, out, _ = run_cli("--fix", "--unsafe-fixes", "--no-cache", "--select", "JAX101", str(p))
    assert code == 0, out
    assert p.read_text() == src.replace("jax.vmap(project)", "jax.vmap(project, in_axes=(0, None))")


def test_undecodable_file_is_one_finding_among_the_others(tmp_path):
    (tmp_path / "a_latin.py").write_bytes(b'import jax\nx = "caf\xe9"\njax.tree_map(f, x)\n')
    write(tmp_path, "b.py", TREE_MAP)
    code, out, err = run_cli("--no-cache", "--output-format", "concise", str(tmp_path))
    assert code == 1
    assert out == (
        f"{tmp_path}/a_latin.py:2:9: JAX003 Cannot decode the file as utf-8 (byte e9: invalid continuation byte); it was not checked\n"
        f"{tmp_path}/b.py:3:10: JAX801 [*] `jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`\n"
    )
    assert err == "Found 2 problems in 2 files (1 fixable with --fix).\n"


def test_nul_bytes_are_a_syntax_error_at_the_nul(tmp_path):
    (tmp_path / "n.py").write_bytes(b"import jax\nx = jax.grad(f)\n\x00\n")
    code, out, _err = run_cli("--no-cache", "--output-format", "concise", str(tmp_path / "n.py"))
    assert code == 1
    assert out == f"{tmp_path}/n.py:3:1: JAX001 SyntaxError: source code cannot contain null bytes\n"


def test_deeply_nested_code_does_not_crash(tmp_path):
    p = write(tmp_path, "d.py", "import jax\nx = " + "(" * 300 + "1" + ")" * 300 + "\njax.grad(f)\n")
    code, _out, err = run_cli("--no-cache", "--output-format", "concise", str(p))
    assert code in (0, 1) and "Traceback" not in err


def test_config_file_errors_are_one_line(tmp_path):
    write(tmp_path, "a.py", CLEAN)
    code, _, err = run_cli("--config", str(tmp_path / "missing.toml"), str(tmp_path / "a.py"))
    assert (code, err) == (2, f"jaxlint: error: {tmp_path}/missing.toml: configuration file not found\n")
    write(tmp_path, "broken.toml", "[tool.jaxlint\n")
    code, _, err = run_cli("--config", str(tmp_path / "broken.toml"), str(tmp_path / "a.py"))
    assert (
        code == 2
        and err.startswith(f"jaxlint: error: {tmp_path}/broken.toml:1: invalid TOML: ")
        and err.count("\n") == 1
    )
    write(tmp_path, "other.toml", '[tool.jaxlint]\nselect = "JAX1"\n')
    code, _, err = run_cli("--config", str(tmp_path / "other.toml"), str(tmp_path / "a.py"))
    assert (code, err) == (2, f"jaxlint: error: {tmp_path}/other.toml:2: `select` must be a list\n")
    write(tmp_path, "jaxlint.toml", 'select = ["JAX8"]\n')
    assert run_cli("--config", str(tmp_path / "jaxlint.toml"), str(tmp_path / "a.py"))[0] == 0


def test_scripts_with_the_same_module_name_are_separate_programs(tmp_path):
    """``examples/*/train.py``: each folder of scripts imports its own siblings."""
    sync = "from jax import lax\n\n\ndef sync_grads(grads):\n    return lax.pmean(grads, axis_name='devices')\n"
    train = "import jax\n\nimport sync\n\nstep = jax.pmap(sync.sync_grads, axis_name={!r})\n"
    for folder, name in (("a", "devices"), ("b", "batch")):
        write(tmp_path, f"examples/{folder}/sync.py", sync)
        write(tmp_path, f"examples/{folder}/train.py", train.format(name))
    code, out, _ = run_cli("--no-cache", "--output-format", "concise", ".", cwd=str(tmp_path))
    assert code == 1
    assert out == (
        "examples/b/sync.py:5:12: JAX201 `lax.pmean` uses axis name 'devices', but the pmap at train.py:5 "
        "binds 'batch', not 'devices'; use the same axis name in the pmap and the collective\n"
    )
