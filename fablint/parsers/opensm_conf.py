"""OpenSM subnet manager configuration: ``opensm.conf``, with the partitions.conf beside it.

opensm.conf is ``key value`` lines (``opensm -c FILE`` writes a full one with every default).
OpenSM (``osm_subn_parse_conf_file`` in linux-rdma/opensm ``opensm/osm_subnet.c``) takes the first
blank-separated token as the key and the rest of the line, trimmed and unquoted, as the value;
unknown keys are ignored silently; numbers are C ``strtoul`` (``0x`` hex, leading ``0`` octal);
a boolean is true only when it is exactly ``TRUE``; ``(null)`` means "no file / built-in". A ``#``
after a value is not a comment to OpenSM. The parser keeps every line as an ``OpenSmOption`` and
types the options rules use; values OpenSM would misread become ParseProblems.

The subnet manager becomes one ``Device`` of vendor ``opensm`` whose ``opensm`` field holds the
configuration. Its name is the file name without ``.conf`` (``sm01-opensm``), or the folder's when
the file has the generic name (``ib-sm1/opensm.conf`` -> ``ib-sm1``). An opensm.conf and the
partitions.conf (and qos-policy.conf) in the same folder that share its name prefix
(``opensm.conf`` + ``partitions.conf``, ``sm01-opensm.conf`` + ``sm01-partitions.conf``) are read
together as one subnet manager (``group_key``; see ``fablint.ingest.group_units``).
"""

from __future__ import annotations

import difflib
import re
from pathlib import PurePath
from typing import Any, ClassVar

from fablint.model import Device, ParseProblem, SourceRef, Vendor
from fablint.parsers.base import ParseError, ParseResult, reject_nul
from fablint.parsers.build import new_device
from fablint.parsers.directives import SuppressionTracker
from fablint.parsers.partitions import c_strtoul, parse_partitions, sniff_partitions
from fablint.parsers.qos_policy import parse_qos_policy, sniff_qos_policy

Obj = dict[str, Any]

_QOS_KEY = re.compile(
    r"^(qos(?:_ca|_sw0|_swe|_rtr)?)_(max_vls|high_limit|vlarb_high|vlarb_low|sl2vl)$"
)
"""The low-level QoS sets: ``qos_`` defaults, then CAs, switch port 0, switch external ports,
routers."""

BOOL_OPTIONS = frozenset({
    "lmc_esp0", "reassign_lids", "ignore_other_sm", "single_thread", "disable_multicast",
    "force_log_flush", "use_mfttop", "force_heavy_sweep", "port_profile_switch_nodes",
    "sweep_on_trap", "connect_roots", "use_ucast_cache", "accum_log_file",
    "no_partition_enforcement", "qos", "port_shifting", "sa_db_dump", "do_mesh_analysis",
    "exit_on_fatal", "honor_guid2lid_file", "daemon", "sm_inactive", "babbling_port_policy",
    "use_optimized_slvl", "perfmgr", "perfmgr_redir", "enable_quirks", "no_clients_rereg",
    "consolidate_ipv6_snm_req", "allow_both_pkeys", "m_key_lookup", "remote_guid_sorting",
    "guid_routing_order_no_scatter", "drop_event_subscriptions", "fsync_high_avail_files",
    "congestion_control", "perfmgr_ignore_cas", "perfmgr_log_errors", "perfmgr_query_cpi",
    "perfmgr_xmit_wait_log", "ipoib_mcgroup_creation_validation", "mcgroup_join_validation",
    "use_original_extended_sa_rates", "qos_config_vl_enabled", "sa_enhanced_trust_model",
})
"""Options OpenSM parses with ``opts_parse_boolean`` (``osm_subnet.c``)."""

NUMBER_OPTIONS = frozenset({
    "guid", "m_key", "sm_key", "sa_key", "subnet_prefix", "m_key_lease_period",
    "m_key_protection_level", "sweep_interval", "max_wire_smps", "max_wire_smps2",
    "max_smps_timeout", "console_port", "transaction_timeout", "transaction_retries",
    "long_transaction_timeout", "max_msg_fifo_timeout", "sm_priority", "master_sm_priority",
    "lmc", "max_op_vls", "force_link_speed", "force_link_speed_ext", "force_link_width", "fdr10",
    "subnet_timeout", "packet_life_time", "vl_stall_count", "leaf_vl_stall_count",
    "head_of_queue_lifetime", "leaf_head_of_queue_lifetime", "local_phy_errors_threshold",
    "overrun_errors_threshold", "sminfo_polling_timeout", "polling_retry_number", "log_flags",
    "log_max_size", "scatter_ports", "max_reverse_hops", "perfmgr_sweep_time_s",
    "perfmgr_max_outstanding_queries", "lash_start_vl", "sm_sl", "sm_assigned_guid",
    "max_sa_reports_queued", "max_sa_reports_on_wire", "syslog_log_flags",
    "max_neighbor_mtu", "cc_max_outstanding_mads", "cc_key",
})
"""Options OpenSM parses as numbers (``opts_parse_uint8/16/32``, ``net16/64``, ``int32``)."""

STRING_OPTIONS = frozenset({
    "console", "port_prof_ignore_file", "hop_weights_file", "dimn_ports_file",
    "port_search_ordering_file", "routing_engine", "log_file", "partition_config_file",
    "qos_policy_file", "dump_files_dir", "lid_matrix_dump_file", "lfts_file", "root_guid_file",
    "cn_guid_file", "io_guid_file", "ids_guid_file", "guid_routing_order_file", "sa_db_file",
    "torus_config", "event_db_dump_file", "event_plugin_name", "event_plugin_options",
    "node_name_map_name", "prefix_routes_file", "log_prefix", "part_enforce",
    "cache_files_dir", "per_module_logging_file", "nue_max_num_vls", "rtr_pr_flow_label",
    "perfmgr_db_file", "perfmgr_dump_file", "cc_cct", "ca_port",
})

KNOWN_OPTIONS = BOOL_OPTIONS | NUMBER_OPTIONS | STRING_OPTIONS
"""Option names of upstream OpenSM 3.3 (``opt_tbl`` in ``osm_subnet.c``) and the common
NVIDIA additions; the ``qos_*`` sets match ``_QOS_KEY``."""

_UINT8 = ("sm_priority", "lmc", "force_link_speed", "force_link_speed_ext", "force_link_width",
          "max_op_vls", "sm_sl")
_BOOLS = ("qos", "no_partition_enforcement", "allow_both_pkeys")
_PATHS = ("qos_policy_file", "partition_config_file")
_GENERIC_STEMS = re.compile(
    r"(?:^|[-_.])(?:opensm|partitions?|qos[-_]policy|conf)(?=$|[-_.])", re.IGNORECASE
)
_OPTION_LIKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
_TRUE_SPELLINGS = frozenset({"true", "yes", "on", "1", "enable", "enabled"})


def is_option_key(key: str) -> bool:
    return key in KNOWN_OPTIONS or _QOS_KEY.match(key) is not None


def sniff_conf(head: str) -> int:
    """Confidence that ``head`` is an opensm.conf: ``key value`` lines whose keys are OpenSM
    option names, with few others."""
    known = unknown = 0
    for line in head.splitlines():
        words = line.split(None, 1)
        if not words or words[0].startswith("#"):
            continue
        if is_option_key(words[0]):
            known += 1
        elif not _OPTION_LIKE.match(words[0]):  # an option of another build, or a typo
            unknown += 1
    if known and known >= 3 * unknown:
        return 100
    if known >= 3 and known >= unknown:
        return 60
    return 0


def sm_group_key(path: str) -> str:
    """Files of one subnet manager in a folder share this key: the name without ``.conf`` and
    without the words opensm, partitions, qos-policy (``sm01-opensm.conf`` -> ``sm01``)."""
    key = _GENERIC_STEMS.sub("", PurePath(path).name.lower())
    return "opensm:" + key.strip("-_. ")


def sm_device_name(path: str) -> str:
    """The SM's name: the file name without ``.conf``; the folder's for a generic name."""
    pure = PurePath(path)
    if sm_group_key(path) != "opensm:":
        return pure.stem if pure.suffix.lower() == ".conf" else pure.name
    folder = pure.parent.name
    return folder if folder not in ("", ".", "..") else "opensm"


def _clean_value(text: str) -> str:
    """OpenSM's ``clean_val``: trim blanks, then one pair of surrounding quotes."""
    value = text.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return value


class ConfReader:
    """One opensm.conf: option lines and typed fields into a config dict."""

    def __init__(self, path: str, config: Obj) -> None:
        self.path = path
        self.config = config
        self.problems: list[ParseProblem] = []
        self.unknown = 0
        self.first_unknown: int | None = None
        self.lines = 0
        self.tracker = SuppressionTracker(path)

    def problem(self, lineno: int, message: str) -> None:
        self.problems.append(ParseProblem(file=self.path, line=lineno, message=message,
                                          kind="invalid-value"))

    def run(self, text: str) -> ConfReader:
        reject_nul(text, self.path, "NUL byte in an opensm.conf: not a text configuration")
        raw_lines = text.split("\n")
        self.lines = len(raw_lines) or 1
        for lineno, raw in enumerate(raw_lines, 1):
            words = raw.split(None, 1)
            if not words:
                continue
            key = words[0]
            if key.startswith("#"):
                error = self.tracker.comment(raw.strip()[1:], lineno)
                if error:
                    self.problem(lineno, error)
                continue
            self.tracker.line(0, lineno)
            value = _clean_value(words[1]) if len(words) > 1 else ""
            self._option(key, value, lineno)
        return self

    def _option(self, key: str, value: str, lineno: int) -> None:
        ref = SourceRef(self.path, lineno)
        self.config["options"].append({"key": key, "value": value, "src": ref, "field_src": {}})
        qos = _QOS_KEY.match(key)
        if qos is not None:
            self._qos(qos.group(1), qos.group(2), value, ref)
            return
        if key not in KNOWN_OPTIONS:
            self.unknown += 1
            self.first_unknown = self.first_unknown or lineno
            option = self.config["options"][-1]
            option["known"] = False
            close = difflib.get_close_matches(key, sorted(KNOWN_OPTIONS), n=1, cutoff=0.85)
            option["close_to"] = close[0] if close else None
            return
        if key in BOOL_OPTIONS:
            flag = self._boolean(key, value, lineno)
            if key in _BOOLS:
                self._set(key, flag, ref)
        elif key in NUMBER_OPTIONS:
            number = self._number(key, value, lineno)
            if key in _UINT8:
                self._set(key, number, ref)
        elif key == "routing_engine":
            names = [] if value in ("", "(null)") else [n for n in re.split(r"[,\s]+", value) if n]
            self._set("routing_engines", names, ref)
        elif key in _PATHS:
            if "#" in value:
                self.problem(lineno, f"'#' after a value is not a comment to OpenSM: it reads "
                             f"{key} as {value!r}")
            self._set(key, None if value in ("", "(null)") else value, ref)

    def _set(self, field: str, value: Any, ref: SourceRef) -> None:
        self.config[field] = value
        self.config["field_src"][field] = ref

    def _boolean(self, key: str, value: str, lineno: int) -> bool:
        if value == "TRUE":
            return True
        if value == "FALSE":
            return False
        word = value.split("#", 1)[0].strip().lower()
        if word in _TRUE_SPELLINGS:
            self.problem(lineno, f"OpenSM reads '{key} {value}' as FALSE: only TRUE, in "
                         "capitals and alone on the line, turns an option on")
        elif word not in ("false", "no", "off", "0", "disable", "disabled"):
            self.problem(lineno, f"{key} {value!r} is neither TRUE nor FALSE; OpenSM reads it "
                         "as FALSE")
        return False

    def _number(self, key: str, value: str, lineno: int) -> int:
        number, rest = c_strtoul(value)
        if rest == value or (rest.strip() and not rest.strip().startswith("#")):
            self.problem(lineno, f"{key} {value!r} is not a number; OpenSM reads it as {number}")
        return number

    def _qos(self, prefix: str, field: str, value: str, ref: SourceRef) -> None:
        sets = self.config["qos_sets"]
        qset = sets.setdefault(prefix, {"prefix": prefix, "src": ref, "field_src": {}})
        lineno = ref.line or 0
        if field in ("max_vls", "high_limit"):
            number = self._number(f"{prefix}_{field}", value, lineno)
            if field == "high_limit" and number >= 1 << 63:
                number -= 1 << 64  # strtol: -1 stays -1 (OpenSM's "not set")
            qset[field] = number
        elif value in ("", "(null)"):
            qset[field] = None
        elif field == "sl2vl":
            qset[field] = self._sl2vl(prefix, value, lineno)
        else:
            qset[field] = self._vlarb(f"{prefix}_{field}", value, lineno)
        qset["field_src"][field] = ref

    def _sl2vl(self, prefix: str, value: str, lineno: int) -> list[int]:
        vls = []
        for token in value.split(","):
            number, rest = c_strtoul(token)
            if rest == token or rest.strip() or number > 15:
                self.problem(lineno, f"{prefix}_sl2vl entry {token.strip()!r} is not a VL "
                             "0-15 (OpenSM warns and the table is not what was meant)")
            vls.append(number)
        if len(vls) != 16:
            self.problem(lineno, f"{prefix}_sl2vl lists {len(vls)} VLs; it needs one per SL, 16 "
                         "in all")
        return vls

    def _vlarb(self, key: str, value: str, lineno: int) -> list[tuple[int, int]]:
        pairs = []
        for token in value.split(","):
            vl_text, colon, weight_text = token.partition(":")
            vl, vl_rest = c_strtoul(vl_text)
            weight, weight_rest = c_strtoul(weight_text)
            bad = (not colon or vl_rest == vl_text or vl_rest.strip()
                   or weight_rest == weight_text or weight_rest.strip())
            if bad or vl > 14 or weight > 255:
                self.problem(lineno, f"{key} entry {token.strip()!r} is not VL:weight with VL "
                             "0-14 and weight 0-255")
            pairs.append((vl, weight))
        return pairs


def _kind(text: str, prefer: str) -> str:
    """Which file of an SM this is, by content; ``prefer`` when it cannot tell."""
    head = text[:16384]
    scores = {"conf": sniff_conf(head), "partitions": sniff_partitions(head),
              "qos-policy": sniff_qos_policy(head)}
    best = max(scores.values())
    if best == 0 or scores[prefer] == best:
        return prefer
    return max(scores, key=lambda kind: scores[kind])


def new_config() -> Obj:
    return {"options": [], "qos_sets": {}, "partitions": [], "field_src": {}}


def parse_opensm_documents(docs: list[tuple[str, str]], prefer: str = "conf") -> ParseResult:
    """The files of one subnet manager (an opensm.conf, its partitions.conf) as one device.

    A document that cannot be read at all (binary) is a fatal problem; the others still count.
    """
    config = new_config()
    problems: list[ParseProblem] = []
    suppressions: list[dict[str, object]] = []
    files: list[str] = []
    unknown = lines = 0
    first_unknown: int | None = None
    conf_name: str | None = None
    for text, path in docs:
        kind = _kind(text, prefer)
        try:
            if kind == "qos-policy":
                policy = parse_qos_policy(text, path)
                config.setdefault("qos_policy_source", path)
                config.setdefault("qos_policy_sls", {})
                for sl, ref in policy.sls.items():
                    config["qos_policy_sls"].setdefault(sl, ref)
                problems += policy.problems
                lines += policy.lines
            elif kind == "partitions":
                reader_p = parse_partitions(text, path)
                config["partitions"] += reader_p.partitions
                config.setdefault("partitions_file", path)
                problems += reader_p.problems
                unknown += reader_p.unknown
                first_unknown = first_unknown or reader_p.first_unknown
                lines += reader_p.lines
                suppressions += reader_p.tracker.finish()
            else:
                reader = ConfReader(path, config).run(text)
                config.setdefault("conf_file", path)
                conf_name = conf_name or sm_device_name(path)
                problems += reader.problems
                unknown += reader.unknown
                first_unknown = first_unknown or reader.first_unknown
                lines += reader.lines
                suppressions += reader.tracker.finish()
        except ParseError as exc:
            problems.append(ParseProblem(file=exc.file, line=exc.line, message=exc.message,
                                         kind="parse-error", fatal=True))
            continue
        files.append(path)
    if not files:
        return ParseResult(devices=[], problems=problems, lines=max(lines, 1))
    device = new_device(conf_name or sm_device_name(files[0]), "opensm", files[0])
    device["files"] = files
    device["role"] = "subnet-manager"
    device["suppressions"] = suppressions
    device["opensm"] = config
    return ParseResult(devices=[Device.model_validate(device)], problems=problems,
                       lines=max(lines, 1), unknown_lines=unknown, first_unknown=first_unknown)


class _SmFileParser:
    """One of the files of a subnet manager; the files of one SM are parsed together."""

    vendor: ClassVar[Vendor] = "opensm"
    name: ClassVar[str]
    label: ClassVar[str]
    prefer: ClassVar[str]
    """Which document names the device when several are read together."""

    def parse(self, text: str, path: str) -> ParseResult:
        result = self.parse_documents([(text, path)])
        if not result.devices:
            fatal = result.problems[0]
            raise ParseError(path, fatal.line, fatal.message)
        return result

    def parse_documents(self, docs: list[tuple[str, str]]) -> ParseResult:
        return parse_opensm_documents(docs, prefer=self.prefer)

    def group_key(self, path: str) -> str:
        return sm_group_key(path)


class OpenSmConfParser(_SmFileParser):
    """opensm.conf (and, through ``parse_documents``, the partitions.conf that goes with it)."""

    name: ClassVar[str] = "opensm"
    label: ClassVar[str] = "OpenSM opensm.conf"
    prefer: ClassVar[str] = "conf"

    def sniff(self, head: str) -> int:
        return sniff_conf(head)


class PartitionsParser(_SmFileParser):
    """OpenSM partitions.conf; parsed together with the opensm.conf beside it."""

    name: ClassVar[str] = "opensm-partitions"
    label: ClassVar[str] = "OpenSM partitions.conf"
    prefer: ClassVar[str] = "partitions"

    def sniff(self, head: str) -> int:
        return sniff_partitions(head)


class QosPolicyParser(_SmFileParser):
    """OpenSM qos-policy.conf, read with the opensm.conf beside it."""

    name: ClassVar[str] = "opensm-qos-policy"
    label: ClassVar[str] = "OpenSM qos-policy.conf"
    prefer: ClassVar[str] = "qos-policy"

    def sniff(self, head: str) -> int:
        return sniff_qos_policy(head)
