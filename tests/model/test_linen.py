"""What flax linen's ``Module.init`` makes (jaxlint/model/linen.py over the stub
``flax.linen.stub``): the model's variables have flax's collections, names and shapes,
checked against flax itself (marked ``jax``); where the walk cannot be sure, UNKNOWN."""

import textwrap

import pytest

from jaxlint.base.literals import UNKNOWN
from jaxlint.model.abstract import Array, Dict

from .helpers import model_with_stubs

HEADER = """
import flax.linen as nn
import jax
import jax.numpy as jnp
"""

CASES = {
    "dense_mlp": """
        class MLP(nn.Module):
            hidden: int = 32
            out: int = 4

            @nn.compact
            def __call__(self, x):
                x = nn.relu(nn.Dense(self.hidden)(x))
                return nn.Dense(self.out)(x)

        result = MLP(hidden=8).init(jax.random.key(0), jnp.ones((5, 16)))
    """,
    "nested_named_param": """
        class Block(nn.Module):
            width: int

            @nn.compact
            def __call__(self, x):
                h = nn.LayerNorm()(x)
                h = nn.Dense(self.width, name="proj")(h)
                w = self.param("gate", nn.initializers.ones, (self.width,))
                return nn.gelu(h) * w

        class Net(nn.Module):
            @nn.compact
            def __call__(self, x, train: bool = False):
                x = nn.Conv(8, (3, 3))(x)
                x = nn.BatchNorm(use_running_average=not train)(x)
                x = x.reshape((x.shape[0], -1))
                x = Block(16)(x)
                x = Block(4)(x)
                x = nn.Dropout(0.1, deterministic=True)(x)
                return nn.Dense(2)(x)

        result = Net().init(jax.random.key(0), jnp.ones((2, 6, 6, 3)))
    """,
    "setup_attributes": """
        class Tagger(nn.Module):
            vocab: int = 50

            def setup(self):
                self.embed = nn.Embed(self.vocab, 12)
                self.head = nn.Dense(3)

            def __call__(self, tokens):
                return self.head(self.embed(tokens))

        result = Tagger().init(jax.random.key(1), jnp.ones((4, 7), jnp.int32))
    """,
    "shared_layer_and_order": """
        class Shared(nn.Module):
            @nn.compact
            def __call__(self, x):
                layer = nn.Dense(5)
                return layer(layer(jnp.tanh(nn.Dense(5)(x))))

        result = Shared().init(jax.random.key(2), jnp.ones((3,)))
    """,
    "branch_on_field": """
        class Head(nn.Module):
            norm: bool = False

            @nn.compact
            def __call__(self, x):
                if self.norm:
                    x = nn.RMSNorm()(x)
                return nn.Dense(2, use_bias=False)(x)

        result = Head(norm=True).init(jax.random.key(3), jnp.ones((4, 6)))
    """,
    "method_and_params_entry": """
        class AE(nn.Module):
            @nn.compact
            def __call__(self, x):
                return self.decode(self.encode(x))

            def encode(self, x):
                return x

            def decode(self, z):
                return z

        class Enc(nn.Module):
            @nn.compact
            def __call__(self, x):
                return nn.Dense(3)(x)

            def unused(self):
                return 0

        result = Enc().init(jax.random.key(4), jnp.ones((2, 5)))["params"]
    """,
}


def _shapes(v):
    if type(v) is Dict:
        return {k: _shapes(x) for k, x in v.items}
    assert type(v) is Array and v.shape is not None and not v.shape.rest, v
    return tuple(v.shape.dims)


def _model_result(source: str):
    p = model_with_stubs(HEADER + textwrap.dedent(source))
    b = p.module_scope.bindings["result"][-1]
    return p.evaluator.value(b.value, None)


def _flax_result(source: str):
    import jax

    ns: dict = {}
    exec(HEADER + textwrap.dedent(source), ns)
    return jax.tree.map(lambda a: tuple(a.shape), dict(ns["result"]))


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_model_gives_the_variables_it_reads_from_the_stub(name):
    v = _model_result(CASES[name])
    assert type(v) is Dict, v
    _shapes(v)  # every leaf a known shape


@pytest.mark.jax
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_variables_are_those_flax_makes(name):
    pytest.importorskip("flax")
    assert _shapes(_model_result(CASES[name])) == _flax_result(CASES[name])


def test_the_names_and_collections():
    v = _shapes(_model_result(CASES["nested_named_param"]))
    assert v["params"]["Block_1"]["proj"] == {"kernel": (16, 4), "bias": (4,)}
    assert v["params"]["Block_0"]["gate"] == (16,)
    assert v["batch_stats"] == {"BatchNorm_0": {"mean": (8,), "var": (8,)}}


UNCERTAIN = {
    "loop_makes_layers": """
        class Deep(nn.Module):
            features: tuple = (8, 8)

            @nn.compact
            def __call__(self, x):
                for f in self.features:
                    x = nn.Dense(f)(x)
                return x

        result = Deep().init(jax.random.key(0), jnp.ones((2, 3)))
    """,
    "module_without_stub": """
        class Attn(nn.Module):
            @nn.compact
            def __call__(self, x):
                return nn.MultiHeadDotProductAttention(num_heads=2)(x)

        result = Attn().init(jax.random.key(0), jnp.ones((2, 4, 8)))
    """,
    "undecided_branch": """
        class Maybe(nn.Module):
            @nn.compact
            def __call__(self, x, flag):
                if flag:
                    x = nn.Dense(3)(x)
                return x

        def make(flag):
            return Maybe().init(jax.random.key(0), jnp.ones((2, 4)), flag)

        result = make(unknown_flag())
    """,
    "lifted_transform": """
        class Cell(nn.Module):
            @nn.compact
            def __call__(self, x):
                return nn.remat(nn.Dense)(3)(x)

        result = Cell().init(jax.random.key(0), jnp.ones((2, 4)))
    """,
    "mutable_collections": """
        class M(nn.Module):
            @nn.compact
            def __call__(self, x):
                return nn.Dense(3)(x)

        result = M().init(jax.random.key(0), jnp.ones((2, 4)), mutable=["params"])
    """,
}


@pytest.mark.parametrize("name", sorted(UNCERTAIN))
def test_where_the_walk_is_not_sure_the_variables_are_unknown(name):
    assert _model_result(UNCERTAIN[name]) is UNKNOWN


def test_apply_gives_the_output_shape_of_the_layers():
    src = textwrap.dedent(CASES["dense_mlp"]).replace(
        "result = MLP(hidden=8).init(jax.random.key(0), jnp.ones((5, 16)))",
        "m = MLP(hidden=8)\nresult = m.apply(m.init(jax.random.key(0), jnp.ones((16,))), jnp.ones((5, 16)))",
    )
    v = _model_result(src)
    assert type(v) is Array and v.shape.dims == (5, 4)


@pytest.mark.jax
def test_the_fixture_bug_fails_and_its_look_alike_runs():
    # fixtures/JAX105/lint/linen_init_params.py: the reported vmap raises, the shared one runs
    pytest.importorskip("flax")
    import os
    import runpy

    import jax
    import jax.numpy as jnp

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ns = runpy.run_path(os.path.join(root, "fixtures", "JAX105", "lint", "linen_init_params.py"))
    model, xs = ns["MLP"](), jnp.ones((64, 16))
    variables = model.init(jax.random.key(0), xs[0])
    assert ns["per_example_shared"](model, variables, xs).shape == (64,)
    with pytest.raises(ValueError, match="inconsistent sizes"):
        ns["per_example"](model, variables, xs)
