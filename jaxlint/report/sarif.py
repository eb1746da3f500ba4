"""SARIF 2.1.0, with a ``rules`` array built from each rule's documentation."""

from __future__ import annotations

import json
import os
from pathlib import Path

from jaxlint import __version__
from jaxlint.types import Diagnostic

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://github.com/jaxlint/jaxlint"


def _uri(path: str) -> str:
    rel = os.path.relpath(path) if not path.startswith("<") else path
    if rel.startswith(".."):
        return Path(os.path.abspath(path)).as_uri()
    return rel.replace(os.sep, "/")


def _rules(codes: set[str]) -> list[dict]:
    from jaxlint.registry import all_rules

    out = []
    for r in all_rules():
        sections = r.doc_sections()
        out.append(
            {
                "id": r.code,
                "name": r.name,
                "shortDescription": {"text": r.summary},
                "fullDescription": {"text": sections.get("What it does", r.summary)},
                "help": {
                    "text": sections.get("Why is this bad?", r.summary),
                    "markdown": r.documentation(),
                },
                "helpUri": f"{INFO_URI}/blob/main/docs/rules.md#{r.code.lower()}",
                "defaultConfiguration": {"level": "warning" if r.is_preview() else "error"},
                "properties": {"status": r.status, "fix": r.fix_availability},
            }
        )
    return out


def _region(start, end) -> dict:
    return {"startLine": start.line, "startColumn": start.column, "endLine": end.line, "endColumn": end.column}


def result(d: Diagnostic, rule_index: dict[str, int]) -> dict:
    loc = {"physicalLocation": {"artifactLocation": {"uri": _uri(d.path)}, "region": _region(d.start, d.end)}}
    r: dict = {
        "ruleId": d.code,
        "level": "warning" if d.preview else "error",
        "message": {"text": d.message},
        "locations": [loc],
    }
    if d.code in rule_index:
        r["ruleIndex"] = rule_index[d.code]
    if d.fix is not None:
        r["fixes"] = [
            {
                "description": {"text": d.fix.message + (" (unsafe)" if d.fix.applicability == "unsafe" else "")},
                "artifactChanges": [
                    {
                        "artifactLocation": {"uri": _uri(d.path)},
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
    doc = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "jaxlint",
                        "version": __version__,
                        "informationUri": INFO_URI,
                        "rules": rules,
                    }
                },
                "results": [result(d, index) for d in diagnostics],
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
