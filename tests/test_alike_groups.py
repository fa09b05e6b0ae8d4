"""``Context.alike_groups``: ports whose QoS settings are copies of one another (each NX-OS port
with a service-policy or PFC line of its own holds its own copy) are judged once by the judges
and summaries that read values only. Findings and summaries must be exactly those of judging
port by port, and ports that differ in any value the judges read must not be merged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fablint.checks.base import Context, _alike_key
from fablint.cli import app
from fablint.model import (
    ClassMaps,
    Device,
    Fabric,
    Interface,
    LinkPause,
    Pfc,
    QosSettings,
    Watchdog,
)
from fablint.parsers.nxos import NxosParser
from fablint.profiles import load_policy
from tests.conftest import CORPUS, FIXTURES, bench_module


def _port_by_port(self: Context, device: Device,
                  kinds: tuple[str, ...] = ("physical",)) -> object:
    return self.qos_groups(device, kinds)


def _lint(*paths: Path) -> str:
    result = CliRunner().invoke(app, ["lint", *map(str, paths), "--jobs", "1",
                                      "--format", "json"])
    assert result.exit_code in (0, 1, 2), result.output
    return result.output


def _same_either_way(*paths: Path) -> str:
    alike = _lint(*paths)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Context, "alike_groups", _port_by_port)
        one_by_one = _lint(*paths)
    assert alike == one_by_one
    return alike


def test_the_corpus_and_reference_fixtures_lint_the_same(tmp_path: Path) -> None:
    _same_either_way(CORPUS)
    _same_either_way(FIXTURES / "reference")


def test_a_mixed_fabric_lints_the_same(tmp_path: Path) -> None:
    """NX-OS leaves whose ports each bind the classification policy and set PFC, beside EOS
    and SONiC, with the fabric rules' summaries (PFC007, QOS010, ECN006)."""
    for needed in ("gen_eos", "gen_ib", "mem_big_config"):  # what gen_mixed imports
        bench_module(needed)
    gen = bench_module("gen_mixed")
    gen.generate(12, tmp_path)
    report = json.loads(_same_either_way(tmp_path))
    rules = {finding["rule"] for finding in report["findings"]}
    # not vacuous: rules that judge alike ports once, and summaries, have findings here
    assert {"PFC002", "PFC004", "PFC007", "QOS004", "QOS010", "WD001"} <= rules, rules


CONFIG = """\
hostname leaf1
priority-flow-control watch-dog-interval on
class-map type qos match-any ROCE
  match dscp 24,26
policy-map type qos CLASSIFY
  class ROCE
    set qos-group 3
policy-map type qos OTHER
  class ROCE
    set qos-group 4
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
  service-policy type qos input CLASSIFY
interface Ethernet1/2
  priority-flow-control mode on
  service-policy type qos input CLASSIFY
interface Ethernet1/3
  priority-flow-control mode auto
  service-policy type qos input CLASSIFY
interface Ethernet1/4
  no switchport
  priority-flow-control mode on
  service-policy type qos input CLASSIFY
interface Ethernet1/5
  priority-flow-control mode on
  service-policy type qos input OTHER
interface Ethernet1/6
  priority-flow-control mode on
  priority-flow-control watch-dog-interval off
  service-policy type qos input CLASSIFY
interface Ethernet1/7
  flowcontrol receive on
  priority-flow-control mode on
  service-policy type qos input CLASSIFY
interface Ethernet1/8
  priority-flow-control mode on
  service-policy type qos input CLASSIFY
"""


def test_only_copies_of_one_qos_are_merged() -> None:
    device = NxosParser().parse(CONFIG, "leaf1.cfg").devices[0]
    policy = load_policy(overrides={"ports": {"switched": True}})
    ctx = Context(fabric=Fabric(devices={device.name: device}), policy=policy)
    groups = [[i.name for i in group] for group in ctx.alike_groups(device)]
    # 1, 2 and 8 bind the same policy the same way (each port its own copy, its own lines);
    # every other port differs in one value: PFC mode, routed, the chain, the watchdog, pause
    assert groups == [["Ethernet1/1", "Ethernet1/2", "Ethernet1/8"], ["Ethernet1/3"],
                      ["Ethernet1/4"], ["Ethernet1/5"], ["Ethernet1/6"], ["Ethernet1/7"]]
    ports = device.interfaces
    assert ports["Ethernet1/1"].qos is not ports["Ethernet1/2"].qos
    judged: list[str] = []

    def judge(port: Interface) -> str:
        judged.append(port.name)
        return f"mode {port.qos.pfc.mode}"

    found = list(ctx.ports_with(device, judge, alike=True))
    assert judged == ["Ethernet1/1", "Ethernet1/3", "Ethernet1/4", "Ethernet1/5",
                      "Ethernet1/6", "Ethernet1/7"]
    # every port, in port order, each with its group's value
    assert [(p.name, v) for p, v in found] == [(f"Ethernet1/{n}", "mode auto" if n == 3
                                                else "mode on") for n in range(1, 9)]
    assert list(ctx.ports_with(device, judge)) == found  # port by port: the same


def test_the_key_leaves_out_sources_only() -> None:
    device = NxosParser().parse(CONFIG, "leaf1.cfg").devices[0]
    one, two = device.interfaces["Ethernet1/1"], device.interfaces["Ethernet1/2"]
    assert one.qos.pfc.where("mode") != two.qos.pfc.where("mode")
    assert _alike_key(one) == _alike_key(two)
    # a copy made anew: equal in all but its queues, which are other objects (compared as
    # objects: a queuing policy's queues are one set that its ports share)
    copy = Interface.model_validate({**one.model_dump(), "name": "Ethernet1/9"})
    differ = [n for n, (a, b) in enumerate(zip(_alike_key(copy), _alike_key(one), strict=True))
              if a != b]
    assert differ == [21] and copy.qos.queues == one.qos.queues
    for field, value in (("trust", None), ("default_cos", 3), ("name", "x")):
        qos = one.qos.model_copy(update={field: value})
        other = one.model_copy(update={"qos": qos})
        assert _alike_key(other) != _alike_key(one), field


def _with(model: Any, path: tuple[str, ...], value: object) -> Any:
    """``model`` with the field at ``path`` (through nested models) set to ``value``."""
    head, *rest = path
    inner = value if not rest else _with(getattr(model, head), tuple(rest), value)
    return model.model_copy(update={head: inner})


def test_the_key_reads_every_qos_field() -> None:
    """A field added to the port's QoS models later must be added to the key too: otherwise
    ports differing only in it would be judged as one. Each field in turn is replaced by an
    object no key can hold; the key must change (or fail to read it)."""
    device = NxosParser().parse(CONFIG, "leaf1.cfg").devices[0]
    port = next(i for i in device.interfaces.values() if i.qos.maps is not None)
    paths = {(): QosSettings, ("pfc",): Pfc, ("pfc", "watchdog"): Watchdog,
             ("pause",): LinkPause, ("maps",): ClassMaps}
    missed = []
    for prefix, cls in paths.items():
        for name in cls.model_fields:
            if name in ("src", "field_src"):
                continue
            other = port.model_copy(update={"qos": _with(port.qos, (*prefix, name), object())})
            try:
                same = _alike_key(other) == _alike_key(port)
            except (TypeError, AttributeError):
                same = False  # read, and not the type the key expects: read all the same
            if same:
                missed.append(".".join((*prefix, name)))
    assert missed == []
