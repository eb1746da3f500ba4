"""Parameterized tests as call contexts: the cases a framework runs a test function
with, evaluated by the model, one frame per case (jaxlint.model.frameworks)."""

from __future__ import annotations

import libcst as cst

from jaxlint.model import frameworks  # noqa: F401  (registers the providers)
from jaxlint.model.abstract import Function, constant
from jaxlint.model.contexts import case_of, contexts

from .helpers import model_of

HEADER = """
import numpy as np
import jax.numpy as jnp
import pytest
from absl.testing import parameterized
from jax._src import test_util as jtu
"""


def _cases(source: str, name: str = "test"):
    p = model_of(HEADER + source)
    fn = next(n for n, entering in p.ctx._events if entering and type(n) is cst.FunctionDef and n.name.value == name)
    frames = contexts(p.evaluator, fn)
    out = []
    for f in frames:
        if case_of(f) is None:
            return None
        out.append({k: constant(v) for k, v in f.params})
    return out


def test_named_parameters_comprehension_over_tuples():
    got = _cases("""
class T:
  @parameterized.named_parameters(
      {"testcase_name": f"_{axis}", "axis": axis, "shape": shape}
      for dtype in [np.float32, np.int32]
      for axis, shape in [(0, (3, 5)), (1, (10, 3))])
  def test(self, axis, shape):
    pass
""")
    assert got == [
        {"axis": 0, "shape": (3, 5)},
        {"axis": 1, "shape": (10, 3)},
        {"axis": 0, "shape": (3, 5)},
        {"axis": 1, "shape": (10, 3)},
    ]


def test_products_parameters_and_stacked_parametrize():
    assert _cases("""
class T:
  @jtu.sample_product(n=[1, 16], m=[2])
  def test(self, n, m):
    pass
""") == [{"n": 1, "m": 2}, {"n": 16, "m": 2}]
    assert _cases("""
class T:
  @parameterized.parameters((1, "a"), (2, "b"))
  def test(self, n, s):
    pass
""") == [{"n": 1, "s": "a"}, {"n": 2, "s": "b"}]
    assert _cases("""
@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("m, k", [(1, 2)])
def test(n, m, k):
  pass
""") == [{"n": 3, "m": 1, "k": 2}, {"n": 4, "m": 1, "k": 2}]
    assert _cases("""
class T:
  @parameterized.parameters(*[dict(axis=a) for a in range(3) if a != 1])
  def test(self, axis):
    pass
""") == [{"axis": 0}, {"axis": 2}]


def test_no_cases_where_the_decorator_does_not_say_or_some_cases_leave():
    assert (
        _cases("""
class T:
  @parameterized.parameters(*CASES)
  def test(self, n):
    pass
""")
        is None
    )
    assert (
        _cases("""
class T:
  @parameterized.named_parameters(("a", 1), ("b", 2))
  @parameterized.parameters((1,), (2,))
  def test(self, n):
    pass
""")
        is None
    )  # stacked absl decorators
    assert (
        _cases("""
class T:
  @parameterized.parameters((1,), (2,))
  def test(self, n):
    if n > 1:
      self.skipTest("no")
""")
        is None
    )


def test_a_case_frame_gives_shapes_and_names_the_case():
    p = model_of(
        HEADER
        + """
class T:
  @parameterized.parameters(((3, 5),), ((2,),))
  def test(self, shape):
    x = jnp.zeros(shape)
    return x
"""
    )
    fn = next(n for n, entering in p.ctx._events if entering and type(n) is cst.FunctionDef and n.name.value == "test")
    ev = p.evaluator
    ret = [ev.returned(Function(fn, None, p), f) for f in contexts(ev, fn)]
    assert [r.shape.dims for r in ret] == [(3, 5), (2,)]
    assert [case_of(f).label for f in contexts(ev, fn)] == ["shape=(3, 5)", "shape=(2,)"]


def test_a_jax_test_case_draws_from_the_random_state_of_its_rng():
    from jaxlint.model.abstract import Array
    from jaxlint.model.contexts import default_frame

    p = model_of(
        HEADER + "class T(jtu.JaxTestCase):\n"
        "    def test(self):\n"
        "        return self.rng().randn(3, 4), self.rng().uniform(size=(5,)), self.other().randn(2)\n"
    )
    fn = next(n for n, entering in p.ctx._events if entering and type(n) is cst.FunctionDef and n.name.value == "test")
    ev = p.evaluator
    a, b, c = ev.returned(ev.value(fn, None), default_frame(ev, fn)).items
    assert type(a) is Array and a.shape.dims == (3, 4) and a.host
    assert type(b) is Array and b.shape.dims == (5,)
    assert type(c) is not Array  # not a method jax's test case has: unknown
