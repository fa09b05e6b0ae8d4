"""Where one ``fablint lint`` run's time goes: its phases, in one process, wall and CPU.

``run.py`` times the whole command; this splits a run of ``fablint.engine.lint`` on the same
inputs into its phases (finding the files, grouping them into units, the parallel parse and
device rules, the parent's assembly with the topology and fabric rules, the JSON report) so that
a slow phase, or one that grew with the fabric faster than the rest, is named. CPU time includes
the forked workers of the phase. A phase whose time grows faster than the fabric (a rule that is
quadratic in the number of separate fabrics, say) shows up here first: run two sizes and compare.

    python bench/phases.py bench/out/sonic-1024 [--jobs J] [--repeat R]

Numbers only: nothing here passes or fails. The fablint measured is the one this interpreter
imports (the working tree with an editable install or ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PHASES = ("discover", "look_first", "map_files", "_assemble")
"""The functions of ``fablint.engine`` that ``_lint`` calls in turn, timed where it calls them."""


def _cpu() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def _timed(func: Callable[..., Any], spent: dict[str, list[float]], name: str
           ) -> Callable[..., Any]:
    @functools.wraps(func)
    def timed(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), _cpu()
        try:
            return func(*args, **kwargs)
        finally:
            totals = spent.setdefault(name, [0.0, 0.0])
            totals[0] += time.perf_counter() - wall
            totals[1] += _cpu() - cpu
    return timed


def one_run(paths: list[str], jobs: int | None) -> dict[str, list[float]]:
    """Phase -> [wall s, CPU s] of one lint of ``paths`` (imports done before)."""
    from fablint import engine, lintcmd
    from fablint.config import load_config
    from fablint.profiles import load_policy

    spent: dict[str, list[float]] = {}
    originals = {name: getattr(engine, name) for name in PHASES}
    for name, func in originals.items():
        setattr(engine, name, _timed(func, spent, name))
    try:
        wall, cpu = time.perf_counter(), _cpu()
        project = load_config(None)
        policy = load_policy(project.profile, project.policy, Path.cwd())
        result = engine.lint(engine.LintOptions(paths=paths, config=project, policy=policy,
                                                jobs=jobs))
        render = _timed(lintcmd._render, spent, "report (json)")
        render(result, lintcmd.Format.json, project, False, False)
        spent["total"] = [time.perf_counter() - wall, _cpu() - cpu]
    finally:
        for name, func in originals.items():
            setattr(engine, name, func)
    return spent


def floors(paths: list[str]) -> dict[str, float]:
    """What any linter pays: reading and splitting every file, and ``json.loads`` of the
    JSON ones (single process)."""
    files = [p for root in paths for p in (sorted(Path(root).rglob("*")) if Path(root).is_dir()
                                            else [Path(root)]) if p.is_file()]
    started = time.perf_counter()
    texts = [f.read_text(encoding="utf-8", errors="replace") for f in files]
    for text in texts:
        text.splitlines()
    read = time.perf_counter() - started
    started = time.perf_counter()
    for f, text in zip(files, texts, strict=True):
        if f.suffix == ".json":
            with contextlib.suppress(ValueError):
                json.loads(text)
    return {"read+split": read, "json.loads": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="files or folders to lint")
    parser.add_argument("--jobs", type=int, default=None,
                        help="fablint's --jobs (default: its own)")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the fastest total counts")
    args = parser.parse_args()
    started = time.perf_counter()
    for module in ("fablint.engine", "fablint.lintcmd"):  # timed apart from the runs
        importlib.import_module(module)
    imports = time.perf_counter() - started
    best = min((one_run(args.paths, args.jobs) for _ in range(args.repeat)),
               key=lambda spent: spent["total"][0])
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3]) \
        if Path("/proc/loadavg").exists() else "?"
    print(f"phases of the fastest of {args.repeat} runs (jobs {args.jobs or 'default'}, "
          f"load {load}); imports {imports:.3f} s before them")
    print(f"{'phase':<16}{'wall s':>9}{'cpu s':>9}")
    for name in (*PHASES, "report (json)", "total"):
        wall, cpu = best.get(name, [0.0, 0.0])
        print(f"{name.lstrip('_'):<16}{wall:>9.3f}{cpu:>9.3f}")
    for name, seconds in floors(args.paths).items():
        print(f"floor {name:<10}{seconds:>9.3f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
