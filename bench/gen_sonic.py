"""1,024-switch-sized SONiC fabrics from the shared corpus's real config_db.json files.

Each switch is a copy of a real export (default: s6000-real-config_db.json) with its own
hostname, its own MAC, neighbour names and port descriptions unique to it, so that no two
files are byte-identical and topology sees distinct devices.

    python bench/gen_sonic.py N OUT [--source FILE]
"""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path

CORPUS = Path("/work/shared/corpus/sonic")
DEFAULT_SOURCE = CORPUS / "s6000-real-config_db.json"


def _switch(template: dict, index: int) -> dict:
    """One switch: the template renamed for ``index`` (hostname, MAC, neighbours, ports)."""
    config = copy.deepcopy(template)
    meta = config.setdefault("DEVICE_METADATA", {}).setdefault("localhost", {})
    meta["hostname"] = f"sonic-leaf-{index:04d}"
    meta["mac"] = f"02:00:00:00:{index >> 8 & 0xFF:02x}:{index & 0xFF:02x}"
    suffix = f"-{index:04d}"
    for neighbour in config.get("DEVICE_NEIGHBOR", {}).values():
        if "name" in neighbour:
            neighbour["name"] += suffix
    config["DEVICE_NEIGHBOR_METADATA"] = {
        name + suffix: value for name, value in config.get("DEVICE_NEIGHBOR_METADATA", {}).items()}
    for port in config.get("PORT", {}).values():
        if port.get("description"):
            peer, _, far = port["description"].partition(":")
            port["description"] = f"{peer}{suffix}:{far}" if far else peer + suffix
    return config


def generate(size: int, out: Path, source: Path = DEFAULT_SOURCE) -> list[Path]:
    """Write ``size`` config_db files under ``out``; return their paths."""
    template = json.loads(source.read_text(encoding="utf-8"))
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(size):
        path = out / f"sonic-leaf-{index:04d}.config_db.json"
        path.write_text(json.dumps(_switch(template, index), indent=4) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    args = parser.parse_args()
    generate(args.size, args.out, args.source)


if __name__ == "__main__":
    main()
