"""The forward walk of jaxlint.model.flow, driven by a small client: which names are
certainly assigned at each ``probe()`` call (a "must" fact, merged at every join)."""

from __future__ import annotations

import textwrap

import libcst as cst

from jaxlint.model.flow import Flow, bound_names, terminates


class Assigned(Flow):
    """env: name -> True once assigned; ``probe()`` records the sorted names, and whether
    the walk is in the second iteration of a loop."""

    def __init__(self) -> None:
        super().__init__(None)
        self.seen: list[tuple[list[str], bool]] = []

    def small(self, s) -> None:
        if isinstance(s, cst.Assign):
            self.expression(s.value)
            for t in s.targets:
                for n in bound_names(t.target):
                    self.env[n] = True
        elif isinstance(s, cst.Expr):
            self.expression(s.value)

    def expression(self, e) -> None:
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value == "probe":
            self.seen.append((sorted(self.env), self.loop_node is not None))


def _walk(source: str) -> list[tuple[list[str], bool]]:
    flow = Assigned()
    flow.run(cst.parse_module(textwrap.dedent(source)))
    return flow.seen


def test_statements_in_order_and_if_else_merged():
    assert _walk("""
    a = 1
    probe()
    if c:
        b = 1
        probe()
    else:
        b = 2
        d = 3
    probe()
    if c:
        e = 1
    probe()
    """) == [(["a"], False), (["a", "b"], False), (["a", "b"], False), (["a", "b"], False)]


def test_an_arm_that_leaves_does_not_join():
    assert _walk("""
    for x in xs:
        if c:
            continue
        else:
            a = 1
        probe()
        if c:
            b = 1
        elif d:
            raise E
        else:
            b = 2
        probe()
    """)[:2] == [(["a"], False), (["a", "b"], False)]


def test_try_handlers_and_match_cases_are_arms():
    assert _walk("""
    try:
        a = 1
        b = 1
    except E:
        a = 2
    probe()
    try:
        c = 1
    except E:
        raise
    probe()
    match v:
        case 1:
            d = 1
        case _:
            d = 2
    probe()
    """) == [(["a"], False), (["a", "c"], False), (["a", "c"], False)]


def test_a_loop_body_is_walked_again_as_the_next_iteration():
    # the default next iteration starts from what held before the loop and after one iteration
    assert _walk("""
    for i in xs:
        probe()
        a = 1
    probe()
    while c:
        probe()
        break
    """) == [([], False), ([], True), ([], False), ([], False)]


def test_the_loop_target_and_a_with_name_are_unknown():
    assert _walk("""
    i = 0
    for i in xs:
        probe()
    f = 0
    with open(p) as f:
        probe()
    """) == [([], False), ([], True), ([], False)]


def test_a_def_or_class_rebinds_its_name():
    assert _walk("""
    f = 1
    C = 1
    def f():
        pass
    class C:
        pass
    probe()
    """) == [([], False)]


def test_terminates():
    block = lambda src: cst.parse_module(textwrap.dedent(src)).body  # noqa: E731
    assert terminates(block("x = 1\nreturn x\n"))
    assert terminates(block("if c:\n    return 1\nelif d:\n    raise E\nelse:\n    continue\n"))
    assert not terminates(block("if c:\n    return 1\nelif d:\n    x = 1\nelse:\n    break\n"))
    assert not terminates(block("if c:\n    return 1\n"))
    assert not terminates(block("x = 1\n"))
    assert not terminates([])
    # one-line suites: each arm ends in a leaving statement
    assert terminates(block("if c: return 1\nelse: raise E\n"))
    assert not terminates(block("if c: return 1\nelse: x = 1\n"))
    # a ``try`` leaves when its body (or ``else``) and every handler do, or its ``finally`` does
    assert terminates(block("try:\n    return d[k]\nexcept KeyError:\n    raise ValueError(k)\n"))
    assert terminates(block("try:\n    x = d[k]\nexcept KeyError:\n    raise\nelse:\n    return x\n"))
    assert not terminates(block("try:\n    return d[k]\nexcept KeyError:\n    pass\n"))
    assert not terminates(block("try:\n    x = d[k]\nexcept KeyError:\n    raise\n"))
    assert terminates(block("try:\n    x = 1\nfinally:\n    return 0\n"))


def test_bound_names():
    expr = lambda src: cst.parse_expression(src)  # noqa: E731
    assert bound_names(expr("a")) == ["a"]
    assert bound_names(expr("(a, [b, c])")) == ["a", "b", "c"]
    assert bound_names(expr("a.b")) == []
    assert bound_names(expr("a[0]")) == []
