"""Mutation fuzzing of every parser and of the whole lint, over the shared corpus.

Each round takes a real input (the shared corpus, plus the repository's fixtures for the formats
the corpus lacks), mutates it (bytes flipped, lines dropped, doubled, swapped or spliced from
another file, numbers made extreme, junk, NULs, CR, deep nesting, truncation...) and feeds it to
the parser of its format; every ``--lint-every``-th mutation also goes through the whole lint
(detection, parsers, rules, fixes) and every report format. A parser may refuse an input
(``ParseError``: that is a clear error, as designed); any other exception is a crash, and a
case that runs longer than ``--timeout`` seconds a hang. Crashing inputs are saved under
``--save`` to reproduce them. Seeded: the same seed tries the same mutations.

    python bench/fuzz.py                      # 10,000 mutations, seed 1
    python bench/fuzz.py --count 200 --seed 7 --save /tmp/fuzz-crashes

Prints ``tried N, exceptions E, hangs H``; the exit code is 1 when anything crashed or hung.
The test suite runs a short seeded profile (tests/test_fuzz.py).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


CORPUS = Path(os.environ.get("FABLINT_CORPUS", ROOT.parent / "shared" / "corpus"))
FIXTURES = ROOT / "fixtures"
MAX_INPUT = 400_000
"""Inputs larger than this are cut (a mutation of a huge file teaches nothing more)."""

JUNK = ["\x00", "\r", "\r\n", "\t", "\ufeff", "\u2028", "\udcff", "é", "💥", "\\", '"', "'",
        "{", "}", "[", "]", ":", ",", "!", "#", "|", "-", "  ", "%s", "${x}", "<<: *a",
        "&a", "*a", "!!python/object:os.system", "-1", "0", "4294967296",
        "99999999999999999999999999", "1e308", "NaN", "inf", "0x", "1/2/3/4/5", "..", "/",
        "Ethernet", "interface", "no ", "priority-flow-control", "mtu", "end", "exit"]
NUMBER = re.compile(r"\d+")
EXTREMES = ["0", "-1", "1", "65535", "65536", "4294967295", "4294967296", "9" * 40, "00",
            "1.5", "-0", "1e9", ""]


QOS_POLICY = """\
# OpenSM QoS policy (doc/QoS_management_in_OpenSM.txt syntax): no sample in the corpus
port-groups
    port-group
        name: Storage
        port-guid: 0x10000000000001, 0x10000000000005-0x1000000000FFFA
    end-port-group
end-port-groups
qos-levels
    qos-level
        name: DEFAULT
        sl: 0
    end-qos-level
    qos-level
        name: RoCE
        sl: 3
    end-qos-level
end-qos-levels
qos-ulps
    default                                  : 0
    any, service-id 0x0000000000010000       : 3
    sdp, port-num 10000-20000                : 3
    ipoib, pkey 0x8001                       : 1
end-qos-ulps
"""
EXTRA_SEEDS = {"qos-policy.conf": (QOS_POLICY, "opensm-qos-policy")}
"""Formats without a sample in the corpus or the fixtures, in the vendor's syntax."""


@dataclass
class Seed:
    path: Path
    text: str
    format: str | None


@dataclass
class Outcome:
    tried: int = 0
    linted: int = 0
    refused: int = 0
    exceptions: int = 0
    hangs: int = 0
    by_target: Counter[str] = field(default_factory=Counter)
    crashes: list[str] = field(default_factory=list)


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise Hang in the main thread after ``seconds`` (SIGALRM; POSIX only)."""
    def expired(signum: int, frame: object) -> None:
        raise Hang()
    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def seeds(folders: list[Path]) -> list[Seed]:
    """Every readable input of ``folders`` with the format fablint recognises in it."""
    from fablint.ingest import parse_file

    out = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or path.suffix in (".md", ".tsv", ".py") or \
                    path.stat().st_size > 5_000_000:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            fmt = parse_file(str(path), True).input.format
            out.append(Seed(path, text[:MAX_INPUT], fmt))
    known = {s.format for s in out}
    for name, (text, fmt) in EXTRA_SEEDS.items():
        if fmt not in known:
            out.append(Seed(Path(name), text, fmt))
    return out


# -- mutations -------------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    return text.split("\n")


def flip(rng: random.Random, text: str, other: str) -> str:
    if not text:
        return rng.choice(JUNK)
    chars = list(text)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(chars))
        chars[i] = chr(rng.choice([rng.randrange(32, 127), rng.randrange(0, 32),
                                   rng.randrange(128, 0x2FFF)]))
    return "".join(chars)


def drop_lines(rng: random.Random, text: str, other: str) -> str:
    lines = _lines(text)
    for _ in range(rng.randint(1, max(1, len(lines) // 10))):
        if lines:
            del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def double_lines(rng: random.Random, text: str, other: str) -> str:
    lines = _lines(text)
    i = rng.randrange(len(lines))
    j = min(len(lines), i + rng.randint(1, 20))
    return "\n".join(lines[:j] + lines[i:j] * rng.randint(1, 3) + lines[j:])


def swap_lines(rng: random.Random, text: str, other: str) -> str:
    lines = _lines(text)
    for _ in range(rng.randint(1, 5)):
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def splice(rng: random.Random, text: str, other: str) -> str:
    lines, donor = _lines(text), _lines(other)
    i, k = rng.randrange(len(lines) + 1), rng.randrange(len(donor))
    return "\n".join(lines[:i] + donor[k:k + rng.randint(1, 30)] + lines[i:])


def numbers(rng: random.Random, text: str, other: str) -> str:
    matches = list(NUMBER.finditer(text))
    if not matches:
        return junk(rng, text, other)
    for match in sorted(rng.sample(matches, min(len(matches), rng.randint(1, 6))),
                        key=lambda m: m.start(), reverse=True):
        text = text[:match.start()] + rng.choice(EXTREMES) + text[match.end():]
    return text


def junk(rng: random.Random, text: str, other: str) -> str:
    for _ in range(rng.randint(1, 6)):
        i = rng.randrange(len(text) + 1)
        text = text[:i] + rng.choice(JUNK) + text[i:]
    return text


def truncate(rng: random.Random, text: str, other: str) -> str:
    return text[:rng.randrange(len(text) + 1)]


def line_endings(rng: random.Random, text: str, other: str) -> str:
    return rng.choice([text.replace("\n", "\r\n"), text.replace("\n", "\r"),
                       "\ufeff" + text, text.replace("\n", "\n\n"), text.expandtabs(1),
                       text.replace("   ", "\t")])


def nesting(rng: random.Random, text: str, other: str) -> str:
    depth = rng.choice([50, 500, 5000])
    opener, closer = rng.choice([("[", "]"), ("{\"a\":", "}"), ("  " * 0 + " ", "")])
    blob = opener * depth + "1" + closer * depth
    i = rng.randrange(len(text) + 1)
    return text[:i] + blob + text[i:]


def indent(rng: random.Random, text: str, other: str) -> str:
    lines = _lines(text)
    for _ in range(rng.randint(1, 10)):
        i = rng.randrange(len(lines))
        lines[i] = " " * rng.choice([0, 1, 2, 3, 4, 8, 64]) + lines[i].lstrip()
    return "\n".join(lines)


def long_line(rng: random.Random, text: str, other: str) -> str:
    i = rng.randrange(len(text) + 1)
    return text[:i] + rng.choice(["x", " ", "1", "a b ", "Ethernet1/"]) * 100_000 + text[i:]


MUTATIONS: list[Callable[[random.Random, str, str], str]] = [
    flip, drop_lines, double_lines, swap_lines, splice, numbers, junk, truncate, line_endings,
    nesting, indent, long_line,
]


def mutate(rng: random.Random, text: str, other: str) -> str:
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        text = rng.choice(MUTATIONS)(rng, text, other)
    return text


# -- running ---------------------------------------------------------------------------------


def parse_with(fmt: str, text: str, path: Path) -> str:
    """Feed ``text`` to the parser of ``fmt`` as fablint does (``ingest.parse_file``, which
    turns a refusal - ParseError, nesting too deep, a number of thousands of digits - into a
    FAB001 problem): 'ok' or 'refused'. Anything that escapes is a crash."""
    from fablint.ingest import parse_file

    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    outcome = parse_file(str(path), True, fmt)
    return "refused" if any(p.kind == "parse-error" and p.fatal for p in outcome.problems) \
        else "ok"


def lint_text(text: str, name: str, folder: Path) -> None:
    """The whole lint of one file holding ``text``, rendered in every report format."""
    from fablint.config import ProjectConfig
    from fablint.engine import LintOptions, lint
    from fablint.profiles import load_policy
    from fablint.report import REPORTERS
    from fablint.report import text as text_report

    path = folder / name
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    result = lint(LintOptions(paths=[str(path)], config=ProjectConfig(),
                              policy=_policy(load_policy), jobs=1))
    for render in REPORTERS.values():
        render(result)
    text_report.render(result, color=False)


_POLICY: list[object] = []


def _policy(load: Callable[[str], object]) -> object:
    if not _POLICY:
        _POLICY.append(load("default"))
    return _POLICY[0]


def run(count: int = 10_000, seed: int = 1, lint_every: int = 10, timeout: float = 10.0,
        save: Path | None = None, folders: list[Path] | None = None,
        log: Callable[[str], None] | None = None) -> Outcome:
    """Try ``count`` mutations; return what happened."""
    rng = random.Random(seed)
    pool = seeds(folders or [CORPUS, FIXTURES / "reference", FIXTURES / "hosts",
                             FIXTURES / "ib", FIXTURES / "opensm", FIXTURES / "demo"])
    by_format: dict[str, list[Seed]] = {}
    for item in pool:
        if item.format is not None:
            by_format.setdefault(item.format, []).append(item)
    formats = sorted(by_format)  # each parser as often as the others, however many samples
    outcome = Outcome()
    with tempfile.TemporaryDirectory(prefix="fablint-fuzz-") as tmp:
        work = Path(tmp)
        for n in range(count):
            seed_input = rng.choice(by_format[rng.choice(formats)])
            other = rng.choice(pool).text
            text = mutate(rng, seed_input.text, other)
            whole = lint_every > 0 and n % lint_every == 0
            target = "lint" if whole else str(seed_input.format)
            outcome.tried += 1
            outcome.by_target[target] += 1
            try:
                with time_limit(timeout):
                    if whole:
                        lint_text(text, seed_input.path.name, work)
                        outcome.linted += 1
                    elif parse_with(str(seed_input.format), text,
                                    work / seed_input.path.name) == "refused":
                        outcome.refused += 1
            except Hang:
                outcome.hangs += 1
                _record(outcome, "hang", target, seed_input, n, text, "", save, log)
            except Exception:  # the point: anything that escapes is a crash
                outcome.exceptions += 1
                _record(outcome, "exception", target, seed_input, n, text,
                        traceback.format_exc(limit=-3), save, log)
    return outcome


def _record(outcome: Outcome, kind: str, target: str, seed_input: Seed, n: int, text: str,
            trace: str, save: Path | None, log: Callable[[str], None] | None) -> None:
    last = trace.strip().splitlines()[-1] if trace else "no answer within the time limit"
    summary = f"#{n} {kind} in {target} ({seed_input.path.name}): {last}"
    outcome.crashes.append(summary)
    if log is not None:
        log(summary)
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
        (save / f"{n:06d}-{kind}-{target}-{seed_input.path.name}").write_text(
            text, encoding="utf-8", errors="surrogatepass")
        (save / f"{n:06d}-{kind}.txt").write_text(trace or summary, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000, help="mutations to try")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lint-every", type=int, default=10,
                        help="every N-th mutation goes through the whole lint (0: never)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds before a hang")
    parser.add_argument("--save", type=Path, help="folder for crashing inputs")
    args = parser.parse_args()
    start = time.monotonic()
    outcome = run(args.count, args.seed, args.lint_every, args.timeout, args.save,
                  log=lambda line: print(line, flush=True))
    seconds = time.monotonic() - start
    targets = ", ".join(f"{k} {v}" for k, v in sorted(outcome.by_target.items()))
    print(f"targets: {targets}")
    print(f"tried {outcome.tried}, exceptions {outcome.exceptions}, hangs {outcome.hangs} "
          f"({outcome.linted} whole lints, {outcome.refused} inputs refused with a parse "
          f"error; seed {args.seed}; {seconds:.0f} s)")
    sys.exit(1 if outcome.exceptions or outcome.hangs else 0)


if __name__ == "__main__":
    main()
