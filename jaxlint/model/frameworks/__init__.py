"""Opt-in knowledge of frameworks the core model does not import: how a test framework
runs a test function once per case (``parameterized``), and jax's own test-suite
parameterizations (``jax_test_util``). Importing this package registers them as context
providers (``jaxlint.model.contexts.PROVIDERS``); the rules that read call contexts import
it.
"""

from __future__ import annotations

from . import jax_test_util, parameterized  # noqa: F401  (each registers its provider)
