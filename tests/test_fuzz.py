"""A short seeded profile of bench/fuzz.py (the full run is 10,000 mutations), and the crashes
the full run found, each as its own reproducer."""

from __future__ import annotations

from pathlib import Path

import pytest

from fablint.ingest import parse_file
from tests.conftest import CORPUS, bench_module

fuzz = bench_module("fuzz")


def test_a_short_seeded_fuzz_run_finds_no_crash_or_hang() -> None:
    if not CORPUS.is_dir():
        pytest.skip("shared corpus not found")
    outcome = fuzz.run(count=120, seed=16, lint_every=8, timeout=30.0)
    assert outcome.tried == 120 and outcome.linted == 15
    assert len(outcome.by_target) >= 8, "every kind of parser gets its turn"
    assert outcome.exceptions == 0 and outcome.hangs == 0, outcome.crashes


def test_the_same_seed_tries_the_same_mutations() -> None:
    import random

    text = "interface Ethernet1\n   mtu 9214\n   speed 400g\n"
    runs = [fuzz.mutate(random.Random(5), text, "other\ntext\n") for _ in range(2)]
    assert runs[0] == runs[1] != text


@pytest.mark.parametrize(("name", "fmt", "text"), [
    # a number of 100,000 digits: Python's int() refuses over 4,300 (opensm, mlnx_qos, LLDP
    # JSON) - a clear FAB001, or C's saturation where OpenSM itself would saturate
    ("opensm.conf", "opensm", "qos_vlarb_high 0:" + "9" * 100_000 + "\n"),
    ("lldp.json", "lldp", '{"lldp_neighbors_detail": {"Ethernet1": [{"x": '
     + "1" * 100_000 + "}]}}\n"),
    ("mlnx_qos.txt", "mlnx_qos", "PFC configuration:\n\tpriority    0   1   2   3   4   5   6   7"
     "\n\tenabled     " + "1" * 100_000 + "   0   0   1   0   0   0   0\n"),
    ("subnet.lst", "ib-subnet-list", "{ SW-1 Ports:24 SystemGUID:0002c9030000a0b0 "
     "NodeGUID:0002c9030000a0b0 PortGUID:0002c9030000a0b0 VenID:000002C9 DevID:"
     + "F" * 5000 + " Rev:000000A0 {sw-1} LID:0001 PN:01 } { CA-1 Ports:1 } PHY=4x LOG=ACT "
     "SPD=10\n"),
])
def test_huge_numbers_are_refused_or_saturated_never_a_crash(name: str, fmt: str, text: str,
                                                              tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    outcome = parse_file(str(path), True, fmt)  # never raises
    assert outcome.input.path == str(path)


@pytest.mark.parametrize(("fmt", "line"), [
    ("ibnetdiscover-ports", "SW   478 22 0x0002c9020040f160 4x QDR" + " " * 100_000 + "- x"),
    ("iblinkinfo", "           1    5[  ] ==(    " + " " * 100_000 + "Down)==>  [  ] \"\" ( )"),
    ("ibnetdiscover", 'Switch\t64 "S-b83fd20300a1b2c0"\t\t# leaf01' + " " * 100_000
     + "enhanced port 0 lid 1 lmc 0"),
    ("mlxconfig", "         RPG_BYTE_RESET_P1" + " " * 100_000 + "32767"),
    ("lldp", "Capability codes:\n  (R) Router, (B) Bridge\n\nDevice ID            Local Intf"
     "      Hold-time  Capability  Port ID\ngpu301               Eth1/1          120        S"
     "           eth" + " " * 100_000 + "0"),
])
def test_a_line_of_100_000_characters_does_not_hang_a_parser(fmt: str, line: str,
                                                             tmp_path: Path) -> None:
    path = tmp_path / "dump.txt"
    path.write_text(line + "\n", encoding="utf-8")
    with fuzz.time_limit(60):  # the fuzz harness's hang guard: this took minutes before
        outcome = parse_file(str(path), True, fmt)
    assert outcome.problems, "nothing but an over-long line: not a dump"
