"""OpenSM opensm.conf and partitions.conf: values from real files, OpenSM's own reading rules
(C numbers, exact TRUE, prefix-matched flags, rejected lines), grouping of one SM's files, fix
rendering, and property tests (whatever the input: a result or ParseError, nothing else)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, LintResult, lint
from fablint.findings import FixIntent
from fablint.fixes import opensm as opensm_fix
from fablint.ingest import group_units, parse_unit
from fablint.model import Device, OpenSmConfig, SourceRef
from fablint.parsers import PARSERS
from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.detect import detect
from fablint.parsers.opensm_conf import (
    OpenSmConfParser,
    PartitionsParser,
    QosPolicyParser,
    sm_device_name,
    sm_group_key,
)
from fablint.parsers.partitions import c_strtoul
from fablint.profiles import load_policy
from fablint.testing import source_refs
from tests.conftest import CORPUS, FIXTURES

CONF = OpenSmConfParser()
PARTS = PartitionsParser()
POLICY = QosPolicyParser()
IB = CORPUS / "ib"
RHEL6 = IB / "rhel6-opensm-3.3.9-default.conf"
BENTWIRE_PARTS = IB / "bentwire-partitions.conf"
NEEDS_CORPUS = pytest.mark.skipif(not IB.is_dir(), reason=f"shared corpus not found at {IB}")
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _config(text: str, path: str = "opensm.conf", parser: Any = CONF) -> OpenSmConfig:
    device = parser.parse(text, path).devices[0]
    assert device.vendor == "opensm" and device.opensm is not None
    return device.opensm


def _lint(folder: Path, **policy: Any) -> LintResult:
    return lint(LintOptions(paths=[str(folder)], config=ProjectConfig(),
                            policy=load_policy("default", policy), jobs=1, keep_devices=True))



# -- real files ------------------------------------------------------------------------------


@NEEDS_CORPUS
def test_rhel6_default_conf_values_and_lines() -> None:
    cfg = _config(RHEL6.read_text(encoding="utf-8"), str(RHEL6))
    assert len(cfg.options) == 105 and all(o.known for o in cfg.options)
    assert (cfg.lmc, cfg.where("lmc").line) == (0, 29)
    assert (cfg.sm_priority, cfg.where("sm_priority").line) == (0, 190)
    # 'routing_engine (null)': configured, no engine named (OpenSM routes with minhop).
    assert (cfg.routing_engines, cfg.where("routing_engines").line) == ([], 135)
    assert (cfg.max_op_vls, cfg.where("max_op_vls").line) == (5, 66)
    assert (cfg.force_link_speed, cfg.where("force_link_speed").line) == (15, 78)
    assert (cfg.qos, cfg.where("qos").line) == (False, 307)
    assert cfg.qos_policy_file == "/etc/rdma/qos-policy.conf"
    assert (cfg.partition_config_file, cfg.where("partition_config_file").line) == (
        "/etc/rdma/partitions.conf", 94)
    assert cfg.no_partition_enforcement is False
    assert sorted(cfg.qos_sets) == ["qos", "qos_ca", "qos_rtr", "qos_sw0", "qos_swe"]
    for qset in cfg.qos_sets.values():
        assert (qset.max_vls, qset.high_limit, qset.sl2vl, qset.vlarb_low) == (0, -1, None, None)
    assert cfg.option("console").value == "off"
    assert cfg.option("log_file").src == SourceRef(str(RHEL6), 273)


@NEEDS_CORPUS
def test_rhel6_default_conf_is_clean() -> None:
    """The distribution default configures nothing: no finding of any ib-sm rule."""
    result = lint(LintOptions(paths=[str(RHEL6)], config=ProjectConfig(), policy=load_policy(),
                              select=["ib-sm", "parse"], jobs=1, keep_devices=True))
    assert result.findings == [] and result.fabric.problems == []
    assert result.fabric.devices["rhel6-opensm-3.3.9-default"].role == "subnet-manager"


@NEEDS_CORPUS
def test_bentwire_partitions_five_pkeys_every_port_full() -> None:
    cfg = _config(BENTWIRE_PARTS.read_text(encoding="utf-8"), str(BENTWIRE_PARTS), PARTS)
    got = [(p.name, p.pkey, p.pkey15, p.ipoib, p.mtu, p.src.line) for p in cfg.partitions]
    assert got == [
        ("Default", 0xFFFF, 0x7FFF, True, None, 1), ("DMZ", 0x8001, 0x0001, True, None, 2),
        ("private0", 0x8002, 0x0002, True, None, 3), ("private1", 0x8003, 0x0003, True, None, 4),
        ("ipoib", 0x9000, 0x1000, True, None, 5),
    ]
    for part in cfg.partitions:
        assert [(m.name, m.membership, m.explicit) for m in part.members] == [
            ("ALL", "full", True), ("SELF", "full", True)]
    assert cfg.conf_file is None and cfg.partitions_file == str(BENTWIRE_PARTS)


@NEEDS_CORPUS
def test_bentwire_conf_and_partitions_are_one_sm(tmp_path: Path) -> None:
    """The two bentwire files share their name prefix: one unit, one SM device."""
    for name in ("bentwire-opensm.conf", "bentwire-partitions.conf"):
        shutil.copy(IB / name, tmp_path / name)
    files = [(str(p), False) for p in sorted(tmp_path.iterdir())]
    units = group_units(files)
    assert len(units) == 1
    outcome = parse_unit(units[0])
    merged = outcome[0] if isinstance(outcome, list) else outcome
    assert [d.name for d in merged.devices] == ["bentwire-opensm"]
    cfg = merged.devices[0].opensm
    assert cfg is not None and cfg.allow_both_pkeys is True
    assert cfg.where("allow_both_pkeys").line == 1 and len(cfg.partitions) == 5
    assert [i.path for i in merged.inputs] == [f for f, _ in files]


@NEEDS_CORPUS
def test_chester_qos_fragment_tables() -> None:
    path = IB / "chester-gillon-opensm-qos-fragment.conf"
    cfg = _config(path.read_text(encoding="utf-8"), str(path))
    assert [o.key for o in cfg.options] == ["qos_high_limit", "qos_vlarb_high", "qos_vlarb_low"]
    qset = cfg.qos_sets["qos"]
    assert (qset.high_limit, qset.where("high_limit").line) == (255, 2)
    assert qset.vlarb_high == [(0, 255)] * 8
    assert qset.vlarb_low == [(1, 128)] * 6 + [(2, 64)] * 2
    assert cfg.qos is None and not cfg.configured("qos")  # enabled with -Q, per its repository


def test_scinet10_master_sm() -> None:
    path = FIXTURES / "opensm" / "scinet10" / "opensm.conf"
    cfg = _config(path.read_text(encoding="utf-8"), str(path))
    assert (cfg.sm_priority, cfg.where("sm_priority").line) == (15, 190)
    assert cfg.routing_engines == ["minhop"]
    assert cfg.qos_sets["qos_sw0"].vlarb_high == [(0, 225), (1, 25)]
    assert cfg.qos_sets["qos"].sl2vl == [0, 1] + [15] * 14
    assert cfg.option("event_plugin_name").value == "opensmskummeeplugin"
    result = _lint(path.parent)
    assert [(f.rule, f.line, f.severity.value) for f in result.findings] == [
        ("IB010", 328, "warning")]
    assert result.findings[0].fix == "qos TRUE"


def test_mailing_list_partitions_with_mgid_groups() -> None:
    path = FIXTURES / "opensm" / "rdma-list-mgid" / "partitions.conf"
    result = PARTS.parse(path.read_text(encoding="utf-8"), str(path))
    assert result.problems == []
    first, second = result.devices[0].opensm.partitions
    assert (first.name, first.pkey, first.ipoib, first.defmember, first.rate) == (
        "Default", 0x7FFF, False, "full", 7)
    assert (second.ipoib, second.mtu, second.rate, second.scope) == (True, 4, 7, 2)
    assert len(second.groups) == 16
    assert second.groups[0].mgid == "ff12:401b:ffff::ffff:ffff"
    assert second.groups[-1].mgid == "ff12:601b::1:3" and second.groups[-1].src.line == 19
    assert [(m.name, m.src.line) for m in second.members] == [
        ("ALL", 20), ("SELF", 20), ("ALL_SWITCHES", 20)]


# -- OpenSM's reading rules ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "rest"),
    [("15", 15, ""), ("0x12", 18, ""), ("010", 8, ""), ("0", 0, ""), ("  7 # x", 7, " # x"),
     ("two", 0, "two"), ("", 0, ""), ("-1", 2**64 - 1, ""), ("0x", 0, "x"), ("9z", 9, "z")],
)
def test_c_strtoul(text: str, value: int, rest: str) -> None:
    assert c_strtoul(text) == (value, rest)


def test_conf_typed_values_booleans_and_duplicates() -> None:
    text = (
        "sm_priority 7\n"
        "lmc 0x1\n"
        "  qos TRUE  \n"
        "no_partition_enforcement true\n"
        "routing_engine  ftree, updn\tminhop\n"
        'partition_config_file "/etc/opensm/p.conf"\n'
        "sm_priority 14\n"
        "qos_ca_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7\n"
        "vendor_knob 3\n"
    )
    result = CONF.parse(text, "sm.conf")
    cfg = result.devices[0].opensm
    assert (cfg.sm_priority, cfg.where("sm_priority").line) == (14, 7)  # the last line wins
    assert [o.value for o in cfg.options if o.key == "sm_priority"] == ["7", "14"]
    assert cfg.lmc == 1 and cfg.qos is True
    assert cfg.no_partition_enforcement is False  # only TRUE is true
    assert cfg.routing_engines == ["ftree", "updn", "minhop"]
    assert cfg.partition_config_file == "/etc/opensm/p.conf"
    assert cfg.qos_sets["qos_ca"].sl2vl[-1] == 7
    unknown = cfg.option("vendor_knob")
    assert unknown is not None and not unknown.known and result.unknown_lines == 1
    assert [(p.line, p.kind) for p in result.problems] == [(4, "invalid-value")]
    assert "reads 'no_partition_enforcement true' as FALSE" in result.problems[0].message


def test_conf_values_openSM_would_misread_are_problems() -> None:
    text = ("lmc two\n"
            "qos TRUE # on\n"
            "qos_policy_file /etc/opensm/qos.conf # ours\n"
            "qos_sl2vl 0,1,2\n"
            "qos_vlarb_low 0:64,1\n"
            "sm_priorty 15\n")
    result = CONF.parse(text, "opensm.conf")
    lines = [p.line for p in result.problems]
    assert lines == [1, 2, 3, 4, 5]
    cfg = result.devices[0].opensm
    assert cfg.lmc == 0 and cfg.qos is False
    assert cfg.option("sm_priorty").close_to == "sm_priority"


def test_partition_grammar_details() -> None:
    text = (
        "# all hosts, limited; switches full\n"
        "Default=0x7fff,ipoib,mtu=5,rate=16,defmember=full: ALL=limited, ALL_SWITCHES, SELF=f;\n"
        "0x0042 : 0x0002c90300a1b2c3=both, 12345 ;\n"
        "gpu, ipo, m=5, sl=2 :\n"
        "   ALL_CAS=full,   # the compute nodes\n"
        "   NONE ;\n"
        "two=0x10:ALL; three=0x11:SELF;\n"
    )
    result = PARTS.parse(text, "partitions.conf")
    assert result.problems == []
    default, anon, gpu, two, three = result.devices[0].opensm.partitions
    assert [(m.name, m.membership, m.explicit) for m in default.members] == [
        ("ALL", "limited", True), ("ALL_SWITCHES", "full", False), ("SELF", "full", True)]
    assert (default.mtu, default.rate, default.field_src["mtu"].line) == (5, 16, 2)
    assert (anon.name, anon.pkey) == (None, 0x42)  # a definition that is only a number
    assert [(m.guid, m.membership) for m in anon.members] == [
        (0x0002C90300A1B2C3, "both"), (12345, "limited")]
    # Flags match by prefix, as OpenSM's strncmp does: 'ipo' is ipoib, 'm' is mtu.
    assert (gpu.name, gpu.pkey, gpu.ipoib, gpu.mtu, gpu.sl) == ("gpu", None, True, 5, 2)
    assert [(m.name, m.src.line) for m in gpu.members] == [("ALL_CAS", 5)]
    assert [(p.name, p.src.line) for p in (two, three)] == [("two", 7), ("three", 7)]


def test_rejected_partition_lines_are_problems_with_their_line() -> None:
    text = (
        "Default=0x7fff,ipoib: ALL=full ;\n"
        "no colon here ;\n"
        "bad=0xZZ : ALL ;\n"
        "weird=0x22,colour=red,defmember=some : ALL;\n"
        "grp=0x23,ipoib: mgid=fe80::1;\n"
    )
    result = PARTS.parse(text, "partitions.conf")
    got = [(p.line, p.message.split(":")[0]) for p in result.problems]
    assert got == [
        (2, "no partition definition found"), (3, "bad partition definition"),
        (4, "unrecognized partition flag 'colour' (OpenSM ignores it)"),
        (4, "defmember=some is not full, limited or both (OpenSM ignores it"),
        (5, 'mgid "fe80'),
    ]
    assert [p.name for p in result.devices[0].opensm.partitions] == ["Default", "weird", "grp"]
    assert all(p.kind == "invalid-value" and not p.fatal for p in result.problems)


def test_a_rejected_line_leaves_its_entry_open_for_the_next_lines() -> None:
    """OpenSM stops reading a line at a bad GUID, before its ';': the entry stays open and the
    following lines are read as its ports, and rejected, until one parses up to a ';'."""
    text = ("open=0x20 : 0xZZ, ALL;\n"
            "after=0x21 : ALL;\n"
            "later=0x22 : SELF;\n"
            "  ALL_CAS ;\n"
            "last=0x23 : ALL;\n")
    result = PARTS.parse(text, "partitions.conf")
    assert [p.line for p in result.problems] == [1, 2, 3]
    assert "bad PortGUID '0xZZ' in partition open" in result.problems[0].message
    assert "entry of partition open (line 1) is not closed with ';'" in result.problems[1].message
    parts = result.devices[0].opensm.partitions
    assert [p.name for p in parts] == ["open", "last"]
    assert [(m.name, m.src.line) for m in parts[0].members] == [("ALL_CAS", 4)]
    assert result.unknown_lines == 3


def test_suppression_comment_in_opensm_conf(tmp_path: Path) -> None:
    (tmp_path / "opensm.conf").write_text(
        "# fablint: disable=IB013 lab SM, LMC checked by hand\nlmc 9\nsm_priority 99\n",
        encoding="utf-8")
    result = _lint(tmp_path)
    assert [(f.rule, f.line) for f in result.findings] == [("IB012", 3)]
    assert result.suppressed == 1


QOS_POLICY = """\
# The full example of doc/QoS_management_in_OpenSM.txt, shortened
port-groups
    port-group # using port GUIDs
        name: Storage
        port-guid: 0x10000000000001, 0x10000000000005-0x1000000000FFFA
    end-port-group
end-port-groups
qos-levels
    qos-level
        name: DEFAULT
        sl: 0
    end-qos-level
    qos-level
        name: WholeSet
        sl: 1
        mtu-limit: 4
    end-qos-level
end-qos-levels
qos-ulps
    default                       : 0 # default SL
    rds                           : 2 # SL for RDS traffic
    ipoib, pkey 0x0001            : 16
end-qos-ulps
"""


def test_qos_policy_service_levels() -> None:
    result = POLICY.parse(QOS_POLICY, "qos-policy.conf")
    cfg = result.devices[0].opensm
    assert {sl: ref.line for sl, ref in cfg.qos_policy_sls.items()} == {0: 11, 1: 15, 2: 21}
    assert cfg.qos_policy_source == "qos-policy.conf"
    assert [(p.line, p.message) for p in result.problems] == [
        (22, "SL '16' is not a service level 0-15")]
    assert detect(QOS_POLICY).parser is PARSERS["opensm-qos-policy"]
    assert POLICY.sniff("qos FALSE\nqos_policy_file /etc/opensm/qos-policy.conf\n") == 0


# -- recognising and grouping ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # Slurm's partitions.conf (romxero/slurm_conf_mother): same file name, other program.
        "PartitionName=default \\\n  State=UP \\\n  DefaultTime=1-00:00:00 \\\n"
        "  DefMemPerCPU=8000 \\\n  MaxTime=180-00:00:00 \n",
        # An installer's partitions.conf of shell variables (luizschon/arch-bootstrap).
        "root_partition=\nefi_partition=\nswap_partition=\nhome_partition=\nvar_partition=\n",
        "hostname leaf1\ninterface Ethernet1\n   mtu 9214\n   no switchport\n",
        "key: value;\nother: thing;\n",
        "daemon TerminAttr\n   exec /usr/bin/TerminAttr\nhostname x\nusername admin\n",
    ],
)
def test_other_files_are_not_claimed(text: str) -> None:
    detection = detect(text)
    assert detection.parser is None or detection.parser.name not in (CONF.name, PARTS.name)
    assert CONF.sniff(text) < 30 and PARTS.sniff(text) < 30


@pytest.mark.parametrize(
    ("path", "key", "name"),
    [("sm1/opensm.conf", "opensm:", "sm1"), ("sm1/partitions.conf", "opensm:", "sm1"),
     ("x/sm01-opensm.conf", "opensm:sm01", "sm01-opensm"),
     ("x/sm01-partitions.conf", "opensm:sm01", "sm01-partitions"),
     ("x/sm01_qos-policy.conf", "opensm:sm01", "sm01_qos-policy"),
     ("opensm.conf", "opensm:", "opensm")],
)
def test_group_key_and_name(path: str, key: str, name: str) -> None:
    assert (sm_group_key(path), sm_device_name(path)) == (key, name)


def test_two_sms_in_one_folder_stay_apart(tmp_path: Path) -> None:
    (tmp_path / "sm-a-opensm.conf").write_text("sm_priority 15\n", encoding="utf-8")
    (tmp_path / "sm-a-partitions.conf").write_text("Default=0x7fff,ipoib,mtu=5: ALL=full;\n",
                                                    encoding="utf-8")
    (tmp_path / "sm-b-opensm.conf").write_text("sm_priority 14\n", encoding="utf-8")
    result = _lint(tmp_path)
    devices = result.fabric.devices
    assert sorted(devices) == ["sm-a-opensm", "sm-b-opensm"]
    assert len(devices["sm-a-opensm"].opensm.partitions) == 1
    assert devices["sm-b-opensm"].opensm.partitions == []


# -- fixes -----------------------------------------------------------------------------------


def test_partition_fix_parses_back_to_the_corrected_entry() -> None:
    text = ("Default=0x7fff, ipoib, rate=7, mtu=4096, scope=2:\n"
            "  mgid=ff12:401b::1,sl=0\n"
            "  mgid=ff12:601b::2\n"
            "  ALL=full, SELF=full, 0x0002c90300a1b2c3;\n")
    part = PARTS.parse(text, "p.conf").devices[0].opensm.partitions[0]
    intent = FixIntent("partition-entry", {
        "name": part.name, "pkey": part.pkey, "flags": [("ipoib", None), ("mtu", 5)],
        "members": [(m.name if m.guid is None else f"0x{m.guid:016x}",
                     m.membership if m.explicit else None) for m in part.members],
        "groups": [(g.mgid, list(g.flags)) for g in part.groups]})
    rendered = opensm_fix.render(intent)
    assert rendered is not None
    again = PARTS.parse(rendered, "p.conf")
    assert again.problems == []
    fixed = again.devices[0].opensm.partitions[0]
    assert (fixed.name, fixed.pkey, fixed.ipoib, fixed.mtu) == ("Default", 0x7FFF, True, 5)
    assert [(m.name, m.membership) for m in fixed.members] == [
        (m.name, m.membership) for m in part.members]
    assert [(g.mgid, g.flags) for g in fixed.groups] == [(g.mgid, g.flags) for g in part.groups]


def test_opensm_set_renders_booleans_and_lists() -> None:
    intent = FixIntent("opensm-set", {"options": [("qos", True), ("routing_engine",
                                                                   ["ftree", "updn"])]})
    assert opensm_fix.render(intent) == "qos TRUE\nrouting_engine ftree,updn"
    assert opensm_fix.render(FixIntent("mtu-set", {})) is None


# -- properties ------------------------------------------------------------------------------

_WORDS = st.sampled_from([
    "sm_priority", "lmc", "routing_engine", "qos", "TRUE", "FALSE", "(null)", "0x7fff", "ALL",
    "SELF", "=", ",", ":", ";", "#", "ipoib", "mtu=5", "mgid=ff12:401b::1", "full", "both",
    "qos_sl2vl", "0,1,15", "\n", " ", "\t", "0xZZ", "Default", "-1", "999999999999999999999",
])
_TEXT = st.one_of(
    st.text(max_size=400),
    st.lists(_WORDS, max_size=60).map("".join),
)


def _check(result: ParseResult, text: str) -> None:
    assert isinstance(result, ParseResult)
    lines = text.count("\n") + 1
    for problem in result.problems:
        assert problem.line is None or 1 <= problem.line <= lines
    for device in result.devices:
        assert isinstance(device, Device)
        for ref in source_refs(device):
            assert ref.line is None or 1 <= ref.line <= lines


@SETTINGS
@given(text=_TEXT,
       which=st.sampled_from(["opensm", "opensm-partitions", "opensm-qos-policy"]))
def test_any_text_gives_a_result_or_parse_error(text: str, which: str) -> None:
    try:
        result = PARSERS[which].parse(text, "x.conf")
    except ParseError as exc:
        assert exc.file == "x.conf"
        return
    _check(result, text)


@SETTINGS
@given(data=st.binary(max_size=300))
def test_binary_gives_only_parse_error(data: bytes) -> None:
    text = data.decode("latin-1")
    for parser in (CONF, PARTS, POLICY):
        try:
            result = parser.parse(text, "x.conf")
        except ParseError as exc:
            assert "\x00" in text and exc.line is not None
            continue
        _check(result, text)


def _real_texts() -> list[str]:
    files = [FIXTURES / "opensm" / "scinet10" / "opensm.conf",
             FIXTURES / "opensm" / "rdma-list-mgid" / "partitions.conf"]
    if IB.is_dir():
        files += [RHEL6, BENTWIRE_PARTS]
    return [p.read_text(encoding="utf-8") for p in files]


@SETTINGS
@given(which=st.integers(0, 3), cut=st.floats(0, 1), junk=st.text(max_size=20))
def test_truncated_real_files(which: int, cut: float, junk: str) -> None:
    texts = _real_texts()
    text = texts[which % len(texts)]
    text = text[: int(len(text) * cut)] + junk
    for parser in (CONF, PARTS, POLICY):
        try:
            result = parser.parse(text, "x.conf")
        except ParseError:
            assert "\x00" in text
            continue
        _check(result, text)
