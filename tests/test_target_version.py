"""JAX8xx fixes are safe only where their replacement exists in the lowest jax the project allows."""

from conftest import run_cli

from jaxlint.api import fix_source, lint_source
from jaxlint.lint.config import Settings

REQ = "`jax>=0.4.20,<0.5` in pyproject.toml [project] dependencies"


def _settings(minimum: str | None) -> Settings:
    s = Settings(select=["JAX801", "JAX802"])
    if minimum:
        s.minimum_jax_version, s.jax_requirement = minimum, REQ
    return s


def test_the_fix_uses_the_replacement_the_lowest_allowed_jax_has():
    src = "import jax\nt = jax.tree_map(f, t)\n"
    (d,) = lint_source(src, "a.py", _settings("0.4.20"))
    assert d.message == (
        "`jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree_util.tree_map`"
        " (your project allows jax 0.4.20, where `jax.tree.map` does not exist yet: it was added in 0.4.25)"
    )
    assert (d.fix.message, d.fix.applicability) == ("Replace with `jax.tree_util.tree_map`", "safe")
    assert fix_source(src, "a.py", _settings("0.4.20"), False)[0] == "import jax\nt = jax.tree_util.tree_map(f, t)\n"
    (d,) = lint_source(src, "a.py", _settings("0.4.25"))
    assert d.fix.message == "Replace with `jax.tree.map`" and "your project" not in d.message


def test_a_replacement_not_known_at_the_lowest_allowed_jax_makes_the_fix_unsafe():
    src = "import jax\nt = jax.core.TraceTag\n"
    (d,) = lint_source(src, "a.py", _settings("0.4.20"))
    assert d.fix.applicability == "unsafe"
    assert d.fix.message == (
        "Replace with `jax.extend.core.TraceTag` (unsafe: jaxlint knows `jax.extend.core.TraceTag` only from"
        " jax 0.8.2, and your project allows jax 0.4.20)"
    )
    assert d.message.endswith(
        "(your project allows jax 0.4.20, where `jax.extend.core.TraceTag` may not exist yet:"
        " jaxlint knows it only from 0.8.2)"
    )
    assert fix_source(src, "a.py", _settings("0.4.20"), False)[1] == 0  # not applied by --fix
    (d,) = lint_source(src, "a.py", _settings(None))
    assert d.fix.applicability == "safe"


def test_an_api_the_lowest_allowed_jax_already_lacks_says_so():
    (d,) = lint_source("import jax\nt = jax.tree_map(f, t)\n", "a.py", _settings("0.6.2"))
    assert d.message.endswith("; your project allows jax 0.6.2 and later, none of which has it")


def test_end_to_end_from_the_projects_declared_requirement(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\ndependencies = ['jax>=0.4.20,<0.5']\n")
    (tmp_path / "a.py").write_text("import jax\nt = jax.tree_map(f, t)\n")
    code, out, _ = run_cli("--no-cache", "--output-format", "concise", "a.py", cwd=str(tmp_path))
    assert code == 1 and "use `jax.tree_util.tree_map` (your project allows jax 0.4.20" in out
    run_cli("--no-cache", "--fix", "a.py", cwd=str(tmp_path))
    assert (tmp_path / "a.py").read_text() == "import jax\nt = jax.tree_util.tree_map(f, t)\n"
    # an explicit target still wins
    (tmp_path / "a.py").write_text("import jax\nt = jax.tree_map(f, t)\n")
    run_cli("--no-cache", "--fix", "--target-jax-version", "0.10.2", "a.py", cwd=str(tmp_path))
    assert (tmp_path / "a.py").read_text() == "import jax\nt = jax.tree.map(f, t)\n"


def test_device_put_replicated_advice_keeps_the_leading_device_axis():
    """Checked against jax: `device_put_replicated(x, devices)` has shape (len(devices), *x.shape);
    `device_put(x, NamedSharding(mesh, P()))` has x's shape, which the pmap after it cannot map."""
    (d,) = lint_source("import jax\nb = jax.device_put_replicated(x, jax.devices())\n", "a.py", _settings(None))
    assert "jnp.stack([x] * len(devices))" in d.message and "P('x')" in d.message
    assert "P())" not in d.message
    assert "keeps the leading device axis" in d.message
    (d,) = lint_source("import jax\nb = jax.device_put_sharded(shards, jax.devices())\n", "a.py", _settings(None))
    assert "jnp.stack(shards)" in d.message and "P('x')" in d.message
