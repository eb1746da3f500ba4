"""JAX4xx (grad / value_and_grad / jacrev / jacfwd / hessian): exact codes, lines and messages."""

import os

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
    return [(d.code, d.start.line, d.message) for d in testing.lint(source, *(codes or ALL))]


def test_out_of_range_message():
    assert found(LOSS + "g = grad(loss, argnums=3)\n") == [
        (
            "JAX401",
            10,
            (
                "`grad` argnums=3: index 3 is out of range because `loss` takes 3 positional parameters "
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
    assert "`loss` takes 1 positional parameter (`params`) after functools.partial binds `inputs`" in message


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
