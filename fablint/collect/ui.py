"""What a person sees while a collection runs: a rich progress bar with the devices in flight
on a terminal, one line per finished device otherwise, and a summary table at the end."""

from __future__ import annotations

import time

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from fablint.collect.snapshot import DeviceRecord, Manifest

STATUS_STYLE = {"ok": "green", "partial": "yellow", "failed": "bold red",
                "cancelled": "magenta", "pending": "dim"}
MAX_ROWS = 50
"""Above this many devices the summary table lists only the ones that did not succeed."""


def _seconds(record: DeviceRecord) -> str:
    from datetime import datetime

    if not record.started or not record.finished:
        return "-"
    start = datetime.fromisoformat(record.started.replace("Z", "+00:00"))
    end = datetime.fromisoformat(record.finished.replace("Z", "+00:00"))
    return f"{(end - start).total_seconds():.1f}s"


class ConsoleObserver:
    """Progress for ``fablint collect``: live on a terminal, line by line in a log."""

    def __init__(self, console: Console, live: bool | None = None) -> None:
        self.console = console
        self.live_mode = console.is_terminal if live is None else live
        self.active: dict[str, str] = {}
        self.counts = {"ok": 0, "partial": 0, "failed": 0, "cancelled": 0}
        self.progress = Progress(
            TextColumn("[bold]collecting"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[tally]}"), TimeElapsedColumn(), console=console,
        )
        self.task = self.progress.add_task("collect", total=0, tally="")
        self._live: Live | None = None
        self._start = time.monotonic()

    # Observer protocol
    def started(self, total: int) -> None:
        self.progress.update(self.task, total=total)
        if self.live_mode:
            self._live = Live(self._render(), console=self.console, refresh_per_second=8,
                              transient=True)
            self._live.start()

    def device_status(self, device: str, status: str) -> None:
        self.active[device] = status

    def device_done(self, record: DeviceRecord) -> None:
        self.active.pop(record.device, None)
        self.counts[record.status] = self.counts.get(record.status, 0) + 1
        self.progress.update(self.task, advance=1, tally=self._tally())
        if not self.live_mode:
            self.console.print(_line(record), highlight=False, soft_wrap=True)

    def tick(self) -> None:
        if self._live is not None:
            self._live.update(self._render())

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def _tally(self) -> str:
        parts = [f"[{STATUS_STYLE[k]}]{v} {k}[/]" for k, v in self.counts.items() if v]
        return " ".join(parts)

    def _render(self) -> RenderableType:
        rows = Table.grid(padding=(0, 2))
        room = max(3, self.console.height - 6)
        items = sorted(self.active.items())
        for device, status in items[:room]:
            rows.add_row(Text(device, style="cyan"), Text(status, style="dim"))
        if len(items) > room:
            rows.add_row(Text(f"… {len(items) - room} more in flight", style="dim"), "")
        return Group(self.progress.get_renderable(), rows)


def _line(record: DeviceRecord) -> Text:
    saved = sum(1 for c in record.commands if c.status == "ok")
    mark = {"ok": "✓", "partial": "~", "failed": "✗", "cancelled": "-"}.get(record.status, "?")
    text = Text()
    text.append(f"{mark} {record.status:<9} ", style=STATUS_STYLE.get(record.status, ""))
    text.append(record.device, style="bold")
    text.append(f"  {saved} output(s), {_seconds(record)}")
    if record.attempts > 1:
        text.append(f", {record.attempts} attempts")
    if record.error:
        text.append(f"  {record.error_kind or 'error'}: {record.error}",
                    style=STATUS_STYLE.get(record.status, ""))
    return text


def summary_table(manifest: Manifest) -> Table | None:
    """One row per device (only the unsuccessful ones for a large collection); None when
    there is no row to show."""
    records = manifest.devices
    if len(records) > MAX_ROWS:
        records = [r for r in records if r.status != "ok"]
    if not records:
        return None
    table = Table(title="collection summary", title_justify="left", header_style="bold",
                  show_lines=False, pad_edge=False)
    # Names and addresses come from the inventory: a very long one is cut with an ellipsis
    # rather than squeezing every other column out of the table.
    for column, widest in (("Device", 40), ("Address", 40), ("Platform", 12)):
        table.add_column(column, no_wrap=True, max_width=widest, overflow="ellipsis")
    for column in ("Status", "Outputs", "Tries", "Time"):
        table.add_column(column, no_wrap=True)
    table.add_column("Error", overflow="fold", ratio=1)
    for r in records:
        saved = sum(1 for c in r.commands if c.status == "ok")
        table.add_row(
            escape(r.device), f"{r.address}:{r.port}", r.platform,
            f"[{STATUS_STYLE.get(r.status, '')}]{r.status}[/]", f"{saved}/{len(r.commands)}",
            str(r.attempts), _seconds(r),
            escape(f"{r.error_kind}: {r.error}" if r.error else ""),
        )
    return table


def summary_line(manifest: Manifest, root: str, elapsed: float) -> str:
    counts = manifest.summary()
    parts = [f"[{STATUS_STYLE[k]}]{v} {k}[/]" for k, v in counts.items() if v]
    return (f"{len(manifest.devices)} device(s) in {elapsed:.1f}s: {', '.join(parts) or 'none'}"
            f"; snapshot {escape(root)}")
