"""The ``lint`` command's work, without typer: what ``fablint lint`` does once its arguments are
parsed, and the parse of its plain invocations.

``fablint.cli`` declares the command for typer (options, help, errors) and calls ``run_lint``.
A pre-commit hook's ``fablint lint FILES`` (``--format``, ``--report-only``, ``--fabric``,
``--color``/``--no-color``, ``--quiet``, ``--no-fixes``: ``plain_arguments``) is run from here
by the entry point without importing typer or building the click command, a tenth of the
start-up; anything else (help, errors in the arguments, other options) goes to typer.
``tests/test_startup.py`` proves that both read every such command line alike and print the
same.

Exits are ``SystemExit``: typer lets them through unchanged, as it would its own ``Exit``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from fablint.config import ProjectConfig, find_config, load_config
from fablint.engine import (
    EXIT_ERROR,
    LintOptions,
    LintResult,
    UsageError,
    baseline_document,
    lint,
)
from fablint.ingest import PathNotFound
from fablint.parallel import gc_paused
from fablint.parsers import PARSERS
from fablint.policy import Policy
from fablint.profiles import load_policy
from fablint.redact import forget as forget_secrets
from fablint.redact import scrub
from fablint.report import REPORTERS
from fablint.yamlio import ConfigError

if TYPE_CHECKING:
    from collections.abc import Callable

    from fablint.intent import Intent

EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130



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


def _echo_err(message: str) -> None:
    """``typer.echo(message, err=True)``: typer is imported only by the runs that say more than
    their report (an error, a note about a written file)."""
    from typer import echo

    echo(message, err=True)


def _fail(message: str, code: int = EXIT_ERROR) -> NoReturn:
    _echo_err(f"fablint: error: {message}")
    raise SystemExit(code)


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



def run_lint(
    paths: list[str],
    output_format: Format = Format.text,
    output: Path | None = None,
    config: Path | None = None,
    profile: str | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    vendor: str | None = None,
    fail_on: FailOnChoice | None = None,
    baseline: Path | None = None,
    write_baseline: Path | None = None,
    update_baseline: bool = False,
    jobs: int | None = None,
    no_fixes: bool = False,
    color: bool | None = None,
    intent: Path | None = None,
    report_only: bool = False,
    fabric: list[str] | None = None,
    fix: bool = False,
    diff: bool = False,
    statistics: bool = False,
    quiet: bool = False,
    also: list[str] | None = None,
) -> NoReturn:
    """``fablint lint`` with its options parsed (``cli.lint_command`` documents them); ends
    with ``SystemExit`` and the exit code."""
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
            raise SystemExit(result.exit_code)
    if update_baseline and baseline_path is not None:
        _write_atomic(baseline_path, json.dumps(baseline_document(result.baseline_known),
                                                indent=2) + "\n")
        _echo_err(f"fablint: {baseline_path}: kept {len(result.baseline_known)} entr"
                  f"{'y' if len(result.baseline_known) == 1 else 'ies'}, pruned "
                  f"{result.baseline_stale} that no longer match")
    if report_only:
        result = _report_only(result, reported)
    if write_baseline is not None:
        _write_atomic(write_baseline, json.dumps(baseline_document(result.findings), indent=2)
                      + "\n")
        _echo_err(f"fablint: recorded {len(result.findings)} finding(s) in {write_baseline}")
        raise SystemExit(EXIT_ERROR if result.errors else 0)

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
            _echo_err(_plain_summary(result))
    else:
        _emit(report)
    raise SystemExit(result.exit_code)


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
    _echo_err(f"fablint: fixed {fixed} finding(s) in {len(touched)} file(s)"
              + (f"; {skipped} left with a fix to apply by hand" if skipped else ""))
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




_FLAGS: dict[str, tuple[str, bool]] = {
    "--report-only": ("report_only", True),
    "--color": ("color", True),
    "--no-color": ("color", False),
    "--quiet": ("quiet", True),
    "-q": ("quiet", True),
    "--no-fixes": ("no_fixes", True),
}
"""The flags of a plain ``fablint lint`` (``plain_arguments``): option -> (parameter, value)."""

_VALUE_OPTIONS = {"--format": "output_format", "-f": "output_format", "--fabric": "fabric"}
"""The options with a value that a plain ``fablint lint`` may have: option -> parameter."""

def plain_arguments(args: list[str]) -> dict[str, Any] | None:
    """The ``run_lint`` parameters of ``fablint lint ARGS`` when ARGS are only paths and the
    options of ``_FLAGS`` and ``_VALUE_OPTIONS`` (``read_plain``); else None, and typer
    parses, helps or fails."""
    return read_plain(args, _FLAGS, _VALUE_OPTIONS, {f.value: f for f in Format})


def read_plain(args: list[str], flags: dict[str, tuple[str, Any]], values: dict[str, str],
               formats: dict[str, Any]) -> dict[str, Any] | None:
    """A plain command's parameters: ``paths`` and the ``flags`` and ``values`` options in
    their usual spellings (``--format json``, ``--format=json``, ``-f json``; every value a
    word, not an option), read as click reads them (a repeated option: the last wins; a
    parameter other than ``output_format``, whose values are ``formats``, adds up); None for
    anything else, and for no path at all (typer explains the usage)."""
    options: dict[str, Any] = {}
    paths: list[str] = []
    position = 0
    while position < len(args):
        token = args[position]
        position += 1
        if not token.startswith("-"):
            paths.append(token)
            continue
        name, equals, value = token.partition("=") if token.startswith("--") else (token, "", "")
        if name in flags and not equals:
            key, flag = flags[name]
            options[key] = flag
            continue
        if name not in values:
            return None
        if not equals:
            if position == len(args):
                return None
            value = args[position]
            position += 1
        if value.startswith("-"):
            return None
        if values[name] != "output_format":
            options.setdefault(values[name], []).append(value)
        elif value in formats:
            options["output_format"] = formats[value]
        else:
            return None
    if not paths:
        return None
    return {"paths": paths, **options}


def main(options: dict[str, Any]) -> None:
    """Run a plain ``fablint lint`` (``plain_arguments``) as ``fablint.cli.main`` runs it
    through typer and click (``run_plain``)."""
    run_plain(lambda: run_lint(**options))


def run_plain(command: Callable[[], object]) -> None:
    """Run a command whose arguments were read without typer as ``fablint.cli.main`` runs it
    through typer and click: the command line's callback first (``forget_secrets``), then the
    same report, messages and exit codes, an interrupt, a closed pipe or an internal error
    handled alike."""

    def run() -> None:
        forget_secrets()
        try:
            command()
        except EOFError:  # click: a new line, then "Aborted!"
            _echo_err("")
            _echo_err("Aborted!")
            _leave(1)
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise
            _leave(1)  # click: nothing more is said on a closed pipe

    guarded(run)


def guarded(run: Callable[[], object],
            interrupted: Callable[[SystemExit], bool] = lambda exc: False) -> None:
    """Run a command as both entry points do: Ctrl-C raised as an exception from here on,
    narrow encodings tolerated, exit without teardown, and no traceback unless FABLINT_DEBUG
    is set. ``interrupted`` tells a silent exit that was really an interrupt (typer's)."""
    import signal

    try:
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # from here on: an exception
            signal.signal(signal.SIGINT, signal.default_int_handler)
        _tolerate_narrow_encodings()
        run()
    except SystemExit as exc:
        if interrupted(exc):
            _say_interrupted()
        _leave(exc.code)
    except KeyboardInterrupt:
        _say_interrupted()
        _leave(EXIT_INTERRUPTED)
    except Exception as exc:
        if os.environ.get("FABLINT_DEBUG"):
            raise
        _echo_err(
            f"fablint: internal error: {type(exc).__name__}: {exc}\n"
            "This is a bug in fablint; rerun with FABLINT_DEBUG=1 for details and report it.")
        sys.exit(EXIT_INTERNAL)
