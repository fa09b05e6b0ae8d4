"""Human report: findings grouped by file, file:line first, fix under the finding; one summary.

Quiet when all is well: a clean run prints a single line. The report is built as lines of
styled spans: joined as they are without colour, given to rich in one piece with colour (a
thousand findings printed line by line through rich took half a second).
"""

from __future__ import annotations

from itertools import groupby

from fablint.engine import LintResult

STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}

Span = tuple[str, str | None]
"""Text and its rich style (None: unstyled)."""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def render(
    result: LintResult, *, color: bool = False, width: int = 100, show_fixes: bool = True
) -> str:
    lines = [*_finding_lines(result, show_fixes), summary_spans(result, show_fixes)]
    if not color:
        return "".join("".join(text for text, _ in line) + "\n" for line in lines)
    import io

    # rich costs 60 ms of imports: only a coloured text report pays for them.
    from rich.console import Console
    from rich.text import Text

    report = Text()
    for line in lines:
        for text, style in line:
            report.append(text, style)
        report.append("\n")
    buffer = io.StringIO()
    Console(file=buffer, force_terminal=True, width=width, highlight=False).print(
        report, end="", soft_wrap=True)
    return buffer.getvalue()


def _finding_lines(result: LintResult, show_fixes: bool) -> list[list[Span]]:
    lines: list[list[Span]] = []
    for file, group in groupby(result.findings, key=lambda f: f.file or "(fabric)"):
        lines.append([(file, "bold underline")])
        for f in group:
            where = f"{f.line}" if f.line else "-"
            # Cabling messages name both ends themselves: do not say the device twice.
            who = f"{f.device} " if f.device and not f.message.startswith(f"{f.device} ") else ""
            lines.append([
                ("  ", None), (f"{where:>5}", "dim"), ("  ", None),
                (f"{f.severity.value:<7}", STYLES[f.severity.value]), ("  ", None),
                (f.rule, "bold"), (f"  {who}{f.message}", None),
            ])
            if show_fixes and f.fix:
                lines.append([("         ", None), ("fix:", "green")])
                lines.extend([("           " + fix_line, "green")]
                             for fix_line in f.fix.splitlines())
        lines.append([])
    return lines


def summary_spans(result: LintResult, show_fixes: bool = True) -> list[Span]:
    """The one-line summary that ends every text report."""
    counts = result.counts()
    findings = result.findings
    # A device split over several files (SONiC fragments, a host's dumps) counts once.
    devices = len({name for i in result.fabric.inputs for name in i.devices})
    ib_nodes = sum(i.ib_nodes for i in result.fabric.inputs)
    files = len(result.fabric.inputs)
    what = ", ".join(part for part in (
        _plural(devices, "device") if devices or not ib_nodes else "",
        _plural(ib_nodes, "IB node") if ib_nodes else "") if part)
    scope = f"{what} in {_plural(files, 'file')}"
    extras: list[Span] = []
    if result.suppressed:
        extras.append((f"{result.suppressed} suppressed", None))
    if result.baselined:
        extras.append((f"{result.baselined} in baseline", None))
    if result.baseline_stale:
        extras.append((f"{result.baseline_stale} baseline "
                       f"entr{'y' if result.baseline_stale == 1 else 'ies'} fixed since: "
                       "--update-baseline prunes them", "yellow"))
    if result.errors:
        # one file can have several problems (four duplicate keys): count files, not problems
        unread = len({p.file for p in result.errors})
        extras.append((f"{_plural(unread, 'file')} could not be linted", "bold red"))
    tail: list[Span] = []
    if extras:
        tail = [(" (", None), *_joined(extras), (")", None)]
    if not findings:
        mark = ("✓", "green") if not result.errors else ("✗", "red")
        return [mark, (f" {scope}: no problems found", None), *tail, (".", None)]
    parts = [(_plural(counts[s], s), STYLES[s]) for s in ("error", "warning", "info")
             if counts.get(s)]
    fixable = sum(1 for f in findings if f.fix)
    fix_note = f"; {fixable} with a fix shown" if fixable and show_fixes else ""
    return [(_plural(len(findings), "problem"), "bold"), (" (", None), *_joined(parts),
            (f") in {scope}{fix_note}", None), *tail, (".", None)]


def _joined(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for i, span in enumerate(spans):
        if i:
            out.append((", ", None))
        out.append(span)
    return out


def plain_summary(result: LintResult) -> str:
    """The summary line without styles, for stderr next to a machine-readable report."""
    return "".join(text for text, _ in summary_spans(result))
