"""The topology's quick tests on names answer as the regular expressions they stand for."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fablint import topology

WORDS = ["ufm", "login", "mgmt", "manage", "provision", "head", "admin", "bastion", "jump",
         "opensm", "sm", "sm1", "xsm2y", "monitor", "telemetry", "spine", "super-spine", "ss1",
         "ss-2", "leaf", "tor", "tor-1", "rail", "dgx", "gpu", "hgx", "node", "host", "server",
         "compute", "Servers0", "ARISTA01T1", "-", "_", "@", ".", " ", "1",
         "\u212a", "\u017f", "\u0130", "\u00e9"]  # Kelvin sign, long s, dotted I: re.I folds them
names = st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=3)), max_size=6).map(
    "".join)
cased = st.tuples(names, st.sampled_from([str, str.upper, str.title])).map(lambda p: p[1](p[0]))


def _role_by_patterns(name: str) -> str | None:
    for pattern, role in topology._NAME_ROLE:
        if pattern.search(name):
            return role
    return None


@settings(max_examples=3000)
@given(cased)
def test_name_role_is_the_patterns(name: str) -> None:
    assert topology._name_role(name) == _role_by_patterns(name)


@settings(max_examples=3000)
@given(cased)
def test_service_name_is_the_pattern(name: str) -> None:
    assert topology._service_name(name) == bool(topology._SERVICE.search(name))
