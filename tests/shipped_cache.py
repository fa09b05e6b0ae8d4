"""The cache entries of the built-in profiles that ship with fablint (fablint/shipped_cache).

fablint writes no cache of its own unless ``$FABLINT_CACHE_DIR`` asks for one, so the parsed
YAML and the validated policy of every built-in profile are made here, when a profile, the
YAML loader or the policy classes change, and shipped as read-only data:

    python -m tests.shipped_cache          # rewrite fablint/shipped_cache
    python -m tests.shipped_cache --check  # exit 1 when it is not what would be written

``tests/test_shipped_cache.py`` runs the check.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
import tempfile
from pathlib import Path

from fablint import policycache, yamlcache
from fablint.policy import Policy
from fablint.profiles import builtin_profiles, resolve
from fablint.yamlio import load_yaml_text


def build(folder: Path) -> None:
    """Write the entries of every built-in profile under ``folder`` (emptied first)."""
    shutil.rmtree(folder, ignore_errors=True)
    for path in builtin_profiles().values():
        text = path.read_text(encoding="utf-8")
        data, lines = load_yaml_text(text, str(path))
        yamlcache.write(folder / yamlcache.FOLDER / yamlcache._key(text), data, lines)
    shipped = yamlcache.SHIPPED
    yamlcache.SHIPPED = folder  # resolve as a run will: the YAML read back from its entries
    try:
        for name in builtin_profiles():
            data = resolve(name).data
            entry = policycache._entry(data)[0]
            if entry is not None:
                policycache.store(data, Policy.model_validate(data),
                                  folder / policycache.FOLDER / entry.name)
    finally:
        yamlcache.SHIPPED = shipped


def differences(folder: Path) -> list[str]:
    """What ``folder`` holds that ``build`` would not write the same (names, relative)."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "shipped"
        build(fresh)
        names = {p.relative_to(fresh) for p in fresh.rglob("*.json")}
        held = {p.relative_to(folder) for p in folder.rglob("*.json")} if folder.is_dir() \
            else set()
        return sorted(str(n) for n in names ^ held) + sorted(
            str(n) for n in names & held
            if not filecmp.cmp(fresh / n, folder / n, shallow=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether it is current")
    args = parser.parse_args()
    if args.check:
        stale = differences(yamlcache.SHIPPED)
        if stale:
            sys.exit("fablint/shipped_cache is stale (run python -m tests.shipped_cache): "
                     + ", ".join(stale))
        return
    build(yamlcache.SHIPPED)
    print(f"wrote {sum(1 for _ in yamlcache.SHIPPED.rglob('*.json'))} entries to "
          f"{yamlcache.SHIPPED}")


if __name__ == "__main__":
    main()
