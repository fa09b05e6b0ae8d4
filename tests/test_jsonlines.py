"""jsonlines.load's fast path (``json.loads`` and the lines that hold ``":``) gives what the
member-by-member walk gives, or declines: values, types, the line of every key, duplicates."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fablint.parsers.jsonlines import LinedDict, Loaded, _load_fast, _Loader, load

REPO = Path(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _corpus() -> Path:
    return Path(os.environ.get("FABLINT_CORPUS", REPO.parent / "shared" / "corpus"))


def _json_files() -> list[Any]:
    root = _corpus()
    files = sorted(root.rglob("*.json")) if root.is_dir() else []
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason="shared corpus not found"))]
    return [pytest.param(p, id=str(p.relative_to(root))) for p in files]


def _shape(value: Any) -> Any:
    """Everything a caller can see of a loaded value: types, order, values and key lines."""
    if isinstance(value, dict):
        lines = value.lines if isinstance(value, LinedDict) else None
        return (type(value).__name__, [(k, _shape(v)) for k, v in value.items()], lines)
    if isinstance(value, list):
        return ["list", [_shape(v) for v in value]]
    return (type(value).__name__, value)


def _same(text: str) -> Loaded | None:
    """Assert that the fast path, when it answers, answers as the walk does; return its answer."""
    fast = _load_fast(text, 4)
    if fast is None:
        return None
    slow = _Loader(text, 4).load()
    assert _shape(fast.value) == _shape(slow.value)
    assert fast.duplicates == slow.duplicates == []
    return fast


@pytest.mark.parametrize("path", _json_files())
def test_every_corpus_json_file(path: Path | None) -> None:
    assert path is not None
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        _Loader(text, 4).load()
    except Exception:  # not a JSON object: the fast path must decline too
        assert _load_fast(text, 4) is None
        return
    _same(text)


def test_pretty_printed_config_db_takes_the_fast_path() -> None:
    doc = {"DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}},
           "PORT": {"Ethernet0": {"mtu": "9100", "lanes": "0,1"}, "Ethernet4": {}},
           "VLAN": {"Vlan10": {"members": ["Ethernet0", "Ethernet4"], "vlanid": 10}},
           "DEEP": {"a": {"b": {"c": {"d": {"e": "f"}, "g": [{"h": 1}]}}}}}
    text = json.dumps(doc, indent=4)
    loaded = _same(text)
    assert loaded is not None
    assert loaded.value.lines["PORT"] == 7
    assert loaded.value["PORT"]["Ethernet0"].lines == {"mtu": 9, "lanes": 10}
    assert type(loaded.value["DEEP"]["a"]["b"]) is LinedDict  # the fourth level
    assert type(loaded.value["DEEP"]["a"]["b"]["c"]) is dict  # deeper


def test_large_documents_are_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path holds several copies of a document: above FAST_MAX_CHARS, the walk."""
    import fablint.parsers.jsonlines as jsonlines

    text = json.dumps({"PORT": {f"Ethernet{n}": {"mtu": "9100"} for n in range(50)}}, indent=4)
    assert _load_fast(text, 4) is not None
    monkeypatch.setattr(jsonlines, "FAST_MAX_CHARS", len(text) - 1)
    assert _load_fast(text, 4) is None
    assert _shape(load(text).value) == _shape(_Loader(text, 4).load().value)


@pytest.mark.parametrize("text", [
    '{"A": {"x": "1", "x": "2"}}',                         # duplicate on one line
    '{\n"A": {\n"x": "1",\n"x": "2"\n}\n}',                # duplicate on lines of its own
    '{\n"A": {\n"x": {\n"y": {\n"z": {\n"q": 1,\n"q": 2\n}\n}\n}\n}\n}',  # deep duplicate
    '{\n"A"  : "1",\n"B": ":x"\n}',                         # spaced key and a ':' string
    '{\n"A" : "1",\n"B": [\n":x",\n"y"\n]\n}',
    '{\n"A": "1",\n"B": [\n" :x",\n"y"\n]\n}',
    '{\n"A": "1",\n"B": [\n"\t :x",\n"y"\n]\n}',
    '{\n"A"\n: "1"\n}',                                      # a colon on the next line
    '{\n"A": "a\\" :b"\n}',
    '{\n"A": "a\\":b"\n}',                                   # escaped quote before a colon
    '{"A": "1", "B": "2"}',                                  # two keys on a line
    '[1, 2]', '"x"', '{"A": 1} x', '', '{\n"A": \n}',
])
def test_what_the_fast_path_declines(text: str) -> None:
    assert _load_fast(text, 4) is None
    try:
        expected = _Loader(text, 4).load()
    except Exception as exc:
        with pytest.raises(type(exc)):
            load(text)
        return
    got = load(text)
    assert _shape(got.value) == _shape(expected.value)
    assert got.duplicates == expected.duplicates


_scalars = st.one_of(st.text(alphabet=':"\\ ab{}[],\n', max_size=6), st.integers(), st.none(),
                     st.booleans(), st.floats(allow_nan=False, allow_infinity=False))
_keys = st.text(alphabet=':"\\ ab{}', max_size=4)
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(_keys, inner, max_size=4)), max_leaves=20)


@SETTINGS
@given(st.dictionaries(_keys, _values, max_size=5), st.sampled_from([None, 0, 1, 4, "\t"]),
       st.sampled_from([(", ", ": "), (",", ":"), (",", " : "), (",", "  :"), (",", "\t:"),
                        (",", "\n:")]))
def test_arbitrary_documents(doc: dict[str, Any], indent: int | str | None,
                             separators: tuple[str, str]) -> None:
    _same(json.dumps(doc, indent=indent, separators=separators))


@SETTINGS
@given(st.dictionaries(_keys, _values, max_size=5), st.data())
def test_documents_with_a_repeated_member(doc: dict[str, Any], data: st.DataObject) -> None:
    """A key given twice (at any level the text shows) is a duplicate, never a shifted line."""
    text = json.dumps(doc, indent=2)
    lines = text.split("\n")
    keyed = [n for n, line in enumerate(lines) if line.strip().startswith('"') and
             line.rstrip().endswith(",")]
    if not keyed:
        return
    n = data.draw(st.sampled_from(keyed))
    twice = "\n".join([*lines[:n + 1], lines[n], *lines[n + 1:]])
    try:
        slow = _Loader(twice, 4).load()
    except Exception:
        return
    _same(twice)
    got = load(twice)
    assert _shape(got.value) == _shape(slow.value) and got.duplicates == slow.duplicates
