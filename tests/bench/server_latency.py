"""Latency of ``jaxlint server`` seen from a real LSP client over stdio (a benchmark, not a test).

    python tests/bench/server_latency.py [--tree /work/corpus/jax] [--file tests/custom_linear_solve_test.py]
        [--edits 50] [--server "jaxlint server"] [--opened 10]

The tree is copied to a temporary folder (the server writes ``.jaxlint_cache/`` there) and
the server runs with its own, new cache key folder. Measured, as wall time from the
client's message to the ``publishDiagnostics`` that answers it:

1. first diagnostics of a file opened right after ``initialize`` with no cache: the whole
   project read cold (what the first session on a project costs);
2. the same in a second session (the project read back from ``.jaxlint_cache/``);
3. first diagnostics of files newly opened once the project is read (median of ``--opened``);
4. the file re-linted after each of ``--edits`` edits (a comment line inserted at a varying
   place, each sent when the previous answer came), project facts cached: median and p95,
   with ``--debounce-ms 0`` so the number is the server's work, not its waiting;
5. the same edits with a pause of ``--pause`` seconds before each, so the server decides
   the project's slicing again between them (what typing with pauses costs).

The server command is run as given (``--server``): measure a fresh install by pointing it
at that virtual environment's ``jaxlint``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

TIMEOUT = 600.0


async def drain(stream: asyncio.StreamReader | None) -> None:
    """Read the server's stderr (a full pipe would stop it); its lines go to ours."""
    while stream is not None and (line := await stream.readline()):
        sys.stderr.buffer.write(line)


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("jaxlint-bench", "1")
        self.arrived: dict[tuple[str, int | None], float] = {}
        self.event = asyncio.Event()
        self.tasks: list[asyncio.Task] = []


def make_client() -> Client:
    client = Client()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(ls: Client, params: types.PublishDiagnosticsParams) -> None:
        ls.arrived.setdefault((params.uri, params.version), time.perf_counter())
        ls.event.set()

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def log(ls: Client, params: types.LogMessageParams) -> None:
        print(f"  server log: {params.message}", file=sys.stderr)

    @client.feature(types.WINDOW_SHOW_MESSAGE)
    def show(ls: Client, params: types.ShowMessageParams) -> None:
        print(f"  server message: {params.message}", file=sys.stderr)

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def progress(ls: Client, params: types.WorkDoneProgressCreateParams) -> None:
        return None

    @client.feature(types.PROGRESS)
    def report(ls: Client, params: types.ProgressParams) -> None:
        return None

    return client


async def answer(client: Client, uri: str, version: int | None) -> float:
    """When the diagnostics of ``uri`` at ``version`` arrived (waiting for them)."""

    async def wait() -> float:
        while (uri, version) not in client.arrived:
            client.event.clear()
            await client.event.wait()
        return client.arrived[(uri, version)]

    return await asyncio.wait_for(wait(), TIMEOUT)


async def session(command: list[str], root: Path, env: dict[str, str]) -> Client:
    client = make_client()
    await client.start_io(*command, env=env)
    client.tasks.append(asyncio.create_task(drain(client._server.stderr if client._server else None)))
    caps = types.ClientCapabilities(
        window=types.WindowClientCapabilities(work_done_progress=True),
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(related_information=True)
        ),
    )
    uri = from_fs_path(str(root))
    await client.initialize_async(
        types.InitializeParams(
            capabilities=caps,
            process_id=os.getpid(),
            root_uri=uri,
            workspace_folders=[types.WorkspaceFolder(uri=uri, name=root.name)],
        )
    )
    client.initialized(types.InitializedParams())
    return client


def open_doc(client: Client, path: Path, version: int = 1) -> str:
    uri = from_fs_path(str(path))
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=version, text=path.read_text(encoding="utf-8")
            )
        )
    )
    return uri


async def stop(client: Client) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


async def edits(client: Client, uri: str, text: str, count: int, pause: float, first: int) -> list[float]:
    """Insert a comment line ``count`` times (at a place that moves through the file)."""
    lines = text.count("\n")
    out = []
    for i in range(count):
        if pause:
            await asyncio.sleep(pause)
        line = (i * 37) % max(1, lines)
        version = first + i
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)
                        ),
                        text=f"# edit {i}\n",
                    )
                ],
            )
        )
        out.append(await answer(client, uri, version) - sent)
        lines += 1
    return out


def p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


def ms(x: float) -> str:
    return f"{x * 1000:.0f} ms"


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", default="/work/corpus/jax")
    ap.add_argument("--file", default="tests/custom_linear_solve_test.py")
    ap.add_argument("--edits", type=int, default=50)
    ap.add_argument("--pause", type=float, default=1.5)
    ap.add_argument("--paced-edits", type=int, default=10)
    ap.add_argument("--opened", type=int, default=10)
    ap.add_argument("--server", default="jaxlint server")
    args = ap.parse_args()
    command = [*shlex.split(args.server), "--debounce-ms", "0"]
    work = Path(tempfile.mkdtemp(prefix="jaxlint-latency-"))
    root = work / Path(args.tree).name
    shutil.copytree(args.tree, root, ignore=shutil.ignore_patterns(".git", ".jaxlint_cache"), symlinks=True)
    env = dict(os.environ, XDG_CACHE_HOME=str(work / "cache-home"))
    env.pop("JAXLINT_NO_SLICING", None)
    target = root / args.file
    text = target.read_text(encoding="utf-8")
    files = sorted(p for p in root.rglob("*.py") if ".git" not in p.parts)
    print(f"{args.tree}: {len(files)} .py files; {args.file}: {text.count(chr(10))} lines; server: {' '.join(command)}")
    try:
        for label in ("cold (no cache)", "second session (cache)"):
            t0 = time.perf_counter()
            client = await session(command, root, env)
            uri = open_doc(client, target)
            first = await answer(client, uri, 1) - t0
            print(f"first diagnostics of {args.file} after initialize, {label}: {first:.2f} s")
            if label.startswith("cold"):
                await stop(client)
        step = max(1, len(files) // args.opened)
        opened = []
        for path in files[::step][: args.opened]:
            if path == target:
                continue
            sent = time.perf_counter()
            u = open_doc(client, path)
            opened.append(await answer(client, u, 1) - sent)
        print(
            f"first diagnostics of a newly opened file (project read), {len(opened)} files: "
            f"median {ms(statistics.median(opened))}, max {ms(max(opened))}"
        )
        rapid = await edits(client, uri, text, args.edits, 0.0, 2)
        print(f"re-lint after an edit, {len(rapid)} edits: median {ms(statistics.median(rapid))}, p95 {ms(p95(rapid))}")
        if args.paced_edits:
            paced = await edits(client, uri, text, args.paced_edits, args.pause, 2 + args.edits)
            print(
                f"re-lint after an edit that follows a {args.pause} s pause, {len(paced)} edits: "
                f"median {ms(statistics.median(paced))}, p95 {ms(p95(paced))}"
            )
        await stop(client)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
