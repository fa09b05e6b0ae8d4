"""A dump of a host's RoCE sysfs/configfs settings into host NIC facts.

Captured with ``grep -r . /sys/class/net/IF/ecn/`` (or ``grep -H . /sys/class/net/*/ecn/*/*/*``):
one ``PATH:VALUE`` line per file. What is read (mlx5 sysfs layout, MLNX_OFED ``en_sysfs.c``):

- ``…/IF/ecn/roce_np/enable/P`` and ``…/IF/ecn/roce_rp/enable/P``: DCQCN notification and
  reaction point per priority (``1`` on);
- ``…/IF/ecn/roce_np/cnp_dscp``, ``…/roce_np/cnp_802p_prio``: how the NIC marks CNPs;
- every other attribute under ``roce_np/`` and ``roce_rp/`` (``rpg_*``, ``dce_tcp_g``,
  ``initial_alpha_value``, ``min_time_between_cnps`` …; also under an older ``params/``
  folder): DCQCN parameters by name;
- ``/sys/class/net/IF/mtu``, ``/sys/class/net/IF/qos/trust``;
- ``/sys/kernel/config/rdma_cm/DEV/ports/N/default_roce_tos`` (what ``cma_roce_tos`` sets) and
  ``/sys/class/infiniband/DEV/tc/N/traffic_class`` (``Global tclass=106``, which overrides it);
- ``ibdev2netdev`` lines (``mlx5_0 port 1 ==> ens1f0 (Up)``) that tie RDMA devices to netdevs,
  and ``ip link`` lines, whose MTU completes NICs that other lines or files describe.

Relative paths (``grep -r .`` run inside ``…/ecn``) are accepted; the interface then comes from
the file name, as for mlnx_qos output. Shell prompts and the commands themselves may be left in.
"""

from __future__ import annotations

import re

from fablint.model import SourceRef
from fablint.parsers.base import ParseError
from fablint.parsers.host_facts import HostDoc, HostLoader, int_value, set_entry, set_field

_ENTRY = re.compile(r"^(?P<path>[^:\s]+):(?P<value>.*)$")
_ECN = re.compile(r"(?:^|/)(?:(?P<if>[^/]+)/)?(?:ecn/)(?P<point>roce_np|roce_rp)/(?P<attr>.+)$")
_ECN_BARE = re.compile(r"^(?:\./)?(?P<point>roce_np|roce_rp)/(?P<attr>.+)$")
_NET_FILE = re.compile(r"^/?(?:sys/class/net/)(?P<if>[^/]+)/(?P<attr>mtu|qos/trust)$")
_ROCE_TOS = re.compile(r"^/?sys/kernel/config/rdma_cm/(?P<dev>[^/]+)/ports/\d+/default_roce_tos$")
_TCLASS = re.compile(r"^/?sys/class/infiniband/(?P<dev>[^/]+)/tc/\d+/traffic_class$")
_IBDEV2NETDEV = re.compile(
    r"^\s*(?P<dev>\S+)\s+port\s+\d+\s+==>\s+(?P<if>[^\s(]+)\s*(?:\((?:Up|Down)\))?\s*$"
)
_IP_LINK = re.compile(r"^\d+:\s+(?P<if>[^:@\s]+)(?:@\S+)?:\s+<[^>]*>\s+mtu\s+(?P<mtu>\d+)\b")
_GLOBAL_TCLASS = re.compile(r"^\s*(?:Global\s+tclass\s*=\s*)?(\d+)\s*$", re.I)
_SIGNAL = re.compile(
    r"^(?:\.{0,2}/)?[\w./@:+-]*?(?:^|/)(?:ecn/)?roce_(?:np|rp)/[\w/]+:[ \t]*\S"
    r"|^/sys/kernel/config/rdma_cm/[^/\s]+/ports/\d+/default_roce_tos:[ \t]*\d"
    r"|^/sys/class/infiniband/[^/\s]+/tc/\d+/traffic_class:",
    re.M,
)
MAX_MTU = 1 << 24
"""Largest netdev MTU read (Linux loopback runs 65536; no real NIC comes near this)."""
_NP_FIELDS = {"cnp_dscp": ("cnp_dscp", 63), "cnp_802p_prio": ("cnp_priority", 7)}


class SysfsEcnParser(HostLoader):
    """``grep -r . /sys/class/net/IF/ecn/`` and the RoCE ToS files: DCQCN on one host."""

    name = "sysfs_ecn"
    label = "host sysfs dump (ecn, rdma_cm ToS)"

    def sniff(self, head: str) -> int:
        return 100 if _SIGNAL.search(head) else 0

    def load(self, text: str, path: str) -> HostDoc:
        doc = HostDoc(path=path, format=self.name, lines=text.count("\n") + 1)
        tos: dict[str, tuple[int, SourceRef]] = {}
        tclass: dict[str, tuple[int, SourceRef]] = {}
        read = 0
        for lineno, line in enumerate(text.split("\n"), 1):
            stripped = line.strip()
            if not stripped:
                continue
            known = _line(doc, stripped, lineno, tos, tclass)
            if known is None:
                doc.unknown += 1
                doc.first_unknown = doc.first_unknown or lineno
            elif known:
                read += 1
        if not read:
            raise ParseError(path, None, "no RoCE sysfs settings found (expected lines such as "
                             "'/sys/class/net/ens1f0/ecn/roce_np/enable/3:1')")
        doc.rdma_tos = {**tos, **tclass}
        return doc


def _line(doc: HostDoc, line: str, lineno: int, tos: dict[str, tuple[int, SourceRef]],
          tclass: dict[str, tuple[int, SourceRef]]) -> bool | None:
    """Read one line: True when it set something, False when it is known noise (a prompt,
    a comment), None when fablint does not model it."""
    ref = doc.ref(lineno)
    if (m := _IBDEV2NETDEV.match(line)) is not None:
        doc.rdma_netdev[m.group("dev")] = m.group("if")
        return True
    if (m := _IP_LINK.match(line)) is not None:
        mtu = int_value(doc, m.group("mtu"), lineno, "MTU", 68, MAX_MTU)
        if mtu is not None:
            doc.link_mtu[m.group("if")] = (mtu, ref)
        return True
    if line.startswith("#") and not line.startswith("#!") and ":" not in line.split()[0]:
        return False
    entry = _ENTRY.match(line)
    known = _entry(doc, entry.group("path"), entry.group("value").strip(), lineno, tos,
                   tclass) if entry is not None else None
    if known is None and doc.note_prompt(line, lineno):
        return False
    return known


def _entry(doc: HostDoc, path: str, value: str, lineno: int,
           tos: dict[str, tuple[int, SourceRef]],
           tclass: dict[str, tuple[int, SourceRef]]) -> bool | None:
    """One ``PATH:VALUE`` line; None when the path is not one fablint reads."""
    ref = doc.ref(lineno)
    if (m := _ECN.search(path)) is not None and m.group("if") not in (None, ".", ".."):
        return _ecn(doc, m.group("if"), m.group("point"), m.group("attr"), value, lineno)
    if (m := _ECN.search(path)) is not None or (m := _ECN_BARE.match(path)) is not None:
        doc.unnamed_interface = True
        return _ecn(doc, "", m.group("point"), m.group("attr"), value, lineno)
    if (m := _NET_FILE.match(path)) is not None:
        nic = doc.nic(m.group("if"), lineno)
        if m.group("attr") == "mtu":
            mtu = int_value(doc, value, lineno, "MTU", 68, MAX_MTU)
            if mtu is not None:
                set_field(nic, "mtu", mtu, ref)
        elif value in ("dscp", "pcp"):
            set_field(nic, "trust", "dscp" if value == "dscp" else "cos", ref)
        else:
            doc.problem(lineno, f"unknown trust state {value!r}")
        return True
    for pattern, into in ((_ROCE_TOS, tos), (_TCLASS, tclass)):
        if (m := pattern.match(path)) is not None:
            number = _GLOBAL_TCLASS.match(value)
            if number is None:
                if value:
                    doc.problem(lineno, f"RoCE ToS {value!r} is not a number")
                return True
            parsed = int_value(doc, number.group(1), lineno, "RoCE ToS", 0, 255)
            if parsed is not None:
                into[m.group("dev")] = (parsed, ref)
            return True
    return None


def _ecn(doc: HostDoc, interface: str, point: str, attr: str, value: str,
         lineno: int) -> bool | None:
    parts = [p for p in attr.split("/") if p and p != "params"]
    ref = doc.ref(lineno)
    if not parts:
        return None
    nic = doc.nic(interface, lineno)
    nic["vendor"] = nic.get("vendor") or "nvidia"
    if parts[0] == "enable" and len(parts) == 2:
        prio = int_value(doc, parts[1], lineno, "priority", 0, 7)
        flag = int_value(doc, value, lineno, f"{point} enable", 0, 1)
        if prio is not None and flag is not None:
            set_entry(nic, "ecn_np" if point == "roce_np" else "ecn_rp", prio, bool(flag), ref)
        return True
    if len(parts) != 1:
        return None
    name = parts[0]
    if point == "roce_np" and name in _NP_FIELDS:
        field, high = _NP_FIELDS[name]
        number = int_value(doc, value, lineno, name, 0, high)
        if number is not None:
            set_field(nic, field, number, ref)
        return True
    number = int_value(doc, value, lineno, name)
    if number is not None:
        set_entry(nic, "dcqcn", name, number, ref)
    return True
