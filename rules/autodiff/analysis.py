"""Shared judgement of the JAX4xx family: ``GradRule`` decides each differentiation site
of the file (``jaxlint.model.gradsites``: the application, the callable it differentiates,
the calls in view) in its rule's ``verdict``; a site of another module that a call of this
file runs is judged with what the call passes and reported at the call when its own module
does not report it. Unknown means silent.
"""

from __future__ import annotations

import os
import re
from typing import Any

import libcst as cst

from jaxlint.lint.rule import Rule
from jaxlint.lint.wording import notes, split
from jaxlint.model.contexts import foreign_call_line
from jaxlint.model.gradsites import (
    ALLOW_INT_APIS,
    GRAD_APIS,
    SCALAR_APIS,
    Call,
    Site,
    Through,
    sites,
    through_sites,
)
from jaxlint.model.stubs import GRADS as STUB_GRADS

__all__ = [
    "ALLOW_INT_APIS",
    "GRAD_APIS",
    "SCALAR_APIS",
    "GradRule",
    "Site",
    "at_line",
    "call_at",
    "normalised",
    "sites",
]


def normalised(nums: list[int], n: int) -> list[int] | None:
    """Indices with negatives resolved, or None if any is out of range."""
    if any(not -n <= i < n for i in nums):
        return None
    return [i % n for i in nums]


def at_line(ctx: Any, node: cst.CSTNode) -> str:
    """``at line N`` for a message (the form notebooks rewrite), or ``in this file``."""
    line = ctx.exact_lines([node]).get(node)
    return f"at line {line}" if line is not None else "in this file"


def call_at(ctx: Any, call: Call) -> str:
    """Where a call of the transformed function is, and the call of a file importing this
    one that gave its values, if any: ``at line 13, as called at line 5 of run.py``."""
    first = foreign_call_line(ctx, call.frame)
    return at_line(ctx, call.node) + (f", as called at line {first}" if first is not None else "")


class GradRule(Rule):
    """Decides each grad-like site of the file in ``verdict``."""

    # JAX's grads, and the library functions a stub says apply one (``eqx.filter_grad``)
    about = (*GRAD_APIS, *sorted(STUB_GRADS))
    quiet_where_expected = True  # silent where the code expects the error (model/expected.py)
    # a jit of the target (its static arguments), in its module; what the target calls
    # there (the helper that builds its output); the calls of the def a site is in (its call
    # contexts: the arguments each call passes)
    # and, through the project's anchors, the calls of another module's def that takes a grad
    reads = ("jit of targets", "target callees", "calls", "project anchors")
    # files that may define the function a grad in another module differentiates
    context_words = ("argnums", "has_aux", "jnp", "jax.numpy", "loss")

    def finish(self) -> None:
        for site in sites(self.ctx):
            message = self.verdict(site)
            if message:
                head, note = split(message)
                self.report(self.where(site), head, fix=self.fix(site, message), note=note)
        for t in through_sites(self.ctx):
            self._through(t)

    def _through(self, t: Through) -> None:
        """A site of another module judged with what this file's call passes, reported at
        the call when its own module, with its own callers, does not report it."""
        there = type(self)(t.owner.ctx, self.options)
        message = there.verdict(t.site)
        if not message:
            return
        own = next((s for s in sites(t.owner.ctx) if s.node is t.site.node), None)
        if own is not None and there.verdict(own):
            return  # its module reports it
        name = os.path.basename(t.owner.ctx.path)
        message = re.sub(r"\bat line (\d+)", rf"at {name}:\1", message)
        head, note = split(message)
        line = t.owner.ctx.exact_lines([t.site.node]).get(t.site.node)
        at = f"{name}:{line}" if line is not None else name
        self.report(
            t.call, head, note=notes(f"`{t.fn}` runs `{t.site.shown}` at {at} with what this call passes", note)
        )

    def where(self, site: Site) -> cst.CSTNode:
        return site.option_nodes.get("argnums", site.node)

    def fix(self, site: Site, message: str) -> Any:
        return None

    def verdict(self, site: Site) -> str | None:
        """The message for one site, or None when it is fine: each rule decides its own."""
        raise NotImplementedError(f"{type(self).__name__} does not define verdict")
