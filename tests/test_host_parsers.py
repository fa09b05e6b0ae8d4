"""GPU host NIC inputs: mlnx_qos output, sysfs dumps and host-facts YAML.

Values are read from the real captures in fixtures/hosts (sources in its README); grouping the
files of one host, the naming rule, the fix commands, and property tests (junk, truncated and
binary input never raise anything but ParseError).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, lint
from fablint.findings import FixIntent
from fablint.fixes import render_fix
from fablint.ingest import discover, group_units, parse_all
from fablint.model import Device, HostNic, SourceRef
from fablint.parsers import PARSERS
from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.detect import detect
from fablint.parsers.host_facts import HostFactsFile, HostFactsParser, parse_host_documents
from fablint.parsers.mlnx_qos import MlnxQosParser
from fablint.parsers.sysfs_ecn import SysfsEcnParser
from fablint.profiles import load_policy
from fablint.testing import source_refs
from tests.conftest import CORPUS, FIXTURES, REPO

HOSTS = FIXTURES / "hosts"
HOST_FORMATS = ("mlnx_qos", "sysfs_ecn", "host-facts", "mlxconfig")
SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _only(result: ParseResult) -> tuple[Device, HostNic]:
    [device] = result.devices
    assert device.vendor == "host" and device.host is not None
    [nic] = device.host.nics.values()
    return device, nic


def _parse(rel: str) -> tuple[Device, HostNic, ParseResult]:
    path = HOSTS / rel
    parser = detect(path.read_text(encoding="utf-8")).parser
    assert parser is not None and parser.name in HOST_FORMATS
    result = parser.parse(path.read_text(encoding="utf-8"), str(path))
    assert result.problems == []
    device, nic = _only(result)
    return device, nic, result


def _line(nic: HostNic, key: str) -> int | None:
    ref = nic.field_src.get(key)
    return ref.line if ref is not None else None


# -- the real captures -------------------------------------------------------------------------


def test_netarbiter_two_outputs_in_a_script_trace() -> None:
    """att/netarbiter: a `set -x` trace of two mlnx_qos runs for eth4; the second wins."""
    device, nic, result = _parse("netarbiter/mlnx_qos.txt")
    assert (device.name, nic.name, nic.vendor) == ("netarbiter", "eth4", "nvidia")
    assert (nic.trust, nic.dcbx, nic.pfc_priorities, nic.cable_length_m) == (
        "dscp", "os", {3}, 7.0)
    assert nic.dscp_to_priority[26] == 3 and nic.dscp_to_priority[48] == 6
    assert len(nic.dscp_to_priority) == 64
    assert nic.priority_to_tc == {0: 1, 1: 0, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}
    assert set(nic.tc_scheduling.values()) == {"vendor"}
    assert _line(nic, "trust") == 43 and _line(nic, "pfc_priorities") == 56
    assert result.unknown_lines == 8  # the shell trace lines around the outputs


def test_proxmox_firmware_dcbx_buffers_and_grouped_tcs() -> None:
    """A newer mlnx_qos: buffer sizes and row, several priorities under one tc; the interface
    comes from the file name (mce0.mlnx_qos) because the output does not name it."""
    device, nic, _ = _parse("pve/mce0.mlnx_qos")
    assert (device.name, nic.name, nic.dcbx) == ("pve", "mce0", "firmware")
    assert nic.buffer_sizes == [130944, 130944, 0, 0, 0, 0, 0, 0]
    assert nic.priority_to_buffer[3] == 1 and nic.priority_to_buffer[0] == 0
    assert nic.priority_to_tc == {0: 0, 1: 0, 2: 0, 4: 0, 5: 0, 7: 0, 3: 3, 6: 6}
    assert nic.tc_scheduling == {0: "ets", 3: "ets", 6: "vendor"}
    assert nic.tc_bandwidth == {0: 50, 3: 50}


def test_custom_dscp_map_strict_tcs_and_prompt_names_the_host() -> None:
    """A production GPU node (3FS troubleshooting notes): custom dscp2prio (DSCP 40 -> 5,
    48 -> 6), PFC on 5, strict TCs; the shell prompt names host and interface."""
    device, nic, _ = _parse("gpu-tf-prod/mlnx_qos.txt")
    assert (device.name, nic.name) == ("lg-cmc-gpu-tf-prod-008", "ens4np0")
    assert device.where("name") == SourceRef(str(HOSTS / "gpu-tf-prod/mlnx_qos.txt"), 1)
    assert nic.pfc_priorities == {5}
    assert (nic.dscp_to_priority[40], nic.dscp_to_priority[41], nic.dscp_to_priority[48]) == (
        5, 5, 6)
    assert nic.tc_scheduling[4] == "strict" and nic.tc_bandwidth == {0: 9, 1: 1, 2: 80, 3: 10}
    assert nic.buffer_sizes[:2] == [19872, 220896] and nic.cable_length_m == 30.0
    assert nic.default_priority is None


def test_pcp_then_dscp_trust_later_output_wins() -> None:
    """Before and after `mlnx_qos --trust dscp`: no dscp2prio under PCP trust."""
    device, nic, _ = _parse("centos12/ens6.txt")
    assert (device.name, nic.name, nic.trust, nic.pfc_priorities) == (
        "centos12", "ens6", "dscp", set())
    assert _line(nic, "trust") == 30
    assert nic.buffer_sizes == [524160, 0, 0, 0, 0, 0, 0, 0]


def test_older_layout_without_indentation_and_with_blank_lines() -> None:
    """MLNX_OFED 4.2 documentation layout: nothing indented, blank lines in the tc list."""
    _, nic, _ = _parse("mellanox-doc/mlnx_qos.txt")
    assert nic.name == "eth2" and nic.pfc_priorities == {0, 2, 6, 7}
    assert nic.tc_scheduling[6] == "strict" and nic.tc_bandwidth[7] == 40
    assert nic.priority_to_tc[1] == 0 and nic.priority_to_tc[0] == 1


def test_no_dscp_map_printed_means_the_firmware_default() -> None:
    text = "DCBX mode: OS controlled\nPriority trust state: dscp\n"
    _, nic = _only(MlnxQosParser().parse(text, "gpu01_ens1f0.mlnx_qos"))
    assert nic.dscp_to_priority == {d: d >> 3 for d in range(64)}
    assert not any(k.startswith("dscp_to_priority") for k in nic.field_src)


def test_sysfs_dump_of_the_constructed_host() -> None:
    _, nic, result = _parse("constructed-gpu01/ecn.txt")
    assert nic.ecn_np[3] and nic.ecn_rp[3] and not nic.ecn_np[0]
    assert (nic.cnp_dscp, nic.cnp_priority, nic.mtu) == (48, 6, 9000)
    assert (nic.rdma_device, nic.roce_tos, nic.roce_dscp) == ("mlx5_0", 106, 26)
    assert nic.dcqcn["rpg_min_dec_fac"] == 50 and nic.dcqcn["min_time_between_cnps"] == 4
    assert "cnp_dscp" not in nic.dcqcn
    assert result.unknown_lines == 11  # three command echoes and the 802.1.qau_rp lines


# -- one host from several files ---------------------------------------------------------------


def test_files_of_one_host_folder_are_one_unit_and_one_device() -> None:
    files = discover([str(HOSTS)])
    units = group_units(files)
    folder = str(HOSTS / "constructed-gpu01")
    [unit] = [u for u in units if str(Path(u[0][0]).parent) == folder]
    assert len(unit) == 3
    [outcome] = [o for o in parse_all(files) if str(Path(o.input.path).parent) == folder]
    assert [i.format for i in outcome.inputs] == ["sysfs_ecn", "host-facts", "mlnx_qos"]
    [device] = outcome.devices
    assert device.name == "gpu01" and len(device.files) == 3
    nic = device.host.nics["ens1f0"] if device.host else None
    assert nic is not None
    assert (nic.trust, nic.pfc_priorities, nic.mtu, nic.roce_dscp) == ("dscp", {3}, 9000, 26)
    assert nic.cabled_to is not None and (nic.cabled_to.device, nic.cabled_to.interface) == (
        "leaf1", "Ethernet1")
    assert Path(nic.field_src["trust"].file).name == "mlnx_qos_ens1f0.txt"
    assert Path(nic.field_src["ecn_np[3]"].file).name == "ecn.txt"
    assert Path(nic.field_src["cabled_to"].file).name == "host.yaml"


def test_switch_configs_are_never_grouped_with_host_files(tmp_path: Path) -> None:
    (tmp_path / "leaf1.cfg").write_text("hostname leaf1\n", encoding="utf-8")
    (tmp_path / "gpu01_ens1f0.mlnx_qos").write_text(
        "DCBX mode: OS controlled\nPriority trust state: dscp\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("nothing to see\n", encoding="utf-8")
    units = group_units(discover([str(tmp_path)]))
    assert sorted(len(u) for u in units) == [1, 1, 1]


def _docs(*items: tuple[str, str]) -> ParseResult:
    return parse_host_documents(list(items))


MLNX = "DCBX mode: OS controlled\nPriority trust state: dscp\n"
ECN = "/sys/class/net/{}/ecn/roce_np/enable/3:1\n"


@pytest.mark.parametrize(("path", "text", "host", "nic"), [
    ("gpu01/mlnx_qos_ens1f0.txt", MLNX, "gpu01", "ens1f0"),
    ("captures/gpu02_ens2f1.mlnx_qos", MLNX, "gpu02", "ens2f1"),
    ("captures/gpu02_mlnx_qos_ens2f1.txt", MLNX, "gpu02", "ens2f1"),
    ("captures/gpu03.txt", "# mlnx_qos -i ens3f0\n" + MLNX, "gpu03", "ens3f0"),
    ("captures/gpu03_ens3f0.txt", "# mlnx_qos -i ens3f0\n" + MLNX, "gpu03", "ens3f0"),
    ("gpu04/ens4f0.txt", "root@gpu04-bmc:~# mlnx_qos -i ens4f0\n" + MLNX, "gpu04-bmc", "ens4f0"),
    ("gpu05/ecn.txt", ECN.format("ens5f0"), "gpu05", "ens5f0"),
    ("dumps/gpu06_ecn.txt", ECN.format("ens6f0"), "gpu06", "ens6f0"),
    ("dumps/gpu07_ens7f0.ecn", "roce_np/enable/3:1\n", "gpu07", "ens7f0"),
])
def test_naming_rule(path: str, text: str, host: str, nic: str) -> None:
    result = _docs((text, path))
    device, found = _only(result)
    assert (device.name, found.name) == (host, nic)
    assert result.problems == []


def test_output_that_names_no_interface_is_reported() -> None:
    result = _docs((MLNX, "mlnx_qos.txt"))
    _, nic = _only(result)
    assert nic.name == "mlnx_qos"
    [problem] = result.problems
    assert "HOST_INTERFACE" in problem.message and not problem.fatal


def test_loosely_named_files_join_the_one_named_host_of_their_folder() -> None:
    facts = "fablint-host: 1\nhost: gpu01.example.net\nnics:\n  - name: ens1f0\n    mtu: 9000\n"
    result = _docs((facts, "rack3/facts.yaml"), (MLNX, "rack3/mlnx_qos_ens1f0.txt"),
                   (ECN.format("ens1f1"), "rack3/ecn.txt"))
    [device] = result.devices
    assert device.name == "gpu01.example.net" and device.host is not None
    assert sorted(device.host.nics) == ["ens1f0", "ens1f1"]
    assert device.host.nics["ens1f0"].trust == "dscp"
    assert device.where("name") == SourceRef("rack3/facts.yaml", 2)


def test_two_hosts_named_by_file_name_in_one_folder() -> None:
    result = _docs((MLNX, "c/gpu01_ens1f0.mlnx_qos"), (MLNX, "c/gpu02_ens1f0.mlnx_qos"),
                   (ECN.format("ens1f1"), "c/ecn.txt"))
    assert sorted(d.name for d in result.devices) == ["c", "gpu01", "gpu02"]


def test_unmatched_rdma_tos_is_kept_on_the_host() -> None:
    dump = ("/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos:106\n"
            "/sys/kernel/config/rdma_cm/mlx5_1/ports/1/default_roce_tos:98\n"
            + ECN.format("ens1f0") + ECN.format("ens1f1"))
    device, = _docs((dump, "gpu01.sysfs")).devices
    assert device.host is not None and device.host.rdma_tos == {"mlx5_0": 106, "mlx5_1": 98}
    assert device.host.field_src["rdma_tos[mlx5_1]"] == SourceRef("gpu01.sysfs", 2)


def test_traffic_class_overrides_the_cm_default_and_params_folder_is_read() -> None:
    dump = ("/sys/class/infiniband/mlx5_0/tc/1/traffic_class:Global tclass=106\n"
            "/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos:0\n"
            "/sys/class/net/ens1f0/ecn/roce_rp/params/rpg_gd:11\n")
    _, nic = _only(_docs((dump, "gpu01.sysfs")))
    assert (nic.roce_tos, nic.rdma_device, nic.dcqcn) == (106, "mlx5_0", {"rpg_gd": 11})
    assert nic.field_src["roce_tos"] == SourceRef("gpu01.sysfs", 1)


# -- host-facts YAML -------------------------------------------------------------------------


def test_host_facts_values_and_lines() -> None:
    text = (HOSTS / "constructed-gpu01" / "host.yaml").read_text(encoding="utf-8")
    device, nic = _only(HostFactsParser().parse(text, "host.yaml"))
    assert (device.name, nic.name, nic.rdma_device) == ("gpu01", "ens1f0", "mlx5_0")
    assert nic.field_src["cabled_to"] == SourceRef("host.yaml", 7)


def test_host_facts_bad_values_are_problems_and_the_rest_is_kept() -> None:
    text = ("fablint-host: 1\nhost: gpu01\ncolour: blue\nnics:\n  - name: ens1f0\n"
            "    mtu: 12\n    trust: dscp\n    pfc_priorities: [3, 9]\n    speed: 400\n")
    result = HostFactsParser().parse(text, "h.yaml")
    _, nic = _only(result)
    assert (nic.trust, nic.mtu, nic.pfc_priorities) == ("dscp", None, None)
    lines = sorted((p.line, p.message.split(":")[0]) for p in result.problems)
    assert [line for line, _ in lines] == [3, 6, 8, 9]
    assert all(not p.fatal for p in result.problems)


@pytest.mark.parametrize(("text", "line", "words"), [
    ("fablint-host: 1\nnics: []\n", 1, "host: NAME"),
    ("fablint-host: 1\nhost: a\nnics: {name: x}\n", 3, "must be a list"),
    ("fablint-host: 1\nhost: [unclosed\n", 3, "invalid YAML"),
    ("fablint-host: 2\nhost: a\n", 1, "fablint-host: 1"),
])
def test_host_facts_fatal_errors(text: str, line: int, words: str) -> None:
    with pytest.raises(ParseError) as caught:
        HostFactsParser().parse(text, "h.yaml")
    assert caught.value.line == line and words in caught.value.message


def test_documented_example_is_valid() -> None:
    """The example in docs/host-facts.md parses without a problem."""
    doc = (REPO / "docs" / "host-facts.md").read_text(encoding="utf-8")
    example = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    result = HostFactsParser().parse(example, "gpu01.yaml")
    assert result.problems == [] and result.devices
    assert HostFactsFile.model_json_schema()["required"] == ["fablint-host", "host"]


# -- fixes -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("action", "params", "text"), [
    ("nic-trust-dscp", {}, "mlnx_qos -i ens1f0 --trust dscp"),
    ("nic-pfc", {"priorities": [3, 4]}, "mlnx_qos -i ens1f0 --pfc 0,0,0,1,1,0,0,0"),
    ("nic-dscp-map", {"dscp": 26, "priority": 3}, "mlnx_qos -i ens1f0 --dscp2prio set,26,3"),
    ("nic-roce-tos", {"tos": 106, "rdma_device": "mlx5_0"}, "cma_roce_tos -d mlx5_0 -t 106"),
    ("nic-dcqcn-enable", {"np": [3], "rp": []},
     "echo 1 > /sys/class/net/ens1f0/ecn/roce_np/enable/3"),
    ("nic-mtu", {"mtu": 9000}, "ip link set dev ens1f0 mtu 9000"),
])
def test_host_fix_commands(action: str, params: dict[str, Any], text: str) -> None:
    intent = FixIntent(action, {"interface": "ens1f0", "nic_vendor": "nvidia", **params})
    assert render_fix("host", intent) == text


def test_no_nvidia_commands_for_other_nics() -> None:
    intent = FixIntent("nic-trust-dscp", {"interface": "ens1f0", "nic_vendor": "broadcom"})
    assert render_fix("host", intent) is None
    mtu = FixIntent("nic-mtu", {"interface": "ens1f0", "nic_vendor": None, "mtu": 9000})
    assert render_fix("host", mtu) == "ip link set dev ens1f0 mtu 9000"


def test_real_captures_lint_with_their_expected_findings() -> None:
    """The captures are linted as hosts: the NICs whose PFC differs from the default profile
    (priority 3); from the mlxconfig captures, the BlueField-3 whose firmware trusts PCP, the
    tuned DCQCN parameters (info) and the InfiniBand-only adapter (nothing to check)."""
    options = LintOptions(paths=[str(HOSTS)], config=ProjectConfig(),
                          policy=load_policy("default", {}), jobs=1)
    result = lint(options)
    assert not result.errors
    got = sorted((f.rule, f.device) for f in result.findings)
    assert got == [("DCQ002", "gpu02"), ("DCQ002", "libra-cx5"),
                   ("FAB003", "mellanox-howto-cx5"), ("PFC006", "centos12"),
                   ("PFC006", "lg-cmc-gpu-tf-prod-008"), ("PFC006", "mellanox-doc"),
                   ("QOS005", "cnfdg45")]


def test_suppression_comments_in_host_files(tmp_path: Path) -> None:
    (tmp_path / "gpu01.yaml").write_text(
        "fablint-host: 1\nhost: gpu01\nnics:\n  # fablint: disable=MTU003 lab NIC\n"
        "  - name: ens1f0\n    mtu: 1500\n  - name: ens1f1\n    mtu: 1500\n",
        encoding="utf-8")
    (tmp_path / "gpu01_ens1f0.mlnx_qos").write_text(
        "# fablint: disable-file=PFC006\n" + MLNX + "PFC configuration:\n"
        "   priority 0 1 2 3 4 5 6 7\n   enabled 0 0 0 0 1 0 0 0\n", encoding="utf-8")
    options = LintOptions(paths=[str(tmp_path)], config=ProjectConfig(),
                          policy=load_policy("default", {}), jobs=1)
    result = lint(options)
    assert [(f.rule, f.object, f.line) for f in result.findings] == [("MTU003", "ens1f1", 8)]
    assert result.suppressed == 2


# -- detection and robustness ----------------------------------------------------------------

SAMPLES = sorted(p for p in HOSTS.rglob("*") if p.is_file() and p.name != "README.md")
CORPUS_FILES = sorted(p for p in CORPUS.rglob("*") if p.is_file()) if CORPUS.is_dir() else []
SWITCH_FIXTURES = sorted(p for p in (FIXTURES / "demo").rglob("*") if p.is_file())


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(HOSTS)))
def test_each_sample_is_recognised(path: Path) -> None:
    parser = detect(path.read_text(encoding="utf-8")).parser
    assert parser is not None and parser.name in HOST_FORMATS


@pytest.mark.parametrize("path", CORPUS_FILES + SWITCH_FIXTURES, ids=lambda p: p.name)
def test_host_sniffs_claim_no_switch_or_ib_input(path: Path) -> None:
    head = path.read_bytes()[:16384].decode("utf-8", "replace")
    for name in HOST_FORMATS:
        assert PARSERS[name].sniff(head) == 0, name



def _check(parser_name: str, text: str, path: str) -> None:
    lines = text.count("\n") + 1
    try:
        result = PARSERS[parser_name].parse(text, path)
    except ParseError as exc:
        assert exc.file == path and exc.message
        assert exc.line is None or 1 <= exc.line <= lines
        return
    assert 1 <= result.lines <= lines and 0 <= result.unknown_lines <= result.lines
    for device in result.devices:
        assert device.vendor == "host" and device.name.strip()
        device.model_dump_json()
        for ref in source_refs(device):
            assert ref.file == path and (ref.line is None or 1 <= ref.line <= lines), ref
    for problem in result.problems:
        assert problem.file == path and (problem.line is None or 1 <= problem.line <= lines)


REAL_TEXTS = {p.name: p.read_text(encoding="utf-8") for p in SAMPLES}
ALPHABET = st.sampled_from(list("0123456789abcdefprio:dscp,=/_ \t\n#$@[]{}-.%\x00\xff\u00e9"))


@SETTINGS
@given(st.sampled_from(HOST_FORMATS), st.text(ALPHABET, max_size=400))
def test_junk_raises_only_parse_error(parser_name: str, text: str) -> None:
    _check(parser_name, text, "gpu01_ens1f0.txt")


@SETTINGS
@given(st.sampled_from(HOST_FORMATS), st.sampled_from(sorted(REAL_TEXTS)),
       st.integers(min_value=0, max_value=5000), st.text(ALPHABET, max_size=40),
       st.integers(min_value=0, max_value=5000))
def test_truncated_and_damaged_captures(parser_name: str, name: str, cut: int, junk: str,
                                        at: int) -> None:
    text = REAL_TEXTS[name][:cut]
    at = min(at, len(text))
    _check(parser_name, text[:at] + junk + text[at:], "gpu01_ens1f0.txt")


YAML_PARTS = st.sampled_from([
    "host: gpu01\n", "nics:\n", "  - name: ens1f0\n", "    mtu: 9000\n", "    trust: pcp\n",
    "    pfc_priorities: [3, 9]\n", "    dcqcn: {np_priorities: [3], params: {a: b}}\n",
    "    cabled_to: x\n", "    dscp_to_priority: {70: 3}\n", "  - 5\n", "    roce_tos: 300\n",
    "\x85", "\u2028", "- [\n", "&a !!python/object x\n", "*a\n", "!0\n",
])


@SETTINGS
@given(st.lists(YAML_PARTS, max_size=15))
def test_host_facts_shaped_junk(parts: list[str]) -> None:
    _check("host-facts", "fablint-host: 1\n" + "".join(parts), "h.yaml")


@SETTINGS
@given(st.binary(max_size=300))
def test_binary_input(data: bytes) -> None:
    text = data.decode("utf-8", "replace")
    for parser_name in HOST_FORMATS:
        _check(parser_name, "DCBX mode: OS controlled\n" + text, "x.txt")
        _check(parser_name, "fablint-host: 1\n" + text, "x.yaml")
        _check(parser_name, "/sys/class/net/e/ecn/roce_np/enable/3:" + text, "x.sysfs")


def test_parsers_are_registered() -> None:
    assert isinstance(PARSERS["mlnx_qos"], MlnxQosParser)
    assert isinstance(PARSERS["sysfs_ecn"], SysfsEcnParser)
    assert isinstance(PARSERS["host-facts"], HostFactsParser)
