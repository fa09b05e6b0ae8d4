"""``fablint collect`` and ``fablint drift``: the command-line side of live state.

Kept apart from ``fablint.cli`` so that importing the command line stays cheap: everything
heavy (netmiko, the parsers, the drift engine) is imported when a command runs.
"""

from __future__ import annotations

import sys
import time
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

EXIT_ERROR = 2
INSTALL_HINT = ("fablint collect needs netmiko, which is optional: "
                "pip install 'fablint[collect]'")


class InventoryFormatChoice(StrEnum):
    auto = "auto"
    fablint = "fablint"
    ansible = "ansible"
    nornir = "nornir"
    anta = "anta"


class LintFormatChoice(StrEnum):
    text = "text"
    json = "json"
    sarif = "sarif"
    junit = "junit"
    github = "github"


class DriftFormat(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"
    html = "html"


def _fail(message: str, code: int = EXIT_ERROR) -> typer.Exit:
    typer.echo(f"fablint: error: {message}", err=True)
    return typer.Exit(code)


def collect_command(
    inventory: Annotated[Path, typer.Argument(
        help="Inventory: fablint YAML, Ansible YAML, or a Nornir hosts.yaml (or its folder).")],
    out: Annotated[Path, typer.Option(
        "--out", "-o", help="Folder that receives the snapshot OUT/<timestamp>/.")
    ] = Path("snapshots"),
    inventory_format: Annotated[InventoryFormatChoice, typer.Option(
        "--inventory-format", help="Inventory format (default: told from its content).")
    ] = InventoryFormatChoice.auto,
    limit: Annotated[list[str] | None, typer.Option(
        "--limit", "-l", help="Only hosts whose name or group matches this glob (repeatable).")
    ] = None,
    workers: Annotated[int, typer.Option(
        "--workers", "-w", min=1, max=2000, help="Devices collected at once.")] = 100,
    connect_timeout: Annotated[float, typer.Option(
        "--connect-timeout", min=0.1, help="Seconds to connect and authenticate.")
    ] = 15.0,
    command_timeout: Annotated[float, typer.Option(
        "--command-timeout", min=0.1,
        help="Seconds for each read: the prompt after login, each command's whole output.")
    ] = 60.0,
    retries: Annotated[int, typer.Option(
        "--retries", min=0, max=10, help="Retries after a connection failure, timeout or drop.")
    ] = 2,
    backoff: Annotated[float, typer.Option(
        "--backoff", min=0.0, help="First retry delay in seconds (doubles, with jitter).")
    ] = 1.0,
    username: Annotated[str | None, typer.Option(
        "--username", "-u", help="SSH user (else the inventory's, $FABLINT_USERNAME, $USER).")
    ] = None,
    password_env: Annotated[str, typer.Option(
        "--password-env", help="Environment variable that holds the SSH password.")
    ] = "FABLINT_PASSWORD",  # noqa: S107 (the name of a variable, not a password)
    ask_password: Annotated[bool, typer.Option(
        "--ask-password", help="Prompt for the SSH password (never pass it as an argument).")
    ] = False,
    key_file: Annotated[str | None, typer.Option(
        "--key-file", help="SSH private key (passphrase from $FABLINT_KEY_PASSPHRASE).")
    ] = None,
    no_agent: Annotated[bool, typer.Option(
        "--no-agent", help="Do not use keys from ssh-agent.")] = False,
    known_hosts: Annotated[Path | None, typer.Option(
        "--known-hosts", help="known_hosts file to verify host keys (default ~/.ssh/known_hosts).")
    ] = None,
    insecure_accept_host_keys: Annotated[bool, typer.Option(
        "--insecure-accept-host-keys",
        help="Accept host keys not in known_hosts (a key that contradicts known_hosts is "
             "still refused). For labs only.")] = False,
    host_qos: Annotated[bool, typer.Option(
        "--host-qos", help="Also collect mlnx_qos and the ECN sysfs tree of every RDMA "
        "interface of Linux hosts.")] = False,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Show the hosts and commands, connect to nothing.")] = False,
    lint_after: Annotated[bool, typer.Option(
        "--lint", help="Lint the snapshot once collected (exit code: the worse of the two).")
    ] = False,
    profile: Annotated[str | None, typer.Option(
        "--profile", "-p", help="With --lint: policy profile.")] = None,
    config: Annotated[Path | None, typer.Option(
        "--config", "-c", help="With --lint: fablint.yaml to use.")] = None,
    output_format: Annotated[LintFormatChoice, typer.Option(
        "--format", "-f", help="With --lint: report format.")] = LintFormatChoice.text,
    color: Annotated[bool | None, typer.Option(
        "--color/--no-color", help="Colour and live progress on a terminal.")] = None,
) -> None:
    """Collect running configs and neighbour tables over SSH into a snapshot folder.

    Exit code: 0 every device collected; 1 some devices failed; 2 none collected, or a usage
    or inventory error. Credentials come from the environment, a prompt, keys or ssh-agent.
    """
    from rich.console import Console

    from fablint.collect.inventory import load_inventory, select_hosts
    from fablint.yamlio import ConfigError

    try:
        loaded = load_inventory(inventory, inventory_format.value)  # type: ignore[arg-type]
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    err = Console(stderr=True, highlight=False, soft_wrap=True,
                  force_terminal=color if color is not None else None,
                  no_color=color is False)
    if not err.is_terminal:
        err.width = 160  # a log: no terminal to fit, keep table rows on one line
    for warning in loaded.warnings:
        err.print(f"[yellow]warning:[/] {warning}", markup=True, highlight=False)
    hosts = select_hosts(loaded.hosts, limit or [])
    if not hosts:
        raise _fail(f"no hosts to collect in {inventory}"
                    + (f" matching {', '.join(limit)}" if limit else ""))
    if dry_run:
        _print_plan(hosts, host_qos)
        raise typer.Exit(0)

    from fablint.collect.credentials import CredentialError, Secrets, resolve_credentials
    from fablint.collect.runner import CollectOptions, collect, exit_code, netmiko_available

    if not netmiko_available():
        raise _fail(INSTALL_HINT)
    if known_hosts is not None and not known_hosts.is_file():
        raise _fail(f"known_hosts file {known_hosts} not found")
    if known_hosts is None and not insecure_accept_host_keys \
            and not (Path.home() / ".ssh" / "known_hosts").is_file():
        err.print("[yellow]warning:[/] ~/.ssh/known_hosts does not exist: every host key is "
                  "unknown (use --known-hosts FILE, or --insecure-accept-host-keys in a lab)")
    try:
        creds = resolve_credentials(username=username, password_env=password_env,
                                    ask_password=ask_password, key_file=key_file,
                                    use_agent=not no_agent)
    except CredentialError as exc:
        raise _fail(str(exc)) from None
    options = CollectOptions(
        workers=workers, connect_timeout=connect_timeout, command_timeout=command_timeout,
        retries=retries, backoff=backoff, known_hosts=known_hosts,
        insecure_accept_host_keys=insecure_accept_host_keys, host_qos=host_qos)

    from fablint.collect.snapshot import snapshot_folder
    from fablint.collect.ui import ConsoleObserver, summary_line, summary_table

    try:
        root = snapshot_folder(out)
    except OSError as exc:
        raise _fail(f"cannot create the snapshot folder in {out}: {exc.strerror or exc}") \
            from None
    secrets = Secrets([creds.password, creds.passphrase])
    observer = ConsoleObserver(err)
    start = time.monotonic()
    try:
        manifest = collect(hosts, creds, options, root, inventory=str(inventory),
                           observer=observer, secrets=secrets)
    except KeyboardInterrupt:
        observer.close()
        err.print(f"fablint: interrupted; what was saved is in {root}")
        raise typer.Exit(130) from None
    finally:
        observer.close()
    table = summary_table(manifest)
    if table is not None:
        err.print(table)
    err.print(summary_line(manifest, str(root), time.monotonic() - start))
    code = exit_code(manifest)
    if not lint_after:
        sys.stdout.write(f"{root}\n")
        raise typer.Exit(code)
    lint_code = _lint_snapshot(root, profile, config, output_format, color)
    raise typer.Exit(max(code, lint_code))


def _print_plan(hosts: list, host_qos: bool) -> None:  # type: ignore[type-arg]
    from rich.console import Console
    from rich.table import Table

    from fablint.collect.commands import commands_for

    table = Table(header_style="bold", pad_edge=False)
    for column in ("Host", "Address", "Platform", "netmiko type", "Commands"):
        table.add_column(column, overflow="fold")
    for h in hosts:
        commands = [c.command for c in commands_for(h.platform, h.collect,
                                                    opensm_conf=h.opensm_conf,
                                                    partitions_conf=h.partitions_conf)]
        if "host-qos" in h.collect or (host_qos and h.platform == "ib-host"):
            commands.append("mlnx_qos / ECN sysfs per RDMA interface")
        table.add_row(h.name, f"{h.address}:{h.port}", h.platform, h.device_type,
                      "; ".join(commands))
    Console(width=160 if not sys.stdout.isatty() else None, highlight=False).print(table)


def _lint_snapshot(root: Path, profile: str | None, config: Path | None,
                   output_format: LintFormatChoice, color: bool | None) -> int:
    from fablint import cli as main_cli
    from fablint.engine import LintOptions, UsageError, lint
    from fablint.profiles import load_policy
    from fablint.yamlio import ConfigError

    try:
        project = main_cli._load_project([str(root)], config)
        policy = load_policy(profile or project.profile, project.policy,
                             project.root if profile is None else Path.cwd())
        result = lint(LintOptions(paths=[str(root)], config=project, policy=policy))
    except (ConfigError, UsageError) as exc:
        typer.echo(f"fablint: error: {exc}", err=True)
        return EXIT_ERROR
    fmt = main_cli.Format(output_format.value)
    main_cli._emit(main_cli._render(result, fmt, project, main_cli._color(color), False))
    return result.exit_code


def drift_command(
    intended: Annotated[Path, typer.Argument(
        help="The intended fabric: a folder of configs (or a snapshot).")],
    live: Annotated[Path, typer.Argument(
        help="The live fabric: a snapshot from 'fablint collect' (or a folder of configs).")],
    output_format: Annotated[DriftFormat, typer.Option(
        "--format", "-f", help="Report format.")] = DriftFormat.text,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Write the report to this file.")] = None,
    profile: Annotated[str | None, typer.Option(
        "--profile", "-p", help="Policy profile: RoCE DSCPs, priorities, fabric ports.")
    ] = None,
    config: Annotated[Path | None, typer.Option(
        "--config", "-c", help="fablint.yaml to use (default: found from INTENDED).")] = None,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-j", min=1, help="Parser processes (default: CPUs).")] = None,
    color: Annotated[bool | None, typer.Option(
        "--color/--no-color", help="Colour the text report.")] = None,
    pair: Annotated[list[str] | None, typer.Option(
        "--pair", metavar="INTENDED=LIVE", help="Compare these two devices although their "
        "names differ (repeatable). Two single files are paired without it.")] = None,
) -> None:
    """Compare two fabrics through the normalised model: what differs for RoCE, per device
    and port. INTENDED and LIVE may be folders, snapshots or two single files. Exit code: 0
    no drift; 1 drift; 2 an input could not be read."""
    from rich.console import Console

    from fablint import cli as main_cli
    from fablint.drift import drift
    from fablint.ingest import PathNotFound
    from fablint.profiles import load_policy
    from fablint.report import drift as drift_report
    from fablint.yamlio import ConfigError

    try:
        project = main_cli._load_project([str(intended)], config)
        policy = load_policy(profile or project.profile, project.policy,
                             project.root if profile is None else Path.cwd())
        pairs = {}
        for item in pair or []:
            left, sep, right = item.partition("=")
            if not sep or not left.strip() or not right.strip():
                raise _fail(f"--pair {item!r}: expected INTENDED=LIVE (device names)")
            pairs[left.strip()] = right.strip()
        report = drift([str(intended)], [str(live)], policy, jobs=jobs, pairs=pairs)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    except PathNotFound as exc:
        raise _fail(f"path not found: {exc}") from None
    if output_format == DriftFormat.json:
        text = drift_report.render_json(report)
    elif output_format == DriftFormat.markdown:
        text = drift_report.render_markdown(report)
    elif output_format == DriftFormat.html:
        from fablint.report.drift_html import render_html

        text = render_html(report)
    else:
        use_color = output is None and main_cli._color(color)
        width = Console().width if use_color else 100
        text = drift_report.render_text(report, color=use_color, width=width)
    if output is not None:
        main_cli._write_atomic(output, text)
        typer.echo(_plain_text(drift_report.summary_line(report)), err=True)
    else:
        main_cli._emit(text)
    raise typer.Exit(report.exit_code)


def _plain_text(markup: str) -> str:
    from rich.text import Text

    return Text.from_markup(markup).plain
