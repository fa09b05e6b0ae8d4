"""Property tests of the SONiC parser: whatever the input, it returns a sane result or raises
ParseError naming the file and a line inside it. Never another exception."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.sonic import MAPS, SonicParser
from fablint.testing import source_refs

FILE = "config_db.json"
REPO = Path(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
PARSER = SonicParser()


def _corpus() -> Path:
    return Path(os.environ.get("FABLINT_CORPUS", REPO.parent / "shared" / "corpus"))


def _corpus_files(folder: str | None = None) -> list[Path]:
    root = _corpus() / folder if folder else _corpus()
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.is_file()
                  and p.name not in ("MANIFEST.tsv", "README.md"))


def _params(files: list[Path]) -> list[object]:
    if files:
        return [pytest.param(p, id=str(p.relative_to(_corpus()))) for p in files]
    reason = f"shared corpus not found at {_corpus()} (set FABLINT_CORPUS)"
    return [pytest.param(None, id="no-corpus", marks=pytest.mark.skip(reason=reason))]



def check_result(result: ParseResult, texts: dict[str, str]) -> None:
    assert isinstance(result, ParseResult)
    total = sum(t.count("\n") + 1 for t in texts.values())
    assert 1 <= result.lines <= total
    assert 0 <= result.unknown_lines <= result.lines
    for device in result.devices:
        assert device.name.strip() and device.vendor == "sonic"
        assert set(device.files) <= set(texts)
        device.model_dump_json()  # serialisable, as reports need it
        for ref in source_refs(device):
            assert ref.file in texts, ref
            assert ref.line is None or 1 <= ref.line <= texts[ref.file].count("\n") + 1, ref
    for problem in result.problems:
        assert problem.file in texts and problem.message
        assert problem.line is None or 1 <= problem.line <= texts[problem.file].count("\n") + 1


def parse_checked(text: str) -> ParseResult | ParseError:
    try:
        result = PARSER.parse(text, FILE)
    except ParseError as exc:
        assert exc.file == FILE and exc.message
        assert exc.line is not None and 1 <= exc.line <= text.count("\n") + 1, exc
        return exc
    check_result(result, {FILE: text})
    return result


# -- strategies ------------------------------------------------------------------------------

TABLES = ["PORT", "PORT_QOS_MAP", "QUEUE", "WRED_PROFILE", "SCHEDULER", "BUFFER_PG",
          "BUFFER_QUEUE", "BUFFER_POOL", "BUFFER_PROFILE", "CABLE_LENGTH", "PFC_WD", "ACL_TABLE",
          "ACL_RULE", "DEVICE_METADATA", "INTERFACE", "PORTCHANNEL", "PORTCHANNEL_MEMBER",
          "PORTCHANNEL_INTERFACE", "DEVICE_NEIGHBOR", "VLAN_INTERFACE", "LOOPBACK_INTERFACE",
          *(table for table, *_ in MAPS.values())]
NAMES = st.sampled_from(["Ethernet0", "Ethernet4", "PortChannel0001", "global", "GLOBAL",
                         "localhost", "AZURE", "Ethernet0|3", "Ethernet0|3-4",
                         "Ethernet0,Ethernet4|0,1", "h|asic0|Ethernet0|3", "Ethernet0|9-1",
                         "DATAACL|R1", "DATAACL", "Ethernet0|10.0.0.0/31", "|", "", "3"])
FIELDS = st.sampled_from(["mtu", "speed", "admin_status", "lanes", "pfc_enable",
                          "pfcwd_sw_enable", "dscp_to_tc_map", "tc_to_queue_map",
                          "pfc_to_queue_map", "scheduler", "wred_profile", "profile", "pool",
                          "ecn", "green_min_threshold", "green_max_threshold", "type", "weight",
                          "wred_green_enable", "green_drop_probability", "action",
                          "detection_time", "POLL_INTERVAL", "ports", "ports@", "members",
                          "stage", "PRIORITY", "PACKET_ACTION", "L4_DST_PORT", "IP_PROTOCOL",
                          "L4_DST_PORT_RANGE", "ETHER_TYPE", "IP_TYPE", "hostname", "size",
                          "xoff", "dynamic_th", "buffer_model", "name", "port", "local_port",
                          "default_pfcwd_status", "asic_name", "26", "3", "Ethernet0"])
SCALARS = st.one_of(
    st.sampled_from(["", "3", "3,4", "0-7", "9100", "jumbo", "up", "down", "NULL", "AZURE",
                     "[WRED_PROFILE|AZURE]", "[X|", "ecn_all", "ecn_none", "true", "STRICT",
                     "DWRR", "DROP", "FORWARD", "-1", "1e400", "0x800", "9" * 40, "5m", "x m",
                     "ingress", "EGRESS", "Ethernet0", "4791", "10-20", "\ud800", "\x00"]),
    st.integers(min_value=-(10**20), max_value=10**20), st.floats(allow_nan=True),
    st.booleans(), st.none(), st.text(max_size=12),
)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.one_of(FIELDS, st.text(max_size=6)), inner,
                                                 max_size=4)), max_leaves=12)
ROWS = st.dictionaries(NAMES, st.one_of(
    st.dictionaries(FIELDS, VALUES, max_size=6), VALUES), max_size=4)
DOCUMENTS = st.one_of(
    st.dictionaries(st.sampled_from(TABLES), ROWS, max_size=6),
    st.dictionaries(st.builds(lambda t, k: f"{t}|{k}", st.sampled_from(TABLES), NAMES),
                    st.dictionaries(FIELDS, VALUES, max_size=4), max_size=8),
    st.dictionaries(st.text(max_size=8), VALUES, max_size=4),
)


def _dumps(data: Any, indent: int | None) -> str:
    return json.dumps(data, indent=indent, ensure_ascii=False)


# -- properties ------------------------------------------------------------------------------


@SETTINGS
@given(st.text(max_size=400))
def test_arbitrary_text(text: str) -> None:
    parse_checked(text)


@SETTINGS
@given(DOCUMENTS, st.sampled_from([None, 1, 4]))
def test_arbitrary_documents(data: dict[str, Any], indent: int | None) -> None:
    parse_checked(_dumps(data, indent))


@SETTINGS
@given(DOCUMENTS, st.integers(min_value=0, max_value=2000))
def test_truncated_documents(data: dict[str, Any], cut: int) -> None:
    text = _dumps(data, 2)
    parse_checked(text[:cut])


@SETTINGS
@given(st.binary(max_size=300))
def test_binary_junk(data: bytes) -> None:
    parse_checked(data.decode("utf-8", "replace"))
    parse_checked("{" + data.decode("latin-1"))


@SETTINGS
@given(st.lists(st.tuples(DOCUMENTS, st.sampled_from(["a.json", "b.json", "c.json"])),
                max_size=4, unique_by=lambda item: item[1]))
def test_several_documents(docs: list[tuple[dict[str, Any], str]]) -> None:
    texts = {name: _dumps(data, 2) for data, name in docs}
    result = PARSER.parse_documents([(text, name) for name, text in texts.items()])
    if texts:
        check_result(result, texts)


@pytest.mark.parametrize("path", _params(_corpus_files("sonic")))
@SETTINGS
@given(cut=st.floats(min_value=0, max_value=1))
def test_truncated_corpus_files(path: Path, cut: float) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    parse_checked(text[: int(len(text) * cut)])


@pytest.mark.parametrize("path", _params(_corpus_files()))
def test_every_corpus_file(path: Path) -> None:
    """Every file of every folder: parsed, or a ParseError; SONiC JSON always parses."""
    text = path.read_bytes().decode("utf-8", "replace")
    outcome = parse_checked(text)
    if path.parent.name == "sonic":
        claimed = PARSER.sniff(text[:16384]) >= 30
        assert claimed == path.name.endswith(".json"), path.name
        if claimed:
            assert isinstance(outcome, ParseResult) and outcome.devices
