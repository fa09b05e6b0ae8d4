"""SONiC fix snippets are written by ``fixes.sonic._dump``, not ``json.dumps(indent=2)``
(json's indented encoder is pure Python); the text must be the same for any patch."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fablint.fixes.sonic import _dump

_KEYS = st.text(max_size=12)  # any characters: quotes, backslashes, control, non-ASCII
_PLAIN = st.recursive(_KEYS, lambda inner: st.dictionaries(_KEYS, inner, max_size=4),
                      max_leaves=20)
_ANY = st.recursive(
    st.one_of(_KEYS, st.integers(), st.booleans(), st.none(), st.floats(allow_nan=True)),
    lambda inner: st.one_of(st.dictionaries(_KEYS, inner, max_size=4),
                            st.lists(inner, max_size=3)),
    max_leaves=20)


@settings(max_examples=300)
@given(st.dictionaries(_KEYS, _PLAIN, max_size=4))
def test_plain_patches_are_written_as_json_dumps_writes_them(patch: dict[str, Any]) -> None:
    assert _dump(patch) == json.dumps(patch, indent=2)


@settings(max_examples=200)
@given(st.dictionaries(_KEYS, _ANY, max_size=4))
def test_other_values_are_left_to_json_dumps(patch: dict[str, Any]) -> None:
    assert _dump(patch) == json.dumps(patch, indent=2)


def test_a_real_fix_snippet() -> None:
    patch = {"WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "green_min_threshold":
                                                 "1048576"}},
             "QUEUE": {"Ethernet0|3": {"wred_profile": "AZURE_LOSSLESS"}}, "EMPTY": {}}
    assert _dump(patch) == json.dumps(patch, indent=2)
    assert _dump(patch).splitlines()[1] == '  "WRED_PROFILE": {'
