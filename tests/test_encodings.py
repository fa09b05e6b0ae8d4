"""Line ends and encodings are decoded once, before detection and parsing (parsers.base
.decode_input): every shared-corpus file saved with CRLF, with a UTF-8 BOM, with CR only or as
UTF-16 gives the same findings, at the same lines, as the original."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, lint
from fablint.parsers.base import decode_input, normalise_newlines
from fablint.parsers.detect import read_text
from fablint.profiles import load_policy
from tests.conftest import CORPUS, FIXTURES

Key = tuple[str, str | None, str | None, str | None, int | None, str]


def _findings(root: Path) -> list[Key]:
    result = lint(LintOptions(paths=[str(root)], config=ProjectConfig(), policy=load_policy(),
                              jobs=1))
    out = []
    for f in result.findings:
        rel = str(Path(f.file).relative_to(root)) if f.file else None
        out.append((f.rule, f.device, f.object, rel, f.line, f.message.replace(str(root), "")))
    return sorted(out, key=repr)


def _crlf(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def _cr(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")


def _bom(data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data


def _bom_crlf(data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + _crlf(data)


def _utf16(data: bytes) -> bytes:
    return data.decode("utf-8", "replace").encode("utf-16")  # BOM, native order (LE here)


def _utf16_be_crlf(data: bytes) -> bytes:
    return b"\xfe\xff" + _crlf(data).decode("utf-8", "replace").encode("utf-16-be")


def _copy(src: Path, dst: Path, convert: Callable[[bytes], bytes]) -> None:
    for path in sorted(src.rglob("*")):
        target = dst / path.relative_to(src)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif path.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(convert(path.read_bytes()))


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Key]]:
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    root = tmp_path_factory.mktemp("lf") / "corpus"
    shutil.copytree(CORPUS, root)
    return root, _findings(root)


@pytest.mark.parametrize("convert", [_crlf, _bom, _bom_crlf, _cr, _utf16],
                         ids=["crlf", "utf8-bom", "utf8-bom-crlf", "cr", "utf16"])
def test_every_corpus_file_converted_lints_the_same(
        convert: Callable[[bytes], bytes], original: tuple[Path, list[Key]],
        tmp_path: Path) -> None:
    root, expected = original
    assert len(expected) > 50  # the corpus has findings to compare (fewer since grouping by cause)
    copy = tmp_path / "corpus"
    _copy(root, copy, convert)
    assert _findings(copy) == expected


def test_a_sample_in_utf16_big_endian_with_crlf_lints_the_same(tmp_path: Path) -> None:
    src = FIXTURES / "demo"
    plain = tmp_path / "plain"
    shutil.copytree(src, plain)
    converted = tmp_path / "converted"
    _copy(src, converted, _utf16_be_crlf)
    expected = _findings(plain)
    assert expected
    assert _findings(converted) == expected


@pytest.mark.parametrize(("data", "text"), [
    (b"a\r\nb\r\n", "a\nb\n"),
    (b"a\rb\r", "a\nb\n"),
    (b"\xef\xbb\xbfa\nb", "a\nb"),
    (b"\xff\xfea\x00\r\x00\n\x00", "a\n"),
    (b"\xfe\xff\x00a\x00\n", "a\n"),
    (b"h\x00o\x00s\x00t\x00\n\x00", "host\n"),  # UTF-16LE without a BOM (PowerShell '>')
    (b"a\r\nb\rc\n", "a\nb\rc\n"),  # a stray CR in a CRLF file does not end a line
])
def test_decode_input(data: bytes, text: str) -> None:
    assert decode_input(data) == (text, 0)


def test_line_numbers_survive_every_convention() -> None:
    lines = ["hostname leaf1", "", "interface Ethernet1", "   mtu 9214", ""]
    for end in ("\n", "\r\n", "\r"):
        assert normalise_newlines(end.join(lines)).split("\n") == lines


def test_utf16_is_not_called_binary(tmp_path: Path) -> None:
    path = tmp_path / "leaf1.cfg"
    text = (FIXTURES / "demo" / "leaf1.cfg").read_text(encoding="utf-8")
    path.write_bytes(text.encode("utf-16"))
    assert read_text(path) == text


def test_a_head_cut_inside_a_character_decodes(tmp_path: Path) -> None:
    assert decode_input("héllo".encode("utf-16")[:6], partial=True) == ("h\u00e9", 0)
    assert decode_input("hé".encode()[:2], partial=True)[1] == 0


def test_crlf_nxos_lldp_table_keeps_its_wrapped_rows(tmp_path: Path) -> None:
    from fablint.ingest import parse_file

    src = CORPUS / "lldp" / "nxos-show-lldp-neighbors.raw"
    if not src.is_file():
        pytest.skip("shared corpus not found")
    crlf = tmp_path / "lldp.txt"
    crlf.write_bytes(_crlf(src.read_bytes()))
    expected = parse_file(str(src), True)
    got = parse_file(str(crlf), True)
    assert expected.links
    def cables(links: list) -> list[tuple]:
        return [(lk.a.interface, lk.b.device, lk.b.interface, lk.src.line) for lk in links]

    assert cables(got.links) == cables(expected.links)
