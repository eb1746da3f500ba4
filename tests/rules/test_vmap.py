"""JAX1xx (vmap / in_axes): exact codes, lines, messages and fixes."""

import os

from conftest import FIXTURES

from jaxlint import testing

LINEAR = (
    "import jax.numpy as jnp\n"
    "from jax import vmap\n"
    "\n"
    "def linear_layer(x, w, b):\n"
    "    return jnp.dot(w, x) + b\n"
    "\n"
    "batch = vmap(linear_layer{axes})\n"
)


def _lint(source, code):
    return [(d.code, d.start.line, d.message) for d in testing.lint(source, code)]


def test_seed_linear_layer_is_clean():
    with open(os.path.join(FIXTURES, "seeds", "c4_1_vmap_linear_layer.py"), encoding="utf-8") as f:
        seed = f.read()
    assert _lint(seed, "JAX101") == []
    assert _lint(seed, "JAX102") == []
    assert _lint(seed, "JAX103") == []


def test_default_in_axes_message():
    got = _lint(LINEAR.format(axes=""), "JAX101")
    assert got == [
        (
            "JAX101",
            7,
            "`vmap(linear_layer)` maps `w`, `b` over a batch axis (the default `in_axes=0`), but `linear_layer` "
            "uses them as shared parameters: `w` is the weight operand of `jnp.dot(w, x)` and is named like a "
            "parameter; `b` is added as a bias in `jnp.dot(w, x) + b` and is named like a parameter. Each example "
            "gets its own slice of them: a size error, or silently wrong results when the batch size equals the "
            "leading dimension; use `in_axes=(0, None, None)`",
        )
    ]


def test_scalar_zero_and_fix():
    src = LINEAR.format(axes=", in_axes=0")
    assert [line for _, line, _ in _lint(src, "JAX101")] == [7]
    assert testing.fix(src, "JAX101") == LINEAR.format(axes=", in_axes=(0, None, None)")
    assert testing.fix(LINEAR.format(axes=""), "JAX101") == LINEAR.format(axes=", in_axes=(0, None, None)")


def test_seed_variants_explicit_tuple():
    assert _lint(LINEAR.format(axes=", in_axes=(0, None, None)"), "JAX101") == []
    fixed = testing.fix(LINEAR.format(axes=", in_axes=(0, 0, 0)"), "JAX101")
    assert fixed == LINEAR.format(axes=", in_axes=(0, None, None)")


def test_caller_evidence_from_init():
    src = "import jax\ndef apply(p, x):\n    return x @ p\np0 = model.init(key, x0)\nout = jax.vmap(apply)(p0, xs)\n"
    ((code, line, msg),) = _lint(src, "JAX101")
    assert (code, line) == ("JAX101", 5)
    assert "`p` is the weight operand of `x @ p`, and the caller's `p0` comes from `model.init(...)`" in msg


def test_ensemble_is_silent():
    src = (
        "import jax\n"
        "def apply(params, x):\n"
        "    return x @ params['w']\n"
        "params = jax.vmap(init)(keys)\n"
        "out = jax.vmap(apply)(params, xs)\n"
    )
    assert _lint(src, "JAX101") == []


def test_all_shared_is_silent():
    src = "import jax\ndef f(w):\n    return w @ w.T\ng = jax.vmap(f)\n"
    assert _lint(src, "JAX101") == []


def test_arity_call_site():
    src = "import jax\ndef f(x, w, b):\n    return w @ x + b\nout = jax.vmap(f, in_axes=(0, None))(xs, w, b)\n"
    assert _lint(src, "JAX102") == [
        (
            "JAX102",
            4,
            "`in_axes=(0, None)` has 2 entries, but `vmap(f)` is called with 3 positional arguments in "
            "`jax.vmap(f, in_axes=(0, None))(xs, w, b)`; JAX raises `ValueError: vmap in_axes must be ... a tuple "
            "of entries corresponding to the positional arguments`. Give one entry per positional argument",
        )
    ]


def test_arity_through_vjp_names_the_vjp_call():
    src = "import jax\ndef f(x, c):\n    return x * c\ng = jax.vmap(f, in_axes=(0,))\nout, back = jax.vjp(g, xs, c)\n"
    assert _lint(src, "JAX102") == [
        (
            "JAX102",
            4,
            "`in_axes=(0,)` has 1 entry, but `vmap(f)` is called with 2 positional arguments in "
            "`jax.vjp(g, xs, c)`; JAX raises `ValueError: vmap in_axes must be ... a tuple "
            "of entries corresponding to the positional arguments`. Give one entry per positional argument",
        )
    ]


def test_arity_signature_and_partial():
    src = (
        "import jax\nfrom functools import partial\n"
        "def f(x, w, b):\n    return w @ x + b\n"
        "g = jax.vmap(partial(f, 1), in_axes=(0, None, None))\n"
        "h = jax.vmap(f, in_axes=(0, None))\n"
    )
    assert _lint(src, "JAX102") == [
        (
            "JAX102",
            5,
            "`in_axes=(0, None, None)` has 3 entries, but `f` (after the 1 argument bound by `partial`) takes at "
            "most 2 positional arguments (w, b); every call of `vmap(partial(f, 1))` will fail. Give one entry per positional "
            "argument",
        )
    ]


def test_nothing_mapped():
    src = "import jax\ng = jax.vmap(f, in_axes=(None, None))\nh = jax.vmap(f, in_axes=None, axis_size=3)\n"
    assert _lint(src, "JAX103") == [
        (
            "JAX103",
            2,
            "`vmap(f)` maps nothing: `in_axes=(None, None)` has no non-`None` entry and no `axis_size=` is given, "
            "so JAX raises `ValueError: vmap must have at least one non-None value in in_axes`. Put `0` at the "
            "batched argument's position, or pass `axis_size=`",
        )
    ]


def test_keywords_at_call_are_mapped():
    assert _lint("import jax\nout = jax.vmap(f, in_axes=None)(x=xs)\n", "JAX103") == []


def test_arity_in_the_helper_def_the_vmap_is_passed_to():
    src = (
        "import jax\nimport jax.numpy as jnp\ndef run(step, xs):\n    return step(xs, xs, xs)\ndef main():\n"
        "    run(jax.vmap(f, in_axes=(0, None)), jnp.ones(3))\n"
    )
    assert [(d.code, d.start.line, d.start.column, d.message) for d in testing.lint(src, "JAX102")] == [
        (
            "JAX102",
            6,
            9,
            "`in_axes=(0, None)` has 2 entries, but `vmap(f)` is called with 3 positional arguments in "
            "`step(xs, xs, xs)`; JAX raises `ValueError: vmap in_axes must be ... a tuple of entries corresponding to "
            "the positional arguments`. Give one entry per positional argument",
        )
    ]


def test_arity_star_args_bounded_by_the_signature():
    src = (
        "import jax\n"
        "def f(x, w, *rest):\n    return x * w\n"
        "def g(x, w, b=0):\n    return x * w + b\n"
        "one = jax.vmap(f, in_axes=(0,))(xs, *ws)\n"
        "two = jax.vmap(g, in_axes=(0, None, None, None))(xs, *ws)\n"
        "ok = jax.vmap(g, in_axes=(0, None, None))(xs, *ws)\n"
        "ok_kw = jax.vmap(g, in_axes=(0,))(xs, *ws, w=w)\n"
    )
    assert _lint(src, "JAX102") == [
        (
            "JAX102",
            6,
            "`in_axes=(0,)` has 1 entry, but `vmap(f)` is called with `(xs, *ws)`: whatever `*ws` holds, `f` takes "
            "at least 2 positional arguments there; JAX raises `ValueError: vmap in_axes must be ... a tuple of "
            "entries corresponding to the positional arguments`, or the call of `f` fails. Give one entry per "
            "positional argument",
        ),
        (
            "JAX102",
            7,
            "`in_axes=(0, None, None, None)` has 4 entries, but `g` takes at most 3 positional arguments (x, w, b); "
            "every call of `vmap(g)` will fail. Give one entry per positional argument",
        ),
    ]


def test_arity_star_args_of_a_visible_tuple_count_its_entries():
    src = "import jax\ndef f(x, *rest):\n    return x\nws = (1, 2)\nout = jax.vmap(f, in_axes=(0, None))(xs, *ws)\n"
    assert _lint(src, "JAX102") == [
        (
            "JAX102",
            5,
            "`in_axes=(0, None)` has 2 entries, but `vmap(f)` is called with 3 positional arguments in "
            "`jax.vmap(f, in_axes=(0, None))(xs, *ws)`; JAX raises `ValueError: vmap in_axes must be ... a tuple "
            "of entries corresponding to the positional arguments`. Give one entry per positional argument",
        )
    ]
