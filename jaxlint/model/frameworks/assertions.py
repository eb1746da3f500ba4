"""Test frameworks' assertions that an error is raised: ``unittest``'s ``assertRaises``
family (and absl's ``assertRaisesWith...``), ``pytest.raises`` and ``numpy.testing``'s
``assert_raises``, by qualified name: there the failure a rule predicts is the point of the test
(``jaxlint.model.expected``)."""

from __future__ import annotations

from ..expected import expecting

UNITTEST = ("unittest.TestCase", "absl.testing.absltest.TestCase", "absl.testing.parameterized.TestCase")
# the callable-form assertions, with the position of the callable that must raise
CALLABLES = {"assertRaises": 1, "assertRaisesRegex": 2, "assertRaisesRegexp": 2}
ABSL_CALLABLES = {"assertRaisesWithLiteralMatch": 2, "assertRaisesWithPredicateMatch": 2}
FUNCTIONS = {"pytest.raises": 1, "numpy.testing.assert_raises": 1, "numpy.testing.assert_raises_regex": 2}
WARNS = ("assertWarns", "assertWarnsRegex")

expecting(
    contexts=(
        *(f"{case}.{m}" for case in UNITTEST for m in CALLABLES),
        *(f"{case}.{m}" for case in UNITTEST[1:] for m in ABSL_CALLABLES),
        *FUNCTIONS,
    ),
    callables={
        **{f"{case}.{m}": at for case in UNITTEST for m, at in CALLABLES.items()},
        **{f"{case}.{m}": at for case in UNITTEST[1:] for m, at in ABSL_CALLABLES.items()},
        **FUNCTIONS,
    },
    # ``with self.assertWarns(W):``, ``with pytest.warns(W):`` / ``pytest.deprecated_call()``,
    # ``with warnings.catch_warnings():``, ``@pytest.mark.filterwarnings(...)``
    warnings=(
        *(f"{case}.{m}" for case in UNITTEST for m in WARNS),
        "pytest.warns",
        "pytest.deprecated_call",
        "warnings.catch_warnings",
        "pytest.mark.filterwarnings",
    ),
)
