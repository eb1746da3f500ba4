"""JAX4xx (grad / value_and_grad / jacrev / jacfwd / hessian): exact codes, lines and messages."""

import os

import pytest

from jaxlint import testing

ALL = ("JAX401", "JAX402", "JAX403", "JAX404", "JAX405", "JAX406", "JAX407")

LOSS = """\
import jax
import jax.numpy as jnp
from jax import grad


def loss(params, inputs, targets):
    predictions = jnp.dot(inputs, params['w']) + params['b']
    return jnp.mean((predictions - targets) ** 2)

"""


def found(source, *codes):
    return [(d.code, d.start.line, testing.worded(d)) for d in testing.lint(source, *(codes or ALL))]


def test_out_of_range_message():
    assert found(LOSS + "g = grad(loss, argnums=3)\n") == [
        (
            "JAX401",
            10,
            (
                "`grad` argnums=3: index 3 is out of range; `loss` takes 3 positional parameters "
                "(`params`, `inputs`, `targets`); JAX raises an error only when the gradient is called; "
                "use indices 0..2 (or -3..-1)"
            ),
        )
    ]


def test_negative_and_list_argnums_are_clean():
    src = LOSS + "a = grad(loss, argnums=-3)\nb = jax.jacrev(loss, argnums=[-3])\n"
    assert found(src) == []


def test_partial_keyword_cuts_positional_parameters():
    src = LOSS + "import functools\ng = jax.grad(functools.partial(loss, inputs=1.0), argnums=1)\n"
    ((code, line, message),) = found(src, "JAX401")
    assert (code, line) == ("JAX401", 11)
    assert "`loss` takes 1 positional parameter (`params`) after functools.partial binds `inputs`" in message.note


def test_duplicate_negative_alias():
    src = LOSS + "g = jax.grad(loss, argnums=(2, -1))\n"
    assert found(src, "JAX402") == [
        (
            "JAX402",
            10,
            (
                "`jax.grad` argnums=(2, -1) names parameter `targets` twice: -1 is parameter `targets` because "
                "`loss` takes 3 positional parameters (`params`, `inputs`, `targets`); JAX then calls the function "
                "with None for the repeated argument and fails with an unrelated `TypeError: unsupported operand "
                "type(s) ... 'NoneType'`. List each position once"
            ),
        )
    ]


def test_aux_without_has_aux_and_fix():
    src = "import jax\nimport jax.numpy as jnp\ndef f(p):\n    return jnp.sum(p), {'p': p}\ng = jax.value_and_grad(f)\n"
    assert found(src, "JAX403") == [
        (
            "JAX403",
            5,
            (
                "`f` returns `(jnp.sum(p), {'p': p})` on every path, a pair (output, aux), but `jax.value_and_grad` "
                "has no has_aux=True; it fails with `TypeError: Gradient only defined for scalar-output functions`. "
                "Pass has_aux=True and unpack `((value, aux), grads)`"
            ),
        )
    ]
    assert testing.fix(src, "JAX403").endswith("g = jax.value_and_grad(f, has_aux=True)\n")


def test_jacrev_of_vector_pair_is_clean():
    src = "import jax\ndef f(x):\n    return x * 2, x ** 2\nj = jax.jacrev(f)\nk = jax.jacfwd(f)\n"
    assert found(src) == []


def test_has_aux_single_return():
    src = "import jax\nimport jax.numpy as jnp\ndef f(p):\n    return jnp.sum(p ** 2)\ng = jax.grad(f, has_aux=True)\n"
    assert found(src) == [
        (
            "JAX404",
            5,
            (
                "`jax.grad` has has_aux=True, but `f` returns a single value (`jnp.sum(p ** 2)`), not a pair "
                "(output, aux); JAX fails with `TypeError: expected function with aux output to return a two-element "
                "tuple`. Remove has_aux=True, or return `(output, aux)`"
            ),
        )
    ]


def test_integer_param_and_allow_int():
    src = "import jax\ndef f(x, n: int):\n    return x * n\ng = jax.grad(f, argnums=1)\nh = jax.grad(f, argnums=1, allow_int=True)\n"
    assert found(src) == [
        (
            "JAX405",
            4,
            (
                "`jax.grad` argnums=1 differentiates `n`, which is annotated `int`; `grad` fails with `TypeError: "
                "grad requires real- or complex-valued inputs`. Differentiate only floating-point parameters "
                "(or pass allow_int=True if a float0 gradient is really wanted)"
            ),
        )
    ]


def test_seed_grad_argnums_w_b_is_flagged_in_preview():
    src = LOSS + "grad_w = grad(loss, argnums=0)\ngrad_w_b = grad(loss, argnums=(0, 1))\n"
    assert found(src) == [
        (
            "JAX406",
            11,
            (
                "`grad` argnums=(0, 1) differentiates the input data `inputs` as well as `params` of `loss`; argnums "
                "counts positional parameters, and argnums=0 alone already gives the gradient of every leaf of "
                "`params` (e.g. both `params['w']` and `params['b']`). Use argnums=0"
            ),
        )
    ]


def test_seed_file_without_imports_is_silent(root):
    with open(os.path.join(root, "fixtures", "seeds", "c4_3_grad_argnums.py"), encoding="utf-8") as fh:
        src = fh.read()
    assert found(src) == []


def test_non_scalar_output():
    src = "import jax\nimport jax.numpy as jnp\ndef f(x):\n    return jnp.stack([x, x])\ng = jax.grad(f)\nj = jax.jacrev(f)\n"
    assert [(c, line) for c, line, _ in found(src)] == [("JAX407", 5)]


def _lint_project(tmp_path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    run = testing.lint_folder(tmp_path, testing.settings_for(*ALL))
    return [(os.path.basename(d.path), d.start.line, d.code) for d in run.diagnostics]


def test_cross_module(tmp_path):
    assert _lint_project(
        tmp_path,
        {
            "losses.py": "import jax.numpy as jnp\n\ndef loss(params, x):\n    return jnp.sum(params * x), x\n",
            "train.py": "import jax\nfrom losses import loss\n\ng = jax.grad(loss, argnums=2)\nh = jax.grad(loss)\n",
        },
    ) == [
        ("train.py", 4, "JAX403"),
        ("train.py", 4, "JAX401"),
        ("train.py", 5, "JAX403"),
    ]


def test_a_local_variable_hides_an_outer_def_of_the_same_name():
    # jax's autodiff cookbook: a module-level `g` returns a pair, the `g` in `hvp_revfwd` is a lambda
    source = (
        "from jax import grad, jvp\n\n"
        "def g(x, y):\n    return (x, y)\n\n"
        "def hvp_revfwd(f, primals, tangents):\n"
        "    g = lambda primals: jvp(f, primals, tangents)[1]\n"
        "    return grad(g)(primals)\n\n"
        "def outer(p):\n    return grad(g)(p)\n"
    )
    assert [(c, line) for c, line, _ in found(source)] == [("JAX403", 11)]


def test_an_imported_def_whose_name_its_module_rebinds_is_unknown(tmp_path):
    # what ``from losses import loss`` gets is the module's last binding of ``loss``; a rebinding
    # in another scope (a local, an attribute) or a jit of the def itself does not change it
    losses = (
        "import jax\nimport jax.numpy as jnp\n\n"
        "def loss(params, x):\n    return jnp.sum(params * x), x\n\n"
        "def pair(params, x):\n    return jnp.sum(params * x), x\n\n"
        "def jitted(params, x):\n    return jnp.sum(params * x), x\n\n"
        "def step(p):\n    pair = p\n    return pair\n\n"
        "step.loss = None\n"
        "jitted = jax.jit(jitted)\n"
        "if jnp.ones(1).size:\n    loss = jnp.sum\n"
    )
    train = (
        "import jax\nfrom losses import jitted, loss, pair\n\n"
        "a = jax.grad(loss)\nb = jax.grad(pair)\nc = jax.grad(jitted)\n"
    )
    assert _lint_project(tmp_path, {"losses.py": losses, "train.py": train}) == [
        ("train.py", 5, "JAX403"),
        ("train.py", 6, "JAX403"),
    ]


# -- on the semantic model: the callable's parameters, the calls' arguments, the returned values
def test_argnums_against_the_applying_call_of_a_varargs_function():
    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef total(*xs):\n    return sum(jnp.sum(x) for x in xs)\n\n"
        "g = jax.grad(total, argnums=2)(jnp.ones(2), jnp.ones(2))\n"
        "h = jax.grad(total, argnums=2)(jnp.ones(2), jnp.ones(2), jnp.ones(2))\n"
    )
    assert found(src, "JAX401") == [
        (
            "JAX401",
            7,
            "`jax.grad` argnums=2: index 2 is out of range for the call "
            "`jax.grad(total, argnums=2)(jnp.ones(2), jnp.ones(2))` at line 7, which passes 2 positional "
            "arguments; JAX fails with `TypeError: differentiating with respect to argnums=2 requires at least 3 "
            "positional arguments`; use indices 0..1 (or -2..-1)",
        )
    ]


def test_argnums_on_a_bound_method_and_after_partial():
    src = (
        "import jax\nfrom functools import partial\nimport jax.numpy as jnp\n\n"
        "class Model:\n    def loss(self, w, x):\n        return jnp.sum(w * x)\n\n"
        "    def grads(self):\n        return jax.grad(self.loss, argnums=2)\n\n"
        "def energy(params, x, y):\n    return jnp.sum(params * x * y)\n\n"
        "j = jax.jacrev(partial(energy, 1.0), argnums=2)\n"
        "k = jax.jacrev(partial(energy, 1.0), argnums=1)\n"
    )
    assert [(c, line, str(m), m.note.split(";")[0]) for c, line, m in found(src, "JAX401")] == [
        (
            "JAX401",
            10,
            "`jax.grad` argnums=2: index 2 is out of range; `loss` takes 2 positional parameters (`w`, `x`)",
            "JAX raises an error only when the gradient is called",
        ),
        (
            "JAX401",
            15,
            "`jax.jacrev` argnums=2: index 2 is out of range",
            "`energy` takes 2 positional parameters (`x`, `y`) after functools.partial binds `params`",
        ),
    ]


def test_argnums_onto_a_key_an_int_array_and_an_int_leaf():
    src = (
        "import jax\nimport jax.numpy as jnp\n\n"
        "def loss(key, w):\n    return jnp.sum(w * jax.random.normal(key, w.shape))\n\n"
        "def nll(logits, labels):\n    return jnp.sum(logits[labels])\n\n"
        "def tree(state):\n    return jnp.sum(state['w']) * state['n']\n\n"
        "key = jax.random.key(0)\n"
        "a = jax.grad(loss)(key, jnp.ones(3))\n"
        "b = jax.grad(nll, argnums=1)(jnp.ones(3), jnp.array([0, 2]))\n"
        "c = jax.jacfwd(tree)({'w': jnp.ones(3), 'n': 2})\n"
        "d = jax.grad(loss, argnums=1)(key, jnp.ones(3))\n"
    )
    tail = ". Differentiate only floating-point parameters"
    assert found(src, "JAX405") == [
        (
            "JAX405",
            14,
            "`jax.grad` argnums=0 differentiates `key`, which is given `key` (a PRNG key) in "
            "`jax.grad(loss)(key, jnp.ones(3))` at line 14; `grad` fails with `TypeError: grad requires real- or "
            "complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got key<fry>`"
            + tail
            + " (or pass allow_int=True if a float0 gradient is really wanted)",
        ),
        (
            "JAX405",
            15,
            "`jax.grad` argnums=1 differentiates `labels`, which is given `jnp.array([0, 2])` (an array of dtype "
            "int) in `jax.grad(nll, argnums=1)(jnp.ones(3), jnp.array([0, 2]))` at line 15; `grad` fails with "
            "`TypeError: grad requires real- or complex-valued inputs`"
            + tail
            + " (or pass allow_int=True if a float0 gradient is really wanted)",
        ),
        (
            "JAX405",
            16,
            "`jax.jacfwd` argnums=0 differentiates `state`, which is given `{'w': jnp.ones(3), 'n': 2}`, whose leaf "
            "`state['n']` is a Python int, in `jax.jacfwd(tree)({'w': jnp.ones(3), 'n': 2})` at line 16; `jacfwd` "
            "fails with `TypeError: jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
            "np.floating), but got int32`" + tail,
        ),
    ]


def test_a_parameter_without_a_visible_value_is_silent():
    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef loss(key, w):\n    return jnp.sum(w)\n\n"
        "def step(key, w):\n    return jax.grad(loss)(key, w)\n\n"
        "def pair(w):\n    return helper(w)\n\ng = jax.grad(pair)\nh = jax.grad(pair, has_aux=True)\n"
    )
    assert found(src) == []


def test_has_aux_missing_through_a_variable():
    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef f(w):\n    loss = jnp.sum(w ** 2)\n    out = (loss, w)\n"
        "    return out\n\ng = jax.grad(f)\n"
    )
    assert found(src, "JAX403") == [
        (
            "JAX403",
            9,
            "`f` returns `(loss, w)` on every path, a pair (output, aux), but `jax.grad` has no has_aux=True; it "
            "fails with `TypeError: Gradient only defined for scalar-output functions`. Pass has_aux=True and "
            "unpack `(grads, aux)`",
        )
    ]
    assert testing.fix(src, "JAX403").endswith("g = jax.grad(f, has_aux=True)\n")


def test_a_length_one_vector_is_not_a_scalar():
    src = (
        "import jax\nimport jax.numpy as jnp\n\ndef f(w):\n    return jnp.sum(w ** 2, keepdims=True)\n\n"
        "g = jax.grad(f)(jnp.ones(3))\nh = jax.grad(lambda w: jnp.sum(w ** 2))(jnp.ones(3))\n"
    )
    assert found(src, "JAX407") == [
        (
            "JAX407",
            7,
            "`f` returns `jnp.sum(w ** 2, keepdims=True)`, an array of shape (1,) for the call at line 7, but "
            "`jax.grad` needs a scalar output: it fails with `TypeError: Gradient only defined for scalar-output "
            "functions`. Reduce it (`jnp.sum` / `jnp.mean`), or use `jax.jacrev` for a Jacobian",
        )
    ]


def test_a_helper_that_hands_its_callable_to_assert_raises_expects_the_error():
    src = (
        "import jax\nimport jax.numpy as jnp\n\n"
        "def check(test, etype, f):\n    test.assertRaises(etype, f)\n\n"
        "def inner(x):\n    return jnp.sum(x)\n\n"
        "def test_int(self):\n    f = lambda: jax.grad(inner)(jnp.array([1, 2]))\n    check(self, TypeError, f)\n\n"
        "def test_other(self):\n    g = lambda: jax.grad(inner)(jnp.array([1, 2]))\n    other(self, TypeError, g)\n"
    )
    assert [(c, line) for c, line, _ in found(src, "JAX405")] == [("JAX405", 15)]


def test_a_module_whose_init_the_slicer_blanked_is_not_built_from_its_fields():
    # equinox's mnist notebook: the fields are set in ``__init__``, not from its arguments
    src = (
        "import equinox as eqx\nimport jax\nimport jax.numpy as jnp\n\n"
        "class CNN(eqx.Module):\n    layers: list\n\n"
        "    def __init__(self, key):\n        self.layers = [jax.nn.relu]\n\n"
        "    def __call__(self, x):\n        return x\n\n"
        "def loss(model, x):\n    return jnp.sum(model(x))\n\n"
        "g = jax.grad(loss)(CNN(jax.random.PRNGKey(0)), jnp.ones(3))\n"
    )
    assert found(src, "JAX405") == []


def test_a_call_under_a_branch_the_frame_decides_against_never_runs():
    """jax's scaled_matmul_stablehlo_test differentiates only ``if is_training:``; a case (or a
    module) where the test is known to be False never makes the call."""
    src = (
        "import jax\nimport jax.numpy as jnp\n\nTRAINING = False\n\n\ndef fwd(a):\n    return a * 2.0\n\n\n"
        "if TRAINING:\n    jax.grad(fwd)(jnp.ones((3, 3)))\n"
    )
    assert found(src, "JAX407") == []
    assert [(c, line) for c, line, _ in found(src.replace("TRAINING = False", "TRAINING = True"), "JAX407")] == [
        ("JAX407", 12)
    ]


def test_an_int_or_key_argument_gets_the_dtype_jax_names():
    src = (
        "import jax\nimport jax.numpy as jnp\n\n"
        "def f(a, w):\n    return jnp.sum(a * w)\n\n"
        "w = jnp.ones(3)\n"
        "a = jax.grad(f)(jax.random.PRNGKey(0), w)\n"
        "b = jax.jacfwd(f)(jax.random.key(0), w)\n"
        "c = jax.jacrev(f)(True, w)\n"
    )
    notes = [d.note for d in testing.lint(src, "JAX405")]
    assert [n[n.index("fails with") :].split("`. ")[0] for n in notes] == [
        "fails with `TypeError: grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
        "np.inexact), but got uint32",
        "fails with `TypeError: jacfwd with input element type key<fry>",
        "fails with `TypeError: jacrev requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
        "np.inexact), but got bool",
    ]


@pytest.mark.jax
def test_the_unknown_operands_fixture_fails_under_jax_as_linted():
    # fixtures/JAX407/lint/unknown_operands.py: the flagged grad raises for any targets, the others run
    pytest.importorskip("jax")
    import runpy

    import jax.numpy as jnp
    from conftest import FIXTURES

    ns = runpy.run_path(os.path.join(FIXTURES, "JAX407", "lint", "unknown_operands.py"))
    w, xs = jnp.ones(3), jnp.ones((4, 3))
    for ys in (jnp.ones(4), 1.0):
        with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions"):
            ns["g_bad"](w, xs, ys)
    assert ns["g_ok"](w, xs, jnp.ones(4)).shape == (3,)
    assert ns["g_unknown"](w, 2.0).shape == (3,)


THROUGH_CALL = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX407", "lint", "through_call_{}")


def test_a_grad_of_another_modules_def_is_judged_with_the_calls_arguments():
    found = testing.lint_folder(THROUGH_CALL.format("bad"), testing.settings_for(*ALL)).diagnostics
    # judged once, at the grad in objective.py (where the fix goes), with run.py's call
    assert [(os.path.basename(d.path), d.start.line, d.code, d.message) for d in found] == [
        (
            "objective.py",
            14,
            "JAX407",
            '`reconstruction_error` returns `jnp.sum((z @ params["dec"] - x) ** 2, axis=-1)`',
        )
    ]
    assert found[0].note.startswith(
        "An array of shape (32,) for the call at line 14, as called at line 5 of run.py, but `jax.grad` needs"
    )
    assert testing.lint_folder(THROUGH_CALL.format("ok"), testing.settings_for(*ALL)).diagnostics == []


@pytest.mark.jax
def test_the_through_call_fixture_fails_under_jax_as_linted():
    pytest.importorskip("jax")
    from conftest import raised_by_project

    e = raised_by_project(THROUGH_CALL.format("bad"), "run.py", ("objective",))
    assert type(e) is TypeError and "Output had shape: (32,)" in str(e), e
    assert raised_by_project(THROUGH_CALL.format("ok"), "run.py", ("objective",)) is None


TRAINER = """\
import jax
import jax.numpy as jnp


class Trainer:
    def __init__(self, cfg, data):
        self.data = data
        self.grad_fn = jax.grad(self.loss, argnums=cfg["argnums"])

    def loss(self, enc, dec):
        return jnp.mean((self.data @ enc @ dec - self.data) ** 2)
"""


def test_the_options_a_call_of_another_module_gives_decide_its_site(tmp_path):
    # argnums comes from the config run.py gives `Trainer(...)`: judged at that call
    (tmp_path / "trainer.py").write_text(TRAINER)
    run = "import jax.numpy as jnp\nfrom trainer import Trainer\n\nt = Trainer({'argnums': (1, 2)}, jnp.ones((5, 4)))\n"
    (tmp_path / "run.py").write_text(run)
    found = testing.lint_folder(str(tmp_path), testing.settings_for(*ALL)).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.code, d.message) for d in found] == [
        (
            "run.py",
            4,
            "JAX401",
            "`jax.grad` argnums=(1, 2): index 2 is out of range; `loss` takes 2 positional parameters (`enc`, `dec`)",
        )
    ]
    assert found[0].note.startswith("`Trainer.__init__` runs `jax.grad` at trainer.py:8 with what this call passes.")
    (tmp_path / "run.py").write_text(run.replace("(1, 2)", "(0, 1)"))
    assert testing.lint_folder(str(tmp_path), testing.settings_for(*ALL)).diagnostics == []


@pytest.mark.jax
def test_an_argnums_beyond_a_bound_methods_parameters_fails_under_jax(tmp_path):
    pytest.importorskip("jax")
    from conftest import raised_by_project

    (tmp_path / "trainer.py").write_text(TRAINER)
    call = "g = t.grad_fn(jnp.eye(4), jnp.eye(4))\n"
    (tmp_path / "run.py").write_text(
        "import jax.numpy as jnp\nfrom trainer import Trainer\n\nt = Trainer({'argnums': (1, 2)}, jnp.ones((5, 4)))\n"
        + call
    )
    e = raised_by_project(str(tmp_path), "run.py", ("trainer",))
    assert type(e) is TypeError and "argnums" in str(e), e


REGISTRY_IMPORTER = os.path.join(
    os.path.dirname(__file__), "..", "..", "fixtures", "JAX403", "lint", "registry_importer_{}"
)


def test_a_grad_in_a_factory_another_module_calls_sees_the_registry_entry_its_config_picks():
    # main.py: `fit(CONFIG, x, y)` with `CONFIG["loss"] == "huber"`; `make_step(cfg)` picks
    # `OBJECTIVES[cfg["loss"]]`, which returns `(loss, metrics)`: the grad needs has_aux
    found = testing.lint_folder(REGISTRY_IMPORTER.format("bad"), testing.settings_for(*ALL)).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.code, d.message) for d in found] == [
        (
            "train.py",
            16,
            "JAX403",
            "`loss_fn` returns `objective(x @ w, y)` for the call at line 16, as called at line 9 of main.py, a pair"
            " (output, aux)",
        )
    ]
    assert testing.lint_folder(REGISTRY_IMPORTER.format("ok"), testing.settings_for(*ALL)).diagnostics == []


@pytest.mark.jax
def test_the_registry_importer_fixture_fails_under_jax_as_linted():
    pytest.importorskip("jax")
    from conftest import raised_by_project

    e = raised_by_project(REGISTRY_IMPORTER.format("bad"), "main.py", ("losses", "train"))
    assert type(e) is TypeError and "Gradient only defined for scalar-output functions" in str(e), e
    assert raised_by_project(REGISTRY_IMPORTER.format("ok"), "main.py", ("losses", "train")) is None


REGISTRY_MODULE = os.path.join(
    os.path.dirname(__file__), "..", "..", "fixtures", "JAX407", "lint", "registry_module_{}"
)


def test_a_loss_read_from_another_modules_registry_is_the_registered_def():
    # losses.py fills LOSSES with decorators at import; trainer.py reads LOSSES[name] with
    # the name main.py passes: `per_cycle_mse` returns one error per cycle
    found = testing.lint_folder(REGISTRY_MODULE.format("bad"), testing.settings_for(*ALL)).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.code, d.message) for d in found] == [
        (
            "trainer.py",
            9,
            "JAX407",
            "the function returns an array of shape (6,) for the call at line 9, as called at line 5 of main.py",
        )
    ]
    assert testing.lint_folder(REGISTRY_MODULE.format("ok"), testing.settings_for(*ALL)).diagnostics == []


@pytest.mark.jax
def test_the_registry_module_fixture_fails_under_jax_as_linted():
    pytest.importorskip("jax")
    from conftest import raised_by_project

    e = raised_by_project(REGISTRY_MODULE.format("bad"), "main.py", ("losses", "trainer"))
    assert type(e) is TypeError and "Output had shape: (6,)" in str(e), e
    assert raised_by_project(REGISTRY_MODULE.format("ok"), "main.py", ("losses", "trainer")) is None


def test_equinox_filter_grads_are_jax_grads_of_the_first_argument():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX403", "lint", "equinox_filter_grads.py")
    with open(path, encoding="utf-8") as f:
        found = testing.lint(f.read(), *ALL)
    # no JAX405 for the int leaf: filter_grad differentiates the inexact leaves only
    assert [(d.code, d.start.line) for d in found] == [("JAX403", 24), ("JAX403", 32)]


@pytest.mark.jax
def test_the_equinox_filter_grads_fixture_fails_under_equinox_as_linted():
    pytest.importorskip("equinox")
    from conftest import raised_by

    # the decorated losses are called here: a call in the fixture would decide its message
    args = "(Linear(jnp.ones(3), 3), jnp.ones((5, 3)), jnp.ones(5))"
    for bad in ("run_bad()", f"step_loss{args}"):
        e = raised_by("JAX403/lint/equinox_filter_grads.py", bad)
        assert type(e) is TypeError and "scalar-output" in str(e), (bad, e)
    for ok in ("run_ok()", f"step_loss_ok{args}"):
        assert raised_by("JAX403/lint/equinox_filter_grads.py", ok) is None, ok


INIT_ATTRIBUTE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "JAX403", "lint", "init_attribute_{}")


def test_an_attribute_the_method_stored_just_before_is_that_value():
    # `self.objective = OBJECTIVES[objective]` then `jax.value_and_grad(self.objective)` in
    # `__init__`; main.py builds `Denoiser("l2", ...)`, whose objective returns (loss, metrics)
    found = testing.lint_folder(INIT_ATTRIBUTE.format("bad"), testing.settings_for(*ALL)).diagnostics
    assert [(os.path.basename(d.path), d.start.line, d.code, d.message) for d in found] == [
        (
            "denoiser.py",
            11,
            "JAX403",
            "the function returns `a 2-tuple` for the call at line 15, as called at line 9 of main.py, a pair"
            " (output, aux)",
        )
    ]
    assert found[0].fix is not None
    assert found[0].fix.message == "Add `has_aux=True` (the result becomes `((value, aux), grads)`; adapt its use)"
    assert testing.lint_folder(INIT_ATTRIBUTE.format("ok"), testing.settings_for(*ALL)).diagnostics == []


@pytest.mark.jax
def test_the_init_attribute_fixture_fails_under_jax_as_linted():
    pytest.importorskip("jax")
    from conftest import raised_by_project

    e = raised_by_project(INIT_ATTRIBUTE.format("bad"), "main.py", ("objectives", "denoiser"))
    assert type(e) is TypeError and "Gradient only defined for scalar-output functions" in str(e), e
    assert raised_by_project(INIT_ATTRIBUTE.format("ok"), "main.py", ("objectives", "denoiser")) is None
