"""A JSON list with ruff's field names (``code``, ``location {row, column}``, ``fix``…)."""

from __future__ import annotations

import json

from jaxlint.base.types import Diagnostic, Position
from jaxlint.report.escape import json_text
from jaxlint.report.links import rule_url


def _pos(p: Position) -> dict[str, int]:
    return {"row": p.line, "column": p.column}


def as_dict(d: Diagnostic) -> dict:
    fix = None
    if d.fix is not None:
        fix = {
            "applicability": d.fix.applicability,
            "message": d.fix.message,
            "edits": [
                {"content": e.content, "location": _pos(e.start), "end_location": _pos(e.end), **_cell(e)}
                for e in d.fix.edits
            ],
        }
    return {
        "code": d.code,
        "name": d.name,
        "message": d.message,
        "note": d.note or None,
        "filename": d.path,
        "location": _pos(d.start),
        "end_location": _pos(d.end),
        "url": rule_url(d.code),  # None unless the project declares its repository (links.py)
        "fix": fix,
        **_cell(d),
    }


def _cell(x) -> dict:
    """Notebooks only: ``cell`` (ruff's field; rows and columns count in that cell)."""
    return {"cell": x.cell} if x.cell is not None else {}


def render(diagnostics: list[Diagnostic], **_) -> str:
    return json_text(json.dumps([as_dict(d) for d in diagnostics], indent=2, ensure_ascii=False)) + "\n"
