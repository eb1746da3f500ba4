"""JAX2xx: collectives and parallel maps (axis names, pmap, shard_map)."""
