"""The HTML report at scale: what ``fablint report`` costs beyond the lint itself.

Generates a rail-optimised fabric of ``--leaves`` + ``--spines`` EOS switches with their LLDP
tables (``bench/run_topo.py``'s generator; 1,024 switches by default), then times, in fresh
processes, ``fablint lint`` and ``fablint report`` on it, and in this process the report's own
steps (datasheet, HTML) on one lint result. Numbers only: nothing passes or fails. The budget
(issue 19) is 2 s beyond the lint for 1,024 switches.

    python bench/run_report.py [--servers 1984] [--leaves 992] [--spines 32] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import shutil
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))
sys.path.insert(0, str(BENCH))

from run_topo import _fablint, best, generate  # noqa: E402


def in_process(out: Path) -> None:
    from fablint.config import ProjectConfig
    from fablint.engine import LintOptions, lint
    from fablint.profiles import load_policy
    from fablint.report import datasheet, html
    from fablint.report.digest import digest

    policy = load_policy("default", {}, None)
    start = time.perf_counter()
    result = lint(LintOptions(paths=[str(out)], config=ProjectConfig(), policy=policy,
                              topology=True, digest=digest))
    linted = time.perf_counter()
    gc.disable()  # as the command does (fablint.parallel.gc_paused)
    cpu0 = time.process_time()
    sheet = datasheet.build(result.fabric.topology, result.fabric, result.digests, policy)
    built, cpu1 = time.perf_counter(), time.process_time()
    page = html.render(sheet, result.fabric.topology, result.findings, result.digests)
    rendered, cpu2 = time.perf_counter(), time.process_time()
    print(f"in process: lint with digests {linted - start:.2f} s, datasheet "
          f"{built - linted:.2f} s ({cpu1 - cpu0:.2f} s CPU), HTML {rendered - built:.2f} s "
          f"({cpu2 - cpu1:.2f} s CPU; {len(page) / 1e6:.1f} MB, {len(result.findings)} "
          f"findings, {len(result.digests)} devices)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=1984)
    parser.add_argument("--leaves", type=int, default=992)
    parser.add_argument("--spines", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=BENCH / "out" / "report")
    args = parser.parse_args()
    if args.out.exists():
        shutil.rmtree(args.out)
    generate(args.out, args.servers, args.leaves, args.spines)
    print(f"{args.leaves + args.spines} switches, {args.servers} servers x 8 NICs")
    html_out = args.out.parent / "report.html"
    lint_s = best([*_fablint(), "lint", str(args.out), "--format", "json", "--output",
                   str(args.out.parent / "lint.json")], args.repeat)
    report_s = best([*_fablint(), "report", str(args.out), "--output", str(html_out)],
                    args.repeat)
    print(f"fablint lint:   {lint_s:.2f} s")
    print(f"fablint report: {report_s:.2f} s ({report_s - lint_s:+.2f} s beyond the lint; "
          f"{html_out.stat().st_size / 1e6:.1f} MB)")
    in_process(args.out)


if __name__ == "__main__":
    main()
