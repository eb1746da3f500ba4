"""One reporter per output format; each turns Diagnostics into text, nothing else.

Reporters are imported on first use: ``full`` pulls in rich, which a pre-commit run
with ``concise`` output does not need to pay for.

May import: ``jaxlint.base`` … ``jaxlint.cache``.
"""

from __future__ import annotations

import importlib

from jaxlint.base.types import Diagnostic

MODULES = {
    "concise": "jaxlint.report.concise",
    "full": "jaxlint.report.full",
    "json": "jaxlint.report.json_format",
    "github": "jaxlint.report.github",
    "gitlab": "jaxlint.report.gitlab",
    "sarif": "jaxlint.report.sarif",
}


def render(fmt: str, diagnostics: list[Diagnostic], **kw) -> str:
    return importlib.import_module(MODULES[fmt]).render(diagnostics, **kw)
