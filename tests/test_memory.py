"""The memory savings for large inputs change nothing that can be seen.

A large device is validated port by port with shared parts (``build.Compactor``), its lines
are split a chunk at a time (``base.split_lines``) and a large file's lines for fix edits are
cut from its text (``engine._TextLines``). Each is checked here against the plain way on the
same input; ``bench/mem_big_config.py`` measures what they save.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fablint import engine
from fablint.model import Interface
from fablint.parsers import base, build
from fablint.parsers.eos import EosParser
from fablint.parsers.nxos import NxosParser

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path("/work/shared/corpus")


PARSERS = {"eos": EosParser(), "nxos": NxosParser()}


def _cli_inputs() -> list[tuple[str, Path]]:
    """Every EOS and NX-OS configuration of the fixtures and the shared corpus."""
    found = sorted((ROOT / "fixtures").rglob("*.cfg"))
    for vendor in PARSERS:
        if (CORPUS / vendor).is_dir():
            found += sorted((CORPUS / vendor).glob("*"))
    inputs = []
    for path in found:
        head = path.read_text(errors="replace")[:16384]
        scores = {vendor: parser.sniff(head) for vendor, parser in PARSERS.items()}
        vendor = max(scores, key=lambda v: scores[v])
        if scores[vendor] >= 50:
            inputs.append((vendor, path))
    return inputs


def _chassis(ports: int) -> str:
    """A chassis whose ports each carry their own PFC lines over a shared QoS profile, as
    AVD-generated configurations do."""
    head = """hostname chassis1
!
qos profile ROCE
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   tx-queue 3
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes \
max-mark-probability 100
!
"""
    blocks = []
    for n in range(ports):
        slot, port = divmod(n, 32)
        blocks.append(f"""interface Ethernet{slot + 1}/{port + 1}
   description GPU{n:04d} rail {n % 8}
   mtu 9214
   no switchport
   ip address 10.{n >> 8}.{n & 255}.0/31
   service-profile ROCE
   priority-flow-control on
   priority-flow-control priority {3 if n % 50 else 4} no-drop
{"   no priority-flow-control pause watchdog" + chr(10) if n % 7 == 0 else ""}!
""")
    return head + "".join(blocks) + "end\n"


def _dump(text: str, path: str, vendor: str = "eos") -> str:
    result = PARSERS[vendor].parse(text, path)
    return json.dumps([d.model_dump(mode="json") for d in result.devices], sort_keys=False)


@pytest.mark.parametrize(("vendor", "config"), _cli_inputs(),
                         ids=lambda v: v.name if isinstance(v, Path) else v)
def test_port_by_port_validation_gives_the_same_model(
        vendor: str, config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = config.read_text(errors="replace")
    plain = _dump(text, str(config), vendor)
    monkeypatch.setattr(build, "COMPACT_PORTS", 1)
    assert _dump(text, str(config), vendor) == plain


def test_a_large_chassis_shares_what_its_ports_have_alike(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = _chassis(300)
    monkeypatch.setattr(build, "COMPACT_PORTS", 10**9)
    plain = _dump(text, "chassis1.cfg")
    monkeypatch.setattr(build, "COMPACT_PORTS", 100)
    assert _dump(text, "chassis1.cfg") == plain
    device = EosParser().parse(text, "chassis1.cfg").devices[0]
    ports = [i for i in device.interfaces.values() if i.kind == "physical"]
    assert len(ports) == 300
    assert all(isinstance(p, Interface) for p in ports)
    assert len({id(p.qos.queues[3]) for p in ports}) == 1  # the profile's queue, once
    # the resolved watchdog of the profile once; each 7th port's own 'no ... watchdog' line
    assert len({id(p.qos.pfc.watchdog) for p in ports}) == 1 + len(range(0, 300, 7))
    assert len({id(p.qos.pfc) for p in ports}) == 300  # each port's own PFC lines
    assert len({id(p.__pydantic_fields_set__) for p in ports}) == 1
    # an assignment gives the object its own set of names again, leaving the others alone
    first, second = ports[0], ports[1]
    first.vrf = "MGMT"
    assert "vrf" in first.model_fields_set and "vrf" not in second.model_fields_set


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab\n", max_size=80), st.integers(min_value=1, max_value=12))
def test_split_lines_is_split(text: str, chunk: int) -> None:
    old = base.LINE_CHUNK
    base.LINE_CHUNK = chunk
    try:
        assert list(base.split_lines(text)) == text.split("\n")
        lines = engine._TextLines(text)
        expected = text.split("\n")
        assert len(lines) == len(expected)
        assert [lines[i] for i in range(len(lines))] == expected
        assert [lines[-i] for i in range(1, len(lines) + 1)] == expected[::-1]
        assert list(lines[1:3]) == expected[1:3]
        with pytest.raises(IndexError):
            lines[len(expected)]
    finally:
        base.LINE_CHUNK = old


@pytest.mark.parametrize("vendor", ["eos", "nxos"])
def test_a_running_config_over_the_limit_is_refused_naming_the_file(
        vendor: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the limit allows stays within a couple of GB of memory; beyond it the file is a
    clear error naming it (exit 2) and the other files are still linted."""
    from typer.testing import CliRunner

    from fablint.cli import app

    monkeypatch.setitem(base.MAX_CLI_CONFIG_BYTES, vendor, 20_000)
    good = tmp_path / "leaf1.cfg"
    good.write_text((ROOT / "fixtures" / "demo" / "leaf1.cfg").read_text())
    big = tmp_path / "chassis1.cfg"
    if vendor == "eos":
        big.write_text(_chassis(100))
    else:
        big.write_text("hostname nx1\nfeature lldp\n" + "".join(
            f"interface Ethernet1/{n}\n  mtu 9216\n  priority-flow-control mode on\n"
            f"  description port {n} of a chassis with a long description\n"
            for n in range(1, 400)))
    assert big.stat().st_size > 20_000
    run = CliRunner().invoke(app, ["lint", str(tmp_path), "--format", "json"])
    assert run.exit_code == 2, run.stdout
    report = json.loads(run.stdout)
    assert [e["file"] for e in report["errors"]] == [str(big)]
    assert "larger than the 20,000 fablint reads" in report["errors"][0]["message"]
    assert report["summary"]["devices"] == 1  # the good switch is linted all the same
