"""JAX0xx: diagnostics the engine itself emits."""
