"""Command line: ``fablint lint | topo | report | rules | explain | parse | profiles | collect |
drift``.

Exit codes: 0 nothing at or above --fail-on; 1 findings at or above it; 2 usage error or an
input that could not be read or parsed; 3 internal error (a bug: please report it).
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import stat
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from fablint import __version__
from fablint.checks import REGISTRY
from fablint.collect.cli import collect_command, drift_command
from fablint.config import ProjectConfig, find_config, load_config
from fablint.engine import (
    EXIT_ERROR,
    LintOptions,
    LintResult,
    UsageError,
    baseline_document,
    lint,
)
from fablint.ingest import PathNotFound, parse_file
from fablint.parallel import gc_paused
from fablint.parsers import PARSERS
from fablint.policy import Policy
from fablint.profiles import display_path, load_policy, profile_infos, show_json, show_yaml
from fablint.redact import forget as forget_secrets
from fablint.redact import remember, scrub
from fablint.report import REPORTERS
from fablint.resources import rule_docs_dir
from fablint.yamlio import ConfigError

if TYPE_CHECKING:
    from fablint.intent import Intent

EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130

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


class Format(StrEnum):
    text = "text"
    json = "json"
    sarif = "sarif"
    junit = "junit"
    github = "github"
    gitlab = "gitlab"
    concise = "concise"
    markdown = "markdown"


class FailOnChoice(StrEnum):
    error = "error"
    warning = "warning"
    info = "info"
    never = "never"


def _fail(message: str, code: int = EXIT_ERROR) -> NoReturn:
    typer.echo(f"fablint: error: {message}", err=True)
    raise typer.Exit(code)


def _emit(text: str) -> None:
    """Print an output (report, dump, drawing) with the inputs' secrets masked."""
    sys.stdout.write(scrub(text))


def _write_atomic(path: Path, content: str) -> None:
    """Write ``content`` (secrets masked) to ``path`` through a temporary file in the same
    folder.

    Only regular files are replaced that way: a device, pipe or socket given as the output
    (``/dev/null``, ``/dev/stdout``, a FIFO) is written to in place, never renamed over.
    """
    content = scrub(content)
    if path.exists() and not path.is_file():
        if path.is_dir():
            _fail(f"cannot write {path}: it is a folder")
        try:
            with path.open("w", encoding="utf-8") as handle:
                handle.write(content)
        except OSError as exc:
            _fail(f"cannot write {path}: {exc.strerror or exc}")
        return
    folder = path.parent if str(path.parent) else Path()
    if not folder.is_dir():
        _fail(f"cannot write {path}: folder {folder} does not exist")
    import tempfile  # only --output needs it

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    try:
        os.fchmod(fd, _output_mode(path))  # mkstemp's 0600 is for its own secrecy, not ours
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(content)
        Path(tmp).replace(path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        _fail(f"cannot write {path}: {exc.strerror or exc}")


def _output_mode(path: Path) -> int:
    """The permissions a report gets: those of the file it replaces, else what the umask
    gives a new file (0644 under umask 022), as with any shell redirection."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mask = os.umask(0o022)  # reading the umask means setting it: put it straight back
        os.umask(mask)
        return 0o666 & ~mask


def _color(flag: bool | None) -> bool:
    """--color/--no-color, else the conventions rich and most tools follow: NO_COLOR off,
    FORCE_COLOR on (CI logs that render colour), TERM=dumb off, else colour on a terminal."""
    if flag is not None:
        return flag
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


def _load_profile(project: ProjectConfig, profile: str | None) -> Policy:
    """``--profile`` (relative to the working folder) or fablint.yaml's, with its overrides."""
    return load_policy(
        profile or project.profile, project.policy,
        project.root if profile is None else Path.cwd(),
        overrides_where=f"{project.source}: policy" if project.source else "policy",
    )


def _load_intent(path: Path | None, project: ProjectConfig) -> Intent | None:
    """The intended cabling from ``--intent`` or fablint.yaml's ``intent`` (ConfigError)."""
    if path is None and project.intent:
        path = (project.root or Path.cwd()) / project.intent
    if path is None:
        return None
    from fablint.intent import load_intent  # only runs with an intent import it

    if not path.is_file():
        raise ConfigError(f"intended topology {path} not found")
    return load_intent(path)


def _load_project(paths: list[str], config_path: Path | None) -> ProjectConfig:
    if config_path is not None:
        if not config_path.is_file():
            _fail(f"config file {config_path} not found")
        return load_config(config_path)
    start = Path(paths[0]) if paths else Path.cwd()
    if len(paths) > 1:
        # abspath, not resolve: a symbolic link loop among the paths is reported by the read
        start = Path(os.path.commonpath([str(Path(p).absolute()) for p in paths]))
    found = find_config(start) if start.exists() else None
    return load_config(found)


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
    if vendor is not None and vendor not in PARSERS:
        _fail(f"unknown --vendor {vendor!r}; choose from {', '.join(PARSERS)}")
    extra_outputs = [_also(value) for value in also or []]
    reported = paths
    if report_only:
        paths = fabric or ["."]
    elif fabric:
        _fail("--fabric is only used with --report-only")
    try:
        project = _load_project(paths, config)
        policy = _load_profile(project, profile)
        baseline_path = baseline
        if baseline_path is None and project.baseline and write_baseline is None:
            baseline_path = (project.root or Path.cwd()) / project.baseline
        if update_baseline and baseline_path is None:
            _fail("--update-baseline needs a baseline: --baseline FILE or 'baseline:' in "
                  "fablint.yaml")
        result = lint(LintOptions(
            paths=paths, config=project, policy=policy, select=_split(select),
            ignore=_split(ignore), vendor=vendor,
            fail_on=fail_on.value if fail_on else None,
            baseline=baseline_path, jobs=jobs, intent=_load_intent(intent, project),
        ))
    except (ConfigError, UsageError) as exc:
        _fail(str(exc))
    except PathNotFound as exc:
        _fail(f"path not found: {exc}")

    if fix or diff:
        result = _apply_fixes(result, diff, paths, project, policy, baseline_path, select,
                              ignore, vendor, fail_on, jobs, intent)
        if diff:
            raise typer.Exit(result.exit_code)
    if update_baseline and baseline_path is not None:
        _write_atomic(baseline_path, json.dumps(baseline_document(result.baseline_known),
                                                indent=2) + "\n")
        typer.echo(f"fablint: {baseline_path}: kept {len(result.baseline_known)} entr"
                   f"{'y' if len(result.baseline_known) == 1 else 'ies'}, pruned "
                   f"{result.baseline_stale} that no longer match", err=True)
    if report_only:
        result = _report_only(result, reported)
    if write_baseline is not None:
        _write_atomic(write_baseline, json.dumps(baseline_document(result.findings), indent=2)
                      + "\n")
        typer.echo(
            f"fablint: recorded {len(result.findings)} finding(s) in {write_baseline}", err=True
        )
        raise typer.Exit(EXIT_ERROR if result.errors else 0)

    if statistics:
        report = _statistics(result)
    else:
        report = _render(result, output_format, project, output is None and _color(color),
                         no_fixes)
    if quiet and output_format == Format.text and not statistics:
        report = "" if not result.findings else report[:report.rstrip("\n").rfind("\n") + 1]
    for extra_format, extra_path in extra_outputs:
        _write_atomic(extra_path, _render(result, extra_format, project, False, no_fixes))
    if output is not None:
        _write_atomic(output, report)
        if output_format != Format.text:
            typer.echo(_plain_summary(result), err=True)
    else:
        _emit(report)
    raise typer.Exit(result.exit_code)


def _also(value: str) -> tuple[Format, Path]:
    """``--also sarif:fablint.sarif`` -> (format, path); the path may hold colons."""
    name, sep, path = value.partition(":")
    if not sep or not path:
        _fail(f"--also {value!r}: give FORMAT:FILE, e.g. sarif:fablint.sarif")
    try:
        return Format(name.strip().lower()), Path(path)
    except ValueError:
        _fail(f"--also {value!r}: unknown format {name!r}; choose from "
              f"{', '.join(f.value for f in Format)}")


def _apply_fixes(result: LintResult, diff: bool, paths: list[str], project: ProjectConfig,
                 policy: Policy, baseline_path: Path | None, select: list[str] | None,
                 ignore: list[str] | None, vendor: str | None,
                 fail_on: FailOnChoice | None, jobs: int | None,
                 intent: Path | None) -> LintResult:
    """--diff prints the changes (the result's exit code: 1 when there is one); --fix writes
    them and lints again, so what is reported is what is left."""
    import dataclasses

    from fablint.fixes import apply

    changes = apply.plan(result.findings)
    if diff:
        text = "".join(change.diff() for change in changes)
        sys.stdout.write(text)
        return dataclasses.replace(result, findings=[f for c in changes for f in c.fixed],
                                   errors=[], fail_on="info")
    fixed = 0
    touched: set[str] = set()
    # A fix can reveal the next finding (PFC turned on: now the watchdog must watch it), so
    # fix and lint again, as ruff does, until nothing more applies.
    for _round in range(5):
        changes = [c for c in changes if c.new != c.old]
        if not changes:
            break
        for change in changes:
            try:
                apply.write(change)
            except OSError as exc:
                _fail(f"cannot write {change.path}: {exc.strerror or exc}")
            fixed += len(change.fixed)
            touched.add(change.path)
        try:
            result = lint(LintOptions(
                paths=paths, config=project, policy=policy, select=_split(select),
                ignore=_split(ignore), vendor=vendor,
                fail_on=fail_on.value if fail_on else None, baseline=baseline_path, jobs=jobs,
                intent=_load_intent(intent, project)))
        except (ConfigError, UsageError) as exc:
            _fail(str(exc))
        changes = apply.plan(result.findings)
    skipped = sum(1 for f in result.findings if f.fix)
    typer.echo(f"fablint: fixed {fixed} finding(s) in {len(touched)} file(s)"
               + (f"; {skipped} left with a fix to apply by hand" if skipped else ""), err=True)
    return result


def _split(values: list[str] | None) -> list[str]:
    """``--select PFC,ECN001 --select MTU`` -> ``[PFC, ECN001, MTU]``."""
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def _report_only(result: LintResult, files: list[str]) -> LintResult:
    """Keep the findings (and unreadable inputs) that are in ``files``: cross-device rules
    still saw the whole fabric, a hook reports only what the commit touched."""
    import dataclasses

    wanted = {os.path.realpath(f) for f in files}

    def keep(path: str | None) -> bool:
        return path is not None and os.path.realpath(path) in wanted

    return dataclasses.replace(
        result, findings=[f for f in result.findings if keep(f.file)],
        errors=[p for p in result.errors if keep(p.file)])


def _plain_summary(result: LintResult) -> str:
    """The text report's summary line (the reporter is imported only by the runs that print
    it)."""
    from fablint.report import text as text_report

    return text_report.plain_summary(result)


def _statistics(result: LintResult) -> str:
    """Count per rule, most frequent first, as ``ruff --statistics`` prints it."""
    from collections import Counter

    counts = Counter((f.rule, f.name) for f in result.findings)
    fixable = Counter(f.rule for f in result.findings if f.fix)
    rows = [f"{n:>5}  {rule:<7} {name}{'  (fix shown)' if fixable[rule] == n else ''}"
            for (rule, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return "\n".join([*rows, _plain_summary(result)]) + "\n"


def _render(
    result: LintResult, fmt: Format, project: ProjectConfig, color: bool, no_fixes: bool
) -> str:
    # The lint's heap is large and new to the collector: the first full collection that a
    # report's many small objects would set off walks all of it (0.7 s at 1,024 switches).
    with gc_paused():
        return _render_report(result, fmt, project, color, no_fixes)


def _render_report(
    result: LintResult, fmt: Format, project: ProjectConfig, color: bool, no_fixes: bool
) -> str:
    if fmt == Format.text:
        from fablint.report import text as text_report

        width = 100
        if color:  # only a coloured report needs rich (tens of milliseconds of imports)
            from rich.console import Console

            width = Console().width
        return text_report.render(result, color=color, width=width, show_fixes=not no_fixes)
    if fmt == Format.sarif and project.docs_url:
        from fablint.report import sarif as sarif_report

        return sarif_report.render(result, project.docs_url.rstrip("/") + "/")
    return REPORTERS[fmt.value](result)


class TopoFormat(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"
    mermaid = "mermaid"
    svg = "svg"


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
    from fablint.report import datasheet
    from fablint.report.digest import digest
    from fablint.report.topo import RENDERERS as TOPO_RENDERERS

    sheet = output_format in (TopoFormat.markdown, TopoFormat.json)
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
        raise typer.Exit(EXIT_ERROR)
    raise typer.Exit(1 if any(f.severity.rank >= 3 for f in result.findings) else 0)


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


def _tolerate_narrow_encodings() -> None:
    """A report must never fail on a terminal or pipe that cannot encode a character (cp1252)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # detached or closed: leave it be
                reconfigure(errors="replace")


def _say_interrupted() -> None:
    with contextlib.suppress(Exception):  # a closed stderr: nothing more can be said
        sys.stderr.write("fablint: interrupted\n")


def _leave(code: object) -> NoReturn:
    """Exit without tearing the interpreter down.

    Freeing a large fabric's models one object at a time takes a twentieth of a second, and
    nothing is left to clean up by then: reports are written and closed, workers joined.
    """
    if isinstance(code, str):  # sys.exit("message"), as the interpreter would show it
        sys.stderr.write(code + "\n")
    status = code if isinstance(code, int) else (0 if code is None else 1)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe: nothing more can be said
            stream.flush()
    os._exit(status)


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
    import signal

    try:
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # from here on: an exception
            signal.signal(signal.SIGINT, signal.default_int_handler)
        _tolerate_narrow_encodings()
        _command(sys.argv[1:])(standalone_mode=True)
    except SystemExit as exc:
        if exc.code == EXIT_INTERRUPTED and isinstance(
                getattr(exc.__context__, "__cause__", None), KeyboardInterrupt):
            _say_interrupted()  # typer turned the KeyboardInterrupt into a silent exit 130
        _leave(exc.code)
    except KeyboardInterrupt:
        _say_interrupted()
        _leave(EXIT_INTERRUPTED)
    except Exception as exc:
        if os.environ.get("FABLINT_DEBUG"):
            raise
        typer.echo(
            f"fablint: internal error: {type(exc).__name__}: {exc}\n"
            "This is a bug in fablint; rerun with FABLINT_DEBUG=1 for details and report it.",
            err=True,
        )
        sys.exit(EXIT_INTERNAL)
