"""Machine-readable report. Its schema is versioned and published (docs/json-report.schema.json).

Other tools rely on these keys; change them only with a new ``version``.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from fablint.engine import LintResult
from fablint.report.common import TOOL_NAME, summary, version

SCHEMA_VERSION = "1"


class _Strict(BaseModel):
    """Base of the report's schema classes. They publish the schema (``json_schema``) and let
    tests validate reports; a report is written without them, so their validators are built
    only when those ask (``defer_build``: building them took a tenth of a one-file lint)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


class JsonEdit(_Strict):
    """The fix as a pure text change: replace line ``line`` (whose text is ``old``) by ``new``."""

    line: int
    old: str
    new: str


class JsonPlace(_Strict):
    """One object a grouped finding names, and where it is configured."""

    object: str
    file: str | None
    line: int | None


class JsonConsequence(_Strict):
    """A finding explained by this one and folded into it (not reported on its own)."""

    rule: str
    object: str
    message: str


class JsonFinding(_Strict):
    rule: str = Field(description="Rule id, e.g. PFC001.")
    name: str = Field(description="Rule name, e.g. pfc-lossless-priorities.")
    severity: Literal["error", "warning", "info"]
    category: str
    device: str | None = Field(description="Device (hostname) the finding is about.")
    object: str | None = Field(description="Object on the device: interface, queue, profile.")
    file: str | None
    line: int | None
    message: str
    fix: str | None = Field(description="Fix in the device's own syntax, or null.")
    edit: JsonEdit | None = Field(
        default=None, description="The fix as a one-line in-place edit, when it is one; else null.",
    )
    fingerprint: str = Field(description="Stable identity used by baselines.")
    objects: list[str] = Field(
        default_factory=list,
        description="Every object a grouped finding is about, when its message names a few "
                    "(for port findings, the objects of places).")
    places: list[JsonPlace] = Field(
        default_factory=list,
        description="Every object a finding that groups several (the ports sharing one cause) "
                    "names, with its file and line; empty when it names one (object, file, "
                    "line).",
    )
    consequences: list[JsonConsequence] = Field(
        default_factory=list,
        description="Findings this one explains (its consequences), folded into it instead of "
                    "reported separately.",
    )


class JsonError(_Strict):
    file: str
    line: int | None
    message: str
    kind: str = Field(description="unreadable, parse-error or unsupported.")


class JsonSummary(_Strict):
    errors: int
    warnings: int
    infos: int
    total: int
    suppressed: int
    baselined: int
    baseline_stale: int = Field(default=0, description="Baseline entries that matched no "
                                "finding (fixed since; --update-baseline prunes them).")
    files: int
    devices: int
    ib_nodes: int = Field(default=0, description="InfiniBand nodes read from discovery dumps.")
    unparsed_files: int
    by_rule: dict[str, int]
    exit_code: int


class JsonTool(_Strict):
    name: str
    version: str


class JsonReport(_Strict):
    """fablint JSON report."""

    version: Literal["1"] = Field(description="Schema version of this report.")
    tool: JsonTool
    findings: list[JsonFinding]
    summary: JsonSummary
    errors: list[JsonError] = Field(description="Inputs that could not be read or parsed.")


def document(result: LintResult) -> dict[str, Any]:
    """The report as plain data, shaped as ``JsonReport`` (which publishes the schema): built
    directly, since the findings' values are typed already (a test proves that validating it
    as a ``JsonReport`` changes nothing)."""
    return {
        "version": SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": version()},
        "findings": [
            {
                "rule": f.rule, "name": f.name, "severity": f.severity.value,
                "category": f.category, "device": f.device, "object": f.object, "file": f.file,
                "line": f.line, "message": f.message, "fix": f.fix,
                "edit": ({"line": f.edit.line, "old": f.edit.old, "new": f.edit.new}
                         if f.edit else None),
                "fingerprint": f.fingerprint(),
                "objects": list(f.objects) or [p.object for p in f.places],
                "places": [{"object": p.object, "file": p.file, "line": p.line}
                           for p in f.places],
                "consequences": [{"rule": c.rule, "object": c.object, "message": c.message}
                                 for c in f.consequences],
            }
            for f in result.findings
        ],
        "summary": summary(result),
        "errors": [
            {"file": p.file, "line": p.line, "message": p.message, "kind": p.kind}
            for p in result.errors
        ],
    }


def json_schema() -> dict[str, Any]:
    schema = JsonReport.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://github.com/fablint/fablint/blob/main/docs/json-report.schema.json#v{SCHEMA_VERSION}"
    schema["title"] = "fablint JSON report"
    return schema


def render(result: LintResult) -> str:
    return dumps(document(result)) + "\n"


_ENCODE = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]
_CONSTANTS = {None: "null", True: "true", False: "false"}


def dumps(value: Any) -> str:
    """``json.dumps(value, indent=2)``, several times faster: the standard library's encoder
    leaves its C code as soon as there is an indent and yields every piece through a chain of
    generators; this writes the pieces of plain data (dicts with string keys, lists, strings,
    numbers, None, booleans) into one list. A string, None or int in a dict (a string in a
    list) goes into the piece of its key without a call of its own, and each key is encoded
    once. Anything else is left to ``json.dumps``."""
    out: list[str] = []
    _encode(value, out, "\n", {})
    return "".join(out)


def _encode(value: Any, out: list[str], indent: str, keys: dict[str, str]) -> None:
    """Append ``value`` to ``out``; ``indent`` is the newline and indent of its own line,
    ``keys`` the encoded keys met so far (a report repeats the same few thousands of times)."""
    cls = value.__class__
    if cls is dict:
        if not value:
            out.append("{}")
            return
        inner = indent + "  "
        separator = "{" + inner
        for key, item in value.items():
            if key.__class__ is not str:
                head = separator + json.dumps({key: None})[1:-7] + ": "
            else:
                encoded = keys.get(key)
                if encoded is None:
                    encoded = keys[key] = _ENCODE(key) + ": "
                head = separator + encoded
            kind = item.__class__
            if kind is str:
                out.append(head + _ENCODE(item))
            elif item is None:
                out.append(head + "null")
            elif kind is int:
                out.append(head + int.__repr__(item))
            else:
                out.append(head)
                _encode(item, out, inner, keys)
            separator = "," + inner
        out.append(indent + "}")
    elif cls is list:
        if not value:
            out.append("[]")
            return
        inner = indent + "  "
        separator = "[" + inner
        for item in value:
            if item.__class__ is str:
                out.append(separator + _ENCODE(item))
            else:
                out.append(separator)
                _encode(item, out, inner, keys)
            separator = "," + inner
        out.append(indent + "]")
    elif cls is str:
        out.append(_ENCODE(value))
    elif value is None or cls is bool:
        out.append(_CONSTANTS[value])
    elif cls is int:
        out.append(int.__repr__(value))
    else:  # floats (NaN, Infinity), str and int subclasses, tuples: as json.dumps has them
        out.append(json.dumps(value, indent=2).replace("\n", indent))
