"""Coverage of the shared corpus: for each file, the share of lines its parser understood is
recorded in tests/data/coverage.tsv and may only go up; a supported-format file whose read is
partial by its format's measure has a FAB005 finding saying so (fablint.parsers.coverage).

Regenerate the table after a parser improvement: ``python -m tests.test_coverage``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fablint.ingest import parse_file
from fablint.parsers import PARSERS
from fablint.parsers.coverage import MIN_UNKNOWN, UNKNOWN_SHARE
from fablint.parsers.detect import read_text
from tests.conftest import CORPUS, FIXTURES

TABLE = Path(__file__).parent / "data" / "coverage.tsv"
HEADER = "file\tformat\tlines\tunknown\tunderstood\n"


def _measure(path: Path) -> tuple[str, int, int, float] | None:
    outcome = parse_file(str(path), False)
    fmt = outcome.input.format
    if fmt is None:
        return None
    lines = max(outcome.input.lines, 1)
    unknown = outcome.input.unknown_lines
    return fmt, lines, unknown, round(1 - unknown / lines, 4)


def _corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*") if p.is_file()
                  and p.name not in ("MANIFEST.tsv", "README.md"))


def _recorded() -> dict[str, tuple[str, float]]:
    out = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines()[1:]:
        name, fmt, _lines, _unknown, understood = line.split("\t")
        out[name] = (fmt, float(understood))
    return out


def write_table() -> None:
    rows = [HEADER]
    for path in _corpus_files():
        measured = _measure(path)
        if measured is not None:
            fmt, lines, unknown, understood = measured
            rows.append(f"{path.relative_to(CORPUS)}\t{fmt}\t{lines}\t{unknown}\t{understood}\n")
    TABLE.write_text("".join(rows), encoding="utf-8")


needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not found")


@needs_corpus
def test_coverage_only_goes_up() -> None:
    recorded = _recorded()
    assert recorded, "tests/data/coverage.tsv is empty"
    worse = []
    for name, (fmt, understood) in recorded.items():
        path = CORPUS / name
        if not path.is_file():
            continue  # the corpus changed; regenerate the table
        measured = _measure(path)
        assert measured is not None, f"{name} is no longer recognised (was {fmt})"
        if measured[3] < understood - 1e-9:
            worse.append(f"{name}: {measured[3]:.4f} < {understood:.4f}")
    assert not worse, "coverage went down (regenerate only if it went up): " + "; ".join(worse)


@needs_corpus
def test_every_recognised_corpus_file_is_in_the_table() -> None:
    recorded = _recorded()
    missing = [str(p.relative_to(CORPUS)) for p in _corpus_files()
               if _measure(p) is not None and str(p.relative_to(CORPUS)) not in recorded]
    assert not missing, f"not in tests/data/coverage.tsv: {missing}"


@needs_corpus
@pytest.mark.parametrize("path", _corpus_files() if CORPUS.is_dir() else [],
                         ids=lambda p: str(p.relative_to(CORPUS)))
def test_a_partial_read_has_a_parse_finding(path: Path) -> None:
    outcome = parse_file(str(path), False)
    fmt = outcome.input.format
    if fmt is None:
        return
    partial = [p for p in outcome.problems if p.kind == "partial"]
    result = PARSERS[fmt].parse(read_text(path), str(path))
    lines = max(result.lines, 1)
    below = fmt in UNKNOWN_SHARE and result.unknown_lines >= MIN_UNKNOWN and \
        result.unknown_lines / lines >= UNKNOWN_SHARE[fmt]
    if below or result.foreign_lines:
        assert partial, f"{path.name}: partial read without FAB005"
        assert all(p.line for p in partial)
    else:
        # only a cut export is partial by another measure than the share
        assert all("stops" in p.message or "after 'end'" in p.message for p in partial)


if __name__ == "__main__":
    write_table()
    sys.stdout.write(f"wrote {TABLE}\n")


FIRST_UNKNOWN_FORMATS = ("eos", "nxos", "sonic", "opensm", "opensm-partitions", "mlnx_qos",
                         "sysfs_ecn")


@needs_corpus
def test_parsers_name_their_first_unknown_line() -> None:
    paths = [*_corpus_files(), *sorted((FIXTURES / "hosts").rglob("*")),
             *sorted((FIXTURES / "opensm").rglob("*"))]
    checked = 0
    for path in paths:
        if not path.is_file():
            continue
        outcome = parse_file(str(path), False)
        info = outcome.input
        if info.format not in FIRST_UNKNOWN_FORMATS or not info.unknown_lines:
            continue
        checked += 1
        assert info.first_unknown is not None, path
        assert 1 <= info.first_unknown <= info.lines, path
    assert checked >= 15
