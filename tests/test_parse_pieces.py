"""A large text is parsed in pieces (jaxlint/lint/parse.py): the stitched Module is the
one a single ``libcst.parse_module`` gives, node for node, and findings do not change."""

import json
import sys
from pathlib import Path

import libcst as cst
import pytest

from jaxlint.api import lint_source
from jaxlint.base.positions import node_ranges
from jaxlint.base.tree import walk
from jaxlint.files.notebook import python_text
from jaxlint.lint import parse
from jaxlint.lint.config import Settings

CLASS = """\
# leading comment of the file

import jax  # trailing comment
from jax import lax


@jax.jit
def step(x):
  return x + 1


# a comment at column 0 between statements
class Model(object):
  \"\"\"Docstring.\"\"\"

  scale = 2

  @staticmethod
  def a(x):
    return lax.psum(x, 'i')

  # a comment at member level between members
  def b(self, x):
    if x:
      return 1
    else:
      return 2
      # a deeper comment: the footer of the block before

  def c(self):  # trailing
    pass
    # the footer of c's block

  x = 1; y = 2
  async def d(self):
    async with a as b:
        await b
  # class-level comment at the end of the class


if __name__ == "__main__":
  step(1)
"""

CASES = {
    "class split": CLASS,
    "no final newline": CLASS.rstrip("\n"),
    "crlf": CLASS.replace("\n", "\r\n"),
    "crlf after the first line": CLASS.replace("\n", "\r\n").replace("\r\n", "\n", 1),
    "tabs": CLASS.replace("  ", "\t"),
    "mixed indentation": "import os\ndef f():\n    return 1\nclass A:\n  def g(self):\n        return 2\n  def h(self):\n      pass\n"
    * 3,
    "no indented block": "x = 1\ny = 2\nif x: y = 3\nz = [\n  1,\n]\n" * 5,
    "first block after a while": "x = 1\n" * 40 + "def f():\n   return 1\n" + "y = 2\n" * 40,
    "compound clauses": "try:\n  x = 1\nexcept E:\n  pass\nelse:\n  y\nfinally:\n  z\nif a:\n  b\nelif c:\n  d\nelse:\n  e\n"
    * 4,
    "decorated class": "@dataclass\n@other(1)\nclass A:\n  x: int = 1\n  @property\n  def y(self):\n    return 2\n\n  def z(self): return 3\n"
    * 4,
    "3.12 syntax": "def first[T](xs: list[T]) -> T:\n  return xs[0]\n\nclass Box[T]:\n  def get(self) -> T:\n    pass\n  def put(self, v: T):\n    pass\n"
    * 4,
    "strings and continuations": 'x = """\nclass Fake:\n  pass\n"""\ny = (1,\n 2)\nz = 1 + \\\n  2\ndef f():\n  return """\ndef g():\n"""\n'
    * 4,
    "trailing comments at the end": CLASS + "\n# the end\n\n",
    "deep comment at the end": CLASS + "    # deeper than anything\n",
    "class at the end": CLASS.split("\n\nif __name__")[0] + "\n",
    "blank-only lines with spaces": CLASS.replace("\n\n", "\n   \n"),
}


def _whole(text):
    return cst.parse_module(text)


@pytest.mark.parametrize("piece", [1, 40, 120, 400])
@pytest.mark.parametrize("name", sorted(CASES))
def test_pieces_stitch_into_the_whole_parse(name, piece):
    text = CASES[name]
    whole = _whole(text)
    stitched = parse.parse_module(text, piece)
    assert stitched.code == text
    assert stitched.deep_equals(whole)
    for attr in ("default_indent", "default_newline", "has_trailing_newline", "encoding"):
        assert getattr(stitched, attr) == getattr(whole, attr)


@pytest.mark.parametrize(
    "name",
    [
        "class split",
        "crlf",
        "tabs",
        "no final newline",
        "mixed indentation",
        "decorated class",
        "3.12 syntax",
        "compound clauses",
        "strings and continuations",
    ],
)
def test_the_pieces_themselves_stitch_without_falling_back(name):
    """Not the whole-parse fallback: the stitching itself gives the whole parse."""
    text = CASES[name]
    plan = parse._plan(text, 40)
    assert plan is not None and len(plan[2]) > 2
    assert parse._stitched(*plan[:3]).deep_equals(_whole(text))


def test_a_large_class_is_cut_between_its_members():
    _lines, _, pieces, _ = parse._plan(CLASS, 40)
    continued = [p for p in pieces if p[2]]  # pieces that start inside ``Model``
    assert continued and all(p[3] == 0 for p in continued[:-1])


def test_positions_in_pieces_are_those_of_the_whole_parse():
    text = CASES["crlf"]
    whole, stitched = _whole(text), parse.parse_module(text, 40)
    names = lambda m: [n for n in walk(m) if isinstance(n, cst.Name)]  # noqa: E731
    a, b = node_ranges(whole, names(whole)), node_ranges(stitched, names(stitched))
    assert [a[n] for n in names(whole)] == [b[n] for n in names(stitched)]


def test_a_notebooks_virtual_module_stitches_too():
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": src}
        for src in ("import jax\n%matplotlib inline", CLASS, "!pip install x\nstep(2)")
    ]
    nb = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    text = python_text(nb)
    assert parse.parse_module(text, 40).deep_equals(_whole(text))


def test_text_the_tokenizer_cannot_read_is_parsed_whole():
    text = "x = 1\n" * 20 + "y = $\n"
    assert parse._plan(text, 10) is None
    with pytest.raises(cst.ParserSyntaxError):
        parse.parse_module(text, 10)


def test_a_syntax_error_in_a_piece_is_the_whole_parse_error():
    text = "def f():\n  return 1\n" * 20 + "def g(:\n  pass\n"
    with pytest.raises(cst.ParserSyntaxError) as piecewise:
        parse.parse_module(text, 10)
    with pytest.raises(cst.ParserSyntaxError) as whole:
        cst.parse_module(text)
    assert (piecewise.value.raw_line, piecewise.value.raw_column) == (whole.value.raw_line, whole.value.raw_column)


SEED = """\
import jax
from jax import lax


class Trainer:
    def loss(self, w, x):
        return (w * x).sum()

    def train_step(self, g):
        return lax.pmean(g, axis_name='devices')

    def run(self, g):
        return self.train_step(g)


def train_step(g):
    return jax.lax.pmean(g, axis_name='devices')


g = train_step(g)
p = jax.pmap(train_step, axis_name='batch')
"""


def test_findings_fixes_and_positions_are_the_same_in_pieces(monkeypatch):
    settings = Settings(preview=True)
    key = lambda ds: [(d.code, d.start, d.end, d.message, d.fix) for d in ds]  # noqa: E731
    text = SEED * 3
    whole = key(lint_source(text, "seed.py", settings))
    assert whole  # the seed is flagged
    monkeypatch.setattr(parse, "PIECE", 60)
    assert key(lint_source(text, "seed.py", settings)) == whole


def test_fixture_findings_are_the_same_in_pieces(monkeypatch):
    import glob
    import os

    from conftest import FIXTURES

    files = sorted(glob.glob(os.path.join(FIXTURES, "*", "lint", "*.py")))
    assert files
    settings = Settings(preview=True)
    key = lambda ds: [(d.code, d.start, d.end, d.message, d.fix) for d in ds]  # noqa: E731
    before = {f: key(lint_source(Path(f).read_text(encoding="utf-8"), f, settings)) for f in files}
    monkeypatch.setattr(parse, "PIECE", 50)
    after = {f: key(lint_source(Path(f).read_text(encoding="utf-8"), f, settings)) for f in files}
    assert after == before


@pytest.mark.parametrize("name", ["class split", "crlf", "decorated class", "compound clauses"])
def test_the_lines_a_piecewise_parse_hands_to_positions_are_those_ast_gives(name):
    from jaxlint.base.positions import _first_lines

    text = CASES[name]
    lines: dict = {}
    module = parse.parse_module(text, 40, first_lines=lines)
    assert lines and lines == _first_lines(module, text)


def test_a_parse_does_not_validate_the_parsers_own_nodes(monkeypatch):
    """The parser's nodes skip ``_validate`` (a tenth of the parse); nodes built
    afterwards are checked again, and the tree is the validated parse's."""
    checked = []
    real = cst.Name._validate
    monkeypatch.setattr(cst.Name, "_validate", lambda self: checked.append(self.value) or real(self))
    module = parse.parse_module(CLASS)
    assert checked == []
    assert module.deep_equals(_whole(CLASS))  # ``_whole`` validates: every Name was checked there
    assert "step" in checked
    with pytest.raises(cst.CSTValidationError, match="empty name"):
        cst.Name("")


def test_statements_from_ast_are_the_tokenizers():
    """``ast`` gives the statements and the first indentation the tokenizer gives (the
    tokenizer is kept for 3.12 syntax on 3.11 and for texts that may be over the budget)."""
    from jaxlint.base.statements import ast_statements, split_lines, statements

    for name, text in CASES.items():
        lines = split_lines(text)
        from_ast = ast_statements(text, lines)
        if name == "3.12 syntax" and sys.version_info < (3, 12):
            assert from_ast is None
            continue
        assert from_ast == statements(lines), name
