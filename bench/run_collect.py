"""Benchmark `fablint collect`: N fake EOS devices on loopback SSH, a simulated round trip per
command, timed for several --workers values.

    python bench/run_collect.py                      # 1,000 devices, 50 ms, workers 50 100 200
    python bench/run_collect.py --devices 200 --workers 25 50 100

The devices are real SSH servers (tests/sshd.py, asyncssh) in a separate process, so the
collector and the servers share the machine's cores as they would not in production: the
figures are an upper bound on fablint's own cost. Each device answers every line after the
round-trip delay (login banner, the paging commands, `show running-config`, `show lldp
neighbors detail`), about seven round trips per device.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PASSWORD = "bench-password"


def start_devices(count: int, rtt: float, folder: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.sshd", "--devices", str(count), "--rtt", str(rtt),
         "--password", PASSWORD, "--out", str(folder)],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("READY"):
        proc.kill()
        raise SystemExit(f"fake devices did not start: {line!r}")
    return proc


def run_once(folder: Path, workers: int, timeout: float) -> dict[str, object]:
    out = folder / f"out-{workers}"
    env = {**os.environ, "FABLINT_PASSWORD": PASSWORD}
    env.pop("SSH_AUTH_SOCK", None)
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "fablint", "collect", str(folder / "inventory.yaml"),
         "--known-hosts", str(folder / "known_hosts"), "-o", str(out), "--workers",
         str(workers), "--no-agent", "--no-color", "--retries", "0",
         "--command-timeout", "30", "--connect-timeout", "30"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    elapsed = time.perf_counter() - start
    snapshot = Path(result.stdout.strip().splitlines()[-1]) if result.stdout.strip() else None
    ok = failed = 0
    if snapshot is not None and (snapshot / "manifest.json").is_file():
        manifest = json.loads((snapshot / "manifest.json").read_text(encoding="utf-8"))
        ok = sum(1 for d in manifest["devices"] if d["status"] == "ok")
        failed = len(manifest["devices"]) - ok
    return {"workers": workers, "seconds": round(elapsed, 1), "ok": ok, "failed": failed,
            "exit": result.returncode}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--rtt", type=float, default=0.05, help="seconds per round trip")
    parser.add_argument("--workers", type=int, nargs="+", default=[50, 100, 200])
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fablint-bench-") as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        devices = start_devices(args.devices, args.rtt, folder)
        print(f"{args.devices} fake devices up in {time.perf_counter() - t0:.1f}s "
              f"({args.rtt * 1000:.0f} ms per round trip, {os.cpu_count()} CPUs)", flush=True)
        try:
            print(f"{'workers':>8} {'seconds':>8} {'dev/s':>7} {'ok':>6} {'failed':>7} exit")
            for workers in args.workers:
                row = run_once(folder, workers, args.timeout)
                rate = args.devices / max(float(row["seconds"]), 0.001)  # type: ignore[arg-type]
                print(f"{row['workers']:>8} {row['seconds']:>8} {rate:>7.1f} {row['ok']:>6} "
                      f"{row['failed']:>7} {row['exit']}", flush=True)
        finally:
            assert devices.stdin is not None
            devices.stdin.close()
            try:
                devices.wait(timeout=30)
            except subprocess.TimeoutExpired:
                devices.kill()


if __name__ == "__main__":
    main()
