"""``mlxconfig -d DEV query`` output (NVIDIA MFT; mstflint's ``mstconfig`` prints the same) into
host NIC facts: the persistent firmware (NVConfig) configuration of a ConnectX adapter.

What the tool prints, one block per adapter (``mlxconfig q`` without ``-d`` lists them all)::

    Device #1:
    ----------

    Device type:    ConnectX5
    Name:           MCX555A-ECA_Ax_Bx            (older MFT: no Name / Description)
    Description:    ConnectX-5 VPI adapter card; ...
    Device:         /dev/mst/mt4119_pciconf0      (or a PCI address; older MFT: PCI device:)

    Configurations:                              Next Boot
             LINK_TYPE_P1                        ETH(2)
             ROCE_CC_PRIO_MASK_P1                255
             CNP_DSCP_P1                         48

With ``-e`` (``--enable_verbosity``) the table has the columns ``Default  Current  Next Boot``,
a ``*`` before each parameter whose next value differs, and a closing note. The value in effect
is ``Current`` when printed, else the only column (``Next Boot``: the running value unless a
change waits for a reboot). A ``Next Boot`` value that differs from ``Current`` is recorded as
pending (``NicFirmware.pending``), not used.

Read, per port (the ``_P1``/``_P2`` suffix): ``LINK_TYPE`` (InfiniBand ports are not RoCE
NICs), ``QOS_TRUST_STATE`` (``TRUST_PCP`` is the model's ``cos``, ``TRUST_DSCP`` ``dscp``),
``CNP_DSCP``, ``CNP_802P_PRIO``, ``ROCE_CC_PRIO_MASK`` (bit P: DCQCN's notification and reaction
points on priority P) and the DCQCN parameters, by their mlx5 sysfs name (``RPG_AI_RATE`` ->
``rpg_ai_rate``). Values are written ``48``, ``0xff``, ``True(1)``, ``ETH(2)``; ``N/A``,
``Array[..]`` and ``DEVICE_DEFAULT(0)`` (the device's own default) give no value. Every other
line is skipped and counted, as are the values of the adapter's other ports.

Which port a query describes: each PCI function of a multi-port adapter is one port and one
RDMA device, but every function shows the whole adapter's ``_P1`` and ``_P2`` values. The port
is the only one printed, else function F's (``Device: 0000:3b:00.1`` or ``-d 3b:00.1``, mst
``…_pciconf0.1``) port F+1. When neither tells (``-d mlx5_1`` of a dual-port adapter) the values
the ports share are used and those that differ are reported and left out: fablint never picks
a port by guessing. The netdev it belongs to is found later, with the host's other files
(``host_facts._place_firmware``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fablint.model import SourceRef
from fablint.parsers.host_facts import (
    RDMA_DEVICE,
    FirmwareNic,
    HostDoc,
    HostLoader,
    LineReader,
    NicObj,
    new_nic,
    set_entry,
    set_field,
)

_BLOCK = re.compile(r"^\s*Device\s*#?\s*\d+\s*:\s*$", re.I)
_RULE = re.compile(r"^\s*-{3,}\s*$")
_HEADER = re.compile(r"^\s*(Device type|Name|Description|Device|PCI device)\s*:\s*(.*?)\s*$",
                     re.I)
_TABLE = re.compile(r"^\s*Configurations\s*:(?P<columns>.*)$", re.I)
_COLUMN = re.compile(r"Default|Current|Next\s+Boot|New", re.I)
_PARAM = re.compile(
    r"^\s*(?:(?P<star>\*)\s*)?(?P<name>[A-Z][A-Z0-9]*(?:_[A-Za-z0-9]+)+)\s+(?P<values>\S.*?)\s*$"
)
_FOOTER = re.compile(r"^\s*The '\*' shows parameters", re.I)
_COMMAND = re.compile(r"(?:^|[\s#$>])(?:sudo\s+)?(?:\S*/)?(?:mlxconfig|mstconfig)\b(?P<args>.*)$")
_DEVICE_ARG = re.compile(r"(?:^|\s)(?:-d|--dev)(?:\s+|=)(?P<dev>[^\s;|&>'\"]+)")
_PORT = re.compile(r"^(?P<base>[A-Z][A-Za-z0-9_]*?)_P(?P<port>[1-8])$")
_LABELLED = re.compile(r"^(?P<label>[A-Za-z_][\w.-]*)\((?P<number>[0-9]{1,12})\)$")
_HEX = re.compile(r"^0[xX][0-9a-fA-F]{1,12}$")
_DECIMAL = re.compile(r"^[0-9]{1,12}$")
_BDF = re.compile(r"^(?:[0-9a-fA-F]{4,}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.(?P<fn>[0-7])$")
_MST = re.compile(r"(?:^|/)mt\d+_pci(?:conf|_cr)\d+(?:\.(?P<fn>[0-7]))?$")

LINK_TYPE = "LINK_TYPE"
TRUST = "QOS_TRUST_STATE"
PRIO_MASK = "ROCE_CC_PRIO_MASK"
CNP_FIELDS = {"CNP_DSCP": ("cnp_dscp", 63), "CNP_802P_PRIO": ("cnp_priority", 7)}
"""NVConfig parameter -> (HostNic field, highest value)."""
DCQCN_PARAMETERS = frozenset({
    "CLAMP_TGT_RATE", "CLAMP_TGT_RATE_AFTER_TIME_INC", "RPG_TIME_RESET", "RPG_BYTE_RESET",
    "RPG_THRESHOLD", "RPG_MAX_RATE", "RPG_AI_RATE", "RPG_HAI_RATE", "RPG_GD", "RPG_MIN_DEC_FAC",
    "RPG_MIN_RATE", "RATE_TO_SET_ON_FIRST_CNP", "DCE_TCP_G", "DCE_TCP_RTT",
    "RATE_REDUCE_MONITOR_PERIOD", "INITIAL_ALPHA_VALUE", "MIN_TIME_BETWEEN_CNPS",
})
"""DCQCN parameters ([S30]); in the model by their sysfs name, the lower-case NVConfig name."""
MODELLED = frozenset({LINK_TYPE, TRUST, PRIO_MASK, *CNP_FIELDS, *DCQCN_PARAMETERS})
_NO_VALUE = frozenset({"N/A", "NA", "DEVICE_DEFAULT"})
_TRUST_LABELS = {"TRUST_PCP": "cos", "TRUST_DSCP": "dscp"}
_TRUST_NUMBERS = {1: "cos", 2: "dscp"}
"""QOS_TRUST_STATE numbers as the mlx5 QPTS register counts them (1 PCP, 2 DSCP)."""
_SIGNALS = (
    re.compile(r"^[ \t]*Device[ \t]*#?[ \t]*\d+[ \t]*:[ \t]*\n[ \t]*-{3,}[ \t]*$", re.M),
    re.compile(r"^[ \t]*(?:Device type|PCI device)[ \t]*:[ \t]*\S", re.M),
    re.compile(r"^[ \t]*Configurations[ \t]*:[ \t]*(?:(?:Default|Current|Next Boot)[ \t]*)*$",
               re.M),
    re.compile(r"^[ \t]*(?:\*[ \t]*)?(?:LINK_TYPE|ROCE_CC_PRIO_MASK|CNP_DSCP|CNP_802P_PRIO|"
               r"QOS_TRUST_STATE|RPG_AI_RATE|DCE_TCP_G)_P\d[ \t]+\S+", re.M),
)


MAX_LINE = 1024
"""Longest line read (a parameter row is under 120 characters)."""

class MlxconfigParser(HostLoader):
    """``mlxconfig -d DEV q [-e]``: the adapter's persistent DCQCN, CNP, trust and link type."""

    name = "mlxconfig"
    label = "mlxconfig query (NVIDIA ConnectX firmware configuration)"

    def sniff(self, head: str) -> int:
        found = [bool(signal.search(head)) for signal in _SIGNALS]
        # A table header or a per-port RoCE parameter, and one more sign of the tool.
        if not (found[2] or found[3]) or sum(found) < 2:
            return 0
        return min(100, 35 * sum(found))

    def load(self, text: str, path: str) -> HostDoc:
        return _Reader(text, path, self.name).run()


@dataclass
class _Cell:
    """One per-port parameter line: the value in effect and the Next Boot one."""

    raw: str
    line: int
    next_boot: str | None = None


@dataclass
class _Block:
    """One ``Device #N:`` block of the output."""

    line: int
    device_arg: str | None = None
    device: str | None = None
    device_line: int | None = None
    columns: list[str] | None = None
    """Column names of the table being read (None: no table yet)."""
    setting: bool = False
    """The table is a ``set`` confirmation (``Next Boot  New``), not a query."""
    ports: dict[int, dict[str, _Cell]] = field(default_factory=dict)


class _Reader(LineReader):
    missing = ("no mlxconfig query output found (expected 'Device type:' and a "
               "'Configurations:' table)")

    def __init__(self, text: str, path: str, fmt: str) -> None:
        super().__init__(text, path, fmt, device_slot=True)
        self.block: _Block | None = None
        self.device_arg: str | None = None
        self.tables = 0

    def found(self) -> bool:
        return bool(self.tables)

    # -- lines ---------------------------------------------------------------------------

    def _line(self, line: str, lineno: int) -> bool:
        if len(line) > MAX_LINE:  # no mlxconfig line is that long; the patterns are quadratic
            return False
        command = _COMMAND.search(line)
        if command is not None:
            self.doc.note_prompt(line.strip(), lineno)
            arg = _DEVICE_ARG.search(" " + command.group("args"))
            self._close()
            self.device_arg = arg.group("dev") if arg and not arg.group("dev").startswith(
                "$") else None
            return True
        if self.doc.note_prompt(line.strip(), lineno):
            return True
        if _BLOCK.match(line):
            self._open(lineno)
            return True
        if _RULE.match(line) or _FOOTER.match(line):
            return True
        if (m := _TABLE.match(line)) is not None:
            block = self.block if self.block is not None else self._open(lineno)
            columns = [" ".join(c.split()).lower() for c in _COLUMN.findall(m.group("columns"))]
            block.columns = columns or ["value"]
            block.setting = "new" in columns
            self.tables += 1
            return True
        block = self.block
        if (block is None or block.columns is None) and (m := _HEADER.match(line)):
            block = block if block is not None else self._open(lineno)
            if m.group(1).lower() in ("device", "pci device") and m.group(2):
                block.device, block.device_line = m.group(2), lineno
            return True
        if block is not None and block.columns is not None and (m := _PARAM.match(line)):
            return self._param(block, m, lineno)
        return False

    def _param(self, block: _Block, m: re.Match[str], lineno: int) -> bool:
        port = _PORT.match(m.group("name"))
        if block.setting or port is None or port.group("base") not in MODELLED:
            return False  # not modelled (device-wide, another feature): skipped and counted
        base, number = port.group("base"), int(port.group("port"))
        values = m.group("values").split()
        columns = block.columns or ["value"]
        if len(values) != len(columns):
            self.doc.problem(lineno, f"{m.group('name')}: {len(values)} values for the "
                             f"{len(columns)} columns ({', '.join(columns)}); line ignored")
            return True
        pick = columns.index("current") if "current" in columns else len(columns) - 1
        cell = _Cell(values[pick], lineno)
        if "current" in columns and "next boot" in columns:
            cell.next_boot = values[columns.index("next boot")]
        block.ports.setdefault(number, {})[base] = cell
        return True

    # -- blocks --------------------------------------------------------------------------

    def _open(self, lineno: int) -> _Block:
        self._close()
        self.block = _Block(line=lineno, device_arg=self.device_arg)
        return self.block

    def _close(self) -> None:
        block, self.block = self.block, None
        if block is not None and block.ports:
            _Device(self.doc, block).build()


class _Device:
    """Turns one block's per-port cells into the firmware facts of the device's own port."""

    def __init__(self, doc: HostDoc, block: _Block) -> None:
        self.doc = doc
        self.block = block
        self.name = block.device_arg or block.device
        """The device as the user gave it to mlxconfig, else as the output names it."""

    def build(self) -> None:
        doc, block = self.doc, self.block
        printed = sorted(block.ports)
        function = self._function()
        if len(printed) == 1:
            own = printed
        elif function is not None and function + 1 in printed:
            own = [function + 1]
        else:
            own = printed
        for port in printed:
            if port not in own:
                doc.unknown += len(block.ports[port])  # the adapter's other function's port
        links = {port: self._link(port) for port in own}
        infiniband = [port for port in own if links[port] == "ib"]
        if infiniband and len(infiniband) == len(own):
            cell = block.ports[own[0]][LINK_TYPE]
            doc.infiniband.append((self.name or "the adapter", doc.ref(cell.line)))
            return
        if infiniband:
            kinds = ", ".join(
                f"P{p} {block.ports[p][LINK_TYPE].raw if LINK_TYPE in block.ports[p] else 'ETH'}"
                for p in own)
            doc.problem(block.ports[infiniband[0]][LINK_TYPE].line,
                        f"{self.name or 'the adapter'} has InfiniBand and Ethernet ports "
                        f"({kinds}) and the output does not say which one it is; query it by "
                        "PCI address (mlxconfig -d 0000:3b:00.1 q) to tell the ports apart; "
                        "its firmware facts are not used")
            return
        nic = new_nic("", doc.ref(block.line))
        nic["vendor"] = "nvidia"
        fw = FirmwareNic(nic=nic, ref=doc.ref(block.line), device=self.name, ports=own)
        self._identity(fw)
        self._facts(fw, own)
        doc.firmware.append(fw)

    def _function(self) -> int | None:
        for name in (self.block.device_arg, self.block.device):
            if not name:
                continue
            match = _BDF.match(name) or _MST.search(name)
            if match is not None:
                return int(match.group("fn") or 0)
        return None

    def _link(self, port: int) -> str | None:
        cell = self.block.ports[port].get(LINK_TYPE)
        if cell is None:
            return None  # Ethernet-only adapters (ConnectX-4 Lx EN) print no link type
        label, number = _value(cell.raw)
        if (label or "").upper() == "IB" or (label is None and number == 1):
            return "ib"
        return "eth"

    def _identity(self, fw: FirmwareNic) -> None:
        block = self.block
        for name, line in ((block.device_arg, None), (block.device, block.device_line)):
            if name and RDMA_DEVICE.match(name):
                fw.rdma_device = name
                if line is not None:
                    set_field(fw.nic, "rdma_device", name, self.doc.ref(line))
                else:
                    fw.nic["rdma_device"] = name
                return

    def _facts(self, fw: FirmwareNic, own: list[int]) -> None:
        doc, nic = self.doc, fw.nic
        differ: list[str] = []
        for base in sorted(MODELLED - {LINK_TYPE}):
            cells = [(port, self.block.ports[port].get(base)) for port in own]
            if any(cell is None for _, cell in cells):
                continue
            if len({cell.raw for _, cell in cells if cell is not None}) > 1:
                differ.append(", ".join(f"{base}_P{p} {c.raw}" for p, c in cells if c))
                continue
            port, cell = cells[0]
            assert cell is not None
            if self._fact(nic, fw, base, port, cell):
                for other, each in cells:
                    if each is not None and each.next_boot not in (None, each.raw):
                        fw.pending[f"{base}_P{other}"] = each.next_boot
        if differ:
            doc.problem(self.block.line, f"{self.name or 'the adapter'} shows ports "
                        f"{', '.join(f'P{p}' for p in own)} and the output does not say which "
                        f"one it is; they differ ({'; '.join(differ)}), so those values are "
                        "not used. Query the adapter by PCI address (mlxconfig -d "
                        "0000:3b:00.1 q) to tell the ports apart")

    def _fact(self, nic: NicObj, fw: FirmwareNic, base: str, port: int, cell: _Cell) -> bool:
        """Set one parameter's fact; False when it gives no value."""
        doc = self.doc
        ref: SourceRef = doc.ref(cell.line)
        label, number = _value(cell.raw)
        name = f"{base}_P{port}"
        if (label or "").upper() in _NO_VALUE or cell.raw.startswith("Array["):
            return False  # the device's own default, or not shown: unknown
        if base == TRUST:
            trust = _TRUST_LABELS.get((label or "").upper()) if label else _TRUST_NUMBERS.get(
                number if number is not None else -1)
            if trust is None:
                doc.problem(cell.line, f"{name} {cell.raw}: fablint models trust in PCP or in "
                            "DSCP only; the NIC's trust is left unknown")
                return False
            set_field(nic, "trust", trust, ref)
            return True
        if number is None:
            doc.problem(cell.line, f"{name}: {cell.raw!r} is not a number")
            return False
        if base == PRIO_MASK:
            if not 0 <= number <= 0xFF:
                doc.problem(cell.line, f"{name}: {number} is not a mask of priorities 0-7")
                return False
            fw.prio_mask = number
            for prio in range(8):
                on = bool(number >> prio & 1)
                set_entry(nic, "ecn_np", prio, on, ref)
                set_entry(nic, "ecn_rp", prio, on, ref)
            return True
        if base in CNP_FIELDS:
            target, high = CNP_FIELDS[base]
            if not 0 <= number <= high:
                doc.problem(cell.line, f"{name}: {number} is outside 0-{high}")
                return False
            set_field(nic, target, number, ref)
            return True
        if number < 0:
            doc.problem(cell.line, f"{name}: {number} is negative")
            return False
        set_entry(nic, "dcqcn", base.lower(), number, ref)
        return True


def _value(raw: str) -> tuple[str | None, int | None]:
    """A printed value as (label, number): ``ETH(2)`` -> ("ETH", 2), ``0xff`` -> (None, 255),
    ``True`` -> ("True", 1), ``N/A`` -> ("N/A", None)."""
    if (m := _LABELLED.match(raw)) is not None:
        return m.group("label"), int(m.group("number"))
    if _HEX.match(raw):
        return None, int(raw, 16)
    if _DECIMAL.match(raw):
        return None, int(raw)
    if raw in ("True", "False"):
        return raw, int(raw == "True")
    return raw, None
