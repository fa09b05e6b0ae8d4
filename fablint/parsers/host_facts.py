"""GPU host NIC facts: the documented YAML host-facts file, and what every host input shares.

A host is described by one or more files: ``mlnx_qos -i IF`` outputs (``mlnx_qos.py``), sysfs
dumps of ``/sys/class/net/IF/ecn`` and friends (``sysfs_ecn.py``), ``mlxconfig`` queries of the
adapters' persistent firmware configuration (``mlxconfig.py``) and the hand-written YAML file
read here (``fablint-host: 1``, schema below and in docs/host-facts.md). Each loader turns one
file into a ``HostDoc``: partial NIC facts keyed by interface, every value with its line.
``parse_host_documents`` gives each document its host name, groups the documents of one folder
by host and merges them, field by field, the later file (in name order) winning. Firmware
facts (``HostDoc.firmware``) come last and only fill what the runtime inputs did not report:
the driver or a boot script may have changed the running NIC since the firmware loaded.

Naming (docs/host-facts.md has the full rule): the YAML file names its host in ``host:``; a
command output is named by its file name ``HOST_IF.ext`` (``gpu01_ens1f0.mlnx_qos``), else by a
shell prompt in it (``root@gpu01:~#``), else by its folder (``gpu01/mlnx_qos_ens1f0.txt``).
Documents that only have a folder or file name to go by join the one host of their folder that
is named more firmly (a YAML file, a ``HOST_IF`` file name, a prompt), like nameless SONiC
fragments join the only hostname. An mlxconfig output names an adapter, not a netdev: the last
part of its file name (``gpu01_mlx5_0.mlxconfig``, ``gpu01_ens1f0.mlxconfig``) is kept in
``HostDoc.slot``, and ``_place_firmware`` ties the adapter to its NIC with the other files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from fablint.model import Device, ParseProblem, SourceRef
from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.build import Obj
from fablint.parsers.directives import SuppressionTracker
from fablint.yamlio import ConfigError, KeyLines, load_yaml_text

HOST_GROUP = "host"
"""Group id shared by the host formats: their files in one folder are parsed as one unit."""
HOST_FORMATS = frozenset({"mlnx_qos", "sysfs_ecn", "host-facts", "mlxconfig"})
"""Format ids (``--vendor``) of the host inputs."""
MIN_SNIFF = 30

# How firmly a document names its host (see the module doc).
BY_CONTENT = 4
BY_FILE_NAME = 3
BY_PROMPT = 2
BY_FOLDER = 1
BY_STEM = 0
NAMED = BY_PROMPT

_FORMAT_WORDS = re.compile(
    r"(?:^|_)(?:mlnx[_-]?qos|sysfs|ecn|dcqcn|qos|facts|mlxconfig|mstconfig|nvconfig|fw|firmware)"
    r"(?=$|_)", re.I)
_EXTENSIONS = frozenset({
    "txt", "out", "log", "mlnx_qos", "mlnxqos", "qos", "ecn", "sysfs", "dump", "yaml", "yml",
    "host", "facts", "mlxconfig", "mstconfig", "nvconfig",
})
RDMA_DEVICE = re.compile(r"^(?:mlx\d+_(?:bond_)?\d+|roce[a-z]\w*|bnxt_re(?:_bond)?\d+)$")
"""An RDMA device name (``mlx5_0``, ``mlx5_bond_0``, ``rocep59s0f0``), as opposed to a netdev."""
NETDEV_NAME = re.compile(r"^(?:en|eth|ib|bond|p\d)\w*\d\w*$")
"""A name that looks like a Linux interface (``ens1f0np0``, ``enp59s0f1``, ``eth2``, ``p1p1``)."""
_STEM_TOKEN = re.compile(r"mlx\d+_(?:bond_)?\d+|bnxt_re(?:_bond)?\d+|[^_]+")
_PROMPT = re.compile(
    r"^\[?[A-Za-z_][\w.-]*@(?P<host>[A-Za-z0-9][\w.-]*)(?:[:\s][^#$\]]*)?\]?\s?[#$]\s*\S"
)
_NOT_HOSTNAMES = frozenset({"localhost", "localhost.localdomain"})
_NIC_NAME = re.compile(r"^[A-Za-z0-9][\w.:@-]{0,31}$")

NicObj = Obj
"""A NIC as plain data shaped like ``HostNic`` (``field_src`` included)."""


# -- what a loader produces ------------------------------------------------------------------


@dataclass
class FirmwareNic:
    """The persistent configuration of one adapter port (an ``mlxconfig`` query): facts shaped
    like a NIC that name a device, not a netdev; ``build_host`` ties them to one."""

    nic: NicObj
    ref: SourceRef
    """The device's block in the output (its ``Device #N:`` line)."""
    device: str | None = None
    """What ``mlxconfig -d`` takes: as given on the command line, else the ``Device:`` line."""
    rdma_device: str | None = None
    """The RDMA device, when the command line or the output names one (``-d mlx5_0``)."""
    ports: list[int] = field(default_factory=list)
    prio_mask: int | None = None
    pending: dict[str, str] = field(default_factory=dict)


@dataclass
class HostDoc:
    """One host input file, loaded: partial facts with the line of every value."""

    path: str
    format: str
    lines: int
    nics: dict[str, NicObj] = field(default_factory=dict)
    rdma_tos: dict[str, tuple[int, SourceRef]] = field(default_factory=dict)
    """RDMA device -> ToS, not yet matched to a netdev."""
    rdma_netdev: dict[str, str] = field(default_factory=dict)
    """RDMA device -> netdev (``ibdev2netdev``)."""
    link_mtu: dict[str, tuple[int, SourceRef]] = field(default_factory=dict)
    """Netdev MTUs seen in passing (``ip link``): they only complete NICs known otherwise."""
    host: str | None = None
    host_ref: SourceRef | None = None
    strength: int = BY_STEM
    prompt_host: tuple[str, int] | None = None
    unnamed_interface: bool = False
    """The content did not name its interface: the file name has to."""
    problems: list[ParseProblem] = field(default_factory=list)
    unknown: int = 0
    first_unknown: int | None = None
    suppressions: list[dict[str, object]] = field(default_factory=list)
    """``# fablint: disable=RULE`` comments (``Suppression`` data)."""
    firmware: list[FirmwareNic] = field(default_factory=list)
    """Adapter ports' persistent configuration (mlxconfig), merged under the runtime facts."""
    infiniband: list[tuple[str, SourceRef]] = field(default_factory=list)
    """Adapters whose ports all run InfiniBand (not RoCE NICs): device, ``LINK_TYPE`` line."""
    device_slot: bool = False
    """The file name's last part names a device (an RDMA device or a netdev), as the content
    names no netdev (mlxconfig): ``gpu01_mlx5_0.mlxconfig``, ``gpu01_ens1f0.mlxconfig``."""
    slot: str | None = None
    """That part of the file name, once ``name_document`` has read it."""

    def problem(self, line: int | None, message: str, kind: str = "invalid-value") -> None:
        self.problems.append(ParseProblem(file=self.path, line=self.ref(line).line,
                                          message=message, kind=kind))  # type: ignore[arg-type]

    def ref(self, line: int | None) -> SourceRef:
        # YAML counts more characters as line breaks than "\n"; never point past the end.
        return SourceRef(self.path, min(line, self.lines) if line else None)

    def nic(self, name: str, line: int | None) -> NicObj:
        nic = self.nics.get(name)
        if nic is None:
            nic = self.nics[name] = new_nic(name, self.ref(line))
        return nic

    def note_prompt(self, text_line: str, lineno: int) -> bool:
        """Remember the first shell prompt's host name; True when the line is a prompt."""
        match = _PROMPT.match(text_line)
        if match is None:
            return False
        host = match.group("host")
        if self.prompt_host is None and host.lower() not in _NOT_HOSTNAMES:
            self.prompt_host = (host, lineno)
        return True


def scan_suppressions(doc: HostDoc, text: str) -> None:
    """``# fablint: disable=RULE reason`` comments: the next line and the lines indented under
    it (a NIC entry of a host-facts file), ``disable-file`` the whole file."""
    tracker = SuppressionTracker(doc.path)
    for lineno, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            error = tracker.comment(stripped[1:], lineno)
            if error is not None:
                doc.problem(lineno, error)
            continue
        if tracker.busy:
            tracker.line(len(line) - len(line.lstrip()), lineno)
    doc.suppressions = tracker.finish()


def new_nic(name: str, src: SourceRef) -> NicObj:
    return {
        "name": name, "src": src, "field_src": {}, "dscp_to_priority": {}, "priority_to_tc": {},
        "tc_scheduling": {}, "tc_bandwidth": {}, "priority_to_buffer": {}, "ecn_np": {},
        "ecn_rp": {}, "dcqcn": {},
    }


def set_field(nic: NicObj, name: str, value: Any, ref: SourceRef) -> None:
    nic[name] = value
    nic["field_src"][name] = ref


def set_entry(nic: NicObj, name: str, key: int | str, value: Any, ref: SourceRef) -> None:
    nic[name][key] = value
    nic["field_src"][f"{name}[{key}]"] = ref


def int_value(doc: HostDoc, raw: str, line: int, what: str, low: int = 0,
              high: int = 2**31 - 1) -> int | None:
    """``raw`` as an int within ``low..high``, else a problem on ``line`` and None."""
    try:
        value = int(raw.strip(), 10)
    except ValueError:
        doc.problem(line, f"{what}: {raw.strip()!r} is not a number")
        return None
    if not low <= value <= high:
        doc.problem(line, f"{what}: {value} is outside {low}-{high}")
        return None
    return value


# -- naming ----------------------------------------------------------------------------------


def file_stem_tokens(path: str) -> list[str]:
    """The file name without extensions and format words, split at ``_``."""
    name = PurePath(path).name
    while "." in name:
        base, ext = name.rsplit(".", 1)
        if ext.lower() not in _EXTENSIONS or not base:
            break
        name = base
    name = _FORMAT_WORDS.sub("_", name)
    # RDMA device names hold an underscore (mlx5_0): one part, not two.
    return [t for t in _STEM_TOKEN.findall(name) if t.strip(".-")]


def name_document(doc: HostDoc) -> None:
    """Give ``doc`` its host name (unless its content named it) and, for an output that does
    not say which interface it is about, its interface (the rule in the module doc)."""
    if doc.strength >= BY_CONTENT:
        return
    tokens = file_stem_tokens(doc.path)
    if doc.device_slot:
        # mlxconfig: HOST_DEVICE (two or more parts), or a lone part that looks like an RDMA
        # device or an interface (mlx5_0.mlxconfig, collected mlxconfig_ens1f0.txt); else host.
        if len(tokens) >= 2 or (tokens and (RDMA_DEVICE.match(tokens[0])
                                            or NETDEV_NAME.match(tokens[0]))):
            doc.slot = tokens.pop()
    elif doc.unnamed_interface:
        if tokens:
            interface = tokens.pop()
            unnamed = doc.nics.pop("", None)
            if unnamed is not None:
                unnamed["name"] = interface
                doc.nics[interface] = unnamed
        else:
            unnamed = doc.nics.pop("", None)
            stem = PurePath(doc.path).stem or "nic"
            if unnamed is not None:
                unnamed["name"] = stem
                doc.nics[stem] = unnamed
            doc.problem(None, "the output does not say which interface it is for and the file "
                        "name does not either; name the file HOST_INTERFACE.ext (for example "
                        f"gpu01_ens1f0.mlnx_qos); using {stem!r}")
    elif len(tokens) >= 2 or (tokens and tokens[0] in doc.nics):
        tokens.pop()  # the interface slot of HOST_IF; the content's own name wins
    if tokens:
        doc.host, doc.host_ref, doc.strength = "_".join(tokens), None, BY_FILE_NAME
        return
    if doc.prompt_host is not None:
        host, line = doc.prompt_host
        doc.host, doc.host_ref, doc.strength = host, doc.ref(line), BY_PROMPT
        return
    folder = PurePath(doc.path).parent.name
    if folder and folder not in (".", ".."):
        doc.host, doc.strength = folder, BY_FOLDER
        return
    doc.host, doc.strength = PurePath(doc.path).stem or "host", BY_STEM


def group_documents(docs: list[HostDoc]) -> list[tuple[str, list[HostDoc]]]:
    """Documents by host; the loosely named ones join the only firmly named host, if any."""
    named: dict[str, list[HostDoc]] = {}
    loose: dict[str, list[HostDoc]] = {}
    for doc in docs:
        target = named if doc.strength >= NAMED else loose
        target.setdefault(doc.host or "host", []).append(doc)
    if len(named) == 1 and loose:
        only = next(iter(named))
        for group in loose.values():
            named[only].extend(group)
        named[only].sort(key=docs.index)
        loose = {}
    for host, group in loose.items():
        named.setdefault(host, []).extend(group)
    return list(named.items())


# -- merging ---------------------------------------------------------------------------------

_DICT_FIELDS = ("dscp_to_priority", "priority_to_tc", "tc_scheduling", "tc_bandwidth",
                "priority_to_buffer", "ecn_np", "ecn_rp", "dcqcn")


def merge_nic(base: NicObj, top: NicObj) -> None:
    """Fold ``top`` into ``base``: what ``top`` set wins, entry by entry for the maps."""
    for key, ref in top["field_src"].items():
        base["field_src"][key] = ref
    for name, value in top.items():
        if name in ("name", "src", "field_src"):
            continue
        if name in _DICT_FIELDS:
            base[name].update(value)
        elif name in top["field_src"] or name not in base:
            base[name] = value


def _attach_tos(nics: dict[str, NicObj], docs: list[HostDoc]) -> dict[str, tuple[int, SourceRef]]:
    """Give each RDMA device's ToS to its netdev; what cannot be matched is returned."""
    netdev_of: dict[str, str] = {}
    for doc in docs:
        netdev_of.update(doc.rdma_netdev)
    for dev, netdev in netdev_of.items():
        nic = nics.get(netdev)
        if nic is not None and "rdma_device" not in nic["field_src"]:
            nic["rdma_device"] = dev
    leftover: dict[str, tuple[int, SourceRef]] = {}
    for doc in docs:
        for dev, (tos, ref) in doc.rdma_tos.items():
            target = next((n for n in nics.values() if n.get("rdma_device") == dev), None)
            if target is None and len(nics) == 1:
                target = next(iter(nics.values()))
                if target.get("rdma_device") not in (None, dev):
                    target = None
                elif target.get("rdma_device") is None:
                    target["rdma_device"] = dev
            if target is None:
                leftover[dev] = (tos, ref)
                continue
            set_field(target, "roce_tos", tos, ref)
            set_field(target, "roce_dscp", tos >> 2, ref)
    return leftover


_ENTRY_KEY = re.compile(r"^(\w+)\[(.+)\]$")


def fill_nic(base: NicObj, top: NicObj) -> None:
    """Fold ``top`` into ``base`` where ``base`` has no value of its own, entry by entry for
    the maps: firmware facts under the runtime ones."""
    for key, ref in top["field_src"].items():
        if key in base["field_src"]:
            continue
        entry = _ENTRY_KEY.match(key)
        if entry is not None:
            name, raw = entry.groups()
            found = next(((k, v) for k, v in top.get(name, {}).items() if str(k) == raw), None)
            if found is None or name not in base:
                continue
            base[name][found[0]] = found[1]
        elif base.get(key) is None:
            base[key] = top.get(key)
        else:
            continue  # a value the runtime input holds without a line (a default): keep it
        base["field_src"][key] = ref
    for name, value in top.items():
        if name in ("name", "src", "field_src", *_DICT_FIELDS) or name in top["field_src"]:
            continue
        if base.get(name) is None:
            base[name] = value


def _firmware_target(fw: FirmwareNic, doc: HostDoc, nics: dict[str, NicObj],
                     netdev_of: dict[str, str], alone: bool) -> tuple[str | None, str | None]:
    """The netdev a firmware port belongs to, and its RDMA device: the RDMA device (``-d
    mlx5_0``, ``Device: mlx5_0`` or the file name ``HOST_mlx5_0.mlxconfig``) through the NICs'
    ``rdma_device`` or ``ibdev2netdev``, else the netdev the file name gives
    (``HOST_NETDEV.mlxconfig``), else, ``alone``, the host's only NIC when it is the only
    adapter (as a ToS goes to the only NIC). None: nothing ties it to a netdev."""
    slot = doc.slot if len(doc.firmware) == 1 else None
    by_name = slot if slot is not None and RDMA_DEVICE.match(slot) else None
    rdma = fw.rdma_device or by_name
    if rdma is not None:
        found = next((n for n, nic in nics.items() if nic.get("rdma_device") == rdma), None)
        if found is not None or rdma in netdev_of:
            return found or netdev_of[rdma], rdma
    if slot is not None and by_name is None:
        return slot, rdma  # the content's RDMA device, where other files name it, wins
    if alone and len(nics) == 1:
        only, nic = next(iter(nics.items()))
        if nic.get("rdma_device") in (None, rdma):
            return only, rdma
    return None, rdma


def _place_firmware(host: str, nics: dict[str, NicObj], docs: list[HostDoc],
                    leftover: dict[str, tuple[int, SourceRef]]) -> list[ParseProblem]:
    """Put each adapter port's firmware facts on its NIC, under what the runtime inputs say
    (``fill_nic``); a port no NIC can be matched to becomes a NIC of its own, named by its RDMA
    device (else the device mlxconfig was given), and is reported when the host has others."""
    entries = [(doc, fw) for doc in docs for fw in doc.firmware]
    if not entries:
        return []
    netdev_of: dict[str, str] = {}
    for doc in docs:
        netdev_of.update(doc.rdma_netdev)
    runtime = sorted(nics)
    problems: list[ParseProblem] = []
    merged: dict[str, NicObj] = {}
    info: dict[str, dict[str, Any]] = {}
    for doc, fw in entries:
        target, rdma = _firmware_target(fw, doc, nics, netdev_of, len(entries) == 1)
        if target is None:
            target = rdma or fw.device or PurePath(doc.path).stem
            if runtime:
                problems.append(ParseProblem(
                    file=fw.ref.file, line=fw.ref.line, kind="invalid-value",
                    message=f"the firmware configuration of {fw.device or target} matches no "
                    f"NIC of host {host} ({', '.join(runtime)}); it is checked as NIC "
                    f"{target!r}. Name the file HOST_NETDEV.mlxconfig or add ibdev2netdev "
                    "output to tie it to its netdev"))
        nic = fw.nic
        nic["name"] = target
        if rdma is not None and nic.get("rdma_device") is None:
            nic["rdma_device"] = rdma
        if target in merged:
            merge_nic(merged[target], nic)  # two queries of one adapter: the later wins
        else:
            merged[target] = nic
        info[target] = {"device": fw.device or rdma or target, "ports": list(fw.ports),
                        "prio_mask": fw.prio_mask, "pending": dict(fw.pending)}
    for target, nic in merged.items():
        if target in nics:
            fill_nic(nics[target], nic)
        else:
            nics[target] = nic
        nics[target]["firmware"] = info[target]
    for dev in list(leftover):
        owner = next((n for n in nics.values() if n.get("rdma_device") == dev), None)
        if owner is not None:
            tos, ref = leftover.pop(dev)
            set_field(owner, "roce_tos", tos, ref)
            set_field(owner, "roce_dscp", tos >> 2, ref)
    return problems


def finish_nic(nic: NicObj) -> None:
    """Fill in what the NIC does by default where the inputs left it out."""
    if nic.get("roce_dscp") is None and nic.get("roce_tos") is not None:
        nic["roce_dscp"] = nic["roce_tos"] >> 2
        if "roce_tos" in nic["field_src"]:
            nic["field_src"]["roce_dscp"] = nic["field_src"]["roce_tos"]
    if nic.get("trust") == "dscp":
        mapping = nic["dscp_to_priority"]
        if not mapping:
            # No map printed (older mlnx_qos, hand-written facts): the firmware default.
            nic["dscp_to_priority"] = {d: d >> 3 for d in range(64)}
        else:
            default = nic.get("default_priority") or 0
            for dscp in range(64):
                mapping.setdefault(dscp, default)


def build_host(name: str, docs: list[HostDoc]) -> tuple[Device, list[ParseProblem]]:
    nics: dict[str, NicObj] = {}
    for doc in docs:
        for nic_name, nic in doc.nics.items():
            if nic_name in nics:
                merge_nic(nics[nic_name], nic)
            else:
                nics[nic_name] = nic
    for doc in docs:
        for netdev, (mtu, ref) in doc.link_mtu.items():
            nic = nics.get(netdev)
            if nic is not None and "mtu" not in nic["field_src"]:
                set_field(nic, "mtu", mtu, ref)
    leftover = _attach_tos(nics, docs)
    problems = _place_firmware(name, nics, docs, leftover)
    firmware_files = {d.path for d in docs if d.format == "mlxconfig"}
    for nic in nics.values():
        finish_nic(nic)
        if nic.get("firmware") is not None:
            nic["firmware"]["fields"] = sorted(
                key for key, ref in nic["field_src"].items() if ref.file in firmware_files)
    named_by = next((d for d in docs if d.host_ref is not None and d.host == name), None)
    field_src = {"name": named_by.host_ref} if named_by is not None else {}
    infiniband = [item for d in docs for item in d.infiniband]
    if not nics and not leftover and infiniband:
        ref = infiniband[0][1]
        devices = ", ".join(dev for dev, _ in infiniband)
        problems.append(ParseProblem(
            file=ref.file, line=ref.line, kind="invalid-value",
            message=f"no RoCE NIC facts for host {name!r}: {devices} "
            f"{'runs' if len(infiniband) == 1 else 'run'} InfiniBand on every port (LINK_TYPE "
            "IB); host NIC checks read Ethernet (RoCE) ports only"))
    elif not nics and not leftover:
        problems.append(ParseProblem(
            file=docs[0].path, message=f"no RoCE NIC facts for host {name!r} in "
            f"{', '.join(PurePath(d.path).name for d in docs)}", kind="invalid-value",
        ))
    raw = {
        "name": name, "vendor": "host", "files": [d.path for d in docs],
        "src": SourceRef(docs[0].path, None), "field_src": field_src,
        "suppressions": [s for d in docs for s in d.suppressions],
        "host": {
            "src": SourceRef(docs[0].path, None),
            "nics": nics,
            "rdma_tos": {dev: tos for dev, (tos, _) in leftover.items()},
            "field_src": {f"rdma_tos[{dev}]": ref for dev, (_, ref) in leftover.items()},
        },
    }
    try:
        device = Device.model_validate(raw)
    except ValidationError as exc:
        raise ParseError(docs[0].path, None, f"host facts do not fit the model: "
                         f"{exc.errors()[0]['msg']}") from None
    return device, problems


def parse_host_documents(
    docs: list[tuple[str, str]], fallback: HostLoader | None = None
) -> ParseResult:
    """Load, name, group and merge the host documents of one folder: one device per host."""
    loaded: list[HostDoc] = []
    problems: list[ParseProblem] = []
    for text, path in docs:
        loader = pick_loader(text) or fallback
        if loader is None:
            problems.append(ParseProblem(file=path, message="not a host input fablint reads",
                                         kind="unsupported", fatal=True))
            continue
        try:
            doc = loader.load(text, path)
        except ParseError as exc:
            problems.append(ParseProblem(file=exc.file, line=exc.line, message=exc.message,
                                         kind="parse-error", fatal=True))
            continue
        scan_suppressions(doc, text)
        name_document(doc)
        loaded.append(doc)
    devices = []
    for host, group in group_documents(loaded):
        try:
            device, built = build_host(host, group)
        except ParseError as exc:
            problems.append(ParseProblem(file=exc.file, line=exc.line, message=exc.message,
                                         kind="parse-error", fatal=True))
            continue
        devices.append(device)
        problems += [p for d in group for p in d.problems] + built
    return ParseResult(
        devices=devices, problems=problems, lines=sum(d.lines for d in loaded) or 1,
        unknown_lines=sum(d.unknown for d in loaded),
        first_unknown=next((d.first_unknown for d in loaded if d.first_unknown), None),
    )


class LineReader:
    """One pass over the lines of a command output (mlnx_qos, mlxconfig): ``_line`` reads a
    line and says whether it knew it, ``_close`` ends the last block, ``found`` tells whether
    the file held any of the format (else ``missing`` is the error)."""

    missing: ClassVar[str]

    def __init__(self, text: str, path: str, fmt: str, **doc: Any) -> None:
        self.lines = [line.rstrip("\r") for line in text.split("\n")]
        self.doc = HostDoc(path=path, format=fmt, lines=text.count("\n") + 1, **doc)

    def run(self) -> HostDoc:
        for lineno, line in enumerate(self.lines, 1):
            if line.strip() and not self._line(line, lineno):
                self.doc.unknown += 1
                self.doc.first_unknown = self.doc.first_unknown or lineno
        self._close()
        if not self.found():
            raise ParseError(self.doc.path, None, self.missing)
        return self.doc

    def _line(self, line: str, lineno: int) -> bool:
        raise NotImplementedError

    def _close(self) -> None:
        raise NotImplementedError

    def found(self) -> bool:
        raise NotImplementedError


class HostLoader:
    """Base of the host input parsers: one loader per format, one merge for all of them."""

    name: ClassVar[str]
    label: ClassVar[str]
    vendor: ClassVar[Literal["host"]] = "host"

    def sniff(self, head: str) -> int:
        raise NotImplementedError

    def load(self, text: str, path: str) -> HostDoc:
        raise NotImplementedError

    def parse(self, text: str, path: str) -> ParseResult:
        result = self.parse_documents([(text, path)])
        if not result.devices:
            fatal = next((p for p in result.problems if p.fatal), None)
            if fatal is not None:
                raise ParseError(path, fatal.line, fatal.message)
        return result

    def parse_documents(self, docs: list[tuple[str, str]]) -> ParseResult:
        return parse_host_documents(docs, fallback=self)

    def group_key(self, path: str) -> str:
        """Files of every host format in one folder form one parse unit (see ``ingest``)."""
        return HOST_GROUP

    def format_of(self, text: str) -> str:
        """The format id of one document of a host unit (units mix the host formats)."""
        loader = pick_loader(text)
        return loader.name if loader is not None else self.name


_LOADERS: list[HostLoader] = []


def host_loaders() -> list[HostLoader]:
    """The host formats (imported late: their modules build on this one)."""
    if not _LOADERS:
        from fablint.parsers.mlnx_qos import MlnxQosParser
        from fablint.parsers.mlxconfig import MlxconfigParser
        from fablint.parsers.sysfs_ecn import SysfsEcnParser

        _LOADERS.extend([MlnxQosParser(), SysfsEcnParser(), HostFactsParser(),
                         MlxconfigParser()])
    return _LOADERS


def pick_loader(text: str) -> HostLoader | None:
    head = text[:16 * 1024]
    best = max(host_loaders(), key=lambda loader: loader.sniff(head))
    return best if best.sniff(head) >= MIN_SNIFF else None


def is_host_input(head: str) -> bool:
    """Cheap pre-check for grouping: does any host format claim this head?"""
    return any(loader.sniff(head) >= MIN_SNIFF for loader in host_loaders())


# -- the YAML host-facts file ----------------------------------------------------------------

MARKER = "fablint-host"
_MARKER = re.compile(r"^fablint-host:\s*['\"]?1['\"]?\s*(?:#.*)?$", re.M)


def _priority_list(values: list[int] | None) -> list[int] | None:
    if values is None:
        return None
    for v in values:
        if not 0 <= v <= 7:
            raise ValueError(f"priority {v} outside 0-7")
    return sorted(set(values))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CabledTo(_Strict):
    """The switch port a NIC is cabled to."""

    device: str = Field(min_length=1)
    interface: str = Field(min_length=1)


class DcqcnFacts(_Strict):
    """DCQCN on a NIC: where the notification and reaction points run, and the parameters."""

    np_priorities: list[int] | None = None
    """Priorities with the notification point enabled (roce_np); the others are off."""
    rp_priorities: list[int] | None = None
    """Priorities with the reaction point enabled (roce_rp); the others are off."""
    params: dict[str, int] = Field(default_factory=dict)
    """DCQCN parameters by their mlx5 sysfs name (``rpg_min_dec_fac: 50``)."""

    _prios = field_validator("np_priorities", "rp_priorities")(_priority_list)


class NicFacts(_Strict):
    """One RoCE NIC port of the host. Every key but ``name`` is optional."""

    name: str = Field(min_length=1, max_length=64)
    """Netdev name (``ens1f0``)."""
    vendor: Literal["nvidia", "broadcom", "other"] | None = None
    rdma_device: str | None = None
    cabled_to: CabledTo | str | None = None
    """``{device: leaf1, interface: Ethernet1}`` or ``"leaf1:Ethernet1"``."""
    mtu: int | None = Field(default=None, ge=68, le=65535)
    trust: Literal["dscp", "pcp", "cos"] | None = None
    pfc_priorities: list[int] | None = None
    dscp_to_priority: dict[int, int] | None = None
    default_priority: int | None = Field(default=None, ge=0, le=7)
    roce_dscp: int | None = Field(default=None, ge=0, le=63)
    roce_tos: int | None = Field(default=None, ge=0, le=255)
    cnp_dscp: int | None = Field(default=None, ge=0, le=63)
    cnp_priority: int | None = Field(default=None, ge=0, le=7)
    cable_length_m: float | None = Field(default=None, ge=0)
    dcqcn: DcqcnFacts | None = None

    _prios = field_validator("pfc_priorities")(_priority_list)

    @field_validator("dscp_to_priority")
    @classmethod
    def _dscp_map(cls, value: dict[int, int] | None) -> dict[int, int] | None:
        for dscp, prio in (value or {}).items():
            if not 0 <= dscp <= 63 or not 0 <= prio <= 7:
                raise ValueError(f"DSCP {dscp} -> priority {prio} is out of range")
        return value

    @field_validator("cabled_to")
    @classmethod
    def _cable(cls, value: CabledTo | str | None) -> CabledTo | str | None:
        if isinstance(value, str):
            device, sep, interface = value.partition(":")
            if not sep or not device.strip() or not interface.strip():
                raise ValueError("write the switch port as DEVICE:INTERFACE")
            return CabledTo(device=device.strip(), interface=interface.strip())
        return value


class HostFactsFile(_Strict):
    """The YAML host-facts file (docs/host-facts.md)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    fablint_host: Literal[1] = Field(alias="fablint-host")
    """Format marker and version."""
    host: str = Field(min_length=1, max_length=253)
    nics: list[NicFacts] = Field(default_factory=list)


class HostFactsParser(HostLoader):
    """The documented YAML host-facts file (``fablint-host: 1``)."""

    name = "host-facts"
    label = "fablint host facts (YAML)"

    def sniff(self, head: str) -> int:
        return 100 if _MARKER.search(head) else 0

    def load(self, text: str, path: str) -> HostDoc:
        lines = text.count("\n") + 1
        try:
            data, keylines = load_yaml_text(text, path)
        except ConfigError as exc:
            found = re.match(rf"^{re.escape(path)}:(\d+):\s*(.*)$", str(exc), re.S)
            line = min(int(found.group(1)), lines) if found else None
            line = line if line else None  # yamlio says 0 where it has no line
            message = found.group(2) if found else str(exc).removeprefix(f"{path}: ")
            raise ParseError(path, line, message) from None
        if not isinstance(data, dict) or data.get(MARKER) != 1:
            raise ParseError(path, 1, "not a host-facts file: it needs 'fablint-host: 1' at "
                             "the top level")
        doc = HostDoc(path=path, format=self.name, lines=lines)
        host = data.get("host")
        if not isinstance(host, str) or not host.strip():
            raise ParseError(path, keylines.get(("host",), 1),
                             "a host-facts file needs 'host: NAME'")
        doc.host, doc.strength = host.strip(), BY_CONTENT
        doc.host_ref = doc.ref(keylines.get(("host",)))
        for key in data:
            if key not in (MARKER, "host", "nics"):
                doc.problem(keylines.get((key,)), f"unknown key {key!r} (ignored)")
        nics = data.get("nics")
        if nics is None:
            nics = []
        if not isinstance(nics, list):
            raise ParseError(path, keylines.get(("nics",)), "'nics' must be a list of NICs")
        for index, raw in enumerate(nics):
            self._nic(doc, raw, ("nics", index), keylines)
        return doc

    def _nic(self, doc: HostDoc, raw: Any, at: tuple[str | int, ...], keylines: KeyLines) -> None:
        line = keylines.get(at)
        if not isinstance(raw, dict):
            doc.problem(line, "a NIC must be a mapping with at least 'name'")
            return
        data = dict(raw)
        facts = None
        for _ in range(len(data) + 1):
            try:
                facts = NicFacts.model_validate(data)
                break
            except ValidationError as exc:
                dropped = False
                for error in exc.errors():
                    loc = error["loc"]
                    key = str(loc[0]) if loc else ""
                    where = keylines.get((*at, key), line)
                    what = ".".join(str(p) for p in loc) or "NIC"
                    if error["type"] == "extra_forbidden":
                        doc.problem(where, f"unknown NIC key {key!r} (ignored)")
                    else:
                        doc.problem(where, f"{what}: {error['msg']} (ignored)")
                    if key in data and key != "name":
                        del data[key]
                        dropped = True
                if not dropped:
                    return
        if facts is None:
            return
        if not _NIC_NAME.match(facts.name):
            doc.problem(keylines.get((*at, "name"), line), f"{facts.name!r} is not a valid "
                        "interface name")
            return
        if facts.name in doc.nics:
            doc.problem(keylines.get((*at, "name"), line), f"NIC {facts.name} is listed twice; "
                        "the later entry wins")
        nic = doc.nic(facts.name, line)

        def ref(*keys: str | int) -> SourceRef:
            return doc.ref(keylines.get((*at, *keys), line))

        simple = ("vendor", "rdma_device", "mtu", "default_priority", "roce_dscp", "roce_tos",
                  "cnp_dscp", "cnp_priority", "cable_length_m")
        for name in simple:
            value = getattr(facts, name)
            if value is not None:
                set_field(nic, name, value, ref(name))
        if facts.trust is not None:
            set_field(nic, "trust", "cos" if facts.trust == "pcp" else facts.trust, ref("trust"))
        if facts.pfc_priorities is not None:
            set_field(nic, "pfc_priorities", set(facts.pfc_priorities), ref("pfc_priorities"))
        for dscp, prio in (facts.dscp_to_priority or {}).items():
            set_entry(nic, "dscp_to_priority", dscp, prio, ref("dscp_to_priority", str(dscp)))
        if isinstance(facts.cabled_to, CabledTo):
            set_field(nic, "cabled_to", facts.cabled_to.model_dump(), ref("cabled_to"))
        if facts.dcqcn is not None:
            for point, listed in (("ecn_np", facts.dcqcn.np_priorities),
                                  ("ecn_rp", facts.dcqcn.rp_priorities)):
                if listed is None:
                    continue
                key = "np_priorities" if point == "ecn_np" else "rp_priorities"
                for prio in range(8):
                    set_entry(nic, point, prio, prio in listed, ref("dcqcn", key))
            for param, value in facts.dcqcn.params.items():
                set_entry(nic, "dcqcn", param, value, ref("dcqcn", "params", param))
