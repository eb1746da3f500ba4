"""The protocol handlers: what the server does with each LSP message.

The event loop (pygls) only keeps track of documents, timers and what was published; all
engine work — reading the project, linting, deciding, fixing — runs on one worker thread,
in the order the events came, so the state (``jaxlint.server.state``) needs no locks.
Changes are debounced: a burst of keystrokes is linted once, at its latest text. Opening
and saving lint at once. A save, a close or a change on disk also decides the project's
slicing again (``Workspace.redecide``: a second or so on a thousand files, so not on every
keystroke). A handler that fails logs the failure and answers nothing; the server goes on
serving.
"""

from __future__ import annotations

import asyncio
import logging
import os
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from jaxlint import __version__
from jaxlint.server import actions
from jaxlint.server.diagnostics import ClientFeatures, rule_page
from jaxlint.server.notebooks import NotebookText, cell_sources, notebook_text
from jaxlint.server.publish import Publication
from jaxlint.server.state import Buffer
from jaxlint.server.workspace import Workspace, decides_settings

log = logging.getLogger("jaxlint.server")

DEBOUNCE = 0.1  # seconds after the last change before a buffer is linted
SOON = 0.2  # seconds after a save, a close or a change on disk before the project is decided again
WATCHED = (
    "**/*.py",
    "**/*.ipynb",
    "**/pyproject.toml",
    "**/jaxlint.toml",
    "**/.jaxlint.toml",
    "**/setup.cfg",
    "**/requirements*.txt",
    "**/.gitignore",
)


class JaxlintServer(LanguageServer):
    def __init__(self, debounce: float = DEBOUNCE, jobs: int | None = None) -> None:
        super().__init__(
            "jaxlint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                # no cell filter: every cell is synced, so cells are numbered as `check` numbers them
                notebook_selector=[types.NotebookDocumentFilterWithNotebook(notebook="jupyter-notebook")],
                save=True,
            ),
        )
        self.debounce = debounce
        self.jobs = jobs
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jaxlint-worker")
        self.state: Workspace | None = None
        self.client = ClientFeatures()
        self.shown: dict[str, Publication] = {}  # uri -> what was published (event loop's copy)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._faults_shown = False
        self.loads = 0  # projects read so far (a progress token each)

    # running work on the worker thread -----------------------------------------------------
    def run(self, fn: Callable[..., Any], *args: Any) -> asyncio.Future:
        """``fn(*args)`` on the worker thread; a failure is logged and gives None."""

        def guarded() -> Any:
            try:
                return fn(*args)
            except Exception as exc:
                self.fault(f"{getattr(fn, '__name__', fn)}", exc)
                return None

        assert self.loop is not None
        return self.loop.run_in_executor(self.worker, guarded)

    def later(self, key: str, delay: float, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the event loop after ``delay`` seconds, unless asked again before."""
        assert self.loop is not None
        old = self._timers.pop(key, None)
        if old is not None:
            old.cancel()
        self._timers[key] = self.loop.call_later(delay, fn)

    def lint_soon(self, delay: float = 0.0) -> None:
        self.later("lint", delay, self._lint)

    def redecide_soon(self, delay: float = SOON) -> None:
        self.later("redecide", delay, self._redecide)

    def _lint(self) -> None:
        if self.state is not None:
            self.run(self.state.publications).add_done_callback(self._publish)

    def _redecide(self) -> None:
        if self.state is None:
            return

        def done(f: asyncio.Future) -> None:
            if not f.cancelled() and f.result():
                self.lint_soon()

        self.run(self.state.redecide).add_done_callback(done)

    def _publish(self, f: asyncio.Future) -> None:
        if f.cancelled() or not f.result():
            return
        for pub in f.result():
            self.shown[pub.doc.uri] = pub
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=pub.doc.uri, diagnostics=pub.diagnostics, version=pub.doc.version)
            )

    def clear(self, uris: list[str]) -> None:
        for uri in uris:
            self.shown.pop(uri, None)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # messages to the user ------------------------------------------------------------------
    def threadsafe(self, fn: Callable[..., None], *args: Any) -> None:
        if self.loop is not None:
            self.loop.call_soon_threadsafe(fn, *args)

    def show(self, message: str) -> None:
        """One message the user sees (from any thread)."""
        self.threadsafe(
            self.window_show_message, types.ShowMessageParams(type=types.MessageType.Error, message=message)
        )

    def note(self, message: str) -> None:
        """A line in the client's log for the server (from any thread)."""
        log.warning("%s", message)
        self.threadsafe(
            self.window_log_message, types.LogMessageParams(type=types.MessageType.Warning, message=message)
        )

    def fault(self, where: str, exc: BaseException) -> None:
        """A bug in jaxlint: logged with its traceback; the user is told once per session."""
        detail = "".join(traceback.format_exception(exc)).rstrip()
        log.error("internal error in %s: %s", where, detail)
        self.threadsafe(
            self.window_log_message,
            types.LogMessageParams(
                type=types.MessageType.Error, message=f"jaxlint: internal error in {where}: {detail}"
            ),
        )
        if not self._faults_shown:
            self._faults_shown = True
            self.show(
                f"jaxlint: internal error in {where} ({type(exc).__name__}: {exc}); see the log. It keeps serving."
            )

    # documents -------------------------------------------------------------------------------
    def path_of(self, uri: str, language: str | None = None) -> str | None:
        """The engine path of a document jaxlint lints (a .py file, or an untitled Python buffer)."""
        if self.state is None:
            return None
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if path is not None:
            return self.state.engine_path(path) if path.endswith(".py") else None
        if uri.startswith("untitled:") and (language or "").lower() == "python":
            name = uri.split(":", 1)[1].rsplit("/", 1)[-1] or "untitled"
            return name if name.endswith(".py") else f"{name}.py"
        return None

    def notebook_of(self, uri: str) -> tuple[str, NotebookText] | None:
        """The engine path and current text of a synced notebook."""
        if self.state is None:
            return None
        nb = self.workspace.get_notebook_document(notebook_uri=uri)
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if nb is None or path is None:
            return None
        cells = {}
        for cell in nb.cells:
            doc = self.workspace.get_text_document(cell.document)
            cells[cell.document] = (doc.source, doc.language_id, doc.version)
        return self.state.engine_path(path), notebook_text(nb, cells)

    def current_version(self, uri: str) -> int | None:
        return self.workspace.get_text_document(uri).version

    def doc_of(self, pub: Publication) -> actions.DocOf:
        def find(cell: int | None) -> actions.TextDoc | None:
            if cell is None:
                return pub.doc if pub.notebook is None else None
            if pub.notebook is None:
                return None
            uri = pub.notebook.cell_uri(cell)
            other = self.shown.get(uri) if uri else None
            return other.doc if other is not None else None

        return find

    # code actions ------------------------------------------------------------------------------
    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        pub = self.shown.get(uri)
        if pub is None or pub.doc.version != self.current_version(uri):
            return []  # not linted at this text yet: an edit computed for another text would break it
        only = params.context.only
        versioned = self.client_capabilities_documents()
        out: list[types.CodeAction] = []
        if actions.wanted(types.CodeActionKind.QuickFix, only):
            fixes: list[types.CodeAction] = []
            suppressions: list[types.CodeAction] = []
            for d, lsp in pub.items:
                if not actions.overlaps(lsp.range, params.range):
                    continue
                fix = actions.fix_action(d, lsp, self.doc_of(pub), self.client.encoding, versioned)
                if fix is not None:
                    fixes.append(fix)
                quiet = actions.suppress_action(d, lsp, pub.doc, self.client.encoding, versioned)
                if quiet is not None and all(q.title != quiet.title for q in suppressions):
                    suppressions.append(quiet)
            out += fixes + suppressions
        if actions.wanted(actions.FIX_ALL, only) and self._has_safe_fix(pub):
            action = actions.fix_all_action(uri, pub.doc.version)
            if not self.client_resolves_edits():
                action.command = types.Command(
                    title=action.title, command=actions.FIX_ALL_COMMAND, arguments=[uri]
                )  # the client runs it; the server computes the edit then
            out.append(action)
        return out

    def _has_safe_fix(self, pub: Publication) -> bool:
        pubs = [pub]
        if pub.notebook is not None:
            pubs = [self.shown[u] for u in pub.notebook.cells if u in self.shown]
        return any(d.fix is not None and d.fix.applicability == "safe" for p in pubs for d, _ in p.items)

    async def fix_all_edit(self, uri: str) -> types.WorkspaceEdit | None:
        """The edit of "fix all safe fixes" for the file (or notebook) of document ``uri``."""
        if self.state is None:
            return None
        pub = self.shown.get(uri)
        path = pub.path if pub is not None else self.path_of(uri)
        if path is None:
            return None
        found = await self.run(self.state.fix_all, path)
        if found is None:
            return None
        buf, new = found
        if new == buf.text:
            return None
        versioned = self.client_capabilities_documents()
        if buf.notebook is None:
            edits = actions.text_edits(buf.text, new, self.client.encoding)
            return actions.workspace_edit({buf.uri: (buf.version, edits)}, versioned)
        sources = cell_sources(new)
        changes = {}
        for number, cell_uri in enumerate(buf.notebook.cells, 1):
            old = buf.notebook.texts[number - 1]
            if number in sources and sources[number] != old:
                changes[cell_uri] = (
                    buf.notebook.versions[number - 1],
                    actions.text_edits(old, sources[number], self.client.encoding),
                )
        return actions.workspace_edit(changes, versioned) if changes else None

    # what the client can do ------------------------------------------------------------------------
    def client_capabilities_documents(self) -> bool:
        ws = self.client_capabilities.workspace
        return bool(ws and ws.workspace_edit and ws.workspace_edit.document_changes)

    def client_resolves_edits(self) -> bool:
        ca = self.client_capabilities.text_document and self.client_capabilities.text_document.code_action
        support = ca.resolve_support if ca else None
        return bool(support and "edit" in support.properties)

    # hover -------------------------------------------------------------------------------------------
    def hover(self, params: types.HoverParams) -> types.Hover | None:
        pub = self.shown.get(params.text_document.uri)
        if pub is None:
            return None
        p = params.position
        codes: list[str] = []
        first: types.Range | None = None
        for d, lsp in pub.items:
            r = lsp.range
            if (r.start.line, r.start.character) <= (p.line, p.character) <= (r.end.line, r.end.character):
                if d.code not in codes:
                    codes.append(d.code)
                first = first or r
        pages = [page for page in map(rule_page, codes) if page]
        if not pages:
            return None
        markdown = types.MarkupKind.Markdown in (self.hover_formats() or [types.MarkupKind.PlainText])
        kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
        return types.Hover(contents=types.MarkupContent(kind=kind, value="\n\n---\n\n".join(pages)), range=first)

    def hover_formats(self) -> Sequence[types.MarkupKind] | None:
        td = self.client_capabilities.text_document
        return td.hover.content_format if td and td.hover else None


def client_features(caps: types.ClientCapabilities, encoding: str) -> ClientFeatures:
    pd = caps.text_document.publish_diagnostics if caps.text_document else None
    tags = frozenset(t.value for t in (pd.tag_support.value_set if pd and pd.tag_support else []))
    return ClientFeatures(
        encoding=encoding,
        related=bool(pd and pd.related_information),
        tags=tags,
        code_description=bool(pd and pd.code_description_support),
    )


def _encoding(server: JaxlintServer) -> str:
    enc = server.workspace.position_encoding
    value = getattr(enc, "value", enc) or "utf-16"
    return str(value)


def create(debounce: float = DEBOUNCE, jobs: int | None = None) -> JaxlintServer:
    """The server with every handler registered."""
    server = JaxlintServer(debounce, jobs)

    @server.feature(types.INITIALIZE)
    def initialize(ls: JaxlintServer, params: types.InitializeParams) -> None:
        ls.loop = asyncio.get_running_loop()
        ls.client = client_features(params.capabilities, _encoding(ls))
        given = [to_fs_path(f.uri) for f in params.workspace_folders or []]
        if not given and (params.root_uri or params.root_path):
            given = [to_fs_path(params.root_uri) if params.root_uri else params.root_path]
        folders = [os.path.abspath(f) for f in given if f and os.path.isdir(f)]
        home = folders[0] if folders else None
        if home is not None:
            os.chdir(home)  # paths relative to it, as `jaxlint check` run there names them
        ls.state = Workspace(folders, ls.client, ls.show, ls.note, jobs=ls.jobs, home=home)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: JaxlintServer, params: types.InitializedParams) -> None:
        if ls.state is None:
            return
        folders = list(ls.state.folders)  # the ones added meanwhile are read by their own event
        await _watch_files(ls)
        for folder in folders:
            await _load(ls, folder)
        ls.lint_soon()

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: JaxlintServer, params: None) -> None:
        for timer in ls._timers.values():
            timer.cancel()
        ls._timers.clear()
        ls.worker.shutdown(wait=False, cancel_futures=True)

    # text documents ---------------------------------------------------------------------------
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: JaxlintServer, params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        path = ls.path_of(doc.uri, doc.language_id)
        if path is None or ls.state is None:
            return
        ls.run(ls.state.open, Buffer(path, doc.uri, doc.text, doc.version))
        ls.lint_soon()

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: JaxlintServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = ls.workspace.get_text_document(uri)
        path = ls.path_of(uri, doc.language_id)
        if path is None or ls.state is None:
            return
        ls.run(ls.state.update, path, doc.source, doc.version)
        ls.lint_soon(ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: JaxlintServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if ls.state is None:
            return
        if path is not None and decides_settings(os.path.basename(path)):
            ls.run(ls.state.refresh_config, True)
            ls.lint_soon()
            if not path.endswith(".py"):
                return
        engine = ls.path_of(uri)
        if engine is None:
            return
        ls.run(ls.state.saved, engine)
        ls.lint_soon()
        ls.redecide_soon()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: JaxlintServer, params: types.DidCloseTextDocumentParams) -> None:
        path = ls.path_of(params.text_document.uri, "python")
        if path is None or ls.state is None:
            return
        ls.run(ls.state.close, path).add_done_callback(lambda f: ls.clear(f.result() or []))
        ls.redecide_soon()

    # notebooks ------------------------------------------------------------------------------------
    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(ls: JaxlintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        found = ls.notebook_of(params.notebook_document.uri)
        if found is None or ls.state is None:
            return
        path, nb = found
        ls.run(ls.state.open, Buffer(path, params.notebook_document.uri, nb.text, params.notebook_document.version, nb))
        ls.lint_soon()

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(ls: JaxlintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        found = ls.notebook_of(params.notebook_document.uri)
        if found is None or ls.state is None:
            return
        path, nb = found
        old = [u for u, pub in ls.shown.items() if pub.owner == params.notebook_document.uri]
        ls.run(ls.state.update, path, nb.text, params.notebook_document.version, nb)
        ls.clear([u for u in old if u not in nb.cells])  # cells deleted: their diagnostics go too
        ls.lint_soon(ls.debounce)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_save(ls: JaxlintServer, params: types.DidSaveNotebookDocumentParams) -> None:
        found = ls.notebook_of(params.notebook_document.uri)
        if found is None or ls.state is None:
            return
        ls.run(ls.state.saved, found[0])
        ls.lint_soon()
        ls.redecide_soon()

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_close(ls: JaxlintServer, params: types.DidCloseNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if path is None or ls.state is None:
            return
        cells = [c.uri for c in params.cell_text_documents]
        ls.run(ls.state.close, ls.state.engine_path(path)).add_done_callback(
            lambda f: ls.clear(sorted(set(f.result() or []) | set(cells)))
        )
        ls.redecide_soon()

    # files on disk ----------------------------------------------------------------------------------
    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: JaxlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        if ls.state is None:
            return
        kinds = {
            types.FileChangeType.Created: "created",
            types.FileChangeType.Changed: "changed",
            types.FileChangeType.Deleted: "deleted",
        }
        events, config = [], False
        for change in params.changes:
            path = to_fs_path(change.uri) if change.uri.startswith("file:") else None
            if path is None:
                continue
            name = os.path.basename(path)
            if decides_settings(name):
                config = True
            if name == ".gitignore":
                events.append((os.path.join(os.path.dirname(path), "_"), "created"))  # what is discovered may change
            if name.endswith((".py", ".ipynb")):
                events.append((path, kinds.get(change.type, "changed")))
        if config:
            ls.run(ls.state.refresh_config, True)
            ls.lint_soon()
        if events:
            ls.run(ls.state.disk_changed, events).add_done_callback(
                lambda f: ls.redecide_soon() if not f.cancelled() and f.result() else None
            )

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def folders_changed(ls: JaxlintServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        if ls.state is None:
            return

        def paths(folders: Sequence[types.WorkspaceFolder]) -> list[str]:
            return [os.path.abspath(p) for f in folders if (p := to_fs_path(f.uri))]

        added = [f for f in paths(params.event.added) if os.path.isdir(f)]
        removed = paths(params.event.removed)
        await ls.run(ls.state.change_folders, added, removed)
        for folder in added:
            await _load(ls, folder)
        ls.lint_soon()

    # code actions, commands, hover ----------------------------------------------------------------------
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, actions.FIX_ALL], resolve_provider=True
        ),
    )
    def code_action(ls: JaxlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        try:
            return ls.code_actions(params) or None
        except Exception as exc:
            ls.fault("textDocument/codeAction", exc)
            return None

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: JaxlintServer, action: types.CodeAction) -> types.CodeAction:
        if action.kind == actions.FIX_ALL and isinstance(action.data, dict) and action.edit is None:
            try:
                action.edit = await ls.fix_all_edit(str(action.data.get("uri")))
            except Exception as exc:
                ls.fault("codeAction/resolve", exc)
            if action.edit is None:
                action.edit = types.WorkspaceEdit(changes={})
        return action

    @server.command(actions.FIX_ALL_COMMAND)
    async def apply_fix_all(ls: JaxlintServer, *args: Any) -> None:
        uri = args[0] if args else None
        if isinstance(uri, dict):
            uri = uri.get("uri")
        if not isinstance(uri, str):
            raise ValueError(f"{actions.FIX_ALL_COMMAND} takes the document's URI")
        edit = await ls.fix_all_edit(uri)
        if edit is not None:
            await ls.workspace_apply_edit_async(
                types.ApplyWorkspaceEditParams(edit=edit, label="jaxlint: Fix all safe fixes")
            )

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: JaxlintServer, params: types.HoverParams) -> types.Hover | None:
        try:
            return ls.hover(params)
        except Exception as exc:
            ls.fault("textDocument/hover", exc)
            return None

    return server


async def _load(ls: JaxlintServer, folder: str) -> None:
    """Read a folder's project, with a progress bar where the client shows one."""
    assert ls.state is not None
    token = None
    caps = ls.client_capabilities.window
    if caps is not None and caps.work_done_progress:
        ls.loads += 1
        token = f"jaxlint-{ls.loads}"
        try:
            await ls.work_done_progress.create_async(token)
            ls.work_done_progress.begin(
                token, types.WorkDoneProgressBegin(title="jaxlint", message="reading the project", percentage=0)
            )
        except Exception:
            token = None
    last = [0.0]

    def progress(done: int, total: int) -> None:
        if token is None or not total:
            return
        share = done / total
        if share - last[0] >= 0.05 or done == total:
            last[0] = share
            ls.threadsafe(
                ls.work_done_progress.report,
                token,
                types.WorkDoneProgressReport(message=f"{done}/{total} files", percentage=int(share * 100)),
            )

    await ls.run(ls.state.load, folder, progress)
    if token is not None:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message="ready"))


async def _watch_files(ls: JaxlintServer) -> None:
    """Ask the client to report changes of Python files, notebooks and configuration."""
    ws = ls.client_capabilities.workspace
    watch = ws.did_change_watched_files if ws else None
    if not (watch and watch.dynamic_registration):
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=g) for g in WATCHED]
    )
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="jaxlint-watched-files",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=options,
                    )
                ]
            )
        )
    except Exception as exc:
        ls.note(
            f"jaxlint: the client did not register the file watchers ({exc}); files changed outside the editor are read again only when saved here"
        )
