"""Rule logic, one module per family. Importing this package fills the registry."""

from fablint.checks import (  # noqa: F401  (registration)
    acl,
    applicability,
    buffer,
    consistency,
    dcqcn,
    ecn,
    iblink,
    ibsm,
    mtu,
    parse,
    pfc,
    qos,
    topology,
    watchdog,
)
from fablint.checks.base import REGISTRY, Context, Rule

__all__ = ["REGISTRY", "Context", "Rule"]
