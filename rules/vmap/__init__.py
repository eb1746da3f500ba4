"""JAX1xx: batching with ``vmap`` and its ``in_axes``."""
