"""Version guards as branch context (jaxlint/model/guards.py)."""

from __future__ import annotations

import libcst as cst
import pytest

from jaxlint.model.guards import guarded, version_value

from .helpers import line_of, model_of


def _attribute_lines(source: str, attr: str) -> dict[int, bool]:
    """Line -> guarded, for every ``<x>.<attr>`` of the source."""
    p = model_of(source)
    found = []

    class Find(cst.CSTVisitor):
        def visit_Attribute(self, n: cst.Attribute) -> None:
            if n.attr.value == attr:
                found.append(n)

    p.ctx.module.visit(Find())
    return {line_of(p, n): guarded(p.ctx, n) for n in found}


@pytest.mark.parametrize(
    "source",
    [
        "import jax\nif hasattr(jax, 'tree'):\n    f = jax.tree.map\nelse:\n    f = jax.tree_map\n",
        "import jax\nf = jax.tree.map if getattr(jax, 'tree', None) is not None else jax.tree_map\n",
        "import jax\nf = getattr(jax, 'tree', None) and jax.tree.map or jax.tree_map\n",
        "import jax\ntry:\n    f = jax.tree.map\nexcept (ImportError, AttributeError, ModuleNotFoundError):\n"
        "    f = jax.tree_map\n",
        "import jax\ntry:\n    f = jax.tree.map\nexcept Exception:\n    f = jax.tree_map\n",
        "import jax\ntry:\n    f = jax.tree.map\nexcept:\n    f = jax.tree_map\n",
        "import jax\n_ERRORS = (ImportError, AttributeError)\ntry:\n    f = jax.tree.map\nexcept _ERRORS:\n"
        "    f = jax.tree_map\n",
        "import jax\ntry:\n    f = jax.numpy.reshape(x, newshape=(2,))\nexcept TypeError:\n    f = jax.tree_map\n",
        "import jax\nif jax.__version__ >= '0.4':\n    f = jax.tree.map\nelse:\n    f = jax.tree_map\n",
        "import jax\nif jax.__version_info__ >= (0, 4, 30):\n    f = jax.tree.map\nelse:\n    f = jax.tree_map\n",
        "import jax\n_V = tuple(int(p) for p in jax.__version__.split('.')[:3])\n"
        "if _V >= (0, 4, 30):\n    f = jax.tree.map\nelse:\n    f = jax.tree_map\n",
        "import jax\nNEW = hasattr(jax, 'tree')\nif NEW:\n    f = jax.tree.map\nelse:\n    f = jax.tree_map\n",
        "from jax import version\nif version.__version_info__ < (0, 4, 25):\n    f = jax.tree_map\n",
        "import jax\nfrom jax._src.lib import jaxlib_extension_version\n"
        "if jaxlib_extension_version >= 300:\n    f = jax.tree_map\n",
        "import importlib.metadata\nimport jax\nif importlib.metadata.version('jax') < '0.4':\n    f = jax.tree_map\n",
        "import importlib.util\nimport jax\nif importlib.util.find_spec('jax.extend'):\n    f = jax.tree_map\n",
        "import jax\ndef _old():\n    return jax.__version__ < '0.4.25'\nif _old():\n    f = jax.tree_map\n",
    ],
)
def test_each_guard_form_guards_its_branches(source):
    lines = _attribute_lines(source, "tree_map")
    assert lines and all(lines.values()), lines


def test_a_use_outside_the_guard_is_not_guarded():
    source = (
        "import jax\n"  # 1
        "if hasattr(jax, 'tree'):\n"  # 2
        "    f = jax.tree.map\n"  # 3
        "g = jax.tree_map\n"  # 4
        "try:\n"  # 5
        "    h = jax.tree_map\n"  # 6
        "except AttributeError:\n"  # 7
        "    pass\n"  # 8
        "else:\n"  # 9
        "    k = jax.tree_map\n"  # 10
        "if hasattr(jax, 'tree') and jax.tree_map:\n"  # 11
        "    pass\n"  # 12
    )
    assert _attribute_lines(source, "tree_map") == {4: False, 6: True, 10: False, 11: True}


@pytest.mark.parametrize(
    "source",
    [
        # tests that do not depend on a version or on what exists
        "import jax\nif debug:\n    f = jax.tree_map\n",
        "import jax\nimport numpy\nif numpy.__version__ >= '1.2':\n    f = jax.tree_map\n",
        "import jax\nif getattr(config, 'flag'):\n    f = jax.tree_map\n",
        "import jax\nversion = 3\nif version >= 2:\n    f = jax.tree_map\n",
        # a handler that does not catch what a missing API raises
        "import jax\ntry:\n    f = jax.tree_map\nexcept (ValueError, KeyError):\n    pass\n",
        # a missing API raises AttributeError, ImportError or TypeError, never NameError
        "import jax\ntry:\n    f = jax.tree_map\nexcept NameError:\n    pass\n",
        # a name the file binds is not the builtin
        "import jax\ndef hasattr(a, b):\n    return True\nif hasattr(jax, 'tree'):\n    f = jax.tree_map\n",
        "import jax\nclass AttributeError(Exception):\n    pass\n"
        "try:\n    f = jax.tree_map\nexcept AttributeError:\n    pass\n",
    ],
)
def test_other_branches_are_not_guards(source):
    lines = _attribute_lines(source, "tree_map")
    assert lines and not any(lines.values()), lines


def test_version_values_are_jaxs():
    assert version_value("jax.__version__")
    assert version_value("jax.__version__.split")
    assert version_value("jax.version._version")
    assert version_value("jaxlib.version.__version__")
    assert version_value("jax._src.lib.version")
    assert not version_value("numpy.__version__")
    assert not version_value("jax.numpy.version")


def test_a_def_counts_by_what_it_returns():
    source = (
        "import jax\n"
        "def check(x):\n"
        "    if hasattr(x, 'shape'):\n"
        "        return x.shape\n"
        "    return None\n"
        "if check(y):\n"
        "    f = jax.tree_map\n"
    )
    assert _attribute_lines(source, "tree_map") == {7: False}
