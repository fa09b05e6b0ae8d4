"""Fix snippets for SONiC: config_db.json fragments to merge (``config load``, apply-patch).

Each fix is a small JSON object holding only the tables, keys and fields to set; values are
strings, as CONFIG_DB stores them. Fields that hold a list (``pfc_enable``) are written whole,
so the intent carries the port's current list (``no_drop``) as well as the change.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as _quoted
from typing import Any

from fablint.findings import FixIntent

SONIC_JUMBO_MTU = 9100
"""The MTU SONiC templates and buffer calculations use for fabric ports."""
ECN_PROFILE = "ROCE_LOSSLESS_ECN"
"""Name of the WRED_PROFILE a fix creates when the queue has none to correct."""
STRICT_SCHEDULER = "STRICT_PRIORITY"
DSCP_MAP = "ROCE"
"""Name of the DSCP_TO_TC_MAP a fix creates when the port has none."""


def _dump(patch: dict[str, Any]) -> str:
    """``json.dumps(patch, indent=2)``: written here for the patches of objects and strings
    that fixes make (json's indented encoder is pure Python, a few per SONiC finding)."""
    try:
        return _indented(patch, "\n")
    except _NotPlain:
        return json.dumps(patch, indent=2)


class _NotPlain(Exception):
    """A value ``_indented`` leaves to ``json.dumps`` (anything but objects and strings)."""


def _indented(value: Any, newline: str) -> str:
    if value.__class__ is str:
        return _quoted(value)
    if value.__class__ is not dict:
        raise _NotPlain
    if not value:
        return "{}"
    inner = newline + "  "
    items = []
    for key, item in value.items():
        if key.__class__ is not str:
            raise _NotPlain
        items.append(f"{_quoted(key)}: {_indented(item, inner)}")
    return "{" + inner + ("," + inner).join(items) + newline + "}"


def _priorities(values: set[int]) -> str:
    return ",".join(str(p) for p in sorted(values))


def _port_table(interface: str) -> str:
    return "PORTCHANNEL" if interface.startswith("PortChannel") else "PORT"


def _wred(params: dict[str, Any]) -> dict[str, str]:
    return {
        "ecn": "ecn_all",
        "wred_green_enable": "true",
        "green_min_threshold": str(params["min_bytes"]),
        "green_max_threshold": str(params["max_bytes"]),
        "green_drop_probability": str(params["probability"]),
    }


def _ecn(params: dict[str, Any], interface: str | None) -> str | None:
    name = params.get("aqm_profile") or ECN_PROFILE
    wred = _wred(params)
    if params.get("aqm_profile"):  # correct the thresholds of the queue's own profile
        wred = {k: v for k, v in wred.items() if k.startswith("green_")}
    patch: dict[str, Any] = {"WRED_PROFILE": {name: wred}}
    if interface:
        ports = params.get("interfaces") or [interface]
        patch["QUEUE"] = {f"{port}|{params['queue']}": {"wred_profile": name} for port in ports}
    elif not params.get("aqm_profile"):
        return None
    return _dump(patch)


def render(intent: FixIntent) -> str | None:
    p = intent.params
    action = intent.action
    if action == "pfc-enable":
        wanted = set(p.get("no_drop") or ()) | set(p["priorities"])
        return _dump({"PORT_QOS_MAP": {p["interface"]: {"pfc_enable": _priorities(wanted)}}})
    if action == "pfc-disable-priority":
        left = _priorities(set(p.get("no_drop") or ()) - set(p["priorities"]))
        ports = p.get("interfaces") or [p["interface"]]
        return _dump({"PORT_QOS_MAP": {port: {"pfc_enable": left} for port in ports}})
    if action == "ecn-enable":
        if p.get("shared_profile"):  # a WRED_PROFILE many ports share: make it mark
            return _dump({"WRED_PROFILE": {p["shared_profile"]: _wred(p)}})
        return _ecn(p, p.get("interface"))
    if action == "wred-remove":
        if p.get("then"):
            if p.get("aqm_profile") and len(p.get("interfaces") or ()) > 1:
                # A profile many ports share: make it mark, rather than re-point each queue.
                return _dump({"WRED_PROFILE": {p["aqm_profile"]: _wred(p["then"])}})
            return _ecn({**p["then"], "aqm_profile": None}, p["interface"])
        if p.get("aqm_profile"):
            return _dump({"WRED_PROFILE": {p["aqm_profile"]: {"wred_green_enable": "false"}}})
        return None
    if action == "mtu-set":
        mtu = str(max(SONIC_JUMBO_MTU, p["min_mtu"]))
        return _dump({_port_table(p["interface"]): {p["interface"]: {"mtu": mtu}}})
    if action == "acl-permit-udp":
        before = p.get("before_seq")
        priority = before + 1 if before is not None else (p.get("seq") or 9999)
        return _dump({"ACL_RULE": {f"{p['acl']}|ALLOW_ROCEV2": {
            "PRIORITY": str(priority), "PACKET_ACTION": "FORWARD",
            "IP_PROTOCOL": "17", "L4_DST_PORT": str(p["port"]),
        }}})
    if action in _BUFFER_WATCHDOG_ACL:
        return _buffer_watchdog_acl(action, p)
    return _qos_class(action, p)


_BUFFER_WATCHDOG_ACL = frozenset({"buffer-pg-set", "buffer-queue-set", "buffer-profile-set",
                                  "cable-length-set", "watchdog-settings", "acl-entry-permit"})
CABLE_LENGTH_KEY = "AZURE"
"""The CABLE_LENGTH row every SONiC buffer template writes."""
_WATCHDOG_FIELDS = {"timeout_ms": "detection_time", "recovery_ms": "restoration_time",
                    "action": "action"}


def _id_keys(interface: str, ids: list[int]) -> list[str]:
    """``PORT|3-4`` for a run of ids (the form SONiC's templates write), else one key each."""
    ids = sorted(ids)
    if ids and ids == list(range(ids[0], ids[-1] + 1)):
        span = str(ids[0]) if len(ids) == 1 else f"{ids[0]}-{ids[-1]}"
        return [f"{interface}|{span}"]
    return [f"{interface}|{n}" for n in ids]


def _buffer_watchdog_acl(action: str, p: dict[str, Any]) -> str | None:
    """Buffer, PFC watchdog setting and RoCE header ACL fixes."""
    if action in ("buffer-pg-set", "buffer-queue-set"):
        if not p.get("profile"):
            return None  # no lossless profile to point at: buffermgrd builds one from its table
        table, ids = (("BUFFER_PG", p["pgs"]) if action == "buffer-pg-set"
                      else ("BUFFER_QUEUE", p["queues"]))
        return _dump({table: {key: {"profile": p["profile"]}
                              for port in p.get("interfaces") or [p["interface"]]
                              for key in _id_keys(port, ids)}})
    if action == "buffer-profile-set":
        return _dump({"BUFFER_PROFILE": {p["profile"]: {
            key: str(value) for key, value in sorted(p["fields"].items())}}})
    if action == "cable-length-set":
        return _dump({"CABLE_LENGTH": {CABLE_LENGTH_KEY: {p["interface"]: f"{p['metres']}m"}}})
    if action == "watchdog-settings":
        settings = p["settings"]
        if p.get("interface") is None:
            if "polling_ms" not in settings:
                return None  # SONiC has no device-wide detection, restoration or action
            poll = str(int(settings["polling_ms"]))
            return _dump({"PFC_WD": {"GLOBAL": {"POLL_INTERVAL": poll}}})
        fields = {_WATCHDOG_FIELDS[k]: str(v) if k == "action" else str(int(v))
                  for k, v in settings.items() if k in _WATCHDOG_FIELDS}
        ports = p.get("interfaces") or [p["interface"]]
        return _dump({"PFC_WD": dict.fromkeys(ports, fields)}) if fields else None
    if action == "acl-entry-permit":
        if not p.get("entry"):
            return None
        return _dump({"ACL_RULE": {f"{p['acl']}|{p['entry']}": {"PACKET_ACTION": "FORWARD"}}})
    return None


def _qos_class(action: str, p: dict[str, Any]) -> str | None:
    """Classification, scheduling and watchdog fixes."""
    if action == "dscp-map":
        if p.get("tc") is None:
            return None
        name = p.get("map") or DSCP_MAP
        patch: dict[str, Any] = {
            "DSCP_TO_TC_MAP": {name: {str(d): str(p["tc"]) for d in p["dscp"]}}}
        if not p.get("map"):  # bind the new map on every port the finding names
            patch["PORT_QOS_MAP"] = {port: {"dscp_to_tc_map": name}
                                     for port in p.get("interfaces") or [p["interface"]]}
        return _dump(patch)
    if action == "queue-strict":
        return _dump({
            "SCHEDULER": {STRICT_SCHEDULER: {"type": "STRICT"}},
            "QUEUE": {f"{port}|{p['queue']}": {"scheduler": STRICT_SCHEDULER}
                      for port in p.get("interfaces") or [p["interface"]]},
        })
    if action == "watchdog-enable":
        timeout = str(int(p["timeout_ms"]))
        watched = _priorities(set(p["priorities"]))
        ports = p.get("interfaces") or [p["interface"]]
        return _dump({
            "PORT_QOS_MAP": {port: {"pfcwd_sw_enable": watched} for port in ports},
            "PFC_WD": {port: {"action": "drop", "detection_time": timeout,
                              "restoration_time": timeout} for port in ports},
        })
    if action == "trust-dscp" and p.get("interface"):
        # Classify by DSCP: bind the DSCP map the device already uses for RoCE, else create one
        # that sends RoCE to the lossless class and CNP to its own.
        ports = p.get("interfaces") or [p["interface"]]
        if p.get("map"):
            return _dump({"PORT_QOS_MAP": {port: {"dscp_to_tc_map": p["map"]}
                                           for port in ports}})
        if p.get("tc") is None or not p.get("dscp"):
            return None
        entries = {str(d): str(p["tc"]) for d in p["dscp"]}
        if p.get("cnp_tc") is not None:
            entries.update({str(d): str(p["cnp_tc"]) for d in p.get("cnp_dscp") or ()})
        return _dump({"DSCP_TO_TC_MAP": {DSCP_MAP: entries},
                      "PORT_QOS_MAP": {port: {"dscp_to_tc_map": DSCP_MAP} for port in ports}})
    # apply-profile, link-pause-disable: SONiC has no such objects. pfc-mode-on, policy-bind,
    # no-drop-class, class-mtu: NX-OS objects.
    return None
