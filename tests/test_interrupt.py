"""Ctrl-C at any point of start-up or of a run: no traceback, ``fablint: interrupted``, exit 130."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What the console script does, plus a marker once the interpreter itself has started (a
# Ctrl-C inside the interpreter's own start-up, site.py, is beyond any program's reach).
LAUNCH = ("import sys; from fablint.entry import main; sys.stderr.write('started\\n'); "
          "sys.stderr.flush(); main()")


@pytest.fixture(scope="module")
def fabric(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fabric")
    subprocess.run([sys.executable, str(ROOT / "bench" / "gen_eos.py"), "--switches", "1024",
                    "--out", str(out)], check=True, capture_output=True)
    return out


def _interrupt_after(delay: float, args: list[str]) -> tuple[int, str, bool]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("FABLINT_DEBUG", None)
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH, *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    assert proc.stderr.readline() == "started\n"
    time.sleep(delay)
    running = proc.poll() is None
    proc.send_signal(signal.SIGINT)
    err = proc.stderr.read()
    return proc.wait(timeout=60), err, running


@pytest.mark.parametrize("delay", [0.01, 0.02, 0.03, 0.06, 0.1, 0.15, 0.2, 0.3, 0.45,
                                   0.7, 1.0])
def test_ctrl_c_during_start_up_or_run(delay: float, fabric: Path) -> None:
    code, err, running = _interrupt_after(delay, ["lint", str(fabric), "-j", "1"])
    assert running, "the run ended before the interrupt: give it more to do"
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert code == 130
    assert err.endswith("fablint: interrupted\n"), err
    assert err.count("fablint: interrupted") == 1
