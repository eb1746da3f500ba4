"""The cases of a parameterized test in the program model: what each parameter takes,
case by case, and unknown where the decorator does not say."""

from __future__ import annotations

import libcst as cst

from jaxlint.model.cases import cases, evaluating, skips_some
from jaxlint.model.shapes import Shape, shape

from .helpers import model_of, reads

HEADER = """
import numpy as np
import pytest
from absl.testing import parameterized
from jax import lax
from jax._src import test_util as jtu
"""


def _def(p, name: str) -> cst.FunctionDef:
    return next(n for n, entering in p.ctx._events if entering and type(n) is cst.FunctionDef and n.name.value == name)


def _values(source: str, name: str = "test") -> list[dict[str, str]] | None:
    p = model_of(HEADER + source)
    found = cases(p, _def(p, name))
    if found is None:
        return None
    text = cst.Module(body=[]).code_for_node  # also for the nodes a comprehension builds
    return [{k: text(v) for k, v in c.values.items()} for c in found]


def test_named_parameters_comprehension_over_tuples():
    got = _values("""
class T:
  @parameterized.named_parameters(
      {"testcase_name": f"_{axis}", "axis": axis, "shape": shape, "dtype": dtype, "idxs": idxs}
      for dtype in [np.float32, np.int32]
      for axis, shape, idxs in [(0, (3, 5), np.array([[0], [2]])), (1, (10, 3), np.array([[0]]))])
  def test(self, axis, shape, dtype, idxs):
    pass
""")
    assert got == [
        {"axis": "0", "shape": "(3, 5)", "dtype": "np.float32", "idxs": "np.array([[0], [2]])"},
        {"axis": "1", "shape": "(10, 3)", "dtype": "np.float32", "idxs": "np.array([[0]])"},
        {"axis": "0", "shape": "(3, 5)", "dtype": "np.int32", "idxs": "np.array([[0], [2]])"},
        {"axis": "1", "shape": "(10, 3)", "dtype": "np.int32", "idxs": "np.array([[0]])"},
    ]


def test_products_parameters_and_parametrize():
    assert _values("""
class T:
  @jtu.sample_product(n=[1, 16], dtype=jtu.dtypes.floating)
  def test(self, n, dtype):
    pass
""") == [{"n": "1"}, {"n": "16"}]
    assert _values("""
class T:
  @parameterized.parameters((1, "a"), (2, "b"))
  def test(self, n, s):
    pass
""") == [{"n": "1", "s": '"a"'}, {"n": "2", "s": '"b"'}]
    assert _values("""
@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("m, k", [(1, 2)])
def test(n, m, k):
  pass
""") == [{"n": "3", "m": "1", "k": "2"}, {"n": "4", "m": "1", "k": "2"}]


def test_unknown_where_the_decorator_does_not_say():
    assert (
        _values("""
class T:
  @parameterized.parameters(*CASES)
  def test(self, n):
    pass
""")
        is None
    )
    assert (
        _values("""
class T:
  @parameterized.parameters([(n,) for n in range(4) if n % 2])
  def test(self, n):
    pass
""")
        is None
    )  # a filter
    assert (
        _values("""
class T:
  @parameterized.named_parameters(("a", 1), ("b", 2))
  @parameterized.parameters((1,), (2,))
  def test(self, n):
    pass
""")
        is None
    )  # stacked absl decorators
    assert _values("""
class T:
  @parameterized.parameters([(n, n * 2) for n in range(2)])
  def test(self, n, m):
    pass
""") == [{"n": "0"}, {"n": "1"}]  # ``m`` reads ``n`` otherwise than as itself: unknown


def test_shapes_in_a_case_and_skipping_guards():
    p = model_of(
        HEADER
        + """
class T:
  @parameterized.parameters(((3, 5),), ((2,),))
  def test(self, shape):
    rng = jtu.rand_default(self.rng())
    x = rng(shape, np.float32)
    y = np.array([[0, 1], [2, 3], [4, 5]])
    print(x, y)

  @parameterized.parameters((1,), (2,))
  def test_skips(self, n):
    if n > 1:
      self.skipTest("no")
"""
    )
    fn = _def(p, "test")
    x, y = reads(p, "x")[-1], reads(p, "y")[-1]
    assert shape(p, x) is None and shape(p, y) == Shape((3, 2))
    got = []
    for case in cases(p, fn):
        with evaluating(p, case):
            got.append((shape(p, x), case.label(p.ctx)))
    assert got == [(Shape((3, 5)), "shape=(3, 5)"), (Shape((2,)), "shape=(2,)")]
    assert shape(p, x) is None  # outside a case, unknown again
    assert not skips_some(p, fn) and skips_some(p, _def(p, "test_skips"))
