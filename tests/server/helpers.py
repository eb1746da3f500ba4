"""A real LSP client (pytest-lsp) driving ``jaxlint server`` over stdio, and helpers.

The client records every ``publishDiagnostics`` with its version, answers
``client/registerCapability`` and ``workspace/applyEdit`` (recording what it was asked),
and can open files and notebooks of a throw-away workspace.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

SERVER = [sys.executable, "-m", "jaxlint", "server", "--debounce-ms", "0"]
TIMEOUT = 60  # seconds a test waits for the server's answer (a loaded CI machine is slow, never this slow)


class Client(LanguageClient):
    """The test client: what the server published, registered and asked to apply."""

    published: list[types.PublishDiagnosticsParams]
    registrations: list[types.Registration]
    applied: list[types.ApplyWorkspaceEditParams]
    root: Path


def make_client() -> Client:
    client = Client(converter_factory=default_converter)
    client.published, client.registrations, client.applied = [], [], []
    features = dict(DEFAULT_CLIENT_FEATURES)

    def publish(ls: Client, params: types.PublishDiagnosticsParams) -> None:
        ls.diagnostics[params.uri] = params.diagnostics
        ls.published.append(params)

    def register(ls: Client, params: types.RegistrationParams) -> None:
        ls.registrations.extend(params.registrations)

    def apply(ls: Client, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        ls.applied.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    features[types.CLIENT_REGISTER_CAPABILITY] = register
    features[types.WORKSPACE_APPLY_EDIT] = apply
    register_lsp_features(client, features)
    return client


def server_fixture(command: list[str], env: dict[str, str] | None = None):
    @pytest_lsp.fixture(config=ClientServerConfig(server_command=command, client_factory=make_client, server_env=env))
    async def fixture(lsp_client: Client, tmp_path: Path):
        lsp_client.root = tmp_path / "project"
        lsp_client.root.mkdir()
        yield
        await lsp_client.shutdown_session()

    return fixture


def capabilities(name: str = "visual-studio-code", notebooks: bool = False) -> types.ClientCapabilities:
    caps = client_capabilities(name)
    if notebooks:
        caps.notebook_document = types.NotebookDocumentClientCapabilities(
            synchronization=types.NotebookDocumentSyncClientCapabilities(dynamic_registration=False)
        )
    return caps


async def initialize(
    client: Client,
    files: dict[str, str] | None = None,
    caps: types.ClientCapabilities | None = None,
    folder: bool = True,
) -> types.InitializeResult:
    """Write ``files`` into the workspace and initialize a session on it."""
    for name, text in (files or {}).items():
        path = client.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    uri = from_fs_path(str(client.root))
    params = types.InitializeParams(
        capabilities=caps or capabilities(),
        root_uri=uri if folder else None,
        workspace_folders=[types.WorkspaceFolder(uri=uri, name="project")] if folder else None,
    )
    return await client.initialize_session(params)


def uri_of(client: Client, name: str) -> str:
    return from_fs_path(str(client.root / name))


def open_file(client: Client, name: str, text: str | None = None, version: int = 1) -> str:
    uri = uri_of(client, name)
    if text is None:
        text = (client.root / name).read_text(encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
        )
    )
    return uri


def change(client: Client, uri: str, version: int, text: str, at: types.Range | None = None) -> None:
    """Replace the text of ``at`` (the whole document when None)."""
    event: Any = (
        types.TextDocumentContentChangeWholeDocument(text=text)
        if at is None
        else types.TextDocumentContentChangePartial(range=at, text=text)
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[event]
        )
    )


async def published(client: Client, uri: str, version: int | None = None, after: int = 0) -> list[types.Diagnostic]:
    """The diagnostics the server publishes for ``uri`` (at ``version``), waiting for them;
    only publications after the ``after``-th count."""

    async def wait() -> list[types.Diagnostic]:
        while True:
            for p in reversed(client.published[after:]):
                if p.uri == uri and (version is None or p.version == version):
                    return list(p.diagnostics)
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    return await asyncio.wait_for(wait(), TIMEOUT)


async def settled(client: Client, quiet: float = 1.5) -> None:
    """Wait until the server has published nothing for ``quiet`` seconds (it decides the
    project again after a pause in typing, and publishes what that changes)."""
    while True:
        try:
            await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), quiet)
        except TimeoutError:
            return


def rng(a: int, b: int, c: int, d: int) -> types.Range:
    return types.Range(start=types.Position(line=a, character=b), end=types.Position(line=c, character=d))


def first_lines(diags: list[types.Diagnostic]) -> list[tuple[str, str, tuple[int, int, int, int]]]:
    """(code, the message's first line, range) of each diagnostic, in order."""
    return [
        (
            str(d.code),
            d.message.split("\n")[0],
            (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character),
        )
        for d in diags
    ]
