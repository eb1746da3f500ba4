"""Parse only what the rules can see: blank the defs no enabled rule can find anything in.

LibCST's parse is the cost of a lint run, and most of a large file (a test class with
hundreds of methods, a library module) never mentions a name any enabled rule looks
for. A cheap first pass reads every file with the stdlib ``ast`` (``jaxlint.plan.outline``)
and plans, per *unit* (a top-level statement or a member of a top-level class), whether
LibCST must see it. Kept are:

1. every statement that is not a def or class (imports, aliases, module code, class
   attributes), every def with an import inside (imports bind file-wide) or whose name
   an import also binds, with a ``# jaxlint: ignore`` comment before or in it, every
   constructor of a class (``__init__``, ``__post_init__``, ``__new__``: what an instance
   holds when made), and the first statement after the docstring (new imports are
   inserted before it);
2. the *seeds*: units a rule's ``seeds`` select (their code names one of its anchors as
   ``jaxlint.base.names`` would resolve it, ``jax.vmap`` but not ``nnx.vmap``, or this
   file's alias of one);
3. every def or module-level name a seed hands to a transform, ``partial``, an anchor or
   ``defvjp``, in the same module or, through the imports, in another module
   (``grad(loss_fn)`` keeps ``loss_fn`` wherever it is defined; ``jnp.ones(3)`` or
   ``helper(f)`` keep nothing; ``grad(self.loss)`` the member of the method's class,
   ``grad(Model.loss)`` / ``grad(model.loss)`` every member ``loss`` of the module's classes); through module-level ``step = jit(train)`` or an alias
   ``f = lax.dot``, what that names; and the defs of the module that the decorators of a
   seed or of such a def name (``@jax.custom_vjp @logged def f``: the wrapper ``logged``);
   for a seed that is a method, its class's constructor (what ``self.x`` holds);
4. for rules with ``callers = "all"`` (JAX201), every unit that refers to one of their
   seeds, transitively, in any module (the callers of the function with the ``pmean``);
   with ``callers = "direct"`` (the vmap and pmap rules), the units of the same module
   that refer to a seed, transitively (the calls of a ``@vmap`` function, and the calls
   of the function making them: the contexts its arguments come from), the methods of a
   seed's class that read an attribute the seed stores on ``self`` (``self.f = vmap(g)``
   in ``__init__`` is called as ``self.f(x)`` in ``__call__``), and the defs any of those
   refers to, transitively, in its module or another (where a vmapped value passed on is
   called, the helpers that build the arguments: ``sample_targets`` of the pmap's module
   that a caller elsewhere calls), ``MODULE_DEPTH`` steps at most;
5. for rules with ``target_transforms`` (JAX405), every unit of the same module that
   refers to a def a seed names and mentions one of those transforms
   (``jit(loss_fn, static_argnums=...)``);
6. for rules with ``forwarders`` (the vmap rules), every def that calls one of its
   parameters with its ``*args`` (``def apply(fn, *args): return fn(*args)``);
7. for rules with ``target_callees`` (JAX4xx, JAX503), the defs of a seed's targets' module
   that those targets refer to, transitively, ``MODULE_DEPTH`` steps at most (the helper that
   builds what a grad target returns), and the defs of other modules a seed or its
   targets refer to, looked up there (the helper a jitted step calls with its traced
   gradients, also from a method jitted as ``jax.jit(self._train_step)``), with the
   defs of their module they refer to, transitively (the formatter a logging helper calls);
8. what fills, at import, a module-level name a kept unit reads: the defs that mention it
   and decorate module-level defs or classes, with those (a registry: ``@register("poly")
   def make_poly`` whose decorator stores into ``_KERNELS``).

Only module-level statements that bind a transform are followed further than one step
(``step = jit(train)`` then ``grad(step)`` keeps ``train``): no rule reads what a
referred-to def itself calls.

The other units become empty lines, so every kept line keeps its number and columns:
positions, fixes and suppressions are those of the original file. A rule must only
look at what this keeps (see docs/writing-rules.md, "What a rule may read").
"""

from __future__ import annotations

import bisect
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field

from jaxlint.plan.outline import CONFLICT, Outline, Unit, outline, split_lines

SUPPRESSION = re.compile(r"#\s*jaxlint\s*:\s*ignore", re.IGNORECASE)

# flags of a planned unit
ALWAYS, SEED, CALLER_SEED, DIRECT_CALLER_SEED, TARGET_SEED, TRANSFORM, BINDS_TRANSFORM, FOLLOW, CALLEES = (
    1,
    2,
    4,
    8,
    16,
    32,
    64,
    128,
    256,
)

# how many steps of callers and callees a ``direct`` seed keeps in its module
MODULE_DEPTH = 4

# calls whose arguments a rule may take for the function it checks, besides the anchors
WRAPPERS = frozenset({"partial", "defvjp", "defjvp", "defjvps"})

# last names of the transforms recorded in the module facts (jaxlint.model.transforms.TRANSFORMS,
# derived from model/transforms.py; the plan stage may not import the model, a test keeps
# the two equal):
# ``step = jit(train)`` at module level is followed to ``train``
TRANSFORM_NAMES = frozenset(
    {
        "vmap",
        "pmap",
        "shard_map",
        "make_jaxpr",
        "smap",
        "grad",
        "value_and_grad",
        "jacrev",
        "jacfwd",
        "jacobian",
        "hessian",
        "custom_vjp",
        "custom_jvp",
        "jit",
        "checkpoint",
        "remat",
        "named_call",
        "pjit",
        "xmap",
    }
)


# the members that make an instance: what a reference to a class needs kept
CONSTRUCTORS = frozenset({"__init__", "__post_init__", "__new__"})
# the members Python runs on an instance without naming them: a call (``model(x)``), a
# ``for`` loop (``for batch in loader``)
RUN_ON_INSTANCES = frozenset({"__call__", "__iter__", "__next__"})


@dataclass(slots=True)
class PlanUnit:
    start: int
    end: int
    name: str | None  # def or class name; None: never blanked
    owner: int | None  # first line of the enclosing top-level class
    refs: tuple[str, ...]  # mentioned names that may name something: defined here or imported
    chains: tuple[str, ...]  # dotted names whose head is imported (``jnp.sum``, ``mod.f``)
    assigns: tuple[str, ...]  # names a module-level statement binds
    flags: int = 0
    header_of: str | None = None  # the class a split class's header unit opens
    passed: tuple[str, ...] = ()  # of refs: those used other than as a called function
    passed_chains: tuple[str, ...] = ()
    decorators: tuple[str, ...] = ()  # of refs: what its decorators name (a def's wrapper)
    reads_self: tuple[str, ...] = ()  # a method: the attributes it reads on ``self``
    stores_self: tuple[str, ...] = ()  # a ``direct`` seed method or a constructor: the attributes it stores on ``self``
    # attributes read on a local value (``ctrl.advance`` with ``ctrl`` a parameter): the
    # methods of another module's class they may name
    local_members: tuple[str, ...] = ()
    # a ``classmethod``: it may build an instance of its class (``return cls(...)``), what
    # the class's methods then read on ``self``
    builds: bool = False


@dataclass(slots=True)
class FilePlan:
    path: str
    module: str
    units: list[PlanUnit]
    imports: dict[str, str] = field(default_factory=dict)
    # the project anchors of other modules the file names (``project_anchors``, api._promote)
    anchored: frozenset[str] = frozenset()
    # planned with every rule that follows the calls of imported defs (``target_callees``): a
    # file planned without some of them (only for others, or for JAX503 by a word of its
    # docstring and not for JAX501) is planned again when a planned file imports it
    # (api._promote_imported)
    callees: bool = False


def seed_bits(rule) -> int:
    """The flags a seed of the rule gets: what the slicer keeps around it."""
    bit = SEED | (TARGET_SEED if rule.target_transforms else 0) | (FOLLOW if rule.follows_references else 0)
    bit |= {"all": CALLER_SEED, "direct": DIRECT_CALLER_SEED}.get(rule.callers, 0)
    return bit | (CALLEES if rule.target_callees else 0)


def plan_file(
    path: str, source: str, rules, module: str, is_package: bool, anchored: frozenset[str] = frozenset()
) -> FilePlan | None:
    """What each unit of the file is to the wanted rules; None: lint the file whole.
    ``anchored``: names of other modules' project anchors the file names: the units that
    mention one are seeds of the rules reading project anchors."""
    lines = split_lines(source)
    ol = outline(source, lines, module, is_package)
    if ol is None:
        return None
    flags = [0] * len(ol.units)
    for i in always_kept(ol, lines):
        flags[i] |= ALWAYS
    if any(r.forwarders for r in rules):  # where a value passed to it is called (model/forwarding.py)
        for i, u in enumerate(ol.units):
            if u.forwards:
                flags[i] |= ALWAYS
    wanted_transforms: frozenset[str] = frozenset()
    for r in rules:
        seeds = r.seeds(ol)
        if seeds is None:
            return None
        if anchored and r.project_anchors:
            seeds = set(seeds) | {i for i, u in enumerate(ol.units) if not anchored.isdisjoint(u.idents)}
        wanted_transforms |= r.target_transforms
        for i in seeds:
            flags[i] |= seed_bits(r)
    transforms = anchor_names(ol, wanted_transforms) if wanted_transforms else frozenset()
    binders = anchor_names(ol, TRANSFORM_NAMES)
    wrappers = anchor_names(ol, TRANSFORM_NAMES | WRAPPERS | frozenset().union(*(r.anchors or () for r in rules)))
    local = {n for u in ol.units if (n := u.name or u.header_of)} | {a for u in ol.units for a in u.assigns}
    resolvable = local | ol.imports.keys()
    units = []
    for i, u in enumerate(ol.units):
        f = flags[i]
        if not transforms.isdisjoint(u.idents):
            f |= TRANSFORM
        if u.name is None and u.assigns and (u.alias or not binders.isdisjoint(u.idents)):
            f |= BINDS_TRANSFORM
        chains = tuple(c for c in u.chains if c.partition(".")[0] in ol.imports)
        refs = tuple(resolvable & u.idents)
        passed: tuple[str, ...] = ()
        passed_chains: tuple[str, ...] = ()
        if f & (FOLLOW | BINDS_TRANSFORM):
            names, dotted = ol.wrapped_names(i, wrappers)
            if u.alias:
                names, dotted = names | u.idents, dotted | set(u.chains)
            passed = tuple(resolvable & names)
            # ``grad(self.loss)`` in a method hands over a member of its class;
            # ``grad(Model.loss)`` / ``grad(model.loss)``: a member of a class of the module
            passed_chains = tuple(
                c
                for c in dotted
                if c.partition(".")[0] in ol.imports
                or (
                    c.count(".") == 1
                    and ((c.startswith("self.") and u.owner is not None) or c.partition(".")[0] in local)
                )
            )
        units.append(
            PlanUnit(
                u.start,
                u.end,
                u.name,
                u.owner,
                refs,
                chains,
                tuple(u.assigns),
                f,
                u.header_of,
                passed,
                passed_chains,
                tuple(local & ol.decorator_names(i)) if u.name is not None else (),
                tuple(ol.receiver_reads(i)),
                # a seed's stores, and a constructor's (``self._step = jax.jit(self._loss)``:
                # where ``self._step(...)`` is called, the stored value runs)
                tuple(ol.receiver_stores(i)) if f & DIRECT_CALLER_SEED or _constructor(u) else (),
                tuple(
                    sorted(
                        {
                            rest
                            for c in u.chains
                            if (head := c.partition(".")[0]) not in ol.imports
                            and head != "self"
                            and c.count(".") == 1
                            and (rest := c.partition(".")[2])
                        }
                    )
                ),
                u.owner is not None and "classmethod" in ol.decorator_names(i),
            )
        )
    return FilePlan(path, module, units, dict(ol.imports), anchored)


def _constructor(u: Unit) -> bool:
    return u.owner is not None and u.name in CONSTRUCTORS


def anchor_names(ol: Outline, anchors: frozenset[str]) -> frozenset[str]:
    """Anchors plus this file's aliases of them (``from jax import vmap as vm``,
    ``psum_i = partial(lax.psum, axis_name="i")`` at module level)."""
    key = ("anchors", anchors)
    hit = ol._cache.get(key)
    if hit is not None:
        return hit
    names = set(anchors)
    for local, target in ol.imports.items():
        if target.rsplit(".", 1)[-1] in anchors:
            names.add(local)
    for u in ol.units:
        if u.assigns and not names.isdisjoint(u.idents):
            names |= u.assigns
    out = frozenset(names)
    ol._cache[key] = out
    return out


def seeds_by_anchor(
    ol: Outline,
    anchors: frozenset[str],
    methods: frozenset[str] = frozenset(),
    packages: frozenset[str] = frozenset({"jax"}),
) -> set[int]:
    """Units whose code (not only a docstring or comment) names an anchor the way the rules
    resolve names: as an API of the rule's ``packages`` (``jax.vmap``, ``vmap`` imported from
    jax; not ``nnx.vmap``), a module-level alias of one, or a method anchor on any object
    (``f.defvjp``)."""
    names = anchor_names(ol, anchors)
    aliases = names - anchors
    out = set()
    for i, u in enumerate(ol.units):
        if names.isdisjoint(u.idents):
            continue
        code = ol.code_names(i)
        if names.isdisjoint(code):
            continue
        if not aliases.isdisjoint(code) or not methods.isdisjoint(code) or _names_api(ol, u, anchors, packages):
            out.add(i)
    return out


def _names_api(ol: Outline, u: Unit, anchors: frozenset[str], packages: frozenset[str]) -> bool:
    """Does a mention resolve into one of ``packages`` through the imports (as
    jaxlint.base.names resolves)? A name the imports do not bind, or bind elsewhere, is no
    API of the rule."""
    imports = ol.imports

    def inside(target: str | None) -> bool:
        return target is not None and (target == CONFLICT or target.split(".", 1)[0] in packages)

    for n in anchors.intersection(u.idents):
        if inside(imports.get(n)):
            return True
    for chain in u.chains:
        head, _, rest = chain.partition(".")
        if anchors.isdisjoint(rest.split(".")):
            continue
        if inside(imports.get(head)):
            return True
    return False


def always_kept(ol: Outline, source_lines: list[str]) -> set[int]:
    """Units that are never blanked, whatever the rules want."""
    keep: set[int] = set()
    first_code = None
    for i, u in enumerate(ol.units):
        # an import of the same name elsewhere would answer for a blanked def
        if u.name is None or u.has_import or u.name in ol.imports:
            keep.add(i)
        if u.owner is not None and u.name in CONSTRUCTORS:
            keep.add(i)  # what an instance holds when made: the model reads it wherever one is
        if first_code is None and u.owner is None and not _docstring_or_future(u, source_lines):
            first_code = i
    if first_code is not None:
        keep.add(first_code)
    # ``# jaxlint: ignore[...]`` covers the statement after it: keep that statement, and
    # every unit from the first one that ends at or after the comment (units are in order,
    # and so are their last lines: found by bisection, not by a scan per comment)
    ends = [u.end for u in ol.units]
    for line_no, line in enumerate(source_lines, 1):
        if "jaxlint" in line and SUPPRESSION.search(line):
            for i in range(bisect.bisect_left(ends, line_no), len(ol.units)):
                keep.add(i)
                if ol.units[i].start > line_no:
                    break
    return keep


def _docstring_or_future(u: Unit, lines: list[str]) -> bool:
    first = lines[u.start - 1].lstrip()
    return u.name is None and (
        first[:1] in ("'", '"') or first[:2].lower() in ("r'", 'r"', "u'", 'u"') or first.startswith("from __future__")
    )


# -- the project-wide decision -------------------------------------------------------------
# A reference goes to a *symbol*, never to the units themselves: ``("n", plan, name)``, the
# units of a module that bind ``name``, or ``("m", plan, class, member)``, the members of the
# module's classes called ``class``. ``x = x + 1`` written 8,000 times refers to one symbol
# of 8,000 units, not to 8,000 units 8,000 times; every step below visits a symbol's units
# or referrers once, so the decision is linear in the size of the plans.
Symbol = tuple


class _Index:
    """Names to symbols, symbols to units across the project, for following references."""

    def __init__(self, plans: list[FilePlan]) -> None:
        self.plans = plans
        by_module: dict[str, list[int]] = defaultdict(list)
        for p, plan in enumerate(plans):
            by_module[plan.module].append(p)
        self.by_module = dict(by_module)
        self._memo: dict[tuple[str, str, int], tuple[Symbol, ...]] = {}
        self.dirs = [os.path.dirname(plan.path) for plan in plans]
        self.names: list[dict[str, list[int]]] = []
        self.members: list[dict[tuple[str, str], list[int]]] = []  # (class name, member name) -> units
        self.classes: list[dict[int, str]] = []  # first line of a split class -> its name
        for plan in plans:
            names: dict[str, list[int]] = defaultdict(list)
            members: dict[tuple[str, str], list[int]] = defaultdict(list)
            classes = _split_classes(plan)
            self.classes.append(classes)
            for i, u in enumerate(plan.units):
                if u.name is not None:
                    names[u.name].append(i)
                    if u.owner is not None and u.owner in classes:
                        members[(classes[u.owner], u.name)].append(i)
                if u.header_of is not None:
                    names[u.header_of].append(i)
                for a in u.assigns:
                    names[a].append(i)
            # calling a class runs its constructor, and the instance may be called or
            # iterated: the class's name reaches those members too
            for (cls, member), found in members.items():
                if member in CONSTRUCTORS or member in RUN_ON_INSTANCES:
                    names[cls].extend(found)
            self.names.append(dict(names))
            self.members.append(dict(members))
        # per plan, the first line of a class -> its classmethods (``PlanUnit.builds``)
        self.builders: list[dict[int, list[int]]] = []
        for plan in plans:
            builders: dict[int, list[int]] = defaultdict(list)
            for i, u in enumerate(plan.units):
                if u.builds and u.owner is not None:
                    builders[u.owner].append(i)
            self.builders.append(dict(builders))
        # member name -> the members of that name of every class of the project
        self.by_member: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for p, members in enumerate(self.members):
            for (_, member), found in members.items():
                self.by_member[member].extend((p, i) for i in found)

    def self_readers(self, ref: tuple[int, int], attrs: tuple[str, ...]) -> list[tuple[int, int]]:
        """The other members of ``ref``'s class that read one of ``attrs`` on ``self``."""
        if not attrs:
            return []
        p, i = ref
        units = self.plans[p].units
        owner = units[i].owner
        wanted = set(attrs)
        return [
            (p, j)
            for j, u in enumerate(units)
            if j != i and u.owner == owner and owner is not None and not wanted.isdisjoint(u.reads_self)
        ]

    def units(self, sym: Symbol) -> list[tuple[int, int]]:
        p = sym[1]
        found = self.names[p].get(sym[2], ()) if sym[0] == "n" else self.members[p].get((sym[2], sym[3]), ())
        return [(p, i) for i in found]

    def symbols_of(self, p: int, i: int) -> list[Symbol]:
        """The symbols unit ``i`` of plan ``p`` belongs to."""
        u = self.plans[p].units[i]
        out: list[Symbol] = [("n", p, n) for n in {u.name, u.header_of, *u.assigns} if n is not None]
        cls = self.classes[p].get(u.owner) if u.name is not None and u.owner is not None else None
        if cls is not None:
            out.append(("m", p, cls, u.name))
            if u.name in RUN_ON_INSTANCES:
                # whoever makes an instance (names the class) may call it or iterate it, or
                # hand it to a library method that does (flax's ``model.apply``)
                out.append(("n", p, cls))
        return out

    def foreign_members(self, p: int, u: PlanUnit) -> list[tuple[int, int]]:
        """The methods of other modules' classes that a call on a local value may run
        (``ctrl.advance(state)`` with ``ctrl`` a parameter: its class may be any the
        project's callers construct, imported here or not): every member of that name."""
        return [ref for member in u.local_members for ref in self.by_member.get(member, ()) if ref[0] != p]

    def module(self, name: str, here: int) -> int | None:
        """The plan of a module name; scripts that share a name (``examples/*/train.py``)
        import their own folder's siblings (as jaxlint.api.islands decides)."""
        ps = self.by_module.get(name)
        if not ps:
            return None
        if len(ps) == 1:
            return ps[0]
        mine = [p for p in ps if self.dirs[p] == self.dirs[here]]
        return mine[0] if len(mine) == 1 else None

    def qualified(self, full: str, here: int, depth: int = 0) -> tuple[Symbol, ...]:
        """The symbols defining ``pkg.mod.name`` (following re-exports), or ()."""
        key = (full, self.dirs[here], depth)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = self._qualified(full, here, depth)
        return hit

    def _qualified(self, full: str, here: int, depth: int) -> tuple[Symbol, ...]:
        if depth > 5 or full == CONFLICT:
            return ()
        parts = full.split(".")
        for k in range(len(parts) - 1, 0, -1):
            p = self.module(".".join(parts[:k]), here)
            if p is None:
                continue
            name = parts[k]
            if name in self.names[p]:
                # ``mod.Model.loss``: the member, not just the class
                if k + 1 < len(parts) and (name, parts[k + 1]) in self.members[p]:
                    return (("n", p, name), ("m", p, name, parts[k + 1]))
                return (("n", p, name),)
            target = self.plans[p].imports.get(name)
            if target is not None:
                return self.qualified(".".join([target, *parts[k + 1 :]]), p, depth + 1)
            return ()
        return ()

    def refs_of(self, p: int, u: PlanUnit, passed: bool = False) -> list[Symbol]:
        """The symbols a unit refers to; ``passed``: only what it uses other than by calling it."""
        plan = self.plans[p]
        out: dict[Symbol, None] = {}
        for name in u.passed if passed else u.refs:
            if name in self.names[p]:
                out[("n", p, name)] = None
            target = plan.imports.get(name)
            if target is not None:
                out.update(dict.fromkeys(self.qualified(target, p)))
        for chain in u.passed_chains if passed else u.chains:
            head, _, rest = chain.partition(".")
            if head == "self" and u.owner is not None:
                cls = self.classes[p].get(u.owner)
                if cls is not None:  # ``grad(self.loss)``: a member of the method's class
                    out[("m", p, cls, rest)] = None
                continue
            target = plan.imports.get(head)
            if target is not None and target != CONFLICT:
                out.update(dict.fromkeys(self.qualified(f"{target}.{rest}", p)))
            elif target is None and head != "self" and "." not in rest:
                # a local class or instance of one (``model = Model()``): whatever class
                # it is, the method is the member of that name of one of the module's classes
                out.update(dict.fromkeys(("m", p, cls, member) for cls, member in self.members[p] if member == rest))
        return list(out)


@dataclass(frozen=True, slots=True)
class Decision:
    kept: frozenset[int]  # units LibCST sees
    looked_up: frozenset[str]  # names of defs a seed hands to a transform (what rules may look up)
    callers_of_seeds: frozenset[str]  # names, mentioned here, of units in the callers closure


def decide(plans: list[FilePlan]) -> dict[str, Decision]:
    """The units to keep in each planned file, and the defs rules may look up there."""
    index = _Index(plans)
    units = index.units
    kept: set[tuple[int, int]] = set()
    reached: list[tuple[int, int]] = []
    callers: list[tuple[int, int]] = []
    direct: list[tuple[int, int]] = []
    for p, plan in enumerate(plans):
        for i, u in enumerate(plan.units):
            if u.flags & (ALWAYS | SEED):
                kept.add((p, i))
            if u.flags & FOLLOW:
                reached.append((p, i))
            if u.flags & CALLER_SEED:
                callers.append((p, i))
            if u.flags & DIRECT_CALLER_SEED:
                direct.append((p, i))

    def unit(ref: tuple[int, int]) -> PlanUnit:
        return plans[ref[0]].units[ref[1]]

    def constructors(ref: tuple[int, int]) -> list[tuple[int, int]]:
        """A method reads ``self.x``: the units of its class's constructors, which store it."""
        owner = unit(ref).owner
        cls = index.classes[ref[0]].get(owner) if owner is not None else None
        if owner is None or cls is None:
            return []
        made = [c for name in CONSTRUCTORS for c in index.units(("m", ref[0], cls, name))]
        # ... and its classmethods, which may build the instances (``Hall.from_survey()``)
        return made + [(ref[0], j) for j in index.builders[ref[0]].get(owner, ())]

    for ref in list(kept):
        if unit(ref).flags & SEED:
            kept.update(constructors(ref))

    # 3. what the seeds pass (``grad(loss)``; not what they call: ``jnp.ones(3)``); through
    # ``step = jit(train)``, what that binds
    seen = set(reached)
    looked_up: set[tuple[int, int]] = set()
    followed: set[Symbol] = set()
    while reached:
        p, i = reached.pop()
        here = plans[p].units[i]
        # the wrappers a def's decorators name are kept with it (a ``functools.wraps`` wrapper)
        wrapped = [("n", p, name) for name in here.decorators]
        for sym in [*index.refs_of(p, here, passed=True), *wrapped]:
            if sym in followed:
                continue
            followed.add(sym)
            for ref in units(sym):
                kept.add(ref)
                looked_up.add(ref)
                for name in unit(ref).decorators:  # the wrapper of a def it hands on
                    kept.update(units(("n", ref[0], name)))
                if ref not in seen and unit(ref).flags & BINDS_TRANSFORM:
                    seen.add(ref)
                    reached.append(ref)
    # a transform of a parameter (``jax.vmap(fn)`` in ``def elementwise(fn)``) traces the defs
    # its callers give it, which only the evaluator knows: a def a module-level binding holds
    # as a value (a registry: ``ACTIVATIONS = {"relu": relu}``) may be one of them (a def the
    # binding calls is looked up too: the evaluator decides, the slicer only keeps)
    if seen:
        held: set[Symbol] = set()  # each symbol's units scanned once (``x = x + 1`` n times)
        for p, plan in enumerate(plans):
            for u in plan.units:
                if u.name is not None or not u.assigns:
                    continue
                for sym in index.refs_of(p, u):
                    if sym in held:
                        continue
                    held.add(sym)
                    for ref in units(sym):
                        if unit(ref).name is not None and unit(ref).owner is None:
                            kept.add(ref)
                            looked_up.add(ref)
    # what a target of a ``target callees`` seed calls in its module, transitively: the
    # evaluator runs it to know what the target returns
    frontier = [
        ref
        for p, plan in enumerate(plans)
        for i, u in enumerate(plan.units)
        if u.flags & CALLEES and u.flags & SEED
        for sym in index.refs_of(p, u, passed=True)
        for ref in units(sym)
    ]
    # ... and the defs of other modules such a seed calls (``clip_by_norm(grads, 1.0)`` in a
    # jitted step, the helper in ``utils.py``): rules look them up there, with the defs of
    # that module they call in turn (``log_scalars`` formatting with ``format_scalars``)
    # (also those a seed's target calls: ``jax.jit(self._train_step)`` traces the method,
    # which calls the helper)
    foreign: set[tuple[int, int]] = set()
    callers_of_foreign = [
        (p, u) for p, plan in enumerate(plans) for u in plan.units if u.flags & CALLEES and u.flags & SEED
    ]
    callers_of_foreign += [(ref[0], unit(ref)) for ref in frontier if unit(ref).name is not None]
    for p, u in callers_of_foreign:
        for ref in [r for sym in index.refs_of(p, u) if sym[1] != p for r in units(sym)] + index.foreign_members(p, u):
            # a def, or a module-level binding naming defs (``SCHEDULES = {"cosine": cosine}``)
            if unit(ref).name is not None or unit(ref).assigns:
                kept.add(ref)
                looked_up.add(ref)
                foreign.add(ref)
    frontier += sorted(foreign - set(frontier))
    visited = set(frontier)
    for _ in range(MODULE_DEPTH):
        step = []
        for p, i in frontier:
            for sym in index.refs_of(p, unit((p, i))):
                if sym[1] != p:
                    continue
                for ref in units(sym):
                    if ref not in visited and (unit(ref).name is not None or ((p, i) in foreign and unit(ref).assigns)):
                        visited.add(ref)
                        kept.add(ref)
                        step.append(ref)
                        if (p, i) in foreign:
                            foreign.add(ref)
                            looked_up.add(ref)
        frontier = step
    # 4 and 5 need who refers to what
    referrers: dict[Symbol, list[tuple[int, int]]] = defaultdict(list)
    for p, plan in enumerate(plans):
        for i, u in enumerate(plan.units):
            for sym in index.refs_of(p, u):
                referrers[sym].append((p, i))
    # the callers of a ``direct`` seed in its module, transitively (the frames its calls are
    # evaluated in: jaxlint/model/contexts.py), and the units of the module those refer to,
    # transitively (the helpers that build what a caller passes, the defs a transformed
    # value is handed to, the module-level statement binding a name one reads:
    # ``params = init(key)``), ``MODULE_DEPTH`` steps at most. Breadth first, so a unit is
    # reached at its least depth and each symbol's referrers and units are visited once.
    reached_direct = set(direct)
    layer = list(direct)
    callers_done: set[Symbol] = set()
    callees_done: set[Symbol] = set()
    built: set[tuple[int, int]] = set()  # constructors reached as the builders of what a method reads
    for depth in range(MODULE_DEPTH + 1):
        kept.update(layer)
        for ref in layer:
            kept.update(constructors(ref))
        if depth == MODULE_DEPTH:
            break
        next_layer: list[tuple[int, int]] = []
        for ref in layer:
            # the constructors that store what a method reads on ``self``, and in turn the
            # defs they call to build it (``self.members = [init_mlp(k, ...) for k in keys]``)
            for c in constructors(ref):
                if c not in reached_direct:
                    reached_direct.add(c)
                    next_layer.append(c)
                    built.add(c)
            for sym in index.symbols_of(*ref):
                if sym in callers_done:
                    continue
                callers_done.add(sym)
                for who in referrers.get(sym, ()):
                    if who[0] == ref[0] and who in built:  # a constructor that refers to it too
                        built.discard(who)
                        if who not in next_layer:
                            next_layer.append(who)
                    if who[0] == ref[0] and who not in reached_direct:
                        reached_direct.add(who)
                        next_layer.append(who)
            # (also the defs of another module it calls: ``targets = sample_targets(key, n)``
            # in a caller of ``plan_all``, both imported from ``workcell``, builds what it passes)
            for sym in index.refs_of(ref[0], unit(ref)):
                if sym in callees_done:
                    continue
                callees_done.add(sym)
                for callee in units(sym):
                    if callee not in reached_direct:
                        reached_direct.add(callee)
                        next_layer.append(callee)
            # the methods reading what a seed stores on ``self`` (``self.f = vmap(g)`` in
            # ``__init__``, ``self.f(x)`` in ``__call__``): where the stored value is called
            # (a constructor kept for what it builds: not every reader of what it stores)
            for who in index.self_readers(ref, unit(ref).stores_self if ref not in built else ()):
                if who not in reached_direct:
                    reached_direct.add(who)
                    next_layer.append(who)
        layer = next_layer
    seen = set(callers)
    climbed: set[Symbol] = set()
    while callers:
        ref = callers.pop()
        for sym in index.symbols_of(*ref):
            if sym in climbed:
                continue
            climbed.add(sym)
            for who in referrers.get(sym, ()):
                kept.add(who)
                u = unit(who)
                # module-level code is called by nobody, unless it binds a transform (``g = pmap(f)``)
                if who not in seen and (u.name is not None or u.flags & BINDS_TRANSFORM):
                    seen.add(who)
                    callers.append(who)
    closure_names: set[str] = set()
    for ref in seen:
        u = unit(ref)
        closure_names.update(n for n in (u.name, u.header_of) if n)
        closure_names.update(u.assigns)
    # 5. transforms applied to what a target_transforms seed names, in the def's module
    # (not the def itself: a unit is no referrer of its own)
    target_syms: set[Symbol] = set()
    for p, plan in enumerate(plans):
        for u in plan.units:
            if u.flags & TARGET_SEED:
                target_syms.update(index.refs_of(p, u, passed=True))
    targets = {ref for sym in target_syms for ref in units(sym)}
    by_target: set[Symbol] = set()
    for ref in targets:
        for sym in index.symbols_of(*ref):
            if sym in by_target:
                continue
            by_target.add(sym)
            mine = [t for t in units(sym) if t in targets]
            for who in referrers.get(sym, ()):
                if who[0] == sym[1] and unit(who).flags & TRANSFORM and (len(mine) > 1 or mine[0] != who):
                    kept.add(who)
    kept |= _registrations(plans, kept)
    out: dict[str, set[int]] = {plan.path: set() for plan in plans}
    names: dict[str, set[str]] = {plan.path: set() for plan in plans}
    for p, i in kept:
        out[plans[p].path].add(i)
    for p, i in looked_up:
        u = plans[p].units[i]
        if u.name is not None:
            names[plans[p].path].add(u.name)
    mentioned: dict[str, frozenset[str]] = {}
    for plan in plans:
        words = {w for u in plan.units for w in u.refs}
        words.update(t.rsplit(".", 1)[-1] for t in plan.imports.values())
        words.update(part for u in plan.units for c in u.chains for part in c.split("."))
        words.update(m for u in plan.units for m in u.local_members)  # ``trainer.evaluate(x)``: an instance's method
        mentioned[plan.path] = frozenset(closure_names & words)
    return {path: Decision(frozenset(v), frozenset(names[path]), mentioned[path]) for path, v in out.items()}


def _registrations(plans: list[FilePlan], kept: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """What fills, at import, a module-level name a kept unit reads (a registry filled by a
    decorator: ``_KERNELS = {}``, ``def register(name)`` whose wrapper stores into it, and
    ``@register("poly") def make_poly``): the module-level defs that mention the name and
    decorate a module-level def or class, with the defs and classes they decorate
    (``model/registries.py`` reads them)."""
    out: set[tuple[int, int]] = set()
    for p, plan in enumerate(plans):
        bound = {n for u in plan.units if u.name is None for n in u.assigns}
        if not bound:
            continue
        read = {r for i, u in enumerate(plan.units) if (p, i) in kept for r in u.refs if r in bound}
        if not read:
            continue
        registrars = {
            u.name: i
            for i, u in enumerate(plan.units)
            if u.name is not None and u.owner is None and read.intersection(u.refs)
        }
        for i, u in enumerate(plan.units):
            used = [registrars[d] for d in u.decorators if d in registrars]
            if used and u.name is not None and u.owner is None:
                out.add((p, i))
                out.update((p, r) for r in used)
    return out


@dataclass(frozen=True, slots=True)
class ProjectAnchors:
    """The names module-level code of the planned files binds in a unit that mentions one
    of the anchors of the rules reading project anchors (``batched = jax.vmap(f)``, ``def
    noise(key, x): ... jax.random.normal(key, ...)``), with the last parts of the modules
    that bind them (``project_anchors``). Where another module imports one, a unit naming it
    is a seed of those rules, as if it spelled the anchor: the model decides what it is."""

    modules: dict[str, frozenset[str]]
    any_name: re.Pattern[str]  # one of the names, as a word: most files mention none

    def named(self, source: str) -> frozenset[str]:
        """The names a file's text mentions as words beside the name of a module that binds
        them (what an import of it spells)."""
        if self.any_name.search(source) is None:
            return frozenset()
        words = set(re.findall(r"[A-Za-z_]\w*", source))
        return frozenset(n for n, modules in self.modules.items() if n in words and not words.isdisjoint(modules))

    def imported_by(self, plan: FilePlan) -> frozenset[str]:
        """The names a planned file imports from a module that binds them (``from model
        import batched``, or ``import model`` and ``model.batched``)."""
        out = set()
        for local, target in plan.imports.items():
            if target == CONFLICT:
                continue
            parts = target.split(".")
            if local in self.modules and len(parts) > 1 and parts[-2] in self.modules[local]:
                out.add(local)  # used under the name it is imported as, when that is its own
        for u in plan.units:
            for c in u.chains:
                head, _, rest = c.partition(".")
                module = plan.imports.get(head)
                name = rest.partition(".")[0]
                if (
                    module
                    and module != CONFLICT
                    and name in self.modules
                    and module.rsplit(".", 1)[-1] in self.modules[name]
                ):
                    out.add(name)
        return frozenset(out)


def mark_anchored(plan: FilePlan, names: frozenset[str], rules) -> None:
    """Make the units of a planned file that refer to one of ``names`` (project anchors
    of other modules) seeds of the rules reading project anchors."""
    bits = 0
    for r in rules:
        bits |= seed_bits(r)
    for u in plan.units:
        if not names.isdisjoint(u.refs) or any(c.partition(".")[2].partition(".")[0] in names for c in u.chains):
            u.flags |= bits
    plan.anchored = plan.anchored | names


def project_anchors(plans: list[FilePlan], anchors: frozenset[str]) -> ProjectAnchors | None:
    """The names module-level code of the planned files binds in a unit that mentions one
    of ``anchors`` (``vmap``, ``pmap``, ``normal``...): an assignment that mentions one
    (``batched = jax.vmap(f)``; a registry holding one: ``KERNELS = {"rbf": rbf}``), a def
    that mentions one (``@jax.pmap
    def step``, a def that draws from its key), and a class one of whose methods does.
    Over-approximated from the outline: the model decides what a call of one is. None: no
    such name."""
    said_by: dict[int, list[tuple[set[str], tuple[str, ...]]]] = {}
    for p, plan in enumerate(plans):
        said_by[p] = []
        classes = _split_classes(plan)
        for u in plan.units:
            said = set(u.refs).union(*(c.split(".") for c in u.chains))
            # and what the file's aliases stand for (``from jax import vmap as vectorize``)
            said.update(plan.imports[r].rsplit(".", 1)[-1] for r in u.refs if r in plan.imports)
            if u.owner is not None:  # a method: its class's instances run what it runs
                cls = classes.get(u.owner)
                if cls is not None:
                    said_by[p].append((said, (cls,)))
                continue
            # an assignment binds what its value holds: a transform of an anchored name, or
            # the function itself in a registry (``ALLOCATORS = {"std": euler_std}``)
            names = u.assigns if u.name is None and u.assigns else (u.name,) if u.name is not None else ()
            if names:
                said_by[p].append((said, names))
    # a def that calls one of its module's anchored names runs what it runs (``def
    # evaluate(...): return p_eval(...)``), and so does one that calls an anchored name it
    # imports from another module (``evaluate`` calling ``metrics.compute_metrics``, which
    # holds a collective): transitively, MODULE_DEPTH steps
    out: dict[str, set[str]] = {}
    binding: set[str] = set()  # the modules that bind an anchored name
    found: dict[int, set[str]] = {p: set() for p in said_by}
    for _ in range(MODULE_DEPTH):
        grew = False
        for p, plan in enumerate(plans):
            known = anchors | found[p] | _imported_anchors(plan, out, binding)
            more = {n for said, names in said_by[p] if not known.isdisjoint(said) for n in names} - found[p]
            if more:
                grew = True
                found[p] |= more
                module = plan.module.rsplit(".", 1)[-1]
                binding.add(module)
                for name in more:
                    out.setdefault(name, set()).add(module)
        if not grew:
            break
    if not out:
        return None
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in sorted(out)) + r")\b")
    return ProjectAnchors({name: frozenset(modules) for name, modules in out.items()}, pattern)


def _split_classes(plan: FilePlan) -> dict[int, str]:
    """The first line of each class the outline split into member units -> its name (a
    member unit's ``owner``)."""
    return {u.start: u.header_of for u in plan.units if u.header_of is not None}


def _imported_anchors(plan: FilePlan, anchored: dict[str, set[str]], binding: set[str]) -> set[str]:
    """The local names of a file's imports of another module's anchored names (``from
    metrics import compute_metrics``: ``compute_metrics``; ``import metrics``: ``metrics``);
    ``binding``: the modules that bind one."""
    out = set()
    for local, target in plan.imports.items():
        if target == CONFLICT:
            continue
        parts = target.split(".")
        if len(parts) > 1 and parts[-2] in anchored.get(parts[-1], ()):
            out.add(local)
        elif parts[-1] in binding:
            out.add(local)  # the module itself: ``metrics.compute_metrics(...)`` says ``metrics``
    return out


# -- blanking ---------------------------------------------------------------------------
Blanks = tuple[tuple[int, int, str | None], ...]  # (first line, last line, placeholder or None)


def blanks_for(plan: FilePlan, kept: frozenset[int]) -> Blanks:
    """Line ranges to empty; a class left without members gets a ``pass``."""
    owners = {u.owner for i, u in enumerate(plan.units) if i in kept and u.owner is not None}
    out: list[tuple[int, int, str | None]] = []
    for i, u in enumerate(plan.units):
        if i in kept:
            continue
        placeholder = None
        if u.owner is not None and u.owner not in owners:
            owners.add(u.owner)
            placeholder = "pass"
        out.append((u.start, u.end, placeholder))
    return tuple(out)


def job_digest(blanks: Blanks, *names: frozenset[str] | None) -> str:
    """What besides the file's bytes a result depends on (a cache key part)."""
    if not blanks and all(n is None for n in names):
        return ""
    import hashlib  # only with a cache: a one-file run without one does not pay for it

    key = (blanks, *(sorted(n) if n is not None else None for n in names))
    return hashlib.sha256(repr(key).encode()).hexdigest()[:16]


def apply_blanks(source: str, blanks: Blanks) -> str:
    """The source with the ranges emptied: every other line keeps its number and text."""
    if not blanks:
        return source
    lines = split_lines(source)
    for start, end, placeholder in blanks:
        if start - 1 >= len(lines):
            continue
        first = lines[start - 1]
        for n in range(start - 1, min(end, len(lines))):
            line = lines[n]
            body = line.rstrip("\r\n")
            lines[n] = line[len(body) :]
        if placeholder:
            indent = first[: len(first) - len(first.lstrip(" \t"))]
            lines[start - 1] = indent + placeholder + lines[start - 1]
    return "".join(lines)
