"""How a qualified name is spelled in a file, and the import a fix adds (jaxlint/model/importer.py)."""

from __future__ import annotations

import libcst as cst

from jaxlint.model.importer import Insertion, Spelling, importer

from .helpers import model_of


def _importer(source: str):
    return importer(model_of(source).ctx)


def _expr(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


def test_an_existing_import_is_reused():
    imp = _importer("import jax\nx = 1\n")
    assert imp.spell("jax.tree.map") == Spelling("jax.tree.map", (), "jax")


def test_the_shortest_module_level_spelling_wins():
    imp = _importer("import jax\nimport jax.numpy as jnp\nfrom jax import lax\n")
    assert imp.spell("jax.numpy.sort") == Spelling("jnp.sort", (), "jax.numpy")
    assert imp.spell("jax.lax.pcast") == Spelling("lax.pcast", (), "jax.lax")
    assert imp.spell("jax.random.key") == Spelling("jax.random.key", (), "jax")


def test_the_written_alias_is_kept():
    imp = _importer("import jax as J\nimport jax.numpy as jnp\n")
    assert imp.spell("jax.tree.map", like=_expr("J.tree_map")) == Spelling("J.tree.map", (), "jax")
    assert imp.spell("jax.numpy.sort", like=_expr("jnp")) == Spelling("jnp.sort", (), "jax.numpy")


def test_an_import_is_added_after_the_docstring_and_future_imports():
    src = '"""Doc."""\nfrom __future__ import annotations\n\nimport numpy as np\nx = np.ones(3)\n'
    imp = _importer(src)
    assert imp.import_line() == 4  # after the blank line: just before the first other statement
    assert imp.spell("jax.tree.map") == Spelling("jax.tree.map", (Insertion(4, "import jax\n"),), "jax")


def test_no_import_over_a_name_the_file_uses():
    imp = _importer("def f(jax):\n    return jax\n")
    assert imp.spell("jax.tree.map") is None


def test_an_import_inside_a_function_is_not_module_level():
    imp = _importer("def f():\n    import jax.numpy as jnp\n    return jnp\n")
    assert imp.module_imports() == {}
    assert imp.spell("jax.numpy.sort") == Spelling("jax.numpy.sort", (Insertion(1, "import jax\n"),), "jax")


def test_qualified_is_the_written_name_without_aliases():
    imp = _importer("import jax.numpy as jnp\nfrom jax import lax\nfrom jax.experimental import shard_map\n")
    assert imp.qualified(_expr("jnp.reshape")) == "jax.numpy.reshape"
    assert imp.qualified(_expr("lax.tie_in")) == "jax.lax.tie_in"
    assert imp.qualified(_expr("shard_map.shard_map")) == "jax.experimental.shard_map.shard_map"
    assert imp.qualified(_expr("np.ones")) is None
    assert imp.qualified(_expr("f(x).y")) is None


def test_imports_merge_into_one_insertion():
    s = Spelling("jax.extend.core.Primitive", (Insertion(1, "import jax\n"),), "jax")
    assert s.adding(Insertion(1, "import jax.extend.core\n")).imports == (
        Insertion(1, "import jax\nimport jax.extend.core\n"),
    )
