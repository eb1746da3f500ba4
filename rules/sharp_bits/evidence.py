"""What a function's body shows its parameters to be, when no value says it: a container
(a traced dict tested for emptiness is legal), an array (only an array has ``x.shape``,
``x.sum()``, ``x.at[i].set(v)``), or a Pallas ``Ref`` read whole as ``x[...]``.

The names calls and annotations refer to are the model's (``jaxlint.model.arrays``:
``qualified``, ``annotated_array``); what a use of a parameter shows is the family's.
"""

from __future__ import annotations

import libcst as cst

from jaxlint.model import program
from jaxlint.model.arrays import (
    ARRAY_ATTRS,
    ARRAY_METHODS,
    AT_METHODS,
    NOT_ARRAY,
    TAKES_SEQUENCES,
    annotated_array,
    qualified,
)

# attribute uses that only an array has: evidence that a traced argument is an array
EVIDENCE_ATTRS = (ARRAY_METHODS - {"copy"}) | ARRAY_ATTRS | {"shape", "dtype", "ndim", "at", "size"}
SCALAR_ANNOTATIONS = frozenset({"bool", "int", "float", "complex"})
# builtins that take a container whole (``len(xs)``, ``zip(xs, ys)``)
CONTAINER_BUILTINS = frozenset({"len", "list", "tuple", "dict", "iter", "sorted", "enumerate", "zip"})


def parameters(fn) -> list[cst.Param]:
    ps = fn.params
    return list(ps.posonly_params) + list(ps.params) + list(ps.kwonly_params)


def container_evidence(ctx, fn) -> set[str]:
    """Parameters the body (or annotation) shows to be containers or objects: subscripted,
    iterated, unpacked, ``len()``-ed, tested with ``in``, called, or given a non-array attribute.
    A bare truth test on such a parameter is legal under ``jit`` (a dict stays a dict)."""
    ev = program(ctx).evaluator
    out = set()
    params = parameters(fn)
    for p in params:
        ann = p.annotation
        if (
            ann is not None
            and not annotated_array(ev, ann.annotation)
            and not (isinstance(ann.annotation, cst.Name) and ann.annotation.value in SCALAR_ANNOTATIONS)
        ):
            out.add(p.name.value)
    names = {p.name.value for p in params}
    body = fn.body
    for n in [body, *ctx.descendants(body, prune=(cst.ClassDef,))]:
        t = type(n)
        if (t is cst.Subscript and type(n.value) is cst.Name) or (
            t is cst.Attribute and type(n.value) is cst.Name and n.attr.value not in EVIDENCE_ATTRS
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
            if (
                (q.startswith("builtins.") and q[len("builtins.") :] in CONTAINER_BUILTINS)
                or ".tree" in q
                or q.startswith("jax.tree")
            ):
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


def array_evidence(ctx, fn) -> set[str]:
    """Parameters the body uses the way only an array is used: ``x.shape``, ``x.at``,
    ``x.sum()``, or an argument of a ``jax.numpy`` function that rejects lists, tuples and
    refs (``jnp.sum(x)``). A parameter read whole as ``x[...]`` is how a ``jax.Ref`` is read
    (and a Ref has ``.shape``, ``.dtype`` and ``.at`` too, and takes item assignment): its
    attributes are no evidence. Indexing is none either (lists, dicts and Refs index)."""
    ev = program(ctx).evaluator
    attrs: set[str] = set()
    whole: set[str] = set()
    calls: set[str] = set()
    body = fn.body
    nodes = ctx.descendants(body, prune=(cst.ClassDef,))
    for n in nodes if not isinstance(body, cst.BaseExpression) else [body, *nodes]:
        if type(n) is cst.Attribute and type(n.value) is cst.Name and n.attr.value in EVIDENCE_ATTRS:
            attrs.add(n.value.value)
        elif type(n) is cst.Subscript and type(n.value) is cst.Name and whole_read(n):
            whole.add(n.value.value)
        elif type(n) is cst.Call:
            q = qualified(ev, n.func) or ""
            last = q.rsplit(".", 1)[-1]
            if (
                q.startswith("jax.numpy.")
                and q.count(".") == 2
                and last not in NOT_ARRAY | TAKES_SEQUENCES
                and not last.endswith("_like")
            ):
                calls.update(
                    a.value.value for a in n.args if type(a.value) is cst.Name and not a.keyword and not a.star
                )
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
            and n.func.attr.value in AT_METHODS - {"get"}
            and isinstance(n.func.value, cst.Subscript)
            and isinstance(n.func.value.value, cst.Attribute)
            and n.func.value.value.attr.value == "at"
            and type(n.func.value.value.value) is cst.Name
        ):
            out.add(n.func.value.value.value.value)
    return out
