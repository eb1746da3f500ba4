"""Test frameworks' assertions that an error is raised: ``unittest``'s ``assertRaises``
family (and absl's ``assertRaisesWith...``), ``pytest.raises`` and ``numpy.testing``'s
``assert_raises``: there the failure a rule predicts is the point of the test
(``jaxlint.model.expected``)."""

from __future__ import annotations

from ..expected import expecting

expecting(
    contexts=(
        "assertRaises",
        "assertRaisesRegex",
        "assertRaisesRegexp",
        "assertRaisesWithLiteralMatch",
        "assertRaisesWithPredicateMatch",
        "raises",
        "assert_raises",
        "assert_raises_regex",
    ),
    callables={
        "assertRaises": 1,
        "assertRaisesRegex": 2,
        "assertRaisesRegexp": 2,
        "assertRaisesWithLiteralMatch": 2,
        "assertRaisesWithPredicateMatch": 2,
        "raises": 1,
        "assert_raises": 1,
        "assert_raises_regex": 2,
    },
    # ``with self.assertWarns(W):``, ``with pytest.warns(W):`` / ``pytest.deprecated_call()``,
    # ``with warnings.catch_warnings():``, ``@pytest.mark.filterwarnings(...)``
    warnings=("assertWarns", "assertWarnsRegex", "warns", "deprecated_call", "catch_warnings", "filterwarnings"),
)
