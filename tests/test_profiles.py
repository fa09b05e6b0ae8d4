"""Policy profiles: extends resolution, provenance, errors with file:line, the shipped
profiles, and the ``fablint profiles`` commands."""

from __future__ import annotations

import io
import json
import os
import re
import tomllib
from pathlib import Path

import pytest
from ruamel.yaml import YAML
from typer.testing import CliRunner

from fablint.cli import app
from fablint.policy import Policy
from fablint.profiles import (
    builtin_profiles,
    deep_merge,
    load_policy,
    profile_infos,
    resolve,
    show_json,
    show_yaml,
)
from fablint.resources import profiles_dir
from fablint.yamlio import ConfigError, load_yaml
from tests.conftest import REPO

VENDOR_PROFILES = ("nvidia-spectrum-x", "sonic-azure", "cisco-nexus-ai")


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _line_of(path: Path, pattern: str) -> int:
    """1-based line of the first line of ``path`` matching ``pattern``."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if re.search(pattern, line):
            return number
    raise AssertionError(f"{pattern!r} not in {path}")


# -- resolution -------------------------------------------------------------------------------


def test_vendor_profiles_resolve_over_default() -> None:
    nvidia = load_policy("nvidia-spectrum-x")
    assert nvidia.name == "nvidia-spectrum-x"
    assert nvidia.classification.roce_dscp == [26]
    assert nvidia.classification.cnp_dscp == [48]  # inherited
    assert nvidia.pfc.lossless_priorities == [3]  # inherited
    assert nvidia.pfc.lossy_priorities == [0, 1, 2, 4, 5, 6, 7]
    assert (nvidia.ecn.fix_min_bytes, nvidia.ecn.fix_max_bytes) == (150_000, 1_500_000)
    assert nvidia.ecn.bounds["any"].min_bytes == (150_000, 159_744)

    azure = load_policy("sonic-azure")
    assert azure.pfc.lossless_priorities == [3, 4]
    assert azure.classification.roce_dscp == [3, 4]
    assert (azure.ecn.fix_min_bytes, azure.ecn.fix_max_bytes, azure.ecn.fix_probability) == (
        1_048_576, 2_097_152, 5)

    cisco = load_policy("cisco-nexus-ai")
    assert cisco.classification.roce_dscp == [24]
    assert cisco.classification.cnp_traffic_class == 7
    assert cisco.ecn.fix_min_bytes == 153_600  # the default's, which is the blueprint's
    assert (cisco.ecn.fix_max_bytes, cisco.ecn.fix_probability) == (3_072_000, 7)
    assert cisco.ecn.bounds["any"].probability == (7, 7)

    default = load_policy("default")
    assert default.ecn.bounds == {} and default.ecn.allow_step_marking is True


def test_extends_chain_of_three_with_origins(tmp_path: Path) -> None:
    site = _write(tmp_path, "site.yaml", (
        "extends: nvidia-spectrum-x\n"
        "name: site\n"
        "mtu:\n"
        "  fabric_min: 9100\n"
        "ecn:\n"
        "  bounds:\n"
        "    400g:\n"
        "      min_bytes: [100000, 200000]\n"
    ))
    resolved = resolve(str(site))
    assert [p.name for p in resolved.chain] == ["site.yaml", "nvidia-spectrum-x.yaml",
                                                 "default.yaml"]
    policy = load_policy(str(site))
    assert policy.mtu.fabric_min == 9100  # the site's
    assert policy.classification.roce_dscp == [26]  # nvidia's
    assert policy.watchdog.required is True  # default's
    # Mappings merge key by key: the site adds a speed class next to nvidia's 'any'.
    assert set(policy.ecn.bounds) == {"any", "400g"}

    origins = resolved.origins
    assert str(origins[("mtu", "fabric_min")]) == f"{site}:4"
    nvidia = profiles_dir() / "nvidia-spectrum-x.yaml"
    assert str(origins[("classification", "roce_dscp")]) == (
        f"rules/nvidia-spectrum-x.yaml:{_line_of(nvidia, r'^  roce_dscp:')}")
    default = profiles_dir() / "default.yaml"
    assert str(origins[("pfc", "forbid_link_pause")]) == (
        f"rules/default.yaml:{_line_of(default, r'^  forbid_link_pause:')}")


def test_extends_a_list_later_parent_wins(tmp_path: Path) -> None:
    _write(tmp_path, "a.yaml", "extends: default\nmtu: {fabric_min: 9100}\n")
    _write(tmp_path, "b.yaml", "extends: default\nmtu: {fabric_min: 9200}\n"
                               "acl: {roce_udp_port: 4792}\n")
    top = _write(tmp_path, "top.yaml", "extends: [a.yaml, b.yaml]\nname: top\n")
    policy = load_policy(str(top))
    assert policy.mtu.fabric_min == 9200
    assert policy.acl.roce_udp_port == 4792


def test_mappings_merge_and_other_values_replace(tmp_path: Path) -> None:
    """An empty mapping adds nothing; a range set to null replaces the parent's (the way to
    drop an inherited bound), and its origin becomes the child's line."""
    child = _write(tmp_path, "child.yaml", (
        "extends: nvidia-spectrum-x\n"
        "ecn:\n"
        "  bounds:\n"
        "    any:\n"
        "      probability: null\n"
        "pfc: {}\n"
    ))
    policy = load_policy(str(child))
    assert policy.ecn.bounds["any"].probability is None
    assert policy.ecn.bounds["any"].min_bytes == (150_000, 159_744)
    assert policy.pfc.lossy_priorities == [0, 1, 2, 4, 5, 6, 7]
    origins = resolve(str(child)).origins
    assert str(origins[("ecn", "bounds", "any", "probability")]) == f"{child}:5"
    assert str(origins[("ecn", "bounds", "any", "min_bytes")]).startswith(
        "rules/nvidia-spectrum-x.yaml:")


def test_deep_merge_merges_mappings_and_replaces_the_rest() -> None:
    merged = deep_merge({"a": {"x": 1, "y": [1]}, "b": 1}, {"a": {"y": [2]}, "c": 3})
    assert merged == {"a": {"x": 1, "y": [2]}, "b": 1, "c": 3}


# -- errors -----------------------------------------------------------------------------------


def test_cycle_is_an_error_naming_the_chain(tmp_path: Path) -> None:
    _write(tmp_path, "a.yaml", "extends: b.yaml\n")
    _write(tmp_path, "b.yaml", "extends: a.yaml\n")
    with pytest.raises(ConfigError, match=r"extends itself: .*a\.yaml -> .*b\.yaml -> .*a\.yaml"):
        load_policy(str(tmp_path / "a.yaml"))


def test_self_extension_is_a_cycle(tmp_path: Path) -> None:
    me = _write(tmp_path, "me.yaml", "extends: me.yaml\n")
    with pytest.raises(ConfigError, match="extends itself"):
        load_policy(str(me))


def test_unknown_key_names_file_line_and_suggests(tmp_path: Path) -> None:
    site = _write(tmp_path, "site.yaml", "extends: default\necn:\n  fix_min: 1\n")
    with pytest.raises(ConfigError) as info:
        load_policy(str(site))
    assert str(info.value) == (
        f"{site}:3: unknown key 'ecn.fix_min' (did you mean 'fix_min_bytes'?)")


def test_unknown_key_in_a_parent_points_at_the_parent(tmp_path: Path) -> None:
    base = _write(tmp_path, "base.yaml", "extends: default\nname: base\npfc:\n"
                                         "  lossless_priorities: [3]\n  pause_all: true\n")
    child = _write(tmp_path, "child.yaml", "extends: base.yaml\nname: child\n")
    with pytest.raises(ConfigError) as info:
        load_policy(str(child))
    assert str(info.value).startswith(f"{base}:5: unknown key 'pfc.pause_all'")


def test_bad_value_names_the_file_and_line_that_set_it(tmp_path: Path) -> None:
    site = _write(tmp_path, "site.yaml", (
        "extends: default\n"
        "ecn:\n"
        "  bounds:\n"
        "    fast: {min_bytes: [1, 2]}\n"
        "    any:\n"
        "      max_bytes: [20, 10]\n"
    ))
    with pytest.raises(ConfigError) as info:
        load_policy(str(site))
    assert str(info.value).startswith(f"{site}:6: ecn.bounds.any.max_bytes: Value error, range")
    speed = _write(tmp_path, "speed.yaml", "ecn:\n  bounds:\n    fast: {min_bytes: [1, 2]}\n")
    with pytest.raises(ConfigError) as info:
        load_policy(str(speed))
    assert str(info.value).startswith(f"{speed}:2: ecn.bounds: Value error, speed class 'fast'")
    with pytest.raises(ConfigError) as info:
        load_policy(str(_write(tmp_path, "two.yaml", "ecn:\n  bounds:\n    any:\n"
                                                     "      max_bytes: [20, 10]\n")))
    assert str(info.value).startswith(f"{tmp_path / 'two.yaml'}:4: ecn.bounds.any.max_bytes")


def test_overrides_errors_say_they_come_from_the_overrides() -> None:
    with pytest.raises(ConfigError, match=r"^fablint\.yaml: policy: unknown key 'mtu\.min'"):
        load_policy("default", {"mtu": {"min": 1}}, overrides_where="fablint.yaml: policy")


def test_unknown_profile_and_bad_extends(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown profile 'nope'; built-in profiles: .*azure"):
        load_policy("nope")
    bad = _write(tmp_path, "bad.yaml", "extends: {name: default}\n")
    with pytest.raises(ConfigError, match=rf"{re.escape(str(bad))}:1: extends takes"):
        load_policy(str(bad))


# -- the shipped profiles ---------------------------------------------------------------------


def test_every_shipped_profile_validates_and_is_listed() -> None:
    shipped = builtin_profiles()
    assert {"default", *VENDOR_PROFILES} <= set(shipped)
    for name in shipped:
        assert load_policy(name).name == name
    infos = {i.name: i for i in profile_infos()}
    for name in VENDOR_PROFILES:
        assert infos[name].extends == ["default"]
        assert infos[name].description


@pytest.mark.parametrize("name", VENDOR_PROFILES)
def test_vendor_profiles_set_only_what_differs(name: str) -> None:
    data, _ = load_yaml(builtin_profiles()[name])
    parent = load_policy("default").model_dump(mode="json")
    mine = load_policy(name).model_dump(mode="json")

    def leaves(node: dict, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
        out = []
        for key, value in node.items():
            path = (*prefix, key)
            out += leaves(value, path) if isinstance(value, dict) and value else [path]
        return out

    for path in leaves({k: v for k, v in data.items() if k not in ("extends", "name",
                                                                    "description")}):
        def get(tree: dict, keys: tuple[str, ...] = path) -> object:
            for key in keys:
                tree = tree.get(key) if isinstance(tree, dict) else None
            return tree

        assert get(mine) != get(parent), f"{name}: {'.'.join(path)} repeats the default"


def _sourced(lines: list[str], index: int) -> bool:
    """Is line ``index`` covered by a comment citing a source: the nearest comment block
    above it, skipping the keys of its own group (a blank line ends the group)."""
    i = index - 1
    while i >= 0 and lines[i].strip() and not lines[i].lstrip().startswith("#"):
        i -= 1
    block = []
    while i >= 0 and lines[i].lstrip().startswith("#"):
        block.append(lines[i])
        i -= 1
    return bool(block) and re.search(r"\[S\d+\]", " ".join(block)) is not None


@pytest.mark.parametrize("name", VENDOR_PROFILES)
def test_every_vendor_profile_value_names_its_source(name: str) -> None:
    path = builtin_profiles()[name]
    lines = path.read_text(encoding="utf-8").splitlines()
    _, key_lines = load_yaml(path)
    for key, line in key_lines.items():
        if key[0] in ("extends", "name", "description") or len(key) < 2:
            continue
        if isinstance(key[-1], int):
            continue
        assert _sourced(lines, line - 1), f"{name}:{line} {'.'.join(map(str, key))} has no [Sxx]"


def test_default_ecn_settings_name_their_source() -> None:
    path = builtin_profiles()["default"]
    lines = path.read_text(encoding="utf-8").splitlines()
    _, key_lines = load_yaml(path)
    for key in ("required_on_lossless", "fix_min_bytes", "allow_step_marking", "bounds"):
        assert _sourced(lines, key_lines[("ecn", key)] - 1), key


def test_the_wheel_ships_the_whole_profiles_folder() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    include = project["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert include["rules"] == "fablint/_data/profiles"  # the folder, so new files ship too
    shipped = {p.name for p in (REPO / "rules").glob("*.yaml")}
    assert {f"{n}.yaml" for n in ("default", *VENDOR_PROFILES)} <= shipped
    assert set(builtin_profiles()) == {Path(n).stem for n in shipped}


# -- the commands -----------------------------------------------------------------------------


def _run(*args: str, cwd: Path = REPO) -> tuple[int, str, str]:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(app, list(args))
    finally:
        os.chdir(old)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"fablint {' '.join(args)} raised") from result.exception
    return result.exit_code, result.stdout, result.stderr


def test_profiles_lists_name_extends_description_file() -> None:
    code, out, _ = _run("profiles")
    assert code == 0
    header, *rows = [line.split() for line in out.strip().splitlines()]
    assert header == ["Name", "Extends", "Description", "File"]
    by_name = {row[0]: row for row in rows}
    assert set(by_name) == set(builtin_profiles())
    assert by_name["default"][1] == "-"
    for name in VENDOR_PROFILES:
        assert by_name[name][1] == "default"
        assert by_name[name][-1] == f"rules/{name}.yaml"
    assert "Cisco Nexus AI/ML blueprint" in out
    code, out, _ = _run("profiles", "--format", "json")
    listed = {p["name"]: p for p in json.loads(out)}
    assert listed["sonic-azure"]["extends"] == ["default"]
    assert listed["sonic-azure"]["file"] == "rules/sonic-azure.yaml"


@pytest.mark.parametrize("name", ["default", *VENDOR_PROFILES])
def test_profiles_show_prints_the_resolved_values_as_yaml(name: str) -> None:
    code, out, _ = _run("profiles", "show", name)
    assert code == 0
    assert out == show_yaml(name)
    shown = YAML(typ="safe").load(io.StringIO(out))
    assert Policy.model_validate(shown) == load_policy(name)


def test_profiles_show_names_where_each_value_comes_from(tmp_path: Path) -> None:
    code, out, _ = _run("profiles", "show", "sonic-azure")
    azure = builtin_profiles()["sonic-azure"]
    default = builtin_profiles()["default"]
    line = next(x for x in out.splitlines() if x.strip().startswith("lossless_priorities:"))
    assert line.endswith(f"# rules/sonic-azure.yaml:{_line_of(azure, r'^  lossless_priorities:')}")
    line = next(x for x in out.splitlines() if x.strip().startswith("roce_udp_port:"))
    assert line.endswith(f"# rules/default.yaml:{_line_of(default, r'^  roce_udp_port:')}")
    assert out.startswith("# fablint profile sonic-azure, resolved from rules/sonic-azure.yaml"
                          " -> rules/default.yaml\n")
    # A profile that extends nothing: every value it does not set is a built-in default.
    _write(tmp_path, "bare.yaml", "name: bare\n")
    code, out, _ = _run("profiles", "show", "bare.yaml", cwd=tmp_path)
    assert code == 0
    assert out.splitlines()[1] == 'name: "bare"'.ljust(48) + " # bare.yaml:1"
    assert "roce_udp_port: 4791" in out and "# built-in default" in out


def test_profiles_show_json_has_values_and_origins() -> None:
    code, out, _ = _run("profiles", "show", "cisco-nexus-ai", "--format", "json")
    assert code == 0
    document = json.loads(out)
    assert out == show_json("cisco-nexus-ai")
    assert document["values"]["classification"]["cnp_traffic_class"] == 7
    assert document["extends"] == ["rules/cisco-nexus-ai.yaml", "rules/default.yaml"]
    assert document["origins"]["classification.cnp_traffic_class"].startswith(
        "rules/cisco-nexus-ai.yaml:")
    assert document["origins"]["ecn.fix_min_bytes"].startswith("rules/default.yaml:")


def test_profiles_show_errors_exit_2(tmp_path: Path) -> None:
    code, _, err = _run("profiles", "show", "nope")
    assert code == 2 and "unknown profile 'nope'" in err
    _write(tmp_path, "typo.yaml", "extends: default\nacl:\n  udp_port: 1\n")
    code, _, err = _run("profiles", "show", "typo.yaml", cwd=tmp_path)
    assert code == 2 and "typo.yaml:3: unknown key 'acl.udp_port'" in err
    code, _, err = _run("profiles", "show", "default", "--format", "xml")
    assert code == 2
