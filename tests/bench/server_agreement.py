"""Do ``jaxlint server``'s diagnostics agree with ``jaxlint check``? (a script, not a test)

    python tests/bench/server_agreement.py [--corpus /work/corpus] [--repos jax,flax,...]
        [--sample 40] [--server "python -m jaxlint server"] [--check "python -m jaxlint"]

For each repository, a copy is linted by ``check --output-format json --no-cache .`` and
served by the server (a workspace folder at the copy, a fresh cache). A sample of its
files — every file ``check`` reports (up to ``--sample``), as many others chosen at
random (seeded), and up to five notebooks — is opened in the server, twice:

- as it is on disk (the server answers from the project it read, as ``check`` does);
- edited: a comment line appended at the end (the server lints the buffer itself, sliced
  by its own plan and what the project needs of it; no finding may move or change).
  Notebooks are opened through LSP notebook sync, their cells as the file has them.

With ``--preview`` the copy's ``pyproject.toml`` gets ``[tool.jaxlint] preview = true``
(the stable rules report little on these repositories). Compared per file: each diagnostic's code, start and end (1-based line and column, in the
cell for notebooks), and message (the LSP message's first line). Prints one line per
repository and every difference; exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

REPOS = ("jax", "flax", "optax", "equinox", "big_vision", "dm-haiku", "trax", "numpyro")
TIMEOUT = 900.0
Found = list[tuple[str, int | None, tuple[int, int], tuple[int, int], str]]  # code, cell, start, end, message


async def drain(stream: asyncio.StreamReader | None) -> None:
    """Read the server's stderr (a full pipe would stop it); its lines go to ours."""
    while stream is not None and (line := await stream.readline()):
        sys.stderr.buffer.write(line)


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("jaxlint-agreement", "1")
        self.published: dict[tuple[str, int | None], list[types.Diagnostic]] = {}
        self.event = asyncio.Event()
        self.tasks: list[asyncio.Task] = []


def make_client() -> Client:
    client = Client()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(ls: Client, params: types.PublishDiagnosticsParams) -> None:
        ls.published[(params.uri, params.version)] = list(params.diagnostics)
        ls.event.set()

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def progress(ls: Client, params: types.WorkDoneProgressCreateParams) -> None:
        return None

    @client.feature(types.PROGRESS)
    def report(ls: Client, params: types.ProgressParams) -> None:
        return None

    @client.feature(types.WINDOW_SHOW_MESSAGE)
    def show(ls: Client, params: types.ShowMessageParams) -> None:
        print(f"  server message: {params.message}", file=sys.stderr)

    return client


async def diagnostics(client: Client, uri: str, version: int) -> list[types.Diagnostic]:
    async def wait() -> list[types.Diagnostic]:
        while (uri, version) not in client.published:
            client.event.clear()
            await client.event.wait()
        return client.published[(uri, version)]

    return await asyncio.wait_for(wait(), TIMEOUT)


def lines_of(text: str) -> list[str]:
    import re

    out = re.split(r"\r\n|\r|\n", text)
    return out[:-1] if out and out[-1] == "" else out


def column(line: str, units: int) -> int:
    """1-based character column of a UTF-16 offset."""
    n = 0
    for i, c in enumerate(line):
        if n >= units:
            return i + 1
        n += 2 if ord(c) > 0xFFFF else 1
    return len(line) + 1


def position(lines: list[str], p: types.Position) -> tuple[int, int]:
    text = lines[p.line] if p.line < len(lines) else ""
    return (p.line + 1, column(text, p.character))


def from_server(diags: list[types.Diagnostic], text: str, cell: int | None = None) -> Found:
    lines = lines_of(text)
    return [
        (str(d.code), cell, position(lines, d.range.start), position(lines, d.range.end), d.message.split("\n")[0])
        for d in diags
    ]


def from_check(items: list[dict]) -> Found:
    return [
        (
            d["code"],
            d.get("cell"),
            (d["location"]["row"], d["location"]["column"]),
            (d["end_location"]["row"], d["end_location"]["column"]),
            d["message"],
        )
        for d in items
    ]


def key(x: tuple) -> tuple:
    return (x[1] or 0, x[2], x[0], x[4])


async def serve_file(client: Client, path: Path, version: int, edited: bool) -> Found:
    uri = from_fs_path(str(path))
    text = path.read_text(encoding="utf-8")
    if not edited:
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
            )
        )
        return from_server(await diagnostics(client, uri, version), text)
    end = lines_of(text)
    tail = "" if text.endswith(("\n", "\r")) or not text else "\n"
    at = (
        types.Position(line=len(end), character=0)
        if not tail
        else types.Position(line=len(end) - 1, character=len(end[-1]))
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=at, end=at), text=tail + "# an edit at the end of the file\n"
                )
            ],
        )
    )
    return from_server(await diagnostics(client, uri, version), text)


async def serve_notebook(client: Client, path: Path) -> Found:
    nb = json.loads(path.read_text(encoding="utf-8"))
    uri = from_fs_path(str(path))
    cells, docs, texts = [], [], []
    for i, c in enumerate(nb.get("cells", []), 1):
        source = c.get("source", "")
        text = "".join(source) if isinstance(source, list) else source
        code = c.get("cell_type") == "code"
        language = (c.get("metadata", {}).get("vscode", {}) or {}).get("languageId") or (
            "python" if code else "markdown"
        )
        cell_uri = f"{uri}#cell{i}"
        cells.append(
            types.NotebookCell(
                kind=types.NotebookCellKind.Code if code else types.NotebookCellKind.Markup, document=cell_uri
            )
        )
        docs.append(types.TextDocumentItem(uri=cell_uri, language_id=language, version=1, text=text))
        texts.append(text)
    meta = {k: v for k, v in (nb.get("metadata") or {}).items() if k in ("language_info", "kernelspec")}
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=uri, notebook_type="jupyter-notebook", version=1, cells=cells, metadata=meta
            ),
            cell_text_documents=docs,
        )
    )
    out: Found = []
    for i, doc in enumerate(docs, 1):
        out += from_server(await diagnostics(client, doc.uri, 1), texts[i - 1], i)
    return out


async def repo(name: str, args, work: Path) -> tuple[int, int, int, list[str]]:
    """(files compared, notebooks among them, check's diagnostics in them, differences)."""
    src = Path(args.corpus) / name
    root = work / name
    shutil.copytree(src, root, ignore=shutil.ignore_patterns(".git", ".jaxlint_cache"), symlinks=True)
    if args.preview:  # the same configuration for both: found by each as it finds it
        config = root / "pyproject.toml"
        before = config.read_text(encoding="utf-8") if config.exists() else ""
        config.write_text(before + "\n[tool.jaxlint]\npreview = true\n", encoding="utf-8")
    env = dict(os.environ, XDG_CACHE_HOME=str(work / "cache-home"))
    env.pop("JAXLINT_NO_SLICING", None)
    run = subprocess.run(
        [*shlex.split(args.check), "check", "--output-format", "json", "--no-cache", "."],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
    )
    if run.returncode not in (0, 1):
        return 0, 0, 0, [f"{name}: check failed ({run.returncode}): {run.stderr.strip()}"]
    by_file: dict[str, Found] = {}
    for d in json.loads(run.stdout):
        by_file.setdefault(os.path.normpath(d["filename"]), []).extend(from_check([d]))
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))
    notebooks = sorted(str(p.relative_to(root)) for p in root.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    rng = random.Random(f"jaxlint-{name}")
    reported = sorted(f for f in by_file if f.endswith(".py"))
    rng.shuffle(reported)
    others = [f for f in files if f not in by_file]
    sample = reported[: args.sample] + rng.sample(others, min(len(others), args.sample))
    nb_sample = [n for n in notebooks if n in by_file][:3] + rng.sample(notebooks, min(len(notebooks), 2))
    nb_sample = list(dict.fromkeys(nb_sample))[:5]
    client = make_client()
    await client.start_io(*shlex.split(args.server), env=env, cwd=str(root))
    client.tasks.append(asyncio.create_task(drain(client._server.stderr if client._server else None)))
    uri = from_fs_path(str(root))
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                notebook_document=types.NotebookDocumentClientCapabilities(
                    synchronization=types.NotebookDocumentSyncClientCapabilities()
                ),
                window=types.WindowClientCapabilities(work_done_progress=True),
            ),
            process_id=os.getpid(),
            root_uri=uri,
            workspace_folders=[types.WorkspaceFolder(uri=uri, name=name)],
        )
    )
    client.initialized(types.InitializedParams())
    differences: list[str] = []
    compared = 0
    for f in sample:
        expected = sorted(by_file.get(f, []), key=key)
        compared += len(expected)
        for version, edited in ((1, False), (2, True)):
            got = sorted(await serve_file(client, root / f, version, edited), key=key)
            if got != expected:
                what = "edited" if edited else "opened"
                differences.append(f"{name}/{f} ({what}):\n    check:  {expected}\n    server: {got}")
    for n in nb_sample:
        expected = sorted(by_file.get(n, []), key=key)
        got = sorted(await serve_notebook(client, root / n), key=key)
        compared += len(expected)
        if got != expected:
            differences.append(f"{name}/{n} (notebook sync):\n    check:  {expected}\n    server: {got}")
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    shutil.rmtree(root, ignore_errors=True)
    return len(sample) + len(nb_sample), len(nb_sample), compared, differences


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="/work/corpus")
    ap.add_argument("--repos", default=",".join(REPOS))
    ap.add_argument("--sample", type=int, default=40)
    ap.add_argument("--preview", action="store_true", help="also preview rules (`preview = true` in the copy)")
    ap.add_argument("--server", default=f"{sys.executable} -m jaxlint server --debounce-ms 0")
    ap.add_argument("--check", default=f"{sys.executable} -m jaxlint")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="jaxlint-agreement-"))
    total_diff = 0
    try:
        for name in args.repos.split(","):
            files, notebooks, compared, differences = await repo(name, args, work)
            total_diff += len(differences)
            print(
                f"{name}: {files} files ({notebooks} notebooks), {compared} diagnostics of check in them, "
                f"each file opened and edited: {len(differences)} differences",
                flush=True,
            )
            for d in differences:
                print("  " + d, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if total_diff else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
