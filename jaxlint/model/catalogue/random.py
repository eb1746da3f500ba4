"""``jax.random``: every sampler consumes its ``key`` (``Op.key``), as do ``split`` and
``fold_in``; ``shape``, ``dtype`` and counts must be Python values when traced."""

from __future__ import annotations

from ..abstract import BOOL, INT
from . import keys as k
from . import register
from .build import Entries, family
from .rules import opaque

RANDOM = ("jax.random",)
DRAW = ("shape", "dtype")

TABLE: Entries = {
    **family(RANDOM, ["PRNGKey"], k.prng_key, static=("impl",)),
    **family(RANDOM, ["key"], k.typed_key, static=("impl",)),
    **family(RANDOM, ["split"], k.split, key="key", static=("num",)),
    **family(RANDOM, ["fold_in"], k.fold_in, key="key"),
    **family(RANDOM, ["key_data"], k.key_data),
    **family(RANDOM, ["wrap_key_data"], k.wrap_key_data, static=("impl",)),
    **family(RANDOM, ["clone"], k.same_key),
    **family(RANDOM, ["key_impl", "key_dtype"], opaque),
    **family(
        RANDOM,
        ["normal", "cauchy", "exponential", "gumbel", "laplace", "logistic", "maxwell"],
        k.draw,
        key="key",
        static=DRAW,
    ),
    **family(RANDOM, ["uniform"], k.draw, key="key", static=DRAW, params=("minval", "maxval")),
    **family(RANDOM, ["rademacher"], k.draw, key="key", static=DRAW, dtype=INT),
    **family(RANDOM, ["randint"], k.draw, key="key", static=DRAW, dtype=INT, params=("minval", "maxval")),
    **family(RANDOM, ["bernoulli"], k.draw, key="key", static=("shape", "mode"), dtype=BOOL, params=("p",)),
    **family(RANDOM, ["truncated_normal"], k.draw, key="key", static=DRAW, params=("lower", "upper")),
    **family(RANDOM, ["beta"], k.draw, key="key", static=DRAW, params=("a", "b")),
    **family(RANDOM, ["gamma", "loggamma"], k.draw, key="key", static=DRAW, params=("a",)),
    **family(RANDOM, ["chisquare", "t"], k.draw, key="key", static=DRAW, params=("df",)),
    **family(RANDOM, ["f"], k.draw, key="key", static=DRAW, params=("dfnum", "dfden")),
    **family(RANDOM, ["pareto"], k.draw, key="key", static=DRAW, params=("b",)),
    **family(RANDOM, ["poisson"], k.draw, key="key", static=DRAW, dtype=INT, params=("lam",)),
    **family(RANDOM, ["geometric"], k.draw, key="key", static=DRAW, dtype=INT, params=("p",)),
    **family(RANDOM, ["binomial"], k.draw, key="key", static=DRAW, params=("n", "p")),
    **family(RANDOM, ["generalized_normal"], k.draw, key="key", static=DRAW, params=("p",)),
    **family(RANDOM, ["lognormal"], k.draw, key="key", static=DRAW, params=("sigma",)),
    **family(RANDOM, ["rayleigh"], k.draw, key="key", static=DRAW, params=("scale",)),
    **family(RANDOM, ["wald"], k.draw, key="key", static=DRAW, params=("mean",)),
    **family(RANDOM, ["weibull_min"], k.draw, key="key", static=DRAW, params=("scale", "concentration")),
    **family(RANDOM, ["double_sided_maxwell"], k.draw, key="key", static=DRAW, params=("loc", "scale")),
    **family(RANDOM, ["triangular"], k.draw, key="key", static=DRAW, params=("left", "mode", "right")),
    **family(RANDOM, ["dirichlet"], k.draw, key="key", static=DRAW, params=("alpha",), suffix=("alpha",)),
    **family(
        RANDOM, ["multivariate_normal"], k.draw, key="key", static=(*DRAW, "method"), params=("mean",), suffix=("mean",)
    ),
    **family(RANDOM, ["multinomial"], k.multinomial, key="key", static=DRAW),
    **family(RANDOM, ["categorical"], k.categorical, key="key", static=("axis", "shape", "replace")),
    **family(RANDOM, ["choice"], k.choice, key="key", static=("shape", "replace", "axis")),
    **family(RANDOM, ["permutation"], k.permutation, key="key", static=("axis", "independent")),
    **family(RANDOM, ["orthogonal"], k.orthogonal, key="key", static=("n", "shape", "dtype", "m")),
    **family(RANDOM, ["ball"], k.ball, key="key", static=("d", "p", "shape", "dtype")),
    **family(RANDOM, ["bits"], k.bits, key="key", static=DRAW),
}

register(TABLE)
