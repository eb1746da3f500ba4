"""``jaxlint verify``: run each rule's JAX reference programs and confirm the rule.

Nothing here imports jax: the programs run in a subprocess (``harness.py``), so the
linter itself never needs the runtime extra.

May import: anything of jaxlint (it is part of the application at the top).
"""
