"""Switch ASIC families, from the platform names the inputs carry.

Queue thresholds (ECN marking, buffers) are sized for one ASIC: a Tomahawk marks from 128 KB
because its buffer is shared by many ports at a few MB per pipe, a Spectrum from 2 MB because it
has tens of MB. Rules compare such numbers only between devices of one family, so they need the
family, and nothing else of the platform. Names come from SONiC ``DEVICE_METADATA`` (``hwsku``
``Mellanox-SN4600C-C64``, ``platform`` ``x86_64-nvidia_sn5600-r0``), the EOS running-config
header (``! device: leaf1 (DCS-7280CR3-32P4, EOS-4.30.1F)``), RANCID's ``!Chassis type:`` and the
NX-OS boot image (``nxos64-cs.10.3.4a.M.bin``: Cloud Scale). A name that is not in these tables
gives None: unknown, and then nothing that depends on the family is compared.
"""

from __future__ import annotations

import re

_SPECTRUM = re.compile(r"(?:^|[^a-z])m?sn([2-5])\d{3}", re.IGNORECASE)
"""NVIDIA Spectrum model numbers: SN2xxx Spectrum, SN3xxx Spectrum-2, SN4xxx Spectrum-3,
SN5xxx Spectrum-4 (``msn2700`` in older platform strings)."""

_FAMILIES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), family) for pattern, family in (
        # Arista (DCS-… in EOS, Arista-… in SONiC hwskus)
        (r"7060[A-Z]*X6|7060X6", "tomahawk-5"),
        (r"7060[A-Z]*5\b|7060[A-Z]*X5|7060[DP]X5", "tomahawk-4"),
        (r"7060[DP]X4|7060X4", "tomahawk-3"),
        (r"7260[A-Z]*3|7260X3", "tomahawk-2"),
        (r"7060[CS]X2", "tomahawk-plus"),
        (r"7060[CS]X|7260[CQ]X", "tomahawk"),
        (r"7050[A-Z]*4|7050X4", "trident-4"),
        (r"7050[A-Z]*3|7050X3", "trident-3"),
        (r"7050[A-Z]*2", "trident-2-plus"),
        (r"7050(?:QX|SX|TX|-QX|-)", "trident-2"),
        (r"7[28]\d0[A-Z]*R3|7[28]\d0R3", "jericho-2"),
        (r"7280[A-Z]*R2|7280R2", "jericho-plus"),
        (r"7280[A-Z]*R\b|7280(?:SR|QR|TR)\b|7280(?:SR|QR|TR)-", "jericho"),
        # Dell / Force10 (SONiC hwskus)
        (r"Z9332", "tomahawk-3"),
        (r"Z9432", "tomahawk-4"),
        (r"Z9264", "tomahawk-2"),
        (r"S6100|Z9100", "tomahawk"),
        (r"S52(?:12|24|32|48|96)", "trident-3"),
        (r"S6000", "trident-2"),
        # Cisco Nexus
        (r"N3K-C3132Q|N3K-C3172|N3K-C3164|n3000-", "trident-2"),
        (r"N9K-C9\d+[A-Z0-9]*-(?:EX|FX|FX2|FX3|GX|GX2A?|GX2B)\b|nxos64-cs", "cisco-cloud-scale"),
    )
)


def asic_family(*names: str | None) -> str | None:
    """The ASIC family the first recognised platform name belongs to, else None."""
    for name in names:
        if not name:
            continue
        match = _SPECTRUM.search(name)
        if match:
            generation = int(match[1]) - 1
            return "spectrum" if generation == 1 else f"spectrum-{generation}"
        for pattern, family in _FAMILIES:
            if pattern.search(name):
                return family
    return None
