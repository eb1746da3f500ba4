"""Binding sites: the calls whose arguments name axes, and the defs that pass their own
parameters on into one.

A *binding API* names axes in its arguments: the maps of any library (``pmap``,
``vmap``, ``smap``, ``shard_map``, ``filter_pmap``, ``xmap``), meshes (``Mesh``,
``AbstractMesh``, ``make_mesh``), partition specs (``PartitionSpec``, ``NamedSharding``,
``with_sharding_constraint``) and flax's logical partitioning (``with_partitioning``,
``logical_axis_rules``, ...). A callee is known by the API it is, as jax defines its
names (``jaxlint.base.names.canonical``: ``jax.P`` is ``jax.sharding.PartitionSpec``),
through imports and aliases. Any other call names axes in a keyword about axes, names,
meshes, specs, rules or grids (``axis_name=``, ``in_specs=``, Pallas's ``grid_names=``),
except a collective, whose axis name binds nothing.

A *binding helper* is a def whose parameter reaches an argument of a binding API: jax's
``create_mesh(shape, axis_names)`` returns ``Mesh(devices, axis_names)``, so
``create_mesh((8,), "x")`` names "x" as surely as ``Mesh(devices, ("x",))`` does (a
parameter passed on to an axis keyword of any other call makes no helper: ``name=`` is
everywhere). ``binding_parameters`` reads which parameters do by evaluation: the def's
binding arguments are evaluated in a frame that gives each parameter a marker (a tuple of
one marker string), and the markers that come out name the parameters (through locals,
tuples, defaults, the defs nested in it that close over them — a decorator factory's
wrapper, ``with_explicit_mesh((2,), ("i",))`` —, and the calls of other binding helpers
it passes a parameter to, ``DEPTH`` helpers deep). ``given`` is what a call gives such parameters, bound as the
evaluator binds arguments (positional, keyword, ``partial``, a method's receiver),
wherever the def is: this module or a project module the model reads
(``World.program``). A function of a package the model never reads (jax, numpy:
``library_callee``) is no helper it can read.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from jaxlint.base.names import last_name

from .abstract import Bound, Const, External, Function, Partial, Transformed, Tuple, Wraps
from .axes import strings

# the last names of the APIs whose arguments name axes (any library's maps, meshes, specs)
BINDING_CALLS = frozenset(
    {
        "pmap",
        "vmap",
        "smap",
        "shard_map",
        "filter_pmap",
        "filter_vmap",
        "xmap",
        "Mesh",
        "AbstractMesh",
        "make_mesh",
        "PartitionSpec",
        "NamedSharding",
        "with_sharding_constraint",
        "with_partitioning",
        "with_logical_partitioning",
        "with_logical_constraint",
        "logical_axis_rules",
        "axis_rules",
        "logical_to_mesh_axes",
        "logical_to_mesh_sharding",
        "logical_to_mesh",
        "set_logical_axis_rules",
    }
)
# keywords that name axes, of any call
MENTION_KEYWORDS = frozenset({"in_specs", "out_specs", "rules", "logical_axis_rules", "partition_spec"})
_MENTION_WORDS = ("axis", "axes", "name", "mesh", "spec", "rules", "grid")
DEPTH = 3  # binding helpers followed through the helpers they call
_FUEL = 400
_MARK = "\x00parameter:"  # the marker string a probed parameter holds


def names_keyword(k: str) -> bool:
    """Does a keyword (or a parameter with a default) name axes? Read generously: any
    keyword about axes, names, meshes, specs, rules or grids (Pallas names its grid
    axes: ``grid_names=("m", "n")``, ``grid=(("i", 2),)``, ``thread_name="t"``)."""
    return any(w in k for w in _MENTION_WORDS) or k in MENTION_KEYWORDS


def api_name(p: Any, func: cst.BaseExpression) -> str | None:
    """The last name of the API a callee is, as jax names it (``jax.P`` is
    ``PartitionSpec``), through the file's imports and aliases; else as written."""
    q = _resolved(p, func)
    if q is not None:
        return q.rsplit(".", 1)[-1]
    name = last_name(func)
    if name is None or name in BINDING_CALLS or type(func) is not cst.Name:
        return name
    bs = p.reaching(func)
    if not bs or any(b.kind not in ("import", "assign") for b in bs):
        return name
    with p.evaluator.query(_FUEL):
        v = p.evaluator.value(func, None)
    if type(v) is External:
        return v.qualified.rsplit(".", 1)[-1]
    return name


def axis_arguments(call: cst.Call, api: str | None) -> list[cst.BaseExpression]:
    """The arguments of ``call`` (of the API ``binding_api`` names) that name axes: every
    argument of a binding API, the axis keywords of any other call."""
    whole = api in BINDING_CALLS
    return [a.value for a in call.args if whole or (a.keyword is not None and names_keyword(a.keyword.value))]


def binding_api(p: Any, call: cst.Call, collectives: frozenset[str]) -> str | None:
    """The last name of the API ``call`` calls, seen through a ``partial`` of a binding
    API or a collective; ``COLLECTIVE`` for a collective, whose axis name binds nothing
    (once per call)."""
    memo: dict[cst.Call, str | None] = p.ctx.shared.setdefault("binding apis", {}).setdefault(collectives, {})
    if call not in memo:
        memo[call] = _binding_api(p, call, collectives)
    return memo[call]


def _binding_api(p: Any, call: cst.Call, collectives: frozenset[str]) -> str | None:
    name = api_name(p, call.func)
    if name in collectives:
        return COLLECTIVE
    if name == "partial" and call.args:
        inner = api_name(p, call.args[0].value)
        if inner in collectives:
            return COLLECTIVE
        if inner in BINDING_CALLS:
            return inner
    return name


COLLECTIVE = "<collective>"


def library_callee(p: Any, func: cst.BaseExpression) -> str | None:
    """The qualified name of a callee the file imports from a package the model never
    reads (jax, numpy: ``evaluate.NEVER_LOADED``), or of a builtin: a library function
    by construction, known without evaluating it (most calls of a file are such)."""
    from .evaluate import NEVER_LOADED

    head = func
    while type(head) is cst.Attribute:
        head = head.value
    if type(head) is not cst.Name:
        return None
    bs = p.reaching(head)
    if not bs:
        return f"builtins.{head.value}" if head is func else None
    q = _resolved(p, func)
    if q is None or q.split(".", 1)[0] not in NEVER_LOADED:
        return None
    return q if all(b.kind == "import" for b in bs) else None


def _resolved(p: Any, func: cst.BaseExpression) -> str | None:
    """What the file's imports say a callee is (``ImportTable.resolve``), once per node."""
    memo: dict[cst.BaseExpression, str | None] = p.ctx.shared.setdefault("resolved callees", {})
    if func not in memo:
        memo[func] = p.ctx.names.resolve(func)
    return memo[func]


def binding_parameters(p: Any, fn: cst.FunctionDef | cst.Lambda, collectives: frozenset[str], depth: int = 0):
    """The parameters of the def ``fn`` (in program ``p``) whose value reaches an
    argument of a binding API in its body, as ``(position, name)``: position among the
    positional parameters, -1 for a keyword-only one. A method's receiver is not probed."""
    memo: dict[Any, tuple[tuple[int, str], ...]] = p.ctx.shared.setdefault("binding_parameters", {})
    if fn in memo:
        return memo[fn]
    memo[fn] = ()  # a recursive helper: its own calls add nothing
    params = _probed(p, fn)
    if not params or fn not in may_bind(p, collectives):
        return ()
    ev = p.evaluator
    probe = _probe_frame(ev, fn, params)
    found: set[str] = set()
    frames: dict[Any, Any] = {fn: probe}  # the defs nested in it close over its parameters
    for node in p.ctx.descendants(fn, prune=(cst.ClassDef,)):
        if type(node) is not cst.Call:
            continue
        frame = _frame_in(ev, node, frames)
        name = binding_api(p, node, collectives)
        if frame is None:
            continue
        if name in BINDING_CALLS:
            for a in node.args:
                with ev.query(_FUEL):
                    found.update(strings(ev.value(a.value, frame)))
        elif (
            name != COLLECTIVE
            and depth < DEPTH
            and _passes_parameter(p, node, fn)
            and library_callee(p, node.func) is None
            and names_a_def(p, node.func)
        ):
            found.update(given(ev, node, frame, collectives, depth + 1) or ())
    memo[fn] = tuple((i, name) for i, name in params if _MARK + name in found)
    return memo[fn]


def may_bind(p: Any, collectives: frozenset[str]) -> set[Any]:
    """The defs of program ``p`` that may be binding helpers, read from the calls alone
    (once per program): a def that calls a binding API (also in a def nested in it), or
    calls, with arguments, a def that may, or a function of a project module or a
    method it cannot place without evaluating it. ``binding_parameters`` probes only
    these: most defs call neither."""
    memos: dict[frozenset[str], set[Any]] = p.ctx.shared.setdefault("may bind", {})
    if collectives in memos:
        return memos[collectives]
    direct: set[Any] = set()
    edges: list[tuple[list[Any], list[Any]]] = []  # (the defs around a call, the local defs it may call)
    for node, entering in p.ctx.events():
        if not entering or type(node) is not cst.Call:
            continue
        around = _enclosing_defs(p, node)
        if not around:
            continue
        api = binding_api(p, node, collectives)
        if api in BINDING_CALLS:
            direct.update(around)
        elif api != COLLECTIVE and node.args and library_callee(p, node.func) is None and names_a_def(p, node.func):
            local = _local_defs(p, node.func)
            if local is None:
                direct.update(around)  # another module's function, a method: placed by evaluation
            elif local:
                edges.append((around, local))
    out = set(direct)
    changed = True
    while changed:
        changed = False
        for around, local in edges:
            if any(d in out for d in local) and not all(a in out for a in around):
                out.update(around)
                changed = True
    memos[collectives] = out
    return out


def _enclosing_defs(p: Any, node: cst.CSTNode) -> list[Any]:
    out = []
    g = p.ctx.enclosing_function(node)
    while g is not None:
        out.append(g)
        g = p.ctx.enclosing_function(g)
    return out


def _local_defs(p: Any, func: cst.BaseExpression) -> list[Any] | None:
    """The defs of this module a callee named by a name is (``[]``: none, a class or a
    parameter); None when it must be evaluated to be placed."""
    if type(func) is not cst.Name:
        return None
    bs = p.reaching(func)
    if not bs or any(b.kind == "import" or b.kind == "assign" for b in bs):
        return None
    return [b.node for b in bs if b.kind == "def"]


def parameter_of(p: Any, fn: cst.FunctionDef, expr: cst.BaseExpression) -> tuple[int, str] | None:
    """The parameter of the def ``fn`` whose value ``expr`` (in its body) is, through
    locals and defaults (``ax = axis_name``), as ``(position, name)``, or the attribute of
    one it is (``cfg.data_axis``: the name ``"cfg.data_axis"``): the position among
    the positional parameters as a caller counts them, -1 for a keyword-only one or a
    method's (its receiver shifts a caller's positions). None when the value is not exactly
    one parameter's."""
    params = _probed(p, fn)
    if not params:
        return None
    ev = p.evaluator
    got = _marks_in(ev, fn, expr, params)
    if not got:
        got = _field_mark(ev, fn, expr, params)
    if len(got) != 1:
        return None
    (mark,) = got
    if not mark.startswith(_MARK):
        return None
    method = len(params) != len(fn.params.posonly_params) + len(fn.params.params) + len(fn.params.kwonly_params)
    for i, name in params:
        if mark == _MARK + name or mark.startswith(f"{_MARK}{name}."):
            return (-1 if method else i, mark[len(_MARK) :])
    return None


def _field_mark(ev: Any, fn: cst.FunctionDef, expr: cst.BaseExpression, params: Any) -> set[str]:
    """``cfg.data_axis``: an attribute of a parameter's value (its mark and the attribute
    path, ``cfg.data_axis``), when the attribute chain starts at a name whose value is one
    parameter's; empty when it is none."""
    fields: list[str] = []
    root = expr
    while type(root) is cst.Attribute:
        fields.insert(0, root.attr.value)
        root = root.value
    if not fields or type(root) is not cst.Name:
        return set()
    got = _marks_in(ev, fn, root, params)
    return {f"{m}.{'.'.join(fields)}" for m in got if m.startswith(_MARK)} if len(got) == 1 else set()


def _probe_frame(ev: Any, fn: cst.FunctionDef | cst.Lambda, params: Any) -> Any:
    """The frame of ``fn`` in which each parameter holds its mark (a marker in a tuple: it
    stays one through ``tuple(names)``, ``(names,)``, ``names + ("x",)``)."""
    from .contexts import default_frame

    marks = {name: Tuple((Const(_MARK + name),)) for _, name in params}
    return ev.frame(fn, marks, default_frame(ev, fn).parent)


def _marks_in(ev: Any, fn: cst.FunctionDef, node: cst.BaseExpression, params: Any) -> set[str]:
    """The strings ``node`` (in ``fn``'s body) evaluates to in the probe frame; empty when
    the node is in no frame of the probe."""
    frame = _frame_in(ev, node, {fn: _probe_frame(ev, fn, params)})
    if frame is None:
        return set()
    with ev.query(_FUEL):
        return set(strings(ev.value(node, frame)))


def _frame_in(ev: Any, node: cst.CSTNode, frames: dict[Any, Any]) -> Any:
    """The frame a node of the probed def runs in: the probe, or the frame of a def nested
    in it (its own parameters unbound) whose parent is the frame around it."""
    g = ev.ctx.enclosing_function(node)
    if g in frames:
        return frames[g]
    if g is None:
        return None
    outer = _frame_in(ev, g, frames)
    frames[g] = ev.frame(g, {}, outer) if outer is not None else None
    return frames[g]


def given(ev: Any, call: cst.Call, env: Any, collectives: frozenset[str], depth: int = 0) -> set[str] | None:
    """The strings ``call`` (evaluated in ``env``) gives to the binding parameters of
    the def it calls; None when it calls no binding helper the model can read."""
    local = _local_defs(ev.p, call.func)
    if local is not None and not any(d in may_bind(ev.p, collectives) for d in local):
        return None  # a def of this module that binds nothing: no need to evaluate the callee
    with ev.query(_FUEL):
        callee = ev.value(call.func, None)  # what is called rarely depends on the frame: read once
    found = _helper(callee)
    if found is None:
        return None
    fn, before = found
    prog = fn.program if fn.program is not None else ev.p
    wanted = binding_parameters(prog, fn.node, collectives, depth)
    if not wanted:
        return None
    from .contexts import call_arguments
    from .signature import bind

    with ev.query(_FUEL):
        args = call_arguments(ev, call, env)
    sig = prog.evaluator.signature(fn)
    if args is None or sig is None:
        return None
    b = bind(sig, before + args)
    if b.error is not None:
        return None
    out: set[str] = set()
    for _, name in wanted:
        if name in b.arguments:
            out.update(strings(b.arguments[name]))
    return out


def names_a_def(p: Any, func: cst.BaseExpression) -> bool:
    """Does a callee name what it calls, as a helper is called: a name (``create_mesh``),
    a module's or a class's attribute (``meshes.create``, ``Meshes.create``), a method of
    the receiver (``self.make_mesh``), or a call that makes a callable of one
    (``partial(create_mesh, ...)(...)``)? A method of a computed object (``x.astype``) is
    not read: the model would compute the object first, for every such call."""
    if type(func) is cst.Name or type(func) is cst.Call:
        return True
    if type(func) is not cst.Attribute or type(func.value) is not cst.Name:
        return False
    bs = p.reaching(func.value)
    return bool(bs) and all(b.kind in ("import", "class", "def") or _receiver(b) for b in bs)


def _receiver(b: Any) -> bool:
    """Is the binding the first parameter of a method (``self``, ``cls``)?"""
    fn = b.scope.node
    if b.kind != "param" or type(fn) is not cst.FunctionDef or b.scope.parent is None:
        return False
    params = [*fn.params.posonly_params, *fn.params.params]
    return b.scope.parent.kind == "class" and bool(params) and params[0] is b.node


def _helper(callee: Any) -> tuple[Function, list[Any]] | None:
    """The def a callee value calls, and the arguments it binds first (a method's
    receiver, a ``partial``'s), through ``jit``-like wrappers."""
    from .transfer import PASS_THROUGH

    before: list[Any] = []
    for _ in range(8):
        t = type(callee)
        if t is Function:
            return callee, before
        if t is Bound:
            before = [(callee.receiver, None, ""), *before]
            callee = callee.func
        elif t is Partial and not callee.star:
            before = [(v, None, "") for v in callee.args] + [(v, k, "") for k, v in callee.keywords] + before
            callee = callee.func
        elif t is Wraps:
            callee = callee.func
        elif t is Transformed and callee.api in PASS_THROUGH:
            callee = callee.target
        else:
            return None
    return None


def _probed(p: Any, fn: cst.FunctionDef | cst.Lambda) -> list[tuple[int, str]]:
    """``(position, name)`` of the parameters a probe gives a marker (not ``*args``,
    ``**kwargs``, nor a method's receiver)."""
    ps = fn.params
    positional = [x.name.value for x in (*ps.posonly_params, *ps.params)]
    out = [(i, name) for i, name in enumerate(positional)]
    qual = p.ctx.qualname(fn)
    fact = p.ctx.facts.functions.get(qual) if qual is not None else None
    if out and fact is not None and fact.class_name is not None:
        out = out[1:]
    return out + [(-1, x.name.value) for x in ps.kwonly_params]


def _passes_parameter(p: Any, call: cst.Call, fn: cst.CSTNode) -> bool:
    """Does ``call`` give a parameter of ``fn`` as an argument (or inside a tuple/list),
    also from a def nested in ``fn``?"""
    for a in call.args:
        for n in (a.value, *(e.value for e in getattr(a.value, "elements", ()))):
            if type(n) is cst.Name and any(b.kind == "param" and b.scope.node is fn for b in p.reaching(n)):
                return True
    return False
