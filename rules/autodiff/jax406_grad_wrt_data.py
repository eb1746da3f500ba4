from __future__ import annotations

import re

from jaxlint.lint.rule import Invalid

from .analysis import GradRule, Site, normalised

PARAMS = re.compile(r"(params|parameters|weights|model_params|variables|theta|net_params|trainable_params|w_b)")
INPUTS = re.compile(r"(inputs?|batch|data|x_batch|batch_x|images?|features|xs|input_data|x_train|train_x)")
TARGETS = re.compile(r"(targets?|labels?|y_true|batch_y|y_batch|ys|ground_truth|gt|y_train|train_y)")


class GradWrtData(GradRule):
    """
    ## What it does
    Reports `argnums` of `jax.grad` (and `value_and_grad`, `jacrev`, `jacfwd`,
    `jacobian`, `hessian`) that selects the data of a loss function while another
    parameter is visibly the model parameters: the labels or targets (`targets`,
    `labels`, `y_true`, ...) are selected, or the inputs (`inputs`, `batch`, `images`,
    ...) are selected together with the parameters. Differentiating with respect to the
    inputs alone (saliency maps, adversarial examples) is not reported.

    ## Why is this bad?
    `argnums` counts the function's positional parameters, not the leaves of a pytree:
    `argnums=0` already differentiates every leaf of `params` (`params['w']` and
    `params['b']`). `argnums=(0, 1)` on `loss(params, inputs, targets)` additionally
    computes the gradient with respect to the whole input batch — wasted work, and a
    result tuple whose second element is easily mistaken for the bias gradient.

    ## Example
    ```python
    def loss(params, inputs, targets):
        predictions = jnp.dot(inputs, params['w']) + params['b']
        return jnp.mean((predictions - targets) ** 2)

    grad_w_b = grad(loss, argnums=(0, 1))
    ```

    ## Use instead
    ```python
    grad_params = grad(loss)  # argnums=0: a dict with both 'w' and 'b' gradients
    ```

    ## References
    - [jax.grad](https://docs.jax.dev/en/latest/_autosummary/jax.grad.html)
    - [Working with pytrees](https://docs.jax.dev/en/latest/working-with-pytrees.html)
    """

    code = "JAX406"
    name = "grad-wrt-data"
    summary = "`argnums` differentiates the data (inputs, targets) of a loss with model parameters"
    status = "preview"
    help = "Differentiate only the parameters: argnums=0 covers every leaf of a params pytree"
    VALID = (
        "import jax\ndef loss(params, inputs, targets):\n    return params * inputs - targets\ng = jax.grad(loss, argnums=0)\n",
        "import jax\ndef loss(params, inputs, targets):\n    return params * inputs - targets\ng = jax.grad(loss, argnums=1)\n",
        "import jax\ndef f(x, y):\n    return x * y\ng = jax.grad(f, argnums=(0, 1))\n",
    )
    INVALID = (
        (
            "import jax\ndef loss(params, inputs, targets):\n    return params * inputs - targets\ng = jax.grad(loss, argnums=(0, 1))\n",
            Invalid("JAX406", line=4, message="`inputs`"),
        ),
        (
            "import jax\ndef loss(params, x, labels):\n    return params * x - labels\ng = jax.grad(loss, argnums=2)\n",
            Invalid("JAX406", line=4, message="`labels`"),
        ),
    )

    def verdict(self, site: Site) -> str | None:
        if site.inexact_only:
            return None  # ``eqx.filter_grad``: an int or bool leaf gets no gradient, and raises nothing
        nums = site.argnums()
        target = site.target
        if nums is None or target is None or target.varargs:
            return None
        idx = normalised(nums, len(target.params))
        if idx is None:
            return None
        names = target.params
        param_names = [n for n in names if PARAMS.fullmatch(n)]
        if not param_names:
            return None
        selected = [names[i] for i in idx]
        targets = [n for n in selected if TARGETS.fullmatch(n)]
        inputs = [n for n in selected if INPUTS.fullmatch(n)]
        chosen_params = [n for n in selected if n in param_names]
        value = site.option("argnums", 0)
        pidx = names.index(param_names[0])
        if targets:
            what = f"the targets `{targets[0]}`"
        elif inputs and chosen_params:
            what = f"the input data `{inputs[0]}` as well as `{chosen_params[0]}`"
        else:
            return None
        return (
            f"`{site.shown}` argnums={value!r} differentiates {what} of {target.label}; argnums counts "
            f"positional parameters, and argnums={pidx} alone already gives the gradient of every leaf of "
            f"`{param_names[0]}` (e.g. both `{param_names[0]}['w']` and `{param_names[0]}['b']`). Use argnums={pidx}"
        )
