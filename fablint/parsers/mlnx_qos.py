"""``mlnx_qos -i IF`` output (NVIDIA/Mellanox MLNX_OFED and mlnx-tools) into host NIC facts.

What the tool prints (mlnx-tools ``python/mlnx_qos``, ``pretty_print``), all of it optional
because versions differ:

    DCBX mode: OS controlled | Firmware controlled
    Priority trust state: dscp | pcp
    dscp2prio mapping:                 (only under dscp trust; eight DSCPs a line, a priority
        prio:3 dscp:31,30,29,28,27,26,25,24,      may take several lines)
    default priority:                  (newer versions; ``prio:N`` lines follow when set)
    Receive buffer size (bytes): 130944,130944,0,…,max_buffer_size=262016   (or total_size=)
    Cable len: 7
    PFC configuration:
        priority    0   1   2   3   4   5   6   7
        enabled     0   0   0   1   0   0   0   0
        buffer      0   0   0   1   0   0   0   0     (newer versions)
    tc: 0 ratelimit: unlimited, tsa: vendor | strict | ets, bw: 13%
         priority:  1

Older outputs (MLNX_OFED 4.x documentation) put blank lines between the ``tc:`` lines and their
``priority:`` lines and do not indent; outputs pasted into tickets often carry the shell prompt
and the command (``root@gpu01:~# mlnx_qos -i ens1f0``), which name the host and the interface.
A file may hold several outputs: each ``DCBX mode:`` (or a second ``Priority trust state:``)
starts a new one, for the interface of the last ``mlnx_qos -i IF`` command seen, and a later
output of the same interface wins field by field. Under DSCP trust without a printed map the
firmware default (priority = DSCP >> 3) is assumed, as documented for mlnx_qos.
"""

from __future__ import annotations

import re

from fablint.parsers.host_facts import (
    HostDoc,
    HostLoader,
    LineReader,
    NicObj,
    int_value,
    merge_nic,
    new_nic,
    set_entry,
    set_field,
)

_DCBX = re.compile(r"^\s*DCBX mode:\s*(OS|Firmware) controlled\s*$", re.I)
_TRUST = re.compile(r"^\s*Priority trust (?:state|mode):\s*(\S+)\s*$", re.I)
_MAP_HEADER = re.compile(r"^\s*dscp2prio mapping:\s*$", re.I)
_MAP_LINE = re.compile(r"^\s*prio:\s*(\d+)\s+dscp:\s*([\d,\s]*)$")
_DEFAULT_HEADER = re.compile(r"^\s*default priority:\s*$", re.I)
_DEFAULT_LINE = re.compile(r"^\s*prio:\s*(\d+)\s*$")
_BUFFER = re.compile(r"^\s*Receive buffer size \(bytes\):\s*(.*)$", re.I)
_CABLE = re.compile(r"^\s*Cable len:\s*(\S+)\s*$", re.I)
_PFC_HEADER = re.compile(r"^\s*PFC configuration:\s*$", re.I)
_ROW = re.compile(r"^\s*(priority|enabled|buffer)((?:\s+\d+)+)\s*$")
_TC = re.compile(
    r"^\s*tc:\s*(\d+)\s+ratelimit:\s*([^,]*?)\s*,\s*tsa:\s*(\w+)(?:\s*,\s*bw:\s*(\d+)\s*%)?\s*$"
)
_TC_PRIORITY = re.compile(r"^\s*priority:\s*(\d+)\s*$")
_COMMAND = re.compile(r"(?:^|[\s#$+>])(?:sudo\s+)?(?:\S*/)?mlnx_qos\s+(.*)$")
_INTERFACE_ARG = re.compile(r"(?:^|\s)(?:-i\s*|--interface[=\s]+|--intf[=\s]+)([^\s;|&>'\"]+)")
_NOTES = (
    "Priority trust state is not supported", "Buffers commands are not supported",
    "WARNING: lldpad service is running", "Interface name is required",
)
_SIGNALS = (
    re.compile(r"^\s*DCBX mode:\s*(?:OS|Firmware) controlled\s*$", re.M | re.I),
    re.compile(r"^\s*Priority trust (?:state|mode):\s*(?:dscp|pcp|none)\s*$", re.M | re.I),
    re.compile(r"^\s*PFC configuration:\s*\n\s*priority(?:\s+\d){8}\s*$", re.M),
    re.compile(r"^\s*tc:\s*\d+\s+ratelimit:\s*[^,\n]*,\s*tsa:\s*(?:vendor|strict|ets)", re.M),
    re.compile(r"^\s*dscp2prio mapping:\s*\n\s*prio:\s*\d\s+dscp:\s*\d", re.M),
)
_TSA = frozenset({"strict", "ets", "vendor"})


class MlnxQosParser(HostLoader):
    """``mlnx_qos -i IF`` output: trust, DSCP map, PFC, ETS and buffers of one NIC port."""

    name = "mlnx_qos"
    label = "mlnx_qos output (NVIDIA/Mellanox NIC)"

    def sniff(self, head: str) -> int:
        found = sum(1 for signal in _SIGNALS if signal.search(head))
        return 0 if found < 2 else min(100, 35 * found)

    def load(self, text: str, path: str) -> HostDoc:
        return _Reader(text, path, self.name).run()


class _Reader(LineReader):
    """One pass over the lines; ``block`` is the output being read."""

    missing = "no mlnx_qos output found (expected 'DCBX mode:' or 'Priority trust state:')"

    def __init__(self, text: str, path: str, fmt: str) -> None:
        super().__init__(text, path, fmt)
        self.interface: str | None = None
        self.block: NicObj | None = None
        self.blocks = 0
        self.section: str | None = None
        self.columns: list[int] | None = None
        self.tc: int | None = None

    def found(self) -> bool:
        return bool(self.blocks)

    # -- blocks --------------------------------------------------------------------------

    def _open(self, lineno: int) -> NicObj:
        self._close()
        name = self.interface or ""
        if not name:
            self.doc.unnamed_interface = True
        self.block = new_nic(name, self.doc.ref(lineno))
        self.block["vendor"] = "nvidia"
        self.blocks += 1
        self.section, self.columns, self.tc = None, None, None
        return self.block

    def _close(self) -> None:
        block, self.block = self.block, None
        if block is None:
            return
        name = block["name"]
        if name in self.doc.nics:
            merge_nic(self.doc.nics[name], block)
        else:
            self.doc.nics[name] = block

    def _current(self, lineno: int) -> NicObj:
        return self.block if self.block is not None else self._open(lineno)

    # -- lines ---------------------------------------------------------------------------

    def _line(self, line: str, lineno: int) -> bool:
        ref = self.doc.ref(lineno)
        command = _COMMAND.search(line)
        if command is not None:
            self.doc.note_prompt(line, lineno)
            arg = _INTERFACE_ARG.search(" " + command.group(1))
            if arg is not None and not arg.group(1).startswith("$"):
                self._close()
                self.interface = arg.group(1)
            return True
        if self.doc.note_prompt(line, lineno):
            return True
        if any(note in line for note in _NOTES):
            return True
        if (m := _DCBX.match(line)) is not None:
            set_field(self._open(lineno), "dcbx", m.group(1).lower(), ref)
            return True
        if (m := _TRUST.match(line)) is not None:
            block = self.block
            if block is None or "trust" in block["field_src"]:
                block = self._open(lineno)
            self.section = None
            value = m.group(1).lower()
            if value in ("dscp", "pcp"):
                set_field(block, "trust", "dscp" if value == "dscp" else "cos", ref)
            elif value != "none":
                self.doc.problem(lineno, f"unknown trust state {m.group(1)!r}")
            return True
        if _MAP_HEADER.match(line):
            self._current(lineno)
            self.section = "map"
            return True
        if (m := _MAP_LINE.match(line)) is not None:
            return self._map_line(m, lineno)
        if _DEFAULT_HEADER.match(line):
            self._current(lineno)
            self.section = "default"
            return True
        if (m := _DEFAULT_LINE.match(line)) is not None and self.section == "default":
            prio = int_value(self.doc, m.group(1), lineno, "default priority", 0, 7)
            if prio is not None:
                set_field(self._current(lineno), "default_priority", prio, ref)
            return True
        if (m := _BUFFER.match(line)) is not None:
            return self._buffers(m.group(1), lineno)
        if (m := _CABLE.match(line)) is not None:
            length = int_value(self.doc, m.group(1), lineno, "cable length", 0, 0xFFFF)
            if length is not None:
                set_field(self._current(lineno), "cable_length_m", float(length), ref)
            return True
        if _PFC_HEADER.match(line):
            self._current(lineno)
            self.section, self.columns = "pfc", None
            return True
        if (m := _ROW.match(line)) is not None and self.section == "pfc":
            return self._pfc_row(m.group(1), m.group(2).split(), lineno)
        if (m := _TC.match(line)) is not None:
            return self._tc(m, lineno)
        if (m := _TC_PRIORITY.match(line)) is not None and self.section == "tc":
            prio = int_value(self.doc, m.group(1), lineno, "priority", 0, 7)
            if prio is not None and self.tc is not None:
                set_entry(self._current(lineno), "priority_to_tc", prio, self.tc, ref)
            return True
        return False

    def _map_line(self, m: re.Match[str], lineno: int) -> bool:
        if self.section not in ("map", None):
            return False
        block = self._current(lineno)
        self.section = "map"
        prio = int_value(self.doc, m.group(1), lineno, "dscp2prio priority", 0, 7)
        if prio is None:
            return True
        ref = self.doc.ref(lineno)
        for raw in m.group(2).split(","):
            if not raw.strip():
                continue
            dscp = int_value(self.doc, raw, lineno, "dscp2prio DSCP", 0, 63)
            if dscp is not None:
                set_entry(block, "dscp_to_priority", dscp, prio, ref)
        return True

    def _buffers(self, raw: str, lineno: int) -> bool:
        sizes = []
        for item in raw.split(","):
            item = item.strip()
            if not item or "=" in item:
                continue  # total_size=…, max_buffer_size=…
            size = int_value(self.doc, item, lineno, "receive buffer size")
            if size is None:
                return True
            sizes.append(size)
        set_field(self._current(lineno), "buffer_sizes", sizes, self.doc.ref(lineno))
        return True

    def _pfc_row(self, kind: str, values: list[str], lineno: int) -> bool:
        numbers = [int(v) for v in values]
        if kind == "priority":
            if sorted(numbers) != sorted(set(numbers)) or any(not 0 <= n <= 7 for n in numbers):
                self.doc.problem(lineno, "PFC table header is not a list of priorities 0-7")
                self.columns = None
            else:
                self.columns = numbers
            return True
        columns = self.columns if self.columns is not None else list(range(8))
        if len(numbers) != len(columns):
            self.doc.problem(lineno, f"PFC '{kind}' row has {len(numbers)} values for "
                             f"{len(columns)} priorities")
            return True
        block, ref = self._current(lineno), self.doc.ref(lineno)
        if kind == "enabled":
            if any(n not in (0, 1) for n in numbers):
                self.doc.problem(lineno, "PFC 'enabled' values must be 0 or 1")
                return True
            enabled = {prio for prio, on in zip(columns, numbers, strict=True) if on}
            set_field(block, "pfc_priorities", enabled, ref)
        else:
            for prio, buffer in zip(columns, numbers, strict=True):
                if buffer > 7:
                    self.doc.problem(lineno, f"receive buffer {buffer} is outside 0-7")
                    continue
                set_entry(block, "priority_to_buffer", prio, buffer, ref)
        return True

    def _tc(self, m: re.Match[str], lineno: int) -> bool:
        block, ref = self._current(lineno), self.doc.ref(lineno)
        self.section, self.tc = "tc", None
        tc = int_value(self.doc, m.group(1), lineno, "traffic class", 0, 7)
        if tc is None:
            return True
        self.tc = tc
        tsa = m.group(3).lower()
        if tsa not in _TSA:
            self.doc.problem(lineno, f"unknown transmission algorithm {m.group(3)!r}")
        else:
            set_entry(block, "tc_scheduling", tc, tsa, ref)
        if m.group(4) is not None:
            bandwidth = int_value(self.doc, m.group(4), lineno, "ETS bandwidth", 0, 100)
            if bandwidth is not None:
                set_entry(block, "tc_bandwidth", tc, bandwidth, ref)
        return True
