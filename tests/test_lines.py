"""Lines that messages cite come from a text search (jaxlint.base.lines); they must be exact."""

import libcst as cst

from jaxlint import testing
from jaxlint.base.lines import node_lines
from jaxlint.base.positions import node_ranges
from jaxlint.lint.engine import walk_events

SOURCE = """import functools
import jax

@functools.partial(jax.pmap, axis_name="batch")
def step(x):
    return x

@jax.jit
def f(x):
    @jax.jit
    def g(y):
        return y
    return jax.jit(g)(x)

h = jax.jit(f)
doc = "jax.jit(f) in a string"
k = jax.vmap(
    f,
)
"""


def test_text_search_lines_match_exact_positions():
    module = cst.parse_module(SOURCE)
    events, parents = walk_events(module)
    order = {n: i for i, (n, entering) in enumerate(events) if entering}
    # calls, defs and bare decorators (``@jax.jit``): what messages cite
    nodes = [n for n, entering in events if entering and type(n) in (cst.Call, cst.FunctionDef)]
    nodes += [n.decorator for n, entering in events if entering and type(n) is cst.Decorator]
    nodes = list(dict.fromkeys(nodes))
    nodes.sort(key=lambda n: order[n.name if isinstance(n, cst.FunctionDef) else n])
    decorators = frozenset(n for n in nodes if isinstance(parents.get(n), cst.Decorator))
    got = node_lines(module, SOURCE, nodes, decorators)
    exact = {n: r[0][0] for n, r in node_ranges(module, nodes).items()}
    assert got == exact
    assert sorted(set(got.values())) == [4, 5, 8, 9, 10, 11, 13, 15, 17]


def test_a_decorator_map_is_cited_with_its_line():
    src = (
        "import functools\nimport jax\nfrom jax import lax\n\n"
        '@functools.partial(jax.pmap, axis_name="batch")\n'
        "def step(x):\n"
        '    return lax.pmean(x, "devices")\n'
    )
    [d] = testing.lint(src, "JAX201")
    assert d.start.line == 7
    assert "the pmap at line 5 binds 'batch', not 'devices'" in d.message


NESTED = """import jax
both = jax.make_jaxpr(lambda: f(1))()
only = jax.make_jaxpr(
    lambda: g(2))()
"""


def _calls(module, events):
    """The calls, by their code."""
    return {module.code_for_node(n): n for n, entering in events if entering and type(n) is cst.Call}


def test_nodes_that_start_at_one_offset_are_not_placed_by_counting():
    # ``jax.make_jaxpr(\n...)`` and the call of its result start at one offset with one first
    # line; the text occurs twice (line 2 too), as often as the two nodes, yet both are on line 3
    module = cst.parse_module(NESTED)
    events, parents = walk_events(module)
    calls = _calls(module, events)
    outer, inner = calls["jax.make_jaxpr(\n    lambda: g(2))()"], calls["jax.make_jaxpr(\n    lambda: g(2))"]
    exact = {n: r[0][0] for n, r in node_ranges(module, [outer, inner]).items()}
    assert exact == {outer: 3, inner: 3}

    def positions(nodes):
        return {n: r[0][0] for n, r in node_ranges(module, nodes).items()}

    got = node_lines(module, NESTED, [outer, inner], exact=positions, parents=parents)
    assert got == {outer: 3, inner: 3}


def test_exact_mode_asks_positions_only_for_what_the_text_cannot_place():
    module = cst.parse_module(NESTED)
    events, parents = walk_events(module)
    calls = _calls(module, events)
    asked: list = []

    def positions(nodes):
        asked.extend(nodes)
        return {n: r[0][0] for n, r in node_ranges(module, nodes).items()}

    # ``f(1)`` and ``g(2)`` occur once each: placed by the text search alone
    f1, g2 = calls["f(1)"], calls["g(2)"]
    got = node_lines(module, NESTED, [f1, g2], exact=positions, parents=parents)
    assert got == {f1: 2, g2: 4}
    assert asked == []
