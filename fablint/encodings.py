"""Which encoding an input's bytes are in, for every layer that reads or rewrites a file:
parsers decode with it, ``--fix`` writes a file back in the encoding and byte-order mark it
came in (a fix must not turn a UTF-16 export from a Windows tool into UTF-8)."""

from __future__ import annotations

import codecs

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
)


_ASCII_TEXT = bytes(range(0x20, 0x7F)) + b"\t\n\r"


def text_encoding(data: bytes) -> tuple[str, int]:
    """(codec, length of its byte-order mark) of an input's bytes: a BOM decides; without one,
    text whose every other byte of the start is NUL is UTF-16 (Windows tools write it, PowerShell
    ``>`` among them), anything else is read as UTF-8."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec, len(bom)
    sample = data[:512]
    sample = sample[:len(sample) - len(sample) % 2]
    if len(sample) >= 4:
        low, high = sample[0::2], sample[1::2]  # (low, high) bytes of LE code units
        if not high.strip(b"\x00") and not low.translate(None, _ASCII_TEXT):
            return "utf-16-le", 0
        if not low.strip(b"\x00") and not high.translate(None, _ASCII_TEXT):
            return "utf-16-be", 0
    return "utf-8", 0


def decode_exact(data: bytes) -> tuple[str, str, bytes]:
    """(text, codec, BOM) of a file to rewrite: strict (UnicodeDecodeError on bad bytes, so
    that nothing is rewritten through a replacement character), line ends untouched."""
    codec, skip = text_encoding(data)
    return data[skip:].decode(codec), codec, data[:skip]
