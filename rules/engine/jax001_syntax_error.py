from jaxlint.lint.rule import Invalid, Rule


class SyntaxErrorRule(Rule):
    """
    ## What it does
    Reports a file that LibCST cannot parse, with the parser's line, column and message.
    In a notebook, a code cell that does not parse is reported in that cell; a `.ipynb`
    file that is not nbformat 4 JSON (invalid JSON, an old nbformat) is reported once, at
    the JSON error's line and column.

    ## Why is this bad?
    A file that does not parse cannot be imported, and jaxlint cannot check it: no other
    rule runs on it. The rest of the run goes on.

    ## Example
    ```python
    def f(x)
        return jax.grad(g)(x)
    ```

    ## Use instead
    ```python
    def f(x):
        return jax.grad(g)(x)
    ```

    ## References
    - [LibCST: parsing](https://libcst.readthedocs.io/en/latest/parser.html)
    """

    code = "JAX001"
    name = "syntax-error"
    summary = "The file could not be parsed"
    help = "Fix the syntax error; jaxlint checks nothing else in this file until then"
    engine_rule = True
    VALID = ("import jax\nx = jax.numpy.ones(3)\n",)
    INVALID = (("import jax\ndef f(x)\n    return jax.grad(x)\n", Invalid("JAX001", line=2)),)
