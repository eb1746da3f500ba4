"""JAX3xx: custom_vjp / custom_jvp rules paired with their primal (exact codes, lines, messages)."""

import os

from conftest import FIXTURES

from jaxlint import testing
from jaxlint.api import lint_paths

CODES = ("JAX301", "JAX302", "JAX303", "JAX304", "JAX305", "JAX306")

with open(os.path.join(FIXTURES, "seeds", "c1_4_custom_vjp_my_clip.py"), encoding="utf-8") as _f:
    SEED = _f.read()


def _lint(source):
    return [(d.code, d.start.line, d.message) for d in testing.lint(source, *CODES)]


def _noted(source):
    return [(d.code, d.start.line, d.message, d.note) for d in testing.lint(source, *CODES)]


BWD_RAISES = (
    "Under `jax.grad` JAX raises `TypeError: Custom VJP bwd rule must produce an output with the same container "
    "(pytree) structure as the args tuple of the primal function`."
)


def fwd_raises(fwd, primal):
    return (
        f"Under `jax.grad` JAX raises `TypeError: Custom VJP fwd rule {fwd} for function {primal} must produce a pair "
        "(list or tuple of length two) where the first element represents the primal output ... and the second "
        "element represents residuals`."
    )


def test_seed_my_clip_is_clean():
    assert _lint(SEED) == []


def test_seed_my_clip_one_tuple_variant():
    bad = SEED.replace("return (grad_x, None, None)", "return (grad_x,)")
    assert _noted(bad) == [
        (
            "JAX301",
            15,
            "`my_clip_bwd` returns 1 cotangent but `my_clip` has 3 differentiable arguments",
            "Return one per argument, `None` where there is no gradient. The differentiable arguments of `my_clip` "
            "are x, low, high. " + BWD_RAISES,
        )
    ]


def test_bare_value_for_one_argument_and_its_fix():
    src = (
        "import jax\n\n@jax.custom_vjp\ndef f(x):\n    return 2.0 * x\n\n"
        "def f_bwd(res, g):\n    grad = 2.0 * g\n    return grad\n\n"
        "f.defvjp(lambda x: (f(x), None), f_bwd)\n"
    )
    assert _noted(src) == [
        (
            "JAX301",
            9,
            "`f_bwd` returns `grad`, not a tuple of cotangents; return `(grad,)`",
            "The differentiable arguments of `f` are x. " + BWD_RAISES,
        )
    ]
    assert "    return (grad,)\n" in testing.fix(src, "JAX301")


def test_nondiff_argnums_excluded_from_count_and_bwd_signature():
    src = (
        "import jax\nfrom functools import partial\n\n"
        "@partial(jax.custom_vjp, nondiff_argnums=(0,))\ndef f(fn, x):\n    return fn(x)\n\n"
        "def f_fwd(fn, x):\n    return fn(x), x\n\n"
        "def f_bwd(res, g):\n    return (None, g)\n\n"
        "f.defvjp(f_fwd, f_bwd)\n"
    )
    assert _noted(src) == [
        (
            "JAX304",
            11,
            "`f_bwd` takes 2 positional parameters but JAX calls it with 3; write it as `f_bwd(fn, residuals, g)`",
            "Because of `nondiff_argnums=(0,)`, JAX calls `bwd` with the non-differentiable arguments first, then "
            "the residuals `fwd` returned and the output cotangent; under `jax.grad` the call fails with `TypeError`.",
        ),
        (
            "JAX301",
            12,
            "`f_bwd` returns 2 cotangents but `f` has 1 differentiable argument",
            "Return one per argument, `None` where there is no gradient. The differentiable arguments of `f` are x "
            "(`nondiff_argnums=(0,)` excludes fn). " + BWD_RAISES,
        ),
    ]


def test_swapped_fwd_parameters():
    src = (
        "import jax\n\n@jax.custom_vjp\ndef f(x, y):\n    return x * y\n\n"
        "def f_fwd(y, x):\n    return f(x, y), (x, y)\n\n"
        "f.defvjp(f_fwd, lambda res, g: (g * res[1], g * res[0]))\n"
    )
    assert _noted(src) == [
        (
            "JAX302",
            7,
            "`f_fwd(y, x)` orders its parameters differently from `f(x, y)`; use the primal's order",
            "JAX passes the arguments by position, so the gradients come back silently swapped.",
        )
    ]


def test_fwd_not_pair_and_jvp_shape():
    src = (
        "import jax\nimport jax.numpy as jnp\n\n@jax.custom_vjp\ndef f(x):\n    return x\n\n"
        "f.defvjp(lambda x: jnp.sin(x), lambda r, g: (g,))\n\n"
        "@jax.custom_jvp\ndef h(x):\n    return x\n\n"
        "@h.defjvp\ndef h_jvp(primals, tangents):\n    t = tangents[0] * 2.0\n    return t\n"
    )
    assert _noted(src) == [
        (
            "JAX303",
            8,
            "The fwd lambda returns `jnp.sin(x)`, not an `(output, residuals)` pair",
            "Return `(jnp.sin(x), residuals)` with what `bwd` needs. " + fwd_raises("<lambda>", "f"),
        ),
        (
            "JAX305",
            17,
            "`h_jvp` returns `t`, not a `(primal_out, tangent_out)` pair; return both",
            "JAX raises `TypeError: Custom JVP rule ... must produce a pair (list or tuple of length two) representing "
            "primal and tangent outputs` when the function is differentiated.",
        ),
    ]


def test_redefined_names_pair_with_the_live_definition():
    src = (
        "import jax\n\ndef test():\n"
        "    @jax.custom_vjp\n    def f(x):\n        return x\n"
        "    def bwd(r, g):\n        return (g,)\n"
        "    f.defvjp(lambda x: (x, None), bwd)\n"
        "    @jax.custom_vjp\n    def f(x, y):\n        return x\n"
        "    def bwd(r, g):\n        return (g, g)\n"
        "    f.defvjp(lambda x, y: (x, None), bwd)\n"
    )
    assert _lint(src) == []


def test_unknowns_are_silent():
    src = (
        "import jax\n\n@jax.custom_vjp\ndef f(*args):\n    return args\n\n"
        "f.defvjp(lambda *a: (a, None), lambda r, g: g)\n\n"
        "class M:\n    @jax.custom_vjp\n    def m(self, x):\n        return x\n\n"
        "def g(x):\n    return x\n\ng.defvjp(lambda x: x, lambda r, g: g)\n"
    )
    assert _lint(src) == []


def test_nondiff_array_annotation():
    src = (
        "import jax\nfrom functools import partial\n\n"
        "@partial(jax.custom_vjp, nondiff_argnums=(0,))\ndef f(scale: jax.Array, x):\n    return scale * x\n"
    )
    assert _noted(src) == [
        (
            "JAX306",
            5,
            "`nondiff_argnums=(0,)` marks the array argument `scale` of `f` as non-differentiable",
            "Make it an ordinary argument and return `None` as its cotangent. It is annotated `jax.Array`: under "
            "`jax.jit` or `jax.vmap` an array there is a tracer, and JAX raises `UnexpectedTracerError`.",
        )
    ]


def test_rules_in_another_module(tmp_path, monkeypatch):
    (tmp_path / "ops.py").write_text("import jax\n\n@jax.custom_vjp\ndef f(x, y):\n    return x * y\n")
    (tmp_path / "grads.py").write_text(
        "from ops import f\n\ndef f_fwd(x, y):\n    return f(x, y), (x, y)\n\n"
        "def f_bwd(res, g):\n    return (g,)\n\nf.defvjp(f_fwd, f_bwd)\n"
    )
    monkeypatch.chdir(tmp_path)
    settings = testing.settings_for(*CODES)
    settings.root = str(tmp_path)
    run = lint_paths(["."], settings, jobs=1)
    assert run.errors == []
    assert [(os.path.basename(d.path), d.code, d.start.line) for d in run.diagnostics] == [("grads.py", "JAX301", 7)]
    assert run.diagnostics[0].message == "`f_bwd` returns 1 cotangent but `f` has 2 differentiable arguments"
    assert run.diagnostics[0].note.startswith(
        "Return one per argument, `None` where there is no gradient. The differentiable arguments of `f` are x, y. "
    )


def test_defjvps_one_rule_per_argument():
    src = (
        "import jax\nimport jax.numpy as jnp\n\n@jax.custom_jvp\ndef f(x, y):\n    return jnp.sin(x) * y\n\n"
        "f.defjvps(lambda x_dot, out, x, y: jnp.cos(x) * x_dot * y)\n"
        "f.defjvps(lambda t, x, y: t, None)\n"
    )
    assert _noted(src) == [
        (
            "JAX305",
            8,
            "`f.defjvps` gives 1 rule for 2 arguments of `f`; give one per argument, `None` where there is no tangent",
            "JAX pairs the rules with the arguments x, y one by one, and when the function is differentiated raises "
            "`ValueError: safe_zip() argument 1 has length 1 but argument 0 has length 2`.",
        ),
        (
            "JAX305",
            9,
            "The lambda for `x` takes 3 positional parameters but JAX calls it with 4; write it as "
            "`lambda t, primal_out, x, y: ...`",
            "`defjvps` calls each rule with its argument's tangent, the primal output and all the primal's "
            "arguments; under `jax.jvp` or `jax.grad` the call fails with `TypeError`.",
        ),
    ]


def test_fwd_returning_only_the_primal_value_through_a_variable():
    src = (
        "import jax\n\n@jax.custom_vjp\ndef f(x, y):\n    return x * y\n\n"
        "def f_fwd(x, y):\n    out = f(x, y)\n    return out\n\n"
        "f.defvjp(f_fwd, lambda res, g: (g, g))\n"
    )
    assert _noted(src) == [
        (
            "JAX303",
            9,
            "`f_fwd` returns `out`, not an `(output, residuals)` pair; return `(out, residuals)` with what `bwd` needs",
            fwd_raises("f_fwd", "f"),
        )
    ]
    paired = src.replace("    return out\n", "    res = (out, (x, y))\n    return res\n")
    assert _noted(paired) == []


def test_nondiff_argnums_from_a_constant():
    src = (
        "import jax\nfrom functools import partial\n\nSTATIC = (0,)\n\n"
        "@partial(jax.custom_vjp, nondiff_argnums=STATIC)\ndef f(n, x):\n    return n * x\n\n"
        "def f_bwd(n, res, g):\n    return (n * g, None)\n\n"
        "f.defvjp(lambda n, x: (f(n, x), None), f_bwd)\n"
    )
    assert _noted(src) == [
        (
            "JAX301",
            11,
            "`f_bwd` returns 2 cotangents but `f` has 1 differentiable argument",
            "Return one per argument, `None` where there is no gradient. The differentiable arguments of `f` are x "
            "(`nondiff_argnums=(0,)` excludes n). " + BWD_RAISES,
        )
    ]
    assert _noted(src.replace("STATIC = (0,)", "STATIC = ()")) == [
        (
            "JAX304",
            10,
            "`f_bwd` takes 3 positional parameters but JAX calls it with 2; write it as `f_bwd(residuals, g)`",
            "JAX calls `bwd` with the non-differentiable arguments first, then the residuals `fwd` returned and the "
            "output cotangent; under `jax.grad` the call fails with `TypeError`.",
        )
    ]


def test_signature_keeping_decorators_are_seen_through():
    src = (
        "import functools\nimport jax\n\n"
        "def logged(fn):\n    @functools.wraps(fn)\n    def wrapper(*args, **kwargs):\n"
        "        return fn(*args, **kwargs)\n    return wrapper\n\n"
        "@jax.custom_vjp\n@logged\ndef f(x, y):\n    return x * y\n\n"
        "@jax.named_scope('f_fwd')\ndef f_fwd(y, x):\n    return f(x, y), (x, y)\n\n"
        "f.defvjp(f_fwd, lambda res, g: (g, g))\n"
    )
    assert _noted(src) == [
        (
            "JAX302",
            16,
            "`f_fwd(y, x)` orders its parameters differently from `f(x, y)`; use the primal's order",
            "JAX passes the arguments by position, so the gradients come back silently swapped.",
        )
    ]
    # a wrapper without functools.wraps has only (*args, **kwargs): the primal's arity is not known
    assert _noted(src.replace("    @functools.wraps(fn)\n", "")) == []


def test_a_rule_of_another_module_is_reported_at_the_argument(tmp_path, monkeypatch):
    (tmp_path / "ops.py").write_text("import jax\n\n@jax.custom_vjp\ndef double(x):\n    return 2.0 * x\n")
    (tmp_path / "rules_elsewhere.py").write_text(
        "def double_fwd(x):\n    return 2.0 * x, None\n\n\ndef double_bwd(res, g):\n    return 2.0 * g\n"
    )
    (tmp_path / "grads.py").write_text(
        "import rules_elsewhere\nfrom ops import double\n\n"
        "double.defvjp(rules_elsewhere.double_fwd, rules_elsewhere.double_bwd)\n"
    )
    monkeypatch.chdir(tmp_path)
    settings = testing.settings_for(*CODES)
    settings.root = str(tmp_path)
    run = lint_paths(["."], settings, jobs=1)
    assert run.errors == []
    assert [(os.path.basename(d.path), d.code, d.start.line, d.start.column) for d in run.diagnostics] == [
        ("grads.py", "JAX301", 4, 43)
    ]
    d = run.diagnostics[0]
    assert d.message == "`double_bwd` returns `2.0 * g`, not a tuple of cotangents; return `(2.0 * g,)`"
    assert (
        d.note
        == "`double_bwd` is defined at rules_elsewhere.py:5; the differentiable arguments of `double` are x. "
        + BWD_RAISES
    )


def test_every_fixture_headline_fits_a_line():
    from jaxlint.lint.wording import HEADLINE

    heads = []
    for code in CODES:
        folder = os.path.join(FIXTURES, code, "lint")
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    heads += [d.message for d in testing.lint(f.read(), *CODES)]
    assert heads and [h for h in heads if len(h) > HEADLINE] == []
