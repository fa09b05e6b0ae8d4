"""Fixes for InfiniBand discovery-dump findings: what to do at the rack or on the subnet manager.

A link finding is fixed with hands, not with a configuration line, so these are instructions
that name both ends of the cable the way a technician finds them: node description, GUID and
port number.
"""

from __future__ import annotations

from typing import Any

from fablint.findings import FixIntent


def _end(end: dict[str, Any]) -> str:
    guid = f" ({end['guid']})" if end.get("guid") else ""
    return f"'{end['node']}'{guid} port {end['port']}"


def _between(params: dict[str, Any]) -> str:
    return f"between {_end(params['a'])} and {_end(params['b'])}"


def render(intent: FixIntent) -> str | None:
    p = intent.params
    action = intent.action
    if action == "ib-cable":
        if p["kind"] == "width":
            return (f"reseat or replace the cable {_between(p)}; it should train at "
                    f"{p['want']}")
        return (f"replace the cable {_between(p)} with one rated for {p['want']} (or reseat "
                f"it), and check that neither port's enabled speeds are limited; it should "
                f"train at {p['want']}")
    if action == "ib-port-activate":
        if p["b"] is None:
            return f"reseat or replace the cable on {_end(p['a'])}, then check its peer"
        if p["phys_up"]:
            return (f"the link {_between(p)} is up but not Active: check that a subnet "
                    "manager is running and sweeping (sminfo) and read its log for this port")
        return (f"reseat or replace the cable {_between(p)}, and enable the ports if they "
                "were disabled (ibportstate <lid> <port> enable)")
    if action == "ib-loop-cable":
        return (f"remove the loopback cable {_between(p)}, or move one end to the port the "
                "cabling plan names")
    if action == "ib-guid-duplicate":
        nodes = " and ".join(f"'{n}'" for n in p["nodes"])
        return (f"give {nodes} their own {p['what']} GUIDs: {p['guid']} must identify one "
                f"{p['what']} (reflash the adapter's GUIDs with the vendor's firmware tool, or "
                "correct a hand-set GUID)")
    if action == "ib-node-description":
        return ("set a unique node description on each of these nodes, host name and device "
                "(e.g. 'gpu01 mlx5_0'): on Linux hosts enable rdma-ndd, which sets it from the "
                "host name; on switches set the system name")
    if action == "ib-lid":
        if p["zero"] and p.get("all"):
            return "start a subnet manager (or find why it does not sweep): it assigns LIDs"
        if p["zero"]:
            return (f"let the subnet manager assign {p['ends'][0]} a unicast LID: check that "
                    "it sees the port and resweep")
        ends = " and ".join(p["ends"])
        return (f"LID {p['lid']} must belong to one port ({ends}): run a single master "
                "subnet manager, clear its stale guid2lid cache and let it reassign LIDs")
    return None
