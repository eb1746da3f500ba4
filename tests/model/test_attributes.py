"""Instance attributes in the program model: ``self.step`` assigned once in a class."""

from __future__ import annotations

import libcst as cst

from jaxlint.model.attributes import assigned_value, instance_attribute

from .helpers import line_of, model_of

SOURCE = """
import jax

class Trainer:
    def __init__(self, f):
        self.step = jax.pmap(f, axis_name="i")
        self.a, self.b = f, f
        self.count = 0
        self.count += 1

    def fit(self, x):
        helper = lambda y: self.step(y)
        return self.step(x), self.a(x), self.count, helper(x)

    @staticmethod
    def free(self):
        return self.step

class Other:
    def run(self):
        return self.step
"""


def _attrs(p, name: str) -> list[cst.Attribute]:
    return [
        n
        for n, e in p.ctx._events
        if e and type(n) is cst.Attribute and n.attr.value == name and type(n.value) is cst.Name
    ]


def test_an_attribute_assigned_once_reads_as_its_value_in_every_method():
    p = model_of(SOURCE)
    values = {line_of(p, a): assigned_value(p, a) for a in _attrs(p, "step")}
    pmap = values[6]
    assert type(pmap) is cst.Call and p.ctx.code(pmap) == 'jax.pmap(f, axis_name="i")'
    assert values[12] is pmap  # inside a lambda of another method: the same ``self``
    assert values[13] is pmap
    assert values[17] is None  # a staticmethod's first parameter is not the instance
    assert values[21] is None  # another class: never assigned there
    key = instance_attribute(p, _attrs(p, "step")[0])
    assert key is not None and key.cls.name.value == "Trainer" and key.name == "step"


def test_a_display_unpacked_stores_each_item_and_augmented_attributes_are_unknown():
    p = model_of(SOURCE)
    # ``self.a, self.b = f, f``: each attribute holds its item of the display
    assert {p.ctx.code(assigned_value(p, a)) for a in _attrs(p, "a")} == {"f"}
    assert all(assigned_value(p, a) is None for a in _attrs(p, "count"))
    q = model_of(
        "class C:\n    def __init__(self, pair):\n        self.a, self.b = pair\n    def f(self):\n        return self.a\n"
    )
    assert all(assigned_value(q, a) is None for a in _attrs(q, "a"))  # not a display: unknown


def test_a_class_with_a_blanked_method_is_not_whole():
    import textwrap

    whole = textwrap.dedent(SOURCE)
    lines = whole.splitlines()
    # the slicer empties ``free`` and its decorator (lines 15-17), line for line
    sliced = "\n".join("" if 15 <= i <= 17 else line for i, line in enumerate(lines, 1)) + "\n"
    p = model_of(sliced)
    p.ctx.original_source = whole
    assert all(assigned_value(p, a) is None for a in _attrs(p, "step") if line_of(p, a) < 18)
    p = model_of(whole)
    p.ctx.original_source = whole
    assert assigned_value(p, _attrs(p, "step")[0]) is not None


def test_a_class_is_whole_when_only_a_later_top_level_statement_is_blanked():
    import textwrap

    whole = textwrap.dedent(SOURCE)
    lines = whole.splitlines()
    # the slicer empties the body of ``Other.run`` (line 21), below ``Trainer``'s last line
    sliced = "\n".join("        pass" if i == 21 else line for i, line in enumerate(lines, 1)) + "\n"
    p = model_of(sliced + "x = 1\n")
    p.ctx.original_source = whole + "x = 1\n"
    assert assigned_value(p, _attrs(p, "step")[0]) is not None


def test_a_class_is_whole_when_the_statement_after_it_is_blanked_entirely():
    import textwrap

    whole = textwrap.dedent(SOURCE) + "x = 1\n"
    lines = whole.splitlines()
    # the slicer empties ``class Other`` (lines 19-21) line for line: the next statement
    # LibCST sees is ``x = 1``, and the lines between are the original's other text
    sliced = "\n".join("" if 19 <= i <= 21 else line for i, line in enumerate(lines, 1)) + "\n"
    p = model_of(sliced)
    p.ctx.original_source = whole
    assert assigned_value(p, _attrs(p, "step")[0]) is not None
    # a blanked last member is still seen as one
    last = "\n".join("" if 15 <= i <= 17 else line for i, line in enumerate(lines, 1)) + "\n"
    p = model_of(last)
    p.ctx.original_source = whole
    assert assigned_value(p, _attrs(p, "step")[0]) is None
