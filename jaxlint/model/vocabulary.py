"""The project's axis vocabulary: every axis name some binding site mentions.

A collective's axis name must be bound by a map around it. Where the model cannot see
that map (a mesh passed as a parameter, a step handed to a trainer library), the name
can still be checked against the project: a name that no binding site anywhere mentions
is unbound wherever the collective runs. *Mentions* are read generously (more mentions
only make JAX201 quieter):

- in code (``module_vocabulary``, per module, exported as plain data): every string
  a binding site names (``jaxlint/model/binders.py``): the arguments of a binding API —
  the maps of any library, meshes, partition specs (``PartitionSpec``, which jax also
  calls ``jax.P``), flax's logical partitioning —, the keywords about axes, names,
  meshes, specs, rules or grids of any call but a collective's, and parameter defaults
  of such a name (``mesh_axes=("data",)``), and what a class field, an attribute or a
  dict entry of such a name holds (``axis_name: str = "batch"``: the default of the
  config field a map's ``axis_name`` reads; not a variable, whose reads are judged where
  they are); and every string given to a *binding
  helper*, a def whose parameter reaches one of those (``create_mesh((8,), "x")`` where
  ``create_mesh`` builds ``Mesh(devices, axis_names)``), wherever the model can read the
  def. What the model cannot read (a helper of jax's own ``jax._src.test_util`` while
  linting jax) is joined in the project phase: a module exports its helpers and the
  strings it gives functions it cannot read, matched by qualified name
  (``project_helpers_mentions``). Arguments are read as values (constants, local and
  module names, tuples, dicts), never as spellings.
- in the project's configuration files (``config_mentions``): YAML, JSON and TOML files
  under the folder that holds every linted module (their common parent), read as data
  (``yaml.safe_load``, ``json``, ``tomllib``; nothing is executed): every string below a
  key that names axes, meshes, rules, partitioning or sharding. At most
  ``MAX_CONFIG_FILES`` files of at most ``MAX_CONFIG_BYTES`` each, in sorted walk order,
  skipping hidden folders, virtual environments and build output.
- the names every map on the recorded call paths binds (``jaxlint/model/calls.py``).
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterable
from typing import Any

import libcst as cst

from .abstract import External, List, Opaque, Tuple
from .axes import frames, strings
from .binders import (
    BINDING_CALLS,
    COLLECTIVE,
    axis_arguments,
    binding_api,
    binding_parameters,
    given,
    library_callee,
    names_a_def,
    names_keyword,
)
from .catalogue import lookup

KEY = "axis_vocabulary"  # ModuleFacts.extra[code][KEY]: sorted list of the names the module mentions
HELPERS = "axis_helpers"  # ... {qualname: [[position, name], ...]}: the module's binding helpers
GIVEN = "axis_given"  # ... [[callee, slot, [names]], ...]: what it gives functions the model cannot read

# what config keys that name axes contain (lower case)
CONFIG_KEY_WORDS = ("axis", "axes", "mesh", "rules", "partition", "sharding", "spec")
CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml")
MAX_CONFIG_FILES = 200
MAX_CONFIG_BYTES = 256 * 1024
SKIP_FOLDERS = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "build", "dist"})
_FUEL = 400


def module_mentions(p: Any, collectives: frozenset[str]) -> list[str]:
    """The axis names the module's binding sites mention (see the module docstring)."""
    return module_vocabulary(p, collectives)[KEY]


def module_vocabulary(p: Any, collectives: frozenset[str]) -> dict[str, Any]:
    """What the module exports to the project's vocabulary, as plain data: the names its
    binding sites mention (``KEY``), its binding helpers (``HELPERS``), and the strings
    it gives functions the model cannot read, which may be another module's helpers
    (``GIVEN``: jax's own ``jtu.create_mesh``, in a module the model never reads);
    ``collectives``: the last names of the collectives, whose own axis names are no
    binding."""
    ctx = p.ctx
    ev = p.evaluator
    out: set[str] = set()
    helpers: dict[Any, None] = {}  # the defs that may pass a parameter into a binding argument
    unread: dict[tuple[str, int | str], set[str]] = {}  # (callee, slot) -> names
    for node, entering in ctx.events():
        if not entering:
            continue
        t = type(node)
        if t is cst.Param:  # ``def fit(step, mesh_axes=("data", "fsdp"))``
            if node.default is not None and names_keyword(node.name.value):
                out.update(_mentioned(ev, node.default))
            continue
        if t in _STORES:  # ``axis_name: str = "batch"``, ``self.mesh_axes = ...``, ``{"axis": "i"}``
            for name, value in _stored(node, _in_class_body(ctx, node)):
                if names_keyword(name.lower()):  # ``MESH_AXES = ("data", "fsdp")`` too
                    out.update(_mentioned(ev, value))
            continue
        if t is not cst.Call or not node.args:
            continue  # a call without arguments names nothing
        api = binding_api(p, node, collectives)
        if api == COLLECTIVE:
            continue
        binding = axis_arguments(node, api)
        fn = ctx.enclosing_function(node)
        for expr in binding:
            out.update(_mentioned(ev, expr))
            if fn is not None and api in BINDING_CALLS and _from_caller(ev, expr):
                helpers.setdefault(fn, None)  # it may be the def's parameter: a helper
        if binding:
            continue
        callee = library_callee(p, node.func)
        if callee is None and not names_a_def(p, node.func):
            continue
        if callee is None:
            helped = given(ev, node, None, collectives)
            if helped == set() and fn is not None:  # a helper given a parameter: what the def's callers give
                for f in frames(ev, fn):
                    helped.update(given(ev, node, f, collectives) or ())
            if helped is not None:
                out.update(helped)
                continue
            with ev.query(_FUEL):
                value = ev.value(node.func, None)
            callee = value.qualified if type(value) is External else None
        if callee is not None and not callee.startswith("builtins.") and not lookup(callee):
            for slot, names in _given_unread(p, node):
                unread.setdefault((callee, slot), set()).update(names)
    exported: dict[str, list[list[Any]]] = {}
    for fn in helpers:
        qual = ctx.qualname(fn)
        slots = binding_parameters(p, fn, collectives)
        if qual is not None and slots:
            exported[qual] = [list(x) for x in slots]
    given_out = [[callee, slot, sorted(names)] for (callee, slot), names in unread.items()]
    return {KEY: sorted(out), HELPERS: exported, GIVEN: given_out}


_STORES = (cst.Assign, cst.AnnAssign, cst.DictElement)


def _in_class_body(ctx: Any, node: cst.CSTNode) -> bool:
    """Is the statement a class body's (a field or class attribute)?"""
    line = ctx.parent(node)
    block = ctx.parent(line) if line is not None else None
    return type(ctx.parent(block) if block is not None else None) is cst.ClassDef


def _stored(node: cst.CSTNode, in_class: bool) -> list[tuple[str, cst.BaseExpression]]:
    """``(name, value)`` for what an assignment or a dict entry stores under a name: a
    class field, an attribute, a string key. Not a variable: its reads are what a binding
    site or a collective makes of it (``DEVICE_AXIS = "devices"`` given only to a
    ``pmean`` is no binding of it), read where they are."""
    if type(node) is cst.DictElement:
        key = node.key
        if type(key) is cst.SimpleString:
            text = key.evaluated_value
            return [(text, node.value)] if isinstance(text, str) else []
        return []
    value = node.value  # type: ignore[attr-defined]
    if value is None:
        return []  # ``axis_name: str``, a field without a default
    targets = [node.target] if type(node) is cst.AnnAssign else [t.target for t in node.targets]  # type: ignore[attr-defined]
    out = []
    for target in targets:
        if type(target) is cst.Name and in_class:
            out.append((target.value, value))
        elif type(target) is cst.Attribute:
            out.append((target.attr.value, value))
    return out


def _mentioned(ev: Any, expr: cst.BaseExpression) -> set[str]:
    """The strings an argument is, with no call in view, else in the contexts of the def
    it is in (a parameter some visible call gives)."""
    with ev.query(_FUEL):
        v = ev.value(expr, None)
    got = set(strings(v))
    fn = ev.ctx.enclosing_function(expr)
    if got or fn is None or not _from_parameter(v):
        return got
    for f in frames(ev, fn):
        with ev.query(_FUEL):
            got.update(strings(ev.value(expr, f)))
    return got


def _from_caller(ev: Any, expr: cst.BaseExpression) -> bool:
    """May the argument's strings come from the def's caller (no call in view, it holds
    none, or a parameter's value)?"""
    with ev.query(_FUEL):
        v = ev.value(expr, None)
    return _from_parameter(v) or not any(True for _ in strings(v))


def _given_unread(p: Any, call: cst.Call) -> list[tuple[int | str, set[str]]]:
    """``(slot, names)`` for each argument of a call of a function the model cannot read
    that holds strings (slot: the position, or the keyword). Only arguments that hold
    string constants as written are evaluated."""
    ev = p.evaluator
    out: list[tuple[int | str, set[str]]] = []
    for i, a in enumerate(call.args):
        if a.star:
            break
        if not _holds_constant_strings(p, a.value):
            continue
        with ev.query(_FUEL):
            names = set(strings(ev.value(a.value, None)))
        if names:
            out.append((a.keyword.value if a.keyword is not None else i, names))
    return out


def _holds_constant_strings(p: Any, expr: cst.BaseExpression) -> bool:
    """Does the argument hold string constants as written: a string literal, a name of a
    module-level binding (``AXES = ("data",)``), or a tuple or list of those?"""
    t = type(expr)
    if t in _STRING_NODES:
        return True
    if t is cst.Name:
        bs = p.reaching(expr)
        return bool(bs) and all(b.scope is p.module_scope for b in bs)
    if t is cst.Tuple or t is cst.List:
        return any(_holds_constant_strings(p, e.value) for e in expr.elements)  # type: ignore[attr-defined]
    return False


_STRING_NODES = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def project_helpers_mentions(modules: Iterable[Any], code: str, canonical: Any) -> set[str]:
    """The strings modules give the binding helpers of other modules that they could not
    read (``GIVEN`` joined with ``HELPERS`` by the helper's qualified name, through
    ``canonical``: the project's re-exports)."""
    helpers: dict[str, list[list[Any]]] = {}
    given_all: list[list[Any]] = []
    for m in modules:
        data = m.extra.get(code, {})
        for qual, slots in data.get(HELPERS, {}).items():
            helpers[m.ref(qual)] = slots
        given_all.extend(data.get(GIVEN, ()))
    out: set[str] = set()
    if not helpers:
        return out
    for callee, slot, names in given_all:
        slots = helpers.get(canonical(callee) or callee)
        if slots and any(slot in (position, name) for position, name in slots):
            out.update(names)
    return out


def _from_parameter(v: Any) -> bool:
    """Is the value a parameter's (or part of one), which a visible call may give?"""
    t = type(v)
    if t is Opaque:
        return True
    if t is Tuple or t is List:
        return any(_from_parameter(x) for x in v.items)
    return False


# -- configuration files ------------------------------------------------------------
def config_root(paths: Iterable[str]) -> str | None:
    """The folder that holds every linted module (None without one on disk)."""
    dirs = [os.path.dirname(os.path.abspath(x)) for x in paths if x and x != "-" and not x.startswith("<")]
    if not dirs:
        return None
    try:
        root = os.path.commonpath(dirs)
    except ValueError:  # different drives
        return None
    return root if os.path.isdir(root) else None


def config_files(root: str) -> list[str]:
    """The configuration files a run reads under ``root`` (bounded: see the module doc)."""
    out: list[str] = []
    for d, subdirs, files in os.walk(root):
        subdirs[:] = sorted(s for s in subdirs if not s.startswith(".") and s not in SKIP_FOLDERS)
        for f in sorted(files):
            if f.endswith(CONFIG_SUFFIXES):
                path = os.path.join(d, f)
                try:
                    if os.path.getsize(path) > MAX_CONFIG_BYTES:
                        continue
                except OSError:
                    continue
                out.append(path)
                if len(out) >= MAX_CONFIG_FILES:
                    return out
    return out


def config_mentions(root: str | None) -> set[str]:
    """The axis names the configuration files under ``root`` mention."""
    out: set[str] = set()
    if root is None:
        return out
    for path in config_files(root):
        data = _load(path)
        if data is not None:
            _collect(data, False, out, 0)
    return out


def _load(path: str) -> Any:
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    try:
        if path.endswith(".json"):
            return json.loads(text)
        if path.endswith(".toml"):
            return tomllib.loads(text)
        import yaml

        return list(yaml.safe_load_all(text))
    except Exception:  # a file that is not valid data is no configuration: skipped
        return None


def _collect(data: Any, under: bool, out: set[str], depth: int) -> None:
    """Strings below a key that names axes (``under``), anywhere in the document."""
    if depth > 20:
        return
    if isinstance(data, dict):
        for k, v in data.items():
            about = isinstance(k, str) and any(w in k.lower() for w in CONFIG_KEY_WORDS)
            if under and isinstance(k, str) and not about:
                out.add(k)  # ``logical_axis_rules: {batch: data}``: a logical axis name
            _collect(v, under or about, out, depth + 1)
    elif isinstance(data, (list, tuple)):
        for v in data:
            _collect(v, under, out, depth + 1)
    elif under and isinstance(data, str):
        out.add(data)


# -- suggestions ----------------------------------------------------------------------
def distance(a: str, b: str) -> int:
    """Edit distance with adjacent transpositions (optimal string alignment)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def closest(name: str, vocabulary: Iterable[str]) -> str | None:
    """The vocabulary's name closest to ``name`` when it is close: at most 2 edits, and
    fewer than a third of the longer name (``device``/``devices``, ``bacth``/``batch``)."""
    best: tuple[int, str] | None = None
    for v in sorted(set(vocabulary)):
        if v == name:
            return None
        d = distance(name, v)
        if d <= 2 and 3 * d <= max(len(name), len(v)) and (best is None or d < best[0]):
            best = (d, v)
    return best[1] if best else None
