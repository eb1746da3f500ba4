"""Instance attributes: ``self.step = jax.pmap(train, ...)`` in one method, ``self.step(x)``
in another.

Trainers and evaluators keep their transformed functions on ``self``. An attribute is
identified by its class and name; its value is known when the class's methods assign it
exactly once, by a plain ``self.name = value``. Any other store (unpacking, augmented, a
second assignment) makes it unknown, and so does ``self`` that is not the first parameter
of a method written in the class body (subclasses, ``staticmethod``, ``classmethod``).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

_NOT_INSTANCE = frozenset({"staticmethod", "classmethod"})


@dataclass(frozen=True)
class InstanceAttribute:
    cls: cst.ClassDef
    name: str
    method: cst.FunctionDef  # the method whose ``self`` reaches it (for the class's qualname)


def instance_attribute(program, attr: cst.Attribute) -> InstanceAttribute | None:
    """``self.name`` where ``self`` is the first parameter of a method of a class; else None."""
    if type(attr.value) is not cst.Name:
        return None
    b = program.binding(attr.value)
    if b is None or b.kind != "param":
        return None
    fn, cls_scope = b.scope.node, b.scope.parent
    if cls_scope is None or cls_scope.kind != "class" or receiver_of(program, fn) is not b.node:
        return None
    return InstanceAttribute(cls_scope.node, attr.attr.value, fn)


def receiver_of(program, fn: cst.CSTNode | None) -> cst.Param | None:
    """The receiver (``self``) of a method: the first parameter of a def written in a
    class body, not a ``staticmethod`` or ``classmethod``; None for anything else."""
    if type(fn) is not cst.FunctionDef:
        return None
    body = program.ctx.parents.get(fn)
    if type(program.ctx.parents.get(body) if body is not None else None) is not cst.ClassDef:
        return None
    if any(type(d.decorator) is cst.Name and d.decorator.value in _NOT_INSTANCE for d in fn.decorators):
        return None
    first = (*fn.params.posonly_params, *fn.params.params)
    return first[0] if first else None


def assigned_value(program, attr: cst.Attribute) -> cst.BaseExpression | None:
    """The one expression the class's methods assign to this ``self.name``; None if unknown."""
    key = instance_attribute(program, attr)
    if key is None:
        return None
    stores = _stores(program).get((key.cls, key.name), ())
    if len(stores) != 1 or not whole_class(program, key.cls):
        return None
    return stores[0]


def stores_of(program, cls: cst.ClassDef, name: str) -> list[cst.BaseExpression | None] | None:
    """The values the class's methods store in ``self.name`` (None for a store that is not
    plain); None when the slicer may have blanked a method of the class."""
    if not whole_class(program, cls):
        return None
    return list(_stores(program).get((cls, name), ()))


def whole_class(program, cls: cst.ClassDef) -> bool:
    """Does the file show every method of the class? The slicer may blank methods of a
    top-level class (jaxlint.plan.slicing), and a store or read there would be missed."""
    ctx = program.ctx
    original = getattr(ctx, "original_source", None)
    if original is None or original == ctx.source or ctx.parents.get(cls) is not ctx.module:
        return True  # nothing blanked, or a nested class: inside one unit, kept whole
    memo = program.__dict__.setdefault("_whole_classes", {})
    if cls not in memo:
        from jaxlint.base.positions import first_lines

        # the class's lines run from its first token to the next top-level statement's
        starts = first_lines(ctx.module, ctx.source, ctx.shared.setdefault("positions", {}))
        if starts is None or cls not in starts:
            return False
        body = ctx.module.body
        at = next(i for i, stmt in enumerate(body) if stmt is cls)
        start = starts[cls]
        seen, whole = ctx.source.splitlines(), original.splitlines()
        following = starts.get(body[at + 1]) if at + 1 < len(body) else None
        end = len(seen) if following is None else following - 1  # the class's last kept line...
        while end > start and not seen[end - 1].strip():
            end -= 1
        # ... then the blanked members after it: indented lines of the original below it
        while end < len(whole) and (not whole[end].strip() or whole[end][0] in " \t#"):
            end += 1
        memo[cls] = seen[start - 1 : end] == whole[start - 1 : end]
    return memo[cls]


def _stores(program) -> dict[tuple[cst.ClassDef, str], list[cst.BaseExpression | None]]:
    """Every store to an instance attribute of the file: the value, or None when not plain."""
    got = program.__dict__.get("_instance_stores")
    if got is not None:
        return got
    out: dict[tuple[cst.ClassDef, str], list[cst.BaseExpression | None]] = {}
    for node, entering in program.ctx._events:
        if not entering:
            continue
        t = type(node)
        if t is cst.Assign:
            plain = len(node.targets) == 1
            for target in node.targets:
                _store(program, target.target, node.value if plain else None, out)
        elif t in (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr):
            _store(program, node.target, None, out)
        elif t is cst.AsName:
            _store(program, node.name, None, out)
    program.__dict__["_instance_stores"] = out
    return out


def _store(program, target, value, out) -> None:
    if type(target) in (cst.Tuple, cst.List):
        # ``self.a, self.b = a, b``: a display of as many plain items stores each in turn
        items = value.elements if type(value) in (cst.Tuple, cst.List) else None
        if items is not None and (
            len(items) != len(target.elements) or any(type(e) is cst.StarredElement for e in (*items, *target.elements))
        ):
            items = None
        for i, el in enumerate(target.elements):
            _store(program, el.value, items[i].value if items is not None else None, out)
    elif type(target) is cst.StarredElement:
        _store(program, target.value, None, out)
    elif type(target) is cst.Attribute:
        key = instance_attribute(program, target)
        if key is not None:
            out.setdefault((key.cls, key.name), []).append(value)


def stored_before(program, read: cst.Attribute) -> cst.BaseExpression | None:
    """The value a plain ``self.name = value`` of the same method stores before this read
    of ``self.name``, straight-line: a statement of the method's own block, with no other
    store of ``self.name`` between (nor a call of a method of the receiver there when
    another method stores it too). ``self.loss_fn = LOSSES[cfg.loss]`` then
    ``jax.value_and_grad(self.loss_fn)`` in ``__init__``: the read is that value, in the
    method's frame, as a type checker narrows a member access after an assignment."""
    memo = program.__dict__.setdefault("_stored_before", {})
    if read not in memo:
        memo[read] = _stored_before(program, read)
    return memo[read]


def _stored_before(program, read: cst.Attribute) -> cst.BaseExpression | None:
    key = instance_attribute(program, read)
    if key is None or program.ctx.enclosing_function(read) is not key.method:
        return None
    block = key.method.body
    if type(block) is not cst.IndentedBlock:
        return None
    parents = program.ctx.parents
    stmt: cst.CSTNode = read
    while parents.get(stmt) is not block:
        stmt = parents.get(stmt)
        if stmt is None:
            return None
    me = read.value.value if type(read.value) is cst.Name else ""
    small: list[cst.CSTNode] = []  # the small statements before the read's, in order
    for s in block.body:
        if s is stmt:
            break
        small += list(s.body) if type(s) is cst.SimpleStatementLine else [s]
    if type(stmt) is cst.SimpleStatementLine:  # ``self.x = v; y = f(self.x)``
        for s in stmt.body:
            if s is read or read in set(program.ctx.descendants(s)):
                break
            small.append(s)
    elsewhere = len(_stores(program).get((key.cls, key.name), ())) > _stores_in(program, key.method, me, key.name)
    for s in reversed(small):
        if type(s) is cst.Assign and len(s.targets) == 1 and _is_self_attr(s.targets[0].target, me, key.name):
            return s.value
        if _stores_in(program, s, me, key.name) or (elsewhere and _calls_a_method(program, s, me)):
            return None
    return None


def _is_self_attr(e: cst.CSTNode, me: str, name: str) -> bool:
    return type(e) is cst.Attribute and type(e.value) is cst.Name and e.value.value == me and e.attr.value == name


def _stores_in(program, node: cst.CSTNode, me: str, name: str) -> int:
    """How many stores of ``me.name`` ``node`` holds (any form: a tuple target, ``+=``...)."""
    n = 0
    for d in [node, *program.ctx.descendants(node)]:
        t = type(d)
        targets: list[cst.CSTNode] = []
        if t is cst.Assign:
            targets = [x.target for x in d.targets]
        elif t in (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr):
            targets = [d.target]
        elif t is cst.AsName:
            targets = [d.name]
        for x in targets:
            for y in [x, *program.ctx.descendants(x)]:
                n += _is_self_attr(y, me, name)
    return n


def _calls_a_method(program, node: cst.CSTNode, me: str) -> bool:
    """Does ``node`` call a method of the receiver (``self.reset()``), which may store anew?"""
    return any(
        type(d) is cst.Call
        and type(d.func) is cst.Attribute
        and type(d.func.value) is cst.Name
        and d.func.value.value == me
        for d in [node, *program.ctx.descendants(node)]
    )
