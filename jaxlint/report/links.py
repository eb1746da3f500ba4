"""Where a rule's documentation is on the web: only where the project itself says so.

A finding links to ``docs/rules.md`` of the project's repository only when the installed
package declares that repository (``[project.urls]`` ``Repository``, ``Source`` or
``Homepage`` on GitHub, in pyproject.toml). jaxlint declares none today, so no link is
made up: JSON gives ``"url": null``, and SARIF carries each rule's documentation inline
(``help``) with no ``helpUri``. ``jaxlint rule CODE`` prints the same documentation.
"""

from __future__ import annotations

import functools

LABELS = ("repository", "source", "homepage")


@functools.cache
def project_url() -> str | None:
    """The GitHub repository the installed jaxlint declares, or None."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        entries = metadata("jaxlint").get_all("Project-URL") or []
    except PackageNotFoundError:
        return None
    return repository(entries)


def repository(entries: list[str]) -> str | None:
    """The first GitHub URL among ``Project-URL`` entries (``"Label, https://..."``) with a
    label of ``LABELS``, in that order."""
    urls: dict[str, str] = {}
    for entry in entries:
        label, _, url = entry.partition(",")
        urls.setdefault(label.strip().lower(), url.strip())
    for label in LABELS:
        url = urls.get(label, "")
        if url.startswith("https://github.com/"):
            return url.rstrip("/").removesuffix(".git")
    return None


def rule_url(code: str) -> str | None:
    """The web page of a rule's documentation, or None when the project declares no repository."""
    base = project_url()
    return f"{base}/blob/main/docs/rules.md#{code.lower()}" if base else None
