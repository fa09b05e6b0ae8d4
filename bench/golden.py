"""Golden outputs: prove that a speed change left fablint's findings byte-identical.

``make DIR`` lints a fixed set of inputs and writes each JSON report (and its exit code) under
DIR, with the ``fablint topo`` JSON of the mixed fabric; ``check DIR`` runs them again with the
fablint of this tree and compares byte for byte, order included. Run ``make`` on the tree
before the change (or on main: ``--tree /work/main``), ``check`` after it.

The inputs: the shared corpus as one folder, each corpus file alone, and small generated fabrics
(bench/gen_sonic.py, bench/gen_eos.py, the mixed fabric of bench/gen_mixed.py), written under
DIR/fabrics so that the paths in the reports are the same on both sides.

    python bench/golden.py make /tmp/speed-golden
    python bench/golden.py check /tmp/speed-golden
"""

from __future__ import annotations

import argparse
import difflib
import fcntl
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import gen_eos  # bench/ is on sys.path when this file is run as a script
import gen_mixed
import gen_sonic

CORPUS = Path("/work/shared/corpus")
BENCH = Path(__file__).resolve().parent


def fabrics(root: Path) -> list[Path]:
    """Write the generated fabrics under ``root`` (deterministic: same files every time)."""
    shutil.rmtree(root, ignore_errors=True)
    sonic, eos, mixed = root / "sonic-64", root / "eos-64", root / "mixed-96"
    gen_sonic.generate(64, sonic)
    gen_eos.generate(64, eos, 1)
    gen_mixed.generate(96, mixed, hcas=384)
    return [sonic, eos, mixed]


def cases(root: Path) -> dict[str, list[str]]:
    """Name of each golden output -> the fablint arguments that make it."""
    found = {"corpus": ["lint", str(CORPUS), "--format", "json"]}
    for file in sorted(CORPUS.rglob("*")):
        if file.is_file():
            name = "corpus-" + str(file.relative_to(CORPUS)).replace("/", "--")
            found[name] = ["lint", str(file), "--format", "json"]
    for folder in fabrics(root / "fabrics"):
        found[folder.name] = ["lint", str(folder), "--format", "json"]
    # the topology itself (tiers, cables, bisection), which the lint shows only in part
    found["mixed-96-topo"] = ["topo", str(root / "fabrics" / "mixed-96"), "--format", "json"]
    return found


def lint(args: list[str], tree: Path = BENCH.parent) -> bytes:
    """The output of ``fablint ARGS`` (fablint of ``tree``) and its exit code."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    # run in ``tree``: ``python -m`` puts the working directory first on sys.path, ahead of
    # PYTHONPATH, so ``make --tree /work/main`` run from a worktree would lint the worktree
    proc = subprocess.run([sys.executable, "-m", "fablint", *args],
                          capture_output=True, env=env, check=False, cwd=tree)
    return proc.stdout + f"\n# exit code {proc.returncode}\n".encode()


def run_all(root: Path, tree: Path, only: str | None = None) -> dict[str, bytes]:
    """Every case's output (those whose name holds ``only``), linted two at a time."""
    todo = {name: args for name, args in cases(root).items() if only is None or only in name}
    with ThreadPoolExecutor(max_workers=2) as pool:
        outputs = dict(zip(todo, pool.map(lambda args: lint(args, tree), todo.values()),
                           strict=True))
    return outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("make", "check"))
    parser.add_argument("dir", type=Path)
    parser.add_argument("--tree", type=Path, default=BENCH.parent,
                        help="the fablint source tree to run (default: this one; e.g. /work/main "
                             "to make the golden outputs from main)")
    parser.add_argument("--only", help="only the cases whose name holds this text")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    # DIR/fabrics is rewritten on every run: runs sharing DIR take turns rather than race
    with open(args.dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        outputs = run_all(args.dir.resolve(), args.tree.resolve(), args.only)
    if args.action == "make":
        for name, output in outputs.items():
            (args.dir / f"{name}.json").write_bytes(output)
        print(f"golden: {len(outputs)} outputs written to {args.dir}")
        return
    differ = []
    for name, output in outputs.items():
        golden = args.dir / f"{name}.json"
        if not golden.is_file():
            differ.append(name)
            print(f"{name}: no golden output")
        elif golden.read_bytes() != output:
            differ.append(name)
            diff = difflib.unified_diff(golden.read_text(errors="replace").splitlines(),
                                        output.decode(errors="replace").splitlines(),
                                        "golden", "now", lineterm="", n=1)
            print(f"{name}: differs\n" + "\n".join(list(diff)[:40]))
    print(f"golden: {len(outputs) - len(differ)} of {len(outputs)} identical")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
