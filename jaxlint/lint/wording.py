"""How a finding is worded: a headline that fits a line, the explanation in a note.

Ruff's convention: the headline says what is wrong in one line (at most ``HEADLINE``
characters, tested over every fixture's findings); why, the values it rests on and what
to do instead go in the note under it."""

from __future__ import annotations

HEADLINE = 120


def sentence(text: str) -> str:
    """``text`` as a sentence: a capital first letter and a closing full stop."""
    text = text.strip()
    if not text:
        return ""
    if text[0].islower() and not text.startswith(("`", "jax", "jnp", "np.")):
        text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def notes(*parts: str | None) -> str:
    """The non-empty ``parts`` as sentences of one note."""
    return " ".join(sentence(p) for p in parts if p and p.strip())


def worded(head: str, advice: str = "", *explanation: str | None) -> tuple[str, str]:
    """(headline, note) of a finding: ``advice`` (what to do) joins the headline after a
    semicolon when both fit ``HEADLINE``, else it opens the note; ``explanation`` follows."""
    if advice and len(head) + 2 + len(advice) <= HEADLINE:
        return f"{head}; {advice}", notes(*explanation)
    return head, notes(advice, *explanation)
