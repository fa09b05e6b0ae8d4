"""The lint run: select rules, run them over the fabric, then suppress, override and filter.

Order of the steps after the rules ran: severity overrides, inline suppressions, per-path
ignores, unused-suppression findings, baseline, fix rendering. The exit code follows from what
is left.
"""

from __future__ import annotations

import json
import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from functools import cache, partial
from itertools import accumulate, islice, repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from fablint.checks import REGISTRY, Context, Rule
from fablint.checks.base import DeviceSummary, FabricRule, fold_consequences
from fablint.config import FailOn, ProjectConfig
from fablint.filelines import FileLines
from fablint.findings import CATEGORIES, Finding, Severity, fingerprint_of
from fablint.fixes import attach_fixes
from fablint.ingest import (
    FileOutcome,
    Look,
    Unit,
    brought,
    build_fabric,
    discover,
    look_first,
    new_fabric,
    parse_unit,
    provisions,
    total_size,
    units_of,
)
from fablint.model import (
    Device,
    Endpoint,
    Fabric,
    IbNode,
    InputFile,
    Link,
    ParseProblem,
    SourceRef,
    Suppression,
    share_fields_set,
)
from fablint.parallel import gc_paused, map_files
from fablint.parsers.base import LINE_CHUNK, line_chunks, one_resolved_reference_per_kind
from fablint.parsers.detect import InputError, read_text
from fablint.policy import Policy
from fablint.trusted import bare

if TYPE_CHECKING:
    from fablint.intent import Intent
    from fablint.topology import IbName, PortTable

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
BASELINE_VERSION = 2
"""2: fingerprints from rule, device and object (1 also hashed the message)."""

PROBLEM_RULES = {
    "parse-error": "FAB001",
    "unreadable": "FAB001",
    "unsupported": "FAB002",
    "invalid-value": "FAB003",
    "partial": "FAB005",
}


class UsageError(Exception):
    """Wrong selection, unknown rule, bad baseline file: exit code 2."""


def rule_keys(rule: type[Rule]) -> set[str]:
    """Every name a user may use for a rule: id, name, family prefix, category, 'all'."""
    return {rule.id, rule.name, rule.id.rstrip("0123456789"), rule.category, "all", "ALL"}


def _valid_selector(selector: str) -> bool:
    if selector in ("all", "ALL") or selector in CATEGORIES:
        return True
    return any(selector in rule_keys(r) for r in REGISTRY.values())


def select_rules(select: Iterable[str], ignore: Iterable[str]) -> list[type[Rule]]:
    select, ignore = list(select), list(ignore)
    for selector in (*select, *ignore):
        if not _valid_selector(selector):
            raise UsageError(f"unknown rule, family or category {selector!r} (see 'fablint rules')")
    chosen = []
    for rule in REGISTRY.values():
        keys = rule_keys(rule)
        if select and not keys.intersection(select):
            continue
        if keys.intersection(ignore):
            continue
        chosen.append(rule)
    return chosen


@dataclass
class LintResult:
    fabric: Fabric
    findings: list[Finding]
    rules: list[type[Rule]]
    suppressed: int = 0
    baselined: int = 0
    fail_on: FailOn = "error"
    errors: list[ParseProblem] = field(default_factory=list)
    digests: dict[str, object] = field(default_factory=dict)
    """Device -> ``LintOptions.digest`` of it (final device names)."""
    baseline_known: list[Finding] = field(default_factory=list)
    """Findings the baseline recorded (not reported); ``--update-baseline`` keeps these."""
    baseline_stale: int = 0
    """Baseline entries that matched no finding: fixed since, so they can be pruned."""
    seconds: float = 0.0
    """Wall time of the run (JUnit's ``time``)."""

    @property
    def exit_code(self) -> int:
        if self.errors:
            return EXIT_ERROR
        if self.fail_on == "never":
            return EXIT_OK
        threshold = Severity(self.fail_on).rank
        if any(f.severity.rank >= threshold for f in self.findings):
            return EXIT_FINDINGS
        return EXIT_OK

    def counts(self) -> Counter[str]:
        return Counter(f.severity.value for f in self.findings)


@dataclass
class LintOptions:
    paths: list[str]
    config: ProjectConfig
    policy: Policy
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    vendor: str | None = None
    fail_on: FailOn | None = None
    baseline: Path | None = None
    jobs: int | None = None
    keep_devices: bool = False
    """Keep the parsed device models in the result (they stay in the workers otherwise)."""
    topology: bool = False
    """Build ``Fabric.topology`` even when no topology rule is selected (``fablint topo``)."""
    intent: Intent | None = None
    """Intended cabling to compare the topology with."""
    digest: Callable[[Device, Context], object] | None = None
    """What a report needs of each device, computed where the device is parsed so that the
    models stay in the workers (``fablint.report.datasheet.digest``); in ``LintResult.digests``."""


@dataclass(frozen=True)
class FilePlan:
    """What a worker does with each file: parse it, then run the per-device rules."""

    policy: Policy
    rule_ids: tuple[str, ...]
    vendor: str | None
    keep_devices: bool
    summary_rule_ids: tuple[str, ...] = ()
    """Fabric rules whose per-device summaries the worker computes (``FabricRule``)."""
    topology: bool = False
    """Keep each device's port table (for the topology) in the worker's result."""
    digest: Callable[[Device, Context], object] | None = None
    available: frozenset[str] = frozenset({"links", "hosts"})
    """What the plan expects the inputs to bring (``fablint.parsers.PROVIDES``); a unit that
    brings more makes the run start again with a plan that expects it."""
    ib_ports: bool = True
    """Whether anything reads the ports of IB nodes (the IB link rules, or the caller through
    kept models); without, dumps are parsed into nodes and links only."""
    references: bool = True
    """Whether anything reads every resolved reference of a device (a rule that sets
    ``reads_references``, kept models, a digest); without, a parser may record only the first
    resolved one of each kind (``parsers.base.one_resolved_reference_per_kind``)."""
    looks: frozenset[str] = frozenset()
    """Files that are units of their own until grouping knows better: their parse also tells
    what grouping would learn of them (``ingest.look_first``)."""


@dataclass
class FileResult(FileOutcome):
    findings: list[Finding] = field(default_factory=list)
    suppressions: list[Suppression] = field(default_factory=list)
    used: set[int] = field(default_factory=set)
    suppressed: int = 0
    summaries: dict[str, list[DeviceSummary]] = field(default_factory=dict)
    """Fabric rule id -> the summary of each device of this unit."""
    ports: dict[str, PortTable] = field(default_factory=dict)
    """Device -> its port table, when the topology is wanted."""
    ib_names: dict[str, IbName] = field(default_factory=dict)
    """IB node key -> its kind and description, when the topology is wanted."""
    brought: set[str] = field(default_factory=set)
    """What the unit brings besides switch configurations (``fablint.ingest.brought``)."""
    digests: dict[str, object] = field(default_factory=dict)
    """Device -> ``FilePlan.digest`` of it, when one is asked for."""

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with each port table as columns of plain tuples (``_pack_ports``): a
        worker sends a row and two source references a port, and a named tuple pickles
        through a Python ``__getnewargs__`` and unpickles through a Python ``__new__``."""
        state = dict(self.__dict__)
        ports = state.pop("ports")
        links = state.pop("links")
        return (_restore_result, (state, _pack_ports(ports) if ports else ports,
                                  _pack_links(links) if links else links))


_new_tuple = tuple.__new__
_NONE = type(None)


def _pack_ports(ports: dict[str, PortTable]) -> dict[str, object]:
    """Each port table as (port names, its columns, which columns hold source references);
    a table that is not made of ``PortRow`` tuples alone is kept as it is."""
    from fablint.topology import PortRow

    packed: dict[str, object] = {}
    for device, table in ports.items():
        rows = list(table.values())
        if not rows or set(map(type, rows)) != {PortRow}:
            packed[device] = table
            continue
        columns: list[Sequence[object]] = list(zip(*rows, strict=True))
        refs = []
        for index in _ref_columns(PortRow):
            column = columns[index]
            if set(map(type, column)) <= {SourceRef, _NONE}:
                columns[index] = [ref and tuple(ref) for ref in column]  # type: ignore[misc]
                refs.append(index)
        packed[device] = (list(table), columns, refs)
    return packed


@cache
def _ref_columns(row: type[tuple[object, ...]]) -> tuple[int, ...]:
    """The fields of a named tuple that may hold a SourceRef (by their annotations)."""
    hints = getattr(row, "__annotations__", {})
    return tuple(index for index, name in enumerate(row._fields)  # type: ignore[attr-defined]
                 if "SourceRef" in str(hints.get(name, "")))


_LINK_FIELDS = tuple(Link.__pydantic_fields__)
_ENDS = (_LINK_FIELDS.index("a"), _LINK_FIELDS.index("b"))
_END_FIELDS = tuple(Endpoint.__pydantic_fields__)


def _pack_links(links: list[Link]) -> object:
    """The links as rows of plain values (each object's field values and its set of given
    names; the ends' in the link's row): a link and its two ends would each pickle through
    pydantic's Python ``__getstate__`` (an LLDP table sends tens of them). Links of any other
    form are kept as they are."""
    if set(map(type, links)) != {Link}:
        return links
    rows = []
    a_at, b_at = _ENDS
    for link in links:
        values = link.__dict__
        a, b = values["a"], values["b"]
        if (a.__class__ is not Endpoint or b.__class__ is not Endpoint
                or tuple(values) != _LINK_FIELDS or link.__pydantic_extra__ is not None
                or link.__pydantic_private__ is not None):
            return links
        row = list(values.values())
        row[a_at] = tuple(a.__dict__.values())
        row[b_at] = tuple(b.__dict__.values())
        rows.append((row, link.__pydantic_fields_set__, a.__pydantic_fields_set__,
                     b.__pydantic_fields_set__))
    return _PackedLinks(rows)


class _PackedLinks(list[tuple[list[Any], set[str], set[str], set[str]]]):
    """Links as ``_pack_links`` sends them."""


def _unpack_links(rows: _PackedLinks) -> list[Link]:
    links = []
    a_at, b_at = _ENDS
    for row, given, a_given, b_given in rows:
        row[a_at] = bare(Endpoint, dict(zip(_END_FIELDS, row[a_at], strict=True)), a_given)
        row[b_at] = bare(Endpoint, dict(zip(_END_FIELDS, row[b_at], strict=True)), b_given)
        links.append(bare(Link, dict(zip(_LINK_FIELDS, row, strict=True)), given))
    return links


def _restore_result(state: dict[str, Any], packed: dict[str, object],
                    links: object) -> FileResult:
    from fablint.topology import PortRow

    result = FileResult.__new__(FileResult)
    result.__dict__.update(state)
    result.links = (_unpack_links(links) if isinstance(links, _PackedLinks)
                    else links)  # type: ignore[assignment]
    ports: dict[str, PortTable] = {}
    for device, value in packed.items():
        if not isinstance(value, tuple):
            ports[device] = value  # type: ignore[assignment]
            continue
        names, columns, refs = value
        for index in refs:
            columns[index] = [ref and _new_tuple(SourceRef, ref) for ref in columns[index]]
        rows = map(_new_tuple, repeat(PortRow), zip(*columns, strict=True))
        ports[device] = dict(zip(names, rows, strict=True))
    result.ports = ports
    return result


def analyse_unit(task: tuple[Unit, FilePlan]) -> list[FileResult]:
    """Parse one unit (a file, or the files of one split device) and run the per-device rules
    on it, in whichever process runs this.

    Only findings cross back to the parent; device models do so only when a fabric-wide rule
    or the caller needs them, because moving them between processes costs more than parsing.
    """
    unit, plan = task
    with ExitStack() as scope:
        if not plan.ib_ports:
            from fablint.parsers.ibdump import nodes_without_ports

            scope.enter_context(nodes_without_ports())
        if not plan.references:
            scope.enter_context(one_resolved_reference_per_kind())
        parsed = parse_unit(unit, plan.vendor, len(unit) == 1 and unit[0][0] in plan.looks)
    return [_analyse(outcome, plan) for outcome in (parsed if isinstance(parsed, list)
                                                     else [parsed])]


class _LineCache:
    """Lines of input files, read again only for findings whose fix may be a one-line edit."""

    def __init__(self) -> None:
        self._lines: dict[str, Sequence[str]] = {}

    def __call__(self, path: str) -> Sequence[str]:
        lines = self._lines.get(path)
        if lines is None:
            lines = _large_file_lines(path)
            if lines is None:
                try:
                    text = read_text(Path(path))
                except InputError:
                    text = ""
                lines = (text.split("\n") if len(text) <= LINE_CHUNK else _TextLines(text))
            self._lines[path] = lines
        return lines


def _large_file_lines(path: str) -> Sequence[str] | None:
    """The lines of a file over ``LINE_CHUNK`` bytes read from the file as asked for
    (``FileLines``: not its whole text again beside the model), where it can be."""
    try:
        if Path(path).stat().st_size <= LINE_CHUNK:
            return None
    except OSError:
        return None
    return FileLines.scan(path)


class _TextLines(Sequence[str]):
    """The lines of a large text, cut from it when asked for: a list of a 50 MB file's lines
    would hold a string object per line beside the text, twice the text in all."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._ends = array("q")  # where each line ends (the offset of its newline)
        end = -1
        for chunk in line_chunks(text):
            self._ends.extend(islice(accumulate(map((1).__add__, map(len, chunk)), initial=end),
                                     1, None))
            end = self._ends[-1]

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        ends = self._ends
        end = ends[index]  # IndexError as a list's
        if index < 0:
            index += len(ends)
        return self._text[ends[index - 1] + 1 if index else 0:end]


def _analyse(outcome: FileOutcome, plan: FilePlan) -> FileResult:
    if plan.topology:  # cabling is imported only by the runs that use it
        from fablint.topology import ib_names, port_table
    # Built without validation (the parts are models already): validating a Fabric would
    # build the validators of every model it can hold, topology and InfiniBand included.
    ctx = Context(fabric=new_fabric({"devices": {d.name: d for d in outcome.devices},
                                     "links": list(outcome.links),
                                     "ib_nodes": list(outcome.ib_nodes)}),
                  policy=plan.policy)
    raw: list[Finding] = []
    for rule_id in plan.rule_ids:
        raw.extend(REGISTRY[rule_id]().check(ctx))
    raw = fold_consequences(raw)  # a finding another one explains is folded into its cause
    summaries: dict[str, list[DeviceSummary]] = {}
    # a device's summary without facts, one object for every rule that has none of it (most
    # topology rules): pickled once
    nothing = {d.name: DeviceSummary.of(d, None) for d in outcome.devices} \
        if plan.summary_rule_ids else {}
    for rule_id in plan.summary_rule_ids:
        rule = REGISTRY[rule_id]()
        assert isinstance(rule, FabricRule)
        summaries[rule_id] = [DeviceSummary.of(d, facts) if (facts := rule.summarize(d, ctx))
                              is not None else nothing[d.name] for d in outcome.devices]
    suppressions = [s for d in outcome.devices for s in d.suppressions]
    kept, used, suppressed = _suppress(raw, suppressions)
    digests = {d.name: plan.digest(d, ctx) for d in outcome.devices} if plan.digest else {}
    del ctx  # what the rules derived for every port, not needed by the fixes (memory)
    attach_fixes(kept, _LineCache())
    for link in outcome.links:
        # One fields set per kind of link and of end point, not one each: the parent takes
        # in a mixed fabric's 60,000 links (and 120,000 end points) with about 70 MB less,
        # and unpickles them faster.
        share_fields_set(link)
        share_fields_set(link.a)
        share_fields_set(link.b)
    return FileResult(
        input=outcome.input, devices=outcome.devices if plan.keep_devices else [],
        problems=outcome.problems, links=outcome.links, extra_inputs=outcome.extra_inputs,
        ib_nodes=outcome.ib_nodes if plan.keep_devices else [],
        findings=kept,
        suppressions=suppressions, used=used, suppressed=suppressed, summaries=summaries,
        ports={d.name: port_table(d) for d in outcome.devices} if plan.topology else {},
        ib_names=ib_names(outcome.ib_nodes) if plan.topology else {},
        brought=brought(outcome),
        digests=digests, look=outcome.look,
    )


def lint(options: LintOptions) -> LintResult:
    started = time.perf_counter()
    result = _lint(options)
    result.seconds = time.perf_counter() - started
    return result


def _lint(options: LintOptions) -> LintResult:
    config = options.config
    rules = select_rules(options.select or config.select, [*config.ignore, *options.ignore])
    fabric_rules = [r for r in rules if r.scope == "fabric"]
    files = discover(options.paths, config.excluded if config.exclude else lambda _p: False)
    formats: dict[str, str] = {}
    # JSON files are looked at by their own parse (``ingest.look_first``): each is a unit of
    # its own until the parses tell what grouping would have made of them (``_settle``).
    looks, speculated = look_first(files, options.vendor, formats, options.jobs)
    units = units_of(files, looks)
    size = total_size(files)
    with gc_paused():
        # Cables and hosts are predicted from the formats grouping recognised; summaries and
        # port tables that only matter with them are skipped when none is expected. JSON files
        # not looked at yet are expected to bring cables (SONiC DEVICE_NEIGHBOR).
        guess = _available(files, formats, options) | ({"links"} if speculated else set())
        plan = _plan(options, rules, fabric_rules, frozenset(guess), speculated)
        done = _run(units, plan, options, size)
        if speculated:
            units, done = _settle(files, units, done, looks, formats, plan, options)
        results = [result for batch in done for result in batch]
        # What the run would have expected had grouping looked at every file; a unit that
        # brings what was not expected (a '.cfg' file holding an LLDP table) makes the run
        # start again with a plan that expects it.
        found = set().union(*(result.brought for result in results))
        final = _plan(options, rules, fabric_rules,
                      frozenset(_available(files, formats, options) | found))
        if not _narrow(results, plan, final):
            results = [result for batch in _run(units, final, options, size)
                       for result in batch]
        return _assemble(results, rules, fabric_rules, options)


def _available(files: list[tuple[str, bool]], formats: dict[str, str],
               options: LintOptions) -> set[str]:
    """What the inputs are expected to bring besides switch configurations (``provisions``
    of the formats recognised), with cables when the topology is asked for."""
    available = provisions(files, formats, options.vendor)
    if options.intent is not None or options.topology:
        available.add("links")
    return available


def _run(units: list[Unit], plan: FilePlan, options: LintOptions,
         size: int) -> list[list[FileResult]]:
    """``analyse_unit`` of each unit, in worker processes when the input is large."""
    return map_files(analyse_unit, [(unit, plan) for unit in units], jobs=options.jobs,
                     total_bytes=size, before_fork=partial(_build_models, plan.available))


def _settle(files: list[tuple[str, bool]], units: list[Unit], done: list[list[FileResult]],
            looks: dict[str, Look], formats: dict[str, str], plan: FilePlan,
            options: LintOptions) -> tuple[list[Unit], list[list[FileResult]]]:
    """The units grouping would have made (``ingest.units_of``) once the parses of the files
    it did not look at told what it would have learnt, with their results: those of the units
    the run made already, the others (fragments of one device, parsed apart) made now."""
    for batch in done:
        for result in batch:
            if result.look is not None:
                looks[result.input.path] = result.look
                if result.look.format is not None:
                    formats[result.input.path] = result.look.format
    exact = units_of(files, looks)
    if exact == units:
        return units, done
    ready = {tuple(unit): batch for unit, batch in zip(units, done, strict=True)}
    missing = [unit for unit in exact if tuple(unit) not in ready]
    again = replace(plan, looks=frozenset())
    size = total_size([file for part in missing for file in part])
    for unit, batch in zip(missing, _run(missing, again, options, size), strict=True):
        ready[tuple(unit)] = batch
    return exact, [ready[tuple(unit)] for unit in exact]


def _narrow(results: list[FileResult], plan: FilePlan, final: FilePlan) -> bool:
    """Make ``results``, made with ``plan``, what ``final`` would have made, when ``plan``
    expected at least as much (it then made every summary and port table ``final`` makes,
    and maybe more); False when it expected less (the run must start again)."""
    if not final.available <= plan.available or replace(
            plan, summary_rule_ids=final.summary_rule_ids, topology=final.topology,
            available=final.available, looks=final.looks) != final:
        return False
    if plan.summary_rule_ids != final.summary_rule_ids:
        wanted = set(final.summary_rule_ids)
        for result in results:
            result.summaries = {rule_id: items for rule_id, items in result.summaries.items()
                                if rule_id in wanted}
    if plan.topology and not final.topology:
        for result in results:
            result.ports, result.ib_names = {}, {}
    return True


def _build_models(available: frozenset[str]) -> None:
    """Build the validators the parsers will use before workers are forked, so that they
    share them (models build them on first use, ``fablint.model._Model``)."""
    for cls in (Device, InputFile, ParseProblem, *((Link, IbNode) if "links" in available
                                                     else ())):
        cls.model_rebuild()


def _plan(options: LintOptions, rules: list[type[Rule]], fabric_rules: list[type[Rule]],
          available: frozenset[str], looks: frozenset[str] = frozenset()) -> FilePlan:
    # Fabric rules that work from per-device summaries let the device models stay in the
    # workers; only the others need every device shipped back whole. A summary is computed
    # only where the inputs bring what its rule compares.
    summarized = [r for r in fabric_rules if issubclass(r, FabricRule)]
    keep_devices = len(summarized) < len(fabric_rules) or options.keep_devices
    return FilePlan(
        policy=options.policy,
        rule_ids=tuple(r.id for r in rules if r.scope == "device"),
        vendor=options.vendor,
        keep_devices=keep_devices,
        summary_rule_ids=tuple(r.id for r in summarized if r.requires <= available),
        topology=_wants_topology(options, rules) and "links" in available,
        digest=options.digest,
        available=available,
        ib_ports=keep_devices or any(getattr(r, "reads_ib_ports", False) for r in rules),
        references=keep_devices or options.digest is not None
        or any(getattr(r, "reads_references", False) for r in rules),
        looks=looks,
    )


def _wants_topology(options: LintOptions, rules: list[type[Rule]]) -> bool:
    return options.topology or any(getattr(r, "needs_topology", False) for r in rules)


def _assemble(
    results: list[FileResult], rules: list[type[Rule]], fabric_rules: list[type[Rule]],
    options: LintOptions,
) -> LintResult:
    """Put the per-file results together and finish the run in the parent process."""
    config = options.config
    fabric, renames = build_fabric(results)
    ports = {renames.get((result.input.path, name), name): table
             for result in results for name, table in result.ports.items()}
    if _wants_topology(options, rules) and (fabric.links or options.intent or ports):
        from fablint.topology import build_topology, declares_cables  # runs with cabling only

        if fabric.links or options.intent or declares_cables(ports):
            names = {key: name for result in results for key, name in result.ib_names.items()}
            fabric.topology = build_topology(fabric.links, ports, options.policy,
                                             options.intent, names)
    selected = {r.id for r in rules}
    findings: list[Finding] = []
    suppressions: list[Suppression] = []
    used: set[int] = set()
    suppressed = 0
    summaries: dict[str, list[DeviceSummary]] = {}
    for result in results:
        path = result.input.path
        for rule_id, items in result.summaries.items():
            summaries.setdefault(rule_id, []).extend(
                (replace(s, name=renames[path, s.name]) if (path, s.name) in renames else s
                 for s in items) if renames else items)
        offset = len(suppressions)
        suppressions.extend(result.suppressions)
        used.update(offset + i for i in result.used)
        suppressed += result.suppressed
        for finding in result.findings:
            finding.device = renames.get((result.input.path, finding.device or ""),
                                         finding.device)
        findings.extend(result.findings)

    late = list(_problem_findings(fabric, selected))
    if fabric_rules:
        ctx = Context(fabric=fabric, policy=options.policy)
        for rule in fabric_rules:
            instance = rule()
            if isinstance(instance, FabricRule):
                late.extend(instance.compare(summaries.get(rule.id, []), ctx))
            else:
                late.extend(instance.check(ctx))
    kept, late_used, late_suppressed = _suppress(late, suppressions)
    attach_fixes(kept, _LineCache())
    findings.extend(kept)
    # a fabric finding may explain device ones, and a device finding a fabric one (a port
    # below the fabric MTU explains the MTU mismatch with its jumbo peer)
    findings = fold_consequences(findings)  # every cause: ``kept`` are among ``findings``
    if fabric.topology is not None and "TOP006" in selected:
        from fablint.bisectfold import fold_bisection  # (a bisection shortfall of bad links)

        findings = fold_bisection(findings, fabric.topology, options.policy)
    used |= late_used
    suppressed += late_suppressed

    _apply_severity(findings, config.severity)
    findings = [f for f in findings if not _path_ignored(f, config)]
    if "FAB004" in selected:
        findings.extend(_unused(suppressions, used, selected, fabric))
    known: list[Finding] = []
    stale = 0
    if options.baseline is not None:
        findings, known, stale = apply_baseline(findings, load_baseline(options.baseline))
    findings.sort(key=Finding.sort_key)
    # Inputs fablint could not fully read make the run incomplete: exit code 2. A stray file in
    # a folder that is in no supported format does not; a damaged one (parse-error) does.
    errors = [
        p for p in fabric.problems
        if (p.fatal and (p.kind != "unsupported" or _explicit(fabric, p.file)))
        or p.kind == "parse-error"
    ]
    digests = {renames.get((result.input.path, name), name): value
               for result in results for name, value in result.digests.items()}
    return LintResult(
        fabric=fabric, findings=findings, rules=rules, suppressed=suppressed,
        baselined=len(known), fail_on=options.fail_on or config.fail_on, errors=errors,
        baseline_known=known, baseline_stale=stale, digests=digests,
    )


def _explicit(fabric: Fabric, path: str) -> bool:
    return any(i.path == path and i.explicit for i in fabric.inputs)


def _problem_findings(fabric: Fabric, selected: set[str]) -> Iterable[Finding]:
    owners = {i.path: i.devices[0] for i in fabric.inputs if len(i.devices) == 1}
    named = {i.path for i in fabric.inputs if i.explicit}
    stray: list[ParseProblem] = []
    for problem in fabric.problems:
        rule_id = PROBLEM_RULES[problem.kind]
        if rule_id not in selected:
            continue
        if problem.kind == "unsupported" and problem.file not in named:
            stray.append(problem)  # found in a folder: one summary for all (below)
            continue
        rule = REGISTRY[rule_id]
        severity = rule.severity
        if problem.kind == "unsupported":
            severity = Severity.ERROR
        yield Finding(
            rule=rule.id, name=rule.name, severity=severity, category=rule.category,
            message=problem.message, file=problem.file, line=problem.line,
            device=owners.get(problem.file),
        )
    if stray:
        yield _stray_summary(stray)


STRAY_NAMED = 5
"""Files a FAB002 summary names in its message; the JSON report's ``objects`` has them all."""


def _stray_summary(stray: list[ParseProblem]) -> Finding:
    """One warning for the files a folder walk found in no supported format: each with its
    reason in the message (the first few) and in ``objects`` and ``related`` (all). It is
    placed at the first such file, so that every report can anchor it (GitHub code scanning
    drops a SARIF result without a physical location)."""
    rule = REGISTRY["FAB002"]
    if len(stray) == 1:
        only = stray[0]
        return Finding(rule=rule.id, name=rule.name, severity=rule.severity,
                       category=rule.category, message=only.message, file=only.file,
                       line=only.line, objects=[only.file])
    def reason(p: ParseProblem) -> str:
        return p.message.removeprefix("unsupported input: ")

    shown = "; ".join(f"{p.file} ({reason(p)})" for p in stray[:STRAY_NAMED])
    more = f"; and {len(stray) - STRAY_NAMED} more" if len(stray) > STRAY_NAMED else ""
    return Finding(
        rule=rule.id, name=rule.name, severity=rule.severity, category=rule.category,
        message=f"{len(stray)} files found in folders are in no format fablint reads and were "
                f"not linted: {shown}{more}",
        file=stray[0].file, line=stray[0].line, objects=[p.file for p in stray],
        related=[SourceRef(file=p.file, line=p.line) for p in stray],
    )


def _apply_severity(findings: list[Finding], overrides: dict[str, str]) -> None:
    if not overrides:
        return
    for finding in findings:
        rule = REGISTRY[finding.rule]
        # The most specific key wins: id, then name, family, category.
        for key in (rule.id, rule.name, rule.id.rstrip("0123456789"), rule.category):
            if key in overrides:
                finding.severity = Severity(overrides[key])
                break


def _suppress(
    findings: list[Finding], suppressions: list[Suppression]
) -> tuple[list[Finding], set[int], int]:
    if not suppressions:
        return findings, set(), 0
    by_file: dict[str, list[tuple[int, Suppression]]] = {}
    for index, supp in enumerate(suppressions):
        by_file.setdefault(supp.file, []).append((index, supp))
    kept: list[Finding] = []
    used: set[int] = set()
    suppressed = 0
    for finding in findings:
        candidates = by_file.get(finding.file or "")
        hit = None
        if candidates:
            keys = rule_keys(REGISTRY[finding.rule])
            for index, supp in candidates:
                if supp.covers(keys, finding.file, finding.line):
                    hit = index
                    break
        if hit is None:
            kept.append(finding)
        else:
            used.add(hit)
            suppressed += 1
    return kept, used, suppressed


def _unused(
    suppressions: list[Suppression], used: set[int], selected: set[str], fabric: Fabric
) -> Iterable[Finding]:
    rule = REGISTRY["FAB004"]
    owner = {i.path: i.devices[0] for i in fabric.inputs if len(i.devices) == 1}
    for index, supp in enumerate(suppressions):
        if index in used:
            continue
        unknown = [r for r in supp.rules if not _valid_selector(r)]
        if unknown:
            message = f"suppression names unknown rule {', '.join(unknown)}"
        else:
            ran = all(
                any(r in rule_keys(REGISTRY[i]) for i in selected) for r in supp.rules
            )
            if not ran:
                continue  # the rule did not run, so the comment may well be needed
            what = ", ".join(supp.rules) if supp.rules else "all rules"
            message = f"suppression of {what} matches no finding"
        yield Finding(
            rule=rule.id, name=rule.name, severity=rule.severity, category=rule.category,
            message=message, file=supp.file, line=supp.line, device=owner.get(supp.file),
        )


def _path_ignored(finding: Finding, config: ProjectConfig) -> bool:
    ignored = config.ignored_for_path(finding.file)
    return bool(ignored) and bool(rule_keys(REGISTRY[finding.rule]).intersection(ignored))


# -- baseline --------------------------------------------------------------------------------


def baseline_document(findings: list[Finding]) -> dict[str, object]:
    entries = [
        {
            "fingerprint": f.fingerprint(), "rule": f.rule, "device": f.device,
            "object": f.object, "message": f.message,
        }
        for f in sorted(findings, key=lambda f: (f.rule, f.device or "", f.object or "",
                                                  f.message))
    ]
    return {"version": BASELINE_VERSION, "tool": "fablint", "findings": entries}


def load_baseline(path: Path) -> Counter[str]:
    """Fingerprint -> how many findings the baseline records with it. Entries of a version-1
    baseline (message in the fingerprint) are re-keyed from their rule, device and object, so
    rewording a message never invalidates a baseline."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"{path}: cannot read baseline: {exc.strerror or exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise UsageError(f"{path}: baseline is not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("findings"), list):
        raise UsageError(f"{path}: not a fablint baseline (no 'findings' list)")
    legacy = data.get("version", 1) == 1
    counts: Counter[str] = Counter()
    for entry in data["findings"]:
        if not isinstance(entry, dict):
            continue
        if legacy and isinstance(entry.get("rule"), str):
            device, obj = entry.get("device"), entry.get("object")
            counts[fingerprint_of(entry["rule"], device if isinstance(device, str) else None,
                                  obj if isinstance(obj, str) else None)] += 1
        elif isinstance(entry.get("fingerprint"), str):
            counts[entry["fingerprint"]] += 1
    return counts


def apply_baseline(
    findings: list[Finding], baseline: Counter[str]
) -> tuple[list[Finding], list[Finding], int]:
    """Split findings into new ones and those the baseline records (as many of each as were
    recorded); also count the baseline's entries that matched nothing (fixed, or stale)."""
    remaining = Counter(baseline)
    kept: list[Finding] = []
    known: list[Finding] = []
    for finding in findings:
        fp = finding.fingerprint()
        if remaining[fp] > 0:
            remaining[fp] -= 1
            known.append(finding)
        else:
            kept.append(finding)
    return kept, known, sum(remaining.values())
