"""The ``topo`` command's work, without typer: what ``fablint topo`` does once its arguments
are parsed, and the parse of its plain invocations.

``fablint.cli`` declares the command for typer (options, help, errors) and calls ``run_topo``.
A plain ``fablint topo PATHS [--format F]`` (``plain_arguments``) is run from here by the
entry point without importing typer or building the click command, as a plain ``fablint
lint`` is (``fablint.lintcmd``); anything else goes to typer. ``tests/test_startup.py`` proves
that both read every such command line alike and print the same.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any, NoReturn

from fablint.engine import EXIT_ERROR, LintOptions, UsageError, lint
from fablint.ingest import PathNotFound
from fablint.lintcmd import (
    _emit,
    _fail,
    _load_intent,
    _load_profile,
    _load_project,
    _write_atomic,
    read_plain,
    run_plain,
)
from fablint.parallel import gc_paused
from fablint.yamlio import ConfigError


class TopoFormat(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"
    mermaid = "mermaid"
    svg = "svg"


def run_topo(
    paths: list[str],
    output_format: TopoFormat = TopoFormat.text,
    output: Path | None = None,
    config: Path | None = None,
    profile: str | None = None,
    intent: Path | None = None,
) -> NoReturn:
    """``fablint topo`` with its options parsed (``cli.topo_command`` documents them); ends
    with ``SystemExit`` and the exit code."""
    from fablint.report.topo import RENDERERS as TOPO_RENDERERS

    sheet = output_format in (TopoFormat.markdown, TopoFormat.json)
    if sheet:  # (the datasheet's modules only where it is written)
        from fablint.report import datasheet
        from fablint.report.digest import digest
    try:
        project = _load_project(paths, config)
        policy = _load_profile(project, profile)
        result = lint(LintOptions(paths=paths, config=project, policy=policy,
                                  select=["topology", "MTU005", "PFC008"], topology=True,
                                  intent=_load_intent(intent, project),
                                  digest=digest if sheet else None))
    except (ConfigError, UsageError) as exc:
        _fail(str(exc))
    except PathNotFound as exc:
        _fail(f"path not found: {exc}")
    topo = result.fabric.topology
    if topo is None or not topo.cables:
        _fail("no cabling found: give LLDP neighbour tables, SONiC DEVICE_NEIGHBOR or IB "
              "dumps along with the configurations")
    if sheet:
        with gc_paused():
            ds = datasheet.build(topo, result.fabric, result.digests, policy)
        text = datasheet.render_markdown(ds) if output_format == TopoFormat.markdown else \
            TOPO_RENDERERS["json"](topo, result.findings, ds)
    else:
        text = TOPO_RENDERERS[output_format.value](topo, result.findings)
    if output is not None:
        _write_atomic(output, text)
    else:
        _emit(text)
    if result.errors:
        raise SystemExit(EXIT_ERROR)
    raise SystemExit(1 if any(f.severity.rank >= 3 for f in result.findings) else 0)


_FORMATS = {f.value: f for f in TopoFormat}


def plain_arguments(args: list[str]) -> dict[str, Any] | None:
    """The ``run_topo`` parameters of ``fablint topo ARGS`` when ARGS are only paths and
    ``--format`` (``lintcmd.read_plain``); else None, and typer parses, helps or fails."""
    return read_plain(args, {}, {"--format": "output_format", "-f": "output_format"}, _FORMATS)


def main(options: dict[str, Any]) -> None:
    """Run a plain ``fablint topo`` (``plain_arguments``) as ``fablint.cli.main`` runs it
    through typer and click (``lintcmd.run_plain``)."""
    run_plain(lambda: run_topo(**options))
