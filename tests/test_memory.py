"""The memory savings for large inputs change nothing that can be seen.

A large device is validated port by port with shared parts (``build.Compactor``), its lines
are split a chunk at a time (``base.split_lines``) and a large file's lines for fix edits are
cut from its text (``engine._TextLines``). Each is checked here against the plain way on the
same input; ``bench/mem_big_config.py`` measures what they save.
"""

from __future__ import annotations

import json
import pickle
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fablint import engine
from fablint.model import NO_SOURCES, FieldSources, Interface, SourceRef
from fablint.parsers import base, build
from fablint.parsers.eos import EosParser
from fablint.parsers.nxos import NxosParser
from tests.conftest import bench_module

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
    # and with the ports read so far frozen at every port the file opens
    monkeypatch.setattr(build, "FREEZE_BYTES", 0)
    monkeypatch.setattr(build, "FREEZE_BATCH", 1)
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
    # compacted: field_src as FieldSources, PFC sets and empty containers shared by value
    assert all(p.field_src.__class__ is FieldSources for p in ports)
    assert ports[0].field_src["mtu"] == SourceRef("chassis1.cfg", 12)  # the text's line
    assert len({id(p.qos.pfc.drop) for p in ports}) == 1
    assert len({id(p.qos.pfc.no_drop) for p in ports}) == 2  # {3}, and every 50th port's {4}
    assert len({id(p.acls) for p in ports}) == 1
    assert ports[0].qos.policies is ports[0].acls  # the one empty list
    assert ports[0].qos.pause.field_src is NO_SOURCES
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


def test_field_sources_read_as_the_dict_they_replace() -> None:
    refs = {"mtu": SourceRef("leaf1.cfg", 12), "description": SourceRef("leaf1.cfg", 70_000),
            "priority[3]": SourceRef("leaf1.cfg", 12)}
    compact = FieldSources.compact(refs)
    assert compact.__class__ is FieldSources
    assert compact == refs and refs == compact and compact != {"mtu": refs["mtu"]}
    assert list(compact) == list(refs) and len(compact) == 3
    assert list(compact.items()) == list(refs.items())
    assert list(compact.values()) == list(refs.values())
    assert compact["description"] == ("leaf1.cfg", 70_000) and compact.get("vrf") is None
    assert "mtu" in compact and "vrf" not in compact and compact.get("vrf", 1) == 1
    with pytest.raises(KeyError):
        compact["vrf"]
    with pytest.raises(TypeError):
        compact["vrf"] = refs["mtu"]  # type: ignore[index]
    assert repr(compact) == repr(refs)
    assert pickle.loads(pickle.dumps(compact)) == refs
    assert FieldSources.compact({"mtu": SourceRef("leaf1.cfg", 4)})._layout is \
        FieldSources.compact({"mtu": SourceRef("leaf1.cfg", 9)})._layout
    assert compact != {}
    assert not compact != refs  # noqa: SIM202 (__ne__ of its own, not bytes')
    assert str(compact) == str(refs) and NO_SOURCES == {} and not NO_SOURCES
    # what four bytes of line in one file cannot say stays a dict
    for odd in ({"mtu": SourceRef("leaf1.cfg", None)}, {"mtu": SourceRef("leaf1.cfg", 0)},
                {"a": SourceRef("leaf1.cfg", 1), "b": SourceRef("other.cfg", 2)}, {}):
        assert FieldSources.compact(odd) is odd
    port = Interface.model_validate({"name": "Ethernet1", "field_src": refs})
    plain = (port.model_dump(), port.model_dump(mode="json"), port.model_dump_json(),
             port.model_dump(mode="json", exclude_defaults=True))
    port.__dict__["field_src"] = compact
    assert (port.model_dump(), port.model_dump(mode="json"), port.model_dump_json(),
            port.model_dump(mode="json", exclude_defaults=True)) == plain
    assert port.where("vrf", "description") == refs["description"] and port.configured("mtu")


def test_variants_read_as_the_plain_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    """The objects of a large device that keep only their own values (``fablint.variants``:
    a port, its QoS settings, PFC, classification maps, binding and reference; some in a
    smaller form) read, compare, dump, copy, pickle and take assignments as the plain objects
    they stand for."""
    import copy

    from fablint.variants import plain_class

    text = _nxos_chassis(1100)
    monkeypatch.setattr(build, "COMPACT_PORTS", 10**9)
    plain = NxosParser().parse(text, "chassis1.cfg").devices[0]
    monkeypatch.setattr(build, "COMPACT_PORTS", 1024)
    monkeypatch.setattr(build, "FREEZE_BYTES", 0)  # read port by port, as a large file is
    device = NxosParser().parse(text, "chassis1.cfg").devices[0]
    ports = list(device.interfaces.values())
    owned = next(r for r in device.references if r.owner == f"interface {ports[0].name}")
    formed = {name for obj in (ports[0], ports[0].qos.policies[0], owned)
              for name, value in vars(type(obj)).items() if isinstance(value, property)}
    assert {"src", "ip_addresses", "owner", "__dict__"} <= formed
    assert len({type(p) for p in ports}) == 1 and type(ports[0]) is not Interface
    assert device.model_dump() == plain.model_dump()
    assert device.model_dump_json() == plain.model_dump_json()
    for n in (0, 7, 1099):
        port, alike = ports[n], plain.interfaces[ports[n].name]
        reference = next(r for r in device.references if r.owner == f"interface {port.name}")
        objects = [(port, alike), (port.qos, alike.qos), (port.qos.pfc, alike.qos.pfc),
                   (port.qos.maps, alike.qos.maps),
                   (port.qos.policies[0], alike.qos.policies[0]),
                   (reference, next(r for r in plain.references if r.owner == reference.owner))]
        for variant, same in objects:
            cls = type(same)
            assert type(variant) is not cls and isinstance(variant, cls)
            assert plain_class(variant) is cls and plain_class(same) is cls
            assert variant == same and same == variant and not variant != same  # noqa: SIM202
            assert variant.__dict__ == same.__dict__ and repr(variant) == repr(same)
            for mode in ("python", "json"):
                for defaults in (False, True):
                    assert variant.model_dump(mode=mode, exclude_defaults=defaults) == \
                        same.model_dump(mode=mode, exclude_defaults=defaults)
            assert variant.model_dump_json() == same.model_dump_json()
            assert variant.model_fields_set == same.model_fields_set
            for made in (pickle.loads(pickle.dumps(variant)), copy.copy(variant),
                         copy.deepcopy(variant), variant.model_copy()):
                assert type(made) is cls and made == same
        assert port != ports[n + 1 if n < 1099 else 0]
    # an assignment gives the object its own value, and no other object of its class
    port, other = ports[5], ports[6]
    port.description = "moved"
    port.qos.pfc.enabled = False
    assert port.description == "moved" and other.description != "moved"
    assert port.qos.pfc.enabled is False and other.qos.pfc.enabled is True
    assert port.model_dump()["qos"]["pfc"]["enabled"] is False
    assert "enabled" in port.qos.pfc.model_fields_set
    assert port.model_copy(update={"mtu": 1500}).mtu == 1500 and port.mtu == 9216
    # and to a value kept in a smaller form (a line, a list's first item, a port's name)
    reference = next(r for r in device.references if r.owner == f"interface {port.name}")
    moved = SourceRef("chassis1.cfg", 1)
    port.src, port.ip_addresses, port.qos.policies = moved, ["10.9.9.9/31"], []
    reference.owner = "interface Ethernet9/9"
    assert (port.src, port.ip_addresses, port.qos.policies) == (moved, ["10.9.9.9/31"], [])
    assert other.src != moved and other.ip_addresses != ["10.9.9.9/31"]
    assert len(other.qos.policies) == 3 and reference.owner == "interface Ethernet9/9"
    assert port.model_dump()["ip_addresses"] == ["10.9.9.9/31"]
    assert pickle.loads(pickle.dumps(port)).src == moved
    with pytest.raises(ValueError, match="no field"):
        port.colour = "red"


def test_own_settings_are_found_a_slice_of_ids_at_a_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``checks.base._own_settings`` (every port its own QoS settings) compares the ids a
    slice at a time on a large device and finds what the whole set finds."""
    from fablint.checks import base as checks_base

    ports = list(NxosParser().parse(_nxos_chassis(300), "c.cfg").devices[0].interfaces.values())
    shared = Interface.model_validate({"name": "Ethernet9/1"})
    twin = Interface.model_validate({"name": "Ethernet9/2"})
    object.__setattr__(twin, "qos", shared.qos)
    for size in (10**6, 1, 7, 64):
        monkeypatch.setattr(checks_base, "ID_SLICE", size)
        assert checks_base._own_settings(ports)
        assert not checks_base._own_settings([*ports[:100], shared, *ports[100:], twin])
        assert not checks_base._own_settings([*ports, ports[3]])


def _model_bytes_per_port(text: str, vendor: str, ports: int) -> float:
    """Bytes that the parsed model of ``text`` keeps, per port (tracemalloc)."""
    parser = PARSERS[vendor]
    parser.parse(text, "warm.cfg")  # caches of lines read before: not the model
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = parser.parse(text, "chassis1.cfg")
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(result.devices[0].interfaces) >= ports
    return kept / ports


def _nxos_chassis(ports: int) -> str:
    """The NX-OS chassis of ``bench/mem_big_config.py``: every port with its own PFC mode and
    classification policy over system queuing and network-qos policies."""
    bench = bench_module("mem_big_config")
    blocks = [bench.NXOS_PORT.format(slot=1 + n // 256, port=1 + n // 8 % 32, lane=1 + n % 8,
                                     a=0, b=n >> 6, c=n & 63) for n in range(ports)]
    return str(bench.NXOS_HEADER) + "".join(blocks)


@pytest.mark.parametrize(("vendor", "limit", "frozen"),
                         [("eos", 1300, False), ("nxos", 1500, False), ("nxos", 1500, True)])
def test_the_model_of_a_large_chassis_stays_small(
        vendor: str, limit: int, frozen: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A guard, not a timing: the model of a 2,000-port chassis (every port with its own PFC
    lines; NX-OS: and its own classification policy) keeps at most ``limit`` bytes a port
    (about 1,190 and 1,390-1,430 now), read as a small file or frozen as a large one is.
    Before it kept 5,600 (EOS) and 8,000, then 2,450 and 2,090 (NX-OS), then 1,640 and
    2,030-2,060 before the objects kept only their own values (``fablint.variants``);
    ``bench/mem_big_config.py`` measures the whole lint."""
    if frozen:
        monkeypatch.setattr(build, "FREEZE_BYTES", 0)
    text = _chassis(2000) if vendor == "eos" else _nxos_chassis(2000)
    assert _model_bytes_per_port(text, vendor, 2000) <= limit


FROZEN_CASES = """hostname fr1
!
interface Ethernet1
   description first, reopened below
   channel-group 10 mode active
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
interface Ethernet2
   mtu 9214
   service-profile ROCE
   priority-flow-control pause watchdog
!
interface Ethernet3-4
   description a range of two
   priority-flow-control on
   tx-queue 3
      random-detect ecn minimum-threshold 100 kbytes maximum-threshold 900 kbytes \
max-mark-probability 20
!
interface Ethernet5
   no switchport
   service-profile MISSING
!
interface Ethernet1
   speed 100g
!
interface Port-Channel10
   no switchport
   ip address 10.0.0.1/31
!
interface Loopback0
   ip address 10.1.0.1/32
!
interface defaults
   mtu 9100
!
qos profile ROCE
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   tx-queue 3
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes \
max-mark-probability 100
!
priority-flow-control pause watchdog default timeout 0.5
!
end
"""


def test_frozen_ports_read_as_the_plain_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the file says after a port is frozen still reaches it: the port opened again, a
    range, a port-channel and a profile defined after their members, interface defaults and a
    global watchdog timer at the end."""
    plain = _dump(FROZEN_CASES, "fr1.cfg")
    device = json.loads(plain)[0]
    assert device["interfaces"]["Ethernet1"]["speed_mbps"] == 100_000
    assert device["interfaces"]["Ethernet1"]["routed"] is True  # its port-channel's
    assert device["interfaces"]["Ethernet4"]["description"] == "a range of two"
    monkeypatch.setattr(build, "FREEZE_BYTES", 0)
    for batch in (1, 2, 3):
        monkeypatch.setattr(build, "FREEZE_BATCH", batch)
        assert _dump(FROZEN_CASES, "fr1.cfg") == plain


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["", "a", "bb", "é", "\n", "\n\n", "x" * 7]), max_size=40),
       st.integers(min_value=1, max_value=9))
def test_file_lines_are_the_lines_of_the_text(
        tmp_path_factory: pytest.TempPathFactory, parts: list[str], chunk: int) -> None:
    """FileLines (the fixes' lines of a large file) gives what the text split would."""
    from fablint import filelines
    from fablint.parsers.detect import read_text

    path = tmp_path_factory.mktemp("lines") / "leaf1.cfg"
    path.write_bytes("".join(parts).encode())
    old = filelines.CHUNK_BYTES
    filelines.CHUNK_BYTES = chunk
    try:
        lines = filelines.FileLines.scan(str(path))
    finally:
        filelines.CHUNK_BYTES = old
    expected = read_text(path).split("\n")
    assert lines is not None and len(lines) == len(expected)
    assert [lines[i] for i in range(len(lines))] == expected
    assert [lines[-i] for i in range(1, len(lines) + 1)] == expected[::-1]
    assert list(lines[1:3]) == expected[1:3]
    with pytest.raises(IndexError):
        lines[len(expected)]


def test_file_lines_leave_other_files_to_the_whole_text(tmp_path: Path) -> None:
    from fablint.filelines import FileLines

    for name, data in (("crlf.cfg", b"a\r\nb\r\n"), ("bom.cfg", b"\xef\xbb\xbfa\nb\n"),
                       ("utf16.cfg", "hostname a\n".encode("utf-16"))):
        (tmp_path / name).write_bytes(data)
        assert FileLines.scan(str(tmp_path / name)) is None
    assert FileLines.scan(str(tmp_path / "missing.cfg")) is None


NXOS_FROZEN_CASES = """hostname nx-fr1
no system default switchport
priority-flow-control watch-dog-interval on
class-map type qos match-any ROCE
  match dscp 24,26
class-map type queuing match-any Q3
  match qos-group 3
policy-map type qos CLASSIFY
  class ROCE
    set qos-group 3
policy-map type qos UNUSED
  class ROCE
    set qos-group 4
policy-map type queuing PORT_EGRESS
  class type queuing c-out-8q-q3
    bandwidth remaining percent 60
policy-map type queuing SYSTEM_EGRESS
  class type queuing c-out-8q-q3
    bandwidth remaining percent 50
    random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes \
drop-probability 100 weight 0 ecn
policy-map type network-qos NETWORK
  class type network-qos c-8q-nq3
    pause pfc-cos 3
    mtu 9216
interface Ethernet1/1
  description member of a port-channel defined below
  channel-group 10 mode active
  priority-flow-control mode on
interface Ethernet1/2
  service-policy type qos input CLASSIFY
  service-policy type queuing output PORT_EGRESS
  mtu 9216
interface Ethernet1/3-4
  description a range of two
  service-policy type qos input CLASSIFY
  no shutdown
interface Ethernet1/5
  service-policy type qos input MISSING
  service-policy type qos input CLASSIFY
  no service-policy type qos input CLASSIFY
  switchport
interface Ethernet1/1
  speed 100000
  service-policy type qos input CLASSIFY
interface port-channel10
  switchport
  mtu 9216
interface Vlan10
  no shutdown
  ip address 10.0.0.1/24
system qos
  service-policy type queuing output SYSTEM_EGRESS
  service-policy type network-qos NETWORK
"""


def test_frozen_nxos_ports_read_as_the_plain_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """An NX-OS port frozen while the file is read and bound and resolved as the device is
    validated gives what the plain way gives: a port opened again, a range, a port-channel
    after its members, a port's own queuing policy (a QoS profile, in the order bound: after
    the system's), a binding taken back, an unbound policy and system qos at the end."""
    plain = _dump(NXOS_FROZEN_CASES, "nx-fr1.cfg", "nxos")
    device = json.loads(plain)[0]
    assert list(device["qos_profiles"]) == ["SYSTEM_EGRESS", "PORT_EGRESS"]
    assert device["interfaces"]["Ethernet1/1"]["routed"] is False  # its port-channel's
    assert device["interfaces"]["Ethernet1/4"]["qos"]["maps"]["name"] == "CLASSIFY"
    assert device["policies"]["qos:UNUSED"]["bound"] is False
    owners = [r["owner"] for r in device["references"] if r["kind"].startswith("policy-map")]
    assert owners[:2] == ["system qos", "system qos"] and "interface Ethernet1/1" in owners
    monkeypatch.setattr(build, "FREEZE_BYTES", 0)
    for batch in (1, 2, 3):
        monkeypatch.setattr(build, "FREEZE_BATCH", batch)
        for ports in (1, 10**9):  # compacted, and validated in one go
            monkeypatch.setattr(build, "COMPACT_PORTS", ports)
            assert _dump(NXOS_FROZEN_CASES, "nx-fr1.cfg", "nxos") == plain


def _plain_groups(ports: object) -> list[list[Interface]]:
    """``checks.base._by_qos`` the plain way: a list a group, always."""
    from fablint.checks.base import _qos_key

    groups: dict[tuple[int, bool], list[Interface]] = {}
    for iface in ports:  # type: ignore[attr-defined]
        groups.setdefault(_qos_key(iface), []).append(iface)
    return list(groups.values())


def test_ports_alone_lint_as_the_plain_groups(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A chassis whose ports each have QoS settings of their own keeps its QoS groups as its
    list of ports (``PortsAlone``) and gives the findings the plain groups give: the ports'
    own PFC lines, some ports classifying RoCE wrongly and some at another speed."""
    from typer.testing import CliRunner

    from fablint.checks import base as checks_base
    from fablint.cli import app

    monkeypatch.setattr(checks_base, "ID_SLICE", 100)  # and the ids compared a slice at a time
    text = _nxos_chassis(1200).replace(
        "rail 3\n  no switchport", "rail 3\n  speed 100000\n  no switchport").replace(
        "-05-7 rail 7\n  no switchport\n  mtu 9216\n  priority-flow-control mode on",
        "-05-7 rail 7\n  no switchport\n  mtu 9216\n  priority-flow-control mode off")
    config = tmp_path / "chassis1.cfg"
    config.write_text(text)
    device = NxosParser().parse(text, str(config)).devices[0]
    ports = list(device.interfaces.values())
    assert isinstance(checks_base._by_qos(ports), checks_base.PortsAlone)
    runs = []
    for plain in (False, True):
        if plain:
            monkeypatch.setattr(checks_base, "_by_qos", _plain_groups)
        runs.append([CliRunner().invoke(app, ["lint", str(config), "-f", fmt, "-j", "1"]).stdout
                     for fmt in ("json", "text")])
    assert runs[0] == runs[1]
    assert '"findings": []' not in runs[0][0]  # the ports with PFC off are found


def test_the_rules_keep_nothing_a_port_of_ports_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A guard, not a timing: the device rules' views of a chassis whose 2,000 ports each
    have their own QoS settings are its port list (``PortsAlone``), and nothing is kept a port
    (they kept about 350 bytes a port: a one-port list per group, twice, and a memo entry a
    port)."""
    from fablint.checks import REGISTRY
    from fablint.checks.base import Context, PortsAlone
    from fablint.model import Fabric
    from fablint.profiles import load_policy

    kept = 0
    for ports in (1100, 2000):  # the first builds what every run builds once (validators)
        device = NxosParser().parse(_nxos_chassis(ports), "chassis1.cfg").devices[0]
        ctx = Context(fabric=Fabric(devices={device.name: device}),
                      policy=load_policy("default"))
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for rule in REGISTRY.values():
                if rule.scope == "device":  # what runs beside the parser, on one file
                    list(rule().check(ctx))
            kept = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
    assert isinstance(ctx.qos_groups(device), PortsAlone)
    assert isinstance(ctx.all_qos_groups(device), PortsAlone)
    assert kept / 2000 <= 60
