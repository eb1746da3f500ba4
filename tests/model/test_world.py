"""Values across modules: a call of a function another module of the project defines
is evaluated in that module (its own names, defaults and helpers), as a lint of the
project loads it."""

import libcst as cst

from jaxlint.model.abstract import Array, Class, Const, Dict, Function, Struct
from jaxlint.model.contexts import contexts
from jaxlint.model.mapsites import map_sites

from .helpers import def_named, project_model

MODEL = """
import jax
import jax.numpy as jnp

HIDDEN = 16

def _dense(key, n_in, n_out):
    return {"kernel": jax.random.normal(key, (n_in, n_out)), "bias": jnp.zeros(n_out)}

def init_params(key, d_in=6):
    return {"dense1": _dense(key, d_in, HIDDEN)}

class Config:
    def __init__(self, width):
        self.width = width
"""

MAIN = """
import jax
import model
from model import init_params, Config

params = init_params(jax.random.PRNGKey(0))
other = model.init_params(jax.random.PRNGKey(0), d_in=3)
cfg = Config(8)
fn = model._dense
"""


def test_a_function_of_another_module_runs_there():
    p = project_model({"main": MAIN, "model": MODEL}, "main")
    ev = p.evaluator
    vals = {
        b.name: ev.value(b.value, None) for bs in p.module_scope.bindings.values() for b in bs if b.kind == "assign"
    }
    dense = vals["params"].get("dense1")
    assert type(dense) is Dict and dense.get("kernel") == Array(dense.get("kernel").shape, dense.get("kernel").dtype)
    assert dense.get("kernel").shape.dims == (6, 16) and dense.get("bias").shape.dims == (16,)
    assert vals["other"].get("dense1").get("kernel").shape.dims == (3, 16)
    assert type(vals["cfg"]) is Struct and type(vals["cfg"].cls) is Class and vals["cfg"].get("width").value == 8
    assert type(vals["fn"]) is Function and vals["fn"].name == "_dense"


def test_a_vmap_over_parameters_another_module_builds():
    main = """
import jax
import jax.numpy as jnp
import model

def mse(params, xs, ys):
    preds = jax.vmap(model.apply)(params, xs)
    return jnp.mean((preds - ys) ** 2)

params = model.init_params(jax.random.PRNGKey(0))
mse(params, jnp.ones((40, 6)), jnp.zeros(40))
"""
    lib = MODEL + "\ndef apply(params, x):\n    return x @ params['dense1']['kernel']\n"
    p = project_model({"main": main, "model": lib}, "main")
    [site] = map_sites(p, "jax.vmap")
    [e] = site.calls
    assert [i.kind for i in e.record.issues] == ["sizes"]


LIB = """
import jax.numpy as jnp

def scale(x, factor=1):
    return x * factor
"""

RUN = """
import jax.numpy as jnp
import lib
from lib import scale

def main():
    return scale(jnp.ones((4, 3)), 3)

half = lib.scale(jnp.ones(2), factor=0.5)
"""


def test_a_def_takes_the_arguments_of_the_calls_in_the_modules_importing_it():
    p = project_model({"lib": LIB, "run": RUN}, "lib", importers={"scale": ("run",)})
    fn = def_named(p, "scale")
    frames = contexts(p.evaluator, fn, importers=True)
    got = sorted((f.get("x").shape.dims, f.get("factor")) for f in frames)
    assert got == [((2,), Const(0.5)), ((4, 3), Const(3))]
    # the calls are placed in run.py, with its path
    lines = p.ctx.exact_lines([f.site for f in frames])
    assert sorted(str(v) for v in lines.values()) == ["7 of run.py", "9 of run.py"]
    # a rule that judges such a call where it is made does not ask for them
    assert [dict(f.params) for f in contexts(p.evaluator, fn)] == [{}]


def test_an_importers_call_counts_only_when_it_calls_the_def():
    own = RUN.replace("from lib import scale", "def scale(x, factor):\n    return x")
    p = project_model({"lib": LIB, "run": own}, "lib", importers={"scale": ("run",)})
    frames = contexts(p.evaluator, def_named(p, "scale"), importers=True)
    assert [f.get("factor") for f in frames] == [Const(0.5)]


def test_a_line_of_a_library_stub_is_never_cited():
    # the frames a call through ``eqx.filter_jit`` makes pass its stub's ``fun(*args,
    # **kwargs)``; a note citing "line 21 of .../stubs/equinox._jit.stub" points the user
    # into jaxlint, so a stub's nodes get no line and the project's call is cited instead
    from .helpers import model_with_stubs

    p = model_with_stubs(
        """
        import equinox as eqx
        import jax.numpy as jnp

        def g(x):
            return x

        out = eqx.filter_jit(g)(jnp.ones(3))
        """
    )
    ev = p.evaluator
    assert ev.value(p.ctx.module.body[-1].body[0].value, None).shape.dims == (3,)
    stubs = [q for q in ev.world.programs() if q.ctx.path.endswith("equinox._jit.stub")]
    assert len(stubs) == 1
    forwarded = [n for n in stubs[0].ctx.nodes_of(cst.Call) if stubs[0].ctx.code(n) == "fun(*args, **kwargs)"]
    assert len(forwarded) == 1
    assert stubs[0].ctx.exact_lines(forwarded) != {}  # in its own file it has a line
    assert p.ctx.exact_lines(forwarded) == {}
