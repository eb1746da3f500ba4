"""``[tool.jaxlint]`` found as ``check`` finds it, read again when it changes (with or without
file watchers); a broken one is one message and the defaults; files changed on disk."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
from lsprotocol import types

from .helpers import TIMEOUT, capabilities, change, first_lines, initialize, open_file, published, rng, uri_of

pytestmark = pytest.mark.asyncio

BAD = "import jax\nparams = jax.tree_map(f, params)\n"
TREE_MAP = "`jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`"
FOUND = [("JAX801", TREE_MAP, (1, 9, 1, 21))]


def watched(client, *changes: tuple[str, types.FileChangeType]) -> None:
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri_of(client, name), type=kind) for name, kind in changes]
        )
    )


async def messages(client, count: int) -> list[str]:
    async def wait() -> list[str]:
        while len(client.messages) < count:
            await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
        return [m.message for m in client.messages]

    return await asyncio.wait_for(wait(), TIMEOUT)


async def test_the_server_asks_to_watch_python_files_notebooks_and_configuration(client):
    await initialize(client, {"a.py": BAD})
    uri = open_file(client, "a.py")
    await published(client, uri, 1)
    [registration] = client.registrations
    assert registration.method == "workspace/didChangeWatchedFiles"
    assert [w["globPattern"] for w in registration.register_options["watchers"]] == [
        "**/*.py",
        "**/*.ipynb",
        "**/pyproject.toml",
        "**/jaxlint.toml",
        "**/.jaxlint.toml",
        "**/setup.cfg",
        "**/requirements*.txt",
        "**/.gitignore",
    ]


async def test_the_configuration_is_read_again_when_it_changes(client):
    await initialize(client, {"pyproject.toml": '[tool.jaxlint]\nignore = ["JAX801"]\n', "a.py": BAD})
    uri = open_file(client, "a.py")
    assert await published(client, uri, 1) == []
    (client.root / "pyproject.toml").write_text('[tool.jaxlint]\nignore = ["JAX2"]\n')
    n = len(client.published)
    watched(client, ("pyproject.toml", types.FileChangeType.Changed))
    assert first_lines(await published(client, uri, 1, after=n)) == FOUND


async def test_a_changed_configuration_is_found_without_file_watchers_too(client):
    await initialize(
        client, {"pyproject.toml": '[tool.jaxlint]\nignore = ["JAX801"]\n', "a.py": BAD}, capabilities("neovim")
    )
    assert client.registrations == []  # neovim registers no file watchers
    uri = open_file(client, "a.py")
    assert await published(client, uri, 1) == []
    (client.root / "pyproject.toml").write_text("[tool.jaxlint]\n")
    change(client, uri, 2, "# edited\n", rng(0, 0, 0, 0))
    assert first_lines(await published(client, uri, 2)) == [("JAX801", TREE_MAP, (2, 9, 2, 21))]


async def test_a_broken_configuration_is_one_message_and_the_server_serves_with_defaults(client):
    await initialize(client, {"pyproject.toml": '[tool.jaxlint]\nselect = ["JAX9999"]\n', "a.py": BAD})
    uri = open_file(client, "a.py")
    assert first_lines(await published(client, uri, 1)) == FOUND  # the defaults
    [message] = await messages(client, 1)
    assert client.messages[0].type == types.MessageType.Error
    assert message == (
        f"jaxlint: {client.root / 'pyproject.toml'}:2: `select`: unknown rule selector 'JAX9999' (see `jaxlint rules`); "
        "using the default settings until it is fixed"
    )
    change(client, uri, 2, "# edited\n", rng(0, 0, 0, 0))
    await published(client, uri, 2)
    (client.root / "pyproject.toml").write_text('[tool.jaxlint]\nselect = "JAX8"\n')  # still broken, differently
    watched(client, ("pyproject.toml", types.FileChangeType.Changed))
    second = (await messages(client, 2))[1]
    assert second == (
        f"jaxlint: {client.root / 'pyproject.toml'}:2: `select` must be a list; "
        "using the default settings until it is fixed"
    )
    (client.root / "pyproject.toml").write_text('[tool.jaxlint]\nignore = ["JAX801"]\n')  # fixed
    n = len(client.published)
    watched(client, ("pyproject.toml", types.FileChangeType.Changed))
    assert await published(client, uri, 1 + 1, after=n) == []
    assert len(client.messages) == 2


async def test_a_module_changed_on_disk_re_decides_the_open_files(client):
    sync = 'import jax\n\n\ndef sync_grads(grads):\n    return jax.lax.pmean(grads, axis_name="devices")\n'
    train = 'import jax\n\nfrom sync import sync_grads\n\np_step = jax.pmap(sync_grads, axis_name="{}")\n'
    await initialize(client, {"sync.py": sync, "train.py": train.format("batch")})
    uri = open_file(client, "sync.py")
    assert [d.code for d in await published(client, uri, 1)] == ["JAX201"]
    (client.root / "train.py").write_text(train.format("devices"))
    n = len(client.published)
    watched(client, ("train.py", types.FileChangeType.Changed))
    assert await published(client, uri, 1, after=n) == []
    (client.root / "train.py").unlink()
    (client.root / "train2.py").write_text(train.format("batch"))
    n = len(client.published)
    watched(client, ("train.py", types.FileChangeType.Deleted), ("train2.py", types.FileChangeType.Created))
    [d] = await published(client, uri, 1, after=n)
    assert "the pmap at train2.py:5 binds 'batch'" in d.message


async def test_each_file_has_the_configuration_nearest_above_it_as_check_gives_it(client):
    await initialize(client, {"a.py": BAD, "sub/jaxlint.toml": 'ignore = ["JAX801"]\n', "sub/b.py": BAD})
    top, sub = open_file(client, "a.py"), open_file(client, "sub/b.py")
    assert first_lines(await published(client, top, 1)) == FOUND
    assert await published(client, sub, 1) == []
    check = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--no-cache", "--output-format", "concise", "."],
        cwd=client.root,
        capture_output=True,
        text=True,
    )
    assert check.stdout.splitlines() == [f"a.py:2:10: JAX801 [*] {TREE_MAP}"]
