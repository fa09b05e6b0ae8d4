"""fablint: lint GPU-cluster fabric configurations for lossless RoCEv2 and InfiniBand.

``fablint.lint(paths, profile=..., config=...)`` and ``fablint.parse(path)`` are the library
interface (``fablint.api``); they are imported on first use so that ``fablint --version``
stays fast.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "lint", "parse"]


def __getattr__(name: str) -> Any:
    if name in ("lint", "parse"):
        from fablint import api

        return getattr(api, name)
    raise AttributeError(f"module 'fablint' has no attribute {name!r}")
