"""``jaxlint server``: a language server (LSP over stdio) on the engine of ``jaxlint check``.

Diagnostics as you type (files and notebooks), quick fixes, "suppress on this line",
"fix all safe fixes", and each rule's documentation on hover; the project's files read
once and decided together, as ``check`` decides them. Modules: ``handlers`` (the
protocol), ``state`` (the projects, their cached facts and the open buffers),
``diagnostics`` (LSP diagnostics and hover text), ``actions`` (code actions),
``notebooks`` (notebook sync). Needs the ``server`` extra (pygls, lsprotocol).

May import: anything (it is part of the app, beside ``api`` and ``cli``).
"""

from __future__ import annotations

import os
import sys


def serve(debounce: float | None = None, jobs: int | None = None) -> None:
    """Serve the client on stdin/stdout until it says ``exit``.

    The protocol gets its own copy of stdout; file descriptor 1 then points at stderr, so
    nothing else this process (or a worker process) prints can break the protocol stream."""
    import logging

    from jaxlint.server.handlers import DEBOUNCE, create

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="jaxlint server: %(message)s")
    logging.getLogger("pygls").setLevel(logging.ERROR)  # not every unknown notification is worth a line
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    _preload()
    server = create(DEBOUNCE if debounce is None else debounce, jobs)
    server.start_io(sys.stdin.buffer, protocol_out)


def _preload() -> None:
    """Worker processes start from a fork server (the server has threads, never fork it):
    load jaxlint and every rule there once, not in each worker."""
    import multiprocessing

    from jaxlint.lint.registry import all_rules

    modules = ["jaxlint.api", *sorted({rule.__module__ for rule in all_rules()})]
    multiprocessing.get_context("forkserver").set_forkserver_preload(modules)
