"""The project's axis vocabulary: every axis name some binding site mentions.

A collective's axis name must be bound by a map around it. Where the model cannot see
that map (a mesh passed as a parameter, a step handed to a trainer library), the name
can still be checked against the project: a name that no binding site anywhere mentions
is unbound wherever the collective runs. *Mentions* are read generously (more mentions
only make JAX201 quieter):

- in code (``module_mentions``, per module, exported as plain data): every string in
  the arguments of a binding API — the maps of any library (``pmap``, ``vmap``,
  ``smap``, ``shard_map``, ``filter_pmap``, ``xmap``), meshes (``Mesh``,
  ``AbstractMesh``, ``make_mesh``), partition specs (``PartitionSpec``/``P``,
  ``NamedSharding``, ``with_sharding_constraint``) and flax's logical partitioning
  (``with_partitioning``, ``logical_axis_rules``, ``axis_rules``, ...) — and every string
  given to a keyword about axes, names, meshes, specs, rules or grids (``axis_name``,
  ``spmd_axis_name``, ``axis_env``, ``in_specs``/``out_specs``, ``mesh_axes``, ``rules``,
  Pallas's ``grid_names``/``thread_name``/named ``grid``, ...) of any call but a
  collective's, and to a parameter default of such a name (``mesh_axes=("data",)``). Arguments are read as values (constants, local and module names,
  tuples, dicts), never as spellings.
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
from collections.abc import Iterable, Iterator
from typing import Any

import libcst as cst

from jaxlint.base.names import last_name

from .abstract import Const, Dict, External, List, Opaque, Partial, Struct, Transformed, Tuple

KEY = "axis_vocabulary"  # ModuleFacts.extra[KEY]: sorted list of the names the module mentions

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
# what config keys that name axes contain (lower case)
CONFIG_KEY_WORDS = ("axis", "axes", "mesh", "rules", "partition", "sharding", "spec")
CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml")
MAX_CONFIG_FILES = 200
MAX_CONFIG_BYTES = 256 * 1024
SKIP_FOLDERS = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "build", "dist"})
_FUEL = 400


def names_keyword(k: str) -> bool:
    """Does a keyword (or a parameter with a default) name axes? Read generously: any
    keyword about axes, names, meshes, specs, rules or grids (Pallas names its grid
    axes: ``grid_names=("m", "n")``, ``grid=(("i", 2),)``, ``thread_name="t"``)."""
    return any(w in k for w in _MENTION_WORDS) or k in MENTION_KEYWORDS


_MENTION_WORDS = ("axis", "axes", "name", "mesh", "spec", "rules", "grid")


def strings(v: Any, depth: int = 0) -> Iterator[str]:
    """Every string constant inside a value (tuples, lists, dicts with their keys, a
    mesh's names, a ``partial``'s arguments, a map's options)."""
    if depth > 6:
        return
    t = type(v)
    if t is Const:
        if isinstance(v.value, str):
            yield v.value
    elif t is Tuple or t is List:
        for x in v.items:
            yield from strings(x, depth + 1)
    elif t is Dict:
        for k, x in v.items:
            if isinstance(k, str):
                yield k
            yield from strings(x, depth + 1)
    elif t is Struct:
        for _, x in v.fields:
            yield from strings(x, depth + 1)
    elif t is Partial:
        for x in (*v.args, *(x for _, x in v.keywords)):
            yield from strings(x, depth + 1)
    elif t is Transformed:
        for _, x in v.options:
            yield from strings(x, depth + 1)


def module_mentions(p: Any, collectives: frozenset[str]) -> list[str]:
    """The axis names the module's binding sites mention (see the module docstring);
    ``collectives``: the last names of the collectives, whose own axis names are no
    binding."""
    ctx = p.ctx
    ev = p.evaluator
    out: set[str] = set()
    for node, entering in ctx.events():
        if not entering:
            continue
        t = type(node)
        if t is cst.Param:  # ``def fit(step, mesh_axes=("data", "fsdp"))``
            if node.default is not None and names_keyword(node.name.value):
                out.update(_mentioned(ev, node.default))
            continue
        if t is not cst.Call:
            continue
        name = _api_name(p, node.func)
        if name in collectives:
            continue
        if name == "partial" and node.args:
            inner = _api_name(p, node.args[0].value)
            if inner in collectives:
                continue
            if inner in BINDING_CALLS:
                name = inner
        whole = name in BINDING_CALLS
        for a in node.args:
            if whole or (a.keyword is not None and names_keyword(a.keyword.value)):
                out.update(_mentioned(ev, a.value))
    return sorted(out)


def _mentioned(ev: Any, expr: cst.BaseExpression) -> set[str]:
    """The strings an argument is, with no call in view, else in the contexts of the def
    it is in (a parameter some visible call gives)."""
    from .axes import frames

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


def _api_name(p: Any, func: cst.BaseExpression) -> str | None:
    """The last name of a callee, through an import or alias (``P`` for ``PartitionSpec``)."""
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
