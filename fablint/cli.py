"""Command line: ``fablint lint | topo | report | rules | explain | parse | profiles | collect |
drift``.

Exit codes: 0 nothing at or above --fail-on; 1 findings at or above it; 2 usage error or an
input that could not be read or parsed; 3 internal error (a bug: please report it).
"""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from fablint import __version__
from fablint.checks import REGISTRY
from fablint.collect.cli import collect_command, drift_command
from fablint.engine import EXIT_ERROR, LintOptions, UsageError, lint
from fablint.ingest import PathNotFound, parse_file
from fablint.lintcmd import (  # noqa: F401  (_color, _render: tests use them through cli)
    EXIT_INTERRUPTED,
    FailOnChoice,
    Format,
    _color,
    _emit,
    _fail,
    _load_intent,
    _load_profile,
    _load_project,
    _plain_summary,
    _render,
    _write_atomic,
    guarded,
    run_lint,
)
from fablint.parallel import gc_paused
from fablint.parsers import PARSERS
from fablint.profiles import display_path, profile_infos, show_json, show_yaml
from fablint.redact import forget as forget_secrets
from fablint.redact import remember
from fablint.resources import rule_docs_dir
from fablint.topocmd import TopoFormat, run_topo
from fablint.yamlio import ConfigError

app = typer.Typer(
    name="fablint",
    help="Lint GPU-cluster fabric configurations: RoCEv2 lossless Ethernet and InfiniBand.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
    rich_markup_mode=None,
)
profiles_app = typer.Typer(help="List and show policy profiles.", no_args_is_help=False)
app.add_typer(profiles_app, name="profiles")
app.command("collect")(collect_command)
app.command("drift")(drift_command)
ConfigOption = Annotated[
    Path | None, typer.Option("--config", "-c", help="fablint.yaml to use.")]
ProfileOption = Annotated[
    str | None, typer.Option("--profile", "-p", help="Policy profile (name or file).")]


@app.command("lint")
def lint_command(
    paths: Annotated[list[str], typer.Argument(help="Files and folders to lint.")],
    output_format: Annotated[
        Format, typer.Option("--format", "-f", help="Report format.")
    ] = Format.text,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the report to this file.")
    ] = None,
    config: ConfigOption = None,
    profile: ProfileOption = None,
    select: Annotated[
        list[str] | None,
        typer.Option("--select", metavar="RULES",
                     help="Run only these rules: ids, prefixes, names or categories, "
                          "comma-separated or repeated (--select PFC,ECN001)."),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", metavar="RULES",
                     help="Do not run these rules (comma-separated or repeated)."),
    ] = None,
    vendor: Annotated[
        str | None, typer.Option("--vendor", help="Force the input format (skip detection).")
    ] = None,
    fail_on: Annotated[
        FailOnChoice | None,
        typer.Option("--fail-on", help="Lowest severity that makes the exit code 1."),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option("--baseline", help="Report only findings not recorded in this file."),
    ] = None,
    write_baseline: Annotated[
        Path | None,
        typer.Option("--write-baseline", help="Record the current findings in this file."),
    ] = None,
    update_baseline: Annotated[
        bool,
        typer.Option("--update-baseline", help="Rewrite the baseline (--baseline or "
                     "fablint.yaml's) without the entries that no longer match a finding; "
                     "new findings are not added."),
    ] = False,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Parser processes (default: CPUs).")
    ] = None,
    no_fixes: Annotated[
        bool, typer.Option("--no-fixes", help="Do not show fix snippets in the text report.")
    ] = False,
    color: Annotated[
        bool | None, typer.Option("--color/--no-color", help="Colour the text report.")
    ] = None,
    intent: Annotated[
        Path | None,
        typer.Option("--intent", help="Intended cabling (fablint topology YAML or an "
                     "ibnetdiscover topology file) to compare the inputs with."),
    ] = None,
    report_only: Annotated[
        bool,
        typer.Option("--report-only", help="PATHS are the files to report on (a pre-commit "
                     "hook's changed files); the fabric linted is --fabric, so cross-device "
                     "rules still see every device."),
    ] = False,
    fabric: Annotated[
        list[str] | None,
        typer.Option("--fabric", metavar="PATH", help="With --report-only: the files and "
                     "folders that make up the fabric (repeatable; default: the current folder)."),
    ] = None,
    fix: Annotated[
        bool, typer.Option("--fix", help="Apply the fixes shown to EOS, NX-OS and SONiC files "
                           "where the place is unambiguous, then report what is left.")
    ] = False,
    diff: Annotated[
        bool, typer.Option("--diff", help="Print the fixes as a unified diff instead of "
                           "applying them (exit 1 when there is one).")
    ] = False,
    statistics: Annotated[
        bool, typer.Option("--statistics", help="Print the number of findings per rule instead "
                           "of the findings.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print nothing when there is nothing to "
                           "report; otherwise only the findings, without the summary line.")
    ] = False,
    also: Annotated[
        list[str] | None,
        typer.Option("--also", metavar="FORMAT:FILE", help="Also write the findings of this "
                     "one lint in another format to FILE (repeatable; CI: --format github "
                     "--also sarif:fablint.sarif --also markdown:summary.md)."),
    ] = None,
) -> None:
    """Lint configuration files and folders.

    Exit codes: 0 no finding at or above --fail-on (default error); 1 findings at or above it;
    2 usage error, or an input that could not be read or parsed; 3 internal error (a bug).
    """
    run_lint(
        paths, output_format=output_format, output=output, config=config, profile=profile,
        select=select, ignore=ignore, vendor=vendor, fail_on=fail_on, baseline=baseline,
        write_baseline=write_baseline, update_baseline=update_baseline, jobs=jobs,
        no_fixes=no_fixes, color=color, intent=intent, report_only=report_only,
        fabric=fabric, fix=fix, diff=diff, statistics=statistics, quiet=quiet, also=also,
    )


@app.command("topo")
def topo_command(
    paths: Annotated[list[str], typer.Argument(help="Configs, LLDP tables and IB dumps.")],
    output_format: Annotated[
        TopoFormat, typer.Option("--format", "-f", help="Summary, data or drawing.")
    ] = TopoFormat.text,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file.")
    ] = None,
    config: ConfigOption = None,
    profile: ProfileOption = None,
    intent: Annotated[
        Path | None, typer.Option("--intent", help="Intended cabling to compare with.")
    ] = None,
) -> None:
    """Show the fabric's cabling: tiers, oversubscription, bisection, rails; its datasheet
    (markdown, and in json); or draw it."""
    run_topo(paths, output_format=output_format, output=output, config=config,
             profile=profile, intent=intent)


@app.command("report")
def report_command(
    paths: Annotated[list[str], typer.Argument(help="Configs, LLDP tables, IB and host dumps.")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the HTML file here.")
    ] = None,
    config: ConfigOption = None,
    profile: ProfileOption = None,
    intent: Annotated[
        Path | None, typer.Option("--intent", help="Intended cabling to compare with.")
    ] = None,
    title: Annotated[str, typer.Option("--title", help="Heading of the report.")] = (
        "Fabric report"),
) -> None:
    """One self-contained HTML report: datasheet, plots, topology, findings, devices."""
    from fablint.report import datasheet, html
    from fablint.report.digest import digest

    try:
        project = _load_project(paths, config)
        policy = _load_profile(project, profile)
        result = lint(LintOptions(paths=paths, config=project, policy=policy, topology=True,
                                  intent=_load_intent(intent, project), digest=digest))
    except (ConfigError, UsageError) as exc:
        _fail(str(exc))
    except PathNotFound as exc:
        _fail(f"path not found: {exc}")
    topo = result.fabric.topology
    with gc_paused():  # the lint's heap is large: collections would walk it over and over
        sheet = datasheet.build(topo, result.fabric, result.digests, policy)
        page = html.render(sheet, topo, result.findings, result.digests, title=title)
    if output is not None:
        _write_atomic(output, page)
        typer.echo(_plain_summary(result), err=True)
    else:
        sys.stdout.write(page)
    raise typer.Exit(result.exit_code)


@app.command("rules")
def rules_command(
    output_format: Annotated[
        str, typer.Option("--format", "-f", help="text or json.")
    ] = "text",
) -> None:
    """List every rule: id, severity, category, title."""
    rules = sorted(REGISTRY.values(), key=lambda r: r.id)
    if output_format == "json":
        typer.echo(json.dumps([
            {"id": r.id, "name": r.name, "severity": r.severity.value, "category": r.category,
             "title": r.title, "vendors": list(r.vendors)}
            for r in rules
        ], indent=2))
        return
    if output_format != "text":
        _fail("--format must be text or json")
    from rich.console import Console
    from rich.table import Table

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("ID", "Name", "Severity", "Category", "Title"):
        table.add_column(column)
    for r in rules:
        table.add_row(r.id, r.name, r.severity.value, r.category, r.title)
    Console(width=140 if not sys.stdout.isatty() else None).print(table)


def _find_rule(query: str) -> str:
    key = query.strip()
    for rule in REGISTRY.values():
        if key.upper() == rule.id or key.lower() == rule.name:
            return rule.id
    _fail(f"unknown rule {query!r} (see 'fablint rules')")


@app.command("explain")
def explain_command(
    rule: Annotated[str, typer.Argument(help="Rule id (PFC001) or name.")],
    raw: Annotated[bool, typer.Option("--raw", help="Print the Markdown source.")] = False,
) -> None:
    """Show a rule's page: what it checks, why it matters, how to fix it per vendor."""
    rule_id = _find_rule(rule)
    page = rule_docs_dir() / f"{rule_id}.md"
    try:
        text = page.read_text(encoding="utf-8")
    except OSError:
        text = f"# {rule_id}\n\n{REGISTRY[rule_id].doc()}\n"
    if raw or not sys.stdout.isatty():
        sys.stdout.write(text)
        return
    from rich.console import Console
    from rich.markdown import Markdown  # 40 ms of imports: only for a page on a terminal

    Console().print(Markdown(text))


@app.command("parse")
def parse_command(
    file: Annotated[Path, typer.Argument(help="One input file.")],
    vendor: Annotated[
        str | None, typer.Option("--vendor", help="Force the input format.")
    ] = None,
) -> None:
    """Print the normalised model of one file as JSON (for debugging parsers)."""
    if vendor is not None and vendor not in PARSERS:
        _fail(f"unknown --vendor {vendor!r}; choose from {', '.join(PARSERS)}")
    if not os.path.lexists(file) or file.is_dir():  # a FIFO or link loop: the read says so
        _fail(f"file not found: {file}")
    outcome = parse_file(str(file), True, vendor)
    remember(outcome.input.secrets)
    document = {
        "file": outcome.input.path,
        "format": outcome.input.format,
        "lines": outcome.input.lines,
        "unknown_lines": outcome.input.unknown_lines,
        "first_unknown": outcome.input.first_unknown,
        "devices": [d.model_dump(mode="json") for d in outcome.devices],
        "ib_nodes": [n.model_dump(mode="json", exclude_defaults=True) for n in outcome.ib_nodes],
        "links": [link.model_dump(mode="json", exclude_defaults=True) for link in outcome.links],
        "problems": [p.model_dump(mode="json") for p in outcome.problems],
    }
    _emit(json.dumps(document, indent=2) + "\n")
    if any(p.fatal for p in outcome.problems):
        raise typer.Exit(EXIT_ERROR)


@profiles_app.callback(invoke_without_command=True)
def profiles_list(
    ctx: typer.Context,
    output_format: Annotated[
        str, typer.Option("--format", "-f", help="text or json.")
    ] = "text",
) -> None:
    """List the built-in profiles: name, what each extends, description, file."""
    if ctx.invoked_subcommand is not None:
        return
    try:
        infos = profile_infos()
    except ConfigError as exc:
        _fail(str(exc))
    if output_format == "json":
        typer.echo(json.dumps([
            {"name": i.name, "extends": i.extends, "description": i.description,
             "file": display_path(i.file)} for i in infos
        ], indent=2))
        return
    if output_format != "text":
        _fail("--format must be text or json")
    from rich.console import Console
    from rich.table import Table

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("Name", "Extends", "Description", "File"):
        table.add_column(column)
    for i in infos:
        table.add_row(i.name, ", ".join(i.extends) or "-", _first_sentence(i.description),
                      display_path(i.file))
    Console(width=160 if not sys.stdout.isatty() else None).print(table)


def _first_sentence(text: str) -> str:
    """The head of a profile description, for the table: up to its first colon or period."""
    head = text.split(". ", 1)[0].rstrip(".")
    return head.split(": ", 1)[0] if ": " in head else head


@profiles_app.command("show")
def profiles_show(
    name: Annotated[str, typer.Argument(help="Profile name or file.")],
    output_format: Annotated[
        str, typer.Option("--format", "-f", help="yaml (values with their source) or json.")
    ] = "yaml",
) -> None:
    """Print a profile with extends resolved, each value with the file and line it came from."""
    if output_format not in ("yaml", "json"):
        _fail("--format must be yaml or json")
    try:
        text = (show_yaml if output_format == "yaml" else show_json)(name, Path.cwd())
    except ConfigError as exc:
        _fail(str(exc))
    sys.stdout.write(text)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"fablint {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[
        bool | None,
        typer.Option("--version", callback=_version_callback, is_eager=True,
                     help="Show the version and exit."),
    ] = None,
) -> None:
    """fablint: lint GPU-cluster fabric configurations."""
    forget_secrets()  # each command masks the secrets of its own inputs (one process, many runs)


def _plain_metavars(command: object) -> object:
    """Give every argument and option a plain placeholder (PATHS..., PATH, TEXT, N, [a|b])
    where typer would print its internal ones (``{paths}``, ``<list[str]>``) in ``--help``."""
    import typing

    for param in getattr(command, "params", []):
        if param.metavar is not None or getattr(param, "is_flag", False):
            continue
        desc = getattr(param, "type_descriptor", None)
        annotation = getattr(desc, "annotation", str)
        inner = typing.get_args(annotation)[0] if typing.get_args(annotation) else annotation
        if param.param_type_name == "argument":
            placeholder = (param.name or "arg").upper() + ("..." if param.nargs == -1 else "")
            # typer >= 0.2x draws required arguments as {NAME} with a <type> after them
            usage = placeholder if param.required else f"[{placeholder}]"
            param._usage_display_name = lambda usage=usage: usage
            param.display_type_rich = lambda ctx=None: ""
        elif getattr(desc, "is_choice", False):
            placeholder = "[" + "|".join(str(getattr(c, "value", c))
                                         for c in desc.choices or ()) + "]"
        elif inner is Path:
            placeholder = "PATH"
        elif inner is int:
            placeholder = "N"
        elif inner is float:
            placeholder = "NUMBER"
        else:
            placeholder = "TEXT"
        param.metavar = placeholder
    for sub in getattr(command, "commands", {}).values():
        _plain_metavars(sub)
    return command


def _command(args: list[str]) -> object:
    """The click command for ``args``: the whole command line, or for ``fablint lint ...`` a
    group that holds only ``lint``. Building every command's parameters costs a twentieth of
    a second, a good part of a pre-commit hook's start; ``lint`` parses, helps and fails in
    that group exactly as in the whole one."""
    target = app
    if args[:1] == ["lint"]:
        target = copy.copy(app)
        target.registered_commands = [c for c in app.registered_commands if c.name == "lint"]
        target.registered_groups = []
    return _plain_metavars(typer.main.get_command(target))


def main() -> None:
    """Console entry point. No traceback reaches the user unless FABLINT_DEBUG is set."""
    guarded(lambda: _command(sys.argv[1:])(standalone_mode=True), _typer_interrupted)


def _typer_interrupted(exc: SystemExit) -> bool:
    """typer turns a KeyboardInterrupt into a silent exit 130: it is still an interrupt."""
    return exc.code == EXIT_INTERRUPTED and isinstance(
        getattr(exc.__context__, "__cause__", None), KeyboardInterrupt)
