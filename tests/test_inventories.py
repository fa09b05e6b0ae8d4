"""Inventories teams already have: Ansible YAML and INI with group_vars/ and host_vars/, and
ANTA's. One fleet, written each way, loads to the same devices."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fablint.collect.inventory import ini_to_yaml_shape, load_inventory
from fablint.yamlio import ConfigError
from tests.conftest import FIXTURES

INVENTORIES = FIXTURES / "inventory"


def _fleet(path: Path) -> list[tuple[str, str, str, int, str | None, str | None]]:
    return sorted((h.name, h.address, h.platform, h.port, h.username, h.key_file)
                  for h in load_inventory(path).hosts)


@pytest.fixture(autouse=True)
def _no_ansible(monkeypatch: pytest.MonkeyPatch) -> None:
    """The built-in INI reader, whether or not Ansible is installed here."""
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)


def test_ini_inventory_with_group_and_host_vars_is_the_yaml_fleet() -> None:
    yaml_fleet = _fleet(INVENTORIES / "ansible.yaml")
    assert len(yaml_fleet) == 6
    assert _fleet(INVENTORIES / "ansible-ini" / "hosts.ini") == yaml_fleet


def test_ini_groups_take_their_parents_vars_and_vault_passwords_are_ignored() -> None:
    inventory = load_inventory(INVENTORIES / "ansible-ini" / "hosts.ini")
    spine = next(h for h in inventory.hosts if h.name == "spine1")
    assert spine.groups == ("fabric", "spines")
    assert any("ansible_password" in w and "vault.yml" in w for w in inventory.warnings)
    assert any("bastion" in w for w in inventory.warnings)  # no platform: skipped, said so


def test_group_vars_files_override_inline_group_vars_and_host_vars_the_host_line(
        tmp_path: Path) -> None:
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "host_vars").mkdir()
    (tmp_path / "inv.yml").write_text(
        "all:\n  children:\n    leaves:\n      vars:\n        ansible_network_os: eos\n"
        "        ansible_user: inline\n      hosts:\n        leaf1:\n          ansible_port: 22\n"
        "        leaf2:\n", encoding="utf-8")
    (tmp_path / "group_vars" / "leaves.yaml").write_text("ansible_user: from-group-vars\n")
    (tmp_path / "host_vars" / "leaf1.yml").write_text("ansible_port: 8022\n")
    hosts = {h.name: h for h in load_inventory(tmp_path / "inv.yml").hosts}
    assert hosts["leaf1"].username == hosts["leaf2"].username == "from-group-vars"
    assert (hosts["leaf1"].port, hosts["leaf2"].port) == (8022, 22)


def test_anta_inventory_lists_eos_hosts_and_says_what_it_skipped() -> None:
    inventory = load_inventory(INVENTORIES / "anta.yaml")
    assert inventory.format == "anta"
    assert [(h.name, h.address, h.platform, h.groups) for h in inventory.hosts] == [
        ("leaf01", "10.0.1.1", "eos", ("leaves",)), ("leaf02", "10.0.1.2", "eos", ("leaves",)),
        ("leaf03", "10.0.1.3", "eos", ("leaves",))]
    assert any("networks" in w for w in inventory.warnings)


def test_ini_reader_handles_quotes_comments_and_ungrouped_hosts(tmp_path: Path) -> None:
    text = ("# comment\nsw0 ansible_network_os=eos\n[a]\nsw1 ansible_user='ops team' # c\n"
            "; semicolon comment\n[a:vars]\nansible_network_os = nxos\n")
    shaped = ini_to_yaml_shape(text, tmp_path / "x.ini")
    assert shaped["ungrouped"]["hosts"] == {"sw0": {"ansible_network_os": "eos"}}
    assert shaped["a"]["hosts"] == {"sw1": {"ansible_user": "ops team"}}
    assert shaped["a"]["vars"] == {"ansible_network_os": "nxos"}
    bad = tmp_path / "bad.ini"
    bad.write_text("[g]\nsw1 ansible_user='unterminated\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.ini:2"):
        load_inventory(bad)
