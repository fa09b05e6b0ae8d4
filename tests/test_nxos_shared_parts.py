"""The NX-OS parser gives every port of a switch one model of the parts of port QoS that no line
of the port changes (the system's service-policy bindings, the watchdog the global line gives,
the pause of a port without flowcontrol lines) instead of validating one per port, for speed.
These tests parse every NX-OS input there is both ways (shared, and each part validated for
each port) and require the same objects, and check that a port with a line of its own for a
part keeps a part of its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from fablint.model import Device
from fablint.parsers import nxos
from fablint.parsers.base import ParseError, ParseResult
from tests.conftest import nxos_inputs
from tests.test_ib_construct import _same
from tests.test_nxos_parser_properties import NXOS_LIKE, SETTINGS


def _parse(text: str, path: str) -> ParseResult | str:
    try:
        return nxos.NxosParser().parse(text, path)
    except ParseError as exc:
        return str(exc)


def _unshared(self: Any, cls: type[Any], values: dict[str, Any]) -> Any:
    return cls.model_validate(values)


def _both(text: str, path: str = "leaf.cfg") -> ParseResult | None:
    """Parse ``text`` as the parser does and with each shared part validated port by port;
    they must agree object for object."""
    shared = _parse(text, path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(nxos._NxosBuilder, "shared_part", _unshared)
        alone = _parse(text, path)
    if isinstance(alone, str):
        assert shared == alone
        return None
    assert isinstance(shared, ParseResult)
    _same(shared.devices, alone.devices, "devices")
    assert [d.model_dump_json() for d in shared.devices] == \
        [d.model_dump_json() for d in alone.devices]
    assert shared.problems == alone.problems
    return shared


@pytest.mark.parametrize("path", nxos_inputs(), ids=lambda p: p.name)
def test_real_and_fixture_files_share_only_what_is_alike(path: Path) -> None:
    _both(path.read_text(encoding="utf-8", errors="replace"), str(path))


@SETTINGS
@given(NXOS_LIKE)
def test_arbitrary_configs_share_only_what_is_alike(text: str) -> None:
    _both(text)


CONFIG = """\
hostname leaf1
priority-flow-control watch-dog-interval on
policy-map type network-qos NQ
  class type network-qos c-8q-nq3
    pause pfc-cos 3
policy-map type queuing EGRESS
  class type queuing c-out-8q-q3
    bandwidth remaining percent 50
system qos
  service-policy type network-qos NQ
  service-policy type queuing output EGRESS
interface Ethernet1/1
  priority-flow-control mode on
interface Ethernet1/2
  priority-flow-control mode on
  priority-flow-control watch-dog-interval off
interface Ethernet1/3
  flowcontrol receive on
interface Ethernet1/4
  no switchport
"""


def test_a_port_with_a_line_of_its_own_keeps_its_own_part() -> None:
    result = _both(CONFIG)
    assert result is not None
    device: Device = result.devices[0]
    ports = device.interfaces
    one, two, three, four = (ports[f"Ethernet1/{n}"].qos for n in (1, 2, 3, 4))
    # the global watchdog on every port without a line of its own, one object
    assert one.pfc.watchdog.enabled and three.pfc.watchdog.enabled
    assert one.pfc.watchdog is three.pfc.watchdog
    assert one.pfc.watchdog.where("enabled") == ("leaf.cfg", 2)
    # the port's own 'watch-dog-interval off' wins, in an object of its own
    assert not two.pfc.watchdog.enabled
    assert two.pfc.watchdog.where("enabled") == ("leaf.cfg", 16)
    # flowcontrol on the port: a pause of its own; the others share the default one
    assert three.pause.rx and three.pause.where("rx") == ("leaf.cfg", 18)
    assert one.pause is two.pause and not one.pause.enabled
    assert three.pause is not one.pause
    # the system's bindings, one object each, on every port
    assert [b.name for b in one.policies] == ["NQ", "EGRESS"]
    assert all(a is b for a, b in zip(one.policies, four.policies, strict=True))
