"""Human report: findings grouped by file, file:line first, fix under the finding; one summary.

Quiet when all is well: a clean run prints a single line.
"""

from __future__ import annotations

import io
from itertools import groupby

from fablint.engine import LintResult

STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def render(
    result: LintResult, *, color: bool = False, width: int = 100, show_fixes: bool = True
) -> str:
    # rich costs 60 ms of imports: only a text report pays for them.
    from rich.console import Console
    from rich.markup import escape
    from rich.text import Text

    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=color, no_color=not color, width=width, highlight=False,
        soft_wrap=True,
    )
    findings = result.findings
    for file, group in groupby(findings, key=lambda f: f.file or "(fabric)"):
        console.print(Text(file, style="bold underline"))
        for f in group:
            where = f"{f.line}" if f.line else "-"
            # Cabling messages name both ends themselves: do not say the device twice.
            who = f"{f.device} " if f.device and not f.message.startswith(f"{f.device} ") else ""
            console.print(
                f"  [dim]{where:>5}[/dim]  [{STYLES[f.severity.value]}]{f.severity.value:<7}"
                f"[/]  [bold]{f.rule}[/bold]  {escape(who)}{escape(f.message)}"
            )
            if show_fixes and f.fix:
                console.print("         [green]fix:[/green]")
                for line in f.fix.splitlines():
                    console.print(Text("           " + line, style="green"))
        console.print()
    console.print(summary_line(result))
    return buffer.getvalue()


def summary_line(result: LintResult) -> str:
    """The one-line summary (rich markup) that ends every text report."""
    counts = result.counts()
    findings = result.findings
    # A device split over several files (SONiC fragments, a host's dumps) counts once.
    devices = len({name for i in result.fabric.inputs for name in i.devices})
    ib_nodes = sum(i.ib_nodes for i in result.fabric.inputs)
    files = len(result.fabric.inputs)
    what = _plural(devices, "device") + (f", {ib_nodes} IB nodes" if ib_nodes else "")
    scope = f"{what} in {_plural(files, 'file')}"
    extras = []
    if result.suppressed:
        extras.append(f"{result.suppressed} suppressed")
    if result.baselined:
        extras.append(f"{result.baselined} in baseline")
    if result.errors:
        extras.append(f"[bold red]{_plural(len(result.errors), 'file')} could not be linted[/]")
    tail = f" ({', '.join(extras)})" if extras else ""
    if not findings:
        mark = "[green]✓[/green]" if not result.errors else "[red]✗[/red]"
        return f"{mark} {scope}: no problems found{tail}."
    parts = [
        f"[{STYLES[s]}]{_plural(counts[s], s)}[/]"
        for s in ("error", "warning", "info") if counts.get(s)
    ]
    fixable = sum(1 for f in findings if f.fix)
    fix_note = f"; {fixable} with a fix shown" if fixable else ""
    return (f"[bold]{_plural(len(findings), 'problem')}[/bold] ({', '.join(parts)}) in "
            f"{scope}{fix_note}{tail}.")


def plain_summary(result: LintResult) -> str:
    """The summary line without markup, for stderr next to a machine-readable report."""
    from rich.text import Text

    return Text.from_markup(summary_line(result)).plain
