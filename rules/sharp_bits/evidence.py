"""What a function's body shows its parameters to be, when no value says it: a container
(a traced dict tested for emptiness is legal), an array (only an array has ``x.shape``,
``x.sum()``, ``x.at[i].set(v)``), or a Pallas ``Ref`` read whole as ``x[...]``.

The names calls and annotations refer to are the model's (``jaxlint.model.arrays``:
``qualified``; ``jaxlint.model.annotations``: what an annotation promises, read through
aliases and shadowing), and so is what an array has (the catalogue's ``jax.Array``
members, ``arrays.array_only_members``), which ``jax.numpy`` functions reject lists
(``arrays.rejects_sequences``), which builtins take a container whole
(``pybuiltins.TAKES_CONTAINER``) and which functions take pytrees (the catalogue's
``jax.tree``/``jax.tree_util``); what a use of a parameter shows is the family's.
"""

from __future__ import annotations

import libcst as cst

from jaxlint.base.literals import UNKNOWN
from jaxlint.model import program
from jaxlint.model.abstract import Array, Scalar
from jaxlint.model.annotations import annotated_value
from jaxlint.model.arrays import array_only_members, at_update, qualified, rejects_sequences
from jaxlint.model.catalogue.tree import takes_pytrees
from jaxlint.model.pybuiltins import TAKES_CONTAINER


def parameters(fn) -> list[cst.Param]:
    ps = fn.params
    return list(ps.posonly_params) + list(ps.params) + list(ps.kwonly_params)


def container_evidence(ctx, fn) -> set[str]:
    """Parameters the body (or annotation) shows to be containers or objects: subscripted,
    iterated, unpacked, ``len()``-ed, tested with ``in``, called, or given a non-array attribute.
    A bare truth test on such a parameter is legal under ``jit`` (a dict stays a dict)."""
    ev = program(ctx).evaluator
    only_arrays = array_only_members()
    out = set()
    params = parameters(fn)
    for p in params:
        if p.annotation is not None and not _array_or_number(ev, p.annotation.annotation, fn, p.name.value):
            out.add(p.name.value)
    names = {p.name.value for p in params}
    body = fn.body
    for n in [body, *ctx.descendants(body, prune=(cst.ClassDef,))]:
        t = type(n)
        if (t is cst.Subscript and type(n.value) is cst.Name) or (
            t is cst.Attribute and type(n.value) is cst.Name and n.attr.value not in only_arrays
        ):
            out.add(n.value.value)
        elif (t is cst.For or t is cst.CompFor) and type(n.iter) is cst.Name:
            out.add(n.iter.value)
        elif t is cst.Arg and n.star and type(n.value) is cst.Name:
            out.add(n.value.value)
        elif t is cst.Call:
            if type(n.func) is cst.Name:
                out.add(n.func.value)
            q = qualified(ev, n.func) or ""
            if q in TAKES_CONTAINER or takes_pytrees(q):
                out.update(a.value.value for a in n.args if type(a.value) is cst.Name)
        elif t is cst.Comparison:
            for c in n.comparisons:
                if isinstance(c.operator, (cst.In, cst.NotIn)) and type(c.comparator) is cst.Name:
                    out.add(c.comparator.value)
        elif (
            t is cst.Assign
            and type(n.value) is cst.Name
            and any(isinstance(a.target, (cst.Tuple, cst.List)) for a in n.targets)
        ):
            out.add(n.value.value)
    return out & names


def _array_or_number(ev, ann: cst.BaseExpression, fn, name: str) -> bool:
    """Does the annotation promise a JAX array or a Python number (what a traced argument
    may be, ``x: jax.Array``, ``flag: bool``, also through an alias ``Scalar = float``)?
    Anything else it promises or may promise (a ``str``, a class, ``dict[str, Array]``) is
    no leaf of the trace."""
    label = fn.name.value if isinstance(fn, cst.FunctionDef) else "<lambda>"
    v = annotated_value(ev, ann, f"{label}.{name}", name, fn)
    if v is UNKNOWN:
        return False
    return (type(v) is Array and not v.host) or (type(v) is Scalar and v.kind != "str")


def array_evidence(ctx, fn) -> set[str]:
    """Parameters the body uses the way only an array is used: ``x.shape``, ``x.at``,
    ``x.sum()``, or an argument of a ``jax.numpy`` function that rejects lists, tuples and
    refs (``jnp.sum(x)``). A parameter read whole as ``x[...]`` is how a ``jax.Ref`` is read
    (and a Ref has ``.shape``, ``.dtype`` and ``.at`` too, and takes item assignment): its
    attributes are no evidence. Indexing is none either (lists, dicts and Refs index)."""
    ev = program(ctx).evaluator
    only_arrays = array_only_members()
    attrs: set[str] = set()
    whole: set[str] = set()
    calls: set[str] = set()
    body = fn.body
    nodes = ctx.descendants(body, prune=(cst.ClassDef,))
    for n in nodes if not isinstance(body, cst.BaseExpression) else [body, *nodes]:
        if type(n) is cst.Attribute and type(n.value) is cst.Name and n.attr.value in only_arrays:
            attrs.add(n.value.value)
        elif type(n) is cst.Subscript and type(n.value) is cst.Name and whole_read(n):
            whole.add(n.value.value)
        elif type(n) is cst.Call and rejects_sequences(qualified(ev, n.func) or ""):
            calls.update(a.value.value for a in n.args if type(a.value) is cst.Name and not a.keyword and not a.star)
    return (attrs - whole) | calls


def whole_accessed(ctx, fn) -> set[str]:
    """Names the body reads or writes whole as ``x[...]``: how a ``jax.Ref`` (a Pallas
    kernel's ``out_ref``) is used, even where the code annotates it ``jax.Array``."""
    return {
        n.value.value
        for n in ctx.descendants(fn.body, prune=(cst.ClassDef,))
        if type(n) is cst.Subscript and type(n.value) is cst.Name and whole_read(n)
    }


def whole_read(sub: cst.Subscript) -> bool:
    """``x[...]``: a name subscripted by a lone Ellipsis."""
    return (
        type(sub.value) is cst.Name
        and len(sub.slice) == 1
        and isinstance(sub.slice[0].slice, cst.Index)
        and isinstance(sub.slice[0].slice.value, cst.Ellipsis)
    )


def at_evidence(ctx, fn) -> set[str]:
    """Parameters the body updates with ``x.at[i].set(v)`` (``.add``, ...): only a JAX array has these."""
    out = set()
    for n in ctx.descendants(fn.body, prune=(cst.ClassDef,)):
        if (
            type(n) is cst.Call
            and isinstance(n.func, cst.Attribute)
            and at_update(n.func.attr.value)
            and isinstance(n.func.value, cst.Subscript)
            and isinstance(n.func.value.value, cst.Attribute)
            and n.func.value.value.attr.value == "at"
            and type(n.func.value.value.value) is cst.Name
        ):
            out.add(n.func.value.value.value.value)
    return out
