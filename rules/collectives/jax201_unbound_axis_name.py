from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import libcst as cst

from jaxlint.base.types import Pending
from jaxlint.lint.rule import Invalid, Rule
from jaxlint.lint.wording import HEADLINE, notes, worded
from jaxlint.model import program
from jaxlint.model.axes import names_of
from jaxlint.model.binders import parameter_of
from jaxlint.model.calls import expects_error, scope_ref, uses
from jaxlint.model.paths import Path, call_paths
from jaxlint.model.vocabulary import module_vocabulary

from .analysis import (
    COLLECTIVES,
    Site,
    Vocabulary,
    axis_argument,
    collective_site,
    local_name,
    site_names,
    site_names_from_importers,
    where,
)

MAX_PATHS = 200
REDUCTIONS = frozenset({"psum", "pmean", "pmax", "pmin", "all_gather"})


class UnboundAxisName(Rule):
    """
    ## What it does
    Reports a collective (`lax.psum`, `pmean`, `pmax`, `pmin`, `all_gather`, `all_to_all`,
    `ppermute`, `psum_scatter`, `pshuffle`, `axis_index`, …) whose axis name is not bound
    on some path by which the code runs:
    - the collective is in module-level code, or in a function that module-level code
      calls directly (also through `jit`, `grad` or helpers), outside any map;
    - the function is mapped only by maps that do not bind that name: a `pmap` or `vmap`
      without `axis_name` (this folds in the planned JAX202 *pmap-axis-name-missing*), with
      a different name, or a `shard_map` whose mesh axes are known and do not include it;
    - or, where no path is known (a mesh passed in as a parameter, a step handed to a
      trainer library) or a map's axis name is a config field built out of sight
      (`axis_name=cfg.axis_name`, the field declared with a default), no binding site
      anywhere in the project names that axis: no config field, constant or default
      about axes holding it, no
      `pmap`/`vmap` `axis_name`, no `Mesh`/`jax.make_mesh` axis (also none given to a
      project helper that builds the mesh from its arguments: `create_mesh((8,), 'x')`),
      no `PartitionSpec` (`jax.P`), no `shard_map` spec, no flax logical-axis rule, and no
      mesh-axis list in the project's YAML/JSON/TOML configuration files (with "did you
      mean 'fsdp'?" when a bound name is one or two edits away).

    Axis names are values, as the program model evaluates them: a string, a module or
    class constant, a local `ax = "devices"`, a field of a frozen config dataclass
    (`cfg.axis_name`), a default, an argument bound by `functools.partial`, an f-string of
    constants, a tuple of them, a parameter that every visible call gives the same name, or
    a parameter of the factory the def is a closure of (`make_step(axis="ring")` returning
    `step`: what each call of the factory gives it, else its default, also in another
    module), or a field of such a parameter (`lax.pmean(g, cfg.data_axis)` in the step
    `make_train_step(cfg)` returns: the field of the config object the call gives).

    Bindings are followed through `jax.pmap`/`jax.vmap` (`axis_name=`, `spmd_axis_name=`),
    `jax.shard_map` with a readable mesh (`Mesh(devices, ('x',))`, `jax.make_mesh`, a
    module-level mesh), `jax.smap`, decorators and `functools.partial(jax.pmap, ...)`,
    nested maps, helpers called from mapped functions, `lax.scan`/`jax.tree.map` bodies,
    a def rebound to its own pmap (`step = jax.pmap(step, ...)`, then `step(...)`, also
    imported by another module: the program model tells the def from the pmapped value),
    defs chosen by an `if`/`else` (each one), closures returned by factories
    (`jax.pmap(make_step(), ...)`), `self.method(...)` inside a class, a map kept on
    `self` in one method and called in another (`self.step = jax.pmap(train, ...)`,
    assigned once in the class), and other modules of the project (the program model's
    call paths); meshes are values too, through names, attributes and parameters. An axis
    name passed in as a parameter no visible call gives, a computed string, a function
    that nothing in the project calls or maps (a library entry point), methods nothing
    calls, and functions handed to unknown code (`nn.vmap`, `hk.pmap`,
    `make_jaxpr(axis_env=...)`) are unknown and never reported; a `shard_map` over a mesh
    that cannot be read runs over some mesh of the project, so only the vocabulary decides. Code inside
    `with self.assertRaises(...)`/`pytest.raises(...)` is expected to fail and is skipped.

    ## Why is this bad?
    Axis names only exist inside the map that binds them. JAX raises
    `NameError: unbound axis name: devices` (or "Found an unbound axis name: devices. To
    fix this, please call psum under `jax.shard_map`", also for `pmean`), and only when the
    code runs, often after data loading and compilation. Under `jax.shard_map` a `psum`
    or `pmean` over a name missing from the mesh fails with a bare `AssertionError`.

    ## Example
    ```python
    parallel_grad = jax.pmap(compute_grad, in_axes=(None, 0, 0))

    def train_step(params, xs, ys):
        grads = parallel_grad(params, xs, ys)
        grads = jax.lax.pmean(grads, axis_name="devices")  # NameError when run
        return params - 0.01 * grads

    params = train_step(params, xs, ys)
    ```

    ## Use instead
    ```python
    def step(params, xs, ys):
        grads = compute_grad(params, xs, ys)
        return jax.lax.pmean(grads, axis_name="devices")

    parallel_step = jax.pmap(step, axis_name="devices", in_axes=(None, 0, 0))
    ```
    or reduce the per-device results on the host: `jnp.mean(grads, axis=0)`.

    ## References
    - [jax.pmap](https://docs.jax.dev/en/latest/_autosummary/jax.pmap.html)
    - [Named axes and collectives (`jax.lax.psum`)](https://docs.jax.dev/en/latest/_autosummary/jax.lax.psum.html)
    - [Manual parallelism with shard_map](https://docs.jax.dev/en/latest/notebooks/shard_map.html)
    - [Migrating from pmap](https://docs.jax.dev/en/latest/migrate_pmap.html)
    """

    code = "JAX201"
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    name = "unbound-axis-name"
    summary = "Collective over an axis name that no enclosing pmap, vmap or shard_map binds"
    help = "Run the collective inside a pmap/vmap/shard_map that binds its axis name, or reduce on the host"
    # map words too: files that only map or call a function hold the paths to judge it
    about = tuple(f"jax.lax.{c}" for c in COLLECTIVES)
    # and the words of the binding sites the project's axis vocabulary reads (model/vocabulary.py)
    context_words = (
        "pmap",
        "vmap",
        "shard_map",
        "smap",
        "axis_name",
        "axis_env",
        "_axis",  # a config field or constant that names an axis: ``data_axis: str = "replicas"``
        "axes",
        "Mesh",
        "mesh",
        "PartitionSpec",
        "partitioning",
        "axis_rules",
        "_specs",
    )
    # which pmap/vmap/shard_map reaches the collective: up the call graph, also through a
    # module that spells none of the rule's words (``main`` calling a jitted ``evaluate``
    # of another module, whose helper holds the collective: project anchors)
    reads = ("call graph", "call paths", "project anchors")

    @classmethod
    def seeds(cls, outline):
        """Units calling a collective with an axis name the rule can read (a string, or a
        module-level name); calling through a module-level alias always counts."""
        from .seeds import collective_seeds

        return collective_seeds(outline)

    VALID = (
        # the seed, corrected: pmean inside the pmapped step
        (
            "import jax\n"
            "def step(p, x):\n"
            "    return jax.lax.pmean(jax.grad(loss)(p, x), axis_name='devices')\n"
            "pstep = jax.pmap(step, axis_name='devices', in_axes=(None, 0))\n"
            "g = pstep(params, xs)\n"
        ),
        # decorator form and nested maps: names accumulate
        (
            "import jax\nfrom functools import partial\nfrom jax import lax\n"
            "@partial(jax.pmap, axis_name='i')\n"
            "def f(x):\n"
            "    return jax.vmap(lambda y: lax.psum(y, ('i', 'j')), axis_name='j')(x)\n"
            "f(xs)\n"
        ),
        # the axis name is a parameter no visible call gives: unknown
        "from jax import lax\ndef sync(x, axis):\n    return lax.pmean(x, axis)\n",
        # a library entry point nothing in the project calls or maps, whose axis the project's mesh names
        (
            "import jax\nfrom jax import lax\nmesh = jax.make_mesh((4,), ('batch',))\n"
            "def all_reduce(x):\n    return lax.psum(x, 'batch')\n"
        ),
        # shard_map over a mesh that has the axis
        (
            "import jax\nfrom jax.sharding import Mesh, PartitionSpec as P\n"
            "mesh = Mesh(jax.devices(), ('x',))\n"
            "f = jax.shard_map(lambda v: jax.lax.psum(v, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())\n"
            "f(v)\n"
        ),
    )
    INVALID = (
        (
            ("import jax\ndef train_step(g):\n    return jax.lax.pmean(g, axis_name='devices')\ng = train_step(g)\n"),
            Invalid(
                "JAX201",
                line=3,
                message="`train_step` is called directly at line 4",
            ),
        ),
        (
            ("import jax\nfrom jax import lax\nf = jax.pmap(lambda x: lax.psum(x, 'devices'))\nf(xs)\n"),
            Invalid("JAX201", line=3, message="the pmap at line 3 binds no axis name"),
        ),
        (
            ("import jax\nfrom jax import lax\nf = jax.pmap(lambda x: lax.psum(x, 'devices'), axis_name='batch')\n"),
            Invalid("JAX201", line=3, message="binds 'batch', not 'devices'"),
        ),
        (
            "from jax import lax\nidx = lax.axis_index('i')\n",
            Invalid("JAX201", line=2, message="at module level"),
        ),
        # the axis name as a value: a local constant, a config dataclass field
        (
            "import jax\nfrom jax import lax\ndef step(x):\n    ax = 'devices'\n    return lax.psum(x, ax)\n"
            "jax.pmap(step, axis_name='batch')(xs)\n",
            Invalid("JAX201", line=5, message="binds 'batch', not 'devices'"),
        ),
        # nothing the model sees calls it, but no binding in the project names the axis
        (
            "import jax\nfrom jax import lax\nmesh = jax.make_mesh((2, 4), ('data', 'fsdp'))\n"
            "def shard_grads(g):\n    return lax.psum(g, 'fsdpp')\n",
            Invalid("JAX201", line=5, message="did you mean 'fsdp'?"),
        ),
    )

    def __init__(self, ctx, options=None) -> None:
        super().__init__(ctx, options)
        self.partials = 0

    # -- collection --------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        site = collective_site(self.ctx, node)
        if site is None:
            return
        if site.partial:
            self.partials += 1
            ref = self.ctx.facts.ref(f"<partial:{self.partials}>")
            self._collective(node, site, scope=ref)
            uses(self.ctx).track(ref, node)  # where the partial runs is where the collective runs
            return
        self._collective(node, site, scope_ref(self.ctx, node))

    def _collective(self, node: cst.Call, site: Site, scope: str | None) -> None:
        names = site_names(self.ctx, node, site)
        param = None
        given = None
        if not names:
            # a parameter of the def: each call that runs it gives the name (project phase);
            # and what the calls of the files importing its def give it, when the paths
            # cannot say (a field of a config object made there)
            param = self._parameter(node, site) if scope is not None else None
            imported, at = site_names_from_importers(self.ctx, node, site)
            given = [*at, list(imported)] if imported and at else None
            if param is None:
                if not imported:
                    return
                names = imported
        data = {
            "names": list(names or ()),
            "param": param,
            "given": given,
            "api": site.shown,
            "short": site.short,
            "scope": scope,
            "module": self.ctx.facts.module,
            "guarded": expects_error(self.ctx, node),
        }
        self.pending(node, data)

    def _parameter(self, node: cst.Call, site: Site) -> list[Any] | None:
        """``[position, name]`` of the parameter of the def around the collective that is
        its axis name (``def batch_norm(x, axis_name): ... lax.pmean(m, axis_name)``)."""
        fn = self.ctx.enclosing_function(node)
        arg = axis_argument(site)
        if fn is None or arg is None:
            return None
        if isinstance(fn, cst.Lambda):
            root = arg
            while type(root) is cst.Attribute:
                root = root.value  # ``cfg.axis_name``: the name ``cfg``
            if type(root) is not cst.Name or any(
                b.kind == "param" and b.scope.node is fn for b in program(self.ctx).reaching(root)
            ):
                return None  # the lambda's own parameter: whatever calls it gives
        else:
            found = parameter_of(program(self.ctx), fn, arg)
            if found is not None:
                return list(found)
        # a parameter of the def the function is written in: a factory's closure
        # (``make_ring_step(n, axis="ring")`` returning ``step``), or a lambda it runs
        # (``tree_map(lambda t: lax.pmean(t, axis_name), tree)``): what each call of that
        # def gives it, else its default
        outer = self.ctx.enclosing_function(fn)
        while type(outer) is cst.FunctionDef:
            found = parameter_of(program(self.ctx), outer, arg)
            qualname = self.ctx.qualname(outer)
            if found is not None and qualname is not None:
                return [*found, self.ctx.facts.ref(qualname), _default_names(self.ctx, outer, found[1])]
            outer = self.ctx.enclosing_function(outer)
        return None

    def finish(self) -> None:
        """The axis names this module's binding sites mention (the project's vocabulary)."""
        self.ctx.extra(self.code).update(module_vocabulary(program(self.ctx), frozenset(COLLECTIVES)))

    # -- project phase -----------------------------------------------------------------
    @classmethod
    def resolve(cls, items: list[Pending], project) -> Iterable[tuple[Pending, str, str]]:
        paths = call_paths(project)
        vocabulary: Vocabulary | None = None
        for p in items:
            d = p.data
            if d["guarded"]:
                continue
            if d["scope"] is not None and project.modules.get(d["module"]) is not project.by_path.get(p.path):
                continue
            found = _first_unbound(paths, d, p)
            if found is None and d.get("param") is not None and d.get("given"):
                given = {**d, "names": d["given"][2], "param": None}
                found = _first_unbound(paths, given, p)
                d = given if found is not None else d
            if found is not None:
                path, name = found
                head, note = _message(d["api"], d["short"], name, path, p.path)
                if d.get("param") is not None:
                    note = notes(_passed_by(d, path, name, p.path, paths.canonical), note)
                elif d.get("given"):
                    read, at = d["given"][:2]
                    note = notes(f"The axis name is `{read}`: '{name}' in the call at line {at}", note)
                yield p, head, note
                continue
            if d.get("param") is not None:
                continue  # its names are the calls' on each path: none for the vocabulary
            if d["scope"] is not None and (_maybe_bound(paths, d) or _runs_where_expected(paths, d["scope"])):
                continue
            if vocabulary is None:
                vocabulary = Vocabulary(project, paths, cls.code)
            missing = [n for n in d["names"] if n not in vocabulary.names]
            if missing:
                yield p, *_unmentioned(d["api"], d["short"], missing[0], vocabulary.closest(missing[0]))


def _first_unbound(paths, d: dict[str, Any], p: Pending) -> tuple[Path, str] | None:
    """One known path on which an axis name of the collective is not bound: its own names,
    or, when its axis name is its def's parameter, those the call that runs the def gives
    on that path."""
    if d["scope"] is None:  # at module level: no map around it
        return Path([], [], {"path": p.path, "line": p.start.line, "module_level": True}), d["names"][0]
    for path in paths.paths(d["scope"], MAX_PATHS).paths:
        names = d["names"] if d.get("param") is None else _passed(path, d["param"], paths.canonical)
        if not names:
            continue  # the path's call gives the parameter no name as a value
        if path.root is None and not path.maps:
            continue  # an unknown caller, and no map here: it may bind the name
        bound = path.bound_names()
        if bound is None:
            continue  # a map whose names cannot be read may bind it
        for name in names:
            if name not in bound:
                return path, name
    return None


def _passed(path: Path, param: list[Any], canonical=None) -> list[str] | None:
    """The axis names the call that runs the def on this path gives the parameter (by
    keyword, or by position); None when the path does not start with a direct call, or
    the call gives it no name as a value. A factory's parameter (``param``'s third and
    fourth items: the factory, the names of its default): what the call of the factory on
    the path gives it, else that default."""
    # a factory's parameter: its call on the path; else the call that runs the def
    first = _factory_call(path, param[2], canonical) if len(param) > 2 else (path.via[0] if path.via else None)
    if first is not None and first["kind"] == "return" and len(param) == 2:
        first = {"names": first.get("names", ())}  # a partial a factory returns: what it binds
    elif first is None or first["kind"] != "run":
        return None
    given = dict(first.get("names", ()))
    position, name = param[0], param[1]
    base, dot, field = name.partition(".")  # ``cfg.data_axis``: a field of the object given as ``cfg``
    got = given.get(name)
    if got is None and position >= 0:
        got = given.get(f"{position}{dot}{field}")
    if got is None and len(param) > 2 and not _gives_more(first, position, base):
        return param[3] or None
    return got


def _factory_call(path: Path, factory: str, canonical) -> dict[str, Any] | None:
    """The call of the factory (by canonical reference) among the path's uses: where the
    closure the collective is in was made."""
    return next((u for u in path.via if u["kind"] == "run" and canonical(u.get("ref", "")) == factory), None)


def _gives_more(call: dict[str, Any], position: int, name: str) -> bool:
    """May the factory's call give the parameter an argument that is no axis name as a
    value (its positions and keywords are recorded only for those that are)?"""
    return bool(call.get("spread")) or position < call.get("positional", 0) or name in call.get("keywords", ())


def _default_names(ctx, fn: cst.FunctionDef, name: str) -> list[str]:
    """The axis names the default of ``fn``'s parameter ``name`` holds, as a value (or
    its field's, for ``cfg.data_axis``)."""
    base, _, fields = name.partition(".")
    for param in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params):
        if param.name.value == base and param.default is not None:
            ev = program(ctx).evaluator
            v = ev.value(param.default, None)
            for field in fields.split(".") if fields else ():
                v = ev.attribute(v, field)
            return list(names_of(v) or ())
    return []


def _passed_by(d: dict[str, Any], path: Path, name: str, here: str, canonical=None) -> str:
    param = d["param"]
    if len(param) > 2:  # a parameter of the factory the def is a closure of
        factory = param[2]
        call = _factory_call(path, factory, canonical)
        assert call is not None  # the path's names came from it (_passed)
        at = where(call, here)
        base, _, field = param[1].partition(".")
        given = name not in param[3] or base in call.get("keywords", ())
        if field:  # ``cfg.data_axis``: a field of the object the call gives
            how = (
                f"gives an object whose `{field}` is '{name}'"
                if given
                else f"leaves at its default, whose `{field}` is '{name}'"
            )
            return (
                f"The axis name is `{param[1]}`, a field of `{base}`, the parameter of "
                f"`{factory.rsplit('.', 1)[-1]}`, which its call {at} {how}"
            )
        how = f"gives as '{name}'" if given else f"leaves at its default '{name}'"
        return (
            f"The axis name is `{param[1]}`, the parameter of `{factory.rsplit('.', 1)[-1]}`, which its call {at} {how}"
        )
    first = path.via[0]
    caller = local_name(path.trail[1]) if len(path.trail) > 1 else "module-level code"
    if first["kind"] == "return":  # a partial the factory returns binds it
        caller = f"the `partial` that `{first['scope'].rsplit('.', 1)[-1]}` returns"
    where_ = "" if first["path"] == here else f" in {os.path.basename(first['path'])}"
    base, _, field = d["param"][1].partition(".")
    if field:
        return (
            f"The axis name is `{d['param'][1]}`, a field of the parameter `{base}`, which {caller}{where_} "
            f"gives an object whose `{field}` is '{name}'"
        )
    return f"The axis name is the parameter `{d['param'][1]}`, which {caller}{where_} gives as '{name}'"


def _maybe_bound(paths, d: dict[str, Any]) -> bool:
    """Does a known path of the collective pass a map whose axis names cannot be read
    (``axis_name=FLAGS.axis``)? Then that map may bind the name: the vocabulary does not
    decide it. A ``shard_map`` over the ambient mesh is no such map: its axes are those of
    some mesh the program builds, which the vocabulary reads; nor is a map whose axis name
    is a config field with a declared default (model/calls.py: ``"ambient"``)."""
    return any(
        m["names"] is None and not m.get("ambient")
        for path in paths.paths(d["scope"], MAX_PATHS).paths
        for m in path.maps
    )


def _runs_where_expected(paths, ref: str, limit: int = 64) -> bool:
    """Is the function used, on some way up from it, where an error is expected
    (``with pytest.raises(NameError): f(x)``)? Then the unbound name is the point."""
    todo, seen = [paths.canonical(ref)], set[str]()
    while todo and len(seen) < limit:
        r = todo.pop()
        if r in seen:
            continue
        seen.add(r)
        for u in paths.uses.get(r, ()):
            if u["guarded"]:
                return True
            nxt = u["scope"] if u["kind"] in ("run", "return") else u["var"] if u["kind"] == "bind" else None
            if nxt:
                todo.append(paths.canonical(nxt))
    return False


def _unmentioned(api: str, short: str, name: str, close: str | None) -> tuple[str, str]:
    head = f"`{api}` uses axis name '{name}', which no map or mesh of the project names"
    why = (
        "No pmap, vmap, shard_map, mesh, PartitionSpec or axis-rule configuration of the project mentions"
        f" '{name}', so it is unbound wherever this runs"
    )
    if close:
        return worded(head, f"did you mean '{close}'?", why)
    return worded(head, "", why, "use the axis name of the map that runs this code")


def _quote(names) -> str:
    return ", ".join(f"'{n}'" for n in names)


def _message(api: str, short: str, name: str, path: Path, here: str) -> tuple[str, str]:
    """(headline, note): what the collective names, and what is around it instead."""
    head = f"`{api}` uses axis name '{name}'"
    host = "or reduce on the host (e.g. `jnp.mean(x, axis=0)`)" if short in REDUCTIONS else "or drop the collective"
    bind = f"call the collective inside the function you map with `jax.pmap(..., axis_name='{name}')`"
    if path.root is not None and path.root.get("module_level"):
        return worded(
            f"{head} at module level, where no pmap/vmap/shard_map binds it",
            f"move it into a function mapped with `jax.pmap(..., axis_name='{name}')`, {host}",
        )
    if not path.maps:
        first, last = local_name(path.trail[0]), local_name(path.trail[-1])
        at = where(path.root, here) if path.root else "somewhere"
        if first == last:
            how = f"{first} is called directly {at}"
        elif len(path.trail) == 2:
            how = f"{first} runs from {last}, which is called directly {at}"
        else:  # name the function it runs in: the jitted ``evaluate`` between it and ``main``
            how = f"{first} runs from {local_name(path.trail[1])}, reached from {last}, which is called directly {at}"
        outside = "it runs outside any pmap/vmap/shard_map"
        advice = f"{bind} (or `jax.shard_map` over a mesh with a '{name}' axis), {host}"
        if len(head) + len(how) + 24 <= HEADLINE:
            return f"{head}, but nothing binds it: {how}", notes(outside, advice)
        return f"{head}, but nothing binds it", notes(f"{how}, so {outside}", advice)
    descs = []
    for m in path.maps:
        loc = f"the {m['api']} {where(m, here)}"
        if m["api"] == "shard_map":
            descs.append(f"{loc} runs over mesh axes {_quote(m['names'])}")
        elif m["names"]:
            descs.append(f"{loc} binds {_quote(m['names'])}")
        else:
            descs.append(f"{loc} binds no axis name")
    if len(path.maps) == 1:
        m = path.maps[0]
        if m["api"] == "shard_map":
            return worded(
                f"{head}, but {descs[0]}, which do not include it",
                f"use an axis of that mesh, or add '{name}' to the mesh",
            )
        if m["names"]:
            return worded(
                f"{head}, but {descs[0]}, not '{name}'",
                f"use the same axis name in the {m['api']} and the collective",
            )
        option = f"axis_env=[('{name}', size)]" if m["api"] == "make_jaxpr" else f"axis_name='{name}'"
        return worded(f"{head}, but {descs[0]}", f"pass `{option}` to that {m['api']}")
    return worded(
        f"{head}, but none of the maps around it binds it",
        f"bind '{name}' in one of them",
        "; ".join(descs)[:1].upper() + "; ".join(descs)[1:],
    )
