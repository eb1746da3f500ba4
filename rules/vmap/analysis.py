"""What the JAX1xx rules share: the file's vmap sites as the semantic model evaluates
them (``jaxlint.model.mapsites``), how messages name an argument and a call, and the
``in_axes`` fix. Each rule judges one kind of ``MapIssue`` or body problem.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import libcst as cst

from jaxlint.lint.rule import NodeEdit, Rule, RuleFix
from jaxlint.model import forwarding, program
from jaxlint.model.abstract import Array, Const, Function, Transformed, path_text
from jaxlint.model.context import ForeignLine
from jaxlint.model.contexts import case_of, foreign_call_line
from jaxlint.model.contexts import sites as call_sites
from jaxlint.model.maps import MapCall, MappedLeaf
from jaxlint.model.mapsites import Application, Evaluated, MapSite, map_sites
from jaxlint.model.stubs import MAPS as STUB_MAPS

VMAP = "jax.vmap"
# what the rules are about: jax.vmap, and the library functions a stub says make one
# (``eqx.filter_vmap``): the pre-filter and the slicer keep the code naming them
ABOUT = (VMAP, *sorted(q for q, api in STUB_MAPS.items() if api == VMAP))


def short(ctx: Any, node: cst.CSTNode, limit: int = 48) -> str:
    text = " ".join(ctx.code(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(slots=True)
class Site:
    """One vmap application as the rules show it."""

    mapped: MapSite
    label: str  # ``vmap(linear_layer)``
    in_axes_node: cst.BaseExpression | None  # the expression given for in_axes
    anchor: cst.BaseExpression | None  # insert ``, in_axes=...`` after it when none is given

    @property
    def node(self) -> cst.CSTNode:
        return self.mapped.node

    @property
    def foreign(self) -> bool:
        """A map another module makes, called here: judged at this call, never edited here."""
        return bool(self.mapped.app.foreign)

    @property
    def calls(self) -> list[Evaluated]:
        return self.mapped.calls


def vmap_sites(ctx: Any) -> list[Site]:
    p = program(ctx)
    memo: dict[str, list[Site]] = p.__dict__.setdefault("_jax1_sites", {})
    if "sites" in memo:
        return memo["sites"]
    out = []
    for ms in map_sites(p, VMAP):
        app = ms.app
        target = _foreign_target(ms.function_name) if app.foreign else _target_text(ctx, app)
        out.append(Site(ms, f"{app.name}({target})", app.options.get("in_axes"), app.anchor))
    memo["sites"] = out
    return out


def _foreign_target(name: str | None) -> str:
    """The mapped function of a map another module makes, as that module writes it."""
    return "lambda" if name == "<lambda>" else name or "..."


def _target_text(ctx: Any, app: Application) -> str:
    if app.decorator:
        fn = ctx.parents.get(ctx.parents.get(app.node))
        return fn.name.value if isinstance(fn, cst.FunctionDef) else "..."
    expr = app.target_node
    if expr is None:
        return "..."
    if isinstance(expr, cst.Lambda):
        return "lambda"
    text = " ".join(ctx.code(expr).split())
    return text if len(text) <= 40 else "..."


# ----------------------------------------------------------------------------------
# naming things in messages
# ----------------------------------------------------------------------------------
def argument_exprs(rec: MapCall) -> tuple[list[cst.BaseExpression | None], dict[str, cst.BaseExpression]]:
    """The expressions of the call's positional arguments (None where not written: a
    receiver passed by a bound method, an argument spread with ``*``) and keywords."""
    call = rec.node
    if not isinstance(call, cst.Call) or any(a.star for a in call.args):
        return [None] * rec.positional, {}
    pos: list[cst.BaseExpression | None] = [a.value for a in call.args if a.keyword is None]
    kws = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    missing = rec.positional - len(pos)
    return [None] * max(missing, 0) + pos, kws


def leaf_text(ctx: Any, rec: MapCall, leaf: MappedLeaf) -> str:
    """``params['w1']``, ``xs``, ``x=`` (keyword), ``argument 2``."""
    if rec.inside is not None:  # its arguments are the outer map's slices, not what the call spells
        root = leaf.arg if isinstance(leaf.arg, str) else f"argument {leaf.arg + 1}"
        return f"{path_text(root, leaf.path)}" if leaf.path else root
    pos, kws = argument_exprs(rec)
    if isinstance(leaf.arg, str):
        root = leaf.arg
        expr = kws.get(leaf.arg)
        if expr is not None and isinstance(expr, (cst.Name, cst.Attribute)):
            root = short(ctx, expr, 30)
    else:
        expr = pos[leaf.arg] if leaf.arg < len(pos) else None
        if expr is None or (leaf.path and not isinstance(expr, (cst.Name, cst.Attribute, cst.Subscript))):
            if leaf.path:
                return f"`{path_text('', leaf.path)}` of argument {leaf.arg + 1}"
            return f"argument {leaf.arg + 1}"
        root = short(ctx, expr, 30)
    return f"`{path_text(root, leaf.path)}`"


def value_text(v: Any) -> str:
    if type(v) is Array:
        return f"shape {v.shape}" if v.shape is not None else "an array"
    if type(v) is Const:
        return f"the Python {type(v.value).__name__} `{v.value!r}`"
    return "a Python value"


def where(ctx: Any, rec: MapCall, site: Site | None = None) -> str:
    """`` in the call at line 25`` (`` (from line 31)`` when it takes its values from a
    caller), or "" when the call is the application itself on one line."""
    p = program(ctx)
    nodes: list[cst.CSTNode] = []
    if isinstance(rec.node, cst.CSTNode):
        nodes.append(p.written_call(rec.node) if isinstance(rec.node, cst.Call) else rec.node)
    chain = call_sites(rec.frame)
    nodes += chain[:2]
    if site is not None:
        nodes.append(site.node)
    lines = ctx.exact_lines([n for n in nodes if n is not None])
    parts = [lines[n] for n in nodes[: len(nodes) - (site is not None)] if n in lines]
    case = case_of(rec.frame)
    phrases = []
    if case is not None:
        phrases.append(f"in the test case with {case.label}")
    if site is not None and site.mapped.app.via:
        phrases.append(
            f"`{site.mapped.app.callee}` calls the `{site.label}` at {site.mapped.app.foreign} with what this call passes"
        )
    elif site is not None and site.mapped.app.foreign:
        phrases.append(f"`{site.mapped.app.callee}` is the `{site.label}` made at {site.mapped.app.foreign}")
    if rec.inside is not None:
        phrases.append("inside an outer map, on its slices")
    here = lines.get(site.node) if site is not None else None
    if parts and parts[0] != here:
        phrases.append(f"in the call at line {parts[0]}")
    if len(parts) > 1 and parts[1] != parts[0]:
        phrases.append(f"with the arguments from line {parts[1]}")
    if not any(type(n) is ForeignLine for n in parts[:2]):
        # the call of another module the values finally come from (``run.py`` calling this
        # module's def: model/contexts.py, importers)
        first = foreign_call_line(ctx, rec.frame)
        if first is not None:
            phrases.append(f"as called at line {first}")
    return (" " + ", ".join(phrases)) if phrases else ""


def first_with(site: Site, kinds: Iterable[str], shapes: bool = True) -> Iterator[tuple[Evaluated, Any]]:
    """The site's evaluated calls with an issue of one of ``kinds`` (first one each)."""
    wanted = set(kinds)
    for e in site.calls:
        if shapes and (not e.shapes or not e.certain):
            continue
        for issue in e.record.issues:
            if issue.kind in wanted:
                yield e, issue
                break


# ----------------------------------------------------------------------------------
# the in_axes fix
# ----------------------------------------------------------------------------------
def in_axes_fix(ctx: Any, site: Site, none_at: set[int], n: int, title: str) -> RuleFix | None:
    """Put ``None`` at positions ``none_at`` of ``in_axes`` (``n`` positional arguments)."""
    node = site.in_axes_node
    if site.foreign:
        return None  # the options are written in another module
    if node is None:
        if site.anchor is None or site.mapped.app.written:
            return None
        entries = ["None" if i in none_at else "0" for i in range(n)]
        text = f"({', '.join(entries)}{',' if n == 1 else ''})"
        return RuleFix(title, [NodeEdit(site.anchor, f", in_axes={text}", where="after")], "unsafe")
    if isinstance(node, (cst.Tuple, cst.List)):
        if len(node.elements) != n or any(isinstance(e, cst.StarredElement) for e in node.elements):
            return None
        edits = [NodeEdit(e.value, "None") for i, e in enumerate(node.elements) if i in none_at]
        return RuleFix(title, list(edits), "unsafe") if edits else None
    if isinstance(node, cst.Integer):
        entries = ["None" if i in none_at else node.value for i in range(n)]
        return RuleFix(title, [NodeEdit(node, f"({', '.join(entries)}{',' if n == 1 else ''})")], "unsafe")
    return None


class ThroughForwarders(Rule):
    """A vmap rule whose verdicts may rest on a call made through a forwarder of another
    module (``self.ConvertAndCompare(f, x, y)``, model/forwarding.py): such a verdict waits
    for the project phase, which checks that the callee forwards."""

    shapes_needed: bool = True  # False: the number of arguments is enough (JAX102)

    def report_evaluated(
        self, node: cst.CSTNode, message: str, evaluated: Evaluated, fix: RuleFix | None = None, note: str = ""
    ) -> None:
        """Report now, or, when the evaluation assumed a forwarder of another module, as a
        pending finding the project phase confirms."""
        if evaluated.assumed is not None:
            self.pending(node, {"message": message, "note": note, "assumed": [evaluated.assumed]})
        else:
            self.report(node, message, fix=fix, note=note)

    @classmethod
    def resolve(cls, items: Any, project: Any) -> Iterator[tuple[Any, str, str]]:
        for item in items:
            if all(forwarding.holds(project, a, cls.shapes_needed) for a in item.data["assumed"]):
                yield item, item.data["message"], item.data.get("note", "")


def target_name(ctx: Any, site: Site) -> str:
    """How messages name the mapped function: ``predict``, ``the lambda``."""
    v = site.mapped.value
    while type(v) is Transformed:
        v = v.target
    if type(v) is Function:
        return f"`{v.name}`" if v.name != "<lambda>" else "the lambda"
    text = _target_text(ctx, site.mapped.app)  # a stub's map (``eqx.filter_vmap(f)``): as written
    return "the lambda" if text == "lambda" else f"`{text}`" if text != "..." else "the function"
