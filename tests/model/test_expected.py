"""Where the code expects an error (jaxlint/model/expected.py)."""

from __future__ import annotations

import libcst as cst

from jaxlint.model.expected import expects_error

from .helpers import model_of

SOURCE = """
import pytest
import jax

def test(self):
    with self.assertRaisesRegex(ValueError, "in_axes"):
        jax.vmap(f, in_axes=(0,))(a, b)
    with pytest.raises(TypeError):
        jax.grad(g)(x)
    with core.extend_axis_env_nd([("i", 2)]):
        jax.lax.psum(x, "i")
    with open(path) as fh:
        jax.jit(h)(x)
    jax.jit(k)(x)
"""


def _calls(p) -> dict[str, cst.Call]:
    """The transform and collective calls, by the name of their first argument."""
    out = {}

    class Calls(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            if type(n.func) is cst.Attribute and n.func.attr.value in ("vmap", "grad", "psum", "jit"):
                out[n.args[0].value.value] = n

    p.ctx.module.visit(Calls())
    return out


def test_calls_inside_assert_raises_and_pytest_raises_expect_an_error():
    p = model_of(SOURCE)
    calls = _calls(p)
    assert {name: expects_error(p.ctx, c) for name, c in calls.items()} == {
        "f": True, "g": True, "x": False, "h": False, "k": False,
    }


def test_an_axis_environment_set_up_by_hand_counts_only_when_asked():
    p = model_of(SOURCE)
    psum = _calls(p)["x"]
    assert expects_error(p.ctx, psum, also=("axis_env",)) is True
    assert expects_error(p.ctx, psum) is False
