"""Notebook sync (LSP 3.17): cells linted as one module, as ``check`` lints the notebook;
diagnostics, places and fixes in the cells' own documents."""

from __future__ import annotations

import json

import pytest
from lsprotocol import types

from .helpers import capabilities, first_lines, initialize, published, rng, settled, uri_of

pytestmark = pytest.mark.asyncio

CELLS = [
    ("markdown", "# Title\n"),
    ("code", "import jax\n%time x = 1\n"),
    ("code", 'def sync(g):\n    return jax.lax.pmean(g, axis_name="devices")\n'),
    ("code", 'p = jax.pmap(sync, axis_name="batch")\nparams = jax.tree_map(f, params)\n'),
]
PMEAN = (
    "`jax.lax.pmean` uses axis name 'devices', but the pmap at cell 4, line 1 binds 'batch', not 'devices'; "
    "use the same axis name in the pmap and the collective"
)
TREE_MAP = "`jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`"


def notebook_json(cells: list[tuple[str, str]]) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "metadata": {}, "source": text}
                | ({"outputs": [], "execution_count": None} if kind == "code" else {})
                for kind, text in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )


def cell(nb: str, n: int) -> str:
    return f"{nb}#cell{n}"


def open_notebook(client, name: str, cells: list[tuple[str, str]]) -> str:
    nb = uri_of(client, name)
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=nb,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[
                    types.NotebookCell(
                        kind=types.NotebookCellKind.Code if kind == "code" else types.NotebookCellKind.Markup,
                        document=cell(nb, i),
                    )
                    for i, (kind, _) in enumerate(cells, 1)
                ],
            ),
            cell_text_documents=[
                types.TextDocumentItem(
                    uri=cell(nb, i), language_id="python" if kind == "code" else "markdown", version=1, text=text
                )
                for i, (kind, text) in enumerate(cells, 1)
            ],
        )
    )
    return nb


def edit_cell(client, nb: str, version: int, n: int, cell_version: int, at: types.Range, text: str) -> None:
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=nb, version=version),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(uri=cell(nb, n), version=cell_version),
                            changes=[types.TextDocumentContentChangePartial(range=at, text=text)],
                        )
                    ]
                )
            ),
        )
    )


async def start(client) -> str:
    result = await initialize(client, {"demo.ipynb": notebook_json(CELLS)}, capabilities(notebooks=True))
    assert result.capabilities.notebook_document_sync == types.NotebookDocumentSyncOptions(
        notebook_selector=(types.NotebookDocumentFilterWithNotebook(notebook="jupyter-notebook"),), save=True
    )
    return open_notebook(client, "demo.ipynb", CELLS)


async def test_cells_are_linted_as_one_module_and_diagnosed_in_their_own_documents(client):
    nb = await start(client)
    assert first_lines(await published(client, cell(nb, 3), 1)) == [("JAX201", PMEAN, (1, 11, 1, 48))]
    assert first_lines(await published(client, cell(nb, 4), 1)) == [("JAX801", TREE_MAP, (1, 9, 1, 21))]
    assert await published(client, cell(nb, 1), 1) == []
    assert await published(client, cell(nb, 2), 1) == []  # the magic is skipped, as check skips it
    [d] = await published(client, cell(nb, 3), 1)
    assert list(d.related_information or ()) == [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=cell(nb, 4), range=rng(0, 0, 0, 37)), message="the pmap at cell 4, line 1"
        )
    ]


async def test_an_edited_cell_re_decides_the_others_and_a_new_cell_renumbers_them(client):
    nb = await start(client)
    await published(client, cell(nb, 3), 1)
    n = len(client.published)
    edit_cell(client, nb, 2, 4, 2, rng(0, 29, 0, 36), '"devices"')  # the pmap binds 'devices' now
    assert await published(client, cell(nb, 3), 1, after=n) == []
    assert first_lines(await published(client, cell(nb, 4), 2, after=n)) == [("JAX801", TREE_MAP, (1, 9, 1, 21))]
    n = len(client.published)
    edit_cell(client, nb, 3, 4, 3, rng(0, 29, 0, 38), '"batch"')
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=nb, version=4),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    structure=types.NotebookDocumentCellChangeStructure(
                        array=types.NotebookCellArrayChange(
                            start=0,
                            delete_count=0,
                            cells=[types.NotebookCell(kind=types.NotebookCellKind.Markup, document=cell(nb, 0))],
                        ),
                        did_open=[
                            types.TextDocumentItem(uri=cell(nb, 0), language_id="markdown", version=1, text="Intro\n")
                        ],
                    )
                )
            ),
        )
    )
    await settled(client)
    [d] = await published(client, cell(nb, 3), 1, after=n)
    assert d.message.split("\n")[0] == PMEAN.replace("cell 4, line 1", "cell 5, line 1")  # as a reader counts them
    assert d.related_information[0].location == types.Location(uri=cell(nb, 4), range=rng(0, 0, 0, 37))


async def test_a_fix_edits_the_cell_document(client):
    nb = await start(client)
    await published(client, cell(nb, 4), 1)
    [fix, quiet, _] = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=cell(nb, 4)),
            range=rng(1, 12, 1, 12),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    [fix_change] = fix.edit.document_changes
    assert fix_change.text_document == types.OptionalVersionedTextDocumentIdentifier(uri=cell(nb, 4), version=1)
    assert list(fix_change.edits) == [types.TextEdit(range=rng(1, 9, 1, 21), new_text="jax.tree.map")]
    [quiet_change] = quiet.edit.document_changes
    assert list(quiet_change.edits) == [types.TextEdit(range=rng(1, 32, 1, 32), new_text="  # noqa: JAX801")]


async def test_closing_the_notebook_clears_its_cells(client):
    nb = await start(client)
    assert len(await published(client, cell(nb, 4), 1)) == 1
    n = len(client.published)
    client.notebook_document_did_close(
        types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(uri=nb),
            cell_text_documents=[types.TextDocumentIdentifier(uri=cell(nb, i)) for i in range(1, 5)],
        )
    )
    for i in range(1, 5):
        assert await published(client, cell(nb, i), None, after=n) == []
