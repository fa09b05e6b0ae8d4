"""Input formats: a parser per format, chosen from the file's content.

The registry imports a parser's module the first time that format is asked for: detection tries
the formats in order and stops at the first that is certain, so a fabric of EOS configurations
never pays for importing the InfiniBand, host or OpenSM parsers (about 80 ms of start-up).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module

from fablint.parsers.base import ParseError, Parser, ParseResult

_FORMATS: tuple[tuple[str, str, str], ...] = (
    # Switch configurations and LLDP tables.
    ("eos", "eos", "EosParser"),
    ("nxos", "nxos", "NxosParser"),
    ("sonic", "sonic", "SonicParser"),
    ("lldp", "lldp", "LldpParser"),
    ("sonic-lldp", "lldp_sonic", "SonicLldpParser"),
    # GPU host NIC facts: four formats, merged per host (host_facts.py).
    ("mlnx_qos", "mlnx_qos", "MlnxQosParser"),
    ("sysfs_ecn", "sysfs_ecn", "SysfsEcnParser"),
    ("host-facts", "host_facts", "HostFactsParser"),
    ("mlxconfig", "mlxconfig", "MlxconfigParser"),
    # InfiniBand subnet manager files, read together per SM (opensm_conf.py).
    ("opensm", "opensm_conf", "OpenSmConfParser"),
    ("opensm-partitions", "opensm_conf", "PartitionsParser"),
    ("opensm-qos-policy", "opensm_conf", "QosPolicyParser"),
    # InfiniBand discovery dumps: one dump, many IB nodes and the links between them.
    ("ibnetdiscover", "ibnetdiscover", "IbnetdiscoverParser"),
    ("ibnetdiscover-ports", "ibnetdiscover", "IbnetdiscoverPortsParser"),
    ("iblinkinfo", "iblinkinfo", "IblinkinfoParser"),
    ("ib-subnet-list", "ib_subnet_list", "IbSubnetListParser"),
    ("ibdiagnet-net-dump", "ibdiag_net_dump", "IbdiagNetDumpParser"),
    ("ibdiagnet-db-csv", "ibdiag_db_csv", "IbdiagDbCsvParser"),
)
"""(format id, module under fablint.parsers, class), in detection order."""


class _Registry(Mapping[str, Parser]):
    """Format id -> parser, importing each parser on first use."""

    def __init__(self, formats: tuple[tuple[str, str, str], ...]) -> None:
        self._where = {name: (module, cls) for name, module, cls in formats}
        self._loaded: dict[str, Parser] = {}

    def __getitem__(self, name: str) -> Parser:
        parser = self._loaded.get(name)
        if parser is None:
            module, cls = self._where[name]
            parser = self._loaded[name] = getattr(
                import_module(f"fablint.parsers.{module}"), cls)()
        return parser

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


PARSERS: Mapping[str, Parser] = _Registry(_FORMATS)
"""Format id -> parser. ``--vendor`` takes these ids."""

PROVIDES: dict[str, str] = {
    **dict.fromkeys(("lldp", "sonic-lldp", "sonic", "ibnetdiscover", "ibnetdiscover-ports",
                     "iblinkinfo", "ib-subnet-list", "ibdiagnet-net-dump", "ibdiagnet-db-csv"),
                    "links"),
    **dict.fromkeys(("mlnx_qos", "sysfs_ecn", "host-facts", "mlxconfig"), "hosts"),
}
"""Format id -> what its inputs can bring to a fabric besides switch configurations: cables
(``links``: LLDP tables, SONiC ``DEVICE_NEIGHBOR``, InfiniBand dumps) or GPU hosts (``hosts``).
Fabric rules that compare across cables or with hosts are skipped when no input brings them
(``fablint.engine``)."""

__all__ = ["PARSERS", "PROVIDES", "ParseError", "ParseResult", "Parser"]
