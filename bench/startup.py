"""Start-up of the installed ``fablint``: what a pre-commit hook pays on every commit.

Times, in fresh processes, the median of --repeat runs of each of:

- ``python -c pass``: the bare interpreter start, the floor no Python program can beat;
- ``fablint --version``: answered by the entry point before the command line is imported;
- ``fablint --help``: the whole command line imported (typer, every command) and nothing run;
- ``fablint lint ONE.cfg`` and ``... --format json``: one AVD-style Arista EOS switch
  (``gen_eos.py``, 1,100 lines), the run a hook makes for one changed file;

each as wall time and as CPU time (user + system, from ``os.wait4``; steadier when other
processes share the machine), with the ratio to the floor. ``--instructions`` adds the
instructions each run executes (valgrind's cachegrind, one run each): the same on a busy
machine as on an idle one, so before/after comparisons hold whatever else runs. Numbers only:
nothing fails.

    python bench/startup.py [--repeat 15] [--bytecode] [--importtime] [--instructions]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gen_eos  # bench/ is on sys.path when this file is run as a script

BENCH = Path(__file__).resolve().parent
OK = (0, 1)  # 1: the switch has findings


def fablint_command() -> list[str]:
    """The installed console script next to this interpreter, else ``python -m fablint``."""
    script = Path(sys.executable).with_name("fablint")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "fablint"]


def run_once(command: list[str], env: dict[str, str] | None) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command`` (output discarded)."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert proc.stderr is not None
    stderr = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in OK:
        sys.exit(f"bench: {' '.join(command)} exited with {code}:\n"
                 f"{stderr.decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime


def instructions(command: list[str], env: dict[str, str] | None) -> float | None:
    """Millions of instructions one run of ``command`` executes (valgrind), else None."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    probe = subprocess.run([valgrind, "--tool=cachegrind", "--cache-sim=no",
                            "--cachegrind-out-file=/dev/null", *command],
                           env=env, capture_output=True, text=True, check=False)
    counts = re.findall(r"I\s+refs:\s+([\d,]+)", probe.stderr)
    return int(counts[-1].replace(",", "")) / 1e6 if counts else None


def median_of(command: list[str], repeat: int, env: dict[str, str] | None) -> tuple[float, float]:
    runs = [run_once(command, env) for _ in range(repeat)]
    return (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs of each; the median counts")
    parser.add_argument("--bytecode", action="store_true",
                        help="give fablint a byte-code cache (in a temporary folder) even when "
                             "PYTHONDONTWRITEBYTECODE is set, as an installed package has")
    parser.add_argument("--instructions", action="store_true",
                        help="also count the instructions of one run of each (valgrind, "
                             "about 15 s a run): steady under load")
    parser.add_argument("--importtime", action="store_true",
                        help="also print the 15 slowest imports of the lint run "
                             "(python -X importtime, cumulative microseconds)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env: dict[str, str] | None = None
        if args.bytecode:
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        gen_eos.generate(1, Path(tmp) / "one", seed=1)
        config = next((Path(tmp) / "one").glob("*.cfg"))
        fablint = fablint_command()
        if args.bytecode:  # fill the cache before anything is timed
            for extra in (["--help"], ["lint", str(config)]):
                subprocess.run([*fablint, *extra], env=env, check=False,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(f"fablint: {' '.join(fablint)}; Python {platform.python_version()}; "
              f"median of {args.repeat}; one switch: {config.stat().st_size / 1e3:.0f} KB")
        if os.environ.get("PYTHONDONTWRITEBYTECODE") and not args.bytecode:
            print("note: PYTHONDONTWRITEBYTECODE is set: without a byte-code cache (an editable "
                  "install) every start compiles fablint's modules again (see --bytecode)")
        cases = [
            ("python -c pass (floor)", [sys.executable, "-c", "pass"]),
            ("fablint --version", [*fablint, "--version"]),
            ("fablint --help", [*fablint, "--help"]),
            ("fablint lint ONE.cfg", [*fablint, "lint", str(config)]),
            ("fablint lint ONE.cfg -f json", [*fablint, "lint", str(config), "-f", "json"]),
        ]
        floor_wall = floor_cpu = 0.0
        print(f"{'command':<30} {'wall ms':>8} {'x floor':>7} {'cpu ms':>7} {'x floor':>7}"
              + (f" {'M instr':>8} {'x floor':>7}" if args.instructions else ""))
        floor_instructions = None
        for name, command in cases:
            wall, cpu = median_of(command, args.repeat, env)
            if not floor_wall:
                floor_wall, floor_cpu = wall, cpu
            counted = ""
            if args.instructions:
                count = instructions(command, env)
                floor_instructions = floor_instructions or count
                counted = (f" {count:>8.0f} {count / floor_instructions:>7.1f}"
                           if count and floor_instructions else f" {'-':>8} {'-':>7}")
            print(f"{name:<30} {wall * 1e3:>8.0f} {wall / floor_wall:>7.1f} {cpu * 1e3:>7.0f} "
                  f"{cpu / floor_cpu:>7.1f}{counted}", flush=True)
        if args.importtime:
            probe = subprocess.run(
                [sys.executable, "-X", "importtime", "-c",
                 "import sys; from fablint.entry import main; main()", "lint", str(config)],
                env=env, capture_output=True, text=True, check=False)
            rows = []
            for line in probe.stderr.splitlines():
                parts = line.removeprefix("import time:").split("|")
                if len(parts) == 3 and parts[1].strip().isdigit():
                    rows.append((int(parts[1]), parts[2].rstrip()))
            for cumulative, module in sorted(rows, reverse=True)[:15]:
                print(f"{cumulative:>9} us {module}")


if __name__ == "__main__":
    main()
