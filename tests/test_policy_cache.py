"""The cache of validated policies (fablint.policycache): the very object validation makes,
never a policy validation would refuse, and validation again whenever an entry is unfit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from fablint import policycache, yamlcache
from fablint.config import ProjectConfig, default_config
from fablint.policy import Policy
from fablint.profiles import builtin_profiles, load_policy, resolve, show_json
from fablint.yamlio import ConfigError
from tests.test_ib_construct import _same

pytestmark = pytest.mark.usefixtures("own_cache")


@pytest.fixture
def cache(own_cache: Path) -> Path:
    return own_cache / policycache.FOLDER


def _data(name: str) -> dict[str, Any]:
    """A profile's resolved data as plain JSON types (the first read of a YAML file gives
    ruamel's own scalar types, which this cache leaves to validation)."""
    return json.loads(json.dumps(resolve(name).data))  # type: ignore[no-any-return]


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


class _Validated:
    """Counts validations of Policy (each a miss of the cache)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = Policy.model_validate

        def counted(data: Any, *args: Any, **kwargs: Any) -> Policy:
            self.count += 1
            return real(data, *args, **kwargs)
        monkeypatch.setattr(Policy, "model_validate", counted)


@pytest.mark.parametrize("name", sorted(builtin_profiles()))
def test_a_cached_policy_is_the_object_validation_makes(
        name: str, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    validated = Policy.model_validate(resolve(name).data)
    counted = _Validated(monkeypatch)
    runs = [load_policy(name) for _ in range(3)]  # parsed YAML, then YAML from its cache
    assert counted.count < 3  # read back at least once
    assert _entries(cache)
    for policy in runs:
        _same(policy, validated, name)
        assert policycache.identical(policy, validated)
        assert policy.model_dump_json() == validated.model_dump_json()
    assert show_json(name) == show_json(name)


def test_the_cache_meets_every_kind_of_field(cache: Path) -> None:
    """Not vacuous: the cached default policy holds tuples, optional values, floats, dicts of
    models and literal keys, and objects with some fields given and some not."""
    data = _data("default")
    data = {**data, "topology": {**data.get("topology", {}), "roles": {"leaf": ["^leaf"]}},
            "ecn": {**data.get("ecn", {}), "bounds": {"400g": {"min_bytes": [100, 200]}}}}
    validated = Policy.model_validate(data)
    policycache.store(data, validated)
    cached = policycache.load(data)
    assert cached is not None and policycache.identical(cached, validated)
    assert cached.ecn.bounds["400g"].min_bytes == (100, 200)
    assert cached.watchdog.detection_ms.__class__ is tuple
    assert cached.ecn.bounds["400g"].model_fields_set == {"min_bytes"}
    assert isinstance(cached.ib_link.prevailing_share, float)
    assert cached.topology.roles == {"leaf": ["^leaf"]}


def test_a_user_profile_is_cached_by_its_content(cache: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    profile = tmp_path / "mine.yaml"
    profile.write_text("extends: default\npfc:\n  lossless_priorities: [3, 4]\n",
                       encoding="utf-8")
    counted = _Validated(monkeypatch)
    first, second, third = (load_policy(str(profile)) for _ in range(3))
    assert first.pfc.lossless_priorities == [3, 4]
    assert policycache.identical(second, first) and policycache.identical(third, first)
    before = counted.count
    profile.write_text("extends: default\npfc:\n  lossless_priorities: [4]\n", encoding="utf-8")
    changed = load_policy(str(profile))
    assert changed.pfc.lossless_priorities == [4]
    assert counted.count == before + 1  # a new content: validated
    overridden = load_policy(str(profile), {"pfc": {"lossless_priorities": [2]}})
    assert overridden.pfc.lossless_priorities == [2]


def test_a_bad_profile_errors_with_its_line_every_time_and_is_never_cached(
        cache: Path, tmp_path: Path) -> None:
    profile = tmp_path / "bad.yaml"
    profile.write_text("extends: default\npfc:\n  lossless_priorities: [9]\n",
                       encoding="utf-8")
    for _ in range(3):
        with pytest.raises(ConfigError, match=r"bad\.yaml:3: pfc\.lossless_priorities"):
            load_policy(str(profile))
    bad = resolve(str(profile)).data
    assert policycache.load(bad) is None
    with pytest.raises(ConfigError, match=r"unknown key 'pfc\.losless_priorities'"):
        load_policy("default", {"pfc": {"losless_priorities": [3]}})


def _damage(entry: Path, change: Any) -> None:
    document = json.loads(entry.read_text(encoding="utf-8"))
    change(document)
    entry.write_text(json.dumps(document), encoding="utf-8")


def _set(path: tuple[str, ...], value: Any) -> Any:
    def change(document: dict[str, Any]) -> None:
        node = document
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value
    return change


DAMAGE = [
    _set(("policy", "values", "mtu", "values", "fabric_min"), "9000"),  # a str for an int
    _set(("policy", "values", "mtu", "values", "fabric_min"), 9000.0),  # a float for an int
    _set(("policy", "values", "watchdog", "values", "detection_ms"), [1, 2, 3]),
    _set(("policy", "values", "ib_link", "values", "expected_width"), 3),  # not a literal
    _set(("policy", "values", "mtu", "set"), ["nonsense"]),
    _set(("policy", "values", "mtu", "values"), {}),
    _set(("policy", "values", "ports"), {"values": {}}),
    _set(("policy",), []),
    _set(("format",), 0),
]


@pytest.mark.parametrize("change", DAMAGE)
def test_a_damaged_entry_means_validating_again(cache: Path, change: Any) -> None:
    data = _data("default")
    validated = Policy.model_validate(data)
    policycache.store(data, validated)
    (entry,) = _entries(cache)
    _damage(entry, change)
    assert policycache.load(data) is None
    assert policycache.identical(load_policy("default"), validated)
    entry.write_text("{not json", encoding="utf-8")
    assert policycache.load(data) is None


def test_data_json_cannot_tell_apart_is_not_cached(cache: Path) -> None:
    data = _data("default")
    for odd in ({**data, "watchdog": {"detection_ms": (100, 200)}},  # a tuple
                {**data, "ecn": {"bounds": {1: {}}}},  # a key that is not a string
                {**data, "ib_link": {"prevailing_share": float("nan")}}):
        assert policycache._entry(odd) == (None, None)
        policycache.store(odd, Policy.model_validate(data))
        assert not _entries(cache)
    assert policycache._entry(data)[1] is not None


def test_a_refused_data_is_never_stored(cache: Path) -> None:
    data = {**_data("default"), "mtu": {"fabric_min": True}}
    with pytest.raises(ConfigError):
        load_policy("default", {"mtu": {"fabric_min": True}})
    assert policycache.load(data) is None and not _entries(cache)


def test_caching_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(yamlcache.CACHE_ENV, "")
    assert policycache.load(_data("default")) is None
    policy = load_policy("default")
    assert policycache.identical(policy, Policy.model_validate(resolve("default").data))


def test_the_default_project_config_is_what_its_constructor_makes() -> None:
    made, constructed = default_config(), ProjectConfig()
    _same(made, constructed, "config")
    assert made.root is None and made.source is None
    assert made.model_dump() == constructed.model_dump()
    assert made.policy is not default_config().policy  # each its own containers


def test_identical_tells_types_order_and_fields_given_apart() -> None:
    class Pair(BaseModel):
        a: Any = None
        b: Any = None

    assert policycache.identical(Pair(a=1), Pair(a=1))
    assert not policycache.identical(Pair(a=1), Pair(a=1.0))
    assert not policycache.identical(Pair(a=1, b=None), Pair(a=1))
    assert not policycache.identical(Pair(a=(1,)), Pair(a=[1]))
    assert not policycache.identical(Pair(a={"x": 1, "y": 2}), Pair(a={"y": 2, "x": 1}))
