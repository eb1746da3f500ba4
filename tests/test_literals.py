"""Static values of simple expressions (jaxlint.base.literals), with a constants table or a lookup."""

from __future__ import annotations

import libcst as cst

from jaxlint.base.literals import UNKNOWN, literal


def _lit(src: str, **kw):
    return literal(cst.parse_expression(src), **kw)


def test_displays_of_leaves():
    assert _lit("(1, -2, 'a' 'b', None, True, [0x10], {'k': (False,)})") == (
        1,
        -2,
        "ab",
        None,
        True,
        [16],
        {"k": (False,)},
    )
    assert _lit("1.5") is UNKNOWN
    assert _lit("(1, *xs)") is UNKNOWN
    assert _lit("{**d}") is UNKNOWN
    assert _lit("-True") is UNKNOWN


def test_names_from_the_constants_table():
    assert literal(cst.parse_expression("(N, M)"), {"N": 3}) is UNKNOWN
    assert literal(cst.parse_expression("(N, -N)"), {"N": 3}) == (3, -3)


def test_lookup_reads_names_attributes_and_items_inside_displays():
    table = {"N": 4, "C.X": "x", "t[0]": 7}

    def lookup(node):
        return table.get(cst.Module([]).code_for_node(node), UNKNOWN)

    assert _lit("(N, C.X, t[0], None)", lookup=lookup) == (4, "x", 7, None)
    assert _lit("[N, M]", lookup=lookup) is UNKNOWN
    assert _lit("a.b.c", lookup=lookup) is UNKNOWN
    assert literal(cst.parse_expression("N"), {"N": 1}, lookup=lookup) == 4  # the lookup replaces the table
