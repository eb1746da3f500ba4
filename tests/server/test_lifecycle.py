"""The session: what ``initialize`` answers, ``shutdown``/``exit``, and the command lines the
README's editor snippets start, run verbatim."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from lsprotocol import types

import jaxlint

from .helpers import first_lines, initialize, open_file, published, server_fixture

ROOT = Path(__file__).resolve().parents[2]
BIN = os.path.dirname(sys.executable)  # where this environment's `jaxlint` script is


def editor_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## In the editor: `jaxlint server`")
    return text[start : text.index("\n## ", start + 1)]


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)\n```", editor_section(), re.S)


def readme_commands() -> dict[str, list[str]]:
    """The command line each editor snippet of the README starts."""
    out = {}
    [vscode] = blocks("json")
    settings = json.loads(vscode)
    out["vscode"] = [settings["glspc.server.command"], *settings["glspc.server.commandArguments"]]
    for i, lua in enumerate(blocks("lua")):
        [cmd] = re.findall(r"cmd = \{([^}]*)\}", lua)
        out[f"neovim {i + 1}"] = re.findall(r'"([^"]*)"', cmd)
    [helix] = blocks("toml")
    server = tomllib.loads(helix)["language-server"]["jaxlint"]
    out["helix"] = [server["command"], *server["args"]]
    [elisp] = blocks("elisp")
    [program] = re.findall(r"\. \(([^)]*)\)\)", elisp)
    out["emacs"] = re.findall(r'"([^"]*)"', program)
    return out


def test_every_editor_snippet_starts_jaxlint_server():
    commands = readme_commands()
    assert sorted(commands) == ["emacs", "helix", "neovim 1", "neovim 2", "neovim 3", "vscode"]
    assert all(c == ["jaxlint", "server"] for c in commands.values()), commands


as_written = server_fixture(
    readme_commands()["vscode"], env={**os.environ, "PATH": BIN + os.pathsep + os.environ.get("PATH", "")}
)


@pytest.mark.asyncio
async def test_the_readme_command_line_serves_and_exits_cleanly(as_written):
    result = await initialize(as_written, {"a.py": "import jax\nparams = jax.tree_map(f, params)\n"})
    assert result.server_info == types.ServerInfo(name="jaxlint", version=jaxlint.__version__)
    caps = result.capabilities
    assert caps.text_document_sync == types.TextDocumentSyncOptions(
        open_close=True,
        change=types.TextDocumentSyncKind.Incremental,
        will_save=False,
        will_save_wait_until=False,
        save=True,
    )
    assert caps.code_action_provider == types.CodeActionOptions(
        code_action_kinds=("quickfix", "source.fixAll.jaxlint"), resolve_provider=True
    )
    assert caps.hover_provider is True
    assert caps.execute_command_provider == types.ExecuteCommandOptions(commands=("jaxlint.applyFixAll",))
    assert caps.completion_provider is None and caps.document_formatting_provider is None  # nothing else
    uri = open_file(as_written, "a.py")
    assert [c for c, _, _ in first_lines(await published(as_written, uri, 1))] == ["JAX801"]
    await as_written.shutdown_session()
    assert as_written._server is not None and as_written._server.returncode == 0
    as_written.capabilities = None  # the fixture's teardown: the session is over


def test_without_the_server_extra_it_says_how_to_install_it():
    hide = "import sys; sys.modules['pygls'] = None; from jaxlint.cli import main; sys.argv = ['jaxlint', 'server']; main()"
    p = subprocess.run([sys.executable, "-c", hide], capture_output=True, text=True, timeout=120)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == "jaxlint: error: `jaxlint server` needs the server extra: pip install 'jaxlint[server]'\n"
