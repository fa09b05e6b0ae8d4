"""The NX-OS parser remembers what a line of a port's block does, by the line as written
(``nxos._IF_RAW``), and applies it to the next port with the same line without reading it again.
What it remembers must never change a parse: every NX-OS input there is (the corpus, the
fixtures, the mixed fabric's generated switches, hypothesis configs) parses the same with the
cache empty, with the cache filled by the same file, and after another file."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given

from fablint.parsers import nxos
from fablint.parsers.base import ParseError, ParseResult
from tests.conftest import bench_module, nxos_inputs
from tests.test_ib_construct import _same
from tests.test_nxos_parser_properties import NXOS_LIKE, SETTINGS


def _parse(text: str, path: str) -> ParseResult | str:
    try:
        return nxos.NxosParser().parse(text, path)
    except ParseError as exc:
        return str(exc)


def _agree(warm: ParseResult | str, cold: ParseResult | str) -> None:
    if isinstance(cold, str):
        assert warm == cold
        return
    assert isinstance(warm, ParseResult)
    _same(warm.devices, cold.devices, "devices")
    assert [d.model_dump_json() for d in warm.devices] == \
        [d.model_dump_json() for d in cold.devices]
    assert warm.problems == cold.problems
    assert (warm.lines, warm.unknown_lines, warm.first_unknown, warm.foreign_lines,
            warm.first_foreign) == (cold.lines, cold.unknown_lines, cold.first_unknown,
                                    cold.foreign_lines, cold.first_foreign)


def _cold(text: str, path: str) -> ParseResult | str:
    nxos.clear_caches()
    return _parse(text, path)


def _check(text: str, path: str = "leaf.cfg", before: str | None = None) -> None:
    """Cold, warm from itself, and warm from ``before`` (another file) give one parse."""
    cold = _cold(text, path)
    _agree(_parse(text, path), cold)
    if before is not None:
        nxos.clear_caches()
        _parse(before, "other.cfg")
        _agree(_parse(text, path), cold)


@pytest.mark.parametrize("path", nxos_inputs(), ids=lambda p: p.name)
def test_real_and_fixture_files_parse_the_same_warm_or_cold(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    others = [p for p in nxos_inputs() if p != path]
    _check(text, str(path), others[0].read_text(encoding="utf-8", errors="replace"))
    _check(text.replace("\n", "\r\n"), str(path))


def test_generated_switches_parse_the_same_warm_or_cold(tmp_path: Path) -> None:
    for needed in ("gen_eos", "gen_ib", "mem_big_config"):  # what gen_mixed imports
        bench_module(needed)
    gen = bench_module("gen_mixed")
    paths = [p for p in gen.generate(16, tmp_path) if p.name.endswith(".nxos.cfg")]
    assert len(paths) >= 2
    texts = [p.read_text(encoding="utf-8") for p in paths[:3]]
    for n, text in enumerate(texts):
        _check(text, paths[n].name, texts[n - 1])


@SETTINGS
@given(NXOS_LIKE, NXOS_LIKE)
def test_arbitrary_configs_parse_the_same_warm_or_cold(text: str, other: str) -> None:
    _check(text, before=other)


CONFIG = """\
hostname leaf1
interface Ethernet1/5
    mtu 9216
interface Ethernet1/1
  mtu 9216
  priority-flow-control mode on
  service-policy type qos input ROCE
  no shutdown
  hsrp 10
    mtu 9216
interface Ethernet1/2-3
  mtu 9216
  priority-flow-control mode on
interface Ethernet1/4
  mtu 9216
  no shutdown
  speed 100000
  mtu 9000x
"""


def test_remembered_lines_apply_only_in_a_port_block() -> None:
    """A remembered line under a line that is skipped stays skipped, and one in a range block
    goes to every port of the range; the second parse is served from the cache."""
    nxos.clear_caches()
    cold = _parse(CONFIG, "leaf.cfg")
    assert isinstance(cold, ParseResult)
    calls: list[str] = []
    line = nxos._NxosBuilder.if_line

    def counted(self: nxos._NxosBuilder, iface: dict, words: list[str], body: str) -> bool:
        calls.append(body)
        return line(self, iface, words, body)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(nxos._NxosBuilder, "if_line", counted)
        warm = _parse(CONFIG, "leaf.cfg")
    _agree(warm, cold)
    # only lines without an op of their own read their words again (mtu, PFC mode, bindings,
    # shutdown: remembered ops); the line under the skipped 'hsrp 10' is not applied
    assert calls == ["hsrp 10", "speed 100000", "mtu 9000x"]
    assert isinstance(warm, ParseResult)
    ports = warm.devices[0].interfaces
    assert ports["Ethernet1/5"].where("l2_mtu") == ("leaf.cfg", 3)
    # line 10 is line 3 as written, but under a skipped line: not Ethernet1/1's MTU
    assert ports["Ethernet1/1"].where("l2_mtu") == ("leaf.cfg", 5)
    assert warm.unknown_lines == cold.unknown_lines >= 2  # 'hsrp 10' and the line under it
    for name in ("Ethernet1/2", "Ethernet1/3"):
        assert ports[name].where("l2_mtu") == ("leaf.cfg", 12)
        assert ports[name].qos.pfc.where("mode") == ("leaf.cfg", 13)
    assert ports["Ethernet1/4"].l2_mtu == 9216
    assert [p.line for p in warm.problems] == [18]
