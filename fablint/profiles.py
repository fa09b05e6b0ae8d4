"""Policy profiles: ``rules/*.yaml`` with ``extends:``, resolved into a typed Policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fablint.policy import Policy
from fablint.resources import profiles_dir
from fablint.yamlio import ConfigError, KeyLines, load_yaml, validation_error

MAX_EXTENDS_DEPTH = 16


def builtin_profiles() -> dict[str, Path]:
    """Name -> file of every profile that ships with fablint."""
    return {p.stem: p for p in sorted(profiles_dir().glob("*.yaml"))}


def _locate(ref: str, base_dir: Path | None) -> Path:
    if ref.endswith((".yaml", ".yml")) or "/" in ref or "\\" in ref:
        path = Path(ref)
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        if not path.is_file():
            raise ConfigError(f"profile file {ref!r} not found (looked at {path})")
        return path
    builtin = builtin_profiles().get(ref)
    if builtin is None:
        known = ", ".join(builtin_profiles()) or "none"
        raise ConfigError(f"unknown profile {ref!r}; built-in profiles: {known}")
    return builtin


def deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """Mappings merge key by key; anything else in ``top`` replaces ``base``."""
    out = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _load_raw(
    ref: str, base_dir: Path | None, chain: tuple[Path, ...]
) -> tuple[dict[str, Any], KeyLines, Path]:
    path = _locate(ref, base_dir).resolve()
    if path in chain:
        cycle = " -> ".join(str(p) for p in (*chain, path))
        raise ConfigError(f"profile extends itself: {cycle}")
    if len(chain) >= MAX_EXTENDS_DEPTH:
        raise ConfigError(f"{path}: profiles extend each other more than {MAX_EXTENDS_DEPTH} deep")
    data, lines = load_yaml(path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1: a profile must be a mapping of sections")
    parents = data.pop("extends", None)
    merged: dict[str, Any] = {}
    if parents:
        for parent in [parents] if isinstance(parents, str) else list(parents):
            if not isinstance(parent, str):
                raise ConfigError(f"{path}:{lines.get(('extends',), 1)}: extends takes names")
            parent_data, _, _ = _load_raw(parent, path.parent, (*chain, path))
            merged = deep_merge(merged, parent_data)
    return deep_merge(merged, data), lines, path


def load_policy(
    ref: str = "default", overrides: dict[str, Any] | None = None, base_dir: Path | None = None
) -> Policy:
    """Resolve a profile (built-in name or file path) plus overrides into a Policy."""
    data, lines, path = _load_raw(ref, base_dir, ())
    if overrides:
        data = deep_merge(data, overrides)
    try:
        return Policy.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, str(path), lines, Policy) from exc
