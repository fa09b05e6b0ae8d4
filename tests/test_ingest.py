"""Files to fabric: discovery, format detection on real inputs, bad files, duplicate names."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fablint.ingest import FileOutcome, PathNotFound, build_fabric, discover, parse_all, parse_file
from fablint.model import Fabric
from fablint.parsers.detect import InputError, detect, read_text

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "fixtures" / "demo"

EOS_CONFIG = """\
! device: {name}
hostname {name}
!
spanning-tree mode none
service routing protocols model multi-agent
!
interface Ethernet1/1
   mtu 9214
   no switchport
!
end
"""


def _corpus_dir(sub: str) -> Path:
    corpus = Path(os.environ.get("FABLINT_CORPUS", REPO.parent / "shared" / "corpus"))
    folder = corpus / sub
    if not folder.is_dir():
        pytest.skip(f"shared corpus folder {folder} not found (set FABLINT_CORPUS)")
    return folder


def _files(folder: Path) -> list[Path]:
    files = sorted(p for p in folder.iterdir() if p.is_file())
    assert files, f"{folder} is empty"
    return files


def _fabric(outcomes: list[FileOutcome]) -> Fabric:
    built = build_fabric(outcomes)
    # build_fabric returns (fabric, renames); older versions returned the fabric alone.
    return built[0] if isinstance(built, tuple) else built


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# -- discover --------------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "configs"
    for name in (
        "b.cfg", "a.cfg", "sub/c.cfg", "sub/deeper/d.txt", ".hidden.cfg", ".git/config",
        ".hiddendir/e.cfg", "__pycache__/f.cfg", "notes.md", "NOTES.MD", "diagram.png",
        "README", "fablint.yaml", "fablint-baseline.json", "report.sarif", "tool.py",
    ):
        _write(root / name, "hostname x\n")
    return root


def _rel(found: list[tuple[str, bool]], root: Path) -> list[tuple[str, bool]]:
    return [(Path(p).relative_to(root).as_posix(), explicit) for p, explicit in found]


def test_discover_folder_skips_hidden_docs_and_tool_files(tree: Path) -> None:
    found = discover([str(tree)])
    assert _rel(found, tree) == [
        ("a.cfg", False), ("b.cfg", False), ("sub/c.cfg", False), ("sub/deeper/d.txt", False),
    ]


def test_discover_takes_explicit_files_even_if_a_folder_would_skip_them(tree: Path) -> None:
    named = [tree / ".hidden.cfg", tree / "notes.md", tree / ".hiddendir" / "e.cfg",
             tree / "README"]
    found = discover([str(p) for p in named])
    assert found == [(str(p), True) for p in named]


def test_discover_deduplicates_and_keeps_explicit_flag_of_first_mention(tree: Path) -> None:
    a = tree / "a.cfg"
    found = discover([str(a), str(tree), str(a)])
    rel = _rel(found, tree)
    assert rel[0] == ("a.cfg", True)
    assert [p for p, _ in rel].count("a.cfg") == 1
    assert len(rel) == 4


def test_discover_excluded_callback(tree: Path) -> None:
    found = discover([str(tree)], excluded=lambda p: p.endswith(".txt"))
    assert _rel(found, tree) == [("a.cfg", False), ("b.cfg", False), ("sub/c.cfg", False)]


def test_discover_missing_path_raises(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(PathNotFound) as info:
        discover([str(DEMO), str(missing)])
    assert str(missing) in str(info.value)


def test_discover_demo_fixture() -> None:
    found = discover([str(DEMO)])
    # README.md is skipped; sub-folders are walked after the files beside them, in name order.
    lldp = [(f"lldp/{name}_show_lldp_neighbors.txt", False)
            for name in ("leaf1", "leaf2", "leaf3", "spine1", "spine2")]
    assert _rel(found, DEMO) == [
        ("leaf1.cfg", False), ("leaf2.cfg", False), ("leaf3.cfg", False), ("spine1.cfg", False),
        ("spine2.cfg", False), ("leaf4/config_db.json", False), *lldp,
    ]


# -- detection on the real-world corpus ------------------------------------------------------


def test_every_corpus_eos_file_is_detected_as_eos() -> None:
    for path in _files(_corpus_dir("eos")):
        detection = detect(read_text(path))
        assert detection.parser is not None, f"{path.name} not recognised ({detection.hint})"
        assert detection.parser.name == "eos", path.name
        outcome = parse_file(str(path), False)
        assert outcome.input.format == "eos", path.name
        assert not any(p.fatal for p in outcome.problems), (path.name, outcome.problems)
        assert len(outcome.devices) == 1


@pytest.mark.parametrize("sub", ["other"])
def test_corpus_non_eos_files_are_not_detected_as_eos(sub: str) -> None:
    for path in _files(_corpus_dir(sub)):
        try:
            text = read_text(path)
        except InputError:
            continue  # unreadable is also "not EOS"
        detection = detect(text)
        assert detection.parser is None or detection.parser.name != "eos", path.name
        outcome = parse_file(str(path), False)
        assert outcome.input.format != "eos", path.name
        assert outcome.devices == []
        assert [p.kind for p in outcome.problems if p.fatal] == ["unsupported"], path.name


def test_nxos_corpus_files_are_read_as_nxos() -> None:
    for path in _files(_corpus_dir("nxos")):
        outcome = parse_file(str(path), False)
        assert outcome.input.format == "nxos", path.name
        assert [d.vendor for d in outcome.devices] == ["nxos"], path.name
        assert not any(p.fatal for p in outcome.problems), (path.name, outcome.problems)


# -- a folder with good, binary and unsupported files ----------------------------------------


def test_folder_with_good_binary_and_unsupported_files(tmp_path: Path) -> None:
    folder = tmp_path / "fabric"
    good = _write(folder / "leaf1.cfg", EOS_CONFIG.format(name="leaf1"))
    blob = _write(folder / "firmware.bin", b"\x7fELF\x02\x01\x01\x00\x00\x00\n\xff\xfe\x00junk")
    other = _write(folder / "notes.txt", "Shopping list\n- milk\n- eggs\n")
    outcomes = parse_all(discover([str(folder)]))
    assert [o.input.path for o in outcomes] == [str(blob), str(good), str(other)]
    fabric = _fabric(outcomes)

    assert list(fabric.devices) == ["leaf1"]
    assert [i.devices for i in fabric.inputs] == [[], ["leaf1"], []]
    assert [i.format for i in fabric.inputs] == [None, "eos", None]
    assert [i.explicit for i in fabric.inputs] == [False, False, False]

    by_file = {p.file: p for p in fabric.problems}
    assert set(by_file) == {str(blob), str(other)}, fabric.problems
    binary = by_file[str(blob)]
    assert binary.fatal and binary.kind == "unsupported"
    assert "binary" in binary.message and binary.line == 1
    text = by_file[str(other)]
    assert text.fatal and text.kind == "unsupported"
    assert "unsupported input" in text.message


def test_good_file_statistics(tmp_path: Path) -> None:
    good = _write(tmp_path / "leaf1.cfg", EOS_CONFIG.format(name="leaf1"))
    outcome = parse_file(str(good), True)
    assert outcome.problems == []
    assert outcome.input.explicit is True
    assert outcome.input.lines == EOS_CONFIG.count("\n") + 1
    assert outcome.input.bytes == len(EOS_CONFIG.format(name="leaf1"))
    assert outcome.devices[0].interfaces["Ethernet1/1"].mtu == 9214


def test_forced_vendor_parses_what_detection_would_not(tmp_path: Path) -> None:
    path = _write(tmp_path / "bare.cfg", "interface Ethernet1\n  mtu 9214\n")
    assert parse_file(str(path), True).input.format is None
    forced = parse_file(str(path), True, "eos")
    assert forced.input.format == "eos"
    assert forced.devices[0].name == "bare"
    assert forced.devices[0].interfaces["Ethernet1"].mtu == 9214


def test_empty_and_missing_files_are_fatal_problems(tmp_path: Path) -> None:
    empty = _write(tmp_path / "empty.cfg", "")
    outcome = parse_file(str(empty), True)
    assert [(p.kind, p.fatal) for p in outcome.problems] == [("unsupported", True)]
    assert "empty" in outcome.problems[0].message
    missing = parse_file(str(tmp_path / "gone.cfg"), True)
    assert [(p.kind, p.fatal) for p in missing.problems] == [("unreadable", True)]


def test_latin1_description_is_tolerated(tmp_path: Path) -> None:
    text = EOS_CONFIG.format(name="leaf1").replace(
        "   mtu 9214", "   description caf\xe9 uplink\n   mtu 9214"
    )
    path = _write(tmp_path / "leaf1.cfg", text.encode("latin-1"))
    outcome = parse_file(str(path), True)
    assert not any(p.fatal for p in outcome.problems)
    assert outcome.devices[0].interfaces["Ethernet1/1"].description == "caf\ufffd uplink"


# -- duplicate hostnames ---------------------------------------------------------------------


def test_duplicate_hostnames_are_renamed_with_a_problem(tmp_path: Path) -> None:
    first = _write(tmp_path / "a" / "sw1.cfg", EOS_CONFIG.format(name="sw1"))
    second = _write(tmp_path / "b" / "copy.cfg", EOS_CONFIG.format(name="sw1"))
    third = _write(tmp_path / "b" / "sw2.cfg", EOS_CONFIG.format(name="sw2"))
    fabric = _fabric(parse_all(discover([str(tmp_path / "a"), str(tmp_path / "b")])))

    assert sorted(fabric.devices) == ["sw1", "sw1@copy.cfg", "sw2"]
    assert fabric.devices["sw1"].files == [str(first)]
    assert fabric.devices["sw1@copy.cfg"].name == "sw1@copy.cfg"
    assert fabric.devices["sw1@copy.cfg"].files == [str(second)]
    assert [i.devices for i in fabric.inputs] == [["sw1"], ["sw1@copy.cfg"], ["sw2"]]
    assert [i.path for i in fabric.inputs] == [str(first), str(second), str(third)]

    assert len(fabric.problems) == 1
    problem = fabric.problems[0]
    assert problem.file == str(second)
    assert problem.line == 2  # the hostname line
    assert problem.kind == "invalid-value" and not problem.fatal
    assert "'sw1'" in problem.message and str(first) in problem.message
    assert "sw1@copy.cfg" in problem.message


def test_renamed_duplicates_get_unique_names(tmp_path: Path) -> None:
    for folder in ("a", "b", "c"):
        _write(tmp_path / folder / "sw1.cfg", EOS_CONFIG.format(name="sw1"))
    fabric = _fabric(parse_all(discover([str(tmp_path)])))
    names = [name for i in fabric.inputs for name in i.devices]
    assert len(names) == 3
    assert len(set(names)) == 3, names
    assert len(fabric.devices) == 3
    assert len(fabric.problems) == 2


def test_build_fabric_returns_the_renames(tmp_path: Path) -> None:
    _write(tmp_path / "x.cfg", EOS_CONFIG.format(name="sw1"))
    second = _write(tmp_path / "y.cfg", EOS_CONFIG.format(name="sw1"))
    built = build_fabric(parse_all(discover([str(tmp_path)])))
    if not isinstance(built, tuple):
        pytest.skip("this build_fabric does not report renames")
    _, renames = built
    assert renames == {(str(second), "sw1"): "sw1@y.cfg"}


def test_demo_fabric_has_six_uniquely_named_devices() -> None:
    fabric = _fabric(parse_all(discover([str(DEMO)])))
    assert sorted(fabric.devices) == ["leaf1", "leaf2", "leaf3", "leaf4", "spine1", "spine2"]
    assert not fabric.problems


def test_parser_registry_names_match_the_parsers() -> None:
    """The lazy registry names each format without importing it; the names must be right."""
    from fablint.parsers import PARSERS

    assert [PARSERS[name].name for name in PARSERS] == list(PARSERS)


@pytest.mark.parametrize("case", sorted((REPO / "fixtures" / "rules").glob("*.yaml")),
                         ids=lambda p: p.name)
def test_yaml_with_configuration_snippets_is_not_a_configuration(case: Path) -> None:
    # Rule cases embed whole configurations and dumps, indented under YAML keys, as
    # Ansible variables and test data do: no configuration parser may claim the file.
    assert detect(case.read_text()).parser is None


@pytest.mark.parametrize("head", [
    "---\nleaf1: |\n  hostname leaf1\n", "# vars\nconfig: |\n   interface Ethernet1\n",
    "rule: PFC001\n", "key:\n",
])
def test_yaml_heads(head: str) -> None:
    from fablint.parsers.base import starts_as_yaml

    assert starts_as_yaml(head)


@pytest.mark.parametrize("head", [
    "! Command: show running-config\nhostname a\n", "!Command: show running-config\n",
    "version 9.3(8) Bios:version\n", "hostname leaf1\n", "\n\nleaf1#show running-config\n",
    "DCBX mode: OS controlled\n",
])
def test_configuration_heads_are_not_yaml(head: str) -> None:
    from fablint.parsers.base import starts_as_yaml

    assert not starts_as_yaml(head)
