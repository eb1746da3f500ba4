"""Call paths across the project: every known way a function runs, with its transform context.

The project-phase half of ``model/calls.py``: the uses every module recorded are joined
by reference (``project.canonical`` follows imports and re-exports to the defining
module), and walked upwards from a function: a use that runs it continues in the scope
of the call, a use that binds it continues with the variable's uses, until a call at
module level (an entry point: module code, ``if __name__ == "__main__":``,
``app.run(main)``) or a function nothing in the project uses (an unknown caller: a
library entry point). Each ``Path`` carries the layers around the function on that path,
innermost first: the maps with the axis names they bind, tracing transforms, ``lax``
bodies. A ``PathSet`` is *complete* when no use on the way was unknown (stored, passed to
unknown code, an unknown decorator, code expected to fail, a cut-off): only then do its
paths say everything about how the function runs. Unknown means silent.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .calls import KEY, REBOUND

MAX_DEPTH = 24


@dataclass
class Path:
    """One known way a function runs: the layers around it and how it is reached."""

    layers: list[dict[str, Any]]  # innermost first: {"api", "kind", "names", "line", "path"}
    trail: list[str]  # function references from the function outwards
    root: dict[str, Any] | None  # the use at module level that starts it; None: an unknown caller
    via: list[dict[str, Any]] = field(default_factory=list)  # the uses followed, from the function outwards

    @property
    def maps(self) -> list[dict[str, Any]]:
        """The maps on the path (``names``: the axis names each binds; None: unreadable)."""
        return [x for x in self.layers if x["kind"] == "map"]

    @property
    def traced(self) -> bool:
        """Are the function's values tracers on this path (under a map, jit, grad, a lax body)?"""
        return bool(self.layers)

    def bound_names(self) -> set[str] | None:
        """The axis names bound on the path; None when a map's names cannot be read."""
        out: set[str] = set()
        for m in self.maps:
            if m["names"] is None:
                return None
            out.update(m["names"])
        return out


@dataclass
class PathSet:
    paths: list[Path] = field(default_factory=list)
    complete: bool = True


class CallPaths:
    """The uses of every module, by canonical reference (see module doc)."""

    def __init__(self, project) -> None:
        self.project = project
        self.uses: dict[str, list[dict[str, Any]]] = {}
        self.decorated: dict[str, Any] = {}
        self.foreign: dict[str, bool] = {}
        self.plain: set[str] = set()  # the classes only their instances' calls run (model/calls.py)
        modules = [m for m in project.all if project.modules.get(m.module) is m and m.extra.get(KEY)]
        # two files with one module name are left out: their references are ambiguous
        rebound = {r: m.module for m in modules for r in m.extra[KEY].get("rebound", ())}
        for m in modules:
            data = m.extra[KEY]
            self.foreign[m.module] = data.get("foreign", False)
            self.plain.update(f"{m.module}.{name}" for name in data.get("plain", ()))
            for u in data["uses"]:
                ref = self.canonical(u["ref"])
                if rebound.get(ref, u["module"]) != u["module"]:
                    ref += REBOUND  # imported after ``f = jax.pmap(f, ...)``: the pmapped value
                self.uses.setdefault(ref, []).append(u)
            for ref, layers in data["decorated"].items():
                self.decorated[self.canonical(ref)] = layers
        for v in self.uses.values():
            v.sort(key=lambda u: (u["path"], u["order"]))

    def canonical(self, ref: str) -> str:
        return self.project.canonical(ref) or ref

    def paths(self, ref: str, limit: int = 200) -> PathSet:
        """Every known path by which the function ``ref`` runs (at most ``limit``)."""
        out = PathSet()
        for path in self._explore(self.canonical(ref), [], [], frozenset(), out):
            if len(out.paths) >= limit:
                out.complete = False
                break
            out.paths.append(path)
        return out

    def _explore(self, ref: str, layers, trail, seen: frozenset[str], out: PathSet, via=()) -> Iterator[Path]:
        if ref in seen:
            return  # recursion: the path is already being followed
        if len(seen) > MAX_DEPTH:
            out.complete = False
            return
        seen = seen | {ref}
        if ref in self.decorated:
            dec = self.decorated[ref]
            if dec is None:
                out.complete = False
                return
            layers = layers + dec
        trail = [*trail, ref]
        uses = self.uses.get(ref, [])
        if not uses:
            if self._under_foreign_transforms(ref):
                out.complete = False
            else:
                yield Path(layers, trail, None, list(via))
            return
        for u in uses:
            yield from self._continue(u, layers, trail, seen, out, via)

    def _continue(self, u, layers, trail, seen, out: PathSet, via=()) -> Iterator[Path]:
        """The paths that go on from one use of the function at the end of ``trail``."""
        if u["guarded"] or u["kind"] == "unknown":
            out.complete = False
            return
        more = layers + u["layers"]
        via = (*via, u)
        if u["kind"] == "run":
            if u["scope"] is None:
                yield Path(more, trail, u, list(via))
            else:
                yield from self._explore(self.canonical(u["scope"]), more, trail, seen, out, via)
        elif u["kind"] == "bind" and u["var"]:
            yield from self._explore(self.canonical(u["var"]), more, trail, seen, out, via)
        elif u["kind"] == "return" and u["scope"]:
            yield from self._returned(self.canonical(u["scope"]), more, trail, seen, out, via, u.get("index"))
        else:
            out.complete = False

    def _returned(
        self, factory: str, layers, trail, seen, out: PathSet, via=(), index: int | None = None
    ) -> Iterator[Path]:
        """A closure the function ``factory`` returns runs where the results of its calls go
        (``index``: it is that item of the tuple returned, and goes where the name an
        unpacking of the result binds at that position goes)."""
        if factory in seen or self.decorated.get(factory, []) != []:
            out.complete = False  # a decorator (known or not) may wrap what it returns
            return
        calls = self.uses.get(factory, [])
        if not calls:
            yield Path(layers, trail, None, list(via))  # nothing here calls the factory: an unknown caller
            return
        seen = seen | {factory}
        for c in calls:
            if c["kind"] != "run" or c["guarded"] or "result" not in c:
                out.complete = False
                continue
            result = c["result"]
            if index is not None:
                names = result["vars"] if result["kind"] == "unpack" and not result["guarded"] else []
                if index >= len(names) or not names[index]:
                    out.complete = False
                    continue
                result = {**result, "kind": "bind", "var": names[index]}
            yield from self._continue(result, layers, trail, seen, out, (*via, c))  # the factory's call too

    def applied(self, ref: str) -> list[list[dict[str, Any]]]:
        """The layers around the function ``ref``'s own value up to where it runs, once per
        use: its decorators and the transforms its value passes, through the variables it is
        bound to, up to the call or ``lax`` body that runs it (``g = jax.jit(f)`` in another
        module: ``[jit]``; ``f(x)`` inside a jitted function: ``[]``, its values are the
        caller's). A layer's ``traces``: its function sees abstract tracers; ``plain``: it
        passes each argument on as it is (no ``static_argnums``, ``in_axes``, ``partial``).
        Uses expected to fail (``pytest.raises``) are left out."""
        ref = self.canonical(ref)
        decorators = self.decorated.get(ref, [])
        out: list[list[dict[str, Any]]] = []
        if decorators is not None:
            self._applied(ref, list(decorators), frozenset(), out)
        return out

    def _applied(self, ref: str, layers, seen: frozenset[str], out, bound: bool = False) -> None:
        """``bound``: a ``partial`` bound some arguments on the way (``g = partial(f, x)``):
        the layers after it are not plain."""
        if ref in seen or len(seen) > MAX_DEPTH:
            return
        for u in self.uses.get(ref, []):
            if u["guarded"]:
                continue
            more = layers + ([dict(x, plain=False) for x in u["layers"]] if bound else u["layers"])
            out.append(more)
            if u["kind"] == "bind" and u["var"]:
                self._applied(self.canonical(u["var"]), more, seen | {ref}, out, bound or bool(u.get("partial")))

    def _under_foreign_transforms(self, ref: str) -> bool:
        """A method nothing here calls, in a module using flax/haiku/...: their module
        transforms may run it under maps the model cannot see; not a method of a plain class
        (no library base: only its instances' calls run it)."""
        f = self.project.function(ref)
        if f is None or f[1].class_name is None:
            return False
        m = self.project.module_of(ref)
        if m is not None and f"{m.module}.{f[1].class_name}" in self.plain:
            return False
        return m is None or self.foreign.get(m.module, True)


def call_paths(project) -> CallPaths:
    """The project's call paths (built once per project phase, shared by every rule)."""
    found = getattr(project, "_call_paths", None)
    if found is None:
        found = CallPaths(project)
        project._call_paths = found
    return found
