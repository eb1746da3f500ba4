"""Where the code expects an error: inside ``with self.assertRaises(...)`` or
``pytest.raises(...)`` the failure is the point of the test, so rules stay silent there
(JAX104/JAX105, the sharp-bits family, JAX201's call paths)."""

from __future__ import annotations

import libcst as cst

from jaxlint.base.names import dotted

RAISES_CONTEXTS = frozenset(
    {"assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "assertRaisesWithLiteralMatch", "raises"}
)


def raises_context(item: cst.WithItem, also: tuple[str, ...] = ()) -> bool:
    """Is this ``with`` item a context manager that expects an exception (its callee's last
    name is one of ``RAISES_CONTEXTS``), or one whose dotted name contains a word of ``also``?"""
    e = item.item
    if type(e) is not cst.Call:
        return False
    f = e.func
    name = f.attr.value if type(f) is cst.Attribute else f.value if type(f) is cst.Name else None
    if name in RAISES_CONTEXTS:
        return True
    if also:
        full = dotted(f)
        return bool(full) and any(word in full for word in also)
    return False


def expects_error(ctx, node: cst.CSTNode, also: tuple[str, ...] = ()) -> bool:
    """Is ``node`` inside a ``with`` block that expects an error (see ``raises_context``)?"""
    for a in ctx.ancestors(node):
        if type(a) is cst.With and any(raises_context(i, also) for i in a.items):
            return True
    return False
