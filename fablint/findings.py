"""What rules produce: findings, with severity, place and a vendor-neutral fix intent."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from fablint.model import SourceRef

CATEGORIES = (
    "pfc", "ecn", "dcqcn", "qos", "buffer", "watchdog", "acl", "mtu", "topology", "ib-link",
    "ib-sm", "parse",
)


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]

    def __str__(self) -> str:
        return self.value


@dataclass(slots=True)
class FixIntent:
    """What to change, without vendor syntax; ``fablint.fixes`` renders it per vendor."""

    action: str
    params: dict[str, Any] = field(default_factory=dict)

    def __reduce__(self) -> tuple[Any, ...]:
        # (a slots dataclass pickles through dataclasses' Python __getstate__, field by field)
        return (FixIntent, (self.action, self.params))


@dataclass(frozen=True, slots=True)
class LineEdit:
    """A fix that is a pure text change: line ``line`` (1-based) becomes ``new``."""

    line: int
    old: str
    new: str

    def __reduce__(self) -> tuple[Any, ...]:
        return (LineEdit, (self.line, self.old, self.new))


@dataclass(frozen=True, slots=True)
class Place:
    """One object a finding names, and where it is configured: a finding that groups the
    ports sharing one cause lists each of them, so that tools need not parse its message."""

    object: str
    file: str | None = None
    line: int | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        return (Place, (self.object, self.file, self.line))


@dataclass(frozen=True, slots=True)
class Consequence:
    """A finding that is explained by another one (its cause) and folded into it rather than
    reported on its own: a PFC or ECN gap on a port whose QoS profile does not exist."""

    rule: str
    object: str
    message: str

    def __reduce__(self) -> tuple[Any, ...]:
        return (Consequence, (self.rule, self.object, self.message))


@dataclass(slots=True)
class Finding:
    rule: str
    name: str
    severity: Severity
    category: str
    message: str
    device: str | None = None
    object: str | None = None
    file: str | None = None
    line: int | None = None
    fix: str | None = None
    """Fix snippet in the device's own syntax, when one exists."""
    edit: LineEdit | None = None
    """The fix as an in-place edit of the finding's line, when it is that simple."""
    intent: FixIntent | None = None
    related: list[SourceRef] = field(default_factory=list)
    vendor: str | None = None
    objects: list[str] = field(default_factory=list)
    """Every object a grouped finding is about, when the message names only a few."""
    places: list[Place] = field(default_factory=list)
    """Every object the finding is about, with its place, when it names more than one (the
    ports that share one faulty profile or line); empty for a finding about one object."""
    consequences: list[Consequence] = field(default_factory=list)
    """Findings this one explains, folded into it instead of being reported separately."""
    explains: list[tuple[str, str]] = field(default_factory=list)
    """What this finding is the cause of, as (rule id or category, object) pairs: a finding
    of the same device whose rule (or category) matches and whose every object is the object
    or inside it (``Ethernet1`` covers ``Ethernet1 queue 3``; ``device:NAME`` covers a finding
    whose object is NAME, whatever it groups) is folded into this one by
    ``fablint.checks.base.fold_consequences``. Not reported itself."""

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the constructor's arguments, in field order: a worker sends every
        finding to the parent, and a slots dataclass would otherwise go through dataclasses'
        Python ``__getstate__`` (which looks up its fields on every call)."""
        return (Finding, (self.rule, self.name, self.severity, self.category, self.message,
                          self.device, self.object, self.file, self.line, self.fix, self.edit,
                          self.intent, self.related, self.vendor, self.objects, self.places,
                          self.consequences, self.explains))

    def fingerprint(self) -> str:
        """Identity that survives line shifts, file moves and rewording: rule, device, object.
        Two findings of one rule on one object share it; baselines count them."""
        return fingerprint_of(self.rule, self.device, self.object)

    def sort_key(self) -> tuple[str, int, str, str]:
        return (self.file or "", self.line or 0, self.rule, self.object or "")


def fmt_gbps(mbps: int) -> str:
    """A rate in Mb/s as findings and reports write fabric capacities: ``400G``, ``12.8T``."""
    return f"{mbps / 1000:g}G" if mbps < 1_000_000 else f"{mbps / 1_000_000:g}T"


def fingerprint_of(rule: str, device: str | None, obj: str | None) -> str:
    """The baseline identity of a finding (also of a baseline entry written before version 2,
    whose fingerprints hashed the message: they are recomputed from the entry's fields)."""
    return hashlib.sha256(f"{rule}\x1f{device or ''}\x1f{obj or ''}".encode()).hexdigest()[:32]
