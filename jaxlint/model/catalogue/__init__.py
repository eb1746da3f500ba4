"""The JAX API catalogue: what each function of ``jax.numpy``, ``jax.lax``, ``jax.random``,
``jax.nn``, ``jax.tree``/``jax.tree_util`` and ``numpy`` takes and gives, as data.

Each entry is an ``Op``: the function's signature (as JAX 0.10.2 declares it; a test
checks it against ``inspect.signature`` of the real function), its *result rule* (a
function of the bound abstract arguments that gives the abstract result: a shape rule
such as broadcasting, a reduction over ``axis``, a contraction, a reshape), the
parameter holding a PRNG key it consumes, and the parameters that must be Python values
when the function is traced (shapes, axes, counts). Result rules are checked against
``jax.eval_shape`` by a test that runs with jax installed: the catalogue is checked
against JAX, not against our belief.

``lookup(qualified)`` gives the ``Op`` of a public name (``jax.numpy.tanh``; private
spellings like ``jax._src.numpy.lax_numpy.zeros`` are mapped to the public one by the
caller). The evaluator (``jaxlint.model.evaluate``) calls ``op.result(call)`` with a
``Call``: the bound arguments, a way to record a *problem* (the real call raises: a
shape mismatch, an axis out of range), and a way to call a callable argument (for
``jax.tree.map``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN

from ..dims import Dim
from ..signature import Binding, Signature


@dataclass(frozen=True, slots=True)
class Problem:
    """A call that certainly fails: ``kind`` (``"shape"``: operand shapes do not fit;
    ``"rank"``: an axis or operand rank out of range; ``"scalar-contraction"``: a
    contraction operand is rank 0, so ``dot`` scales instead of contracting;
    ``"degenerate"``: an index chosen among one element, ``argmax`` of a rank-0 array, which
    is always 0; ``"type"``: an argument of the wrong kind), what JAX would say
    (``message``), and the call. The scalar contraction and the degenerate choice run
    without an error: they are certain nonsense, not failures."""

    kind: str
    message: str
    node: cst.CSTNode | None = field(default=None, compare=False, repr=False)


class Call:
    """One call of a catalogue function, as its result rule sees it."""

    def __init__(
        self,
        qualified: str,
        sig: Signature,
        binding: Binding,
        node: cst.CSTNode | None = None,
        report: Callable[[Problem], None] | None = None,
        call: Callable[[Any, list[Any]], Any] | None = None,
        axis_size: Callable[[Any], Dim] | None = None,
    ) -> None:
        self.qualified = qualified
        self.sig = sig
        self.binding = binding
        self.node = node
        self._report = report
        self._call = call
        self._axis_size = axis_size

    @property
    def name(self) -> str:
        return self.qualified.rsplit(".", 1)[-1]

    @property
    def host(self) -> bool:
        """A NumPy function (its arrays live on the host)."""
        return self.qualified.startswith("numpy.")

    def arg(self, name: str) -> Any:
        """The argument bound to ``name``, else its default, else UNKNOWN; a ``*args``
        (``**kwargs``) parameter that got nothing is ``()`` (``{}``) unless spread
        arguments of unknown length may have filled it."""
        if name not in self.binding.arguments and not self.binding.partial:
            var, varkw = self.sig.var_positional, self.sig.var_keyword
            if var is not None and var.name == name:
                return ()
            if varkw is not None and varkw.name == name:
                return {}
        return self.binding.value(self.sig, name)

    def given(self, name: str) -> bool:
        return name in self.binding.arguments

    def problem(self, kind: str, message: str) -> Any:
        """Record that this call raises; returns UNKNOWN (what the call gives then)."""
        if self._report is not None:
            self._report(Problem(kind, message, self.node))
        return UNKNOWN

    def axis_size(self, axis_name: Any) -> Dim:
        """The size of the mapped axis an ``axis_name`` argument names (``all_gather``,
        ``lax.axis_size``), when the evaluator knows the map the call runs under; else None."""
        if self._axis_size is None:
            return None
        return self._axis_size(axis_name)

    def call(self, fn: Any, args: list[Any]) -> Any:
        """Call a callable argument with positional abstract arguments (UNKNOWN when the
        evaluator cannot)."""
        if self._call is None:
            return UNKNOWN
        return self._call(fn, args)


ResultRule = Callable[[Call], Any]


@dataclass(frozen=True, slots=True)
class Op:
    """A catalogue entry. ``attribute``: an array attribute (``x.T``, ``x.shape``), whose
    result the evaluator computes when the attribute is read, with the array bound to the
    signature's one parameter (the others are methods: ``x.reshape`` is called)."""

    signature: Signature
    result: ResultRule
    # the parameter holding a PRNG key the function consumes: what JAX's key-reuse checker
    # (``jax.experimental.key_reuse``) calls a sink; ``fold_in`` and ``clone`` make new keys
    # and consume none
    key: str | None = None
    static: tuple[str, ...] = ()  # parameters that must be Python values when traced
    attribute: bool = False
    # parameters holding a function the call calls before it returns (``jax.tree.map``'s
    # ``f``): that function runs here, in the caller's context (the call paths read it)
    calls: tuple[str, ...] = ()
    # the result holds fresh PRNG keys (what JAX's key-reuse checker calls a source):
    # ``split``, ``fold_in``, ``clone``, ``key``, ``PRNGKey``, ``wrap_key_data``
    makes_key: bool = False
    # a draw that picks slices of this argument along ``axis`` (``permutation``'s ``x``,
    # ``choice``'s ``a``): the indices it picks depend only on the key, the argument's size
    # along the axis and the other arguments, so two such draws from one key with equal
    # sizes and equal other arguments pick the same slices of two arrays
    selects: str | None = None


class Catalogue(Mapping[str, Op]):
    """The entries by qualified name. An entry may be registered as a function that makes
    its ``Op``: it runs on first access (reading a signature costs; most files use few)."""

    def __init__(self) -> None:
        self._entries: dict[str, Op | Callable[[], Op]] = {}

    def __getitem__(self, q: str) -> Op:
        _load()
        e = self._entries[q]
        if isinstance(e, Op):
            return e
        op = self._entries[q] = e()
        return op

    def __iter__(self) -> Iterator[str]:
        _load()
        return iter(self._entries)

    def __len__(self) -> int:
        _load()
        return len(self._entries)

    def __contains__(self, q: object) -> bool:
        _load()
        return q in self._entries

    def add(self, q: str, entry: Op | Callable[[], Op]) -> None:
        if q in self._entries:
            raise ValueError(f"catalogue: {q} is defined twice")
        self._entries[q] = entry


TABLE = Catalogue()


def register(table: Mapping[str, Op | Callable[[], Op]]) -> None:
    """Add a namespace's entries (each module of this package calls it once)."""
    for q, op in table.items():
        TABLE.add(q, op)


def lookup(qualified: str) -> Op | None:
    return TABLE.get(qualified)


def calls_functions(qualified: str) -> bool:
    """Does a call of this catalogue function call a function argument before it returns?"""
    op = lookup(qualified)
    return op is not None and bool(op.calls)


def key_consumers(prefix: str) -> tuple[str, ...]:
    """The entries under ``prefix`` (``"jax.random"``) that consume a PRNG key, sorted."""
    return tuple(sorted(q for q in TABLE if q.startswith(prefix + ".") and TABLE[q].key is not None))


def rule_family(qualified: str) -> str | None:
    """The family of rules an entry's result rule belongs to: the catalogue module that
    defines it (``"contractions"`` for ``dot``/``matmul``/``einsum``, ``"reductions"``...)."""
    op = lookup(qualified)
    if op is None:
        return None
    fn: Any = op.result
    while hasattr(fn, "func"):  # functools.partial
        fn = fn.func
    return str(getattr(fn, "__module__", "")).rsplit(".", 1)[-1] or None


_loaded = False


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    from . import tables  # noqa: F401  (registers every namespace)
