"""An SGD step written against an old JAX (test data for the output formats)."""
import jax
from jax import tree_map


def sgd(params, grads, lr=0.1):
    return jax.tree_util.tree_multimap(lambda p, g: p - lr * g, params, grads)


def momentum(params, grads, velocity, lr=0.1, beta=0.9):
    velocity = jax.tree_map(lambda v, g: beta * v + g, velocity, grads)  # keep the running average of the gradients
    scale = lr * 1.0  # noqa: JAX801
    return jax.tree.map(lambda p, v: p - scale * v, params, velocity), velocity
