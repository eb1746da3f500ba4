"""What a function returns (jaxlint.model.returns): its own return statements, and
whether every path returns."""

from __future__ import annotations

import libcst as cst

from jaxlint.model.returns import always_returns, return_statements

from .helpers import line_of, model_of


def _defs(p) -> dict[str, cst.FunctionDef]:
    return {n.name.value: n for n in p.ctx.descendants(p.ctx.module, ()) if isinstance(n, cst.FunctionDef)}


SOURCE = """
def outer(x):
    def inner(y):
        return y
    class C:
        def m(self):
            return 1
    if x:
        return x, 1
    for i in x:
        try:
            return i
        except ValueError:
            return
    return (lambda z: z)(x)

def gen(x):
    return (yield x)

async def coro(x):
    return x

def one_line(x): return x, 2

def no_return(x):
    x + 1
"""


def test_return_statements_of_the_def_itself_in_text_order():
    p = model_of(SOURCE)
    defs = _defs(p)
    found = return_statements(p.ctx, defs["outer"])
    assert [line_of(p, r) for r in found] == [9, 12, 14, 15]
    assert [p.ctx.code(r.value) if r.value is not None else None for r in found] == [
        "x, 1",
        "i",
        None,
        "(lambda z: z)(x)",
    ]
    assert [p.ctx.code(r.value) for r in return_statements(p.ctx, defs["one_line"])] == ["x, 2"]
    assert return_statements(p.ctx, defs["no_return"]) == []
    assert [line_of(p, r) for r in return_statements(p.ctx, defs["inner"])] == [4]


def test_generators_and_coroutines_have_no_returns_to_read():
    p = model_of(SOURCE)
    defs = _defs(p)
    assert return_statements(p.ctx, defs["gen"]) is None
    assert return_statements(p.ctx, defs["coro"]) is None


def _always(source: str) -> bool:
    p = model_of(source)
    return always_returns(_defs(p)["f"])


def test_always_returns():
    assert _always("def f(x):\n    return x\n")
    assert _always("def f(x): return x\n")
    assert _always(
        "def f(x):\n    if x:\n        return 1\n    elif x > 1:\n        raise ValueError\n    else:\n        return 2\n"
    )
    assert _always("def f(x):\n    with open(x) as h:\n        return h.read()\n")
    assert not _always("def f(x):\n    if x:\n        return 1\n")
    assert not _always("def f(x):\n    if x:\n        return 1\n    elif x > 1:\n        return 2\n")
    assert not _always("def f(x):\n    for i in x:\n        return i\n")
    assert not _always("def f(x):\n    pass\n")
    assert not _always("def f(x):\n    with open(x) as h:\n        h.read()\n")
    lam = cst.parse_expression("lambda x: x")
    assert always_returns(lam)


def test_always_returns_through_one_line_suites():
    assert _always("def f(x):\n    if x: return 1\n    else: raise ValueError\n")
    assert not _always("def f(x):\n    if x: return 1\n    else: x + 1\n")
