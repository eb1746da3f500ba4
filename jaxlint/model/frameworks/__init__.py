"""Opt-in knowledge of frameworks the core model does not import: how a test framework
runs a test function once per case (``parameterized``), its assertions that an error is
raised (``assertions``), and jax's own test-suite helpers (``jax_test_util``). Importing
this package registers them (``jaxlint.model.contexts.PROVIDERS``,
``jaxlint.model.expected.expecting``); the engine imports it.
"""

from __future__ import annotations

from . import assertions, jax_test_util, parameterized

REGISTERED = (assertions, parameterized, jax_test_util)  # importing each registered what it knows
