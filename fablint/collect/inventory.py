"""Inventories: which devices to collect from, in fablint's own YAML or what teams already have.

Four formats, told apart by their shape (``--inventory-format`` forces one):

- fablint (documented in docs/collect.md): ``defaults``, ``groups`` and ``hosts`` mappings;
- an Ansible inventory: YAML (``all:`` / groups with ``hosts``, ``children`` and ``vars``) or
  INI (``[group]``, ``[group:vars]``, ``[group:children]``; read by ``ansible-inventory
  --list`` when Ansible is installed), with ``group_vars/`` and ``host_vars/`` beside it;
- an ANTA inventory (``anta_inventory: hosts:``), Arista EOS devices;
- a Nornir simple inventory (``hosts.yaml`` with ``groups.yaml`` and ``defaults.yaml`` next
  to it, or the folder holding them).

A password never comes from an inventory: fablint's own format rejects the key, and the
password fields of Ansible and Nornir inventories are ignored with a warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar

from fablint.collect.commands import (
    COMMAND_SETS,
    DEFAULT_OPENSM_CONF,
    DEFAULT_PARTITIONS_CONF,
    DEFAULT_SETS,
    DEVICE_TYPES,
    canonical_platform,
    valid_ifname,
    valid_remote_path,
)
from fablint.collect.snapshot import folder_name
from fablint.yamlio import ConfigError, load_yaml_nodes, read_yaml_file

InventoryFormat = Literal["auto", "fablint", "ansible", "nornir", "anta"]
MAX_INVENTORY_BYTES = 20 * 1024 * 1024

SETTINGS = frozenset({
    "port", "platform", "device_type", "username", "password_env", "key_file", "collect",
    "host_qos", "rdma_interfaces", "opensm_conf", "partitions_conf",
})
"""Keys that defaults, groups and hosts of a fablint inventory may set."""
HOST_ONLY = frozenset({"address", "groups"})
SECRET_KEYS = frozenset({
    "password", "secret", "ansible_password", "ansible_ssh_pass", "ansible_become_password",
    "ansible_become_pass", "ansible_enable_password",
})
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class _Vaulted:
    """An Ansible ``!vault`` value: encrypted, never decrypted or used by fablint."""

    def __repr__(self) -> str:
        return "<vaulted>"


VAULTED = _Vaulted()


@dataclass
class Host:
    """One device to collect from, with every setting resolved."""

    name: str
    address: str
    platform: str
    device_type: str
    port: int = 22
    username: str | None = None
    password_env: str | None = None
    """Name of the environment variable holding this host's password (not the password)."""
    key_file: str | None = None
    collect: tuple[str, ...] = ()
    rdma_interfaces: tuple[str, ...] | None = None
    """RDMA interfaces for ``host-qos``; None: discovered on the host."""
    opensm_conf: str = DEFAULT_OPENSM_CONF
    partitions_conf: str = DEFAULT_PARTITIONS_CONF
    groups: tuple[str, ...] = ()
    folder: str = ""
    """Name of the host's folder in a snapshot (``folder_name``)."""
    where: str = ""
    """Inventory file and line that define the host."""


@dataclass
class Inventory:
    hosts: list[Host]
    format: str
    warnings: list[str] = field(default_factory=list)


# -- YAML ------------------------------------------------------------------------------------


def _load(path: Path) -> tuple[Any, dict[Any, int]]:
    """Load YAML safely into plain data; ``!vault`` values become VAULTED.

    Returns the data and, for every mapping (by id), the line it starts on.
    """
    data = load_yaml_nodes(read_yaml_file(path, MAX_INVENTORY_BYTES), str(path),
                           ("!vault", "!unsafe"))
    lines: dict[Any, int] = {}
    return _plain(data, path, lines), lines


def _plain(node: Any, path: Path, lines: dict[Any, int]) -> Any:
    tag = getattr(getattr(node, "tag", None), "value", None)
    if tag and not str(tag).startswith("tag:yaml.org,2002:"):
        if str(tag).startswith("!vault"):
            return VAULTED
        if tag == "!unsafe" and isinstance(node, TaggedScalar):
            return str(node.value)
        raise ConfigError(f"{path}: YAML tag {tag} is not allowed")
    if isinstance(node, CommentedMap):
        out = {str(k): _plain(v, path, lines) for k, v in node.items()}
        lines[id(out)] = node.lc.line + 1
        for key in node:
            try:
                lines[(id(out), str(key))] = node.lc.key(key)[0] + 1
            except (KeyError, TypeError, AttributeError):
                continue
        return out
    if isinstance(node, CommentedSeq):
        return [_plain(v, path, lines) for v in node]
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    return str(node)


# -- shared setting checks -------------------------------------------------------------------


def _check_setting(key: str, value: Any, where: str) -> Any:
    """Validate one setting and return it in its resolved form."""
    if key == "port":
        if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(
                value).isdigit() or not 1 <= int(value) <= 65535:
            raise ConfigError(f"{where}: port must be a number from 1 to 65535, not {value!r}")
        return int(value)
    if key == "platform":
        platform = canonical_platform(str(value)) if isinstance(value, str) else None
        if platform is None:
            known = ", ".join(sorted(DEFAULT_SETS))
            raise ConfigError(f"{where}: unknown platform {value!r} (fablint knows {known} and "
                              "their netmiko and Ansible spellings)")
        return platform
    if key == "collect":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ConfigError(f"{where}: collect must be a list of command sets")
        unknown = [i for i in items if i not in COMMAND_SETS]
        if unknown:
            raise ConfigError(f"{where}: unknown command set {unknown[0]!r} (choose from "
                              f"{', '.join(COMMAND_SETS)})")
        return tuple(items)
    if key == "host_qos":
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: host_qos must be true or false")
        return value
    if key == "rdma_interfaces":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(
                isinstance(i, str) and valid_ifname(i) for i in items):
            raise ConfigError(f"{where}: rdma_interfaces must be a list of interface names")
        return tuple(items)
    if key in ("opensm_conf", "partitions_conf"):
        if not isinstance(value, str) or not valid_remote_path(value):
            raise ConfigError(f"{where}: {key} must be an absolute path of plain characters")
        return value
    if key == "password_env":
        if not isinstance(value, str) or not _ENV_NAME.match(value):
            raise ConfigError(f"{where}: password_env must name an environment variable")
        return value
    if value is VAULTED or not isinstance(value, (str, int)):
        raise ConfigError(f"{where}: {key} must be a string")
    return str(value)


def _resolve(name: str, address: str, layers: list[dict[str, Any]], where: str,
             groups: tuple[str, ...]) -> Host:
    """Build a host from setting layers, most specific first."""
    merged: dict[str, Any] = {}
    for layer in reversed(layers):
        merged.update({k: v for k, v in layer.items() if v is not None})
    platform = merged.get("platform")
    if platform is None:
        raise ConfigError(f"{where}: host {name!r} has no platform")
    sets = tuple(merged.get("collect") or DEFAULT_SETS[platform])
    if merged.get("host_qos") and "host-qos" not in sets:
        sets = (*sets, "host-qos")
    return Host(
        name=name, address=address, platform=platform,
        device_type=merged.get("device_type") or DEVICE_TYPES[platform],
        port=merged.get("port", 22), username=merged.get("username"),
        password_env=merged.get("password_env"), key_file=merged.get("key_file"),
        collect=sets, rdma_interfaces=merged.get("rdma_interfaces"),
        opensm_conf=merged.get("opensm_conf", DEFAULT_OPENSM_CONF),
        partitions_conf=merged.get("partitions_conf", DEFAULT_PARTITIONS_CONF),
        groups=groups, where=where,
    )


def _settings(data: Any, where: str, allowed: frozenset[str]) -> dict[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping of settings")
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in SECRET_KEYS:
            raise ConfigError(f"{where}: '{key}' is not allowed: passwords never go in an "
                              "inventory (use password_env, FABLINT_PASSWORD, --ask-password, "
                              "SSH keys or ssh-agent)")
        if key not in allowed:
            raise ConfigError(f"{where}: unknown key '{key}' (known: "
                              f"{', '.join(sorted(allowed))})")
        if key in ("address", "groups"):
            out[key] = value
            continue
        out[key] = _check_setting(key, value, f"{where}: {key}")
    return out


# -- fablint format --------------------------------------------------------------------------


def _fablint(data: dict[str, Any], path: Path, lines: dict[Any, int]) -> Inventory:
    def where(node: Any) -> str:
        return f"{path}:{lines.get(id(node), 1)}"

    unknown = set(data) - {"defaults", "groups", "hosts", "version"}
    if unknown:
        raise ConfigError(f"{path}: unknown top-level key {sorted(unknown)[0]!r} (known: "
                          "defaults, groups, hosts)")
    defaults = _settings(data.get("defaults"), f"{path}: defaults", SETTINGS)
    raw_groups = data.get("groups") or {}
    if not isinstance(raw_groups, dict):
        raise ConfigError(f"{path}: groups must be a mapping of group name to settings")
    groups = {name: _settings(g, f"{where(g)}: group {name}", SETTINGS)
              for name, g in raw_groups.items()}
    raw_hosts = data.get("hosts") or {}
    if not isinstance(raw_hosts, dict):
        raise ConfigError(f"{path}: hosts must be a mapping of host name to settings")
    hosts = []
    for name, raw in raw_hosts.items():
        at = f"{path}:{lines.get((id(raw_hosts), name), 1)}"
        own = _settings(raw, f"{at}: host {name}", SETTINGS | HOST_ONLY)
        member = own.pop("groups", None) or []
        if isinstance(member, str):
            member = [member]
        if not isinstance(member, list):
            raise ConfigError(f"{at}: host {name}: groups must be a list")
        missing = [g for g in member if g not in groups]
        if missing:
            raise ConfigError(f"{at}: host {name}: unknown group {missing[0]!r}")
        address = str(own.pop("address", None) or name)
        layers = [own, *(groups[g] for g in member), defaults]
        hosts.append(_resolve(name, address, layers, at, tuple(member)))
    return Inventory(hosts=hosts, format="fablint")


# -- Ansible YAML inventory ------------------------------------------------------------------

_ANSIBLE_KEYS = {
    "ansible_host": "address", "ansible_ssh_host": "address",
    "ansible_port": "port", "ansible_ssh_port": "port",
    "ansible_user": "username", "ansible_ssh_user": "username",
    "ansible_network_os": "platform", "fablint_platform": "platform",
    "ansible_ssh_private_key_file": "key_file", "ansible_private_key_file": "key_file",
}
_RANGE = re.compile(r"\[([0-9a-zA-Z]+):([0-9a-zA-Z]+)(?::(\d+))?\]")


def expand_host_pattern(name: str) -> list[str]:
    """Ansible host ranges: ``leaf[01:04]`` -> leaf01 … leaf04, ``rack-[a:c]`` -> a, b, c."""
    match = _RANGE.search(name)
    if match is None:
        return [name]
    start, end, step = match.group(1), match.group(2), int(match.group(3) or 1)
    head, tail = name[:match.start()], name[match.end():]
    if start.isdigit() and end.isdigit():
        width = len(start) if start.startswith("0") else 0
        values = [f"{n:0{width}d}" for n in range(int(start), int(end) + 1, max(step, 1))]
    elif len(start) == 1 and len(end) == 1 and start.isalpha() and end.isalpha():
        values = [chr(c) for c in range(ord(start), ord(end) + 1, max(step, 1))]
    else:
        return [name]
    if len(values) > 100_000:
        raise ConfigError(f"host range {name!r} expands to more than 100000 hosts")
    return [h for v in values for h in expand_host_pattern(f"{head}{v}{tail}")]


def _ansible_vars(raw: Any, where: str, warnings: list[str]) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: vars must be a mapping")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key in SECRET_KEYS:
            warnings.append(f"{where}: ignored '{key}' (fablint never reads passwords from an "
                            "inventory; use FABLINT_PASSWORD, --ask-password, keys or an agent)")
            continue
        target = _ANSIBLE_KEYS.get(key)
        if target is None and key.startswith("fablint_") and key[8:] in SETTINGS:
            target = key[8:]
        if target is None:
            continue
        if target == "platform" and isinstance(value, str) and canonical_platform(value) is None:
            out["_unknown_platform"] = value
            continue
        out[target] = value if target == "address" else _check_setting(target, value,
                                                                         f"{where}: {key}")
    return out


def _ansible(data: dict[str, Any], path: Path, lines: dict[Any, int]) -> Inventory:
    warnings: list[str] = []
    # host -> list of (depth, group, vars); host vars apart
    memberships: dict[str, list[tuple[int, str, dict[str, Any]]]] = {}
    host_vars: dict[str, dict[str, Any]] = {}
    where_of: dict[str, str] = {}
    seen_groups: set[tuple[str, int]] = set()

    def walk(group: str, node: Any, depth: int, parents: list[tuple[int, str, dict[str, Any]]]
             ) -> None:
        if depth > 50:
            raise ConfigError(f"{path}: groups nested more than 50 deep")
        if node is None:
            return
        at = f"{path}:{lines.get(id(node), 1)}"
        if not isinstance(node, dict):
            raise ConfigError(f"{at}: group {group} must be a mapping")
        if (group, id(node)) in seen_groups:
            return
        seen_groups.add((group, id(node)))
        chain = [*parents, (depth, group, _ansible_vars(node.get("vars"), f"{at}: {group}",
                                                         warnings))]
        hosts = node.get("hosts") or {}
        if not isinstance(hosts, dict):
            raise ConfigError(f"{at}: hosts of group {group} must be a mapping")
        for pattern, raw in hosts.items():
            own = _ansible_vars(raw, f"{at}: host {pattern}", warnings)
            for name in expand_host_pattern(pattern):
                memberships.setdefault(name, []).extend(chain)
                host_vars.setdefault(name, {}).update(own)
                where_of.setdefault(name, f"{path}:{lines.get((id(hosts), pattern), 1)}")
        children = node.get("children") or {}
        if not isinstance(children, dict):
            raise ConfigError(f"{at}: children of group {group} must be a mapping")
        for child, sub in children.items():
            walk(child, sub, depth + 1, chain)

    for group, node in data.items():
        walk(group, node, 0, [])
    _vars_files(path.parent, memberships, host_vars, warnings)
    hosts: list[Host] = []
    skipped: dict[str, list[str]] = {}
    for name, chain in memberships.items():
        ordered = sorted({(d, g): v for d, g, v in chain}.items(), key=lambda kv: kv[0])
        layers = [host_vars.get(name, {}), *(v for _, v in reversed(ordered))]
        merged: dict[str, Any] = {}
        for layer in reversed(layers):
            merged.update(layer)
        if merged.get("platform") is None:
            reason = (f"platform {merged['_unknown_platform']!r} is not one fablint collects"
                      if "_unknown_platform" in merged else
                      "no ansible_network_os or fablint_platform")
            skipped.setdefault(reason, []).append(name)
            continue
        clean = [{k: v for k, v in layer.items() if k != "_unknown_platform"}
                 for layer in layers]
        address = str(merged.get("address") or name)
        for layer in clean:
            layer.pop("address", None)
        groups = tuple(dict.fromkeys(g for (_, g), _v in ordered if g != "all"))
        hosts.append(_resolve(name, address, clean, where_of[name], groups))
    for reason, names in skipped.items():
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        warnings.append(f"{path}: skipped {len(names)} host(s) ({reason}): {shown}")
    return Inventory(hosts=hosts, format="ansible", warnings=warnings)


def _vars_file_data(base: Path, name: str) -> list[tuple[Path, Any]]:
    """``base/name.yml``, ``.yaml``, ``name`` (a file) or every YAML file of the folder
    ``base/name``, as Ansible reads group_vars and host_vars."""
    found: list[Path] = []
    for suffix in ("", ".yml", ".yaml", ".json"):
        candidate = base / f"{name}{suffix}"
        if candidate.is_file():
            found.append(candidate)
        elif suffix == "" and candidate.is_dir():
            found.extend(sorted(p for p in candidate.iterdir()
                                if p.is_file() and p.suffix in (".yml", ".yaml", ".json")))
    out = []
    for file in found:
        data, _lines = _load(file)
        if data is not None:
            out.append((file, data))
    return out


def _vars_files(folder: Path, memberships: dict[str, list[tuple[int, str, dict[str, Any]]]],
                host_vars: dict[str, dict[str, Any]], warnings: list[str]) -> None:
    """Ansible's ``group_vars/`` and ``host_vars/`` beside the inventory: a group's file
    overrides the inventory's vars of that group, a host's file the inventory's host vars
    (Ansible's variable precedence)."""
    group_dir, host_dir = folder / "group_vars", folder / "host_vars"
    if group_dir.is_dir():
        cache: dict[str, dict[str, Any]] = {}
        for chain in memberships.values():
            for _depth, group, layer in chain:
                if group not in cache:
                    cache[group] = {}
                    for file, data in _vars_file_data(group_dir, group):
                        cache[group].update(_ansible_vars(data, str(file), warnings))
                layer.update(cache[group])
        if "all" not in {g for chain in memberships.values() for _d, g, _v in chain}:
            every = {}
            for file, data in _vars_file_data(group_dir, "all"):
                every.update(_ansible_vars(data, str(file), warnings))
            if every:
                for chain in memberships.values():
                    chain.insert(0, (-1, "all", every))
    if host_dir.is_dir():
        for name in memberships:
            for file, data in _vars_file_data(host_dir, name):
                host_vars.setdefault(name, {}).update(_ansible_vars(data, str(file), warnings))


# -- Ansible INI inventories -----------------------------------------------------------------


def _ini_value(text: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text.isdigit():
        return int(text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def _ini_pairs(words: list[str]) -> dict[str, Any]:
    return {k: _ini_value(v) for k, _, v in (w.partition("=") for w in words) if k and _}


def ini_to_yaml_shape(text: str, path: Path) -> dict[str, Any]:
    """An Ansible INI inventory (``[group]``, ``[group:vars]``, ``[group:children]``, hosts
    with ``key=value`` pairs) as the YAML inventory's shape, so one reader does both."""
    import shlex

    groups: dict[str, dict[str, Any]] = {}

    def group(name: str) -> dict[str, Any]:
        return groups.setdefault(name, {"hosts": {}, "children": {}, "vars": {}})

    section, kind = "ungrouped", ""
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            name, _, kind = line[1:-1].partition(":")
            section = name.strip()
            group(section)
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError as exc:
            raise ConfigError(f"{path}:{number}: {exc}") from None
        if not words:
            continue
        if kind == "vars":
            group(section)["vars"].update(_ini_pairs([line.replace(" = ", "=")]))
        elif kind == "children":
            group(section)["children"][words[0]] = None
            group(words[0])
        else:
            group(section)["hosts"][words[0]] = _ini_pairs(words[1:]) or None
    shaped: dict[str, Any] = {}
    for name, node in groups.items():
        shaped[name] = {key: value for key, value in node.items() if value}
    return _roots(shaped)


def _roots(shaped: dict[str, Any]) -> dict[str, Any]:
    """Children point at their group's own mapping; only groups nobody lists as a child stay
    at the top, so a group's vars reach its children's hosts whatever the section order."""
    children = set()
    for node in shaped.values():
        for child in node.get("children", {}):
            node["children"][child] = shaped.get(child)
            children.add(child)
    return {name: node for name, node in shaped.items() if name not in children}


def _ansible_cli(path: Path) -> dict[str, Any] | None:
    """``ansible-inventory -i PATH --list`` when Ansible is installed: exactly what Ansible
    sees (plugins, group_vars, vaults resolved as far as it can without a password)."""
    import json
    import shutil
    import subprocess

    exe = shutil.which("ansible-inventory")
    if exe is None:
        return None
    try:
        run = subprocess.run(  # noqa: S603 (the installed ansible-inventory, no shell)
            [exe, "-i", str(path), "--list"], capture_output=True, text=True, timeout=60,
            check=False)
        listed = json.loads(run.stdout) if run.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if not isinstance(listed, dict):
        return None
    hostvars = listed.get("_meta", {}).get("hostvars", {})
    shaped: dict[str, Any] = {}
    for name, node in listed.items():
        if name == "_meta" or not isinstance(node, dict):
            continue
        shaped[name] = {
            "hosts": {h: hostvars.get(h) or None for h in node.get("hosts", [])},
            "children": dict.fromkeys(node.get("children", [])),
        }
    return _roots(shaped)


# -- ANTA inventory --------------------------------------------------------------------------


def _anta(data: dict[str, Any], path: Path, lines: dict[Any, int]) -> Inventory:
    """An ANTA inventory (``anta_inventory: hosts: [{host, name, port, tags}]``): Arista EOS
    devices by definition. ``networks`` and ``ranges`` are scanned by ANTA, not listed: they
    are reported and skipped."""
    body = data.get("anta_inventory") or {}
    if not isinstance(body, dict):
        raise ConfigError(f"{path}: anta_inventory must be a mapping")
    warnings: list[str] = []
    for key in ("networks", "ranges"):
        if body.get(key):
            warnings.append(f"{path}: anta_inventory {key} are address ranges to scan; "
                            "fablint collects only listed hosts")
    hosts: list[Host] = []
    for entry in body.get("hosts") or []:
        at = f"{path}:{lines.get(id(entry), 1)}"
        if not isinstance(entry, dict) or not entry.get("host"):
            raise ConfigError(f"{at}: each ANTA host needs 'host'")
        layer: dict[str, Any] = {"platform": "eos"}
        if entry.get("port") is not None:
            layer["port"] = _check_setting("port", entry["port"], f"{at}: port")
        tags = entry.get("tags") or []
        hosts.append(_resolve(str(entry.get("name") or entry["host"]), str(entry["host"]),
                              [layer], at, tuple(str(t) for t in tags)))
    return Inventory(hosts=hosts, format="anta", warnings=warnings)


# -- Nornir simple inventory -----------------------------------------------------------------

_NORNIR_KEYS = frozenset({"hostname", "port", "username", "password", "platform", "groups",
                          "data", "connection_options"})


def _nornir_attrs(raw: Any, where: str, warnings: list[str]) -> tuple[dict[str, Any], list[str]]:
    if raw is None:
        return {}, []
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a mapping")
    out: dict[str, Any] = {}
    if raw.get("password") is not None:
        warnings.append(f"{where}: ignored 'password' (fablint never reads passwords from an "
                        "inventory; use FABLINT_PASSWORD, --ask-password, keys or an agent)")
    if raw.get("hostname") is not None:
        out["address"] = str(raw["hostname"])
    if raw.get("port") is not None:
        out["port"] = _check_setting("port", raw["port"], f"{where}: port")
    if raw.get("username") is not None:
        out["username"] = _check_setting("username", raw["username"], f"{where}: username")
    platform = raw.get("platform")
    options = raw.get("connection_options") or {}
    netmiko = options.get("netmiko") if isinstance(options, dict) else None
    if platform is None and isinstance(netmiko, dict):
        platform = netmiko.get("platform")
    if platform is not None:
        if isinstance(platform, str) and canonical_platform(platform) is None:
            out["_unknown_platform"] = platform
        else:
            out["platform"] = _check_setting("platform", platform, f"{where}: platform")
    data = raw.get("data") or {}
    fablint = data.get("fablint") if isinstance(data, dict) else None
    if isinstance(fablint, dict):
        out.update(_settings(fablint, f"{where}: data.fablint", SETTINGS))
    groups = raw.get("groups") or []
    if isinstance(groups, str):
        groups = [groups]
    if not isinstance(groups, list):
        raise ConfigError(f"{where}: groups must be a list")
    return out, [str(g) for g in groups]


def _nornir(hosts_file: Path) -> Inventory:
    warnings: list[str] = []
    data, lines = _load(hosts_file)
    if not isinstance(data, dict):
        raise ConfigError(f"{hosts_file}: a Nornir hosts file is a mapping of host names")
    folder = hosts_file.parent
    groups_raw: dict[str, Any] = {}
    defaults_raw: Any = {}
    for name in ("groups.yaml", "groups.yml"):
        if (folder / name).is_file():
            loaded, _ = _load(folder / name)
            groups_raw = loaded or {}
            break
    for name in ("defaults.yaml", "defaults.yml"):
        if (folder / name).is_file():
            defaults_raw, _ = _load(folder / name)
            break
    groups: dict[str, tuple[dict[str, Any], list[str]]] = {
        name: _nornir_attrs(raw, f"{folder}/groups.yaml: {name}", warnings)
        for name, raw in (groups_raw.items() if isinstance(groups_raw, dict) else [])
    }
    defaults, _ = _nornir_attrs(defaults_raw, f"{folder}/defaults.yaml", warnings)

    def group_layers(names: list[str], depth: int = 0) -> list[dict[str, Any]]:
        if depth > 50:
            raise ConfigError(f"{folder}/groups.yaml: groups nested more than 50 deep")
        out: list[dict[str, Any]] = []
        for name in names:
            if name not in groups:
                raise ConfigError(f"{hosts_file}: unknown group {name!r}")
            attrs, parents = groups[name]
            out.append(attrs)
            out.extend(group_layers(parents, depth + 1))
        return out

    hosts: list[Host] = []
    skipped: list[str] = []
    for name, raw in data.items():
        at = f"{hosts_file}:{lines.get((id(data), name), 1)}"
        own, member = _nornir_attrs(raw, f"{at}: host {name}", warnings)
        layers = [own, *group_layers(member), defaults]
        merged: dict[str, Any] = {}
        for layer in reversed(layers):
            merged.update(layer)
        if merged.get("platform") is None:
            skipped.append(name)
            continue
        address = str(merged.get("address") or name)
        clean = [{k: v for k, v in layer.items() if k not in ("address", "_unknown_platform")}
                 for layer in layers]
        hosts.append(_resolve(name, address, clean, at, tuple(member)))
    if skipped:
        warnings.append(f"{hosts_file}: skipped {len(skipped)} host(s) with no platform fablint "
                        f"collects: {', '.join(skipped[:5])}")
    return Inventory(hosts=hosts, format="nornir", warnings=warnings)


# -- entry point -----------------------------------------------------------------------------


def _sniff(data: Any) -> str | None:
    if not isinstance(data, dict) or not data:
        return None
    if set(data) == {"anta_inventory"}:
        return "anta"
    if "hosts" in data and set(data) <= {"defaults", "groups", "hosts", "version"}:
        return "fablint"
    values = [v for v in data.values() if v is not None]
    if values and all(isinstance(v, dict) for v in values):
        if any(set(v) & {"hosts", "children", "vars"} for v in values):
            return "ansible"
        if all(set(v) <= _NORNIR_KEYS for v in values):
            return "nornir"
    return None


def _looks_ini(path: Path) -> bool:
    """An INI inventory: ``.ini``/no suffix, or a first section line ``[group]``."""
    if path.suffix in (".yml", ".yaml", ".json"):
        return False
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return False
    for line in head.splitlines():
        line = line.strip()
        if line and line[0] not in "#;":
            return (line.startswith("[") and line.endswith("]")) or path.suffix == ".ini"
    return False


def load_inventory(path: Path, fmt: InventoryFormat = "auto") -> Inventory:
    """Read an inventory file (or a Nornir inventory folder). Raises ConfigError."""
    if path.is_dir():
        for name in ("hosts.yaml", "hosts.yml"):
            if (path / name).is_file():
                path = path / name
                break
        else:
            raise ConfigError(f"{path}: a folder inventory must hold a Nornir hosts.yaml")
        if fmt in ("auto", "nornir"):
            return _finish(_nornir(path))
    if not path.is_file():
        raise ConfigError(f"inventory {path} not found")
    if fmt in ("auto", "ansible") and _looks_ini(path):
        data = _ansible_cli(path) or ini_to_yaml_shape(
            read_yaml_file(path, MAX_INVENTORY_BYTES), path)
        return _finish(_ansible(data, path, {}))
    data, lines = _load(path)
    kind = fmt if fmt != "auto" else _sniff(data)
    if kind is None:
        raise ConfigError(f"{path}: cannot tell the inventory format (fablint, Ansible YAML or "
                          "Nornir simple inventory); see docs/collect.md or use "
                          "--inventory-format")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: an inventory is a YAML mapping")
    if kind == "fablint":
        inventory = _fablint(data, path, lines)
    elif kind == "anta":
        inventory = _anta(data, path, lines)
    elif kind == "ansible":
        inventory = _ansible(data, path, lines)
    else:
        inventory = _nornir(path)
    return _finish(inventory)


def _finish(inventory: Inventory) -> Inventory:
    """Give every host a snapshot folder; two hosts may not share one."""
    taken: dict[str, str] = {}
    for host in inventory.hosts:
        host.folder = folder_name(host.name)
        other = taken.get(host.folder.lower())
        if other is not None:
            raise ConfigError(f"{host.where}: hosts {other!r} and {host.name!r} would share "
                              f"the snapshot folder {host.folder!r}; rename one")
        taken[host.folder.lower()] = host.name
    return inventory


def select_hosts(hosts: list[Host], limits: list[str]) -> list[Host]:
    """Hosts whose name or one of whose groups matches a ``--limit`` glob."""
    if not limits:
        return hosts
    import fnmatch

    return [h for h in hosts if any(
        fnmatch.fnmatchcase(h.name, pat) or any(fnmatch.fnmatchcase(g, pat) for g in h.groups)
        for pat in limits)]
