"""ASIC families from the platform names real inputs carry, and where the parsers find them."""

from __future__ import annotations

import pytest

from fablint.parsers import PARSERS
from fablint.platforms import asic_family


@pytest.mark.parametrize(("name", "family"), [
    ("Mellanox-SN4600C-C64", "spectrum-3"),
    ("x86_64-nvidia_sn5600-r0", "spectrum-4"),
    ("x86_64-mlnx_msn2700-r0", "spectrum"),
    ("Arista-7060X6-64PE-B-C512S2", "tomahawk-5"),
    ("DCS-7260CX-64", "tomahawk"),
    ("DCS-7260CX3-64", "tomahawk-2"),
    ("DCS-7060DX4-32", "tomahawk-3"),
    ("DCS-7050SX3-48YC12", "trident-3"),
    ("DCS-7280CR3-32P4", "jericho-2"),
    ("DCS-7280SR-48C6", "jericho"),
    ("Force10-S6000", "trident-2"),
    ("Force10-S6100", "tomahawk"),
    ("DellEMC-Z9332f-O32", "tomahawk-3"),
    ("N9K-C93180YC-EX", "cisco-cloud-scale"),
    ("nxos64-cs.10.3.4a.M.bin", "cisco-cloud-scale"),
    ("n3000-uk9-kickstart.6.0.2.U5.1.bin", "trident-2"),
    ("ACS-MSN", None),
    ("x86_64-kvm_x86_64-r0", None),
    (None, None),
])
def test_asic_family_of_platform_names(name: str | None, family: str | None) -> None:
    assert asic_family(name) == family


def test_eos_header_names_the_platform() -> None:
    text = ("! Command: show running-config\n"
            "! device: leaf1 (DCS-7280CR3-32P4, EOS-4.30.1F)\n!\nhostname leaf1\n")
    device = PARSERS["eos"].parse(text, "leaf1.cfg").devices[0]
    assert device.platform == "DCS-7280CR3-32P4"
    assert device.asic_family == "jericho-2"
    assert device.field_src["platform"].line == 2


def test_rancid_chassis_type_and_nxos_boot_image() -> None:
    eos = PARSERS["eos"].parse("!RANCID-CONTENT-TYPE: arista\n!Chassis type: DCS-7260CX-64\n"
                               "hostname a\n", "a.cfg").devices[0]
    assert eos.asic_family == "tomahawk"
    nxos = PARSERS["nxos"].parse(
        "hostname n1\nboot nxos bootflash:/nxos64-cs.10.3.4a.M.bin\nversion 10.3(4a)\n",
        "n1.cfg").devices[0]
    assert nxos.asic_family == "cisco-cloud-scale"
    assert nxos.field_src["platform"].line == 2
    unknown = PARSERS["nxos"].parse("hostname n2\nversion 9.3(8)\n", "n2.cfg").devices[0]
    assert unknown.asic_family is None
