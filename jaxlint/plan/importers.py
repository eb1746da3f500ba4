"""Who imports each def of a module: the files whose calls give its parameters values.

A def's parameters take what its calls pass (``jaxlint.model.contexts``), and in a
project most calls of a module's functions are in other modules: ``run.py`` calls
``mlp_apply(params, x, cfg["activation"])`` of ``model.py``. Before the second pass the
main process knows every planned file's imports (its outline), so it can say, for each
file, which other files import which of its module-level names and mention them
(``from model import mlp_apply``, or ``import model`` and ``model.mlp_apply``). The
worker linting ``model.py`` reads those files, on demand, when a rule asks for the
contexts of ``mlp_apply``.

An importer counts only when Python, importing from that file, would find this very file
under that module name (two ``model.py`` of two example folders are different modules).
At most ``PER_NAME`` importers per name are kept: enough for the calls that decide a
parameter in real code, without parsing half a library for a widely imported helper.
"""

from __future__ import annotations

import os
from collections import defaultdict

from jaxlint.base.modules import module_path, search_root

from .slicing import FilePlan

PER_NAME = 3
# an entry of the importer's job: its calls of that module's def are judged there
JUDGED = ">"
# an entry of the module's job one step further: a module-level def of one of its importers
# that calls its defs (a *relay*: ``fit`` of ``krr.py`` calling ``gram``), and a file that
# imports that def (``main.py``): where the relay's own parameters get their values
HOP = "+"
_SEP = "\0"


def importers(plans: list[FilePlan]) -> dict[str, frozenset[str]]:
    """path -> the entries ``"name importer_path"`` for the module-level names of the file
    at path that other planned files import and mention (absolute paths), and, for the
    importer, ``">name module_path"``: the module that will judge its calls of ``name``
    (a finding of a def is reported once, in the def's module, see ``parse_judged``)."""
    names: dict[str, set[str]] = {}  # absolute path -> its module-level names
    modules: dict[str, set[str]] = defaultdict(set)  # module name -> the planned files of that name
    for p in plans:
        path = os.path.abspath(p.path)
        # a def's or class's name (a class split into its members has a header unit), and a
        # name module-level code binds (a registry of defs: ``BOUNDARIES = {"wall": ...}``)
        names[path] = {n for u in p.units if u.owner is None and (n := u.name or u.header_of) is not None}
        names[path] |= {n for u in p.units if u.owner is None and u.name is None for n in u.assigns}
        modules[p.module].add(path)
    found_in: dict[tuple[str, str], str | None] = {}  # (root, module) -> the file Python finds
    out: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    # (importer, target) -> the importer's module-level names whose units mention the target's
    relays: dict[tuple[str, str], set[str]] = defaultdict(set)
    for p in sorted(plans, key=lambda p: p.path):
        here = os.path.abspath(p.path)
        root = search_root(here, p.module, os.path.basename(here) == "__init__.py")
        for q, units in sorted(_mentioned(p).items()):
            module, _, name = q.rpartition(".")
            if module not in modules:
                continue
            key = (root, module)
            if key not in found_in:
                at = module_path(root, module)
                found_in[key] = os.path.abspath(at) if at is not None else None
            target = found_in[key]
            if target is None or target == here or target not in modules[module] or name not in names[target]:
                continue
            kept = out[target][name]
            if len(kept) < PER_NAME:
                kept.append(here)
            relays[(here, target)] |= units
    entries: dict[str, set[str]] = defaultdict(set)
    for target, by_name in out.items():
        for name, files in by_name.items():
            for importer in files:
                entries[target].add(f"{name} {importer}")
                # ... and the importer learns that the module judges its calls of ``name``
                entries[importer].add(f"{JUDGED}{name} {target}")
                # ... and where the importer's relays are called, one step further
                for relay in sorted(relays[(importer, target)]):
                    for further in out.get(importer, {}).get(relay, ()):
                        if further != target:
                            entries[target].add(_SEP.join((HOP + importer, relay, further)))
    return {path: frozenset(e) for path, e in entries.items()}


def _mentioned(p: FilePlan) -> dict[str, set[str]]:
    """The qualified names the file's units mention through its imports (a name imported
    from a module and used, or a dotted name whose head is an imported module), each with
    the module-level names of the units that mention it."""
    out: dict[str, set[str]] = defaultdict(set)
    # a method's unit is its class's: ``fit`` calling the module's def makes ``Trainer`` a relay
    classes = {u.start: n for u in p.units if u.owner is None and (n := u.name or u.header_of) is not None}
    for u in p.units:
        name = u.name if u.owner is None else classes.get(u.owner)
        unit = {name} if name is not None else set()
        for ref in u.refs:
            q = p.imports.get(ref)
            if q is not None:
                out[q] |= unit
        for chain in u.chains:
            head, _, rest = chain.partition(".")
            q = p.imports.get(head)
            if q is not None and rest:
                parts = rest.split(".")  # ``pkg.model.f``: any prefix may be the module
                for k in range(len(parts)):
                    out[".".join([q, *parts[: k + 1]])] |= unit
    return out


def parse_entries(entries: frozenset[str] | None) -> dict[str, tuple[str, ...]]:
    """name -> the importer paths, from a job's entries (``importers``)."""
    out: dict[str, list[str]] = defaultdict(list)
    for e in sorted(entries or ()):
        if e.startswith((JUDGED, HOP)):
            continue
        name, _, path = e.partition(" ")
        out[name].append(path)
    return {k: tuple(v) for k, v in out.items()}


def parse_judged(entries: frozenset[str] | None) -> dict[str, frozenset[str]]:
    """module path -> the names of its defs that it judges this file's calls of (this file
    is among their importers: the module's rules evaluate its defs with this file's calls,
    ``contexts(..., importers=True)``), from a job's entries."""
    out: dict[str, set[str]] = defaultdict(set)
    for e in entries or ():
        if e.startswith(JUDGED):
            name, _, path = e[len(JUDGED) :].partition(" ")
            out[path].add(name)
    return {k: frozenset(v) for k, v in out.items()}


def parse_hops(entries: frozenset[str] | None) -> dict[str, dict[str, tuple[str, ...]]]:
    """importer path -> {its relay def: the paths of the files importing that def}, from a
    job's entries: the importers of the importers, where a relay is called."""
    out: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for e in sorted(entries or ()):
        if e.startswith(HOP):
            importer, relay, further = e[len(HOP) :].split(_SEP)
            out[importer][relay].append(further)
    return {path: {name: tuple(files) for name, files in by.items()} for path, by in out.items()}
