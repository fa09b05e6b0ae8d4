"""Intended cabling: what the fabric should look like, to compare with what the files show.

Two forms. A fablint topology YAML file (documented in docs/topology.md)::

    fablint-topology: 1
    roles: {spine: ["^spine"], leaf: ["^leaf"]}
    links:
      - [leaf1:Ethernet31/1, spine1:Ethernet1/1]
    mesh:
      - {from: "^leaf", to: "^spine", links: 2, speed: 400G}

or any dump fablint reads that shows cables (an ibnetdiscover topology file, as ``ibdiagnet -t``
takes): every cable in it is intended.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from fablint.model import Endpoint, Link, SourceRef
from fablint.units import speed_mbps
from fablint.yamlio import ConfigError, load_yaml, validation_error

MARKER = "fablint-topology"


def _end(value: object) -> Endpoint:
    if isinstance(value, dict):
        return Endpoint.model_validate(value)
    if not isinstance(value, str) or ":" not in value:
        raise ValueError(f"{value!r} is not DEVICE:PORT")
    device, port = value.rsplit(":", 1)
    if not device.strip() or not port.strip():
        raise ValueError(f"{value!r} is not DEVICE:PORT")
    return Endpoint(device=device.strip(), interface=port.strip())


def _regex(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError("a regular expression is a string")
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"bad regular expression {value!r}: {exc}") from exc
    return value


def _speed(value: object) -> int | None:
    if value is None:
        return None
    parsed = speed_mbps(str(value).strip())
    if parsed is None:
        raise ValueError(f"{value!r} is not a speed (400G, 100g, 800000M)")
    return parsed[0]


End = Annotated[Endpoint, BeforeValidator(_end)]
Pattern = Annotated[str, BeforeValidator(_regex)]
Speed = Annotated[int | None, BeforeValidator(_speed)]


class MeshRule(BaseModel):
    """Every device matching ``from`` has ``links`` cables to every device matching ``to``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_: Pattern = Field(alias="from")
    to: Pattern
    links: int = Field(default=1, ge=1)
    speed: Speed = None


class IntentFile(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    version: Literal[1] = Field(alias=MARKER)
    roles: dict[Literal["host", "leaf", "spine", "super-spine"], list[Pattern]] = Field(
        default_factory=dict)
    links: list[tuple[End, End]] = Field(default_factory=list)
    mesh: list[MeshRule] = Field(default_factory=list)


class Intent(BaseModel):
    """The intended cabling, resolved: explicit cables and mesh rules, each with its line."""

    links: list[Link] = Field(default_factory=list)
    mesh: list[tuple[MeshRule, SourceRef]] = Field(default_factory=list)
    roles: dict[str, list[str]] = Field(default_factory=dict)


def is_intent_yaml(text: str) -> bool:
    return re.search(rf"^{MARKER}\s*:", text, re.M) is not None


def load_intent(path: Path) -> Intent:
    """Read an intent file (fablint YAML or a dump with cables). Raises ConfigError."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the intended topology: {exc}") from exc
    if is_intent_yaml(text):
        return _from_yaml(path)
    return _from_dump(path, text)


def _from_yaml(path: Path) -> Intent:
    data, lines = load_yaml(path)
    try:
        spec = IntentFile.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, str(path), lines, IntentFile,
                               aliases={"from_": "from", "version": MARKER}) from exc
    intent = Intent(roles={k: list(v) for k, v in spec.roles.items()})
    for n, (a, b) in enumerate(spec.links):
        intent.links.append(Link(a=a, b=b, origin="intent",
                                 src=SourceRef(str(path), lines.get(("links", n)))))
    for n, rule in enumerate(spec.mesh):
        intent.mesh.append((rule, SourceRef(str(path), lines.get(("mesh", n)))))
    return intent


def _from_dump(path: Path, text: str) -> Intent:
    from fablint.parsers import ParseError
    from fablint.parsers.detect import detect

    parser = detect(text).parser
    if parser is None:
        raise ConfigError(f"{path}: not a fablint topology file ('{MARKER}: 1') nor a dump "
                          "fablint reads cables from")
    try:
        result = parser.parse(text, str(path))
    except ParseError as exc:
        raise ConfigError(str(exc)) from exc
    if not result.links:
        raise ConfigError(f"{path}: read as {parser.label}, but it shows no cables")
    links = result.links
    if result.ib_nodes:  # name IB nodes as the observed dumps' nodes are named
        from fablint.topology import ib_link_names

        links = ib_link_names(links, result.ib_nodes)
    return Intent(links=[link.model_copy(update={"origin": "intent"}) for link in links])
