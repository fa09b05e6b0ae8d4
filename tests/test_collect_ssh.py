"""`fablint collect` against real SSH servers on 127.0.0.1 (tests/sshd.py).

Fake EOS, NX-OS, SONiC and Linux devices speak SSH well enough for netmiko (prompt, echo,
paging until `terminal length 0`); some misbehave: a wrong password, nothing listening, a hang
in the middle of the output, a dropped connection in the middle of a command, a host key that
changed. Each failure must be reported for its device while the others succeed, no half file
may be left, and the password must appear nowhere: not on stdout or stderr, not in the
snapshot, not in the logs.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

pytest.importorskip("netmiko", reason="netmiko (the 'collect' extra) is not installed")
pytest.importorskip("asyncssh", reason="asyncssh (the test SSH server) is not installed")

from fablint.cli import app
from fablint.collect.credentials import Credentials
from fablint.collect.inventory import load_inventory
from fablint.collect.runner import CollectOptions, collect, exit_code
from fablint.collect.snapshot import Manifest, snapshot_folder
from fablint.config import ProjectConfig
from fablint.engine import LintOptions, lint
from fablint.profiles import load_policy
from tests.conftest import FIXTURES, REPO
from tests.sshd import FakeDevice, FakeFabric, host_key, unused_port

PASSWORD = "Pw-7f3a9-Sekr1t!"
EQUIV = FIXTURES / "equivalence"
EOS = (EQUIV / "eos" / "leaf1.cfg").read_text(encoding="utf-8")
NXOS = (EQUIV / "nxos" / "leaf1.cfg").read_text(encoding="utf-8")
SONIC = (EQUIV / "sonic" / "config_db.json").read_text(encoding="utf-8")
EOS_LLDP = "Interface Ethernet1 detected 0 LLDP neighbors:\n"
FAST = ["--connect-timeout", "10", "--command-timeout", "2", "--retries", "1",
        "--backoff", "0.05", "--workers", "8", "--no-agent", "--no-color"]


def _eos(name: str, **kw: Any) -> FakeDevice:
    config = EOS.replace("hostname leaf1", f"hostname {name}")
    return FakeDevice(name, "eos", {"show running-config": config,
                                    "show lldp neighbors detail": EOS_LLDP},
                      password=PASSWORD, **kw)


def _nxos(name: str, **kw: Any) -> FakeDevice:
    config = NXOS.replace("hostname leaf1", f"hostname {name}")
    return FakeDevice(name, "nxos", {"show running-config": config,
                                     "show lldp neighbors detail": ""},
                      password=PASSWORD, **kw)


def _sonic(name: str, **kw: Any) -> FakeDevice:
    config = SONIC.replace('"hostname": "leaf1"', f'"hostname": "{name}"')
    return FakeDevice(name, "sonic", {"show runningconfiguration all": config,
                                      "show lldp neighbors": "Capability codes: (R) Router\n"},
                      username="admin", password=PASSWORD, **kw)


@pytest.fixture(scope="module")
def fabric() -> Iterator[FakeFabric]:
    # The EOS leaf's config carries the password (an SNMP community, say): it must be masked.
    leaf1 = _eos("leaf1")
    # before 'end', where EOS writes it (a line after 'end' is FAB005)
    leaf1.outputs["show running-config"] = leaf1.outputs["show running-config"].replace(
        "\nend\n", f"\nsnmp-server community {PASSWORD} ro\nend\n")
    devices = [
        leaf1, _nxos("leaf2"), _sonic("leaf3"),
        _eos("badpw"),
        _eos("hang", behaviour="hang"),
        _nxos("drop", behaviour="disconnect"),
        _eos("rekeyed", key_index=1),
    ]
    devices[3].password = "not-the-" + "password"
    with FakeFabric(devices) as running:
        yield running


def _write_inventory(fabric: FakeFabric, path: Path, names: list[str],
                     refused: bool = False) -> Path:
    lines = ["defaults:", "  username: netops", "hosts:"]
    for name in names:
        d = fabric.devices[name]
        lines += [f"  {name}:", "    address: 127.0.0.1", f"    port: {d.port}",
                  f"    platform: {d.platform}"]
        if d.username != "netops":
            lines.append(f"    username: {d.username}")
    if refused:
        lines += ["  refused:", "    address: 127.0.0.1", f"    port: {unused_port()}",
                  "    platform: eos"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _known_hosts(fabric: FakeFabric, path: Path) -> Path:
    # Every device as first seen with key 0: "rekeyed" now presents key 1.
    return fabric.known_hosts(path, keys={n: host_key(0) for n in fabric.devices})


def _run(args: list[str], env: dict[str, str] | None = None,
         stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items()
                if not k.startswith(("FABLINT_", "SSH_AUTH_SOCK"))}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "fablint", *args], capture_output=True, text=True,
        env=full_env, input=stdin, timeout=120, cwd=REPO, check=False)


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def _cli(args: list[str], env: dict[str, str] | None = None, stdin: str | None = None) -> Ran:
    """The command in this process (cheaper than a subprocess; output captured all the same)."""
    clean: dict[str, str | None] = {k: None for k in os.environ
                                    if k.startswith(("FABLINT_", "SSH_AUTH_SOCK"))}
    clean.update(env or {})
    result = CliRunner().invoke(app, args, env=clean, input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Ran(result.exit_code, result.stdout, result.stderr)


def _manifest(root: Path) -> dict[str, dict[str, Any]]:
    data = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    return {d["device"]: d for d in data["devices"]}


def _snapshot(out: Path) -> Path:
    (root,) = [p for p in out.iterdir() if p.is_dir()]
    return root


def _all_text(folder: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace")
                     for p in sorted(folder.rglob("*")) if p.is_file())


@pytest.fixture(scope="module")
def mixed_run(fabric: FakeFabric, tmp_path_factory: pytest.TempPathFactory
              ) -> tuple[subprocess.CompletedProcess[str], Path]:
    """One collection over every device, good and bad, in parallel."""
    work = tmp_path_factory.mktemp("mixed")
    inventory = _write_inventory(fabric, work / "inventory.yaml", list(fabric.devices),
                                 refused=True)
    known = _known_hosts(fabric, work / "known_hosts")
    out = work / "out"
    result = _run(["collect", str(inventory), "-o", str(out), "--known-hosts", str(known),
                   *FAST], env={"FABLINT_PASSWORD": PASSWORD})
    return result, _snapshot(out)


def test_good_devices_are_collected_in_full(mixed_run: tuple[Any, Path],
                                            fabric: FakeFabric) -> None:
    result, root = mixed_run
    assert result.stdout.strip() == str(root)
    manifest = _manifest(root)
    for name, command, file in (
        ("leaf1", "show running-config", "show_running-config.txt"),
        ("leaf2", "show running-config", "show_running-config.txt"),
        ("leaf3", "show runningconfiguration all", "show_runningconfiguration_all.txt"),
    ):
        record = manifest[name]
        assert record["status"] == "ok", record
        assert record["attempts"] == 1
        saved = (root / name / file).read_text(encoding="utf-8")
        expected = fabric.devices[name].outputs[command].replace(PASSWORD, "********")
        assert saved.strip() == expected.strip()
        entry = next(c for c in record["commands"] if c["command"] == command)
        assert entry["sha256"] == hashlib.sha256(saved.encode()).hexdigest()
        assert entry["file"] == f"{name}/{file}"
        assert entry["started"] <= entry["finished"]
    # netmiko turned paging off before reading the long config (the server pages otherwise)
    assert fabric.devices["leaf1"].served[:2] == ["terminal width 511", "terminal length 0"]
    assert "show lldp neighbors detail" in fabric.devices["leaf1"].served


@pytest.mark.parametrize(("device", "kind", "attempts", "words"), [
    ("badpw", "auth", 1, "authentication failed for user 'netops'"),
    ("refused", "unreachable", 2, "connection refused"),
    ("hang", "timeout", 2, "no prompt (end of output) for 'show running-config'"),
    ("drop", "disconnected", 2, "closed the connection during 'show running-config'"),
    ("rekeyed", "host-key", 1, "does not match known_hosts"),
])
def test_each_failure_is_reported_for_its_device(
    mixed_run: tuple[Any, Path], device: str, kind: str, attempts: int, words: str
) -> None:
    result, root = mixed_run
    record = _manifest(root)[device]
    assert (record["status"], record["error_kind"]) == ("failed", kind), record
    assert words in record["error"]
    # credentials and host keys are never retried; the network is
    assert record["attempts"] == attempts
    line = next(ln for ln in result.stderr.splitlines() if f" {device} " in f" {ln} ")
    assert "failed" in line and kind in line
    # no half-written output: the device's folder holds nothing (or does not exist)
    folder = root / device
    assert not folder.exists() or not any(folder.iterdir())


def test_mixed_run_exit_code_and_summary(mixed_run: tuple[Any, Path]) -> None:
    result, root = mixed_run
    assert result.returncode == 1, result.stderr  # some devices failed
    assert "collection summary" in result.stderr
    assert "8 device(s)" in result.stderr and "3 ok" in result.stderr
    assert "5 failed" in result.stderr
    assert not list(root.rglob(".*")), "temporary files left behind"
    assert "Traceback" not in result.stderr


def test_the_password_appears_nowhere(mixed_run: tuple[Any, Path]) -> None:
    result, root = mixed_run
    assert PASSWORD not in result.stdout
    assert PASSWORD not in result.stderr
    assert PASSWORD not in _all_text(root)
    # the one place the device printed it, it is masked
    assert "snmp-server community ******** ro" in (
        root / "leaf1" / "show_running-config.txt").read_text(encoding="utf-8")


def test_a_snapshot_lints_like_a_config_repo(mixed_run: tuple[Any, Path]) -> None:
    _, root = mixed_run
    result = lint(LintOptions(paths=[str(root)], config=ProjectConfig(),
                              policy=load_policy("default"), jobs=1, keep_devices=True))
    assert not result.errors
    formats = {Path(i.path).relative_to(root).as_posix(): i.format
               for i in result.fabric.inputs}
    assert formats["leaf1/show_running-config.txt"] == "eos"
    assert formats["leaf2/show_running-config.txt"] == "nxos"
    assert formats["leaf3/show_runningconfiguration_all.txt"] == "sonic"
    assert "manifest.json" not in formats
    assert sorted(result.fabric.devices) == ["leaf1", "leaf2", "leaf3"]
    # the fake SONiC `show lldp neighbors` is only the capability legend, no LLDP layout the
    # sonic-lldp parser reads: left out quietly, neither an error nor an "unsupported file"
    assert "leaf3/show_lldp_neighbors.txt" not in formats
    assert not [f for f in result.findings if f.rule == "FAB002"]
    assert result.findings == [] and result.exit_code == 0


def test_a_fresh_snapshot_renders_as_the_html_report(mixed_run: tuple[Any, Path],
                                                     tmp_path: Path) -> None:
    """``fablint report`` on what ``fablint collect`` just saved: a section per collected
    device (named as the manifest names it) with its vendor, and the password (planted in
    leaf1's SNMP community) nowhere in the HTML."""
    _, root = mixed_run
    out = tmp_path / "fabric.html"
    result = _cli(["report", str(root), "--output", str(out)])
    assert result.returncode == 0, result.stderr
    page = out.read_text(encoding="utf-8")
    for device, vendor in (("leaf1", "eos"), ("leaf2", "nxos"), ("leaf3", "sonic")):
        assert f'<details class="devsec" id="dev-{device}"><summary>{device} ' \
            f'<span class="muted">{vendor}' in page
    assert PASSWORD not in page
    assert "badpw" not in page and "manifest.json" not in page  # failed devices: no files


def test_collect_and_lint_in_one_go(fabric: FakeFabric, tmp_path: Path) -> None:
    inventory = _write_inventory(fabric, tmp_path / "inv.yaml", ["leaf1", "leaf2", "leaf3"])
    known = _known_hosts(fabric, tmp_path / "known_hosts")
    result = _cli(["collect", str(inventory), "-o", str(tmp_path / "out"), "--known-hosts",
                   str(known), "--lint", *FAST], env={"FABLINT_PASSWORD": PASSWORD})
    assert result.returncode == 0, result.stderr
    assert "3 devices in" in result.stdout and "no problems found" in result.stdout
    assert "3 ok" in result.stderr
    assert PASSWORD not in result.stdout + result.stderr


def test_nothing_collected_exits_2(fabric: FakeFabric, tmp_path: Path) -> None:
    inventory = _write_inventory(fabric, tmp_path / "inv.yaml", ["badpw", "rekeyed"])
    known = _known_hosts(fabric, tmp_path / "known_hosts")
    result = _cli(["collect", str(inventory), "-o", str(tmp_path / "out"), "--known-hosts",
                   str(known), *FAST], env={"FABLINT_PASSWORD": PASSWORD})
    assert result.returncode == 2
    assert "2 failed" in result.stderr


def test_unknown_host_keys_are_refused_unless_explicitly_accepted(
    fabric: FakeFabric, tmp_path: Path
) -> None:
    inventory = _write_inventory(fabric, tmp_path / "inv.yaml", ["leaf2", "rekeyed"])
    empty = tmp_path / "known_hosts"
    empty.write_text("", encoding="utf-8")
    base = ["collect", str(inventory), "--known-hosts", str(empty), *FAST]
    strict = _cli([*base, "-o", str(tmp_path / "a")], env={"FABLINT_PASSWORD": PASSWORD})
    assert strict.returncode == 2
    records = _manifest(_snapshot(tmp_path / "a"))
    assert {r["error_kind"] for r in records.values()} == {"host-key-unknown"}
    assert "--insecure-accept-host-keys" in records["leaf2"]["error"]
    lab = _cli([*base, "-o", str(tmp_path / "b"), "--insecure-accept-host-keys"],
               env={"FABLINT_PASSWORD": PASSWORD})
    assert lab.returncode == 0, lab.stderr
    # insecure mode accepts keys it does not know, never one that contradicts known_hosts
    known = _known_hosts(fabric, tmp_path / "known_hosts2")
    changed = _cli(["collect", str(inventory), "--known-hosts", str(known), *FAST,
                    "-o", str(tmp_path / "c"), "--insecure-accept-host-keys"],
                   env={"FABLINT_PASSWORD": PASSWORD})
    assert changed.returncode == 1
    assert _manifest(_snapshot(tmp_path / "c"))["rekeyed"]["error_kind"] == "host-key"


def test_key_authentication_without_any_password(tmp_path: Path) -> None:
    import asyncssh

    key = asyncssh.generate_private_key("ssh-ed25519")
    key_file = tmp_path / "id_ed25519"
    key_file.write_bytes(key.export_private_key())
    key_file.chmod(0o600)
    device = _eos("keyleaf")
    device.password = None
    device.authorized_key = key.export_public_key().decode()
    with FakeFabric([device]) as running:
        inventory = _write_inventory(running, tmp_path / "inv.yaml", ["keyleaf"])
        known = running.known_hosts(tmp_path / "known_hosts")
        result = _cli(["collect", str(inventory), "-o", str(tmp_path / "out"),
                       "--known-hosts", str(known), "--key-file", str(key_file), *FAST])
    assert result.returncode == 0, result.stderr
    root = _snapshot(tmp_path / "out")
    assert (root / "keyleaf" / "show_running-config.txt").is_file()


def test_linux_hosts_collect_ib_discovery_host_qos_and_opensm(tmp_path: Path) -> None:
    ib = FakeDevice("gpu01", "linux", {
        "ibnetdiscover": "#\n# Topology file: generated on Tue Nov 24 2026\n#\n",
        "iblinkinfo": "CA: gpu01 mlx5_0:\n",
        # one real interface, one name no interface can have (never used in a command)
        'for d in /sys/class/infiniband/*/device/net/*; do [ -e "$d" ] && echo "${d##*/}"; '
        "done": "ens1f0np0\nbad;rm -rf /\n",
        "mlnx_qos -i ens1f0np0": "DCBX mode: OS controlled\nPriority trust state: dscp\n",
        "grep -r . /sys/class/net/ens1f0np0/ecn/":
            "/sys/class/net/ens1f0np0/ecn/roce_np/enable/3:1\n",
    }, username="netops", password=PASSWORD)
    sm = FakeDevice("sm01", "linux", {
        "cat /etc/opensm/opensm.conf": "qos TRUE\n",
        "cat /opt/sm/partitions.conf": "Default=0x7fff, ipoib : ALL=full;\n",
    }, username="netops", password=PASSWORD)
    with FakeFabric([ib, sm]) as running:
        inventory = tmp_path / "inv.yaml"
        inventory.write_text(
            "hosts:\n"
            f"  gpu01: {{address: 127.0.0.1, port: {ib.port}, platform: ib-host,"
            " host_qos: true, username: netops}\n"
            f"  sm01: {{address: 127.0.0.1, port: {sm.port}, platform: opensm,"
            " partitions_conf: /opt/sm/partitions.conf, username: netops}\n",
            encoding="utf-8")
        known = running.known_hosts(tmp_path / "known_hosts")
        result = _cli(["collect", str(inventory), "-o", str(tmp_path / "out"),
                       "--known-hosts", str(known), *FAST], env={"FABLINT_PASSWORD": PASSWORD})
    assert result.returncode == 0, result.stderr
    root = _snapshot(tmp_path / "out")
    assert sorted(p.name for p in (root / "gpu01").iterdir()) == [
        "ecn_sysfs_ens1f0np0.txt", "iblinkinfo.txt", "ibnetdiscover.txt",
        "mlnx_qos_ens1f0np0.txt"]
    assert sorted(p.name for p in (root / "sm01").iterdir()) == [
        "opensm.conf.txt", "partitions.conf.txt"]
    record = _manifest(root)["gpu01"]
    assert record["rdma_interfaces"] == ["ens1f0np0"]
    assert record["notes"] == [
        "ignored 1 RDMA interface name(s) that are not plain interface names"]
    assert not any("rm -rf" in c for c in ib.served if c != ib.served[2])


def test_a_device_name_cannot_write_outside_the_snapshot(fabric: FakeFabric,
                                                        tmp_path: Path) -> None:
    d = fabric.devices["leaf2"]
    inventory = tmp_path / "inv.yaml"
    inventory.write_text(
        "hosts:\n"
        f"  '../../escaped':\n    address: 127.0.0.1\n    port: {d.port}\n"
        "    platform: nxos\n    username: netops\n", encoding="utf-8")
    known = _known_hosts(fabric, tmp_path / "known_hosts")
    out = tmp_path / "deep" / "out"
    result = _cli(["collect", str(inventory), "-o", str(out), "--known-hosts", str(known),
                   *FAST], env={"FABLINT_PASSWORD": PASSWORD})
    assert result.returncode == 0, result.stderr
    root = _snapshot(out)
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix == ".txt"]
    assert written and all(root in p.parents for p in written)
    record = _manifest(root)["../../escaped"]
    assert "/" not in record["folder"] and not record["folder"].startswith(".")


def test_passwords_never_reach_logs_in_process(fabric: FakeFabric, tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    caplog.set_level(logging.DEBUG)
    inventory = load_inventory(_write_inventory(fabric, tmp_path / "inv.yaml",
                                                ["badpw", "leaf1"]))
    known = _known_hosts(fabric, tmp_path / "known_hosts")
    root = snapshot_folder(tmp_path / "out")
    options = CollectOptions(workers=2, connect_timeout=4, command_timeout=1.5, retries=0,
                             known_hosts=known)
    manifest = collect(inventory.hosts, Credentials(password=PASSWORD, use_agent=False),
                       options, root)
    assert exit_code(manifest) == 1
    assert Manifest.model_validate_json((root / "manifest.json").read_text()).summary()[
        "ok"] == 1
    captured = capsys.readouterr()
    assert PASSWORD not in caplog.text + captured.out + captured.err
    assert "Pw-" not in repr(Credentials(password=PASSWORD))


def test_password_is_never_an_argument() -> None:
    result = _cli(["collect", "--help"])
    assert result.returncode == 0
    assert "--password-env" in result.stdout and "--ask-password" in result.stdout
    assert "--password " not in result.stdout and "--password\n" not in result.stdout
    prompt = _cli(["collect", str(REPO / "fixtures" / "inventory" / "fablint.yaml"),
                   "--ask-password", "-o", "/nonexistent/never"], stdin="")
    assert prompt.returncode == 2
    assert "--ask-password needs a terminal" in prompt.stderr


def test_an_interrupted_collection_keeps_what_it_saved(fabric: FakeFabric,
                                                      tmp_path: Path) -> None:
    """Ctrl-C: the finished device stays, the hung one is cut at once (not after its long
    command timeout), the manifest says so, and no half file is left."""
    import time

    inventory = load_inventory(_write_inventory(fabric, tmp_path / "inv.yaml",
                                                ["leaf1", "hang"]))
    root = snapshot_folder(tmp_path / "out")

    class CtrlC:
        def started(self, total: int) -> None: ...
        def device_status(self, device: str, status: str) -> None: ...
        def tick(self) -> None: ...

        def device_done(self, record: Any) -> None:
            raise KeyboardInterrupt

    options = CollectOptions(workers=2, connect_timeout=10, command_timeout=60, retries=0,
                             known_hosts=_known_hosts(fabric, tmp_path / "known_hosts"))
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        collect(inventory.hosts, Credentials(password=PASSWORD, use_agent=False), options,
                root, observer=CtrlC())
    assert time.monotonic() - start < 20
    records = _manifest(root)
    assert records["leaf1"]["status"] == "ok"
    assert records["hang"]["status"] == "cancelled"
    assert records["hang"]["commands"][0]["status"] != "ok"
    assert not (root / "hang").exists()
    assert not list(root.rglob(".*"))


def test_the_password_admin_does_not_rewrite_device_data(tmp_path: Path) -> None:
    """Password ``admin`` against a SONiC device whose data says ``admin_status`` everywhere:
    the saved output is the device's, byte for byte, except the one field where the device
    echoes the credential; the snapshot lints exactly like the configuration itself."""
    original = (FIXTURES / "demo" / "leaf4" / "config_db.json").read_text(encoding="utf-8")
    config = original.replace('{\n', '{\n    "TACPLUS": {"global": {"passkey": "admin"}},\n', 1)
    assert config.count("admin_status") >= 4
    device = FakeDevice("leaf4", "sonic", {"show runningconfiguration all": config,
                                           "show lldp neighbors": ""},
                        username="admin", password="admin")
    with FakeFabric([device]) as running:
        inventory = _write_inventory(running, tmp_path / "inv.yaml", ["leaf4"])
        known = running.known_hosts(tmp_path / "known_hosts")
        result = _cli(["collect", str(inventory), "-o", str(tmp_path / "out"),
                       "--known-hosts", str(known), *FAST], env={"FABLINT_PASSWORD": "admin"})
    assert result.returncode == 0, result.stderr
    root = _snapshot(tmp_path / "out")
    saved = (root / "leaf4" / "show_runningconfiguration_all.txt").read_text(encoding="utf-8")
    assert "********_status" not in saved
    assert saved.rstrip("\n") == config.replace('"passkey": "admin"', '"passkey": "********"'
                                                ).rstrip("\n")
    (tmp_path / "direct").mkdir()
    (tmp_path / "direct" / "config_db.json").write_text(original, encoding="utf-8")
    rules = {}
    for name, path in (("snapshot", root), ("config", tmp_path / "direct")):
        linted = lint(LintOptions(paths=[str(path)], config=ProjectConfig(),
                                  policy=load_policy("default"), jobs=1))
        rules[name] = sorted(f.rule for f in linted.findings)
    assert {"PFC001", "QOS001"} <= set(rules["config"])
    assert rules["snapshot"] == rules["config"]
