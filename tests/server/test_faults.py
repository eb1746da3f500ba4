"""A bug in jaxlint never kills the server: a rule that crashes costs its findings on that
file (one JAX003 says so), a handler that raises answers nothing, and both are logged."""

from __future__ import annotations

import asyncio
import sys

import pytest
from lsprotocol import types

from .helpers import TIMEOUT, first_lines, initialize, open_file, published, rng, server_fixture

pytestmark = pytest.mark.asyncio

FAULTS = """
import sys
import libcst as cst
from jaxlint.lint import registry
from jaxlint.lint.rule import Rule
from jaxlint.server import handlers


class Failing(Rule):
    '''A rule with a bug: it raises on calls of `boom`.'''

    code = "JAX099"
    name = "failing"
    summary = "A rule with a bug"
    triggers = ("boom",)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "boom":
            raise ZeroDivisionError("boom")


_all = registry.all_rules
registry.all_rules = lambda: (*_all(), Failing)


def hover(self, params):
    raise ZeroDivisionError("hover")


handlers.JaxlintServer.hover = hover
from jaxlint.cli import main

sys.argv = ["jaxlint", "server", "--debounce-ms", "0"]
main()
"""

faulty = server_fixture([sys.executable, "-c", FAULTS])

TREE_MAP = "`jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`"


async def test_a_rule_that_crashes_costs_only_its_findings_and_says_so(faulty):
    config = '[tool.jaxlint]\nextend-select = ["JAX099"]\n'
    await initialize(
        faulty, {"pyproject.toml": config, "a.py": "import jax\nboom()\nparams = jax.tree_map(f, params)\n"}
    )
    uri = open_file(faulty, "a.py")
    assert first_lines(await published(faulty, uri, 1)) == [
        (
            "JAX003",
            "JAX099 (failing) did not check this file: internal error in jaxlint (ZeroDivisionError: boom (at <string>:19))",
            (0, 0, 0, 0),
        ),
        ("JAX801", TREE_MAP, (2, 9, 2, 21)),
    ]


async def test_a_handler_that_raises_answers_nothing_and_the_server_goes_on(faulty):
    await initialize(faulty, {"a.py": "import jax\nparams = jax.tree_map(f, params)\n"})
    uri = open_file(faulty, "a.py")
    await published(faulty, uri, 1)
    where = types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=1, character=12)
    )
    assert await faulty.text_document_hover_async(where) is None
    assert await faulty.text_document_hover_async(where) is None
    found = await faulty.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng(1, 12, 1, 12),
            context=types.CodeActionContext(diagnostics=[], only=["quickfix"]),
        )
    )
    assert [a.title for a in found or []] == [
        "jaxlint (JAX801): Replace with `jax.tree.map`",
        "jaxlint (JAX801): Suppress JAX801 on this line",
    ]

    async def told() -> None:
        while not faulty.messages:
            await faulty.wait_for_notification(types.WINDOW_SHOW_MESSAGE)

    await asyncio.wait_for(told(), TIMEOUT)
    [message] = faulty.messages  # once, however often it fails
    assert message.message.startswith("jaxlint: internal error in textDocument/hover (ZeroDivisionError: hover)")
    logged = [m.message for m in faulty.log_messages if m.type == types.MessageType.Error]
    assert len(logged) == 2 and all("ZeroDivisionError: hover" in m for m in logged)
