"""``containers.container_of``: the builtin container an expression holds, also once its
contents are unknown (appended to in a loop), and None when a binding may hold another."""

import libcst as cst
import pytest

from jaxlint.model.containers import container_of
from tests.model.helpers import model_of, read_at

SOURCE = """
import collections
import typing
from dataclasses import dataclass, field

def f(xs, flag, other):
    out = []
    for x in xs:
        out.append(x)
    out
    d = dict(a=1)
    d["b"] = 2
    d
    s = {x for x in xs}
    s
    dd = collections.defaultdict(list)
    dd
    z = list(xs) if flag else []
    z
    mixed = [] if flag else other
    mixed
    other
    t = (1, 2)
    t

@dataclass
class Config:
    history: list = field(default_factory=list)
    table: typing.Dict[str, int] = None
    names: list[str] = None
    made: object = field(default_factory=dict)
    key: object = None

    def m(self):
        self.history
        self.table
        self.names
        self.made
        self.key

class Plain:
    def __init__(self, flag):
        self.log = []
        self.either = [] if flag else {}
        self.sometimes = []

    def reset(self, value):
        self.sometimes = value

    def m(self):
        self.log
        self.either
        self.sometimes

def g(other):
    a, (b, c) = [], ({}, other)
    a
    b
    c
    *rest, e = {}, [], other
    e
"""

CASES = [
    ("out", 10, "list"),
    ("d", 13, "dict"),
    ("s", 15, "set"),
    ("dd", 17, "dict"),
    ("z", 19, "list"),
    ("mixed", 21, None),
    ("other", 22, None),
    ("t", 24, "tuple"),
    ("self", 35, "list"),
    ("self", 36, "dict"),
    ("self", 37, "list"),
    ("self", 38, "dict"),
    ("self", 39, None),
    ("self", 51, "list"),
    ("self", 52, None),
    ("self", 53, None),
    ("a", 57, "list"),  # an unpacking binds the display's items
    ("b", 58, "dict"),
    ("c", 59, None),
    ("e", 61, None),  # after a starred target: not the display's item at that index
]


@pytest.mark.parametrize(("name", "line", "expected"), CASES)
def test_container_of(name, line, expected):
    p = model_of(SOURCE)
    node = read_at(p, name, line)
    parent = p.ctx.parents.get(node)
    if type(parent) is cst.Attribute and parent.value is node:
        node = parent
    assert container_of(p.evaluator, node) == expected
