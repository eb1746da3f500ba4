"""A forward walk of one body in statement order, merging the facts of the paths at every join.

Why: a rule that asks what holds at a point on every path to it (this name is a JAX
array here, this key is already consumed here) needs the same control flow each time:
statements in order, the arms of ``if``/``elif``/``else``, ``try``/``except`` and
``match`` merged where they meet, a loop body walked a second time as the next
iteration, a path ending at ``return``/``raise``/``break``/``continue``. ``Flow`` owns
that control flow; a client subclass owns the facts: the environment's values, how
environments join (``join``), and what a simple statement, a test or an expression does
(``small``, ``test``, ``expression``). Python's structured control flow is enough: no
graph, like the reaching definitions of ``scopes.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

_LEAVING = (cst.Return, cst.Raise, cst.Continue, cst.Break)


def statements(body) -> Sequence:
    """The statements of a module, a block, a one-line suite or a list of statements."""
    return body.body if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite, cst.Module)) else body


def terminates(body, enter_with: bool = False) -> bool:
    """Does this block always leave by ``return``/``raise``/``continue``/``break``?
    A one-line suite (``if x: return 1``) leaves when it ends in a leaving statement.
    ``enter_with`` (what a function returns asks it): a ``with`` block at the end leaves if
    its body does (its context manager could swallow a ``raise``, so the walk does not
    assume it)."""
    stmts = statements(body)
    if not stmts:
        return False
    if isinstance(body, cst.SimpleStatementSuite):
        return isinstance(stmts[-1], _LEAVING)
    last = stmts[-1]
    if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return any(isinstance(s, _LEAVING) for s in last.body)
    if isinstance(last, cst.If):
        return (
            last.orelse is not None and terminates(last.body, enter_with) and orelse_terminates(last.orelse, enter_with)
        )
    if enter_with and isinstance(last, cst.With):
        return terminates(last.body, enter_with)
    if isinstance(last, cst.Try):
        # leaves when its ``finally`` does, or when every handler does and the body (or,
        # once the body ends normally, the ``else``) does: an exception no handler
        # catches leaves too
        if last.finalbody is not None and terminates(last.finalbody.body, enter_with):
            return True
        done = terminates(last.body, enter_with) or (
            last.orelse is not None and terminates(last.orelse.body, enter_with)
        )
        return done and all(terminates(h.body, enter_with) for h in last.handlers)
    return False


def orelse_terminates(orelse, enter_with: bool = False) -> bool:
    """Does every arm of an ``elif``/``else`` chain leave?"""
    if isinstance(orelse, cst.If):
        return (
            orelse.orelse is not None
            and terminates(orelse.body, enter_with)
            and orelse_terminates(orelse.orelse, enter_with)
        )
    return terminates(orelse.body, enter_with)


def bound_names(target) -> list[str]:
    """The names a target (``a``, ``a, (b, c)``, ``[a, b]``) binds; attributes and items bind none."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in bound_names(el.value)]
    return []


class Flow:
    """The walk. ``env`` maps what the client tracks (names, ``keys[0]``) to its facts at
    the current point; ``quiet`` counts enclosing blocks where the client reports nothing;
    ``loop_node`` is the loop whose second iteration is being walked, if any."""

    def __init__(self, ctx, env: dict | None = None) -> None:
        self.ctx = ctx
        self.env: dict = dict(env or {})
        self.quiet = 0
        self.loop_node: cst.CSTNode | None = None

    # -- what a client supplies ----------------------------------------------------------
    def join(self, envs: list[dict]) -> dict:
        """The facts after a join of paths: a "must" client keeps what holds on every one."""
        if not envs:
            return {}
        return {k: v for k, v in envs[0].items() if all(e.get(k) == v for e in envs[1:])}

    def small(self, s) -> None:
        """A simple statement (assignment, expression, ``return``, ``del``, ...)."""

    def expression(self, e) -> None:
        """An expression that is evaluated (a ``for`` iterable, a ``with`` item, ...)."""

    def test(self, e, kind: str) -> None:
        """The test of an ``if``/``elif`` (kind "if") or a ``while`` (kind "while")."""
        self.expression(e)

    def unbind(self, target) -> None:
        """A target gets a value the client knows nothing about (``for``/``with`` targets)."""
        for n in bound_names(target):
            self.env.pop(n, None)

    def loop_target(self, node: cst.For, target) -> None:
        """A ``for`` loop's target gets its next item (by default a value the client knows
        nothing about)."""
        self.unbind(target)

    def quiet_block(self, s) -> bool:
        """Is a ``with`` or ``try`` block one where the client reports nothing?"""
        return False

    def define(self, s: cst.FunctionDef) -> None:
        """A nested ``def`` is reached (before its name is rebound)."""

    def first_iteration(self):
        """Before a loop body is walked the first time; the result goes to ``next_iteration``."""
        return None

    def repeats(self, body) -> bool:
        """Walk the body again as the next iteration? Not when it always leaves."""
        return not terminates(body)

    def next_iteration(self, before: dict, after: dict, mark) -> dict:
        """The environment at the start of a second iteration (``before``: at the loop)."""
        return self.join([before, after])

    # -- the walk ------------------------------------------------------------------------
    def run(self, body) -> None:
        for s in statements(body):
            self.stmt(s)
            if type(s) is cst.If and self._leaves(s):
                return  # a decided test took an arm that leaves: the rest never runs

    def _leaves(self, s: cst.If) -> bool:
        """Does the arm of ``s`` that a decided test takes always leave?"""
        known = self.decided(s.test)
        if known is None:
            return False
        if known:
            return terminates(s.body)
        if isinstance(s.orelse, cst.If):
            return self._leaves(s.orelse)
        return s.orelse is not None and terminates(s.orelse.body)

    def stmt(self, s) -> None:
        t = type(s)
        if t is cst.SimpleStatementLine or t is cst.SimpleStatementSuite:
            for small in s.body:
                self.small(small)
        elif t is cst.If:
            self.test(s.test, "if")
            self.branch_if(s)
        elif t is cst.While:
            self.test(s.test, "while")
            self.loop(s, s.body, None, s.orelse)
        elif t is cst.For:
            self.expression(s.iter)
            self.loop(s, s.body, s.target, s.orelse)
        elif t is cst.With:
            quiet = self.quiet_block(s)
            for i in s.items:
                self.expression(i.item)
                if i.asname is not None:
                    self.unbind(i.asname.name)
            self.quiet += quiet
            self.run(s.body)
            self.quiet -= quiet
        elif t is cst.Try or t is cst.TryStar:
            self.branch_try(s)
        elif t is cst.FunctionDef:
            self.define(s)
            self.env.pop(s.name.value, None)
        elif t is cst.ClassDef:
            self.env.pop(s.name.value, None)
        elif t is cst.Match:
            self.expression(s.subject)
            before = dict(self.env)
            ends = []
            for case in s.cases:
                self.env = dict(before)
                self.run(case.body)
                ends.append(self.env)
            self.env = self.join([*ends, before])

    def decided(self, test) -> bool | None:
        """The truth of a test the client knows on every path (a flag bound to a constant),
        else None: the walk then takes only the arm that runs."""
        return None

    def branch_if(self, s: cst.If) -> None:
        known = self.decided(s.test)
        if known is True:
            self.run(s.body)
            return
        if known is False:
            if isinstance(s.orelse, cst.If):
                self.test(s.orelse.test, "if")
                self.branch_if(s.orelse)
            elif s.orelse is not None:
                self.run(s.orelse.body)
            return
        before = dict(self.env)
        self.run(s.body)
        ends = [] if terminates(s.body) else [self.env]
        self.env = dict(before)
        if isinstance(s.orelse, cst.If):
            self.test(s.orelse.test, "if")
            self.branch_if(s.orelse)
            if not orelse_terminates(s.orelse):
                ends.append(self.env)
        elif s.orelse is not None:
            self.run(s.orelse.body)
            if not terminates(s.orelse.body):
                ends.append(self.env)
        else:
            ends.append(before)
        self.env = self.join(ends) if ends else before

    def branch_try(self, s) -> None:
        quiet = self.quiet_block(s)
        before = dict(self.env)
        self.quiet += quiet
        self.run(s.body)
        self.quiet -= quiet
        if s.orelse is not None:
            self.run(s.orelse.body)
        ends = [self.env]
        for h in s.handlers:
            self.env = dict(before)
            self.run(h.body)
            if not terminates(h.body):
                ends.append(self.env)
        self.env = self.join(ends)
        if s.finalbody is not None:
            self.run(s.finalbody.body)

    def loop(self, node, body, target, orelse) -> None:
        before = dict(self.env)
        mark = self.first_iteration()
        if target is not None:
            self.loop_target(node, target)
        self.run(body)
        if self.repeats(body):
            self.env = self.next_iteration(before, self.env, mark)
            if target is not None:
                self.loop_target(node, target)
            outer, self.loop_node = self.loop_node, node
            self.run(body)
            self.loop_node = outer
        self.env = self.join([before, self.env])
        if orelse is not None:
            self.run(orelse.body)
