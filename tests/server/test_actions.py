"""Code actions (each fix, "suppress on this line", "fix all safe fixes"), the fix-all
command, and hover: exact titles, kinds and edits."""

from __future__ import annotations

import subprocess
import sys

import pytest
from lsprotocol import types

from .helpers import SERVER, capabilities, change, initialize, open_file, published, rng, server_fixture

pytestmark = pytest.mark.asyncio

TRAIN = (
    "import jax\n"
    "\n"
    "\n"
    "def step(grads):\n"
    "    return grads\n"
    "\n"
    "\n"
    'p_step = jax.pmap(step, axis_name="batch")\n'
    "params = jax.tree_map(lambda p: p * 2, params)  # noqa: E501\n"
    "params = jax.tree_map(f, params)\n"
    'out = jax.tree_map(f, """a\n'
    'b""")\n'
    's = "# noqa: E1"; params = jax.tree_map(f, params)\n'
)
FIXED = TRAIN.replace("jax.tree_map", "jax.tree.map")
SHARD = (
    "import jax\nimport jax.numpy as jnp\n\n\ndef f(x):\n    return x.sum()\n\n\ny = jax.pmap(f)(jnp.ones((32, 10)))\n"
)


def at(line: int, character: int = 0) -> types.Range:
    return rng(line, character, line, character)


async def actions(client, uri: str, where: types.Range, only: list[str] | None = None) -> list[types.CodeAction]:
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=where,
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )
    return list(found or [])


def edits(action: types.CodeAction) -> list[tuple[str, int | None, tuple[int, int, int, int], str]]:
    """(uri, version, range, new text) of each edit of the action."""
    out = []
    assert action.edit is not None
    for change_ in action.edit.document_changes or []:
        for e in change_.edits:
            r = e.range
            out.append(
                (
                    change_.text_document.uri,
                    change_.text_document.version,
                    (r.start.line, r.start.character, r.end.line, r.end.character),
                    e.new_text,
                )
            )
    return out


async def test_a_fix_and_a_suppression_merged_into_the_noqa_already_there(client):
    await initialize(client, {"train.py": TRAIN})
    uri = open_file(client, "train.py")
    assert [str(d.code) for d in await published(client, uri, 1)] == ["JAX801"] * 4
    fix, quiet = await actions(client, uri, at(8, 12), only=["quickfix"])
    assert (fix.title, fix.kind, fix.is_preferred) == (
        "jaxlint (JAX801): Replace with `jax.tree.map`",
        "quickfix",
        True,
    )
    assert [str(d.code) for d in fix.diagnostics or []] == ["JAX801"]
    assert edits(fix) == [(uri, 1, (8, 9, 8, 21), "jax.tree.map")]
    assert (quiet.title, quiet.kind) == ("jaxlint (JAX801): Suppress JAX801 on this line", "quickfix")
    assert edits(quiet) == [(uri, 1, (8, 60, 8, 60), ", JAX801")]


async def test_a_suppression_is_a_new_comment_where_there_is_none(client):
    await initialize(client, {"train.py": TRAIN})
    uri = open_file(client, "train.py")
    await published(client, uri, 1)
    _, quiet = await actions(client, uri, at(9, 10), only=["quickfix"])
    assert edits(quiet) == [(uri, 1, (9, 32, 9, 32), "  # noqa: JAX801")]


async def test_a_suppression_goes_where_a_multi_line_string_ends_and_a_noqa_in_a_string_is_data(client):
    await initialize(client, {"train.py": TRAIN})
    uri = open_file(client, "train.py")
    await published(client, uri, 1)
    _, after_string = await actions(client, uri, at(10, 8), only=["quickfix"])
    assert edits(after_string) == [(uri, 1, (11, 5, 11, 5), "  # noqa: JAX801")]  # as --add-noqa places it
    _, look_alike = await actions(client, uri, at(12, 30), only=["quickfix"])
    end = len(TRAIN.splitlines()[12])
    assert edits(look_alike) == [(uri, 1, (12, end, 12, end), "  # noqa: JAX801")]


async def test_an_unsafe_fix_says_so_and_is_not_preferred(client):
    await initialize(client, {"shard.py": SHARD})
    uri = open_file(client, "shard.py")
    [d] = await published(client, uri, 1)
    assert d.code == "JAX203"
    fix, _ = await actions(client, uri, at(8, 20))
    assert fix.title == (
        "jaxlint (JAX203): Reshape so that the leading axis is the device count (unsafe fix: changes behaviour, review it)"
    )
    assert fix.is_preferred is False
    assert edits(fix) == [(uri, 1, (8, 16, 8, 34), "jnp.ones((32, 10)).reshape(jax.local_device_count(), -1, 10)")]


async def test_fix_all_is_resolved_into_the_edit_check_fix_makes(client):
    await initialize(client, {"train.py": TRAIN, "shard.py": SHARD})
    uri = open_file(client, "train.py")
    await published(client, uri, 1)
    [action] = await actions(client, uri, at(0), only=["source.fixAll"])
    assert (action.title, action.kind, action.edit, action.command) == (
        "jaxlint: Fix all safe fixes",
        "source.fixAll.jaxlint",
        None,
        None,
    )
    resolved = await client.code_action_resolve_async(action)
    copy = client.root.parent / "check" / "train.py"
    copy.parent.mkdir()
    copy.write_text(TRAIN)
    subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--fix", "--no-cache", "-q", str(copy)], capture_output=True
    )
    assert copy.read_text() == FIXED  # what `check --fix` makes of it
    fixed = FIXED.splitlines(True)
    assert edits(resolved) == [(uri, 1, (8, 0, 11, 0), "".join(fixed[8:11])), (uri, 1, (12, 0, 13, 0), fixed[12])]
    shard = open_file(client, "shard.py")
    await published(client, shard, 1)
    assert await actions(client, shard, at(0), only=["source.fixAll"]) == []  # only an unsafe fix: nothing to do


async def test_only_asks_for_kinds(client):
    await initialize(client, {"train.py": TRAIN})
    uri = open_file(client, "train.py")
    await published(client, uri, 1)
    assert [a.kind for a in await actions(client, uri, at(8, 12))] == ["quickfix", "quickfix", "source.fixAll.jaxlint"]
    assert [a.kind for a in await actions(client, uri, at(8, 12), only=["source"])] == ["source.fixAll.jaxlint"]
    assert await actions(client, uri, at(8, 12), only=["refactor"]) == []
    assert await actions(client, uri, at(1, 0), only=["quickfix"]) == []  # no diagnostic there


async def test_the_fix_all_command_applies_the_edit_where_the_client_cannot_resolve_one(client):
    await initialize(client, {"train.py": TRAIN}, capabilities("emacs"))  # no codeAction/resolve in eglot
    uri = open_file(client, "train.py")
    await published(client, uri, 1)
    # lsprotocol reads any code action with a `command` as a bare Command: read the JSON itself
    protocol = client.protocol
    protocol.get_result_type = lambda method: None  # type: ignore[method-assign]
    try:
        [action] = await protocol.send_request_async(
            types.TEXT_DOCUMENT_CODE_ACTION,
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=at(0),
                context=types.CodeActionContext(diagnostics=[], only=["source.fixAll"]),
            ),
        )
    finally:
        del protocol.get_result_type
    assert action == {
        "title": "jaxlint: Fix all safe fixes",
        "kind": "source.fixAll.jaxlint",
        "command": {"title": "jaxlint: Fix all safe fixes", "command": "jaxlint.applyFixAll", "arguments": [uri]},
        "data": {"uri": uri, "version": 1},
    }
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="jaxlint.applyFixAll", arguments=[uri])
    )
    [applied] = client.applied
    assert applied.label == "jaxlint: Fix all safe fixes"
    fixed = FIXED.splitlines(True)
    assert edits(types.CodeAction(title="", edit=applied.edit)) == [
        (uri, 1, (8, 0, 11, 0), "".join(fixed[8:11])),
        (uri, 1, (12, 0, 13, 0), fixed[12]),
    ]


async def test_hover_on_a_diagnostic_shows_the_rules_documentation(client):
    await initialize(client, {"train.py": TRAIN})
    uri = open_file(client, "train.py")
    await published(client, uri, 1)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=9, character=15)
        )
    )
    page = subprocess.run(
        [sys.executable, "-m", "jaxlint", "rule", "JAX801"], capture_output=True, text=True, check=True
    ).stdout
    assert hover is not None and hover.range == rng(9, 9, 9, 21)
    assert hover.contents == types.MarkupContent(kind=types.MarkupKind.Markdown, value=page.rstrip("\n"))
    nothing = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=1, character=0)
        )
    )
    assert nothing is None


slow = server_fixture([*SERVER[:-2], "--stdio", "--debounce-ms", "60000"])  # a change is not linted during the test


async def test_no_fix_is_offered_for_a_text_not_linted_yet(slow):
    await initialize(slow, {"train.py": TRAIN})
    uri = open_file(slow, "train.py")
    await published(slow, uri, 1)
    assert len(await actions(slow, uri, at(8, 12))) == 3
    change(slow, uri, 2, "# moved\n", at(0))
    assert await actions(slow, uri, at(8, 12)) == []
