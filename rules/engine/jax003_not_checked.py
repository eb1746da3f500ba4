from jaxlint.lint.rule import Invalid, Rule

# nested deeper than the rules' recursive helpers go, not deeper than the parser goes
_DEEP = (
    "import jax\n\ndef loss(w, x):\n    return "
    + " + ".join(["w"] * 2000)
    + ", x\n\ng = jax.grad(loss)  # JAX403 cannot show a return value this deep\n"
)


class NotChecked(Rule):
    """
    ## What it does
    Reports a file that jaxlint could not check, or a rule that could not check it, and
    says why: the file cannot be read (permissions, it vanished during the run, a folder
    that cannot be listed), it is not a regular file (a FIFO, a socket, a device), it
    cannot be decoded in its declared encoding (at the first bad byte), it is larger than
    16 MiB, its code is nested too deeply or is too large for a rule, or the worker
    process checking it died.

    ## Why is this bad?
    A file jaxlint did not check must not look like a file that passed: its findings are
    unknown. The rest of the run goes on, and the exit code follows the findings.

    ## Example
    ```python
    # -*- coding: utf-8 -*-
    name = "caf\xe9"   # saved as Latin-1: byte 0xe9 is not UTF-8
    ```

    ## Use instead
    ```python
    # -*- coding: latin-1 -*-
    name = "caf\xe9"
    ```

    ## References
    - [Python: source code encoding](https://docs.python.org/3/reference/lexical_analysis.html#encoding-declarations)
    - [ruff: E902 io-error](https://docs.astral.sh/ruff/rules/io-error/)
    """

    code = "JAX003"
    name = "not-checked"
    summary = "The file, or a rule on it, could not be checked"
    help = "Fix what the message names (or exclude the file); jaxlint skipped it"
    engine_rule = True
    VALID = ("import jax\n\ndef loss(w, x):\n    return w + x\n\ng = jax.grad(loss)\n",)
    INVALID = ((_DEEP, Invalid("JAX003", line=1, message="did not check this file: the code is nested too deeply")),)
