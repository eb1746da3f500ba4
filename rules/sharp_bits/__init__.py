"""JAX5xx: the sharp bits: in-place updates, PRNG key reuse, Python control flow on tracers."""
