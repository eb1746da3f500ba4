"""GitLab Code Quality report: a JSON list of issues (``description``, ``check_name``,
``fingerprint``, ``severity``, ``location.path``, ``location.lines.begin``), as GitLab
documents it for ``artifacts:reports:codequality`` and as ruff writes it.

The fingerprint must be stable across runs and unique per issue: a hash of the path, the
code, the message and the line's occurrence (two identical findings in one file differ by
their index), not of the line number, so an unrelated edit above does not make GitLab see
every issue as new.
"""

from __future__ import annotations

import hashlib
import json

from jaxlint.base.types import Diagnostic
from jaxlint.report.escape import json_text
from jaxlint.report.paths import relative


def as_dict(d: Diagnostic, occurrence: int) -> dict:
    path = relative(d.path)
    start, end = (d.file_start, d.file_end) if d.file_start is not None and d.file_end is not None else (d.start, d.end)
    digest = hashlib.sha256(
        f"{path}\0{d.code}\0{d.message}\0{occurrence}".encode(errors="surrogateescape")
    ).hexdigest()[:32]
    cell = f" (cell {d.cell}, line {d.start.line})" if d.cell is not None else ""
    return {
        "description": f"{d.code}: {d.message}{cell}",
        "check_name": d.code,
        "fingerprint": digest,
        "severity": "minor" if d.preview else "major",
        "location": {
            "path": path,
            "positions": {
                "begin": {"line": start.line, "column": start.column},
                "end": {"line": end.line, "column": end.column},
            },
        },
    }


def render(diagnostics: list[Diagnostic], **_) -> str:
    seen: dict[tuple[str, str, str], int] = {}
    out = []
    for d in diagnostics:
        key = (d.path, d.code, d.message)
        seen[key] = seen.get(key, 0) + 1
        out.append(as_dict(d, seen[key]))
    return json_text(json.dumps(out, indent=2, ensure_ascii=False)) + "\n"  # valid UTF-8, same values
