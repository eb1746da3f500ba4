"""jaxlint: a static linter for JAX code."""

__version__ = "0.1.0"
