"""Sizes of array axes: ints, symbols with an origin, and integer polynomials of them.

A program's sizes are often not numbers: ``jax.local_device_count()``, ``len(xs)``, a
parameter ``n``, ``x.shape[0]`` of an array whose shape the code does not show. A
``Sym`` names one such value by where it comes from (two symbols are the same value
exactly when their keys are equal), and a ``Size`` is an integer polynomial over symbols
(``32 * n``, ``n + 1``), kept in a normal form so that equal polynomials compare equal.

``Dim`` is what an axis holds: an ``int``, a ``Size`` (never a constant one: those are
ints), or ``None`` (not known). The functions below take and give ``Dim``s; ``equal`` and
``different`` answer only what the arithmetic proves (every symbol is a size, so >= 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# the device-count symbol: jax.local_device_count(), jax.device_count(), len(jax.devices())
DEVICES_KEY = "<devices>"  # not an identifier: no parameter or attribute key contains it


@dataclass(frozen=True, slots=True, order=True)
class Sym:
    """One size the program computes but the code does not show: ``key`` says which
    (``"devices"``, ``"f.n"`` for a parameter, ``"f.x.shape[0]"``); ``label`` is how a
    message names it (``jax.local_device_count()``, ``n``, ``x.shape[0]``)."""

    key: str
    label: str = field(default="", compare=False)

    def __str__(self) -> str:
        return self.label or self.key


Monomial = tuple[Sym, ...]  # sorted, with repetition: (n, n) is n**2


@dataclass(frozen=True, slots=True)
class Size:
    """An integer polynomial over symbols, in normal form: ``terms`` sorted, no zero
    coefficient, the constant term under the monomial ``()``. Never a bare constant
    (``make`` turns those into ints)."""

    terms: tuple[tuple[Monomial, int], ...]

    @staticmethod
    def make(terms: dict[Monomial, int]) -> Dim:
        clean = tuple(sorted((m, c) for m, c in terms.items() if c != 0))
        if not clean:
            return 0
        if len(clean) == 1 and clean[0][0] == ():
            return clean[0][1]
        return Size(clean)

    def as_dict(self) -> dict[Monomial, int]:
        return dict(self.terms)

    @property
    def constant(self) -> int:
        return self.as_dict().get((), 0)

    def symbols(self) -> frozenset[Sym]:
        return frozenset(s for m, _ in self.terms for s in m)

    def __str__(self) -> str:
        parts = []
        for m, c in sorted(self.terms, key=lambda t: (len(t[0]) == 0, t[0])):
            body = " * ".join(str(s) for s in m)
            if not body:
                parts.append(str(c))
            elif c == 1:
                parts.append(body)
            elif c == -1:
                parts.append(f"-{body}")
            else:
                parts.append(f"{c} * {body}")
        text = " + ".join(parts)
        return text.replace("+ -", "- ")


Dim = int | Size | None


class Named(int):
    """A size a module-level constant names (``N_WORDS = 16``): the int, with ``key`` (the
    qualified name) and ``label`` (how a message names it). It is the int in every
    arithmetic and comparison (``N_WORDS + 1`` is a plain int): only a size passed on as it
    is keeps the name, so two axes of one size can still say they are different sizes of
    the program (``D_LATENT`` and ``N_WORDS``, both 16)."""

    key: str
    label: str

    def __new__(cls, value: int, key: str, label: str) -> Named:
        obj = super().__new__(cls, value)
        obj.key = key
        obj.label = label
        return obj

    def __repr__(self) -> str:
        return int.__repr__(self)


def name_of(d: Dim) -> Named | None:
    """The constant naming a size, if one does."""
    return d if isinstance(d, Named) else None


def sym(key: str, label: str = "") -> Size:
    """The size a symbol stands for."""
    s = Size.make({(Sym(key, label),): 1})
    assert isinstance(s, Size)
    return s


DEVICES = sym(DEVICES_KEY, "n_devices")


def _terms(d: int | Size) -> dict[Monomial, int]:
    return {(): d} if isinstance(d, int) else d.as_dict()


def _known(d: Dim) -> bool:
    return d is not None and not isinstance(d, bool)


def add(a: Dim, b: Dim) -> Dim:
    if a is None or b is None:
        return None
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    out = _terms(a)
    for m, c in _terms(b).items():
        out[m] = out.get(m, 0) + c
    return Size.make(out)


def neg(a: Dim) -> Dim:
    if a is None:
        return None
    if isinstance(a, int):
        return -a
    return Size.make({m: -c for m, c in a.terms})


def sub(a: Dim, b: Dim) -> Dim:
    return add(a, neg(b))


def mul(a: Dim, b: Dim) -> Dim:
    if a is None or b is None:
        return None
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    out: dict[Monomial, int] = {}
    for ma, ca in _terms(a).items():
        for mb, cb in _terms(b).items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + ca * cb
    return Size.make(out)


def product(sizes: list[Dim] | tuple[Dim, ...]) -> Dim:
    out: Dim = 1
    for d in sizes:
        out = mul(out, d)
    return out


def _divide_monomial(m: Monomial, by: Monomial) -> Monomial | None:
    rest = list(m)
    for s in by:
        if s not in rest:
            return None
        rest.remove(s)
    return tuple(rest)


def exact_div(a: Dim, b: Dim) -> Dim:
    """``a / b`` when it is an exact polynomial quotient (b a single term), else None."""
    if a is None or b is None:
        return None
    if isinstance(a, int) and isinstance(b, int):
        return a // b if b != 0 and a % b == 0 else None
    bt = _terms(b)
    if len(bt) != 1:
        return a if a == b else None
    [(bm, bc)] = bt.items()
    if bc == 0:
        return None
    out: dict[Monomial, int] = {}
    for m, c in _terms(a).items():
        q = _divide_monomial(m, bm)
        if q is None or c % bc != 0:
            return None
        out[q] = out.get(q, 0) + c // bc
    return Size.make(out)


def floordiv(a: Dim, b: Dim) -> Dim:
    """``a // b``: exact when the polynomial divides; ints as Python computes them; else a
    symbol derived from both, keyed by their origins (``n_devices // 2``: half the devices,
    ``16 // n_devices``: a per-device share, sizes in their own right)."""
    if isinstance(a, int) and isinstance(b, int):
        return a // b if b != 0 else None
    exact = exact_div(a, b)
    if exact is not None or not _known(a) or not _known(b) or isinstance(a, bool) or isinstance(b, bool):
        return exact
    if isinstance(b, int) and b <= 1:
        return None  # ``// 0`` raises; ``// 1`` and negative divisors are exact or not sizes
    left = key_text(a) if isinstance(a, Size) else str(a)
    right = key_text(b) if isinstance(b, Size) else str(b)
    return sym(f"({left})//({right})", f"{text(a)} // {text(b)}")


def _divided(d: Dim) -> tuple[str, int] | None:
    """``(key_text of a, k)`` when ``d`` is the size ``a // k`` derived by ``floordiv`` with
    an int ``k``; else None."""
    if not isinstance(d, Size) or len(d.terms) != 1:
        return None
    ((monomial, coeff),) = d.terms
    if coeff != 1 or len(monomial) != 1:
        return None
    left, sep, right = monomial[0].key.rpartition(")//(")
    if not sep or not left.startswith("(") or not right.endswith(")") or not right[:-1].isdigit():
        return None
    return left[1:], int(right[:-1])


def divided(d: Dim) -> bool:
    """A size derived by dividing another by an int (``n_devices // 2``): a share of it."""
    return _divided(d) is not None


def exceeds_share(a: Dim, b: Dim) -> bool:
    """Is ``b`` the size ``a // k`` for an int ``k >= 2`` and ``a`` the device count (at
    least 1)? Then ``a > b`` always."""
    found = _divided(b)
    return found is not None and found[1] >= 2 and is_devices(a) and found[0] == key_text(a)


def equal(a: Dim, b: Dim) -> bool:
    """Provably the same size."""
    return _known(a) and _known(b) and a == b


def different(a: Dim, b: Dim) -> bool:
    """Provably different sizes: the difference is a nonzero constant, or a polynomial
    whose every coefficient has one sign, the same as its nonzero constant (symbols are
    sizes, >= 0)."""
    if not (_known(a) and _known(b)):
        return False
    d = sub(a, b)
    if isinstance(d, int):
        return d != 0
    assert isinstance(d, Size)
    const = d.constant
    coeffs = [c for m, c in d.terms if m != ()]
    if const > 0 and all(c > 0 for c in coeffs):
        return True
    return const < 0 and all(c < 0 for c in coeffs)


def as_int(d: Dim) -> int | None:
    return d if isinstance(d, int) and not isinstance(d, bool) else None


def is_devices(d: Dim) -> bool:
    """Exactly the device count."""
    return d == DEVICES


def mentions_devices(d: Dim) -> bool:
    """The size is computed from the device count (also ``min(devices, 4)``)."""
    return isinstance(d, Size) and any(DEVICES_KEY in s.key for s in d.symbols())


def key_text(d: Dim) -> str:
    """A size as a symbol key (the symbols' keys, not their labels): for a new symbol
    derived from it (``min(devices,4)``), so that derived symbols compare by origin."""
    if d is None:
        return "?"
    if isinstance(d, int):
        return str(d)
    return " + ".join(f"{c}*{'*'.join(s.key for s in m)}" if m else str(c) for m, c in d.terms)


def text(d: Dim) -> str:
    """How a message shows a size."""
    if d is None:
        return "?"
    return str(d)
