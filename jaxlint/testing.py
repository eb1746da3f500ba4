"""Helpers for testing rules: lint a snippet, fix a snippet, read fixture annotations.

Fixture annotations: ``# error: [JAX201]`` (or ``[JAX201, JAX801]``) at the end of a
line that must be reported; ``# ok: JAX201`` on a look-alike that must not be;
``# todo-ok: JAX201`` on correct code that is still reported (a known false positive).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from jaxlint.base.types import Diagnostic
from jaxlint.lint.config import Settings

_ERROR = re.compile(r"#\s*error:\s*\[([A-Z0-9,\s]+)\]")
_OK = re.compile(r"#\s*ok:\s*([A-Z0-9,\s]+?)\s*(?:#|$)")
_TODO = re.compile(r"#\s*todo-ok:\s*([A-Z0-9,\s]+?)\s*(?:#|$)")


def settings_for(*codes: str, target: str | None = None) -> Settings:
    s = Settings(select=list(codes) or None, preview=True)
    if target:
        s.target_jax_version = target
    return s


def lint_folder(root, settings: Settings):
    """Lint the folder ``root`` as one project, as ``jaxlint check .`` run there does
    (paths relative to it, modules named from it); returns the run."""
    import os

    from jaxlint.api import lint_paths

    settings.root = str(root)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        return lint_paths(["."], settings, jobs=1)
    finally:
        os.chdir(cwd)


def lint(source: str, *codes: str, path: str = "example.py", target: str | None = None) -> list[Diagnostic]:
    from jaxlint.api import lint_source

    return lint_source(source, path, settings_for(*codes, target=target), module_name=path[:-3].replace("/", "."))


def fix(source: str, *codes: str, unsafe: bool = True, path: str = "example.py", target: str | None = None) -> str:
    from jaxlint.api import fix_text, lint_source

    s = settings_for(*codes, target=target)
    module = path[:-3].replace("/", ".")
    text, _, _, gave_up = fix_text(source, lambda t: lint_source(t, path, s, module_name=module), unsafe)
    if gave_up:
        raise AssertionError("a fix produced code that does not parse")
    return text


@dataclass
class Annotations:
    errors: set[tuple[int, str]] = field(default_factory=set)
    ok: set[tuple[int, str]] = field(default_factory=set)
    todo_ok: set[tuple[int, str]] = field(default_factory=set)

    @property
    def codes(self) -> set[str]:
        return {c for _, c in self.errors | self.ok | self.todo_ok}


def _split(s: str) -> list[str]:
    return [c for c in re.split(r"[,\s]+", s.strip()) if c]


def read_annotations(source: str) -> Annotations:
    a = Annotations()
    for i, line in enumerate(source.splitlines(), start=1):
        for m in _ERROR.finditer(line):
            a.errors |= {(i, c) for c in _split(m.group(1))}
        for m in _OK.finditer(line):
            a.ok |= {(i, c) for c in _split(m.group(1))}
        for m in _TODO.finditer(line):
            a.todo_ok |= {(i, c) for c in _split(m.group(1))}
    return a


class Worded(str):
    """A finding's headline, equal to a whole message text when cutting that text as the
    rules do (``jaxlint.lint.wording.split``) gives this headline and this note: a test
    writes the finding's wording once, and both parts are compared exactly."""

    note: str

    def __new__(cls, headline: str, note: str) -> Worded:
        self = super().__new__(cls, headline)
        self.note = note
        return self

    def __eq__(self, other: object) -> bool:
        from jaxlint.lint.wording import split

        if not isinstance(other, str):
            return NotImplemented
        if isinstance(other, Worded):
            return str(self) == str(other) and self.note == other.note
        return split(other) == (str(self), self.note)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = str.__hash__


def worded(d: Diagnostic) -> Worded:
    return Worded(d.message, d.note)


def wording(d: Diagnostic) -> str:
    """Headline and note as one text (for ``in`` checks of a phrase in either)."""
    return f"{d.message} {d.note}" if d.note else d.message
