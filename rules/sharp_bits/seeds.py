"""Which units of a file the JAX5xx rules must see (read from the ``ast`` outline)."""

from __future__ import annotations

from jaxlint.plan.outline import CONFLICT, Outline


def jax_units(ol: Outline) -> set[int]:
    """Units that mention a name imported from jax: the only places a JAX array can be made
    (a def that receives one from a transform is kept as that transform's target); and
    units that use ``x.at[...]``, which only a JAX array has (JAX501 reads it as evidence)."""
    hit = ol._cache.get("jax_units")
    if hit is None:
        jaxy = {local for local, q in ol.imports.items() if q == CONFLICT or q == "jax" or q.startswith("jax.")}
        hit = {
            i
            for i, u in enumerate(ol.units)
            if not jaxy.isdisjoint(u.idents) or ("at" in u.idents and any(c.endswith(".at") for c in u.chains))
        }
        ol._cache["jax_units"] = hit
    return hit
