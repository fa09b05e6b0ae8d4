"""Render a rule's vendor-neutral fix intent in the device's own syntax."""

from __future__ import annotations

from collections.abc import Callable

from fablint.findings import FixIntent
from fablint.fixes import eos, nxos, sonic

Renderer = Callable[[FixIntent], str | None]

RENDERERS: dict[str, Renderer] = {"eos": eos.render, "nxos": nxos.render,
                                  "sonic": sonic.render}


def render_fix(vendor: str | None, intent: FixIntent | None) -> str | None:
    """The fix as configuration text for ``vendor``, or None when there is no renderer."""
    if intent is None or vendor is None:
        return None
    renderer = RENDERERS.get(vendor)
    return renderer(intent) if renderer else None
