"""Parse speed of the four IB discovery formats on one large generated fabric.

Writes the fabric of ``bench/gen_ibdiag.py`` (``--leaves`` leaves of ``--hosts`` ConnectX-7
HCAs, ``--spines`` director chips, a SHARP AN per switch) as ibnetdiscover, ibdiagnet's
ibnetdiscover, net_dump and db_csv, parses each with its parser (best of ``--repeat`` runs)
and prints size, CPU time and rate (CPU time: the machine is often shared)::

    python bench/run_ibdiag.py --leaves 63 --spines 32 --hosts 32
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gen_ibdiag

from fablint.parsers import PARSERS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--leaves", type=int, default=63)
    parser.add_argument("--spines", type=int, default=32)
    parser.add_argument("--hosts", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    fabric = gen_ibdiag.build(args.leaves, args.spines, args.hosts)
    print(f"{len(fabric.nodes)} nodes, {len(fabric.cables)} cables")
    for name, fmt, text in (
            ("ibnetdiscover", "ibnetdiscover", gen_ibdiag.ibnetdiscover(fabric)),
            ("ibdiagnet2.ibnetdiscover", "ibnetdiscover",
             gen_ibdiag.ibnetdiscover(fabric, dialect=True)),
            ("ibdiagnet2.net_dump", "ibdiagnet-net-dump", gen_ibdiag.net_dump(fabric)),
            ("ibdiagnet2.db_csv", "ibdiagnet-db-csv", gen_ibdiag.db_csv(fabric))):
        best = float("inf")
        for _ in range(args.repeat):
            start = time.process_time()
            result = PARSERS[fmt].parse(text, name)
            best = min(best, time.process_time() - start)
        lines = text.count("\n")
        print(f"{name:26} {len(text) / 1e6:7.1f} MB {lines:8d} lines {best:7.2f} CPU s "
              f"{best / lines * 1e6:6.2f} µs/line  {len(result.ib_nodes)} nodes "
              f"{len(result.links)} links")


if __name__ == "__main__":
    main()
