"""The numeric and short codes ibdiagnet writes in ``ibdiagnet2.net_dump`` and
``ibdiagnet2.db_csv``, mapped once to the model's names.

Sources: IBTA PortInfo (states, MTU codes, width codes), NVIDIA ibutils2 ``ibdm/Fabric.h``
(the combined speed bitmask, the FEC mode enumeration and its strings, ``portstate2char``),
rdma-core ``libibverbs/verbs.h`` (``enum ibv_mtu``).
"""

from __future__ import annotations

from fablint.model import IbNodeType, IbPhysState, IbPortState, ib_speed_rank

NODE_TYPES: dict[int, IbNodeType] = {1: "ca", 2: "switch", 3: "router"}
"""NodeInfo:NodeType."""

PORT_STATES: dict[int, IbPortState] = {1: "Down", 2: "Initialize", 3: "Armed", 4: "Active"}
"""PortInfo:PortState (db_csv ``PortState``)."""
PORT_STATE_NAMES: dict[str, IbPortState] = {
    "DOWN": "Down", "INI": "Initialize", "INIT": "Initialize", "ARM": "Armed", "ACT": "Active",
    "ACTIVE": "Active"}
"""net_dump ``Sta`` (``portstate2char``)."""

PHYS_STATES: dict[int, IbPhysState] = {
    1: "Sleep", 2: "Polling", 3: "Disabled", 4: "PortConfigurationTraining", 5: "LinkUp",
    6: "LinkErrorRecovery", 7: "PhyTest"}
"""PortInfo:PortPhysicalState (db_csv ``PortPhyState``)."""
PHYS_STATE_NAMES: dict[str, IbPhysState] = {
    "SLEEP": "Sleep", "POLL": "Polling", "POLLING": "Polling", "DISABLE": "Disabled",
    "DISABLED": "Disabled", "PORTCONFTRAIN": "PortConfigurationTraining",
    "PORTCONFIGURATIONTRAINING": "PortConfigurationTraining", "LINKUP": "LinkUp",
    "LINKERRRECOVER": "LinkErrorRecovery", "LINKERRORRECOVERY": "LinkErrorRecovery",
    "PHYTEST": "PhyTest"}
"""net_dump ``PhysSta`` (``LINK UP``, ``POLL``, ``PORT CONF TRAIN`` …) without spaces."""

WIDTH_CODES: dict[int, int] = {1: 1, 2: 4, 4: 8, 8: 12, 16: 2}
"""PortInfo:LinkWidthActive bit -> lanes; LinkWidthSupported is a mask of these bits."""

SPEED_BITS: dict[int, str] = {
    1: "SDR", 2: "DDR", 4: "QDR", 256: "FDR", 512: "EDR", 1024: "HDR", 2048: "NDR",
    65536: "FDR10", 16777216: "XDR"}
"""ibdm's combined speed value (LinkSpeed, LinkSpeedExt << 8, Mellanox FDR10 << 16,
LinkSpeedExt2 << 24): ``LinkSpeedActv`` is one bit, ``LinkSpeedSup``/``LinkSpeedEn`` a mask
(``3841`` = SDR, FDR, EDR, HDR, NDR). EDR20 (131072) has no place in the model: unknown."""

FEC_CODES: dict[int, str] = {
    0: "NO-FEC", 1: "FIRECODE", 2: "STD-RS", 3: "STD-LL-RS", 4: "RS_FEC_544_514",
    8: "MLNX-STRONG-RS", 9: "MLNX-LL-RS", 10: "MLNX-ADAPT-RS", 11: "MLNX-COD-FEC",
    12: "MLNX-ZL-FEC", 13: "MLNX_RS_544_514_PLR", 14: "MLNX_RS_271_257_PLR"}
"""FECModeActive (db_csv ``FECActv``) -> the string net_dump prints for it; 0xff is N/A."""

NOT_AVAILABLE = frozenset({"", "N/A", "NA", "-", "UNKNOWN"})
"""What ibdiagnet writes for a value it could not read."""


def mtu_bytes(code: int) -> int | None:
    """An IBTA MTU code (1 = 256 … 5 = 4096) or a byte count as some versions print it."""
    if 1 <= code <= 5:
        return 128 << code
    return code if code in (256, 512, 1024, 2048, 4096) else None


def widths(mask: int) -> list[int]:
    """Lanes of every width a LinkWidthSupported/Enabled mask names, narrowest first."""
    return sorted(lanes for bit, lanes in WIDTH_CODES.items() if mask & bit)


def speeds(mask: int) -> list[str]:
    """Generations a combined LinkSpeedSupported/Enabled mask names, slowest first."""
    return sorted((name for bit, name in SPEED_BITS.items() if mask & bit), key=ib_speed_rank)
