"""How a finding is worded: a headline that fits a line, the explanation in a note.

Ruff's convention: the headline says what is wrong in one line (at most ``HEADLINE``
characters, tested over every fixture's findings); why, the values it rests on and what
to do instead go in the note under it."""

from __future__ import annotations

from jaxlint.base.text import clipped

__all__ = ["HEADLINE", "SHORTEST", "clipped", "notes", "sentence", "split", "worded"]

HEADLINE = 120
SHORTEST = 40  # a headline cut shorter than this says too little


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


def split(message: str) -> tuple[str, str]:
    """(headline, note) of a message written as one run of clauses (``what is wrong; what JAX
    raises: ...; what to do``): the longest leading clauses, cut at ``; ``, ``: `` or ``. ``
    outside code spans, that fit ``HEADLINE`` (at a ``, `` when those leave less than
    ``SHORTEST``); the rest is the note. A message that fits, or that has no such cut,
    stays whole."""
    if len(message) <= HEADLINE:
        return message, ""
    strong = weak = None
    code = False
    depth = 0  # inside parentheses: ``(`x`, `y`)`` is one clause
    for i, c in enumerate(message[: HEADLINE + 1]):
        if c == "`":
            code = not code
        elif code:
            continue
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth = max(0, depth - 1)
        elif depth == 0 and i > 0 and message[i + 1 : i + 2] == " ":
            if c in ";:.":
                strong = i
            elif c == ",":
                weak = i
    cut = strong if strong is not None and (strong >= SHORTEST or weak is None) else weak
    if cut is None:
        return message, ""
    rest = message[cut + 2 :]
    if cut == weak and rest.startswith("which "):
        rest = "it " + rest[len("which ") :]  # ``x, which is given 3`` -> "It is given 3."
    return message[:cut], sentence(rest)
