"""JSON files are units of their own until their parse tells what grouping would have made of
them (``ingest.look_first``, ``engine._settle``): the lint must be the one grouping every file
first gives, whichever way the speculation turns out (kept, merged again, or another plan)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from fablint import engine, ingest, parallel
from fablint.ingest import Look, discover, group_units, parse_file
from fablint.report.json_report import render

REPO = Path(__file__).resolve().parents[1]
SONIC_FIXTURE = REPO / "fixtures" / "equivalence" / "sonic" / "config_db.json"
EOS_FIXTURE = REPO / "fixtures" / "equivalence" / "eos" / "leaf1.cfg"
CORPUS = Path("/work/shared/corpus")


def _switch(name: str, neighbour: bool = True) -> dict:
    config = json.loads(SONIC_FIXTURE.read_text(encoding="utf-8"))
    config.setdefault("DEVICE_METADATA", {}).setdefault("localhost", {})["hostname"] = name
    if not neighbour:
        config.pop("DEVICE_NEIGHBOR", None)
    return config


def _look_all(files: list[tuple[str, bool]], forced: str | None = None,
              formats: dict[str, str] | None = None, jobs: int | None = None,
              ) -> tuple[dict[str, Look], frozenset[str]]:
    """``look_first`` as grouping did before it: every file looked at, nothing speculated."""
    wanted = [path for path, _ in files if ingest._may_merge(path)]
    return ingest._look(wanted, forced, formats, jobs), frozenset()


def _report(folder: Path, topology: bool = False) -> str:
    """The JSON report of a lint of ``folder`` (with ``topology``, the topology too)."""
    from fablint.config import load_config
    from fablint.profiles import load_policy

    project = load_config(None)
    policy = load_policy(project.profile, project.policy, Path.cwd())
    result = engine.lint(engine.LintOptions(paths=[str(folder)], config=project, policy=policy,
                                            topology=topology))
    topo = result.fabric.topology
    return render(result) + (topo.model_dump_json() if topo is not None else "")


def _layouts(root: Path) -> list[Path]:
    """Folders where speculation holds and where it fails each way."""
    distinct, same, nameless, hosts, lldp_only = (root / n for n in (
        "distinct", "same-host", "nameless", "host-captures", "lldp-only"))
    for folder in (distinct, same, nameless, hosts, lldp_only):
        folder.mkdir()
    for name in ("leaf2", "leaf1", "leaf3"):
        (distinct / f"{name}.json").write_text(json.dumps(_switch(name), indent=4))
    # two documents naming one hostname: one unit of two files (merged again)
    (same / "leaf1.json").write_text(json.dumps(_switch("leaf1"), indent=4))
    (same / "leaf1.override.json").write_text(json.dumps(
        {"DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}},
         "PORT": {"Ethernet0": {"mtu": "1500"}}}, indent=4))
    (same / "leaf2.json").write_text(json.dumps(_switch("leaf2"), indent=4))
    # a nameless fragment keeps the whole folder one merge group
    for name in ("leaf1", "leaf2"):
        (nameless / f"{name}.json").write_text(json.dumps(_switch(name), indent=4))
    (nameless / "qos.json").write_text(json.dumps({"WRED_PROFILE": {"P": {"ecn": "ecn_all"}}}))
    # SONiC switches without neighbours beside a GPU host's captures: the plan the JSON
    # files were expected to need (cables) is more than they bring
    for name in ("leaf1", "leaf2"):
        (hosts / f"{name}.json").write_text(json.dumps(_switch(name, neighbour=False)))
    for file in sorted((REPO / "fixtures" / "hosts" / "constructed-gpu01").iterdir()):
        shutil.copy(file, hosts / file.name)
    # a SONiC switch beside an LLDP table
    (lldp_only / "leaf1.json").write_text(json.dumps(_switch("leaf1"), indent=4))
    for name in ("leaf3_show_lldp_neighbors_detail.json", "leaf1_show_lldp_neighbors_detail.txt"):
        shutil.copy(REPO / "fixtures" / "lldp" / name, lldp_only / name)
    # a switch configuration beside a JSON file in no format: the cables the JSON file was
    # expected to bring never come (the port tables and cable summaries made are dropped)
    foreign = root / "foreign"
    foreign.mkdir()
    shutil.copy(EOS_FIXTURE, foreign / "leaf9.cfg")
    (foreign / "data.json").write_text('{"answer": 42}')
    # a GPU host's capture saved as '.cfg' (never looked at before its parse) brings hosts,
    # which the plan did not expect: the run starts again
    surprise = root / "surprise"
    surprise.mkdir()
    (surprise / "leaf1.json").write_text(json.dumps(_switch("leaf1"), indent=4))
    shutil.copy(REPO / "fixtures" / "hosts" / "constructed-gpu01" / "mlnx_qos_ens1f0.txt",
                surprise / "gpu01.cfg")
    return [distinct, same, nameless, hosts, lldp_only, foreign, surprise]


@pytest.fixture(autouse=True)
def _speculate_every_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The layouts are small: every folder's JSON files are left to their parse."""
    monkeypatch.setattr(ingest, "SPECULATED_FOLDER_FILES", 1)


def test_a_few_fragments_are_looked_at_first(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ingest, "SPECULATED_FOLDER_FILES", 3)
    few, many = tmp_path / "few", tmp_path / "many"
    for folder, count in ((few, 2), (many, 3)):
        folder.mkdir()
        for n in range(count):
            (folder / f"leaf{n}.json").write_text(json.dumps(_switch(f"leaf{n}")))
    looks, speculated = ingest.look_first(discover([str(tmp_path)]))
    assert sorted(Path(p).parent.name for p in looks) == ["few", "few"]
    assert sorted(Path(p).parent.name for p in speculated) == ["many"] * 3


def test_the_parse_looks_as_grouping_does(tmp_path: Path) -> None:
    for folder in _layouts(tmp_path):
        for path, explicit in discover([str(folder)]):
            if not ingest._may_merge(path):
                continue
            grouping = ingest._look_task((path, None, True))
            parsed = parse_file(path, explicit, None, look=True).look
            assert parsed is not None
            assert (parsed.group, parsed.format, parsed.host) == \
                (grouping.group, grouping.format, grouping.host), path


@pytest.mark.parametrize("forked", [False, True])
def test_speculation_lints_as_grouping_first(tmp_path: Path, forked: bool,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    if forked:  # every map of units in two processes, however small the input
        monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)
        monkeypatch.setattr(parallel, "cpu_count", lambda _jobs=None: 2)
    folders = _layouts(tmp_path)
    for folder in folders:
        files = discover([str(folder)])
        looks, speculated = ingest.look_first(files)
        assert speculated  # every layout has JSON files left to their parse
        speculative = ingest.units_of(files, looks)
        if folder.name == "distinct":
            assert speculative == group_units(files)  # nothing to settle
        elif folder.name in ("same-host", "nameless"):
            assert speculative != group_units(files)  # merged again after the parse
    narrowed = []
    real_narrow = engine._narrow

    def narrow(results: list[engine.FileResult], plan: engine.FilePlan,
               final: engine.FilePlan) -> bool:
        narrowed.append((plan.topology, final.topology, plan.available, final.available))
        return real_narrow(results, plan, final)

    monkeypatch.setattr(engine, "_narrow", narrow)
    spoken = {folder.name: _report(folder) for folder in folders}
    assert (True, False, frozenset({"links"}), frozenset()) in narrowed  # "foreign"
    assert any(not final <= plan for _, _, plan, final in narrowed)  # "surprise"
    spoken["all"] = _report(tmp_path, topology=True)
    monkeypatch.setattr(engine, "look_first", _look_all)
    for folder in folders:
        assert _report(folder) == spoken[folder.name], folder.name
    assert _report(tmp_path, topology=True) == spoken["all"]


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")
def test_speculation_lints_the_corpus_as_grouping_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for folder in (CORPUS / "sonic", CORPUS):
        speculated = _report(folder)
        with monkeypatch.context() as patched:
            patched.setattr(engine, "look_first", _look_all)
            assert _report(folder) == speculated, folder
