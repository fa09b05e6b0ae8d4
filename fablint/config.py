"""Project configuration: ``fablint.yaml``, found upward from the linted path or via --config."""

# No "from __future__ import annotations" here: pydantic would compile the text of every
# field's annotation when the classes are made (a sixth of the import). An annotation
# that names a class defined further down is a string.

import fnmatch
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from fablint.yamlio import ConfigError, load_yaml, validation_error

CONFIG_NAMES = ("fablint.yaml", ".fablint.yaml", "fablint.yml", ".fablint.yml")
FailOn = Literal["error", "warning", "info", "never"]


class ProjectConfig(BaseModel):
    """The settings of ``fablint.yaml``. Keys are kebab-case; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)
    """Its validator is built when a fablint.yaml is read (``defer_build``): a run without one
    takes the defaults (``load_config``) and never needs it."""

    profile: str = Field(
        default="default",
        description="Built-in profile name or path to a profile file (relative to this file).",
    )
    policy: dict[str, Any] = Field(
        default_factory=dict,
        description="Overrides applied on top of the profile, section by section "
        "(for example {pfc: {lossless_priorities: [3, 4]}}).",
    )
    select: list[str] = Field(
        default_factory=list,
        description="Rules to run: ids (PFC001), id prefixes (PFC), names "
        "(pfc-lossless-priorities) or categories (pfc). Empty means all.",
    )
    ignore: list[str] = Field(
        default_factory=list, description="Rules not to run, in the same forms as select."
    )
    severity: dict[str, Literal["error", "warning", "info"]] = Field(
        default_factory=dict,
        description="Severity overrides, keyed by rule id, prefix, name or category.",
    )
    per_path_ignores: dict[str, list[str]] = Field(
        default_factory=dict,
        alias="per-path-ignores",
        description="Glob pattern (relative to this file) -> rules to ignore for matching files. "
        "Use 'all' for every rule.",
    )
    exclude: list[str] = Field(
        default_factory=list,
        description="Glob patterns (relative to this file) of inputs not to read.",
    )
    fail_on: FailOn = Field(
        default="error",
        alias="fail-on",
        description="Lowest severity that makes fablint exit with code 1.",
    )
    baseline: str | None = Field(
        default=None,
        description="Baseline file (relative to this file): findings recorded in it are not "
        "reported.",
    )
    intent: str | None = Field(
        default=None,
        description="Intended cabling (relative to this file): a fablint topology YAML or an "
        "ibnetdiscover topology file; cables that differ from it are findings (TOP009).",
    )
    docs_url: str | None = Field(
        default=None,
        alias="docs-url",
        description="Base URL of the rule pages, for SARIF helpUri (default: the project's).",
    )

    @field_validator("select", "ignore")
    @classmethod
    def _strings(cls, values: list[str]) -> list[str]:
        return [str(v) for v in values]

    # Where the file was found; paths inside it are relative to this folder.
    _root: Path | None = PrivateAttr(default=None)
    _source: Path | None = PrivateAttr(default=None)

    @property
    def root(self) -> Path | None:
        return self._root

    @property
    def source(self) -> Path | None:
        return self._source

    def relative(self, path: str) -> str:
        """``path`` relative to the config folder (posix), for pattern matching."""
        base = self.root or Path.cwd()
        try:
            return Path(path).resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            return Path(path).as_posix()

    def excluded(self, path: str) -> bool:
        rel = self.relative(path)
        return any(fnmatch.fnmatch(rel, pattern) for pattern in self.exclude)

    def ignored_for_path(self, path: str | None) -> list[str]:
        if not path or not self.per_path_ignores:
            return []
        rel = self.relative(path)
        out: list[str] = []
        for pattern, rules in self.per_path_ignores.items():
            if fnmatch.fnmatch(rel, pattern):
                out.extend(rules)
        return out


ALIASES = {"per_path_ignores": "per-path-ignores", "fail_on": "fail-on", "docs_url": "docs-url"}


def find_config(start: Path) -> Path | None:
    """The nearest config file in ``start`` or a parent folder."""
    here = start.resolve()
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        for name in CONFIG_NAMES:
            candidate = folder / name
            if candidate.is_file():
                return candidate
    return None


def default_config() -> ProjectConfig:
    """``ProjectConfig()`` without building its validator (which runs nothing on defaults):
    every field's default, none given, the private attributes at theirs. ``model_construct``
    would inspect the signature of each default factory, which costs more than this."""
    config = ProjectConfig.__new__(ProjectConfig)
    values = {name: info.default_factory() if info.default_factory is not None  # type: ignore[call-arg]
              else info.default for name, info in ProjectConfig.__pydantic_fields__.items()}
    object.__setattr__(config, "__dict__", values)
    object.__setattr__(config, "__pydantic_fields_set__", set())
    object.__setattr__(config, "__pydantic_extra__", None)
    object.__setattr__(config, "__pydantic_private__", {
        name: attr.get_default() for name, attr in ProjectConfig.__private_attributes__.items()})
    return config


def load_config(path: Path | None) -> ProjectConfig:
    """Load and validate a config file; no path gives the defaults."""
    if path is None:
        return default_config()
    data, lines = load_yaml(path, cached=True)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1: fablint.yaml must be a mapping of settings")
    underscored = [k for k in data if k in ALIASES]
    if underscored:
        key = underscored[0]
        raise ConfigError(
            f"{path}:{lines.get((key,), 1)}: unknown key '{key}' (did you mean '{ALIASES[key]}'?)"
        )
    try:
        config = ProjectConfig.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, str(path), lines, ProjectConfig, ALIASES) from exc
    config._root = path.resolve().parent
    config._source = path
    return config


def config_json_schema() -> dict[str, Any]:
    """JSON Schema of fablint.yaml, published in docs/ for editors and CI validation."""
    schema = ProjectConfig.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "fablint.yaml"
    return schema
