"""Collection without a network: inventories, command sets, snapshot files and their linting,
credentials, error classification, exit codes. The SSH end-to-end tests are in
test_collect_ssh.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fablint.cli import app
from fablint.collect import snapshot
from fablint.collect.commands import (
    commands_for,
    file_name,
    host_qos_commands,
    parse_interface_list,
)
from fablint.collect.credentials import (
    CredentialError,
    Credentials,
    Secrets,
    resolve_credentials,
)
from fablint.collect.inventory import expand_host_pattern, load_inventory, select_hosts
from fablint.collect.runner import _device_error, exit_code
from fablint.collect.snapshot import (
    CommandRecord,
    DeviceRecord,
    Manifest,
    folder_name,
    inside,
    save_output,
    write_atomic,
    write_manifest,
)
from fablint.config import ProjectConfig
from fablint.engine import LintOptions, lint
from fablint.profiles import load_policy
from fablint.yamlio import ConfigError
from tests.conftest import FIXTURES

INVENTORIES = FIXTURES / "inventory"


# -- inventories -----------------------------------------------------------------------------


def test_fablint_inventory_resolves_defaults_groups_and_hosts() -> None:
    inv = load_inventory(INVENTORIES / "fablint.yaml")
    assert inv.format == "fablint" and not inv.warnings
    hosts = {h.name: h for h in inv.hosts}
    assert list(hosts) == ["spine1", "leaf1", "leaf2", "leaf4", "gpu01", "sm01"]
    assert (hosts["spine1"].platform, hosts["spine1"].device_type) == ("nxos", "cisco_nxos")
    leaf2 = hosts["leaf2"]
    assert (leaf2.address, leaf2.port, leaf2.platform, leaf2.username) == (
        "10.0.1.2", 2222, "eos", "netops")
    assert leaf2.groups == ("leaves",) and leaf2.collect == ("config", "lldp")
    leaf4 = hosts["leaf4"]
    assert (leaf4.platform, leaf4.device_type, leaf4.username, leaf4.password_env) == (
        "sonic", "linux", "admin", "SONIC_PASSWORD")
    gpu = hosts["gpu01"]
    assert gpu.collect == ("ib-discovery", "host-qos")
    assert gpu.rdma_interfaces == ("ens1f0np0", "ens2f0np0")
    assert hosts["sm01"].partitions_conf == "/etc/rdma/partitions.conf"
    assert hosts["sm01"].opensm_conf == "/etc/opensm/opensm.conf"
    assert hosts["leaf1"].where.endswith("fablint.yaml:15")  # the line naming the host


@pytest.mark.parametrize(("text", "words"), [
    ("hosts:\n  leaf1:\n    platform: eos\n    password: hunter2\n",
     "'password' is not allowed: passwords never go in an inventory"),
    ("hosts:\n  leaf1:\n    platform: ios\n", "unknown platform 'ios'"),
    ("hosts:\n  leaf1:\n    platfrom: eos\n", "unknown key 'platfrom'"),
    ("hosts:\n  leaf1:\n    address: 10.0.0.1\n", "host 'leaf1' has no platform"),
    ("hosts:\n  leaf1:\n    platform: eos\n    port: 70000\n", "port must be a number"),
    ("hosts:\n  leaf1:\n    platform: eos\n    groups: [nope]\n", "unknown group 'nope'"),
    ("hosts:\n  a/b: {platform: eos}\n  a_b: {platform: eos}\n",
     "would share the snapshot folder 'a_b'"),
    ("hosts:\n  gpu: {platform: ib-host, rdma_interfaces: ['eth0; reboot']}\n",
     "rdma_interfaces must be a list of interface names"),
    ("hosts:\n  sm: {platform: opensm, opensm_conf: '/etc/x; rm -rf /'}\n",
     "opensm_conf must be an absolute path"),
    ("hosts:\n  leaf1: {platform: eos, collect: [configs]}\n", "unknown command set 'configs'"),
    ("- just\n- a list\n", "cannot tell the inventory format"),
])
def test_inventory_errors_name_the_problem(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "inv.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_inventory(path)
    assert words in str(err.value)
    assert "hunter2" not in str(err.value)


def test_ansible_inventory() -> None:
    inv = load_inventory(INVENTORIES / "ansible.yaml")
    assert inv.format == "ansible"
    hosts = {h.name: h for h in inv.hosts}
    assert sorted(hosts) == ["gpu01", "leaf-sonic", "leaf01", "leaf02", "leaf03", "spine1"]
    assert (hosts["spine1"].platform, hosts["spine1"].address) == ("nxos", "10.0.0.1")
    assert (hosts["leaf02"].platform, hosts["leaf02"].address,
            hosts["leaf02"].username) == ("eos", "leaf02", "netops")
    sonic = hosts["leaf-sonic"]  # the host's own vars win over its group's
    assert (sonic.platform, sonic.port, sonic.address) == ("sonic", 2222, "10.0.1.9")
    assert hosts["gpu01"].key_file == "~/.ssh/gpu_key"
    assert "host-qos" in hosts["gpu01"].collect
    assert hosts["leaf01"].groups == ("leaves",)
    warnings = "\n".join(inv.warnings)
    assert "ignored 'ansible_password'" in warnings  # a vaulted value, never decrypted
    assert "skipped 1 host(s) (no ansible_network_os or fablint_platform): bastion" in warnings


def test_nornir_inventory_folder_or_hosts_file() -> None:
    for path in (INVENTORIES / "nornir", INVENTORIES / "nornir" / "hosts.yaml"):
        inv = load_inventory(path)
        assert inv.format == "nornir"
        hosts = {h.name: h for h in inv.hosts}
        assert sorted(hosts) == ["gpu01", "leaf1", "leaf2", "spine1"]
        leaf1 = hosts["leaf1"]  # platform from group arista, port from its parent group dc1
        assert (leaf1.platform, leaf1.port, leaf1.username, leaf1.address) == (
            "eos", 22, "netops", "10.0.1.1")
        assert hosts["leaf2"].collect == ("config",)
        gpu = hosts["gpu01"]  # connection_options.netmiko.platform: linux
        assert (gpu.platform, gpu.collect) == ("ib-host", ("ib-discovery", "host-qos"))
        warnings = "\n".join(inv.warnings)
        assert "host leaf2: ignored 'password'" in warnings
        assert "printer" in warnings
        assert "do-not-store-me" not in warnings


def test_inventory_format_can_be_forced(tmp_path: Path) -> None:
    path = tmp_path / "hosts.yaml"
    path.write_text("leaf1:\n  hostname: 10.0.0.1\n  platform: arista_eos\n", encoding="utf-8")
    assert load_inventory(path).format == "nornir"
    assert load_inventory(path, "nornir").hosts[0].platform == "eos"
    with pytest.raises(ConfigError):
        load_inventory(path, "fablint")


def test_host_patterns_and_limits() -> None:
    assert expand_host_pattern("leaf[01:03]") == ["leaf01", "leaf02", "leaf03"]
    assert expand_host_pattern("r[a:c]-s[1:2]") == ["ra-s1", "ra-s2", "rb-s1", "rb-s2",
                                                    "rc-s1", "rc-s2"]
    assert expand_host_pattern("leaf[1:9:4]") == ["leaf1", "leaf5", "leaf9"]
    hosts = load_inventory(INVENTORIES / "fablint.yaml").hosts
    assert [h.name for h in select_hosts(hosts, ["leaves"])] == ["leaf1", "leaf2"]
    assert [h.name for h in select_hosts(hosts, ["s*"])] == ["spine1", "sm01"]


# -- commands --------------------------------------------------------------------------------


def test_commands_per_platform() -> None:
    assert [c.command for c in commands_for("eos", ("config", "lldp"))] == [
        "show running-config", "show lldp neighbors detail"]
    assert [c.file for c in commands_for("nxos", ("config",))] == ["show_running-config.txt"]
    sonic = commands_for("sonic", ("config", "lldp"))
    assert [c.command for c in sonic] == ["show runningconfiguration all", "show lldp neighbors"]
    assert sonic[0].formats == ("sonic",)
    ib = commands_for("ib-host", ("ib-discovery",))
    assert [c.command for c in ib] == ["ibnetdiscover", "iblinkinfo"]
    sm = commands_for("opensm", ("opensm",), partitions_conf="/etc/rdma/partitions.conf")
    assert [c.command for c in sm] == ["cat /etc/opensm/opensm.conf",
                                       "cat /etc/rdma/partitions.conf"]
    qos = host_qos_commands("ens1f0np0")
    assert [c.command for c in qos] == ["mlnx_qos -i ens1f0np0",
                                        "grep -r . /sys/class/net/ens1f0np0/ecn/"]
    with pytest.raises(ValueError):
        host_qos_commands("eth0; reboot")


def test_names_from_device_output_are_checked() -> None:
    assert parse_interface_list("ens1f0np0\n\nib0\n../../etc\nens1f0np0\n$(reboot)\n") == (
        ["ens1f0np0", "ib0"], ["../../etc", "$(reboot)"])
    assert file_name("show running-config") == "show_running-config"
    assert file_name("cat /etc/../../x") == "cat_etc_.._.._x"
    assert "/" not in file_name("../../x") and not file_name("../../x").startswith(".")


@pytest.mark.parametrize(("output", "error"), [
    ("% Invalid input (at token 1: 'lldp')\n", "% Invalid input (at token 1: 'lldp')"),
    ("-bash: ibnetdiscover: command not found\n", "-bash: ibnetdiscover: command not found"),
    ("cat: /etc/opensm/opensm.conf: No such file or directory\n",
     "cat: /etc/opensm/opensm.conf: No such file or directory"),
    ("ibwarn: [123] mad_rpc_open_port: can't open UMAD port ((null):0)\n",
     "ibwarn: [123] mad_rpc_open_port: can't open UMAD port ((null):0)"),
    ("hostname leaf1\n!\ninterface Ethernet1\n", None),
    ("", None),
    # a long output is data even if a line looks like an error
    ("x\n" * 10 + "% Invalid input\n", None),
])
def test_device_complaints_are_not_saved_as_data(output: str, error: str | None) -> None:
    assert _device_error(output) == error


# -- snapshot files --------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "folder"), [
    ("leaf1", "leaf1"), ("leaf1.dc1.example.com", "leaf1.dc1.example.com"),
    ("../../etc/passwd", "___etc_passwd"), ("..", "_"), (".hidden", "hidden"),
    ("a/b\\c d", "a_b_c_d"), ("", "_"), ("/abs", "_abs"),
])
def test_folder_names_stay_plain(name: str, folder: str) -> None:
    result = folder_name(name)
    assert result == folder
    assert "/" not in result and "\\" not in result and ".." not in result
    assert not result.startswith(".")


def test_paths_cannot_leave_the_snapshot(tmp_path: Path) -> None:
    root = tmp_path / "snap"
    root.mkdir()
    assert inside(root, "leaf1", "x.txt") == root / "leaf1" / "x.txt"
    with pytest.raises(ValueError):
        inside(root, "..", "escaped.txt")
    with pytest.raises(ValueError):
        inside(root, "/etc/passwd")
    (tmp_path / "elsewhere").mkdir()
    (root / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ValueError):
        save_output(root, "link", "show_running-config", "x")
    assert not list((tmp_path / "elsewhere").iterdir())


def test_writes_are_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n", encoding="utf-8")

    def broken_replace(self: Path, other: Path) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(Path, "replace", broken_replace)
    with pytest.raises(OSError):
        write_atomic(target, b"new and complete\n")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]  # no temporary left


def test_snapshot_folders_are_new_and_timestamped(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    when = datetime(2026, 11, 24, 3, 0, 0, tzinfo=UTC)
    first = snapshot.snapshot_folder(tmp_path, when)
    second = snapshot.snapshot_folder(tmp_path, when)
    assert (first.name, second.name) == ("20261124T030000Z", "20261124T030000Z-2")


def _record(status: str) -> DeviceRecord:
    return DeviceRecord(device="d", folder="d", address="a", port=22, platform="eos",
                        device_type="arista_eos", status=status)  # type: ignore[arg-type]


@pytest.mark.parametrize(("statuses", "code"), [
    (["ok", "ok"], 0), (["ok", "failed"], 1), (["partial"], 1), (["failed", "failed"], 2),
    (["cancelled"], 2), ([], 2),
])
def test_exit_code_says_all_some_or_none(statuses: list[str], code: int) -> None:
    assert exit_code(Manifest(devices=[_record(s) for s in statuses])) == code


# -- linting a snapshot ----------------------------------------------------------------------


def _snapshot(root: Path, files: dict[str, tuple[str, str, str, list[str], str]]) -> None:
    """files: relative path -> (device, command, kind, formats, content)."""
    devices: dict[str, DeviceRecord] = {}
    for rel, (device, command, kind, formats, content) in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        record = devices.setdefault(device, DeviceRecord(
            device=device, folder=rel.split("/")[0], address="10.0.0.1", port=22,
            platform="eos", device_type="arista_eos", status="ok"))
        record.commands.append(CommandRecord(command=command, kind=kind, file=rel,
                                             formats=formats, status="ok"))
    write_manifest(root, Manifest(devices=list(devices.values())))


def _lint(path: Path) -> object:
    return lint(LintOptions(paths=[str(path)], config=ProjectConfig(),
                            policy=load_policy("default"), jobs=1, keep_devices=True))


def test_the_manifest_picks_the_parser_and_the_device_name(tmp_path: Path) -> None:
    # Too sparse for content detection: without the manifest this is "unsupported".
    sparse = "interface Ethernet1/1\n  mtu 9216\n"
    _snapshot(tmp_path, {
        "leaf7/show_running-config.txt": ("leaf7", "show running-config", "running-config",
                                          ["nxos"], sparse),
    })
    result = _lint(tmp_path)
    assert not result.errors  # type: ignore[attr-defined]
    inputs = result.fabric.inputs  # type: ignore[attr-defined]
    assert [(Path(i.path).name, i.format) for i in inputs] == [
        ("show_running-config.txt", "nxos")]
    # no hostname line: named after the inventory's device, not after the file
    assert list(result.fabric.devices) == ["leaf7"]  # type: ignore[attr-defined]
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "show_running-config.txt").write_text(sparse, encoding="utf-8")
    assert _lint(plain).fabric.inputs[0].format is None  # type: ignore[attr-defined]


def test_outputs_no_parser_reads_are_left_out_quietly(tmp_path: Path) -> None:
    _snapshot(tmp_path, {
        "leaf1/show_running-config.txt": ("leaf1", "show running-config", "running-config",
                                          ["eos"], (FIXTURES / "equivalence" / "eos" /
                                                    "leaf1.cfg").read_text(encoding="utf-8")),
        "leaf1/show_lldp_neighbors.txt": ("leaf1", "show lldp neighbors", "lldp-neighbors",
                                          ["lldp"], "LocalPort  RemoteDevice\n----  ----\n"),
        "gpu1/ibnetdiscover.txt": ("gpu1", "ibnetdiscover", "ibnetdiscover",
                                   ["no-such-parser"], "nothing fablint reads\n"),
    })
    result = _lint(tmp_path)
    files = sorted(Path(i.path).name for i in result.fabric.inputs)  # type: ignore[attr-defined]
    assert files == ["show_running-config.txt"]
    assert not result.errors and not result.findings  # type: ignore[attr-defined]


def test_a_manifest_json_that_is_not_fablints_is_an_ordinary_file(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text('{"name": "some web app"}\n', encoding="utf-8")
    result = _lint(tmp_path)
    assert [Path(i.path).name for i in result.fabric.inputs] == [  # type: ignore[attr-defined]
        "manifest.json"]
    assert [f.rule for f in result.findings] == ["FAB002"]  # type: ignore[attr-defined]


def test_the_drift_fixture_snapshot_lints_cleanly_apart_from_its_planted_faults() -> None:
    result = _lint(FIXTURES / "drift" / "live")
    assert not result.errors  # type: ignore[attr-defined]
    formats = {str(Path(i.path).relative_to(FIXTURES / "drift" / "live")): i.format
               for i in result.fabric.inputs}  # type: ignore[attr-defined]
    assert formats["leaf1/show_running-config.txt"] == "eos"
    assert formats["leaf2/show_running-config.txt"] == "nxos"
    assert formats["leaf3/show_runningconfiguration_all.txt"] == "sonic"
    assert formats["leaf1/show_lldp_neighbors_detail.txt"] == "lldp"
    assert "manifest.json" not in formats
    assert "leaf2/show_lldp_neighbors_detail.txt" not in formats  # empty: nothing to read
    assert not [f for f in result.findings if f.rule.startswith("FAB")]  # type: ignore


# -- credentials -----------------------------------------------------------------------------


def test_credentials_come_from_the_environment_or_a_prompt() -> None:
    creds = resolve_credentials(environ={"FABLINT_PASSWORD": "s3cret", "FABLINT_USERNAME": "u"})
    assert (creds.username, creds.password) == ("u", "s3cret")
    assert "s3cret" not in repr(creds)
    other = resolve_credentials(password_env="LAB_PW", environ={"LAB_PW": "x"})
    assert other.password == "x"
    asked = resolve_credentials(ask_password=True, environ={}, interactive=True,
                                prompt=lambda _p: "typed")
    assert asked.password == "typed"
    with pytest.raises(CredentialError, match="needs a terminal"):
        resolve_credentials(ask_password=True, environ={}, interactive=False)
    with pytest.raises(CredentialError, match="not found"):
        resolve_credentials(key_file="/nonexistent/id_ed25519", environ={})


def test_secrets_are_masked_longest_first() -> None:
    secrets = Secrets(["abc", "abcdef", None, ""])
    assert secrets.scrub("x abcdef y abc z") == "x ******** y ******** z"
    assert "abc" in secrets and "zzz" not in secrets
    assert Credentials(password="p").password == "p"


# -- error classification (needs netmiko) ----------------------------------------------------


def test_errors_are_classified_without_leaking_details() -> None:
    pytest.importorskip("netmiko")
    from netmiko.exceptions import (
        NetmikoAuthenticationException,
        NetmikoTimeoutException,
        ReadException,
        ReadTimeout,
    )
    from paramiko.ssh_exception import BadHostKeyException, SSHException

    from fablint.collect.inventory import Host
    from fablint.collect.runner import classify

    host = Host(name="h", address="10.0.0.1", platform="eos", device_type="arista_eos")

    def wrapped(inner: BaseException) -> BaseException:
        try:
            try:
                raise inner
            except BaseException as exc:
                raise NetmikoTimeoutException("TCP connection to device failed.") from exc
        except NetmikoTimeoutException as outer:
            return outer

    cases = [
        (NetmikoAuthenticationException("Authentication failed. pw=x"), "auth", False),
        (wrapped(ConnectionRefusedError()), "unreachable", True),
        (wrapped(TimeoutError()), "unreachable", True),
        (wrapped(SSHException("Server '[h]:22' not found in known_hosts")),
         "host-key-unknown", False),
        (ReadTimeout("Pattern not detected"), "timeout", True),
        (ReadException("Channel closed by the device."), "disconnected", True),
        (ValueError("Router prompt not found"), "error", False),
    ]
    for exc, kind, retry in cases:
        err = classify(exc, host, "netops", "show running-config")
        assert (err.kind, err.retryable) == (kind, retry), (exc, err.message)
        assert "pw=x" not in err.message
    bad = BadHostKeyException("h", _FakeKey(), _FakeKey())
    assert classify(wrapped(bad), host, "netops", None).kind == "host-key"


class _FakeKey:
    def get_base64(self) -> str:
        return "AAAA"

    def get_name(self) -> str:
        return "ssh-ed25519"


# -- the command line, offline ---------------------------------------------------------------


def test_collect_without_netmiko_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import fablint.collect.runner as runner

    monkeypatch.setattr(runner, "netmiko_available", lambda: False)
    result = CliRunner().invoke(app, ["collect", str(INVENTORIES / "fablint.yaml"),
                                      "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert "pip install 'fablint[collect]'" in result.stderr
    assert not list(tmp_path.iterdir())


def test_collect_dry_run_and_inventory_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    plan = runner.invoke(app, ["collect", str(INVENTORIES / "fablint.yaml"), "--dry-run",
                               "--limit", "sm*", "--limit", "leaf1"])
    assert plan.exit_code == 0, plan.output
    assert "cat /etc/rdma/partitions.conf" in plan.stdout
    assert "leaf1" in plan.stdout and "spine1" not in plan.stdout
    bad = tmp_path / "inv.yaml"
    bad.write_text("hosts:\n  leaf1: {platform: eos, password: hunter2}\n", encoding="utf-8")
    result = runner.invoke(app, ["collect", str(bad)])
    assert result.exit_code == 2 and "hunter2" not in result.output
    none = runner.invoke(app, ["collect", str(INVENTORIES / "fablint.yaml"), "--limit", "zz*"])
    assert none.exit_code == 2 and "no hosts to collect" in none.stderr


def test_manifest_round_trips(tmp_path: Path) -> None:
    record = _record("ok")
    record.commands.append(CommandRecord(command="show running-config", kind="running-config",
                                         file="d/show_running-config.txt", formats=["eos"],
                                         status="ok", sha256="0" * 64, bytes=3))
    write_manifest(tmp_path, Manifest(devices=[record]))
    data = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    assert data["kind"] == "fablint-snapshot" and data["version"] == 1
    assert Manifest.model_validate(data).devices[0].commands[0].sha256 == "0" * 64
    assert os.listdir(tmp_path) == ["manifest.json"]


# -- hostile input ---------------------------------------------------------------------------

@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_any_name_gives_a_plain_folder_name(name: str) -> None:
    folder = folder_name(name)
    assert folder and "/" not in folder and "\\" not in folder and "\x00" not in folder
    assert not folder.startswith(".") and ".." not in folder and len(folder) <= 128


_yaml_scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 70000),
                          st.text(max_size=12), st.sampled_from(["eos", "nxos", "sonic", "!!"]))
_yaml_values = st.recursive(
    _yaml_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.sampled_from(["hosts", "groups", "defaults", "all", "children",
                                         "vars", "platform", "address", "port", "leaf1",
                                         "hostname", "ansible_host", "password", "collect",
                                         "rdma_interfaces", "data", "fablint"]),
                        children, max_size=4)),
    max_leaves=12)


@given(_yaml_values)
@settings(max_examples=200, deadline=None)
def test_inventory_loading_fails_only_with_a_config_error(tmp_path_factory: pytest.TempPathFactory,
                                                          data: object) -> None:
    path = tmp_path_factory.mktemp("inv") / "inventory.yaml"
    path.write_text(json.dumps(data), encoding="utf-8")  # JSON is YAML
    try:
        inventory = load_inventory(path)
    except ConfigError:
        return
    for host in inventory.hosts:
        assert host.platform in ("eos", "nxos", "sonic", "ib-host", "opensm")
        assert 1 <= host.port <= 65535 and folder_name(host.name) == host.folder


def test_a_very_long_device_name_does_not_squeeze_the_summary_table() -> None:
    from rich.console import Console

    from fablint.collect.ui import summary_table

    long_name = "leaf-" + "x" * 295
    records = [_record("failed"), _record("ok")]
    records[0].device, records[0].error_kind, records[0].error = long_name, "auth", "denied"
    table = summary_table(Manifest(devices=records))
    assert table is not None
    console = Console(width=120, record=True, force_terminal=False)
    console.print(table)
    text = console.export_text()
    rows = [line for line in text.splitlines() if "leaf-" in line or "10.0.0.1" in line]
    assert any("…" in line for line in rows), text
    assert "failed" in text and "auth: denied" in text
    assert all(len(line) <= 120 for line in text.splitlines())
    assert long_name not in text
