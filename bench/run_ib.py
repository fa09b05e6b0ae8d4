"""How fast fablint reads and lints one large InfiniBand dump (issue 5: a 4,000-node,
200-switch ``ibnetdiscover`` topology "well under a second").

Generates the fabric with gen_ib.py, then measures, best of --repeat:

- in process, with the garbage collector paused as ``fablint lint`` runs: reading and parsing
  the dump into the model, and running every per-dump rule on it (the IB rules see all 4,000
  nodes at once); CPU seconds and wall seconds;
- the installed CLI, ``fablint lint FILE --format json`` in a fresh process (imports, parsing,
  rules, report), next to the start-up alone (``fablint rules``), from ``os.wait4``.

It also checks that every planted fault of MANIFEST.tsv was reported. Numbers only: nothing
here fails on a slow run.

    python bench/run_ib.py [--nodes 4000] [--switches 200] [--repeat 3] [--out bench/out]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import gen_ib  # bench/ is on sys.path when this file is run as a script

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))

from fablint.checks import REGISTRY, Context  # noqa: E402
from fablint.ingest import parse_file  # noqa: E402
from fablint.model import Fabric  # noqa: E402
from fablint.profiles import load_policy  # noqa: E402


def in_process(path: Path) -> tuple[tuple[float, float], tuple[float, float], int]:
    """((parse cpu, wall), (rules cpu, wall), findings) of one run, GC paused."""
    gc.collect()
    gc.disable()
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        outcome = parse_file(str(path), True)
        parsed = (time.process_time() - cpu, time.perf_counter() - wall)
        cpu, wall = time.process_time(), time.perf_counter()
        ctx = Context(fabric=Fabric(links=outcome.links, ib_nodes=outcome.ib_nodes),
                      policy=load_policy("default"))
        findings = [f for rule in REGISTRY.values() if rule.scope == "device"
                    for f in rule().check(ctx)]
        ruled = (time.process_time() - cpu, time.perf_counter() - wall)
    finally:
        gc.enable()
    return parsed, ruled, len(findings)


def fablint_command() -> list[str]:
    script = Path(sys.executable).with_name("fablint")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "fablint"]


def run_cli_timed(args: list[str]) -> tuple[float, float, bytes]:
    """(wall seconds, user+system CPU seconds, stdout) of one fresh fablint process; the CPU
    time is the child's own rusage, from ``os.wait4``."""
    start = time.perf_counter()
    proc = subprocess.Popen([*fablint_command(), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stdout.close()
    proc.stderr.close()
    if proc.returncode not in (0, 1):  # 1: the planted faults were found, as they should be
        sys.exit(f"bench: fablint {' '.join(args)} exited with {proc.returncode}:\n"
                 f"{err.decode(errors='replace')}")
    return seconds, usage.ru_utime + usage.ru_stime, out


def missed_faults(folder: Path, report: bytes) -> list[str]:
    """Planted faults (MANIFEST.tsv) whose rule did not report the node they name."""
    findings = json.loads(report)["findings"]
    missed = []
    for row in (folder / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        rule, node, what = row.split("\t")
        if not any(f["rule"] == rule and (node in f["message"] or node == f["device"])
                   for f in findings):
            missed.append(f"{rule} {node}: {what}")
    return missed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=4000)
    parser.add_argument("--switches", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=BENCH / "out")
    args = parser.parse_args()

    folder = args.out / f"ib-{args.nodes}"
    folder.mkdir(parents=True, exist_ok=True)
    text, faults = gen_ib.generate(args.nodes, args.switches, args.seed)
    dump = folder / "ibnetdiscover.topo"
    dump.write_text(text, encoding="utf-8")
    (folder / "MANIFEST.tsv").write_text(
        "\n".join(["rule\tnode\tfault", *("\t".join(f) for f in faults)]) + "\n",
        encoding="utf-8")
    print(f"{dump}: {args.nodes} nodes ({args.switches} switches), "
          f"{len(text.splitlines())} lines, {len(text) / 1e6:.1f} MB, {len(faults)} faults "
          f"planted; {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")

    runs = [in_process(dump) for _ in range(args.repeat)]
    parse = min(r[0] for r in runs)
    rules = min(r[1] for r in runs)
    total = min(r[0][0] + r[1][0] for r in runs), min(r[0][1] + r[1][1] for r in runs)
    print(f"in process (best of {args.repeat}, CPU s / wall s): parse {parse[0]:.3f} / "
          f"{parse[1]:.3f}, rules {rules[0]:.3f} / {rules[1]:.3f}, parse + lint "
          f"{total[0]:.3f} / {total[1]:.3f}; {runs[0][2]} findings")

    lint = [run_cli_timed(["lint", str(dump), "--format", "json", "--jobs", "1"])
            for _ in range(args.repeat)]
    start = [run_cli_timed(["rules"]) for _ in range(args.repeat)]
    best = min(lint, key=lambda r: r[1])
    floor = min(start, key=lambda r: r[1])
    print(f"fablint lint (best of {args.repeat}, fresh process): {best[1]:.3f} CPU s "
          f"({best[0]:.3f} wall s); start-up alone (fablint rules) {floor[1]:.3f} CPU s "
          f"({floor[0]:.3f} wall s)")
    missed = missed_faults(folder, best[2])
    print("every planted fault reported" if not missed else
          "MISSED: " + "; ".join(missed))


if __name__ == "__main__":
    main()
