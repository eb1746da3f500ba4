"""Build the program model of a source string, and find nodes in it by their text."""

from __future__ import annotations

import textwrap

import libcst as cst

from jaxlint.lint.engine import walk_events
from jaxlint.model import Program, program
from jaxlint.model.context import FileContext
from jaxlint.model.facts import collect_facts


def model_of(source: str) -> Program:
    source = textwrap.dedent(source)
    module = cst.parse_module(source)
    events, parents = walk_events(module)
    names, facts, qualnames = collect_facts("m.py", module, events, "m", False)
    ctx = FileContext("m.py", source, module, names, facts, qualnames, parents, None, events)
    return program(ctx)


def def_named(p: Program, name: str) -> cst.FunctionDef:
    """The one def of the source named ``name``."""
    (found,) = [n for n in p.ctx.nodes_of(cst.FunctionDef) if n.name.value == name]
    return found


def line_of(p: Program, node: cst.CSTNode) -> int:
    from jaxlint.base.positions import node_ranges

    return node_ranges(p.ctx.module, [node], p.ctx.parents, p.ctx.source)[node][0][0]


def reads(p: Program, name: str) -> list[cst.Name]:
    """Every read of ``name``, in text order."""
    return list(p._reads_by_name.get(name, []))


def read_at(p: Program, name: str, line: int) -> cst.Name:
    found = [r for r in reads(p, name) if line_of(p, r) == line]
    assert len(found) == 1, (name, line, len(found))
    return found[0]


def binding_lines(p: Program, name: str, line: int) -> list[int]:
    """Lines of the bindings reaching the read of ``name`` on ``line``, sorted."""
    out = []
    for b in p.reaching(read_at(p, name, line)):
        node = b.node
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            node = node.name
        out.append(line_of(p, node))
    return sorted(out)


def value_of(source: str, name: str = "result"):
    """The abstract value of module-level ``name`` (its last assignment)."""
    p = model_of(source)
    b = p.module_scope.bindings[name][-1]
    return p.evaluator.value(b.value, None)


def returned_items(source: str, name: str) -> tuple:
    """The items of the tuple the module-level def ``name`` returns, in its default frame
    (its parameters as their calls, or their annotations, give them)."""
    from jaxlint.model.contexts import default_frame

    p = model_of(source)
    fn = p.module_scope.bindings[name][0].node
    ev = p.evaluator
    return ev.returned(ev.value(fn, None), default_frame(ev, fn)).items


def map_records(source: str, api: str = "jax.vmap"):
    """Every evaluated call of each ``api`` application, in text order: [[MapCall, ...], ...]."""
    from jaxlint.model.mapsites import map_sites

    p = model_of(source)
    return [[e.record for e in site.calls] for site in map_sites(p, api)]


def project_model(sources: dict[str, str], main: str, importers: dict[str, tuple[str, ...]] | None = None) -> Program:
    """The program of module ``main`` whose world loads the other modules of ``sources``
    (module name -> source) on demand, as a lint of the whole project does. ``importers``:
    def name of ``main`` -> the modules that import it (jaxlint.plan.importers)."""
    from jaxlint.model.evaluate import World

    contexts = {}

    def ctx_of(name: str):
        source = textwrap.dedent(sources[name])
        module = cst.parse_module(source)
        events, parents = walk_events(module)
        names, facts, qualnames = collect_facts(f"{name}.py", module, events, name, False)
        return FileContext(f"{name}.py", source, module, names, facts, qualnames, parents, None, events)

    def load(name: str, world) -> Program | None:
        if name not in sources:
            return None
        if name not in contexts:
            contexts[name] = Program(ctx_of(name), world)
        return contexts[name]

    world = World(load, lambda path, world: load(path[: -len(".py")], world))
    ctx = ctx_of(main)
    ctx.importers = {k: tuple(f"{m}.py" for m in v) for k, v in (importers or {}).items()}
    p = Program(ctx, world)
    world.home = (main, p)
    ctx.shared["model"] = p
    contexts[main] = p
    return p


def model_with_stubs(source: str, path: str = "/nonexistent/m.py") -> Program:
    """The program of ``source`` whose world reads jaxlint's library stubs (and no project
    module: the file sits nowhere), as a lint does."""
    from jaxlint.lint.imports import Imports, ModuleReader

    source = textwrap.dedent(source)
    module = cst.parse_module(source)
    events, parents = walk_events(module)
    names, facts, qualnames = collect_facts(path, module, events, "m", False)
    ctx = FileContext(path, source, module, names, facts, qualnames, parents, None, events)
    ctx.load_module = Imports(ModuleReader(), path, "m", False).load
    return program(ctx)
