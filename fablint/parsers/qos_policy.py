"""OpenSM ``qos-policy.conf``: which service levels the QoS policy puts traffic on.

Syntax (linux-rdma/opensm ``doc/QoS_management_in_OpenSM.txt``): sections ``port-groups``,
``qos-setup``, ``qos-levels``, ``qos-match-rules`` and the simplified ``qos-ulps``, each closed by
``end-<name>``; ``#`` comments; ``keyword: value`` lines. fablint reads the SLs: ``sl: N`` of each
``qos-level`` and the ``: N`` of each ``qos-ulps`` rule (``default : 0``, ``ipoib, pkey 0x1 : 4``),
so that the SL2VL rules know which SLs carry traffic. The file is read with the opensm.conf
beside it (``fablint.parsers.opensm_conf``).
"""

from __future__ import annotations

import re

from fablint.model import ParseProblem, SourceRef
from fablint.parsers.base import reject_nul
from fablint.parsers.partitions import c_strtoul

SECTIONS = ("port-groups", "qos-setup", "qos-levels", "qos-match-rules", "qos-ulps")
_SECTION = re.compile(r"^\s*(?:end-)?(?:port-groups?|qos-setup|qos-levels?|qos-match-rules?|"
                      r"qos-ulps)\s*(?:#.*)?$", re.MULTILINE)
_SL = re.compile(r"^\s*sl\s*:\s*(\S+)")


def sniff_qos_policy(head: str) -> int:
    """Confidence that ``head`` is a qos-policy.conf: its section keywords on lines of their own."""
    found = {m.group(0).split("#")[0].strip() for m in _SECTION.finditer(head)}
    if any(s in found for s in SECTIONS):
        return 100 if len(found) >= 2 else 60
    return 0


class QosPolicyReader:
    """One qos-policy.conf: the SLs it assigns, with their lines."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.sls: dict[int, SourceRef] = {}
        self.problems: list[ParseProblem] = []
        self.lines = 0
        self.unknown = 0

    def run(self, text: str) -> QosPolicyReader:
        reject_nul(text, self.path, "NUL byte in a QoS policy file: not a text configuration")
        section = None
        raw_lines = text.split("\n")
        self.lines = len(raw_lines)
        for lineno, raw in enumerate(raw_lines, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line in SECTIONS:
                section = line
                continue
            if line == f"end-{section}":
                section = None
                continue
            match = _SL.match(line)
            if section == "qos-levels" and match:
                self._sl(match.group(1), lineno)
            elif section == "qos-ulps" and ":" in line:
                self._sl(line.rsplit(":", 1)[1], lineno)
        return self

    def _sl(self, text: str, lineno: int) -> None:
        value, rest = c_strtoul(text.strip())
        if rest or not text.strip() or value > 15:
            self.problems.append(ParseProblem(
                file=self.path, line=lineno, kind="invalid-value",
                message=f"SL {text.strip()!r} is not a service level 0-15"))
            return
        self.sls.setdefault(value, SourceRef(self.path, lineno))


def parse_qos_policy(text: str, path: str) -> QosPolicyReader:
    return QosPolicyReader(path).run(text)

