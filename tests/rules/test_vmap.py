"""JAX1xx (vmap): exact codes, positions, headlines and notes, on the semantic model —
what a call passes decides (sizes, ranks, the function on the slices), never a name."""

import os
from importlib.util import find_spec

import pytest
from conftest import FIXTURES, raised_by, raised_by_project

from jaxlint import testing

needs_jax = pytest.mark.skipif(find_spec("jax") is None, reason="needs jax")


def _lint(source, code):
    return [(d.code, d.start.line, d.start.column, d.message, d.note) for d in testing.lint(source, code)]


def test_seed_linear_layer_is_clean():
    with open(os.path.join(FIXTURES, "seeds", "c4_1_vmap_linear_layer.py"), encoding="utf-8") as f:
        seed = f.read()
    for code in ("JAX101", "JAX102", "JAX103", "JAX104", "JAX105"):
        assert _lint(seed, code) == []


def test_no_call_in_view_is_silent():
    # the old name-based reading reported this; what the arguments are is not known
    src = "import jax.numpy as jnp\nfrom jax import vmap\n\ndef linear(x, w, b):\n    return jnp.dot(w, x) + b\n\nbatch = vmap(linear)\n"
    for code in ("JAX101", "JAX104", "JAX105"):
        assert _lint(src, code) == []


def test_fixes_put_none_at_the_culprit():
    src = "import jax, jax.numpy as jnp\ndef project(x, w):\n    return x @ w\nout = jax.vmap(project)(jnp.ones((10, 10)), jnp.ones((10, 5)))\n"
    assert testing.fix(src, "JAX101") == src.replace("jax.vmap(project)", "jax.vmap(project, in_axes=(0, None))")
    src = "import jax, jax.numpy as jnp\nout = jax.vmap(lambda x, n: x * n, in_axes=0)(jnp.ones((8, 3)), 3)\n"
    assert testing.fix(src, "JAX104") == src.replace("in_axes=0", "in_axes=(0, None)")


def test_sizes_default():
    src = "import jax, jax.numpy as jnp\n\ndef predict(params, x):\n    return x @ params['w'] + params['b']\n\nparams = {'w': jnp.ones((16, 4)), 'b': jnp.zeros(4)}\nlogits = jax.vmap(predict)(params, jnp.ones((64, 16)))\n"
    assert _lint(src, "JAX105") == [
        (
            "JAX105",
            7,
            10,
            "`vmap(predict)` maps axes of different sizes: `params['b']` has 4, `params['w']` has 16",
            "JAX raises `ValueError: vmap got inconsistent sizes for array axes to be mapped`. Mapped sizes: `params['b']` has 4, `params['w']` has 16, `jnp.ones((64, 16))` has 64",
        )
    ]


def test_sizes_context():
    src = "import jax, jax.numpy as jnp\n\ndef predict(params, x):\n    return x @ params['w']\n\ndef run(params, xs):\n    return jax.vmap(predict)(params, xs)\n\nrun({'w': jnp.ones((16, 4))}, jnp.ones((64, 16)))\n"
    assert _lint(src, "JAX105") == [
        (
            "JAX105",
            7,
            12,
            "`vmap(predict)` maps axes of different sizes: `params['w']` has 16, `xs` has 64",
            "with the arguments from line 9: JAX raises `ValueError: vmap got inconsistent sizes for array axes to be mapped`. Mapped sizes: `params['w']` has 16, `xs` has 64",
        )
    ]


def test_sizes_axis_size():
    src = (
        "import jax, jax.numpy as jnp\nout = jax.vmap(lambda x, y: x + y, axis_size=2)(jnp.ones((4, 3)), jnp.ones(4))\n"
    )
    assert _lint(src, "JAX105") == [
        (
            "JAX105",
            2,
            7,
            "`vmap(lambda)` has `axis_size=2`, but `jnp.ones((4, 3))` has 4",
            "JAX raises `ValueError: vmap got inconsistent sizes for array axes to be mapped` (axis 0 is the mapped one)",
        )
    ]


def test_sizes_symbolic_equal():
    src = "import jax, jax.numpy as jnp\ndef f(x):\n    y = jnp.zeros((x.shape[0], 2))\n    return jax.vmap(lambda a, b: a.sum() + b.sum())(x, y)\n"
    assert _lint(src, "JAX105") == []


def test_sizes_symbolic_differ():
    src = "import jax, jax.numpy as jnp\ndef f(x):\n    y = jnp.zeros((x.shape[0] + 1, 2))\n    return jax.vmap(lambda a, b: a.sum() + b.sum())(x, y)\n"
    assert _lint(src, "JAX105") == [
        (
            "JAX105",
            4,
            12,
            "`vmap(lambda)` maps axes of different sizes: `x` has x.shape[0], `y` has x.shape[0] + 1",
            "JAX raises `ValueError: vmap got inconsistent sizes for array axes to be mapped`. Mapped sizes: `x` has x.shape[0], `y` has x.shape[0] + 1",
        )
    ]


def test_sizes_of_a_parameter_and_its_arithmetic():
    # a parameter no call shows, used as a size: an int, so n and n + 1 differ for every n
    src = (
        "import jax, jax.numpy as jnp\ndef make_batch(n):\n    return jnp.ones((n, 3)), jnp.ones((n + 1,))\n"
        "def run(n):\n    xs, ys = make_batch(n)\n    return jax.vmap(lambda x, y: x.sum() * y)(xs, ys)\n"
    )
    assert [(c, line, m) for c, line, _, m, _ in _lint(src, "JAX105")] == [
        ("JAX105", 6, "`vmap(lambda)` maps axes of different sizes: `xs` has n, `ys` has n + 1")
    ]
    # 2 * n - 1 is n when n is 1: not proven different
    assert _lint(src.replace("(n + 1,)", "(2 * n - 1,)"), "JAX105") == []


def test_rank_int():
    src = "import jax, jax.numpy as jnp\nout = jax.vmap(lambda x, n: x * n)(jnp.ones((8, 3)), 3)\n"
    assert _lint(src, "JAX104") == [
        (
            "JAX104",
            2,
            7,
            "`vmap(lambda)` maps `3` along axis 0, but it is the Python int `3` (rank 0)",
            "JAX raises `ValueError: vmap was requested to map its argument along axis ...`; give it `None` in `in_axes`",
        )
    ]


def test_rank_axis():
    src = "import jax, jax.numpy as jnp\nout = jax.vmap(lambda x: x, in_axes=2)(jnp.ones((8, 3)))\n"
    assert _lint(src, "JAX104") == [
        (
            "JAX104",
            2,
            7,
            "`vmap(lambda)` maps `jnp.ones((8, 3))` along axis 2, but it has shape (8, 3)",
            "JAX raises `ValueError: vmap was requested to map its argument along axis ...`; give it `None` in `in_axes`",
        )
    ]


def test_rank_callable():
    src = "import jax, jax.numpy as jnp\ndef apply(x, f):\n    return f(x)\nout = jax.vmap(apply)(jnp.ones((8, 3)), jnp.tanh)\n"
    assert _lint(src, "JAX104") == [
        (
            "JAX104",
            4,
            7,
            "`vmap(apply)` maps `jnp.tanh` along axis 0, but it is a Python callable, not a JAX type",
            "JAX raises `TypeError: ... is not a valid JAX type`; give it `None` in `in_axes`",
        )
    ]


def test_rank_leaf():
    src = "import jax, jax.numpy as jnp\ndef f(p, x):\n    return p['w'] * x + p['b']\nout = jax.vmap(f)({'w': jnp.ones(8), 'b': jnp.zeros(())}, jnp.ones(8))\n"
    assert _lint(src, "JAX104") == [
        (
            "JAX104",
            4,
            7,
            "`vmap(f)` maps `['b']` of argument 1 along axis 0, but it has shape ()",
            "JAX raises `ValueError: vmap was requested to map its argument along axis ...`; give it `None` in `in_axes`",
        )
    ]


def test_an_instance_of_a_class_registered_by_a_call_is_a_jax_type():
    """A plain class is one leaf vmap rejects, unless the module hands it to a registration
    call (``register_pytree_node``, or ``batching.register_vmappable`` as jax's batching_test
    does) anywhere: then JAX flattens it its own way."""
    src = (
        "import jax, jax.numpy as jnp\n"
        "class A:\n    def __init__(self, data):\n        self.data = data\n"
        "out = jax.vmap(lambda a: a, axis_size=3)(A(jnp.arange(3.0)))\n"
    )
    assert [m for _, _, _, m, _ in _lint(src, "JAX104")] == [
        "`vmap(lambda)` maps `A(jnp.arange(3.0))` along axis 0, but it is an instance of `A`, not a JAX type"
    ]
    pytree = src + "jax.tree_util.register_pytree_node(A, lambda a: ((a.data,), None), lambda _, c: A(*c))\n"
    assert _lint(pytree, "JAX104") == []
    vmappable = (
        "from jax._src.interpreters import batching\n"
        + src
        + "batching.register_vmappable(A, int, int, to_elt, from_elt, None)\n"
    )
    assert _lint(vmappable, "JAX104") == []


def test_rank_static():
    src = "import jax\ndef step(x, n):\n    return x * n\nstep_b = jax.jit(jax.vmap(step, in_axes=(0, 0)), static_argnums=1)\n"
    assert _lint(src, "JAX104") == [
        (
            "JAX104",
            4,
            18,
            "`vmap(step)` maps argument 2, which the `jax.jit` around it makes static",
            "`static_argnums` makes every call pass it as a Python value, which has no axis to map: JAX raises `ValueError: vmap was requested to map its argument along axis 0 ...`; give it `None` in `in_axes`",
        )
    ]


def test_rank_static_needs_an_entry_that_maps():
    """An entry the evaluator cannot show to hold an axis (a tree_map's result, here a tree of
    Nones: flax's lm1b decoding) is no mapped static argument."""
    src = (
        "import jax\n"
        "def step(x, params, n):\n    return x * n\n"
        "def make(params):\n"
        "    entry = jax.tree_util.tree_map(lambda p: None, params)\n"
        "    return jax.jit(jax.vmap(step, in_axes=(0, entry, entry)), static_argnums=(1, 2))\n"
    )
    assert _lint(src, "JAX104") == []
    assert [m for _, _, _, m, _ in _lint(src.replace("(0, entry, entry)", "(0, entry, [0])"), "JAX104")] == [
        "`vmap(step)` maps argument 3, which the `jax.jit` around it makes static"
    ]


def test_shared_dot():
    src = "import jax, jax.numpy as jnp\ndef residual(w, x, y):\n    return jnp.dot(w, x) - y\nr = jax.vmap(residual, in_axes=(0, 0, 0))(jnp.ones(3), jnp.ones((3, 3)), jnp.ones(3))\n"
    assert _lint(src, "JAX101") == [
        (
            "JAX101",
            4,
            5,
            "`vmap(residual)` slices `jnp.ones(3)` per example, but `residual` needs it whole",
            "on one example's slices, `jnp.dot(w, x)` at line 3 contracts a rank-0 operand (dot of a rank-0 operand multiplies elementwise instead of contracting (shapes () and (3,))); give it `None` in `in_axes`",
        )
    ]


def test_shared_matmul():
    src = "import jax, jax.numpy as jnp\ndef project(x, w):\n    return x @ w\nout = jax.vmap(project)(jnp.ones((10, 10)), jnp.ones((10, 5)))\n"
    assert _lint(src, "JAX101") == [
        (
            "JAX101",
            4,
            7,
            "`vmap(project)` slices `jnp.ones((10, 5))` per example, but `project` needs it whole",
            "on one example's slices, `x @ w` at line 3 gets operands whose shapes do not fit (dot_general requires contracting dimensions to have the same shape, got (10,) and (5,).); give it `None` in `in_axes`",
        )
    ]


def test_shared_loop_bound():
    src = "import jax, jax.numpy as jnp\ndef repeat(x, n):\n    for _ in range(n):\n        x = jnp.tanh(x)\n    return x\nout = jax.vmap(repeat)(jnp.ones((8, 3)), jnp.arange(8))\n"
    assert _lint(src, "JAX101") == [
        (
            "JAX101",
            6,
            7,
            "`vmap(repeat)` slices `jnp.arange(8)` per example, but `repeat` needs it whole",
            "on one example's slices, `range(n)` at line 3 fails (`range()` of a traced array needs a concrete value (ConcretizationTypeError)); give it `None` in `in_axes`",
        )
    ]


def test_an_argument_a_jit_around_the_map_traces_is_no_culprit():
    # under ``jit`` ``n`` is a tracer whether or not the map slices it: ``range(n)`` fails
    # either way (a JAX503 matter), so mapping ``n`` is not what breaks the body; the
    # same holds for equinox's ``filter_jit``, which traces every array leaf
    for deco in ("jax.jit", "eqx.filter_jit"):
        src = (
            "import equinox as eqx, jax, jax.numpy as jnp\n"
            "def repeat(x, n):\n    for _ in range(n):\n        x = jnp.tanh(x)\n    return x\n"
            f"@{deco}\ndef run(xs, ns):\n    return jax.vmap(repeat)(xs, ns)\n"
            "out = run(jnp.ones((8, 3)), jnp.arange(8))\n"
        )
        assert _lint(src, "JAX101") == [], deco
    # without the jit, the map is what makes ``n`` a tracer
    src = src.replace("@eqx.filter_jit\n", "")
    assert [f[:2] for f in _lint(src, "JAX101")] == [("JAX101", 7)]


def test_shared_two():
    src = "import jax, jax.numpy as jnp\ndef att(w, q):\n    s = q @ w\n    return s.shape[-1]\nout = jax.vmap(att)(jnp.ones((8, 8)), jnp.ones((8, 8)))\n"
    assert _lint(src, "JAX101") == [
        (
            "JAX101",
            5,
            7,
            "`vmap(att)` slices `jnp.ones((8, 8))` and `jnp.ones((8, 8))` per example; `att` needs one of them whole",
            "on one example's slices, `s.shape[-1]` at line 4 fails (IndexError: tuple index -1 out of range (0 items)); give the shared one `None` in `in_axes`",
        )
    ]


def test_arity_call():
    src = "import jax\ndef f(x, w, b):\n    return w @ x + b\nout = jax.vmap(f, in_axes=(0, None))(xs, w, b)\n"
    assert _lint(src, "JAX102") == [
        (
            "JAX102",
            4,
            7,
            "`in_axes=(0, None)` has 2 entries, but `vmap(f)` is called with 3 positional arguments",
            "`jax.vmap(f, in_axes=(0, None))(xs, w, b)`: JAX raises `ValueError: vmap in_axes must be ... a tuple of entries corresponding to the positional arguments`; give one entry per positional argument",
        )
    ]


def test_arity_under_decorators_that_pass_the_call_on():
    """``@jax.named_scope(...)`` keeps the function and ``@jax.jit`` calls it with the same
    arguments: a call of the def is a call of the vmap below them (jax's name_stack_test,
    flax's tracer-leak test). A decorator nothing is known of keeps the rule silent."""
    body = "@functools.partial(jax.vmap, in_axes=(0,))\ndef f(x, y):\n    return x + y\nf(jnp.arange(2.0), True)\n"
    head = "import functools\nimport jax\nimport jax.numpy as jnp\n"
    for above in ("@jax.named_scope('foo')\n", "@jax.jit\n", "@jax.named_scope('foo')\n@jax.jit\n"):
        assert [(c, m) for c, _, _, m, _ in _lint(head + above + body, "JAX102")] == [
            ("JAX102", "`in_axes=(0,)` has 1 entry, but `vmap(f)` is called with 2 positional arguments")
        ], above
    assert _lint(head + "@some_library.wrap\n" + body, "JAX102") == []


def test_arity_sig():
    src = "from jax import vmap\ng = vmap(lambda x, y: x + y, in_axes=[0, 0, 0])\n"
    assert _lint(src, "JAX102") == [
        (
            "JAX102",
            2,
            5,
            "`in_axes=[0, 0, 0]` has 3 entries, but the lambda takes at most 2 positional arguments",
            "it takes (x, y): every call of `vmap(lambda)` fails; give one entry per positional argument",
        )
    ]


def test_arity_star():
    src = "import jax\ndef f(x, w, b):\n    return w @ x + b\nout = jax.vmap(f, in_axes=(0, None))(xs, *wb)\n"
    assert _lint(src, "JAX102") == [
        (
            "JAX102",
            4,
            7,
            "`in_axes=(0, None)` has 2 entries, but whatever `*wb` holds, `f` takes exactly 3 positional arguments",
            "in `jax.vmap(f, in_axes=(0, None))(xs, *wb)`: JAX raises `ValueError: vmap in_axes must be ... a tuple of entries corresponding to the positional arguments`, or the call of `f` fails; give one entry per positional argument",
        )
    ]


def test_structure():
    src = "import jax, jax.numpy as jnp\nparams = {'w': jnp.ones(3), 'b': jnp.ones(3)}\nout = jax.vmap(lambda p, x: x, in_axes=({'w': 0}, 0))(params, jnp.ones(3))\n"
    assert _lint(src, "JAX102") == [
        (
            "JAX102",
            3,
            7,
            "`vmap(lambda)`: the `in_axes` entry for `params` is not a prefix of it",
            "`params` is a dict with keys 'w', 'b'; JAX raises `ValueError: vmap in_axes specification must be a tree prefix of the corresponding value`; give that argument one entry, or one with its structure",
        )
    ]


def test_nothing():
    src = "import jax\nf = jax.vmap(g, in_axes=(None, None))\n"
    assert _lint(src, "JAX103") == [
        (
            "JAX103",
            2,
            5,
            "`vmap(g)` maps nothing: `in_axes=(None, None)` and no `axis_size=`",
            "JAX raises `ValueError: vmap must have at least one non-None value in in_axes`; put `0` at the batched argument's position, or pass `axis_size=`",
        )
    ]


def test_nothing_call():
    src = "import jax, jax.numpy as jnp\nout = jax.vmap(lambda x: x, in_axes=None)(jnp.ones(3))\n"
    assert _lint(src, "JAX103") == [
        (
            "JAX103",
            2,
            7,
            "`vmap(lambda)` maps nothing: `in_axes=None` and no `axis_size=`",
            "JAX raises `ValueError: vmap must have at least one non-None value in in_axes`; put `0` at the batched argument's position, or pass `axis_size=`",
        )
    ]


def test_case():
    src = "import jax, jax.numpy as jnp\nfrom absl.testing import parameterized\nclass T(parameterized.TestCase):\n    @parameterized.parameters((3, 3), (4, 5))\n    def test(self, n, m):\n        jax.vmap(jnp.add)(jnp.ones(n), jnp.ones(m))\n"
    assert _lint(src, "JAX105") == [
        (
            "JAX105",
            6,
            9,
            "`vmap(jnp.add)` maps axes of different sizes: `jnp.ones(n)` has 4, `jnp.ones(m)` has 5",
            "in the test case with n=4, m=5: JAX raises `ValueError: vmap got inconsistent sizes for array axes to be mapped`. Mapped sizes: `jnp.ones(n)` has 4, `jnp.ones(m)` has 5",
        )
    ]


# Fixtures whose marked calls fail with jax while their look-alikes run. Maps the evaluator
# follows out of the syntax's view (a factory's closure, a name bound in either arm of an
# `if`, a vmap stored on `self`, a library's map through its stub), and arguments known
# through the model's semantics (a comprehension over an array's rows, a call through grad,
# a method run with the instance the module calls it on).
RUNS = [
    ("JAX101/lint/out_of_view.py", "run_factory()", "TypeError"),
    ("JAX101/lint/out_of_view.py", "run_shared_factory()", None),
    ("JAX101/lint/out_of_view.py", "run_pick(True)", "TypeError"),
    ("JAX101/lint/out_of_view.py", "run_pick(False)", None),
    ("JAX102/lint/stored_on_self.py", "run_affine()", "ValueError"),
    ("JAX102/lint/stored_on_self.py", "run_affine_ok()", None),
    # equinox's filter_vmap, through its stub (jaxlint/model/stubs/equinox._vmap_pmap.stub)
    ("JAX101/lint/equinox_filter_vmap.py", "run_default()", "TypeError"),
    ("JAX101/lint/equinox_filter_vmap.py", "run_shared()", None),
    ("JAX101/lint/equinox_filter_vmap.py", "run_python_number()", None),
    ("JAX101/lint/equinox_filter_vmap.py", "run_decorated()", "TypeError"),
    ("JAX101/lint/equinox_filter_vmap.py", "run_decorated_shared()", None),
    # vmap got inconsistent sizes for array axes to be mapped
    ("JAX105/lint/layers_from_split_keys.py", "run_bad()", "ValueError"),
    ("JAX105/lint/layers_from_split_keys.py", "run_ok()", None),
    ("JAX105/lint/through_grad.py", "run_bad()", "ValueError"),
    ("JAX105/lint/through_grad.py", "run_ok()", None),
    ("JAX105/lint/instance_method.py", "run_bad()", "ValueError"),
    ("JAX105/lint/instance_method.py", "run_ok()", None),
    ("JAX105/lint/appended_members.py", "run_bad()", "ValueError"),
    ("JAX105/lint/appended_members.py", "run_ok()", None),
    ("JAX105/lint/equinox_wrappers.py", "run_bad()", "ValueError"),
    ("JAX105/lint/equinox_wrappers.py", "run_ok()", None),
    ("JAX105/lint/equinox_wrappers.py", "run_jitted_bad()", "ValueError"),
    ("JAX105/lint/equinox_wrappers.py", "run_jitted_ok()", None),
    ("JAX105/lint/equinox_wrappers.py", "run_logged_bad()", "ValueError"),
    ("JAX105/lint/equinox_wrappers.py", "run_logged_ok()", None),
    ("JAX105/lint/equinox_ode_carry.py", "run_bad()", "ValueError"),
    ("JAX105/lint/equinox_ode_carry.py", "run_ok()", None),
    ("JAX105/lint/loop_built_params.py", "run_bad()", "ValueError"),
    ("JAX105/lint/loop_built_params.py", "run_ok()", None),
    ("JAX101/lint/kernel_registry.py", "run_bad()", "ValueError"),
    ("JAX101/lint/kernel_registry.py", "run_ok()", None),
    ("JAX105/lint/index_grid.py", "locate_bad()", "ValueError"),
    ("JAX105/lint/index_grid.py", "locate_ok()", None),
]


@pytest.mark.jax
@needs_jax
@pytest.mark.parametrize("path,call,raises", RUNS)
def test_the_marked_calls_fail_at_run_time_and_the_look_alikes_run(path, call, raises):
    if "equinox" in path:
        pytest.importorskip("equinox")
    e = raised_by(path, call)
    assert (type(e).__name__ if e is not None else None) == raises, e


def test_maps_out_of_the_syntax_view_are_judged_where_they_are_called():
    def found(path, code):
        with open(os.path.join(FIXTURES, path), encoding="utf-8") as f:
            source = f.read()
        return [(d.start.line, d.message, d.note.split(":")[0]) for d in testing.lint(source, code)]

    shared = "`vmap(project)` slices `jnp.ones((10, 5))` per example, but `project` needs it whole"
    assert found("JAX101/lint/out_of_view.py", "JAX101") == [
        (13, shared, "in the call at line 29"),  # the factory's closure, called by its caller
        (22, shared, "in the call at line 37"),  # one arm's map, called where the name is read
    ]
    filtered = "slices `jnp.ones((10, 5))` per example, but `{}` needs it whole"
    assert found("JAX101/lint/equinox_filter_vmap.py", "JAX101") == [
        (
            18,
            "`filter_vmap(project)` " + filtered.format("project"),
            "on one example's slices, `x @ w` at line 10 gets operands whose shapes do not fit (dot_general requires contracting dimensions to have the same shape, got (10,) and (5,).); give it `None` in `in_axes`",
        ),
        (30, "`filter_vmap(decorated)` " + filtered.format("decorated"), "in the call at line 41"),
    ]
    assert found("JAX102/lint/stored_on_self.py", "JAX102") == [
        (
            15,
            "`in_axes=(None, 0)` has 2 entries, but `vmap(affine)` is called with 3 positional arguments",
            "`self.apply(self.w, xs, self.b)`",
        )
    ]


def test_layers_built_from_split_keys_are_known_leaf_by_leaf():
    """A comprehension over the rows of an array of known length (the keys of a split)
    gives one item per row, so each layer's leaves have their own sizes."""
    with open(os.path.join(FIXTURES, "JAX105/lint/layers_from_split_keys.py"), encoding="utf-8") as f:
        source = f.read()
    assert [(d.start.line, d.message) for d in testing.lint(source, "JAX105")] == [
        (25, "`vmap(predict)` maps axes of different sizes: `params[0]['b']` has 16, `params[0]['w']` has 8")
    ]


def test_a_map_in_a_differentiated_loss_sees_the_arguments_of_the_grad_call():
    """``jax.value_and_grad(loss)(params, xs, ys)`` calls ``loss(params, xs, ys)``: the
    loss's vmap is judged with those arguments."""
    with open(os.path.join(FIXTURES, "JAX105/lint/through_grad.py"), encoding="utf-8") as f:
        source = f.read()
    assert [(d.start.line, d.message) for d in testing.lint(source, "JAX105")] == [
        (13, "`vmap(predict)` maps axes of different sizes: `params['b']` has 3, `params['w']` has 4")
    ]


PROJECT_MAP = os.path.join(FIXTURES, "JAX105", "lint", "project_map_{}")


def _lint_folder(folder):
    return [
        (os.path.basename(d.path), d.start.line, d.code, d.message, d.note)
        for d in testing.lint_folder(folder, testing.settings_for("JAX1", "JAX2")).diagnostics
    ]


def test_a_map_another_module_makes_is_judged_where_a_file_without_map_words_calls_it():
    assert _lint_folder(PROJECT_MAP.format("bad")) == [
        (  # in a def: the unit naming the map is kept by the slicer as if it spelled `vmap`
            "loop.py",
            11,
            "JAX105",
            "`vmap(loss)` maps axes of different sizes: `params['w']` has 3, `xs` has 16",
            "`model.batched_loss` is the `vmap(loss)` made at model.py:10: JAX raises `ValueError: vmap got"
            " inconsistent sizes for array axes to be mapped`. Mapped sizes: `params['w']` has 3, `xs` has 16",
        ),
        (
            "train.py",
            8,
            "JAX105",
            "`vmap(loss)` maps axes of different sizes: `params['w']` has 3, `xs` has 16",
            "`batched_loss` is the `vmap(loss)` made at model.py:10: JAX raises `ValueError: vmap got inconsistent"
            " sizes for array axes to be mapped`. Mapped sizes: `params['w']` has 3, `xs` has 16",
        ),
    ]
    assert _lint_folder(PROJECT_MAP.format("ok")) == []


def test_maps_of_another_module_through_a_module_attribute_and_a_decorator(tmp_path):
    (tmp_path / "steps.py").write_text(
        "import jax\nimport jax.numpy as jnp\n\n"
        "def train_step(params, images):\n    return jnp.mean(images @ params)\n\n"
        "p_train_step = jax.pmap(train_step, in_axes=(None, 0))\n\n"
        "@jax.vmap\ndef per_example(w, x):\n    return w @ x\n"
    )
    (tmp_path / "train.py").write_text(
        "import jax.numpy as jnp\n\nimport steps\nfrom steps import per_example\n\n"
        "params = jnp.zeros((784,))\nimages = jnp.zeros((256, 784))\n"
        "loss = steps.p_train_step(params, images)\n"
        "ys = per_example(jnp.zeros((3, 4)), jnp.zeros((5, 4)))\n"
    )
    found = _lint_folder(tmp_path)
    assert [f[:4] for f in found] == [
        ("train.py", 8, "JAX203", "pmap maps `images` over a leading axis of 256, a fixed size, not the device count"),
        (
            "train.py",
            9,
            "JAX105",
            "`vmap(per_example)` maps axes of different sizes: `jnp.zeros((3, 4))` has 3, `jnp.zeros((5, 4))` has 5",
        ),
    ]
    assert "`steps.p_train_step` (a pmap of `train_step` at steps.py:7) maps `images`" in found[0][4]
    # a file that names the map but imports nothing of that module: another value of that name
    (tmp_path / "train.py").write_text(
        "import jax.numpy as jnp\n\ndef per_example(w, x):\n    return w\n\n"
        "ys = per_example(jnp.zeros((3, 4)), jnp.zeros((5, 4)))\n"
    )
    assert _lint_folder(tmp_path) == []


@pytest.mark.jax
@needs_jax
def test_the_project_map_fixture_fails_under_jax_as_linted():
    e = raised_by_project(PROJECT_MAP.format("bad"), "train.py", ("model",))
    assert type(e) is ValueError and "inconsistent sizes" in str(e), e
    assert raised_by_project(PROJECT_MAP.format("ok"), "train.py", ("model",)) is None


METHOD_CHAIN = os.path.join(FIXTURES, "JAX105", "lint", "project_method_chain_{}")


def test_a_map_another_module_runs_through_its_own_methods_is_judged_at_the_map():
    # run.py calls `ens.predictive(xs)`; `predictive` calls `self.member_outputs`, whose vmap
    # maps each member's params (their sizes are what run.py's construction gives): reported
    # once, at the map, with run.py's call in the note
    found = _lint_folder(METHOD_CHAIN.format("bad"))
    assert [(name, line, code, message) for name, line, code, message, _ in found] == [
        (
            "ensemble.py",
            32,
            "JAX105",
            "`vmap(mlp_apply)` maps axes of different sizes: `params['b1']` has 32, `params['b2']` has 3",
        )
    ]
    assert found[0][4].startswith("with the arguments from line 36, as called at line 8 of run.py: ")
    assert _lint_folder(METHOD_CHAIN.format("ok")) == []


@pytest.mark.jax
@needs_jax
def test_the_method_chain_fixture_fails_under_jax_as_linted():
    e = raised_by_project(METHOD_CHAIN.format("bad"), "run.py", ("ensemble",))
    assert type(e) is ValueError and "inconsistent sizes" in str(e), e
    assert raised_by_project(METHOD_CHAIN.format("ok"), "run.py", ("ensemble",)) is None


THROUGH_JIT = os.path.join(FIXTURES, "JAX101", "lint", "through_jit_{}")


def test_a_def_of_another_module_run_under_jit_is_judged_with_the_calls_arguments():
    # judged once, in the module of the map (where its fix goes), with probe.py's arguments
    found = _lint_folder(THROUGH_JIT.format("bad"))
    assert [(name, line, code, message) for name, line, code, message, _ in found] == [
        ("model.py", 16, "JAX101", "`vmap(attend)` slices `memory` per example, but `attend` needs it whole")
    ]
    assert found[0][4].startswith("with the arguments from line 6 of probe.py: on one example's slices")
    assert _lint_folder(THROUGH_JIT.format("ok")) == []


@pytest.mark.jax
@needs_jax
def test_the_through_jit_fixture_fails_under_jax_as_linted():
    e = raised_by_project(THROUGH_JIT.format("bad"), "probe.py", ("model",))
    assert type(e) is ValueError and "out of bounds for array of dimension 0" in str(e), e
    assert raised_by_project(THROUGH_JIT.format("ok"), "probe.py", ("model",)) is None


def test_no_culprit_whose_none_would_leave_nothing_mapped():
    # the only mapped argument: `in_axes=(None,)` is no remedy (JAX raises "vmap must have at
    # least one non-None value in in_axes"); the `if` on a traced value is JAX503's
    src = (
        "import jax, jax.numpy as jnp\ndef per_example(x):\n    if x.sum() > 0:\n        return x\n    return -x\n"
        "ys = jax.vmap(per_example)(jnp.ones((4, 3)))\n"
    )
    assert _lint(src, "JAX101") == []
    assert [(c, line) for c, line, *_ in _lint(src, "JAX503")] == [("JAX503", 3)]
    # with a size to map over, giving it whole is a remedy
    sized = src.replace("jax.vmap(per_example)", "jax.vmap(per_example, axis_size=4)")
    assert [(c, line) for c, line, *_ in _lint(sized, "JAX101")] == [("JAX101", 6)]


FACTORY_IMPORTER = os.path.join(FIXTURES, "JAX101", "lint", "factory_importer_{}")
STORED_STEP = os.path.join(FIXTURES, "JAX101", "lint", "stored_step_{}")


def test_a_step_a_factory_returns_to_another_module_is_judged_with_its_calls_there():
    # main.py: `train_step = make_train_step()` then `train_step(state, images, ...)`; the
    # state's `apply_fn` is the flax encoder's `apply` (TrainState.create), so `z2` is a
    # (16, 8) matrix of embeddings that the vmap slices per anchor
    found = _lint_folder(FACTORY_IMPORTER.format("bad"))
    assert [(name, line, code, message) for name, line, code, message, _ in found] == [
        ("train.py", 28, "JAX101", "`vmap(nce_one)` slices `z2` per example, but `nce_one` needs it whole")
    ]
    assert found[0][4].startswith("with the arguments from line 32, as called at line 9 of main.py: ")
    assert _lint_folder(FACTORY_IMPORTER.format("ok")) == []


def test_a_jitted_method_kept_on_the_instance_runs_on_the_built_object():
    # `self._step = jax.jit(self._loss)` in `__init__`, called by `step`, which main.py calls
    # through the instance it makes
    found = _lint_folder(STORED_STEP.format("bad"))
    assert [(name, line, code, message) for name, line, code, message, _ in found] == [
        (
            "trainer.py",
            17,
            "JAX101",
            "`vmap(self._log_probs)` slices `prototypes` per example, but `self._log_probs` needs it whole",
        )
    ]
    assert _lint_folder(STORED_STEP.format("ok")) == []


@pytest.mark.jax
@needs_jax
def test_the_factory_importer_and_stored_step_fixtures_fail_under_jax_as_linted():
    for folder, modules in ((FACTORY_IMPORTER, ("model", "train")), (STORED_STEP, ("trainer",))):
        e = raised_by_project(folder.format("bad"), "main.py", modules)
        assert type(e) is ValueError and "axis -1 is out of bounds for array of dimension 0" in str(e), e
        assert raised_by_project(folder.format("ok"), "main.py", modules) is None


def test_a_scan_body_a_factory_returns_takes_the_scans_carry():
    with open(os.path.join(FIXTURES, "JAX101", "lint", "scan_factory.py"), encoding="utf-8") as f:
        found = _lint(f.read(), "JAX101")
    assert [(code, line, message) for code, line, _, message, _ in found] == [
        ("JAX101", 13, "`vmap(node_update)` slices `Y` per example, but `node_update` needs it whole")
    ]


@pytest.mark.jax
@needs_jax
def test_the_scan_factory_fixture_fails_under_jax_as_linted():
    e = raised_by("JAX101/lint/scan_factory.py", "run()")
    assert type(e) is TypeError and "contracting dimensions" in str(e), e
    ok = "lax.scan(make_sweep_shared(jnp.full((12, 12), 1 / 12), jnp.eye(12, 3), 0.9), jnp.eye(12, 3), None, length=3)"
    assert raised_by("JAX101/lint/scan_factory.py", ok) is None


def test_a_staticmethod_read_off_its_class_runs_where_that_value_is_called():
    with open(os.path.join(FIXTURES, "JAX101", "lint", "class_attribute_method.py"), encoding="utf-8") as f:
        found = _lint(f.read(), "JAX101")
    assert [(code, line, message) for code, line, _, message, _ in found] == [
        ("JAX101", 14, "`vmap(example_nll)` slices `W` per example, but `example_nll` needs it whole")
    ]


@pytest.mark.jax
@needs_jax
def test_the_class_attribute_method_fixture_fails_under_jax_as_linted():
    e = raised_by("JAX101/lint/class_attribute_method.py", "run_bad()")
    assert type(e) is TypeError and "contracting dimensions" in str(e), e
    assert raised_by("JAX101/lint/class_attribute_method.py", "run_ok()") is None


@pytest.mark.jax
@needs_jax
def test_the_fitted_coefficients_fixture_computes_wrong_shapes_under_jax_as_linted():
    # slicing the shared coefficients scales each channel's features: (4, 4), not one per channel
    import runpy

    space = runpy.run_path(os.path.join(FIXTURES, "JAX101", "lint", "fitted_coefficients.py"))
    assert space["run_bad"]().shape == (4, 4)
    assert space["run_ok"]().shape == (4,)


TWO_HOP = os.path.join(FIXTURES, "JAX101", "lint", "two_hop_{}")


def test_a_map_two_imports_away_from_its_data_is_judged_with_them():
    # main.py calls train.evaluate, which calls model.batch_scores: the plan tells model.py's
    # job where evaluate is called, so the map sees main.py's (4,) weights and (4, 4) inputs
    found = _lint_folder(TWO_HOP.format("bad"))
    assert [(name, line, code, message) for name, line, code, message, _ in found] == [
        ("model.py", 13, "JAX101", "`vmap(score)` slices `w` per example, but `score` needs it whole")
    ]
    assert _lint_folder(TWO_HOP.format("ok")) == []


@pytest.mark.jax
@needs_jax
def test_the_two_hop_fixture_computes_wrong_shapes_under_jax_as_linted():
    e = raised_by_project(TWO_HOP.format("bad"), "main.py", ("model", "train"))
    assert type(e) is AssertionError and "got (4,)" in str(e), e
    assert raised_by_project(TWO_HOP.format("ok"), "main.py", ("model", "train")) is None


def test_a_dataclass_method_sees_its_fields_as_declared_and_argmax_of_a_scalar_is_no_choice():
    # no construction of `Codebook` in view: `self.centroids` is a (k, d) array as declared;
    # sliced with the queries, `centroids @ q` is a scalar and its `argmax` always 0
    path = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX101", "lint", "declared_fields.py")
    with open(path, encoding="utf-8") as f:
        found = _lint(f.read(), "JAX101")
    assert found == [
        (
            "JAX101",
            19,
            16,
            "`vmap(nearest)` slices `self.centroids` and `queries` per example; `nearest` needs one of them whole",
            "on one example's slices, `jnp.argmax(scores)` at line 12 chooses among one element (`argmax` of a"
            " rank-0 array is always 0: there is one element to choose from); give the shared one `None` in `in_axes`",
        )
    ]


@pytest.mark.jax
@needs_jax
def test_the_declared_fields_fixture_computes_wrong_assignments_under_jax():
    import runpy

    import jax.numpy as jnp

    space = runpy.run_path(os.path.join(FIXTURES, "JAX101", "lint", "declared_fields.py"))
    queries = jnp.eye(4)[::-1]
    assert space["Codebook"](jnp.eye(4)).assign(queries).tolist() == [0, 0, 0, 0]  # always 0
    assert space["SharedCodebook"](jnp.eye(4)).assign(queries).tolist() == [3, 2, 1, 0]


def test_an_index_grid_has_the_points_its_slices_ask_for():
    # `jnp.mgrid[0.0:10.0:21j, 0.0:10.0:21j]`: a (2, 21, 21) grid, 441 nodes once raveled
    path = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX105", "lint", "index_grid.py")
    with open(path, encoding="utf-8") as f:
        found = _lint(f.read(), "JAX105")
    assert [(code, line, message) for code, line, _, message, _ in found] == [
        ("JAX105", 18, "`vmap(misfit)` maps axes of different sizes: `nodes` has 441, `stations` has 12")
    ]


REGISTRY_ITEM = os.path.join(FIXTURES, "JAX102", "lint", "registry_item_{}")


def test_an_item_of_another_modules_registry_a_parameter_selects_is_the_map_each_call_selects():
    # `KERNELS[name](*args)`: `evaluate("rbf", 0.5, points, centre)` selects `vmap(rbf)`
    # with two in_axes entries and gives it three arguments
    assert _lint_folder(REGISTRY_ITEM.format("bad")) == [
        (
            "density.py",
            9,
            "JAX102",
            "`in_axes=(None, 0)` has 2 entries, but `vmap(rbf)` is called with 3 positional arguments",
            "`KERNELS[name](*args)`: JAX raises `ValueError: vmap in_axes must be ... a tuple of entries corresponding"
            " to the positional arguments`; give one entry per positional argument",
        )
    ]
    assert _lint_folder(REGISTRY_ITEM.format("ok")) == []


@pytest.mark.jax
@needs_jax
def test_the_registry_item_fixture_fails_under_jax_as_linted():
    e = raised_by_project(REGISTRY_ITEM.format("bad"), "main.py", ("kernels", "density"))
    assert type(e) is ValueError and "len(in_axes)=2, len(args)=3" in str(e), e
    assert raised_by_project(REGISTRY_ITEM.format("ok"), "main.py", ("kernels", "density")) is None


FACTORY_INSTANCE = os.path.join(FIXTURES, "JAX101", "lint", "factory_instance_{}")


def test_a_method_called_on_an_instance_an_imported_factory_makes_is_judged_at_its_map():
    # main.py imports `default_calibration`, not the class: the instance it returns is the
    # receiver of `lines`, judged (once) in calibration.py with main.py's arguments
    assert _lint_folder(FACTORY_INSTANCE.format("bad")) == [
        (
            "calibration.py",
            16,
            "JAX101",
            "`vmap(self.score)` slices `self.weights` per example, but `self.score` needs it whole",
            "with the arguments from line 6 of main.py: on one example's slices, `jnp.dot(weights, features)` at"
            " line 13 contracts a rank-0 operand (dot of a rank-0 operand multiplies elementwise instead of"
            " contracting (shapes () and (4,))); give it `None` in `in_axes`",
        )
    ]
    assert _lint_folder(FACTORY_INSTANCE.format("ok")) == []


@pytest.mark.jax
@needs_jax
def test_the_factory_instance_fixture_computes_wrong_shapes_under_jax():
    e = raised_by_project(FACTORY_INSTANCE.format("bad"), "main.py", ("calibration",))
    assert type(e) is AssertionError and "((4, 4), (4,))" in str(e), e
    assert raised_by_project(FACTORY_INSTANCE.format("ok"), "main.py", ("calibration",)) is None


REGISTRY_DISPATCH = os.path.join(FIXTURES, "JAX101", "lint", "registry_dispatch_{}")


@pytest.mark.parametrize("slicing", [True, False])
def test_a_def_called_through_its_modules_registry_gets_the_registry_callers_arguments(monkeypatch, slicing):
    # `allocate("std", w, losses)` of main.py runs `ALLOCATORS[method](...)`: `euler_std` with
    # those arguments, whose `jnp.cov(losses, rowvar=False)` is (4, 4) beside the (4,) weights
    if not slicing:
        monkeypatch.setenv("JAXLINT_NO_SLICING", "1")
    assert _lint_folder(REGISTRY_DISPATCH.format("bad")) == [
        (
            "allocation.py",
            13,
            "JAX101",
            "`vmap(row_exposure)` slices `weights` per example, but `row_exposure` needs it whole",
            "with the arguments from line 19, as called at line 8 of main.py: on one example's slices,"
            " `jnp.dot(weights, cov_row)` at line 9 contracts a rank-0 operand (dot of a rank-0 operand multiplies"
            " elementwise instead of contracting (shapes () and (4,))); give it `None` in `in_axes`",
        )
    ]
    assert _lint_folder(REGISTRY_DISPATCH.format("ok")) == []


@pytest.mark.jax
@needs_jax
def test_the_registry_dispatch_fixture_computes_wrong_shapes_under_jax():
    e = raised_by_project(REGISTRY_DISPATCH.format("bad"), "main.py", ("allocation",))
    assert type(e) is AssertionError and "(4, 4)" in str(e), e
    assert raised_by_project(REGISTRY_DISPATCH.format("ok"), "main.py", ("allocation",)) is None


CLASSMETHOD_FACTORY = os.path.join(FIXTURES, "JAX101", "lint", "classmethod_factory_{}")


@pytest.mark.parametrize("slicing", [True, False])
def test_a_method_called_on_an_instance_a_classmethod_builds_is_judged_at_its_map(monkeypatch, slicing):
    # `Calibration.default()` returns `cls(...)`: main.py's instance is the receiver of `lines`
    # (the slicer keeps the classmethod with the class's seed method)
    if not slicing:
        monkeypatch.setenv("JAXLINT_NO_SLICING", "1")
    assert _lint_folder(CLASSMETHOD_FACTORY.format("bad")) == [
        (
            "calibration.py",
            20,
            "JAX101",
            "`vmap(score)` slices `self.weights` per example, but `score` needs it whole",
            "with the arguments from line 6 of main.py: on one example's slices, `jnp.dot(weights, features)` at"
            " line 8 contracts a rank-0 operand (dot of a rank-0 operand multiplies elementwise instead of"
            " contracting (shapes () and (4,))); give it `None` in `in_axes`",
        )
    ]
    assert _lint_folder(CLASSMETHOD_FACTORY.format("ok")) == []


@pytest.mark.jax
@needs_jax
def test_the_classmethod_factory_fixture_computes_wrong_shapes_under_jax():
    e = raised_by_project(CLASSMETHOD_FACTORY.format("bad"), "main.py", ("calibration",))
    assert type(e) is AssertionError and "((4, 4), (4,))" in str(e), e
    assert raised_by_project(CLASSMETHOD_FACTORY.format("ok"), "main.py", ("calibration",)) is None


NAMED_SIZES = os.path.join(FIXTURES, "JAX101", "lint", "named_sizes.py")


def test_axes_of_sizes_different_constants_name_are_not_one_batch():
    # D_LATENT and N_WORDS are both 16: vmap runs, yet it pairs projection row i with word
    # i; giving the projection whole leaves one named size and a function that runs (giving
    # the words whole does not: `proj_row @ feats` then fails), so the projection is the one
    with open(NAMED_SIZES, encoding="utf-8") as f:
        source = f.read()
    found = testing.lint(source, "JAX101")
    assert [(d.start.line, d.message) for d in found] == [
        (32, "`vmap(encode)` slices `params.proj` per example, but `encode` needs it whole"),
        (63, "`vmap(damp)` maps axes of different sizes of the program together"),
    ]
    assert found[0].note == (
        "it maps axis 0 of `params.proj` (`D_LATENT`) with axis 0 of `feats` (`N_WORDS`): different constants, "
        "equal only in value (16), so vmap pairs the entries of one with the examples of the other; give it "
        "`None` in `in_axes`"
    )
    # either of `drag` and `states` could be the shared one: no fix
    assert found[1].fix is None
    # a size computed from a constant is no longer that constant's: silent
    src = source.replace("(N_WORDS, N_FEATURES))", "(N_WORDS + 0, N_FEATURES))")
    assert [d.start.line for d in testing.lint(src, "JAX101")] == [63]


@pytest.mark.jax
@needs_jax
def test_the_named_sizes_fixture_computes_other_numbers_than_its_fix():
    import jax
    import numpy as np

    namespace: dict = {}
    with open(NAMED_SIZES, encoding="utf-8") as f:
        exec(compile(f.read(), NAMED_SIZES, "exec"), namespace)
    key = jax.random.key(0)
    bad, ok = namespace["embed_bad"](key), namespace["embed_ok"](key)
    assert bad.shape == ok.shape and not np.allclose(bad, ok)
    assert not np.allclose(namespace["damp_all_bad"](key), namespace["damp_all_ok"](key))


def test_one_def_called_with_two_constants_of_one_value_keeps_each_name():
    # `make(N_WORDS)` and `make(D_LATENT)` pass equal ints: each call's array keeps its own
    # constant (a frame made for one is not the other's)
    src = (
        "import jax, jax.numpy as jnp\nN_WORDS = 16\nD_LATENT = 16\n"
        "def make(n):\n    return jnp.zeros((n,))\n"
        "def g(a, c):\n    return a + c\n"
        "def run():\n    a = make(N_WORDS)\n    b = make(D_LATENT)\n"
        "    return jax.vmap(g)(b, jnp.zeros((D_LATENT,))), jax.vmap(g)(a, jnp.zeros((D_LATENT,)))\n"
    )
    found = testing.lint(src, "JAX101")
    assert [(d.start.line, d.start.column, d.message) for d in found] == [
        (11, 52, "`vmap(g)` maps axes of different sizes of the program together")
    ]
