"""One reporter per output format; each turns Diagnostics into text, nothing else."""

from __future__ import annotations

from typing import Callable

from jaxlint.report import concise, full, github, json_format, sarif
from jaxlint.types import Diagnostic

Reporter = Callable[..., str]

REPORTERS: dict[str, Reporter] = {
    "concise": concise.render,
    "full": full.render,
    "json": json_format.render,
    "github": github.render,
    "sarif": sarif.render,
}


def render(fmt: str, diagnostics: list[Diagnostic], **kw) -> str:
    return REPORTERS[fmt](diagnostics, **kw)
