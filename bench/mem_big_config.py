"""Peak memory of ``fablint lint`` on one huge running-config (issue 16: memory must follow
what the model keeps, not the size of the text: at most 10x the input bytes).

Generates a single running-config of ``--mb`` megabytes (a chassis-sized interface table:
every port with the QoS, PFC and ECN lines fablint models, plus the lines it skips), Arista EOS
or Cisco NX-OS (``--vendor nxos``), and lints it in a subprocess, reporting the child's peak
resident set size.

    python bench/mem_big_config.py --mb 50 [--vendor eos|nxos] [--out bench/out] [--jobs 1]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HEADER = """! Command: show running-config
! device: chassis1 (DCS-7816-CH, EOS-4.32.2F)
!
hostname chassis1
!
qos map dscp 26 to traffic-class 3
qos map dscp 48 to traffic-class 6
!
qos profile ROCE
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   tx-queue 3
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes \
max-mark-probability 100
!
""".replace("\\\n", "")

PORT = """interface Ethernet{slot}/{port}/{lane}
   description GPU{slot:03d}-{port:02d}-{lane}_mlx5_{lane}_RAIL{lane}_400G \
link to host gpu{slot:03d}{port:02d}
   no shutdown
   mtu 9214
   speed 400g-8
   no switchport
   ip address 10.{a}.{b}.{c}/31
   service-profile ROCE
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   load-interval 30
   logging event link-status
   storm-control broadcast level 1
!
""".replace("\\\n", "")


NXOS_QOS = """\
class-map type qos match-any ROCE
  match dscp 24,26
class-map type qos match-any CNP
  match dscp 48
policy-map type qos QOS_CLASSIFICATION
  class ROCE
    set qos-group 3
  class CNP
    set qos-group 6
  class class-default
    set qos-group 0
policy-map type queuing QOS_EGRESS
  class type queuing c-out-8q-q6
    priority level 1
  class type queuing c-out-8q-q3
    bandwidth remaining percent 50
    random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes \
drop-probability 100 weight 0 ecn
  class type queuing c-out-8q-q-default
    bandwidth remaining percent 50
policy-map type network-qos QOS_NETWORK
  class type network-qos c-8q-nq3
    pause pfc-cos 3
    mtu 9216
  class type network-qos c-8q-nq-default
    mtu 9216
system qos
  service-policy type queuing output QOS_EGRESS
  service-policy type network-qos QOS_NETWORK
"""
"""The QoS of every generated NX-OS switch (also ``gen_mixed.py``'s): RoCE on DSCP 24/26 in
qos-group 3, PFC and ECN on it, CNP strict priority."""

NXOS_HEADER = """!Command: show running-config
!Time: Fri Nov 27 05:00:00 2026

version 10.3(4a)
hostname chassis1

feature lldp
priority-flow-control watch-dog-interval on

""" + NXOS_QOS + "\n"

NXOS_PORT = """interface Ethernet{slot}/{port}/{lane}
  description GPU{slot:03d}-{port:02d}-{lane} rail {lane}
  no switchport
  mtu 9216
  priority-flow-control mode on
  service-policy type qos input QOS_CLASSIFICATION
  ip address 10.{a}.{b}.{c}/31
  no shutdown

"""

TEMPLATES = {"eos": (HEADER, PORT, "end\n"), "nxos": (NXOS_HEADER, NXOS_PORT, "")}


def generate(path: Path, megabytes: float, vendor: str = "eos") -> int:
    """Write the config; return its size in bytes."""
    header, port_block, footer = TEMPLATES[vendor]
    target = int(megabytes * 1024 * 1024)
    parts = [header]
    size = len(header)
    n = 0
    while size < target:
        slot, rest = divmod(n, 32 * 8)
        port, lane = divmod(rest, 8)
        block = port_block.format(slot=slot + 1, port=port + 1, lane=lane + 1,
                                  a=(n >> 14) & 255, b=(n >> 6) & 255, c=(n & 63) * 2)
        parts.append(block)
        size += len(block)
        n += 1
    parts.append(footer)
    text = "".join(parts)
    path.write_text(text, encoding="utf-8")
    return len(text.encode())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50.0, help="config size in MB (default 50)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--vendor", default="eos", choices=sorted(TEMPLATES))
    parser.add_argument("--command", default="lint", choices=("lint", "parse"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "" if args.vendor == "eos" else f"-{args.vendor}"
    path = args.out / f"chassis-{args.mb:g}mb{suffix}.cfg"
    size = generate(path, args.mb, args.vendor)
    extra = ["-j", str(args.jobs), "-f", "json"] if args.command == "lint" else []
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "fablint", args.command, str(path), *extra],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          check=False)
    seconds = time.monotonic() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    print(f"input {size / 1e6:.1f} MB ({path.name}); exit {done.returncode}; "
          f"{seconds:.1f} s; peak RSS {peak / 1e6:.0f} MB = {peak / size:.1f}x the input")
    if done.returncode not in (0, 1):
        print(done.stderr[-2000:], file=sys.stderr)


if __name__ == "__main__":
    main()
