"""Every parser against every real file in the shared corpus: nothing but ParseError escapes,
and each file is either recognised as its own format or reported as unsupported."""

from __future__ import annotations

from pathlib import Path

import pytest

from fablint.ingest import discover, parse_file
from fablint.parsers import PARSERS, ParseError
from tests.conftest import CORPUS

FILES = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name not in
               ("MANIFEST.tsv", "README.md")) if CORPUS.is_dir() else []
NEEDS_CORPUS = pytest.mark.skipif(not FILES, reason=f"shared corpus not found at {CORPUS}")

# Folder of the corpus -> the format its files are, for folders whose format fablint reads.
# Files that are not in that format (templates, .ini lookups) must not be claimed by it.
FOLDER_FORMAT = {"eos": "eos", "nxos": "nxos", "sonic": "sonic", "lldp": "lldp"}
CONFIG_FORMATS = ("eos", "nxos", "sonic")
NOT_CONFIGS = (".j2", ".ini", ".yaml")
# Files of folders that hold several formats (ib/) -> their format. A file not listed here is
# never claimed as one of these formats.
FILE_FORMAT = {
    "ib/rhel6-opensm-3.3.9-default.conf": "opensm",
    "ib/bentwire-opensm.conf": "opensm",
    "ib/chester-gillon-opensm-qos-fragment.conf": "opensm",
    "ib/bentwire-partitions.conf": "opensm-partitions",
    "ib/ibtopotool-1-manpage-sdr.topo": "ibnetdiscover",
    "ib/ibtopotool-2-ibm-small.topo": "ibnetdiscover",
    "ib/ibtopotool-4-oracle-sun-qdr.topo": "ibnetdiscover",
    "ib/infiniband-exporter-ibnetdiscover-p-edr.out": "ibnetdiscover-ports",
    "ib/infiniband-exporter-ibnetdiscover-p-hdr.out": "ibnetdiscover-ports",
    "ib/qdr-teaker-iblinkinfo-excerpt.txt": "iblinkinfo",
}
IB_DUMP_FORMATS = ("ibnetdiscover", "ibnetdiscover-ports", "iblinkinfo", "ib-subnet-list",
                   "ibdiagnet-net-dump", "ibdiagnet-db-csv")
OPENSM_FORMATS = ("opensm", "opensm-partitions", "opensm-qos-policy")


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(CORPUS)) for p in paths]


@NEEDS_CORPUS
@pytest.mark.parametrize("parser_name", sorted(PARSERS))
@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_parser_survives_every_corpus_file(parser_name: str, path: Path) -> None:
    text = path.read_bytes().decode("utf-8", "replace")
    try:
        result = PARSERS[parser_name].parse(text, path.name)
    except ParseError as exc:
        assert exc.file == path.name
        return
    for problem in result.problems:
        assert problem.line is None or 1 <= problem.line <= text.count("\n") + 1


@NEEDS_CORPUS
@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_each_corpus_file_is_recognised_or_reported(path: Path) -> None:
    outcome = parse_file(str(path), False)
    folder = path.relative_to(CORPUS).parts[0]
    relative = path.relative_to(CORPUS).as_posix()
    expected = FILE_FORMAT.get(relative, FOLDER_FORMAT.get(folder))
    if relative not in FILE_FORMAT:
        assert outcome.input.format not in OPENSM_FORMATS
        assert outcome.input.format not in IB_DUMP_FORMATS
    if expected in PARSERS and not path.name.endswith(NOT_CONFIGS):
        assert outcome.input.format == expected, outcome.problems
        assert not [p for p in outcome.problems if p.fatal]
        assert outcome.devices or outcome.links or outcome.ib_nodes
    elif outcome.input.format is None:
        assert [p.kind for p in outcome.problems] in (["unsupported"], ["parse-error"])
        assert outcome.problems[0].fatal
    if expected not in CONFIG_FORMATS:  # IB, LLDP, other vendors: never taken for a config
        assert outcome.input.format not in CONFIG_FORMATS
    if path.name.endswith(NOT_CONFIGS):
        assert outcome.input.format is None, f"{path.name} claimed as {outcome.input.format}"


@NEEDS_CORPUS
def test_the_whole_corpus_lints_without_a_traceback() -> None:
    files = discover([str(CORPUS)])
    # templates and INI lookup tables are not inputs: a walk leaves them out without a word
    walked = [p for p in FILES if p.suffix not in (".j2", ".ini")]
    assert sorted(Path(f) for f, _ in files) == walked
    for path, explicit in files:
        outcome = parse_file(path, explicit)
        assert outcome.input.path == path
