"""Every finding's headline fits a line (at most 120 characters): what is wrong, and what to
do when it fits; the explanation is the note (jaxlint.lint.wording). Checked over the
findings of every rule's fixtures and the seed chapters, preview rules included."""

from __future__ import annotations

from conftest import FIXTURES

from jaxlint import testing
from jaxlint.lint.wording import HEADLINE


def test_every_fixture_finding_has_a_headline_that_fits_a_line():
    run = testing.lint_folder(FIXTURES, testing.settings_for())
    found = [d for d in run.diagnostics if d.code not in ("JAX001", "JAX003")]
    codes = {d.code for d in found}
    assert len(codes) >= 25  # every rule's fixtures were linted
    long = sorted({(d.code, len(d.message), d.message) for d in found if len(d.message) > HEADLINE})
    assert long == []


def test_every_fixture_finding_s_note_reads_as_a_sentence():
    """A message cut at ``, which`` gives a note starting "It ...": right when ``which`` is
    the clause's subject ("which is given 3"), wrong when it is the object ("which `f`
    consumed"). Messages keep ``which`` the subject."""
    run = testing.lint_folder(FIXTURES, testing.settings_for())
    notes = sorted({(d.code, d.note) for d in run.diagnostics if d.note and d.note.startswith("It `")})
    assert notes == []
