"""A source file's encoding, read the way CPython reads it, and refused where CPython refuses.

PEP 263: a BOM or a ``# coding: NAME`` comment on one of the first two lines, else UTF-8.
CPython runs a file through ``io.TextIOWrapper`` with that codec, so it refuses a name it
does not know, a codec that is no text encoding (``rot13``, ``base64``), and one whose
incremental decoding of the file fails (``utf-16`` when the cookie itself is ASCII,
``undefined``). jaxlint refuses the same, and decodes chunk by chunk as CPython does,
never the whole file in one call of the codec: a ``punycode`` cookie and a crafted tail
took 84 s to decode at 800 KB. ``punycode`` and ``idna``, transforms for domain names
whose decoding is quadratic in a label, are refused outright: no source code is written
in them.
"""

from __future__ import annotations

import codecs
import io
import tokenize

REFUSED = frozenset({"punycode", "idna"})
CHUNK = 8192  # bytes a text stream decodes at a time (``io.TextIOWrapper._CHUNK_SIZE``)


class EncodingRefused(Exception):
    """The coding declaration names an encoding Python source cannot have; ``line`` holds it."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.line = line


def declared(data: bytes) -> str:
    """The encoding the file declares (``utf-8`` without a declaration); raises EncodingRefused."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:
        name, line = _cookie(data)
        if name is None:  # bytes that are not UTF-8 in the first lines: decoding says where
            return "utf-8"
        if "BOM" in str(e) or data.startswith(codecs.BOM_UTF8):
            raise EncodingRefused(f"The coding declaration {name!r} contradicts the file's UTF-8 BOM", line) from None
        raise EncodingRefused(f"Unknown encoding {name!r} in the coding declaration", line) from None
    if encoding in ("utf-8", "utf-8-sig"):
        return encoding
    info = codecs.lookup(encoding)
    line = _cookie(data)[1]
    if not getattr(info, "_is_text_encoding", True):
        raise EncodingRefused(f"The coding declaration names {encoding!r}, which is not a text encoding", line)
    if info.name in REFUSED:
        raise EncodingRefused(f"The coding declaration names {encoding!r}, which source code is never written in", line)
    try:
        compatible = _DECLARATION.decode(encoding) == _DECLARATION.decode("ascii")
    except UnicodeError:
        compatible = False
    if not compatible:  # utf-16, utf-32, EBCDIC: the declaration, found as ASCII, cannot be in it
        raise EncodingRefused(
            f"The coding declaration names {encoding!r}, but the declaration itself is not written in it", line
        )
    return encoding


_DECLARATION = b"# -*- coding: latin_1 -*-\n"  # what a declaration is made of, in ASCII


def _cookie(data: bytes) -> tuple[str | None, int]:
    """The name in the coding declaration and its line, as ``tokenize`` finds it."""
    for n, raw in enumerate(data.split(b"\n", 2)[:2], 1):
        m = tokenize.cookie_re.match(raw.decode("latin-1"))
        if m:
            return m.group(1), n
        if not tokenize.blank_re.match(raw):
            break
    return None, 1


def decode(data: bytes, encoding: str) -> str:
    """``data`` as text, decoded as Python's reader decodes it (``UnicodeError`` if it cannot)."""
    if encoding in ("utf-8", "utf-8-sig"):
        return data.decode(encoding)
    decoder = codecs.getincrementaldecoder(encoding)()
    try:
        parts = [decoder.decode(data[i : i + CHUNK]) for i in range(0, len(data), CHUNK)]
        parts.append(decoder.decode(b"", final=True))
    except UnicodeDecodeError:
        data.decode(encoding)  # the same error, with its offset in the whole file
        raise
    return "".join(parts)
