"""No secret an input holds reaches any output: every report format, --output files, baselines,
``parse``, ``drift`` (3 formats), ``topo`` (every format), a collection's manifest and output.

Every kind of secret of each vendor is planted in the demo fabric, beside its real faults
(which must still be reported), including the reproducer of issue 16: a SONiC file with a
duplicate ``SNMP_COMMUNITY`` key, whose FAB001 message quoted the community string.
"""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fablint.cli import app
from fablint.redact import _index_of, _mask, find_secrets, mask_credential, scrub
from tests.conftest import CORPUS, FIXTURES

DEMO = FIXTURES / "demo"

EOS_SECRETS = {
    "username ops privilege 15 secret 0 EosUserPw-31": "EosUserPw-31",
    "username ro2 secret sha512 $6$salt$EosHashedSecret": "$6$salt$EosHashedSecret",
    "enable password 0 EosEnablePw4": "EosEnablePw4",
    "snmp-server community EosCommRo5 ro": "EosCommRo5",
    "snmp-server community EosCommRw6 view all rw SNMP-ACL": "EosCommRw6",
    "snmp-server host 10.9.9.9 vrf MGMT version 2c EosTrapComm7": "EosTrapComm7",
    "snmp-server user mon network-admin v3 auth sha EosAuthPw8 priv aes EosPrivPw9":
        "EosAuthPw8 EosPrivPw9",
    "tacacs-server key 7 EosTacKey10": "EosTacKey10",
    "tacacs-server host 10.1.1.1 key 7 EosTacHostKey11": "EosTacHostKey11",
    "radius-server key 7 EosRadKey12": "EosRadKey12",
    "radius-server host 10.2.2.2 key EosRadHostKey13": "EosRadHostKey13",
    "router bgp 65101\n   neighbor 10.0.0.99 password 7 EosBgpPw14": "EosBgpPw14",
}
NXOS_SECRETS = {
    "username ops password 5 $5$NxSalt$NxHashedPw21 role network-admin": "$5$NxSalt$NxHashedPw21",
    "snmp-server user mon network-admin auth md5 0xNxAuth22 priv 0xNxPriv23 localizedkey":
        "0xNxAuth22 0xNxPriv23",
    "snmp-server community NxComm24 group network-operator": "NxComm24",
    "snmp-server host 10.9.9.9 traps version 2c NxTrapComm25 udp-port 162": "NxTrapComm25",
    'tacacs-server key 7 "NxTacKey26"': "NxTacKey26",
    'tacacs-server host 10.1.1.1 key 7 "NxTacHostKey27"': "NxTacHostKey27",
    'radius-server host 10.2.2.2 key 7 "NxRadKey28" authentication accounting': "NxRadKey28",
    "key chain KC1\n  key 1\n    key-string 7 NxKeyString29": "NxKeyString29",
    "router bgp 65103\n  neighbor 10.0.0.99\n    remote-as 65000\n    password 3 NxBgpPw30":
        "NxBgpPw30",
}
SONIC_COMMUNITY = "Sonic&Comm<41>%x"
SONIC_TABLES = {
    "SNMP_COMMUNITY": f'{{"{SONIC_COMMUNITY}": {{"TYPE": "RO"}}, '
                      f'"{SONIC_COMMUNITY}": {{"TYPE": "RW"}}}}',
    "TACPLUS": '{"global": {"auth_type": "pap", "passkey": "SonicTacPass42"}}',
    "TACPLUS_SERVER": '{"10.1.1.1": {"priority": "1", "passkey": "SonicTacSrv43"}}',
    "RADIUS": '{"global": {"passkey": "SonicRadPass44"}}',
    "RADIUS_SERVER": '{"10.2.2.2": {"passkey": "SonicRadSrv45"}}',
    "SNMP_USER": '{"mon": {"SNMP_USER_AUTH_PASSWORD": "SonicSnmpAuth46", '
                 '"SNMP_USER_ENCRYPTION_PASSWORD": "SonicSnmpEnc47"}}',
    "BGP_NEIGHBOR": '{"10.0.0.99": {"asn": "65000", "password": "SonicBgpPw48"}}',
}
SONIC_SECRETS = [SONIC_COMMUNITY, "SonicTacPass42", "SonicTacSrv43", "SonicRadPass44",
                 "SonicRadSrv45", "SonicSnmpAuth46", "SonicSnmpEnc47", "SonicBgpPw48"]
ALL_SECRETS = sorted({s for v in (*EOS_SECRETS.values(), *NXOS_SECRETS.values())
                      for s in v.split()} | set(SONIC_SECRETS) | {"$6$demo$notarealhash"})
DEMO_FAULTS = {"MTU001", "ACL001", "PFC003", "PFC001", "QOS001", "ECN003"}


def _spellings(secret: str) -> set[str]:
    return {secret, json.dumps(secret)[1:-1], html.escape(secret), html.escape(secret, False),
            secret.replace("%", "%25")}


def _plant(folder: Path) -> Path:
    """The demo fabric with every kind of secret planted in each vendor's configuration."""
    shutil.copytree(DEMO, folder)
    for name in ("leaf1.cfg", "leaf2.cfg", "spine1.cfg"):
        path = folder / name
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("!\nhostname", "!\n" + "\n!\n".join(EOS_SECRETS)
                                     + "\n!\nhostname", 1), encoding="utf-8")
    path = folder / "leaf3.cfg"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("\nfeature bgp\n", "\n" + "\n".join(NXOS_SECRETS)
                                 + "\nfeature bgp\n", 1), encoding="utf-8")
    path = folder / "leaf4" / "config_db.json"
    text = path.read_text(encoding="utf-8")
    tables = "".join(f'    "{k}": {v},\n' for k, v in SONIC_TABLES.items())
    path.write_text(text.replace("{\n", "{\n" + tables, 1), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _plant(tmp_path_factory.mktemp("secrets") / "demo")


def _assert_clean(text: str, where: str) -> None:
    leaked = [s for s in ALL_SECRETS for spelling in _spellings(s) if spelling in text]
    assert not leaked, f"{where} shows {leaked}"


def test_every_planted_secret_is_found(planted: Path) -> None:
    found = set()
    for path in planted.rglob("*"):
        if path.is_file():
            found.update(find_secrets(path.read_text(encoding="utf-8")))
    assert set(ALL_SECRETS) <= found, set(ALL_SECRETS) - found


def test_the_duplicate_snmp_community_is_masked_in_every_format(planted: Path,
                                                                tmp_path: Path) -> None:
    runner = CliRunner()
    for fmt in ("text", "json", "sarif", "junit", "github"):
        result = runner.invoke(app, ["lint", str(planted), "-f", fmt, "--no-color"])
        assert result.exit_code == 2, result.output  # the duplicate key is a parse error
        assert "FAB001" in result.stdout and "SNMP_COMMUNITY" in result.stdout
        _assert_clean(result.stdout + result.stderr, f"lint -f {fmt}")
        for rule in DEMO_FAULTS:
            assert rule in result.stdout, f"{rule} missing from -f {fmt}"
        target = tmp_path / f"report.{fmt}"
        result = runner.invoke(app, ["lint", str(planted), "-f", fmt, "-o", str(target)])
        _assert_clean(target.read_text(encoding="utf-8") + result.stdout + result.stderr,
                      f"lint -f {fmt} -o")
        assert "FAB001" in target.read_text(encoding="utf-8")
    baseline = tmp_path / "baseline.json"
    runner.invoke(app, ["lint", str(planted), "--write-baseline", str(baseline)])
    _assert_clean(baseline.read_text(encoding="utf-8"), "baseline")
    result = runner.invoke(app, ["lint", str(planted), "--baseline", str(baseline)])
    assert "0 problems" in result.stdout or "no problems" in result.stdout, result.stdout


def test_parse_output_shows_no_secret(planted: Path) -> None:
    for path in (planted / "leaf1.cfg", planted / "leaf3.cfg", planted / "leaf4" /
                 "config_db.json"):
        result = CliRunner().invoke(app, ["parse", str(path)])
        assert result.stdout.lstrip().startswith("{")
        _assert_clean(result.stdout + result.stderr, f"parse {path.name}")


def test_drift_shows_no_secret(planted: Path, tmp_path: Path) -> None:
    live = tmp_path / "live"
    shutil.copytree(planted, live)
    leaf1 = live / "leaf1.cfg"
    leaf1.write_text(leaf1.read_text(encoding="utf-8").replace("mtu 9214", "mtu 9000"),
                     encoding="utf-8")
    for fmt in ("text", "json", "markdown"):
        result = CliRunner().invoke(app, ["drift", str(planted), str(live), "-f", fmt])
        assert result.exit_code in (1, 2), result.output
        assert "leaf1" in result.stdout
        _assert_clean(result.stdout + result.stderr, f"drift -f {fmt}")


def test_topo_shows_no_secret(planted: Path, tmp_path: Path) -> None:
    for fmt in ("text", "json", "mermaid", "svg"):
        result = CliRunner().invoke(app, ["topo", str(planted), "-f", fmt])
        assert result.stdout, result.output
        _assert_clean(result.stdout + result.stderr, f"topo -f {fmt}")
        target = tmp_path / f"topo.{fmt}"
        CliRunner().invoke(app, ["topo", str(planted), "-f", fmt, "-o", str(target)])
        _assert_clean(target.read_text(encoding="utf-8"), f"topo -f {fmt} -o")


def test_collect_dry_run_shows_no_inventory_secret(tmp_path: Path) -> None:
    inventory = tmp_path / "hosts.yaml"
    inventory.write_text(
        "all:\n  vars:\n    ansible_password: InvSecretPw51\n    ansible_become_pass: "
        "InvBecome52\n  hosts:\n    leaf1:\n      ansible_host: 10.0.0.1\n"
        "      ansible_network_os: arista.eos.eos\n      ansible_ssh_pass: InvSshPass53\n",
        encoding="utf-8")
    result = CliRunner().invoke(app, ["collect", "--dry-run", str(inventory)])
    assert result.exit_code == 0, result.output
    assert "leaf1" in result.stdout + result.stderr
    for secret in ("InvSecretPw51", "InvBecome52", "InvSshPass53"):
        assert secret not in result.stdout + result.stderr


def test_scrub_masks_whole_tokens_only() -> None:
    assert scrub("community 'PubComm1' and PubComm12 and xPubComm1",
                 ["PubComm1"]) == "community '********' and PubComm12 and xPubComm1"
    assert scrub("a b", []) == "a b"
    assert scrub("use abc here", ["abc"]) == "use abc here", "too short to be told apart"
    # a file named after the community it holds keeps its path (every report points at it)
    assert scrub("/corpus/nxos/msft-sdn-n3132-tor1.cfg:265 tor1-msft.cfg msft.cfg", ["msft"]) \
        == "/corpus/nxos/msft-sdn-n3132-tor1.cfg:265 tor1-msft.cfg msft.cfg"
    assert scrub("community msft. Key 'msft', msft-", ["msft"]) == \
        "community ********. Key '********', ********-"


def test_a_file_named_after_its_secret_keeps_its_path_in_the_reports(tmp_path: Path) -> None:
    """The shared corpus's msft-sdn-n3132-tor1.cfg holds the SNMP community ``msft``: the
    community stays masked, the file name is not garbled in any finding."""
    source = CORPUS / "nxos" / "msft-sdn-n3132-tor1.cfg"
    if not source.is_file():
        pytest.skip("the shared corpus is not here")
    config = tmp_path / source.name
    shutil.copy(source, config)
    for fmt in ("json", "sarif", "github"):
        result = CliRunner().invoke(app, ["lint", str(config), "-f", fmt])
        assert result.stdout.count(config.name) >= 3, result.stdout[:400]
        assert "********-sdn" not in result.stdout
        assert scrub(result.stdout, ["msft"]) == result.stdout  # no secret token left


@pytest.mark.parametrize(("line", "masked"), [
    ('        "admin_status": "up",\n', False),
    ('    "passkey": "admin",\n', True),
    ("Password: admin\n", True),
    ("username admin secret 0 admin\n", True),
    ("description admin uplink\n", False),
])
def test_the_collector_masks_a_credential_only_where_it_is_one(line: str, masked: bool) -> None:
    out = mask_credential(line, "admin")
    assert ("********" in out) is masked
    if not masked:
        assert out == line


_SECRET_ALPHABET = "ab1$-._ \u00a0"
_secrets = st.lists(st.text(_SECRET_ALPHABET, min_size=4, max_size=8), min_size=1, max_size=4)


@settings(max_examples=400, deadline=None)
@given(_secrets, st.data())
def test_scrub_masks_what_a_walk_over_every_place_masks(secrets: list[str],
                                                         data: st.DataObject) -> None:
    """scrub's look at the distinct words first (``_may_hold``) changes no answer: the same
    text as visiting every place where a token may begin (``_mask``), secrets with spaces,
    hyphens and dots, next to and inside words, included."""
    pieces = st.sampled_from([*secrets, *(s[:5] for s in secrets), *(s[1:] for s in secrets),
                              "a", "1", "-", ".", "_", " ", "\n", "\t", "\u00a0", "\u2003", '"',
                              "x-", "y.", "$"])
    text = "".join(data.draw(st.lists(pieces, max_size=30)))
    assert scrub(text, secrets) == _mask(text, _index_of(secrets))


def test_a_report_without_secrets_is_returned_as_it_is() -> None:
    secrets = ["$6$9abcdef", "0x8c9d0e1f"]
    text = '{\n  "message": "leaf-1 Ethernet1 $6$ 0x8 x$6$9abcdef"\n}\n'
    assert scrub(text, secrets) is text
    assert scrub(text + " $6$9abcdef.", secrets).endswith(" ********.")
