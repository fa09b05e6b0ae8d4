"""The ibnetdiscover patterns that stand in for others read a line as those do: the node-line
pattern as its former lazy form (``(.*?)\\s*$``, which tried ``\\s*$`` at each character of
the comment), the plain port-line pattern as ``_PORT_FULL`` wherever it matches."""

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


def _pick(draw: st.DrawFn, good: list[str], odd: list[str]) -> str:
    """Mostly a well-formed value, one in eight times an odd one."""
    return draw(st.sampled_from(odd if not draw(st.integers(0, 7)) else good))


_NUMBERS = (["1", "26", "65", "254", "0"], ["255", "1000", "99999", "123456", "", "-1", "٣",
                                            "1a"])
_HEXES = (["b83fd20300a00001", "946dae0300007d11", "B83FD20300A00001", "1234", "abc"],
          ["1", "12", "123", "946dae0300007d11f", "", "xyz", "1/2/1", "0x12"])
_SPACES = (["\t", " ", "\t\t", ""], ["  ", " \t", "\x0b", "\u00a0", "\x1c"])
_DESCS = (["Quantum-2 Mellanox Technologies", "gpu0001 mlx5_0", ""], [" x ", "a#b", "ünï",
                                                                      'q"q'])
_RATES = (["4xNDR", "4xHDR", "1xSDR", "12xQDR", "4x???"], ["4xndr", "123xNDR", "x4", "4x",
                                                           "4xN DR", "4xNDR?"])


@st.composite
def port_lines(draw: st.DrawFn) -> str:
    """Port lines close to the real forms: each part well formed or, one in eight times,
    odd; now and then a part replaced by something else."""
    def paren() -> str:
        kind = draw(st.integers(0, 5))
        return "" if kind < 3 else f"({_pick(draw, *_HEXES)})" if kind < 5 else \
            f"({_pick(draw, *_HEXES)}){_pick(draw, *_SPACES)}({_pick(draw, *_HEXES)})"

    own = "" if draw(st.integers(0, 3)) else \
        f"lid {_pick(draw, *_NUMBERS)} lmc {_pick(draw, *_NUMBERS)} "
    letter = _pick(draw, ["S", "H", "R"], ["X", ""])
    parts = [f"[{_pick(draw, *_NUMBERS)}]", _pick(draw, *_SPACES), paren(),
             _pick(draw, *_SPACES), f'"{letter}-{_pick(draw, *_HEXES)}"',
             f"[{_pick(draw, *_NUMBERS)}]", paren(), _pick(draw, *_SPACES),
             _pick(draw, ["#", "# "], ["", "##"]), _pick(draw, *_SPACES), own,
             f'"{_pick(draw, *_DESCS)}"', _pick(draw, [" ", "\t"], ["", "  "]), "lid",
             _pick(draw, [" "], ["", "  "]), _pick(draw, *_NUMBERS), _pick(draw, [" ", "\t"],
                                                                          ["", "  "]),
             _pick(draw, *_RATES)]
    if not draw(st.integers(0, 7)):
        parts[draw(st.integers(0, len(parts) - 1))] = draw(st.sampled_from(
            ["", "lid", "lid 5 lmc 0 ", "#", '"', "(", ")", "[", "]", "[ext 3]", "x"]))
    return "".join(parts).strip()


@settings(max_examples=4000, deadline=None)
@given(port_lines())
def test_plain_port_lines_read_as_the_full_pattern_does(line: str) -> None:
    plain, full = ib._PORT_PLAIN.match(line), ib._PORT_FULL.match(line)
    if plain is not None:
        assert full is not None, line
        assert ib.plain_port_groups(plain) == full.groups(), line


def test_the_usual_switch_port_lines_are_plain() -> None:
    """Both dialects' switch port lines take the plain pattern; a CA's own line does not."""
    for line in ('[1]\t"S-b83fd20300a003e9"[1]\t\t# "Quantum-2 Mellanox Technologies" lid 1001 '
                 '4xNDR', '[26]\t"H-946dae0300007d10"[1](946dae0300007d11) \t\t# "gpu0001 '
                 'mlx5_0" lid 2001 4xNDR', '[3]  "S-0002c90200400000"[7]   # "leaf01" lid 2 '
                 '4xQDR'):
        plain = ib._PORT_PLAIN.match(line)
        assert plain is not None and ib.plain_port_groups(plain) == \
            ib._PORT_FULL.match(line).groups()  # type: ignore[union-attr]
    ca = '[1](946dae0300007d11) \t"S-b83fd20300a00001"[26]\t\t# lid 2001 lmc 0 "desc" lid 1 4xNDR'
    assert ib._PORT_PLAIN.match(ca) is None and ib._PORT_FULL.match(ca) is not None


@st.composite
def header_lines(draw: st.DrawFn) -> str:
    """Header lines: each part as ibnetdiscover writes it or, one in eight times, odd."""
    parts = [_pick(draw, ["vendid", "devid", "sysimgguid", "switchguid", "caguid", "rtguid"],
                   ["guid", "VENDID", ""]),
             _pick(draw, ["="], [" = ", "=\t", "", "=="]), _pick(draw, ["0x"], ["0X", "", "x"]),
             _pick(draw, ["2c9", "b83fd20300a00001", "d2f2"], ["ABC", "", "12g", "0x1"]),
             _pick(draw, ["", "(b83fd20300a00001)"], ["(ABC)", "()", "(1", " (1)"]),
             _pick(draw, [""], [" # x", " ", "#", "\u00a0"])]
    return "".join(parts).strip()


@settings(max_examples=3000, deadline=None)
@given(header_lines())
def test_plain_header_lines_read_as_the_full_pattern_does(line: str) -> None:
    plain, full = ib._IDS_PLAIN.match(line), ib._IDS.match(line)
    if plain is not None:
        assert full is not None and plain.groups() == full.groups(), line


def test_the_usual_header_lines_are_plain() -> None:
    for line in ("vendid=0x2c9", "devid=0xd2f2", "sysimgguid=0xb83fd20300a00001",
                 "switchguid=0xb83fd20300a00001(b83fd20300a00001)", "caguid=0x946dae0300007d10"):
        plain = ib._IDS_PLAIN.match(line)
        assert plain is not None and plain.groups() == \
            ib._IDS.match(line).groups()  # type: ignore[union-attr]
