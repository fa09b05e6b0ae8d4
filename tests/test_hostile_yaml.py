"""Hostile YAML: alias bombs, recursive aliases, deep nesting and foreign tags are refused, with
the file and line named, in every kind of YAML fablint reads, and fast under a memory limit."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from fablint.yamlio import ConfigError, load_yaml_nodes, load_yaml_text

ROOT = Path(__file__).resolve().parents[1]
MEMORY_LIMIT = 1024 * 1024 * 1024  # far above fablint's needs, far below a bomb's


def _laughs(levels: int = 9) -> str:
    """The "billion laughs": nine levels of nine aliases (9**9 strings) in a few hundred bytes."""
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        refs = ",".join([f"*l{level - 1}"] * 9)
        lines.append(f"l{level}: &l{level} [{refs}]")
    return "\n".join(lines) + "\n"


BOMB = _laughs()


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "fablint", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60, preexec_fn=_limited)


def test_the_bomb_is_small() -> None:
    assert len(BOMB.encode()) < 1024


def _nested(text: str, key: str) -> str:
    """``text`` (top-level mappings) indented under ``key``."""
    return f"{key}:\n" + "".join(f"  {line}\n" for line in text.splitlines())


KINDS = {
    # kind: (file name, content, command line with {f} for the file)
    "fablint.yaml": ("fablint.yaml", BOMB, ["lint", "-c", "{f}", "good.cfg"]),
    "profile": ("profile.yaml", "extends: default\n" + BOMB,
                ["lint", "--profile", "{f}", "good.cfg"]),
    "host facts": ("gpu01.yaml", "fablint-host: 1\nhost: gpu01\n" + BOMB, ["lint", "{f}"]),
    "intent": ("intent.yaml", "fablint-topology: 1\n" + BOMB,
               ["lint", "--intent", "{f}", "good.cfg"]),
    "inventory (fablint)": ("inv.yaml", "hosts:\n  leaf1: {address: 10.0.0.1}\n"
                            + "defaults:\n  " + _nested(BOMB, "vars").replace("\n", "\n  "),
                            ["collect", "--dry-run", "{f}"]),
    "inventory (Ansible)": ("ansible.yaml",
                            "all:\n  hosts:\n    leaf1:\n  " + _nested(BOMB, "vars")
                            .replace("\n", "\n  "), ["collect", "--dry-run", "{f}"]),
    "inventory (Ansible, aliased groups)": (
        "ansible2.yaml",
        BOMB.replace("l0: &l0", "x0: &l0") + "all:\n  children:\n    g: {hosts: {leaf1: *l8}}\n",
        ["collect", "--dry-run", "--inventory-format", "ansible", "{f}"]),
    "inventory (Nornir)": ("hosts.yaml", "leaf1:\n  hostname: 10.0.0.1\n  "
                           + _nested(BOMB, "data").replace("\n", "\n  "),
                           ["collect", "--dry-run", "{f}"]),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_an_alias_bomb_fails_fast_naming_the_file_and_line(kind: str, tmp_path: Path) -> None:
    name, content, args = KINDS[kind]
    (tmp_path / "good.cfg").write_text("hostname leaf1\n", encoding="utf-8")
    target = tmp_path / name
    target.write_text(content, encoding="utf-8")
    result = _run([a.replace("{f}", name) for a in args], tmp_path)
    assert "Traceback" not in result.stderr
    assert "MemoryError" not in result.stderr + result.stdout
    assert result.returncode == 2, result.stderr
    assert name in result.stderr + result.stdout
    assert "alias *l" in result.stderr + result.stdout


@pytest.mark.parametrize("text, message", [
    ("a: &a [*a]\n", "refers to the node that contains it"),
    ("a: &a {b: *a}\n", "refers to the node that contains it"),
    ("a: " + "[" * 500 + "]" * 500 + "\n", "nested more than"),
    ("a: !!python/object/apply:os.system [ls]\n", "!!python/object/apply:os.system"),
    ("a: !!python/name:os.system ''\n", "!!python/name:os.system"),
    ("a: !custom 1\n", "!custom"),
    ("a: !!binary aGVsbG8=\n", "!!binary"),
    ("a: 1\nb: !!set {x: null}\n", "!!set"),
])
def test_refused_yaml_names_file_and_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_yaml_text(text, "x.yaml")
    assert str(caught.value).startswith("x.yaml:")
    assert message in str(caught.value)
    line = str(caught.value).split(":")[1]
    assert line.isdigit() and int(line) == text.count("\n", 0, text.index(message[:2])
                                                        if message[:2] in text else 0) + 1


def test_plain_aliases_and_merges_still_work() -> None:
    text = ("base: &base {mtu: 9214, pfc: [3, 4]}\nleaf: {<<: *base, mtu: 9000}\n"
            "spine: *base\nwhen: 2024-01-01\n")
    data, _ = load_yaml_text(text, "x.yaml")
    assert data["leaf"] == {"mtu": 9000, "pfc": [3, 4]}
    assert data["spine"] == {"mtu": 9214, "pfc": [3, 4]}


def test_a_big_honest_document_with_aliases_is_read() -> None:
    """The alias allowance grows with the document: a long list repeating one anchor is fine."""
    text = "x: &x {a: 1, b: 2}\nitems:\n" + "".join(f"  - {{n: {i}, v: *x}}\n"
                                                     for i in range(20_000))
    data, _ = load_yaml_text(text, "x.yaml")
    assert len(data["items"]) == 20_000


def test_inventories_keep_ansible_vault_tags() -> None:
    node = load_yaml_nodes("p: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  3031\n", "i.yaml",
                           ("!vault",))
    assert "p" in node
    with pytest.raises(ConfigError, match="!vault"):
        load_yaml_text("p: !vault abc\n", "x.yaml")


def test_python_tag_in_fablint_yaml_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "fablint.yaml").write_text("profile: !!python/object:os.system ls\n",
                                           encoding="utf-8")
    (tmp_path / "good.cfg").write_text("hostname leaf1\n", encoding="utf-8")
    result = _run(["lint", "good.cfg"], tmp_path)
    assert result.returncode == 2
    assert "fablint.yaml:1:" in result.stderr
    assert "!!python/object:os.system" in result.stderr
