"""What a rule needs from the trigger pre-filter and the slicer, derived in one place.

A rule author says what the rule is about, not how to make it fast:

- ``about``: the JAX APIs the rule is about, by qualified name (``"jax.vmap"``,
  ``"jax.lax.psum"``); ``".defvjp"`` is a method on any object (``f.defvjp(...)``);
  ``"jax.random.*"`` says the rule's APIs under ``jax.random`` are always reached through
  that module, so one pre-filter word, ``random``, stands for all of them.
- ``reads``: what the rule's analysis reads besides the units that name those APIs, one
  or more words of ``READS``.
- ``context_words``: words of files the rule needs although they name none of its APIs
  (a file that only defines the function another module hands to ``jax.grad``).

From these, when the class is created, come the knobs ``jaxlint.lint.engine`` and
``jaxlint.plan.slicing`` read: ``triggers`` (a file is parsed only if one occurs in its text),
``anchors`` and ``method_anchors`` (the units that name one are the rule's seeds),
``callers``, ``target_transforms``, ``follows_references`` and ``call_paths``. Each is sound by
construction: a file can refer to ``jax.lax.psum`` only by spelling ``psum`` (in the
import or the call), and to anything under ``jax.random`` only by spelling ``random``.
A rule may set two knobs by hand, as a narrower exception with its reason at the rule:
``triggers`` (JAX306 reports only where its options are spelled; the catalogue rules use
the catalogue's words) and ``anchors`` (the catalogue rules choose their seeds in
``seeds()``). The others are derived only: a class that sets one fails when it is made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields

_API = re.compile(r"(\.?[A-Za-z_]\w*)(\.[A-Za-z_]\w*)*(\.\*)?")


@dataclass(frozen=True)
class Reads:
    """The slicer's knobs for one kind of reading (see ``jaxlint/plan/slicing.py``)."""

    callers: str = ""  # "direct": who refers to a seed in its module; "all": in any module, transitively
    target_transforms: frozenset[str] = frozenset()
    follows_references: bool = True
    call_paths: bool = False  # the engine records each read file's uses of its functions (model/calls.py)
    forwarders: bool = False  # every def that calls a parameter with its ``*args`` (model/forwarding.py)
    target_callees: bool = False  # the defs of a target's module the target calls, transitively
    project_anchors: bool = False  # units that name another module's anchored name, whatever their words


# What a rule's analysis may read besides its sites' units and module-level code.
READS: dict[str, Reads] = {
    # only the statement that spells the API, nothing it refers to (JAX801/802)
    "statement": Reads(follows_references=False),
    # also the defs a site hands to a transform, ``partial`` or one of the rule's APIs, in
    # any module (``jax.grad(loss)`` keeps ``loss``): the default
    "targets": Reads(),
    # also the units of the same module that refer to a site's def, and the defs of that
    # module a site's def refers to: where a transformed function is called, also after it
    # is passed to a helper (the program model's ``invocations``; the vmap rules, JAX502)
    "calls": Reads(callers="direct"),
    # also every unit that refers to a site's def, transitively, in any module: the paths
    # up the call graph (JAX201's map that binds an axis name, JAX203/204's callers)
    "call graph": Reads(callers="all"),
    # also ``jit(f, static_argnums=...)`` / ``pjit`` of a def a site hands on, in that
    # def's module (JAX405 reads which parameters are static)
    "jit of targets": Reads(target_transforms=frozenset({"jit", "pjit"})),
    # also the call paths across modules (model/paths.py): the engine records, for every
    # file the rule reads, how each function value is used (model/calls.py; JAX201's maps
    # around a collective, JAX503's jit of a def in another module)
    "call paths": Reads(call_paths=True),
    # also every def, in every file the rule reads, that calls a parameter with its
    # ``*args`` (``def apply(fn, *args): return fn(*args)``): a value passed to one, also
    # in another module, is called there with the caller's trailing arguments
    # (model/forwarding.py; the vmap rules). The rule also reads files that spell ``(*``.
    "forwarders": Reads(follows_references=False, forwarders=True),
    # also the defs of a target's module that the target refers to, transitively
    # (``MODULE_DEPTH`` steps): what the evaluator runs when it computes what the target
    # returns (``def loss(w, x): return helper(w, x)``; the JAX4xx outputs)
    "target callees": Reads(target_callees=True),
    # also every unit, in any module, that names what another module of the project binds
    # at module level in a unit mentioning one of the rule's anchors (``batched =
    # jax.vmap(f)`` or ``@jax.pmap def step`` there, ``batched(xs)`` here; a def that draws
    # from its key there, called twice here), although it spells none of the rule's words:
    # its calls are judged where they are written (jaxlint/api.py promotes such units after
    # the first pass; the map rules, JAX502)
    "project anchors": Reads(project_anchors=True),
}

# what a kind of reading adds to the pre-filter's words: a forwarder spells ``fn(*args``
READ_WORDS: dict[str, tuple[str, ...]] = {"forwarders": ("(*",)}


# knobs only ``about`` and ``reads`` give (``triggers`` and ``anchors`` may be set by hand: see above)
# the slicer's knobs ``reads`` gives (``Reads``' fields)
READ_KNOBS = tuple(f.name for f in fields(Reads))
DERIVED_ONLY = ("method_anchors", "packages", *READ_KNOBS)


def derive(cls) -> None:
    """Set the pre-filter's and the slicer's knobs of a Rule class from its declaration;
    ``triggers`` and ``anchors`` the class sets itself are kept."""
    own = cls.__dict__
    by_hand = [k for k in DERIVED_ONLY if k in own]
    if by_hand:
        raise TypeError(
            f"{cls.__name__} sets {', '.join(by_hand)} by hand: declare `about` and `reads` instead "
            '(docs/writing-rules.md, "What a rule may read")'
        )
    if "about" in own or "context_words" in own:
        about = cls.about
        if about is not None:
            anchors, methods = anchors_of(about, cls.__name__)
            if "anchors" not in own:
                cls.anchors = anchors
            cls.method_anchors = methods
            cls.packages = packages_of(about)
        if "triggers" not in own and (about is not None or cls.context_words):
            cls.triggers = trigger_words(about or (), cls.context_words + _read_words(cls.reads))
    if "reads" in own:
        r = reads_of(cls.reads, cls.__name__)
        for knob in READ_KNOBS:
            setattr(cls, knob, getattr(r, knob))


def anchors_of(about, owner: str = "rule") -> tuple[frozenset[str], frozenset[str]]:
    """The last names of the APIs (the slicer's anchors), and those that are methods."""
    if isinstance(about, str):
        raise TypeError(f"{owner}.about must be a tuple of API names, not the string {about!r}")
    anchors, methods = set(), set()
    for api in about:
        if not isinstance(api, str) or not _API.fullmatch(api):
            raise ValueError(f"{owner}.about: {api!r} is not an API name (`jax.vmap`, `.defvjp`, `jax.random.*`)")
        if api.endswith(".*"):
            continue
        last = api.rsplit(".", 1)[-1]
        anchors.add(last)
        if api.startswith("."):
            methods.add(last)
    return frozenset(anchors), frozenset(methods)


def packages_of(about) -> frozenset[str]:
    """The top-level packages the APIs live in (``jax``; ``equinox`` for ``equinox.nn.Linear``):
    an anchor counts where the file's imports resolve it into one of them."""
    return frozenset(api.split(".", 1)[0] for api in about if not api.startswith("."))


def trigger_words(about, context_words=()) -> tuple[str, ...]:
    """The words one of which must occur in a file for the rule to find anything in it:
    each API's last name (or its module's, under a ``module.*`` entry), and the context
    words; a word that contains another adds no file (``grad`` finds ``value_and_grad``)."""
    modules = [api[:-2] for api in about if api.endswith(".*")]
    words = {m.rsplit(".", 1)[-1] for m in modules}
    for api in about:
        if api.endswith(".*") or any(api.startswith(m + ".") for m in modules):
            continue
        words.add(api.rsplit(".", 1)[-1])
    words.update(context_words)
    return tuple(sorted(w for w in words if not any(o != w and o in w for o in words)))


def _read_words(reads) -> tuple[str, ...]:
    kinds = (reads,) if isinstance(reads, str) else tuple(reads)
    return tuple(w for k in kinds for w in READ_WORDS.get(k, ()))


def reads_of(reads, owner: str = "rule") -> Reads:
    """The slicer's knobs for a ``reads`` declaration (one word of READS, or several)."""
    kinds = (reads,) if isinstance(reads, str) else tuple(reads)
    unknown = [k for k in kinds if k not in READS]
    if unknown or not kinds:
        raise ValueError(f"{owner}.reads: {unknown or reads!r} is not one of {', '.join(map(repr, READS))}")
    parts = [READS[k] for k in kinds]
    callers = "all" if any(p.callers == "all" for p in parts) else "direct" if any(p.callers for p in parts) else ""
    return Reads(
        callers,
        frozenset().union(*(p.target_transforms for p in parts)),
        any(p.follows_references for p in parts),
        any(p.call_paths for p in parts),
        any(p.forwarders for p in parts),
        any(p.target_callees for p in parts),
        any(p.project_anchors for p in parts),
    )
