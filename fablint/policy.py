"""The typed policy that rules read: what a correct fabric looks like.

A policy is what a profile (``rules/*.yaml``) resolves to after ``extends:`` and the project's own
overrides. Every section forbids unknown keys so that a typo in a profile is an error, not a
silently ignored setting.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _priorities(values: list[int]) -> list[int]:
    for v in values:
        if not 0 <= v <= 7:
            raise ValueError(f"priority {v} outside 0-7")
    return sorted(set(values))


class Classification(_Section):
    """Which traffic is RoCE and which is CNP, as the hosts mark it."""

    roce_dscp: list[int] = Field(default_factory=lambda: [24, 26])
    cnp_dscp: list[int] = Field(default_factory=lambda: [48])
    cnp_traffic_class: int = Field(default=6, ge=0, le=7)
    """Class suggested for CNPs in fixes (6 on NVIDIA; Cisco and Broadcom Thor2 use 7)."""

    @field_validator("roce_dscp", "cnp_dscp")
    @classmethod
    def _dscp(cls, values: list[int]) -> list[int]:
        for v in values:
            if not 0 <= v <= 63:
                raise ValueError(f"DSCP {v} outside 0-63")
        return sorted(set(values))


class PfcPolicy(_Section):
    lossless_priorities: list[int] = Field(default_factory=lambda: [3])
    """Priorities that must have PFC on every RoCE-carrying port."""
    lossy_priorities: list[int] = Field(default_factory=lambda: [0, 1, 2, 5, 6, 7])
    """Priorities that carry drop-tolerant traffic and must never be paused."""
    forbid_link_pause: bool = True
    """802.3x pause on a PFC port is an error (the two are mutually exclusive on most ASICs)."""

    _check_lossless = field_validator("lossless_priorities")(_priorities)
    _check_lossy = field_validator("lossy_priorities")(_priorities)

    @model_validator(mode="after")
    def _disjoint(self) -> PfcPolicy:
        both = set(self.lossless_priorities) & set(self.lossy_priorities)
        if both:
            raise ValueError(f"priorities {sorted(both)} are both lossless and lossy")
        return self


class EcnPolicy(_Section):
    required_on_lossless: bool = True
    """ECN marking on every lossless queue. Set false for a PFC-only design (no DCQCN)."""
    fix_min_bytes: int = Field(default=153_600, gt=0)
    """Minimum threshold suggested in fixes (150 KiB, close to NVIDIA's RoCE default)."""
    fix_max_bytes: int = Field(default=1_536_000, gt=0)
    """Maximum threshold suggested in fixes (1500 KiB)."""
    fix_probability: int = Field(default=100, ge=1, le=100)


class WatchdogPolicy(_Section):
    required: bool = True
    """A PFC watchdog on every port that runs PFC."""


class MtuPolicy(_Section):
    fabric_min: int = Field(default=9000, ge=1280, le=65535)
    """Smallest IP MTU allowed on a fabric port, in bytes (normalised across vendors)."""


class AclPolicy(_Section):
    roce_udp_port: int = Field(default=4791, ge=1, le=65535)


class PortScope(_Section):
    """Which ports are fabric ports (carry RoCE): the ports the RoCE rules look at."""

    routed: bool = True
    """Routed (layer-3) physical ports and port-channels are fabric ports."""
    switched: bool = False
    """Bridged switchports are fabric ports too (an L2 RoCE design)."""
    include: list[str] = Field(default_factory=list)
    """Regular expressions on interface name or description that force a port in."""
    exclude: list[str] = Field(default_factory=list)
    """Regular expressions on interface name or description that take a port out."""

    @field_validator("include", "exclude")
    @classmethod
    def _regex(cls, values: list[str]) -> list[str]:
        for pattern in values:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"bad regular expression {pattern!r}: {exc}") from exc
        return values


class Policy(_Section):
    """The resolved policy profile."""

    name: str = "default"
    description: str = ""
    classification: Classification = Field(default_factory=Classification)
    pfc: PfcPolicy = Field(default_factory=PfcPolicy)
    ecn: EcnPolicy = Field(default_factory=EcnPolicy)
    watchdog: WatchdogPolicy = Field(default_factory=WatchdogPolicy)
    mtu: MtuPolicy = Field(default_factory=MtuPolicy)
    acl: AclPolicy = Field(default_factory=AclPolicy)
    ports: PortScope = Field(default_factory=PortScope)


SeverityName = Literal["error", "warning", "info"]
