"""jax's own test suite: ``jtu.sample_product(**axes)`` runs a test once per combination
of the axes' values (like absl's ``product``), and ``jtu.cases_from_list(cases)`` is the
list of cases ``parameters`` is given; ``check_raises(f, Err, msg)`` expects ``f`` to
raise. Only for linting jax itself, or code that uses its test utilities."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from ..catalogue.host import INSTANCE_METHODS
from ..contexts import PROVIDERS, Case
from ..expected import expecting
from . import parameterized

if TYPE_CHECKING:
    from ..evaluate import Evaluator

MODULES = ("jax._src.test_util", "jax.test_util")
KINDS = {f"{m}.sample_product": "product" for m in MODULES}


def provide(ev: Evaluator, fn: Any) -> list[Case] | None:
    if type(fn) is not cst.FunctionDef or not fn.decorators:
        return None
    return parameterized.decorated_cases(ev, fn, KINDS)


PROVIDERS.append(provide)
# ``jtu.check_raises(lambda: ..., Err, msg)``: the callable must raise
expecting(callables={"check_raises": 0, "check_raises_regexp": 0})
# ``@jtu.ignore_warning(category=DeprecationWarning)``, ``with self.assertDeprecationWarnsOrRaises(...)``:
# the test silences or expects the deprecation on purpose
expecting(warnings=("ignore_warning", "assertDeprecationWarnsOrRaises"))
# ``self.rng()`` of a ``JaxTestCase``: the numpy ``RandomState`` its ``setUp`` seeds from the
# test's name (``npr.RandomState(zlib.adler32(...))``)
for _module in MODULES:
    INSTANCE_METHODS[f"{_module}.JaxTestCase"] = {"rng": "numpy.random.RandomState"}
