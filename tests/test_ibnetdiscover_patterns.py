"""The ibnetdiscover node-line pattern reads a stripped line as its former lazy form did
(``(.*?)\\s*$``, which tried ``\\s*$`` at each character of the comment: a third of the
pattern work of a large dump)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from fablint.parsers import ibnetdiscover as ib

LAZY = re.compile(
    r'^(Switch|Ca|Rt)\s*(\d+)\s*"([SHR])-([0-9A-Fa-f]+)"\s*(?:#\s*(.*?))?\s*$')

_PIECES = st.sampled_from([
    "Switch", "Ca", "Rt", "Cable", " ", "\t", "\x0b", "\x1c", "\u00a0", "\r", "65", "1", "٣",
    '"', '"S-', '"H-', "S-", "b83fd20300a00001", "xyz", "#", "# ", '"Quantum-2 Mellanox"',
    "enhanced port 0", "lid 1 lmc 0", "\u2028", "gpu01 mlx5_0", "-"])


@settings(max_examples=3000, deadline=None)
@given(st.lists(_PIECES, max_size=12))
def test_node_lines_read_as_the_lazy_pattern_did(pieces: list[str]) -> None:
    line = "".join(pieces).strip()
    old, new = LAZY.match(line), ib._NODE.match(line)
    assert (old and old.groups()) == (new and new.groups()), line


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(["Switch", "Ca", "Rt"]), st.sampled_from(["", " ", "\t"]),
       st.integers(0, 300), st.sampled_from(["S", "H", "R"]),
       st.text("0123456789abcdef", min_size=1), st.text(max_size=40))
def test_well_formed_node_lines_read_as_the_lazy_pattern_did(
        kind: str, space: str, ports: int, letter: str, guid: str, comment: str) -> None:
    line = f'{kind}{space}{ports} "{letter}-{guid}"{space}# {comment}'.strip()
    line = line.split("\n")[0].strip()
    old, new = LAZY.match(line), ib._NODE.match(line)
    assert (old and old.groups()) == (new and new.groups()), line
