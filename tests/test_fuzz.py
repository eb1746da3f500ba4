"""Fuzzing: generated programs and mutated real files through check, --fix and every reporter.

For every input: no internal error, the same diagnostics twice (and the same report text
twice, in every format), every file ``--fix --unsafe-fixes`` writes parses, and a second
``--fix`` changes nothing. The inputs are the fixtures (real JAX idioms, bugs and their
look-alikes) mutated at random — truncated, bytes edited, nested deeply, a very long line,
NUL bytes, mixed line endings, a BOM, tabs, a literal or a string concatenation too large
for the parsers (a stand-in takes its place) — and programs ``hypothesmith`` generates from
Python's grammar, each with a JAX snippet appended.

The normal run is seeded and small; ``pytest -m fuzz`` runs the long one (``FUZZ_CASES``
mutated files, default 3000, and ``FUZZ_PROGRAMS`` generated programs, default 1000).
"""

import glob
import os
import random
from pathlib import Path

import libcst as cst
import pytest
from conftest import FIXTURES

from jaxlint import api
from jaxlint.lint.config import Settings
from jaxlint.report import MODULES, render

# hypothesmith compiles what it generates: ``1(2)`` is a SyntaxWarning there, not a finding
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

SAMPLES = sorted(glob.glob(os.path.join(FIXTURES, "*", "lint", "**", "*.py"), recursive=True)) + sorted(
    glob.glob(os.path.join(FIXTURES, "seeds", "*.py"))
)
SNIPPETS = [
    "import jax\n\ndef loss(w, x):\n    return (w * x).sum(), x\n\ng = jax.grad(loss, argnums=(0, 0))\n",
    "import jax\nAXES = (None, 0)\ny = jax.vmap(lambda p, x: p * x, in_axes=AXES)(p, xs)\n",
    "import jax\n\ndef step(g):\n    return jax.lax.pmean(g, axis_name='i')\n\nstep(1)\n",
    "import jax\n\n@jax.custom_vjp\ndef f(x, y):\n    return x * y\n\ndef f_fwd(x, y):\n    return f(x, y), (x, y)\n\n"
    "def f_bwd(res, g):\n    return (g,)\n\nf.defvjp(f_fwd, f_bwd)\n",
    "import jax\nt = jax.tree_map(lambda a: a, t)  # noqa: JAX801\nu = jax.tree_util.tree_map(f, t)  # noqa: JAX101\n",
]


def _mutate(rng: random.Random, data: bytes) -> bytes:
    kind = rng.randrange(11)
    if kind == 0 and data:  # truncated at a random point
        return data[: rng.randrange(len(data))]
    if kind == 1 and data:  # random byte edits
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(b))
            op = rng.randrange(3)
            if op == 0:
                b[i] = rng.randrange(256)
            elif op == 1:
                b.insert(i, rng.choice(b"()[]{}:,.=\n\r\t #'\"\\@*-+"))
            elif len(b) > 1:
                del b[i]
        return bytes(b)
    if kind == 2:  # deep nesting, sometimes deeper than any parser copes with
        n = rng.choice([50, 150, 300, 700, 3000])
        opener, closer = rng.choice([("(", ")"), ("[", "]"), ("f(", ")"), ("{1: ", "}")])
        return data + f"\nx = jax.grad({opener * n}g{closer * n})\n".encode()
    if kind == 3:  # a very long line: flat, or an operator chain as deep as it is long
        n = rng.randint(500, 40_000)
        line = rng.choice([b"1, " * n, b"a + " * n, b"'" + b"x" * n * 4 + b"', "])
        return data + b"\ny = jax.numpy.stack([" + line + b"b])\n"
    if kind == 4 and data:  # NUL bytes
        i = rng.randrange(len(data))
        return data[:i] + b"\x00" + data[i:]
    if kind == 5:  # mixed line endings
        return b"".join(line + rng.choice([b"\n", b"\r\n", b"\r"]) for line in data.split(b"\n"))
    if kind == 6:  # a BOM
        return b"\xef\xbb\xbf" + data
    if kind == 7:  # tabs for indentation, in some lines
        return b"\n".join(line.replace(b"    ", b"\t") if rng.random() < 0.5 else line for line in data.split(b"\n"))
    if kind == 8:  # a coding cookie that lies
        return b"# -*- coding: latin-1 -*-\n" + data + "\nname = 'caf\u00e9'\n".encode()
    if kind == 9:  # more constants or string parts than the parsers afford (jaxlint.plan.standins)
        n = rng.choice([10_001, 30_000])
        big = rng.choice(
            [
                b"[" + b"1, " * n + b"]",
                b"{" + b"".join(b"%d: (%d, 'v'),\n" % (i, i) for i in range(n)) + b"}",
                b"(\n" + b"".join(b'    "part %d"\n' % i for i in range(rng.choice([101, 500]))) + b")",
            ]
        )
        lines = data.split(b"\n")
        at = rng.randrange(len(lines) + 1)  # at module level, between two lines of the file
        return b"\n".join([*lines[:at], b"TABLE = " + big, *lines[at:]])
    return data + b"\n" + rng.choice(SNIPPETS).encode()  # glued to another snippet


class Checker:
    """Runs one input through lint, every reporter and fix; counts what it did."""

    def __init__(self, tmp_path):
        self.tmp = tmp_path
        self.n = 0
        self.fixed = 0

    def __call__(self, data: bytes) -> None:
        self.n += 1
        folder = self.tmp / f"case{self.n}"
        folder.mkdir()
        path = folder / "m.py"
        path.write_bytes(data)
        settings = Settings(root=str(folder), preview=True)
        first = api.lint_paths([str(path)], settings, jobs=1)
        assert first.errors == [], (first.errors, data[:2000])
        again = api.lint_paths([str(path)], settings, jobs=1)
        assert again.diagnostics == first.diagnostics, data[:2000]
        for fmt in MODULES:
            kw = {"color": False, "source": api._lines, "unsafe_fixes": True}
            assert render(fmt, first.diagnostics, **kw) == render(fmt, again.diagnostics, **kw), fmt
        fix = api.fix_paths([str(path)], settings, unsafe=True, jobs=1)
        assert fix.errors == [], (fix.errors, data[:2000])
        if fix.fixed:
            self.fixed += 1
            cst.parse_module(api.read_source(str(path))[0])  # raises if the fix broke the file
            second = api.fix_paths([str(path)], settings, unsafe=True, jobs=1)
            assert second.errors == [] and second.fixed == {}, (second.fixed, data[:2000])
        else:
            assert path.read_bytes() == data


def _mutated(tmp_path, cases: int, seed: int) -> Checker:
    rng = random.Random(seed)
    check = Checker(tmp_path)
    originals = [Path(p).read_bytes() for p in SAMPLES]
    for _ in range(cases):
        data = rng.choice(originals)
        for _ in range(rng.randint(1, 3)):
            data = _mutate(rng, data)
        check(data)
    return check


def _generated(tmp_path, programs: int) -> Checker:
    import hypothesmith
    from hypothesis import HealthCheck, given, settings

    check = Checker(tmp_path)

    @settings(
        max_examples=programs, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(hypothesmith.from_grammar(), __import__("hypothesis").strategies.sampled_from(SNIPPETS))
    def run(program, snippet):
        check(("import jax\n" + program + "\n" + snippet).encode("utf-8", "surrogatepass"))

    run()
    return check


def test_the_samples_are_there():
    assert len(SAMPLES) > 50


def test_mutated_real_files_seeded(tmp_path):
    check = _mutated(tmp_path, cases=200, seed=18)
    assert check.n == 200 and check.fixed > 0  # some mutants still carry fixable bugs


def test_generated_programs_seeded(tmp_path):
    check = _generated(tmp_path, programs=150)
    assert check.n >= 150


@pytest.mark.fuzz
def test_mutated_real_files_long(tmp_path):
    cases = int(os.environ.get("FUZZ_CASES", "3000"))
    check = _mutated(tmp_path, cases=cases, seed=int(os.environ.get("FUZZ_SEED", "1")))
    print(f"\nmutated files: {check.n} checked, {check.fixed} fixed")


@pytest.mark.fuzz
def test_generated_programs_long(tmp_path):
    check = _generated(tmp_path, programs=int(os.environ.get("FUZZ_PROGRAMS", "1000")))
    print(f"\ngenerated programs: {check.n} checked, {check.fixed} fixed")
