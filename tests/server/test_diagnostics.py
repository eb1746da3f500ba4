"""Diagnostics over LSP: on open, change and save; ranges, severities, related places; the
project's other modules decided with, and re-decided when one of them changes."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .helpers import capabilities, change, first_lines, initialize, open_file, published, rng, settled, uri_of

pytestmark = pytest.mark.asyncio

SYNC = 'import jax\n\n\ndef sync_grads(grads):\n    return jax.lax.pmean(grads, axis_name="devices")\n'
TRAIN = (
    "import jax\n"
    "\n"
    "from sync import sync_grads\n"
    "\n"
    "\n"
    "def step(grads):\n"
    "    return sync_grads(grads)\n"
    "\n"
    "\n"
    'p_step = jax.pmap(step, axis_name="batch")\n'
    "params = jax.tree_map(lambda p: p * 2, params)  # noqa: E501\n"
)
PMEAN = "`jax.lax.pmean` uses axis name 'devices', but the pmap at train.py:10 binds 'batch', not 'devices'"
TREE_MAP = "`jax.tree_map` was removed in JAX 0.6.0 (deprecated since 0.4.26); use `jax.tree.map`"


async def test_open_reports_with_code_severity_name_and_the_place_another_module_names(client):
    await initialize(client, {"sync.py": SYNC, "train.py": TRAIN})
    uri = open_file(client, "sync.py")
    [d] = await published(client, uri, 1)
    assert d.code == "JAX201"
    assert d.source == "jaxlint"
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.range == rng(4, 11, 4, 52)
    assert d.message == (
        PMEAN
        + "\nUse the same axis name in the pmap and the collective."
        + "\nunbound-axis-name: Collective over an axis name that no enclosing pmap, vmap or shard_map binds."
    )
    assert d.code_description is None  # no web page is made up
    assert list(d.related_information or ()) == [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri_of(client, "train.py"), range=rng(9, 0, 9, 42)),
            message="the pmap at train.py:10",
        )
    ]


async def test_a_change_in_one_module_re_decides_the_open_files_that_depend_on_it(client):
    await initialize(client, {"sync.py": SYNC, "train.py": TRAIN})
    sync = open_file(client, "sync.py")
    assert first_lines(await published(client, sync, 1)) == [("JAX201", PMEAN, (4, 11, 4, 52))]
    train = open_file(client, "train.py")
    assert first_lines(await published(client, train, 1)) == [("JAX801", TREE_MAP, (10, 9, 10, 21))]
    n = len(client.published)
    change(client, train, 2, '"devices"', rng(9, 34, 9, 41))  # axis_name="batch" -> "devices"
    assert first_lines(await published(client, train, 2, after=n)) == [("JAX801", TREE_MAP, (10, 9, 10, 21))]
    assert await published(client, sync, 1, after=n) == []  # sync.py itself did not change
    n = len(client.published)
    change(client, train, 3, '"batch"', rng(9, 34, 9, 43))
    assert first_lines(await published(client, sync, 1, after=n)) == [("JAX201", PMEAN, (4, 11, 4, 52))]


async def test_changes_are_linted_at_their_latest_text_and_ranges_follow_the_edits(client):
    await initialize(client, {"train.py": TRAIN, "sync.py": SYNC})
    uri = open_file(client, "train.py")
    await published(client, uri, 1)
    n = len(client.published)
    change(client, uri, 2, "# a header\n", rng(0, 0, 0, 0))
    change(client, uri, 3, "# and another\n", rng(0, 0, 0, 0))
    change(client, uri, 4, "", rng(0, 0, 1, 0))  # the second one deleted again
    assert first_lines(await published(client, uri, 4, after=n)) == [("JAX801", TREE_MAP, (11, 9, 11, 21))]
    change(client, uri, 5, "jax.tree.map", rng(11, 9, 11, 21))
    assert await published(client, uri, 5, after=n) == []
    await settled(client)
    assert client.published[-1].uri == uri and client.published[-1].version == 5  # nothing older came after


async def test_save_publishes_again_and_the_file_is_read_again(client):
    await initialize(client, {"train.py": TRAIN, "sync.py": SYNC})
    uri = open_file(client, "train.py")
    await published(client, uri, 1)
    fixed = TRAIN.replace("jax.tree_map", "jax.tree.map")
    change(client, uri, 2, fixed)
    assert await published(client, uri, 2) == []
    (client.root / "train.py").write_text(fixed)
    n = len(client.published)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert await published(client, uri, 2, after=n) == []


async def test_a_place_in_the_same_file_is_related_by_its_line(client):
    text = 'import jax\n\n\ndef step(x):\n    return jax.lax.psum(x, "i")\n\n\nout = step(1.0)\n'
    await initialize(client, {"local.py": text})
    uri = open_file(client, "local.py")
    [d] = await published(client, uri, 1)
    assert d.message.startswith(
        "`jax.lax.psum` uses axis name 'i', but nothing binds it: `step` is called directly at line 8"
    )
    assert list(d.related_information or ()) == [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=rng(7, 0, 7, 15)), message="`step` is called directly at line 8"
        )
    ]


@pytest.mark.parametrize(
    ("client_name", "encoding", "start"),
    [("visual-studio-code", "utf-16", 19), ("emacs", "utf-32", 18), ("neovim@v0.11", "utf-8", 21)],
)
async def test_columns_count_in_the_agreed_position_encoding(client, client_name, encoding, start):
    text = 'import jax\ns = "\U0001f600"; params = jax.tree_map(f, params)\n'  # an emoji: 1, 2 or 4 units
    result = await initialize(client, {"emoji.py": text}, capabilities(client_name))
    assert result.capabilities.position_encoding == encoding
    uri = open_file(client, "emoji.py")
    [d] = await published(client, uri, 1)
    assert d.range == rng(1, start, 1, start + 12)


async def test_a_syntax_error_is_one_error(client):
    await initialize(client, {"broken.py": "import jax\ndef f(:\n    pass\n"})
    uri = open_file(client, "broken.py")
    [d] = await published(client, uri, 1)
    assert (d.code, d.severity, d.range, d.message.split("\n")[0]) == (
        "JAX001",
        types.DiagnosticSeverity.Error,
        rng(1, 6, 1, 6),
        "SyntaxError: invalid syntax",
    )


async def test_a_file_that_cannot_be_checked_is_one_diagnostic_and_the_server_goes_on(client):
    deep = "import jax\nx = " + "(" * 600 + ")" * 600 + "\n"
    await initialize(client, {"deep.py": deep, "train.py": TRAIN, "sync.py": SYNC})
    uri = open_file(client, "deep.py")
    assert first_lines(await published(client, uri, 1)) == [
        ("JAX001", "The file is nested too deeply to be parsed", (0, 0, 0, 0))
    ]
    other = open_file(client, "train.py")
    assert first_lines(await published(client, other, 1)) == [("JAX801", TREE_MAP, (10, 9, 10, 21))]


async def test_files_check_does_not_lint_get_no_diagnostics_and_new_files_do(client):
    config = '[tool.jaxlint]\nextend-exclude = ["generated/"]\n'
    bad = "import jax\nparams = jax.tree_map(f, params)\n"
    await initialize(client, {"pyproject.toml": config, "generated/out.py": bad})
    excluded = open_file(client, "generated/out.py")
    assert await published(client, excluded, 1) == []
    new = open_file(client, "new.py", bad)  # not on disk yet: it is being written
    assert first_lines(await published(client, new, 1)) == [("JAX801", TREE_MAP, (1, 9, 1, 21))]


async def test_a_file_outside_every_folder_is_its_own_project_as_check_FILE_sees_it(client):
    await initialize(client, {"lone.py": "def f(:\n"}, folder=False)
    uri = open_file(client, "lone.py")  # a named file is syntax-checked without any trigger word
    assert first_lines(await published(client, uri, 1)) == [("JAX001", "SyntaxError: invalid syntax", (0, 6, 0, 6))]


async def test_closing_clears_the_diagnostics(client):
    await initialize(client, {"train.py": TRAIN, "sync.py": SYNC})
    uri = open_file(client, "train.py")
    assert len(await published(client, uri, 1)) == 1
    n = len(client.published)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert await published(client, uri, None, after=n) == []


async def test_a_folder_added_to_the_workspace_makes_its_files_one_project(client):
    await initialize(client, {"a/x.py": "import jax\n", "b/lone.py": "def f(:\n"}, folder=False)
    a, b = client.root / "a", client.root / "b"
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=uri_of(client, "a"), name="a")], removed=[]
            )
        )
    )
    uri = open_file(client, "b/lone.py")  # outside every folder: as `check b/lone.py` sees it
    assert first_lines(await published(client, uri, 1)) == [("JAX001", "SyntaxError: invalid syntax", (0, 6, 0, 6))]
    n = len(client.published)
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=uri_of(client, "b"), name="b")], removed=[]
            )
        )
    )
    assert await published(client, uri, 1, after=n) == []  # `check` run in b/ does not parse a file without jax
    assert a.is_dir() and b.is_dir()


MODEL = (
    "import jax\nimport jax.numpy as jnp\n\n\ndef init_params(key, d_in=6, d_hidden=16):\n"
    '    return {"kernel": jax.random.normal(key, (d_in, d_hidden)), "bias": jnp.zeros(d_hidden)}\n\n\n'
    'def apply(params, x):\n    return x @ params["kernel"] + params["bias"]\n'
)
EVALUATE = (
    "import jax\n\nimport model\n\n\ndef predict(xs):\n    params = model.init_params(jax.random.key(0))\n"
    "    return jax.vmap(model.apply)(params, xs)\n\n\npredict(jax.numpy.ones((40, 6)))\n"
)
SIZES = "`vmap(model.apply)` maps axes of different sizes: `params['bias']` has {}, `params['kernel']` has 6"


async def test_a_module_the_model_reads_is_read_as_it_is_typed(client):
    config = '[tool.jaxlint]\npreview = true\nselect = ["JAX105"]\n'
    await initialize(client, {"pyproject.toml": config, "model.py": MODEL, "evaluate.py": EVALUATE})
    evaluate = open_file(client, "evaluate.py")
    assert first_lines(await published(client, evaluate, 1)) == [("JAX105", SIZES.format(16), (7, 11, 7, 32))]
    model = open_file(client, "model.py")
    await published(client, model, 1)
    n = len(client.published)
    change(client, model, 2, "6", rng(4, 38, 4, 40))  # d_hidden=16 -> 6, not saved
    [d] = await published(client, evaluate, 1, after=n)
    assert d.message.split("\n")[:2] == [
        "`vmap(model.apply)` maps axes of different sizes: `params['bias']` has 6, `xs` has 40",
        "with the arguments from line 11: JAX raises `ValueError: vmap got inconsistent sizes for array axes to be"
        " mapped`. Mapped sizes: `params['bias']` has 6, `xs` has 40",
    ]
    assert [(r.location.range.start.line, r.message) for r in d.related_information or ()] == [
        (10, "with the arguments from line 11")
    ]


INIT_UTILS = "import jax.numpy as jnp\n\n\ndef set_forget_bias(bias, n):\n    bias[n : 2 * n] = 1.0\n    return bias\n"
RUN = "import jax.numpy as jnp\nfrom init_utils import set_forget_bias\n\nb = set_forget_bias(jnp.zeros(8), 2)\n"
INPLACE = "`bias[n : 2 * n]` assigns in place into `bias`, a JAX array (as called at line 4 of run.py)"


async def test_an_edited_buffer_takes_the_calls_of_the_modules_that_import_it(client):
    await initialize(client, {"init_utils.py": INIT_UTILS, "run.py": RUN})
    uri = open_file(client, "init_utils.py")
    assert first_lines(await published(client, uri, 1)) == [("JAX501", INPLACE, (4, 4, 4, 19))]
    # typed, not saved: the buffer is linted on its own, still with run.py's call
    change(client, uri, 2, "# LSTM initialisers\n", rng(0, 0, 0, 0))
    assert first_lines(await published(client, uri, 2)) == [("JAX501", INPLACE, (5, 4, 5, 19))]
