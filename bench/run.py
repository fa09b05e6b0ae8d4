"""End-to-end throughput of ``fablint lint`` on synthetic EOS, SONiC or mixed fabrics.

For each fabric size N: generate the inputs (gen_eos.py; gen_sonic.py from the corpus's real
config_db.json; gen_mixed.py: a third each EOS, NX-OS and SONiC, LLDP for every switch and an
ibnetdiscover dump of 4 x N HCAs, one fabric), time the installed CLI on them in a fresh process
(best of --repeat, wall and CPU time), and print each figure beside the floor any linter has to
pay: a plain Python read + splitlines() of the same files, a single-process json.loads of the JSON
ones, and the bare interpreter start beside fablint's. When one size is four times another, the
scaling time(4N)/time(N) is printed too. Numbers only: nothing here passes or fails.

    python bench/run.py [--vendor eos|sonic|mixed] [--sizes 64 256 1024] [--jobs J] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import gen_eos  # bench/ is on sys.path when this file is run as a script
import gen_mixed
import gen_sonic

BENCH = Path(__file__).resolve().parent
OK_EXIT_CODES = (0, 1)  # 1: fablint found the planted faults, as it should
FABLINT_ENV: dict[str, str] | None = None
"""The environment of the fablint processes (None: this one's); see --bytecode."""


@dataclass(frozen=True)
class Run:
    """One fablint process: wall time, CPU time and peak RSS."""

    seconds: float
    cpu_seconds: float
    max_rss_mb: float


def source_state() -> str:
    """The commit of the fablint under test, and whether its tree had local changes."""
    git = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=BENCH,
                         capture_output=True, text=True, check=False)
    return git.stdout.strip() or "unknown"


def fablint_command() -> list[str]:
    """The installed CLI next to this interpreter, else ``python -m fablint``."""
    script = Path(sys.executable).with_name("fablint")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "fablint"]


def run_once(command: list[str], devices: int | None = None,
             ok: tuple[int, ...] = OK_EXIT_CODES) -> Run:
    """Run ``command`` once; rusage comes from wait4 on that child (workers included).

    With ``devices``, the run must have produced a JSON report of that many devices and no
    unreadable file: a fablint that stops early (an import error exits with 1, the code of a
    run with findings) would otherwise pass for a very fast one.
    """
    with tempfile.TemporaryFile() as report:
        start = time.perf_counter()
        # The report goes to a file fablint does not know of (its own --output writes
        # atomically, next to the target): what redirecting stdout costs any CI job.
        proc = subprocess.Popen(command, stdout=report, stderr=subprocess.PIPE, env=FABLINT_ENV)
        assert proc.stderr is not None
        stderr = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stderr.close()
        if proc.returncode not in ok:
            sys.exit(f"bench: {' '.join(command)} exited with {proc.returncode}:\n"
                     f"{stderr.decode(errors='replace')}")
        if devices is not None:
            report.seek(0)
            problem = _report_problem(report.read(), devices)
            if problem:
                sys.exit(f"bench: {' '.join(command)}: {problem}\n"
                         f"{stderr.decode(errors='replace')}")
    # ru_maxrss is in KiB on Linux: the largest single process of the tree, not their sum.
    return Run(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def _report_problem(output: bytes, devices: int) -> str | None:
    """What is wrong with a JSON report that should cover ``devices`` devices, or None."""
    try:
        summary = json.loads(output)["summary"]
    except (ValueError, KeyError, TypeError):
        return "no JSON report on stdout"
    if summary.get("devices") != devices or summary.get("unparsed_files"):
        return (f"the report covers {summary.get('devices')} devices, "
                f"{summary.get('unparsed_files')} unparsed files; expected {devices} and 0")
    return None


def best_fablint(folder: Path, jobs: int | None, repeat: int, devices: int) -> Run:
    """Fastest of ``repeat`` runs, with the highest peak RSS seen in any of them."""
    command = [*fablint_command(), "lint", str(folder), "--format", "json"]
    if jobs is not None:
        command += ["--jobs", str(jobs)]
    runs = [run_once(command, devices) for _ in range(repeat)]
    best = min(runs, key=lambda r: r.seconds)
    return Run(best.seconds, best.cpu_seconds, max(r.max_rss_mb for r in runs))


def best_start(repeat: int) -> float:
    """Fastest ``fablint --version``: interpreter start and every import of the CLI, the part
    of each run that no amount of parallel work can hide."""
    return min(run_once([*fablint_command(), "--version"], ok=(0,)).seconds
               for _ in range(repeat))


def best_interpreter(repeat: int) -> float:
    """Fastest bare ``python -c pass``: the start-up floor no Python program can beat."""
    return min(run_once([sys.executable, "-c", "pass"], ok=(0,)).seconds for _ in range(repeat))


def best_json_loads(files: list[Path], repeat: int) -> float:
    """Fastest of ``repeat`` single-process read + json.loads passes of the JSON files among
    ``files`` (CPU time)."""
    files = [f for f in files if f.suffix == ".json"]
    times = []
    for _ in range(repeat):
        start = time.process_time()
        for file in files:
            json.loads(file.read_text(encoding="utf-8"))
        times.append(time.process_time() - start)
    return min(times)


def best_baseline(files: list[Path], repeat: int) -> float:
    """Fastest of ``repeat`` in-process read + splitlines() passes over ``files``."""
    times = []
    for _ in range(repeat):
        start = time.process_time()  # CPU time: the machine may be shared with busy processes
        lines = 0
        for file in files:
            lines += len(file.read_text(encoding="utf-8").splitlines())
        times.append(time.process_time() - start)
    assert lines > 0
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vendor", choices=("eos", "sonic", "mixed"), default="eos",
                        help="eos: gen_eos.py; sonic: copies of the corpus's real config_db.json; "
                             "mixed: gen_mixed.py (EOS, NX-OS, SONiC, LLDP and InfiniBand)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 256, 1024],
                        help="fabric sizes in switches (default: 64 256 1024)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="passed to 'fablint lint --jobs' (default: fablint's own)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size; the best counts")
    parser.add_argument("--seed", type=int, default=1, help="generator seed")
    parser.add_argument("--out", type=Path, default=BENCH / "out",
                        help="where the fabrics are written (default: bench/out, git-ignored)")
    parser.add_argument("--bytecode", action="store_true",
                        help="give fablint a byte-code cache (under --out) even when "
                             "PYTHONDONTWRITEBYTECODE is set, as an installed package has")
    args = parser.parse_args()
    global FABLINT_ENV
    if args.bytecode:
        FABLINT_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        FABLINT_ENV["PYTHONPYCACHEPREFIX"] = str((args.out / ".pycache").resolve())
        subprocess.run([*fablint_command(), "--version"], env=FABLINT_ENV, check=False,
                       stdout=subprocess.DEVNULL)  # fills the cache before anything is timed
    if min(args.sizes) < 1 or args.repeat < 1:
        parser.error("--sizes and --repeat must be at least 1")

    print(f"fablint: {' '.join(fablint_command())} ({source_state()}); "
          f"Python {platform.python_version()}; "
          f"{len(os.sched_getaffinity(0))} CPUs; --jobs {args.jobs or 'default'}; "
          f"best of {args.repeat}")
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and not args.bytecode:
        print("note: PYTHONDONTWRITEBYTECODE is set: without a byte-code cache (an editable "
              "install) every start compiles fablint's modules again (see --bytecode)")
    start, bare = best_start(args.repeat), best_interpreter(args.repeat)
    print(f"start-up: {start:.3f} s (fablint --version); floor {bare:.3f} s (python -c pass); "
          f"x{start / bare:.0f}")
    floor = "json.loads s" if args.vendor in ("sonic", "mixed") else ""
    print(f"{'N':>6} {'files':>6} {'MB':>7} {'seconds':>8} {'MB/s':>6} {'cpu s':>7} "
          f"{'peak RSS MB':>11} {'read+split s':>12} {'x baseline':>10}"
          + (f" {floor:>12} {'x json':>7} {'cpu x json':>10}" if floor else ""), flush=True)
    measured: dict[int, Run] = {}
    for size in args.sizes:
        folder = args.out / f"{args.vendor}-{size}"
        shutil.rmtree(folder, ignore_errors=True)
        if args.vendor == "sonic":
            files = sorted(gen_sonic.generate(size, folder))
        elif args.vendor == "mixed":
            files = sorted(gen_mixed.generate(size, folder, seed=args.seed))
        else:
            gen_eos.generate(size, folder, args.seed)
            files = sorted(folder.glob("*.cfg"))
        megabytes = sum(f.stat().st_size for f in files) / 1e6
        baseline = best_baseline(files, args.repeat)
        switches = size if args.vendor == "mixed" else len(files)
        run = measured[size] = best_fablint(folder, args.jobs, args.repeat, switches)
        line = (f"{size:>6} {len(files):>6} {megabytes:>7.1f} {run.seconds:>8.2f} "
                f"{megabytes / run.seconds:>6.2f} {run.cpu_seconds:>7.2f} {run.max_rss_mb:>11.0f} "
                f"{baseline:>12.3f} {run.seconds / baseline:>10.0f}")
        if floor:
            loads = best_json_loads(files, args.repeat)
            line += (f" {loads:>12.3f} {run.seconds / loads:>7.0f} "
                     f"{run.cpu_seconds / loads:>10.0f}")
        print(line, flush=True)
    for size, run in measured.items():
        big = measured.get(4 * size)
        if big is not None:
            print(f"scaling N={size} -> {4 * size}: time(4N)/time(N) "
                  f"{big.seconds / run.seconds:.2f} wall, "
                  f"{big.cpu_seconds / run.cpu_seconds:.2f} CPU")


if __name__ == "__main__":
    main()
