"""mlxconfig / mstconfig query output: the adapters' persistent firmware configuration.

Values are read from the real captures in fixtures/hosts (sources in its README) and from the
constructed ``-e`` capture of gpu02; then which port a query describes, how it is tied to a
netdev, the precedence of the runtime inputs, the findings and fixes of a host known only from
mlxconfig, and property tests (junk, truncated and binary input raise nothing but ParseError).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, lint
from fablint.findings import FixIntent
from fablint.fixes import render_fix
from fablint.ingest import discover, parse_all
from fablint.model import Device, HostNic, SourceRef
from fablint.parsers import PARSERS, PROVIDES
from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.detect import detect
from fablint.parsers.host_facts import file_stem_tokens, parse_host_documents
from fablint.parsers.mlxconfig import MlxconfigParser
from fablint.profiles import load_policy
from tests.conftest import FIXTURES

HOSTS = FIXTURES / "hosts"
CAPTURES = {
    "howto": HOSTS / "mellanox-howto-cx5" / "mlxconfig.txt",
    "kube01": HOSTS / "kube01" / "mlxconfig.txt",
    "libra": HOSTS / "libra-cx5" / "mlxconfig.txt",
    "bf3": HOSTS / "bluefield3-ptp" / "cnfdg45_enP2s2f0np0.mstconfig",
    "gpu02": HOSTS / "constructed-gpu02" / "gpu02_mlx5_0.mlxconfig",
}
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _text(name: str) -> str:
    return CAPTURES[name].read_text(encoding="utf-8")


def _parse(name: str) -> ParseResult:
    text = _text(name)
    parser = detect(text).parser
    assert parser is not None and parser.name == "mlxconfig"
    return parser.parse(text, str(CAPTURES[name]))


def _only(result: ParseResult) -> tuple[Device, HostNic]:
    [device] = result.devices
    assert device.host is not None
    [nic] = device.host.nics.values()
    return device, nic


def _line(nic: HostNic, key: str) -> int | None:
    ref = nic.field_src.get(key)
    return ref.line if ref is not None else None


def _docs(*items: tuple[str, str]) -> ParseResult:
    return parse_host_documents(list(items))


DEFAULTS = {"clamp_tgt_rate": 0, "clamp_tgt_rate_after_time_inc": 1, "rpg_time_reset": 300,
            "rpg_byte_reset": 32767, "rpg_threshold": 1, "rpg_max_rate": 0, "rpg_ai_rate": 5,
            "rpg_hai_rate": 50, "rpg_gd": 11, "rpg_min_dec_fac": 50, "rpg_min_rate": 1,
            "rate_to_set_on_first_cnp": 0, "dce_tcp_g": 1019, "dce_tcp_rtt": 1,
            "rate_reduce_monitor_period": 4, "initial_alpha_value": 1023,
            "min_time_between_cnps": 4}
"""The DCQCN values every real capture here prints (NVIDIA's defaults, [S2][S30])."""


# -- the real captures -------------------------------------------------------------------------


def test_infiniband_adapter_is_no_roce_nic() -> None:
    """[S2]: a ConnectX-5 VPI whose only port runs InfiniBand: nothing to check, and said so
    at the LINK_TYPE line (not a generic 'no facts')."""
    result = _parse("howto")
    [device] = result.devices
    assert device.name == "mellanox-howto-cx5" and device.host is not None
    assert device.host.nics == {}
    [problem] = result.problems
    assert (problem.line, problem.kind, problem.fatal) == (69, "invalid-value", False)
    assert "/dev/mst/mt4119_pciconf0 runs InfiniBand" in problem.message


def test_dual_port_query_by_pci_address_reads_port_1() -> None:
    """kube01: ConnectX-4 Lx EN (no LINK_TYPE, no trust), dual port, queried with a shell
    variable; `Device: 01:00.0` is PCI function 0, so port 1. The prompt names the host; no
    netdev is known, so the NIC keeps the device's name."""
    result = _parse("kube01")
    device, nic = _only(result)
    assert (device.name, nic.name, nic.vendor, nic.rdma_device) == (
        "kube01", "01:00.0", "nvidia", None)
    assert (nic.trust, nic.cnp_dscp, nic.cnp_priority) == (None, 48, 6)
    assert nic.ecn_np == nic.ecn_rp == dict.fromkeys(range(8), True)
    assert nic.dcqcn == DEFAULTS
    assert (_line(nic, "cnp_dscp"), _line(nic, "ecn_np[3]"), _line(nic, "dcqcn[rpg_ai_rate]")) \
        == (83, 61, 71)
    assert nic.firmware is not None
    assert (nic.firmware.device, nic.firmware.ports, nic.firmware.prio_mask) == ("01:00.0",
                                                                                 [1], 255)
    assert nic.firmware.pending == {} and "cnp_dscp" in nic.firmware.fields
    assert device.where("name") == SourceRef(str(CAPTURES["kube01"]), 1)
    # 121 parameters fablint does not model, and port 2's 20 that belong to function 1.
    assert (result.problems, result.unknown_lines) == ([], 141)


def test_single_port_mst_device_with_tuned_cnp_interval() -> None:
    """Libra (MFT 4.11): one port, an mst device path, MIN_TIME_BETWEEN_CNPS 0; the zsh prompt
    names no host, so the folder does."""
    result = _parse("libra")
    device, nic = _only(result)
    assert (device.name, nic.name) == ("libra-cx5", "/dev/mst/mt4119_pciconf0")
    assert nic.dcqcn == {**DEFAULTS, "min_time_between_cnps": 0}
    assert _line(nic, "dcqcn[min_time_between_cnps]") == 61
    assert nic.firmware is not None and nic.firmware.ports == [1]
    assert result.unknown_lines == 70  # ROCE_CC_ALGORITHM_P1 and the rest, and the zsh prompt


def test_bluefield_file_name_names_host_and_netdev() -> None:
    """BlueField-3 (mstconfig): the file name HOST_NETDEV beats the container's prompt, and
    ties the adapter to its netdev; both ports trust PCP in firmware."""
    _, nic = _only(_parse("bf3"))
    device, = _parse("bf3").devices
    assert (device.name, nic.name) == ("cnfdg45", "enP2s2f0np0")
    assert (nic.trust, nic.cnp_dscp, _line(nic, "trust")) == ("cos", 48, 179)
    assert nic.firmware is not None
    assert (nic.firmware.device, nic.firmware.ports) == ("0002:01:00.0", [1])


def test_other_port_of_the_adapter_is_not_read() -> None:
    """Function 0 is port 1: a different port-2 value changes nothing and is not reported."""
    text = _text("bf3").replace("CNP_DSCP_P2                                 48",
                                "CNP_DSCP_P2                                 26")
    result = PARSERS["mlxconfig"].parse(text, "cnfdg45_enP2s2f0np0.mstconfig")
    _, nic = _only(result)
    assert nic.cnp_dscp == 48 and result.problems == []
    function_1 = text.replace("mstconfig -d 0002:01:00.0 q", "mstconfig -d 0002:01:00.1 q")
    _, nic = _only(PARSERS["mlxconfig"].parse(function_1, "cnfdg45_enP2s2f0np1.mstconfig"))
    assert (nic.name, nic.cnp_dscp, _line(nic, "cnp_dscp")) == ("enP2s2f0np1", 26, 146)
    assert nic.firmware is not None and nic.firmware.ports == [2]


def test_enable_verbosity_reads_current_and_records_next_boot() -> None:
    """-e: Default, Current and Next Boot columns; Current is in effect, a different Next Boot
    value waits for a reboot."""
    result = _parse("gpu02")
    device, nic = _only(result)
    assert (device.name, nic.name, nic.rdma_device) == ("gpu02", "mlx5_0", "mlx5_0")
    assert (nic.trust, nic.cnp_dscp, nic.dcqcn["rpg_ai_rate"]) == ("cos", 48, 10)
    assert [p for p, on in nic.ecn_np.items() if not on] == [3]  # mask 247
    assert nic.firmware is not None
    assert nic.firmware.pending == {"CNP_DSCP_P1": "26", "QOS_TRUST_STATE_P1": "TRUST_DSCP(2)"}
    assert nic.firmware.prio_mask == 247
    assert result.problems == []


# -- runtime inputs win ------------------------------------------------------------------------


def test_runtime_inputs_win_over_firmware_for_the_same_nic() -> None:
    """gpu02: mlnx_qos says trust dscp, sysfs says DCQCN on priority 3; the firmware says PCP
    and mask 247. The runtime values win field by field and entry by entry; the firmware fills
    only what they do not report (CNP marking, other priorities, parameters)."""
    files = discover([str(HOSTS / "constructed-gpu02")])
    [outcome] = parse_all(files)
    assert [i.format for i in outcome.inputs] == ["sysfs_ecn", "mlxconfig", "mlnx_qos"]
    [device] = outcome.devices
    assert device.name == "gpu02" and device.host is not None
    [nic] = device.host.nics.values()
    assert (nic.name, nic.rdma_device) == ("ens1f0", "mlx5_0")
    assert (nic.trust, nic.pfc_priorities) == ("dscp", {3})
    assert Path(nic.field_src["trust"].file).name == "mlnx_qos_ens1f0.txt"
    assert nic.ecn_np[3] is True and nic.ecn_rp[3] is True
    assert Path(nic.field_src["ecn_np[3]"].file).name == "ecn.txt"
    assert nic.ecn_np[0] is True and nic.field_src["ecn_np[0]"].line == 17
    assert (nic.cnp_dscp, nic.dcqcn["rpg_ai_rate"]) == (48, 10)
    assert Path(nic.field_src["cnp_dscp"].file).name == "gpu02_mlx5_0.mlxconfig"
    assert nic.firmware is not None
    assert "trust" not in nic.firmware.fields and "ecn_np[3]" not in nic.firmware.fields
    assert {"cnp_dscp", "ecn_np[0]", "dcqcn[rpg_ai_rate]"} <= set(nic.firmware.fields)


@pytest.mark.parametrize("order", ["firmware-first", "firmware-last"])
def test_precedence_does_not_depend_on_file_names(order: str) -> None:
    firmware = ("Device type:    ConnectX6\nConfigurations:          Next Boot\n"
                "     QOS_TRUST_STATE_P1    TRUST_PCP(1)\n     CNP_DSCP_P1    26\n",
                "a/gpu01_ens1f0.mlxconfig")
    runtime = ("/sys/class/net/ens1f0/qos/trust:dscp\n"
               "/sys/class/net/ens1f0/ecn/roce_np/cnp_dscp:48\n", "a/gpu01_ecn.txt")
    docs = [firmware, runtime] if order == "firmware-first" else [runtime, firmware]
    result = _docs(*docs)
    [device] = result.devices
    assert device.name == "gpu01" and device.host is not None
    nic = device.host.nics["ens1f0"]
    assert (nic.trust, nic.cnp_dscp) == ("dscp", 48)
    assert nic.firmware is not None and nic.firmware.fields == []
    assert result.problems == []


# -- findings and fixes of a host known only from mlxconfig ------------------------------------


def test_mlxconfig_only_host_gets_the_dcqcn_and_cnp_findings(tmp_path: Path) -> None:
    """A ConnectX whose firmware has DCQCN off on the lossless priority 3 (mask 0xf7) and marks
    CNPs with DSCP 26: DCQ001 and QOS005 report the mlxconfig lines."""
    text = _text("kube01")
    text = text.replace("ROCE_CC_PRIO_MASK_P1                        255",
                        "ROCE_CC_PRIO_MASK_P1      0xf7")
    text = text.replace("CNP_DSCP_P1                                 48",
                        "CNP_DSCP_P1                  26")
    (tmp_path / "gpu07_mlx5_0.mlxconfig").write_text(text, encoding="utf-8")
    options = LintOptions(paths=[str(tmp_path)], config=ProjectConfig(),
                          policy=load_policy("default", {}), jobs=1)
    result = lint(options)
    assert not result.errors
    got = sorted((f.rule, f.device, f.object, f.line, f.message) for f in result.findings)
    # Values only the firmware configuration reported say so: the NIC boots with them.
    firmware = (" (from the NIC's firmware configuration: what it boots with; capture "
                "mlnx_qos or sysfs to see the running setting)")
    assert got == [
        ("DCQ001", "gpu07", "mlx5_0", 61, "DCQCN on mlx5_0: notification point (roce_np) off "
         "for priority 3 and reaction point (roce_rp) off for priority 3; the lossless "
         "priorities rely on PFC alone" + firmware),
        ("QOS005", "gpu07", "mlx5_0", 83,
         "mlx5_0 sends CNPs with DSCP 26, not the profile's CNP DSCP 48" + firmware),
    ]
    # The NIC has no netdev name: the runtime commands look it up from the RDMA device. Once
    # the rules pass HostNic.firmware to the fix (fix parameter ``firmware``), the persistent
    # mlxconfig form follows.
    lookup = "IF=$(ibdev2netdev | awk '$1 == \"mlx5_0\" {print $5}')"
    persistent = "  # persistent: from the next boot or firmware reset (mlxfwreset)"
    fixes = {f.rule: f for f in result.findings}
    expected = {
        "DCQ001": (f"{lookup}\necho 1 > /sys/class/net/$IF/ecn/roce_np/enable/3\n"
                   "echo 1 > /sys/class/net/$IF/ecn/roce_rp/enable/3",
                   f"mlxconfig -d 01:00.0 set ROCE_CC_PRIO_MASK_P1=255{persistent}"),
        "QOS005": (f"{lookup}\necho 48 > /sys/class/net/$IF/ecn/roce_np/cnp_dscp",
                   f"mlxconfig -d 01:00.0 set CNP_DSCP_P1=48{persistent}"),
    }
    for rule, (runtime, firmware) in expected.items():
        finding = fixes[rule]
        assert finding.intent is not None
        passed = "firmware" in finding.intent.params
        assert finding.fix == (f"{runtime}\n{firmware}" if passed else runtime)


def test_fix_sets_the_firmware_when_the_value_came_from_it(tmp_path: Path) -> None:
    """With the NIC's firmware passed to the fix (``HostNic.firmware``), the persistent
    ``mlxconfig set`` form follows: the mask gains priority 3's bit, the CNP DSCP is set on
    the port the values were read from."""
    text = _text("kube01").replace(
        "ROCE_CC_PRIO_MASK_P1                        255", "ROCE_CC_PRIO_MASK_P1      0xf7")
    result = PARSERS["mlxconfig"].parse(text, "gpu07_mlx5_0.mlxconfig")
    _, nic = _only(result)
    assert nic.firmware is not None
    firmware = nic.firmware.model_dump()
    params = {"interface": nic.name, "nic_vendor": nic.vendor, "rdma_device": nic.rdma_device,
              "firmware": firmware}
    enable = render_fix("host", FixIntent("nic-dcqcn-enable", {**params, "np": [3], "rp": [3]}))
    # The device as the output names it (Device: 01:00.0), which mlxconfig -d takes.
    assert enable is not None and enable.splitlines()[-1] == (
        "mlxconfig -d 01:00.0 set ROCE_CC_PRIO_MASK_P1=255  # persistent: from the next boot "
        "or firmware reset (mlxfwreset)")
    cnp = render_fix("host", FixIntent("nic-cnp", {**params, "cnp_dscp": 48, "cnp_priority": 6}))
    assert cnp is not None
    assert cnp.splitlines()[-1].startswith("mlxconfig -d 01:00.0 set CNP_DSCP_P1=48 "
                                           "CNP_802P_PRIO_P1=6  #")


@pytest.mark.parametrize(("params", "expected"), [
    # A runtime NIC whose CNP DSCP came from the firmware: runtime, then persistent.
    ({"interface": "ens1f0", "rdma_device": "mlx5_0",
      "firmware": {"device": "0000:3b:00.1", "ports": [2], "fields": ["cnp_dscp"]}},
     "echo 48 > /sys/class/net/ens1f0/ecn/roce_np/cnp_dscp\n"
     "mlxconfig -d 0000:3b:00.1 set CNP_DSCP_P2=48  # persistent: from the next boot or "
     "firmware reset (mlxfwreset)"),
    # The runtime reported it: no firmware line.
    ({"interface": "ens1f0", "firmware": {"device": "mlx5_0", "ports": [1], "fields": []}},
     "echo 48 > /sys/class/net/ens1f0/ecn/roce_np/cnp_dscp"),
    # Both ports of an adapter that did not say which one it is share the value.
    ({"interface": "mlx5_0", "rdma_device": "mlx5_0",
      "firmware": {"device": "mlx5_0", "ports": [1, 2], "fields": ["cnp_dscp"]}},
     "IF=$(ibdev2netdev | awk '$1 == \"mlx5_0\" {print $5}')\n"
     "echo 48 > /sys/class/net/$IF/ecn/roce_np/cnp_dscp\n"
     "mlxconfig -d mlx5_0 set CNP_DSCP_P1=48 CNP_DSCP_P2=48  # persistent: from the next boot "
     "or firmware reset (mlxfwreset)"),
    # Named by PCI address only: the netdev is the function's.
    ({"interface": "01:00.0"},
     "IF=$(ls /sys/bus/pci/devices/0000:01:00.0/net)\n"
     "echo 48 > /sys/class/net/$IF/ecn/roce_np/cnp_dscp"),
    # An mst path names no netdev: only the firmware can be set.
    ({"interface": "/dev/mst/mt4119_pciconf0",
      "firmware": {"device": "/dev/mst/mt4119_pciconf0", "ports": [1], "fields": ["cnp_dscp"]}},
     "mlxconfig -d /dev/mst/mt4119_pciconf0 set CNP_DSCP_P1=48  # persistent: from the next "
     "boot or firmware reset (mlxfwreset)"),
    ({"interface": "/dev/mst/mt4119_pciconf0"}, None),
])
def test_cnp_fix_forms(params: dict[str, object], expected: str | None) -> None:
    intent = FixIntent("nic-cnp", {"nic_vendor": "nvidia", "cnp_dscp": 48, **params})
    assert render_fix("host", intent) == expected


# -- which netdev, which port ------------------------------------------------------------------

TABLE = "Device #1:\n----------\nDevice type:    ConnectX7\nConfigurations:    Next Boot\n"


def _firmware(**values: str) -> str:
    return TABLE + "".join(f"         {name}    {value}\n" for name, value in values.items())


def test_rdma_device_is_tied_to_its_netdev_by_ibdev2netdev() -> None:
    """`-d mlx5_1` and ibdev2netdev say ens1f1: the content wins over the file name."""
    result = _docs(
        ("$ mlxconfig -d mlx5_1 q\n" + _firmware(CNP_DSCP_P1="26"), "g/gpu01_ens1f0.txt"),
        ("mlx5_0 port 1 ==> ens1f0 (Up)\nmlx5_1 port 1 ==> ens1f1 (Up)\n"
         "/sys/class/net/ens1f0/ecn/roce_np/enable/3:1\n"
         "/sys/class/net/ens1f1/ecn/roce_np/enable/3:1\n", "g/gpu01_ecn.txt"))
    [device] = result.devices
    assert device.host is not None and sorted(device.host.nics) == ["ens1f0", "ens1f1"]
    nic = device.host.nics["ens1f1"]
    assert (nic.rdma_device, nic.cnp_dscp) == ("mlx5_1", 26)
    assert device.host.nics["ens1f0"].cnp_dscp is None
    assert result.problems == []


def test_roce_tos_of_an_rdma_device_only_the_firmware_names() -> None:
    result = _docs((_firmware(CNP_DSCP_P1="48"), "g/gpu01_mlx5_0.mlxconfig"),
                   ("/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos:106\n",
                    "g/gpu01.sysfs"))
    device, nic = _only(result)
    assert device.host is not None and device.host.rdma_tos == {}
    assert (nic.name, nic.roce_tos, nic.roce_dscp) == ("mlx5_0", 106, 26)
    assert nic.field_src["roce_tos"] == SourceRef("g/gpu01.sysfs", 1)


def test_unmatched_adapter_is_kept_under_its_rdma_device_and_reported() -> None:
    result = _docs((_firmware(CNP_DSCP_P1="26"), "g/gpu01_mlx5_3.mlxconfig"),
                   ("/sys/class/net/ens1f0/ecn/roce_np/enable/3:1\n"
                    "/sys/class/net/ens1f1/ecn/roce_np/enable/3:1\n", "g/gpu01_ecn.txt"))
    [device] = result.devices
    assert device.host is not None and sorted(device.host.nics) == ["ens1f0", "ens1f1", "mlx5_3"]
    assert device.host.nics["mlx5_3"].rdma_device == "mlx5_3"
    [problem] = result.problems
    assert problem.file == "g/gpu01_mlx5_3.mlxconfig" and problem.line == 1
    assert "matches no NIC of host gpu01 (ens1f0, ens1f1)" in problem.message


def test_the_only_nic_and_the_only_adapter_belong_together() -> None:
    """As a RoCE ToS goes to a host's only NIC (documented), so does its only adapter."""
    result = _docs((_firmware(CNP_DSCP_P1="26"), "g/gpu01.mlxconfig"),
                   ("DCBX mode: OS controlled\nPriority trust state: dscp\n",
                    "g/gpu01_ens1f0.mlnx_qos"))
    _, nic = _only(result)
    assert (nic.name, nic.trust, nic.cnp_dscp) == ("ens1f0", "dscp", 26)
    assert result.problems == []


def test_two_ports_that_differ_are_not_guessed() -> None:
    """`-d mlx5_0` of a dual-port adapter: which port is mlx5_0? The shared values are used,
    the differing CNP DSCP is reported and left unknown."""
    text = "# mlxconfig -d mlx5_0 q\n" + _firmware(
        LINK_TYPE_P1="ETH(2)", LINK_TYPE_P2="ETH(2)", CNP_DSCP_P1="48", CNP_DSCP_P2="26",
        CNP_802P_PRIO_P1="6", CNP_802P_PRIO_P2="6")
    result = PARSERS["mlxconfig"].parse(text, "gpu01_mlx5_0.mlxconfig")
    _, nic = _only(result)
    assert (nic.name, nic.cnp_dscp, nic.cnp_priority) == ("mlx5_0", None, 6)
    assert nic.firmware is not None and nic.firmware.ports == [1, 2]
    [problem] = result.problems
    assert problem.line == 2 and "CNP_DSCP_P1 48, CNP_DSCP_P2 26" in problem.message


def test_infiniband_and_ethernet_ports_of_an_unknown_function() -> None:
    text = _firmware(LINK_TYPE_P1="IB(1)", LINK_TYPE_P2="ETH(2)", CNP_DSCP_P1="48",
                     CNP_DSCP_P2="48")
    result = PARSERS["mlxconfig"].parse(text, "gpu01_mlx5_0.mlxconfig")
    [device] = result.devices
    assert device.host is not None and device.host.nics == {}
    assert any("InfiniBand and Ethernet ports" in p.message for p in result.problems)
    # Queried by PCI address, function 1 is the Ethernet port 2.
    known = PARSERS["mlxconfig"].parse("mlxconfig -d 3b:00.1 q\n" + text, "gpu01_ens1f1.txt")
    _, nic = _only(known)
    assert (nic.name, nic.cnp_dscp) == ("ens1f1", 48) and known.problems == []


def test_several_adapters_in_one_query() -> None:
    """`mlxconfig q` without -d lists every adapter: one NIC each, named by its device."""
    text = "\n".join(
        f"Device #{n}:\n----------\nDevice type:    ConnectX7\nDevice:         {dev}\n"
        f"Configurations:      Next Boot\n     CNP_DSCP_P1     {dscp}\n"
        for n, dev, dscp in ((1, "0000:3b:00.0", 48), (2, "0000:86:00.0", 26)))
    result = PARSERS["mlxconfig"].parse(text, "gpu01.mlxconfig")
    [device] = result.devices
    assert device.name == "gpu01" and device.host is not None
    assert {n: nic.cnp_dscp for n, nic in device.host.nics.items()} == {
        "0000:3b:00.0": 48, "0000:86:00.0": 26}


@pytest.mark.parametrize(("value", "field", "expected", "problem"), [
    ("0xff", "ROCE_CC_PRIO_MASK_P1", 255, None),
    ("DEVICE_DEFAULT(0)", "CNP_DSCP_P1", None, None),
    ("N/A", "CNP_DSCP_P1", None, None),
    ("64", "CNP_DSCP_P1", None, "outside 0-63"),
    ("abc", "CNP_802P_PRIO_P1", None, "not a number"),
    ("TRUST_DSCP(2)", "QOS_TRUST_STATE_P1", "dscp", None),
    ("2", "QOS_TRUST_STATE_P1", "dscp", None),
    ("TRUST_DSCP_PCP(3)", "QOS_TRUST_STATE_P1", None, "PCP or in DSCP only"),
    ("0x1ff", "ROCE_CC_PRIO_MASK_P1", None, "not a mask"),
])
def test_values(value: str, field: str, expected: object, problem: str | None) -> None:
    result = PARSERS["mlxconfig"].parse(_firmware(**{field: value}), "gpu01_mlx5_0.mlxconfig")
    [device] = result.devices
    nics = device.host.nics if device.host is not None else {}
    got = None
    if nics:
        nic = nics["mlx5_0"]
        got = {"ROCE_CC_PRIO_MASK_P1": nic.firmware.prio_mask if nic.firmware else None,
               "CNP_DSCP_P1": nic.cnp_dscp, "CNP_802P_PRIO_P1": nic.cnp_priority,
               "QOS_TRUST_STATE_P1": nic.trust}[field]
    assert got == expected
    messages = [p.message for p in result.problems if "no RoCE NIC facts" not in p.message]
    if problem is None:
        assert messages == []
    else:
        assert len(messages) == 1 and problem in messages[0]
        assert [p.line for p in result.problems if p.message == messages[0]] == [5]


def test_set_confirmation_tables_are_not_read() -> None:
    """`mlxconfig set` prints the values it is about to write (Next Boot, New): not a query."""
    text = (TABLE.replace("Next Boot", "Next Boot       New")
            + "         CNP_DSCP_P1    48     26\n")
    result = PARSERS["mlxconfig"].parse(text, "gpu01_mlx5_0.mlxconfig")
    [device] = result.devices
    assert device.host is not None and device.host.nics == {}
    assert result.unknown_lines == 1


def test_column_count_mismatch_is_reported() -> None:
    text = TABLE.replace("Next Boot", "Default  Current  Next Boot") + "   CNP_DSCP_P1   48  26\n"
    result = PARSERS["mlxconfig"].parse(text, "gpu01_mlx5_0.mlxconfig")
    assert any(p.line == 5 and "2 values for the 3 columns" in p.message
               for p in result.problems)


@pytest.mark.parametrize(("path", "host", "slot"), [
    ("c/gpu01_mlx5_0.mlxconfig", "gpu01", "mlx5_0"),
    ("c/gpu01_mlxconfig_ens1f0.txt", "gpu01", "ens1f0"),
    ("c/mlx5_bond_0.mlxconfig", "c", "mlx5_bond_0"),
    ("c/gpu01.mlxconfig", "gpu01", None),
    ("gpu01/mlxconfig_ens1f0np0.txt", "gpu01", "ens1f0np0"),
    ("gpu01/mstconfig.txt", "gpu01", None),
])
def test_naming(path: str, host: str, slot: str | None) -> None:
    result = _docs((_firmware(CNP_DSCP_P1="26"), path))
    device, nic = _only(result)
    assert device.name == host
    if slot is not None:
        assert nic.name == slot
    assert file_stem_tokens("a/gpu_01_mlx5_12.txt") == ["gpu", "01", "mlx5_12"]


def test_no_table_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no mlxconfig query output"):
        PARSERS["mlxconfig"].parse("Device type:    ConnectX5\nName: x\n", "x.txt")


# -- detection and robustness ------------------------------------------------------------------


def test_registered_and_recognised() -> None:
    assert isinstance(PARSERS["mlxconfig"], MlxconfigParser)
    assert PROVIDES["mlxconfig"] == "hosts"
    for name in CAPTURES:
        parser = detect(_text(name)).parser
        assert parser is not None and parser.name == "mlxconfig", name


@pytest.mark.parametrize("head", [
    "DCBX mode: OS controlled\nPriority trust state: dscp\n",
    "/sys/class/net/ens1f0/ecn/roce_np/enable/3:1\n",
    "Device type: switch\nName: leaf1\n",
    "Configurations:\n",
    "hostname leaf1\ninterface Ethernet1\n   description Configurations: none\n",
])
def test_sniff_claims_nothing_else(head: str) -> None:
    assert PARSERS["mlxconfig"].sniff(head) == 0


def _check(text: str, path: str) -> None:
    lines = text.count("\n") + 1
    try:
        result = PARSERS["mlxconfig"].parse(text, path)
    except ParseError as exc:
        assert exc.file == path and exc.message
        assert exc.line is None or 1 <= exc.line <= lines
        return
    for device in result.devices:
        device.model_dump_json()
        assert device.vendor == "host" and device.name.strip()
    for problem in result.problems:
        assert problem.file == path and (problem.line is None or 1 <= problem.line <= lines)


PARTS = st.sampled_from([
    "Device #1:\n", "----------\n", "Device type:    ConnectX6\n", "Device:  0000:3b:00.1\n",
    "Device:  mlx5_0\n", "Configurations:    Next Boot\n",
    "Configurations:   Default   Current   Next Boot\n", "Configurations:  Next Boot  New\n",
    "   LINK_TYPE_P1   IB(1)\n", "   LINK_TYPE_P2   ETH(2)\n", "*  CNP_DSCP_P1  48  48  26\n",
    "   CNP_DSCP_P2   99\n", "   ROCE_CC_PRIO_MASK_P1   0xfffffffffffff\n",
    "   QOS_TRUST_STATE_P1   TRUST_BOTH(3)\n", "   RPG_GD_P1   N/A\n", "   RPG_GD_P2  -1\n",
    "   DCE_TCP_G_P1   " + "9" * 5000 + "\n", "root@gpu01:~# mlxconfig -d mlx5_1 -e q\n",
    "$ mstconfig -d $DEV q\n", "The '*' shows parameters\n", "\x00", "\ufffd", "\u2028",
    "   CNP_802P_PRIO_P1   \u0663\n", "\n",
])


@SETTINGS
@given(st.lists(PARTS, max_size=25), st.sampled_from(["gpu01_mlx5_0.mlxconfig", "x.txt",
                                                      "gpu01_ens1f0.txt"]))
def test_mlxconfig_shaped_junk(parts: list[str], path: str) -> None:
    _check("".join(parts), path)


@SETTINGS
@given(st.sampled_from(sorted(CAPTURES)), st.integers(min_value=0, max_value=30000),
       st.text(st.sampled_from(list("0123456789abcdefxP_()* \t\n#$@:.-/\x00\xff")), max_size=40),
       st.integers(min_value=0, max_value=30000))
def test_truncated_and_damaged_captures(name: str, cut: int, junk: str, at: int) -> None:
    text = _text(name)[:cut]
    at = min(at, len(text))
    _check(text[:at] + junk + text[at:], "gpu01_mlx5_0.mlxconfig")


@SETTINGS
@given(st.binary(max_size=400))
def test_binary_input(data: bytes) -> None:
    text = data.decode("utf-8", "replace")
    _check(TABLE + text, "x.mlxconfig")
    _check("Device #1:\n----------\n" + text, "x.mlxconfig")


@SETTINGS
@given(st.lists(st.sampled_from([
    (_firmware(CNP_DSCP_P1="26"), "h/gpu01_mlx5_0.mlxconfig"),
    (_firmware(CNP_DSCP_P1="26", LINK_TYPE_P1="IB(1)"), "h/gpu01_mlx5_1.mlxconfig"),
    (_firmware(CNP_DSCP_P1="48", CNP_DSCP_P2="26"), "h/gpu02.mlxconfig"),
    ("mlx5_0 port 1 ==> ens1f0 (Up)\n", "h/gpu01_ibdev.sysfs"),
    ("/sys/class/net/ens1f0/ecn/roce_np/enable/3:1\n", "h/gpu01_ecn.txt"),
    ("/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos:106\n", "h/tos.sysfs"),
    ("DCBX mode: OS controlled\nPriority trust state: pcp\n", "h/gpu01_ens1f1.mlnx_qos"),
    ("fablint-host: 1\nhost: gpu01\nnics:\n  - name: mlx5_0\n    mtu: 9000\n", "h/gpu01.yaml"),
]), max_size=6))
def test_any_mix_of_host_files_merges(docs: list[tuple[str, str]]) -> None:
    """Whatever host files sit together, the merge never raises and every NIC validates."""
    result = parse_host_documents(docs)
    for device in result.devices:
        device.model_dump_json()


def test_messages_say_when_a_value_is_the_firmwares() -> None:
    from fablint.checks.dcqcn import firmware_note
    from fablint.model import HostNic, NicFirmware

    nic = HostNic(name="ens1f0", firmware=NicFirmware(device="mlx5_0", fields=["cnp_dscp"]))
    assert "firmware configuration" in firmware_note(nic, "cnp_dscp")
    assert firmware_note(nic, "trust") == "", "a runtime value is just the value"
    assert firmware_note(HostNic(name="ens1f0"), "cnp_dscp") == ""
