"""SARIF 2.1.0 for code scanning, with a ``rules`` array built from each rule's documentation.

The documentation is inline (``help``): jaxlint links to no web page the project does
not declare (``jaxlint/report/links.py``).

Only the rules that have results are described: the log stays small, and the same
findings give the same bytes however many rules the installation has.
"""

from __future__ import annotations

import json

from jaxlint import __version__
from jaxlint.base.types import Diagnostic, Position
from jaxlint.report import links
from jaxlint.report.escape import json_text
from jaxlint.report.paths import uri

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def rule_descriptor(r) -> dict:
    """A SARIF ``reportingDescriptor`` from a Rule class's documentation, given inline (the
    same text as ``jaxlint rule CODE``); a ``helpUri`` only where the project declares its
    repository (``jaxlint/report/links.py``)."""
    sections = r.doc_sections()
    out = {
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": sections.get("What it does", r.summary)},
        "help": {"text": r.documentation(), "markdown": r.documentation()},
    }
    url = links.rule_url(r.code)
    if url:
        out["helpUri"] = url
    out["defaultConfiguration"] = {"level": "warning" if r.is_preview() else "error"}
    out["properties"] = {"status": r.status, "fix": r.fix_availability}
    return out


def _rules(codes: set[str]) -> list[dict]:
    from jaxlint.lint.registry import all_rules

    return [rule_descriptor(r) for r in sorted(all_rules(), key=lambda r: r.code) if r.code in codes]


def _region(start: Position, end: Position) -> dict:
    return {"startLine": start.line, "startColumn": start.column, "endLine": end.line, "endColumn": end.column}


def result(d: Diagnostic, rule_index: dict[str, int]) -> dict:
    artifact = {"uri": uri(d.path)}
    region = _region(d.start, d.end)
    text = d.message + (f" {d.note}" if d.note else "")
    if d.cell is not None and d.file_start is not None and d.file_end is not None:
        # a notebook: the region is in the JSON text (the line holding the source line);
        # the message and properties name the cell and the position in it
        region = _region(d.file_start, d.file_end)
        text = f"{text} (cell {d.cell}, line {d.start.line}, column {d.start.column})"
    r: dict = {
        "ruleId": d.code,
        "level": "warning" if d.preview else "error",
        "message": {"text": text},
        "locations": [{"physicalLocation": {"artifactLocation": artifact, "region": region}}],
    }
    if d.code in rule_index:
        r["ruleIndex"] = rule_index[d.code]
    if d.cell is not None:
        r["properties"] = {"cell": d.cell, "cellRegion": _region(d.start, d.end)}
    if d.fix is not None and d.fix.edits and d.cell is None:  # a notebook's fix edits cell text, not the JSON
        unsafe = " (unsafe: changes behaviour, review it)" if d.fix.applicability == "unsafe" else ""
        r["fixes"] = [
            {
                "description": {"text": d.fix.message + unsafe},
                "artifactChanges": [
                    {
                        "artifactLocation": dict(artifact),
                        "replacements": [
                            {"deletedRegion": _region(e.start, e.end), "insertedContent": {"text": e.content}}
                            for e in d.fix.edits
                        ],
                    }
                ],
            }
        ]
    return r


def render(diagnostics: list[Diagnostic], **_) -> str:
    rules = _rules({d.code for d in diagnostics})
    index = {r["id"]: i for i, r in enumerate(rules)}
    driver: dict[str, object] = {"name": "jaxlint", "version": __version__}
    url = links.project_url()
    if url:
        driver["informationUri"] = url
    driver["rules"] = rules
    doc = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "results": [result(d, index) for d in diagnostics],
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
    return json_text(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n"
