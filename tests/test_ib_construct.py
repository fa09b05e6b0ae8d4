"""The IB dump parsers build their models without pydantic validation (``ibdump.construct``,
for speed). These tests parse every IB dump there is (the corpus, the fixtures, generated
fabrics in every format and with the damage real dumps carry) both ways and require the very
same objects: types, field order, values, defaults and the set of fields given."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from fablint.ingest import FileOutcome, parse_file
from fablint.parsers import ibdump
from tests.conftest import CORPUS, FIXTURES, bench_module

IB_FORMATS = {"ibnetdiscover", "ibnetdiscover-ports", "iblinkinfo", "ib-subnet-list",
              "ibdiagnet-net-dump", "ibdiagnet-db-csv"}




def _same(built: Any, validated: Any, where: str) -> None:
    """Equal as objects, not only as dumps: a difference in type, order or fields set fails."""
    assert type(built) is type(validated), where
    if isinstance(validated, BaseModel):
        assert list(built.__dict__) == list(validated.__dict__), where
        assert built.model_fields_set == validated.model_fields_set, where
        assert built.__pydantic_extra__ == validated.__pydantic_extra__, where
        assert built.__pydantic_private__ == validated.__pydantic_private__, where
        for name, value in validated.__dict__.items():
            _same(built.__dict__[name], value, f"{where}.{name}")
    elif isinstance(validated, dict):
        assert list(built) == list(validated), where
        for key, value in validated.items():
            _same(built[key], value, f"{where}[{key!r}]")
    elif isinstance(validated, (list, tuple)):
        assert len(built) == len(validated), where
        for i, (a, b) in enumerate(zip(built, validated, strict=True)):
            _same(a, b, f"{where}[{i}]")
    else:
        assert built == validated, where


def _both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[FileOutcome, FileOutcome]:
    built = parse_file(str(path), True)
    with monkeypatch.context() as patch:
        patch.setattr(ibdump, "construct", ibdump.validate)
        validated = parse_file(str(path), True)
    return built, validated


def _check(path: Path, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Compare both ways on ``path``; False when it is no IB dump."""
    built, validated = _both(path, monkeypatch)
    if built.input.format not in IB_FORMATS:
        return False
    assert validated.input.format == built.input.format
    _same(built.ib_nodes, validated.ib_nodes, f"{path.name}: nodes")
    _same(built.links, validated.links, f"{path.name}: links")
    assert [n.model_dump(mode="json") for n in built.ib_nodes] == \
        [n.model_dump(mode="json") for n in validated.ib_nodes]
    assert [n.model_dump_json() for n in built.links] == \
        [n.model_dump_json() for n in validated.links]
    return True


def _dumps() -> list[Path]:
    roots = [CORPUS / "ib", FIXTURES / "ib", FIXTURES / "opensm"]
    return sorted(p for root in roots if root.is_dir() for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize("path", _dumps(), ids=lambda p: p.name)
def test_real_and_fixture_dumps_build_what_validation_builds(
        path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _check(path, monkeypatch)


def test_the_corpus_and_fixtures_hold_dumps_of_every_format() -> None:
    """The comparison above is not vacuous: it met each format."""
    seen = set()
    for path in _dumps():
        outcome = parse_file(str(path), True)
        seen.add(outcome.input.format)
    assert seen >= IB_FORMATS


SPECS = {
    "two-tier": {},
    "sharp-ufm-default": {"aggregation_nodes": True, "management_hosts": 2, "names": "default"},
    "ibdiagnet": {"aggregation_nodes": True, "names": "default", "dialect": "ibdiagnet",
                  "pods": 2, "leaves": 3, "spines": 2, "super_spines": 2, "uplinks": 1},
    "director": {"leaves": 4, "hosts": 16, "uplinks": 16, "director": True},
    "rails-plain": {"leaves": 8, "spines": 4, "hosts": 16, "uplinks": 4, "rails": 8,
                    "names": "plain"},
}


@pytest.mark.parametrize("case", sorted(SPECS))
def test_generated_fabrics_build_what_validation_builds(
        case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gen = bench_module("gen_ib")
    text, _truth = gen.fabric(gen.FabricSpec(**SPECS[case]))
    path = tmp_path / "fabric.topo"
    path.write_text(text, encoding="utf-8")
    assert _check(path, monkeypatch)


def test_ibdiagnet_formats_build_what_validation_builds(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    diag = bench_module("gen_ibdiag")
    fabric = diag.build(4, 2, 4)
    files = {"a.ibnetdiscover": diag.ibnetdiscover(fabric),
             "ibdiagnet2.ibnetdiscover": diag.ibnetdiscover(fabric, True),
             "ibdiagnet2.net_dump": diag.net_dump(fabric),
             "ibdiagnet2.db_csv": diag.db_csv(fabric)}
    for name, text in files.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert _check(path, monkeypatch), name


def test_damaged_dumps_build_what_validation_builds(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Stubs, duplicate GUIDs, ports listed twice, bad values: the odd shapes of nodes and
    ports the builder makes from broken dumps."""
    gen = bench_module("gen_ib")
    text, _truth = gen.fabric(gen.FabricSpec(aggregation_nodes=True, management_hosts=1))
    lines = text.split("\n")
    damaged = [
        "\n".join(lines[: len(lines) // 2]),  # truncated: peers without records
        text + "\n" + "\n".join(lines[4:40]),  # a record repeated: a duplicate GUID
        "\n".join(line.replace("4xNDR", "4x???") if i % 3 else line.replace("lid ", "lid x")
                  for i, line in enumerate(lines)),
        "\n".join(line for i, line in enumerate(lines) if i % 7),  # lines lost
    ]
    for i, body in enumerate(damaged):
        path = tmp_path / f"damaged{i}.topo"
        path.write_text(body, encoding="utf-8")
        assert _check(path, monkeypatch), i


@pytest.mark.parametrize("path", [p for p in _dumps() if p.suffix != ".conf"],
                         ids=lambda p: p.name)
def test_nodes_without_ports_change_nothing_else(path: Path) -> None:
    """``fablint topo`` parses dumps without their ports (``ibdump.nodes_without_ports``):
    the links and every other field of every node are the same objects."""
    full = parse_file(str(path), True)
    with ibdump.nodes_without_ports():
        light = parse_file(str(path), True)
    _same(light.links, full.links, f"{path.name}: links")
    assert [n.key for n in light.ib_nodes] == [n.key for n in full.ib_nodes]
    for lean, whole in zip(light.ib_nodes, full.ib_nodes, strict=True):
        assert lean.ports == {}
        _same(lean.model_copy(update={"ports": whole.ports}), whole, f"{path.name}: {whole.key}")
    assert parse_file(str(path), True).ib_nodes == full.ib_nodes, "the block ends with the with"


def test_only_runs_without_ib_rules_skip_the_ports(monkeypatch: pytest.MonkeyPatch) -> None:
    """The IB link rules read the ports, so a lint builds them; ``topo`` selects none."""
    from fablint import engine
    from fablint.config import ProjectConfig
    from fablint.profiles import load_policy

    seen: list[bool] = []
    real = engine.analyse_unit

    def spy(task: tuple[engine.Unit, engine.FilePlan]) -> list[engine.FileResult]:
        seen.append(task[1].ib_ports)
        return real(task)

    monkeypatch.setattr(engine, "analyse_unit", spy)
    dump = str(FIXTURES / "ib" / "ibnetdiscover-noisy-ndr.topo")
    options = {"paths": [dump], "config": ProjectConfig(), "policy": load_policy(), "jobs": 1}
    engine.lint(engine.LintOptions(**options))
    engine.lint(engine.LintOptions(**options, select=["topology", "MTU005", "PFC008"],
                                   topology=True))
    engine.lint(engine.LintOptions(**options, select=["IB001"]))
    assert seen == [True, False, True]
