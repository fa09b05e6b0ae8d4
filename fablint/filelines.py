"""The lines of a large input file, read from the file when asked for.

The fixes of a finding may need a few lines of the file it is in. For a 50 MB running-config,
reading its text again whole costs its bytes and its text at once (twice the file) on top of
the model, at the lint's peak; ``FileLines`` keeps one offset per megabyte of the file and the
lines of the last megabyte it read.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from pathlib import Path
from typing import overload

from fablint.encodings import text_encoding

CHUNK_BYTES = 1 << 20
"""Bytes of the file read at a time (cut at a line end)."""


class FileLines(Sequence[str]):
    """``read_text(path).split("\\n")`` of a UTF-8 file with LF line ends, without holding the
    text (``scan``). A line is decoded from the bytes that hold it, as the whole text would
    have been: a UTF-8 sequence never spans a line end."""

    def __init__(self, path: str, starts: list[int], offsets: list[int], count: int) -> None:
        self._path = path
        self._starts = starts
        """Index of the first line of each chunk."""
        self._offsets = offsets
        """Byte offset of each chunk, and of the end of the file last."""
        self._count = count
        self._cached: tuple[int, list[str]] = (-1, [])

    @classmethod
    def scan(cls, path: str) -> FileLines | None:
        """The lines of ``path``; None when it is not plain UTF-8 with LF line ends (a BOM,
        UTF-16, a CR) or cannot be read: then the text is read whole."""
        try:
            with Path(path).open("rb") as handle:
                codec, skip = text_encoding(handle.read(512))
                if codec != "utf-8" or skip:
                    return None
                handle.seek(0)
                starts: list[int] = []
                offsets: list[int] = []
                line = offset = 0
                rest = b""
                while True:
                    data = handle.read(CHUNK_BYTES)
                    if b"\r" in data:
                        return None
                    chunk = rest + data
                    if not chunk:
                        break
                    cut = len(chunk) if not data else chunk.rfind(b"\n") + 1
                    if cut == 0:  # no line end in a whole chunk: read on
                        rest = chunk
                        continue
                    starts.append(line)
                    offsets.append(offset)
                    line += chunk.count(b"\n", 0, cut)
                    offset += cut
                    rest = chunk[cut:]
                    if not data:
                        break
        except OSError:
            return None
        if not starts:  # an empty file: one empty line
            starts, offsets = [0], [0]
        offsets.append(offset)
        return cls(path, starts, offsets, line + 1)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("line index out of range")
        chunk = bisect_right(self._starts, index) - 1
        number, lines = self._cached
        if number != chunk:
            with Path(self._path).open("rb") as handle:
                handle.seek(self._offsets[chunk])
                data = handle.read(self._offsets[chunk + 1] - self._offsets[chunk])
            lines = data.decode("utf-8", errors="replace").split("\n")
            self._cached = (chunk, lines)
        return lines[index - self._starts[chunk]]
