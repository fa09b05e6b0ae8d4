"""Rule logic, one module per family. Importing this package fills the registry."""

from fablint.checks import acl, ecn, mtu, parse, pfc, qos, watchdog  # noqa: F401  (registration)
from fablint.checks.base import REGISTRY, Context, Rule

__all__ = ["REGISTRY", "Context", "Rule"]
