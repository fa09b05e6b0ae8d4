"""A bisection shortfall that degraded InfiniBand links explain is their consequence.

TOP006 compares the fabric's bisection with the ideal at the rates the links trained at. When
IB001 (a link narrower than it should be) or IB002 (slower) reports cables of that fabric, the
question is whether the shortfall is theirs: the bisection is computed again with each reported
cable at the width or speed its finding says it should run (and the ideal with it, since a
repaired host link raises it). If the repaired fabric meets ``topology.min_bisection_ratio``,
the shortfall is a consequence of those cables: TOP006 is folded into the first of their
findings ("this explains TOP006 on fabric") and not reported apart. If it does not, the
cabling is short by itself and TOP006 stays, its own cause (the ``ibtopotool`` manual's two
Voltaire switches: both 1x links at 4x give 20G of an ideal 25G, still 80 %).

It runs in the parent after the fabric rules, where the topology and every worker's IB
findings meet (the rules see neither the other pass's findings nor, in the parent, the IB
ports). A cable is matched to its finding by the dump line both cite.
"""

from __future__ import annotations

from fablint.checks.base import relist_consequences
from fablint.findings import Consequence, Finding, fmt_gbps
from fablint.model import IB_SPEEDS, Topology
from fablint.policy import Policy
from fablint.topology import bisection

_CAUSES = frozenset({"IB001", "IB002"})


def _gain(kind: object, have: object, want: object) -> float | None:
    """How much faster the cable runs when repaired (4.0 for 1x -> 4x, 2.0 for EDR -> HDR);
    None when either figure is not one fablint knows."""
    if not isinstance(have, str) or not isinstance(want, str):
        return None
    if kind == "width":
        low, high = have.rstrip("x"), want.rstrip("x")
        if not (low.isdigit() and high.isdigit()) or int(low) == 0:
            return None
        return int(high) / int(low)
    if kind == "speed":
        slow, fast = IB_SPEEDS.get(have), IB_SPEEDS.get(want)
        if slow is None or fast is None or not slow.lane_mbps:
            return None
        return fast.lane_mbps / slow.lane_mbps
    return None


def fold_bisection(findings: list[Finding], topo: Topology | None,
                   policy: Policy) -> list[Finding]:
    """``findings`` with TOP006 folded into the IB001/IB002 findings that explain it."""
    short = next((f for f in findings if f.rule == "TOP006"), None)
    if short is None or topo is None or topo.bisection is None:
        return findings
    causes = [f for f in findings if f.rule in _CAUSES and f.intent is not None
              and f.intent.action == "ib-cable"]
    if not causes:
        return findings
    at: dict[tuple[str, int], int] = {}
    for index, cable in enumerate(topo.cables):
        if cable.infiniband:
            for src in cable.sources:
                at[src.file, src.line] = index
    gain: dict[int, float] = {}
    used: list[Finding] = []
    for finding in causes:
        assert finding.intent is not None
        params = finding.intent.params
        index = at.get((finding.file or "", finding.line or 0))
        factor = _gain(params.get("kind"), params.get("have"), params.get("want"))
        if index is None or factor is None:
            continue
        gain[index] = gain.get(index, 1.0) * factor
        used.append(finding)
    if not used:
        return findings
    cables = [cable.model_copy(update={"speed_mbps": round(cable.speed_mbps * gain[i])})
              if i in gain and cable.speed_mbps else cable
              for i, cable in enumerate(topo.cables)]
    repaired = Topology.model_construct(nodes=topo.nodes, cables=cables)
    after = bisection(repaired)
    if after is None or not after.ideal_mbps or \
            after.mbps / after.ideal_mbps + 1e-9 < policy.topology.min_bisection_ratio:
        if after is not None and after.ideal_mbps:  # its own cause: say what repair leaves
            rules = " and ".join(sorted({f.rule for f in used}))
            short.message += (
                f"; with the links {rules} reports at the rate they should run it would be "
                f"{fmt_gbps(after.mbps)} of {fmt_gbps(after.ideal_mbps)} "
                f"({after.mbps / after.ideal_mbps:.0%}): the cabling is short by itself")
        return findings
    cause = min(used, key=Finding.sort_key)
    listed = bool(cause.consequences)
    cause.consequences.append(Consequence(short.rule, short.object or "", short.message))
    relist_consequences(cause, listed)
    return [f for f in findings if f is not short]
