"""What ``parser.parse_args()`` gives: the ``argparse.Namespace`` of a script run with its
command-line defaults.

A research script reads its sizes from flags (``p.add_argument("--batch-size", type=int,
default=32)``, then ``args.batch_size``). A flag's value is only known when the script
runs; what the code declares is the value every run without that flag gets, which is how
a script is run first. So the namespace holds, per ``add_argument`` of the parser, its
``dest`` (``--eval-batch-size`` gives ``eval_batch_size``, or ``dest=``) bound to its
default, converted by ``type=`` as argparse converts string defaults; ``store_true``
gives False, ``store_false`` True, no default None; ``set_defaults(name=v)`` sets one. A
required option or a positional argument has no default: UNKNOWN.

The parser must be a name bound once to ``argparse.ArgumentParser(...)`` whose every use
the module shows is ``.add_argument(...)``, ``.set_defaults(...)`` or a parse: a parser
handed to a helper, sub-parsers or argument groups make the namespace unknown, and so does
``parse_args(argv)`` given its own arguments (``args=None``, the command line, is the
default: ``def main(argv=None)`` run as a script).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from jaxlint.base.literals import UNKNOWN

from .abstract import Const, External, Function, Struct, Tuple
from .spelled import spelled

if TYPE_CHECKING:
    from .evaluate import Env, Evaluator

PARSERS = frozenset({"argparse.ArgumentParser"})
PARSES = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args"})
_USES = frozenset({"add_argument", "set_defaults", *PARSES})
_CONVERT = {"builtins.int": int, "builtins.float": float, "builtins.str": str}


def _command_line(ev: Evaluator, call: cst.Call, env: Env | None) -> bool:
    """Is the parse given ``args=None`` (``parse_args(argv)`` with ``argv=None``, how a
    ``main(argv=None)`` run as a script parses): argparse then reads the command line."""
    if len(call.args) != 1:
        return False
    a = call.args[0]
    if a.star or (a.keyword is not None and a.keyword.value != "args"):
        return False
    return ev.value(a.value, env) == Const(None)


def parsed(ev: Evaluator, call: cst.Call, env: Env | None) -> Any:
    """The value of ``parser.parse_args()`` (a ``Namespace`` struct; a pair with the
    unrecognised arguments for ``parse_known_args``), or None when ``call`` is not a parse
    of a parser the module builds in view."""
    func = call.func
    if type(func) is not cst.Attribute or func.attr.value not in PARSES:
        return None
    if call.args and not _command_line(ev, call, env):
        return UNKNOWN  # its own argument list: not the command line's defaults
    found = _parser(ev, func.value, env)
    if found is None:
        return None
    ev, binding, returned = found
    p = ev.p
    reads, complete = p.references(binding)
    fields: dict[str, Any] = {}
    for r in reads:
        parent = p.parents.get(r)
        if r is returned:
            continue  # ``return p`` of the builder: the parse is of what it returns
        if type(parent) is not cst.Attribute or parent.value is not r:
            return UNKNOWN  # handed on: arguments out of view
        use = p.parents.get(parent)
        name = parent.attr.value
        if type(use) is not cst.Call or use.func is not parent or name not in _USES:
            return UNKNOWN  # sub-parsers, groups: arguments out of view
        if name == "add_argument":
            added = _argument(ev, use, env)
            if added is None:
                return UNKNOWN
            fields[added[0]] = added[1]
        elif name == "set_defaults":
            for a in use.args:
                if a.keyword is None:
                    return UNKNOWN
                fields[a.keyword.value] = ev.value(a.value, env)
    if not complete and returned is None:
        return UNKNOWN
    namespace = Struct(External("argparse.Namespace"), tuple(fields.items()), "object")
    if func.attr.value == "parse_known_args":
        return Tuple((namespace, UNKNOWN))
    return namespace


def _parser(ev: Evaluator, expr: cst.BaseExpression, env: Env | None) -> tuple[Evaluator, Any, cst.Name | None] | None:
    """The binding ``p = argparse.ArgumentParser(...)`` that ``expr`` reads, with the
    evaluator of its file and the read of it a builder def returns: a name bound to the
    parser here, a call of a def (also of another module) whose one ``return p`` gives its
    own parser, or a name bound once to such a call (``parser = build_parser()``)."""
    if type(expr) is cst.Name:
        found = ev.p.reaching(expr)
        if len(found) != 1 or found[0].kind != "assign" or found[0].unpack or type(found[0].value) is not cst.Call:
            return None
        made = found[0].value
        if spelled(ev.p, made.func) in PARSERS:
            return ev, found[0], None
        expr = made
    if type(expr) is not cst.Call or expr.args:
        return None
    fn = ev.value(expr.func, env)
    if type(fn) is not Function or type(fn.node) is not cst.FunctionDef or fn.program is None:
        return None
    q = fn.program
    returns = [n for n in q.ctx.descendants(fn.node) if type(n) is cst.Return]
    if (
        len(returns) != 1
        or type(returns[0].value) is not cst.Name
        or q.ctx.enclosing_function(returns[0]) is not fn.node
    ):
        return None
    found = q.reaching(returns[0].value)
    if len(found) != 1 or found[0].kind != "assign" or found[0].unpack or type(found[0].value) is not cst.Call:
        return None
    if spelled(q, found[0].value.func) not in PARSERS:
        return None
    return q.evaluator, found[0], returns[0].value


def _argument(ev: Evaluator, call: cst.Call, env: Env | None) -> tuple[str, Any] | None:
    """``(dest, value)`` of one ``add_argument(...)``; None when the flag's name cannot be read."""
    names: list[str] = []
    keywords: dict[str, cst.BaseExpression] = {}
    for a in call.args:
        if a.star:
            return None
        if a.keyword is not None:
            keywords[a.keyword.value] = a.value
            continue
        v = ev.value(a.value, env)
        if type(v) is not Const or not isinstance(v.value, str):
            return None
        names.append(v.value)
    if not names:
        return None
    dest_expr = keywords.get("dest")
    if dest_expr is not None:
        d = ev.value(dest_expr, env)
        if type(d) is not Const or not isinstance(d.value, str):
            return None
        dest = d.value
    else:
        longs = [n for n in names if n.startswith("--")]
        first = longs[0] if longs else names[0]
        dest = first.lstrip("-").replace("-", "_")
    if not names[0].startswith("-"):
        return dest, UNKNOWN  # a positional argument: given on every command line
    if "required" in keywords:
        r = ev.value(keywords["required"], env)
        if not (type(r) is Const and r.value is False):
            return dest, UNKNOWN
    if "default" in keywords:
        value = ev.value(keywords["default"], env)
        kind = ev.value(keywords["type"], env) if "type" in keywords else None
        convert = _CONVERT.get(kind.qualified) if type(kind) is External else None
        if type(value) is Const and isinstance(value.value, str) and convert is not None:
            try:
                value = Const(convert(value.value))  # argparse converts a string default
            except ValueError:
                return dest, UNKNOWN
        return dest, value
    action = ev.value(keywords["action"], env) if "action" in keywords else None
    if type(action) is Const and action.value in ("store_true", "store_false"):
        return dest, Const(action.value == "store_false")
    return dest, Const(None)
