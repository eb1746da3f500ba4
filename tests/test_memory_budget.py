"""A file too big for the memory budget is one JAX003, never the run (issue 31).

Before: nothing bounded the memory one file could take; a statement LibCST cannot cut
into pieces took about 1.5 KB per character (a 10 MB one, 15 GB), and a 4 MB file of
plain statements 1.7 GB in the first pass alone. The budget is counted in tokens, before
anything is parsed: here it is made small, so the files stay small.
"""

import pytest

from jaxlint.api import lint_source
from jaxlint.lint import parse

JAX801 = "`jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`"


@pytest.fixture
def budget(monkeypatch):
    monkeypatch.setattr(parse, "MAX_STATEMENT_TOKENS", 2_000)
    monkeypatch.setattr(parse, "MAX_FILE_TOKENS", 20_000)
    monkeypatch.setattr(parse, "PIECE", 4_096)


def findings(text: str) -> list[tuple[str, int, str]]:
    return [(d.code, d.start.line, d.message) for d in lint_source(text, "m.py")]


def test_a_file_over_the_budget_is_one_jax003_before_anything_parses_it(budget):
    text = "import jax\ny = jax.tree_map(f, x)\n" + "x = f(x, x) + x\n" * 3_000  # 30,000 tokens and more
    assert findings(text) == [
        (
            "JAX003",
            1,
            "The file has 30,012 tokens, more than jaxlint's memory budget allows in one file (20,000, about "
            "2.5 GB); the file was not checked",
        )
    ]


def test_a_statement_over_the_budget_is_one_jax003_at_its_line(budget):
    body = "    x = f(x, x) + x\n" * 300  # 3,000 tokens and more in one def, which a rule must see
    text = "import jax\ny = jax.tree_map(f, x)\n\ndef g(x):\n    x = jax.vmap(f)(x)\n" + body + "    return x\n"
    assert findings(text) == [
        (
            "JAX003",
            4,
            "The statement at line 4 has 3,325 tokens, more than LibCST can parse within jaxlint's memory budget "
            "(2,000, about 600 MB); the file was not checked",
        )
    ]


def test_a_large_statement_no_rule_needs_costs_nothing(budget):
    body = "    x = f(x, x) + x\n" * 300  # blanked by the slicer: LibCST never sees it
    text = "import jax\ny = jax.tree_map(f, x)\n\ndef g(x):\n" + body + "    return x\n"
    assert findings(text) == [("JAX801", 2, JAX801)]


def test_a_large_class_counts_its_largest_member(budget):
    members = "".join(f"    def m{i}(self, x):\n        return jax.vmap(f)(x) + {i}\n" for i in range(300))
    text = "import jax\ny = jax.tree_map(f, x)\n\nclass C:\n" + members  # 6,000 tokens, 20 per member
    assert [c for c, _, _ in findings(text)] == ["JAX801"]
