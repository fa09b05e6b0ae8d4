"""Input formats: a parser per format, chosen from the file's content."""

from __future__ import annotations

from fablint.parsers.base import ParseError, Parser, ParseResult
from fablint.parsers.eos import EosParser
from fablint.parsers.host_facts import HostFactsParser
from fablint.parsers.ib_subnet_list import IbSubnetListParser
from fablint.parsers.iblinkinfo import IblinkinfoParser
from fablint.parsers.ibnetdiscover import IbnetdiscoverParser, IbnetdiscoverPortsParser
from fablint.parsers.lldp import LldpParser
from fablint.parsers.mlnx_qos import MlnxQosParser
from fablint.parsers.nxos import NxosParser
from fablint.parsers.opensm_conf import OpenSmConfParser, PartitionsParser, QosPolicyParser
from fablint.parsers.sonic import SonicParser
from fablint.parsers.sysfs_ecn import SysfsEcnParser

PARSERS: dict[str, Parser] = {
    p.name: p for p in (EosParser(), NxosParser(), SonicParser(), LldpParser())
}
"""Format id -> parser. ``--vendor`` takes these ids."""
# GPU host NIC facts: three formats, merged per host (fablint/parsers/host_facts.py).
PARSERS.update({p.name: p for p in (MlnxQosParser(), SysfsEcnParser(), HostFactsParser())})

# InfiniBand subnet manager: opensm.conf, partitions.conf, qos-policy.conf, read together
# per SM (fablint/parsers/opensm_conf.py).
PARSERS.update({p.name: p for p in (OpenSmConfParser(), PartitionsParser(),
                                      QosPolicyParser())})

# InfiniBand discovery dumps: one dump, many IB nodes and the links between them.
PARSERS.update({p.name: p for p in (IbnetdiscoverParser(), IbnetdiscoverPortsParser(),
                                    IblinkinfoParser(), IbSubnetListParser())})

__all__ = ["PARSERS", "ParseError", "ParseResult", "Parser"]
