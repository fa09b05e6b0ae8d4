"""Plain-data builders that parsers fill in, shaped exactly like the model.

Parsers build dicts, lists and sets (cheap to create and to update line by line) and validate the
result into the pydantic model once, at the end. pydantic-core builds the nested models far
faster than constructing them one by one, and the validation doubles as a check that every
parser produces a well-typed model.

An "object" here is a dict with a ``field_src`` key: the same convention as ``Located``.
"""

from __future__ import annotations

import contextlib
import marshal
import re
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from fablint.model import (
    NO_SOURCES,
    Device,
    FieldSources,
    Interface,
    LinkPause,
    Queue,
    Reference,
    SourceRef,
    Watchdog,
    share_fields_set,
)
from fablint.parsers.base import ParseError
from fablint.variants import Variants

ModelT = TypeVar("ModelT", bound=BaseModel)

_HAS_DIGIT = re.compile(r"\d").search
_new_tuple = tuple.__new__

Obj = dict[str, Any]


def new_watchdog() -> Obj:
    return {"field_src": {}}


def new_pfc() -> Obj:
    return {"field_src": {}, "no_drop": set(), "drop": set(), "watchdog": new_watchdog()}


def new_qos(name: str | None = None, src: SourceRef | None = None) -> Obj:
    return {
        "name": name, "src": src, "field_src": {}, "pfc": new_pfc(),
        "pause": {"field_src": {}}, "queues": {}, "policies": [],
    }


def new_interface(name: str, kind: str, src: SourceRef, routed: bool) -> Obj:
    return {
        "name": name, "kind": kind, "src": src, "field_src": {}, "routed": routed,
        "ip_addresses": [], "acls": [], "qos": new_qos(),
    }


def new_queue(queue_id: int, src: SourceRef) -> Obj:
    return {"id": queue_id, "src": src, "field_src": {}}


def new_device(name: str, vendor: str, file: str) -> Obj:
    return {
        "name": name, "vendor": vendor, "files": [file], "field_src": {}, "interfaces": {},
        "qos": {"field_src": {}}, "qos_profiles": {}, "acls": {}, "suppressions": [],
        "references": [],
    }


def overlay(base: Obj, top: Obj) -> Obj:
    """A new object: ``base`` with every field that ``top`` configured taken from ``top``.

    "Configured" is what ``field_src`` records, so defaults in ``top`` never hide ``base``.
    Nested objects merge field by field, dicts of objects key by key, lists concatenate. PFC
    priority sets merge priority by priority: each ``priority N no-drop|drop`` is its own
    command, and the port's win over the profile's.
    """
    configured = top["field_src"]
    out = dict(base)
    for key, value in top.items():
        if key in ("src", "field_src"):
            continue
        mine = base.get(key)
        if isinstance(value, dict) and isinstance(mine, dict):
            if "field_src" in value:
                out[key] = overlay(mine, value)
            elif value:
                merged = dict(mine)
                for sub, item in value.items():
                    old = merged.get(sub)
                    both = isinstance(item, dict) and isinstance(old, dict) and "field_src" in item
                    merged[sub] = overlay(old, item) if both else item
                out[key] = merged
        elif isinstance(value, list) and isinstance(mine, list):
            out[key] = [*mine, *value]
        elif key in configured or key not in base:
            out[key] = value
    if "no_drop" in top and "no_drop" in base:
        out["no_drop"] = (base["no_drop"] - top["drop"]) | top["no_drop"]
        out["drop"] = (base["drop"] - top["no_drop"]) | top["drop"]
    out["field_src"] = {**base["field_src"], **configured}
    out["src"] = top.get("src") or base.get("src")
    return out



# -- large inputs: share what ports have alike ----------------------------------------------

COMPACT_PORTS = 1024
"""A device with at least this many ports is validated port by port, sharing what its ports
have alike (``Compactor``): the parser's dicts of one port are freed as its models are made,
instead of the whole switch's coexisting with the whole model. Below it (every switch of a
normal fabric) the device is validated in one go, which is faster."""


def _key(value: Any) -> Any:
    """A hashable key equal for two plain-data values exactly when they validate alike.

    Insertion order counts (dicts that differ in order dump differently), and so do the
    classes that compare equal across types (``True == 1 == 1.0``)."""
    cls = value.__class__
    if cls is dict:
        return (dict, tuple([(k, _key(v)) for k, v in value.items()]))
    if cls is list:
        return (list, tuple([_key(v) for v in value]))
    if cls is set:
        return (set, frozenset(value))
    if cls is bool or cls is float:
        return (cls, value)
    if isinstance(value, BaseModel):  # already shared: kept alive by the memo that made it
        return (cls, id(value))
    return value  # str, int, None, SourceRef


RECENT_REFS = 64
"""Source references ``Compactor`` keeps to share (the lines of about one port)."""


class Compactor:
    """Makes the models of a large device small. Three ways:

    - The parts of port QoS that many ports have alike (the profile's queues and their ECN
      thresholds, the resolved watchdog, link pause) are validated once, and every port gets
      the same object.
    - Every object of a port is rebuilt (``compact``) so that its attributes live in the
      instance itself with keys its class shares (CPython's key-sharing instance dicts: about
      a third of the dict pydantic gives each object), its ``field_src`` is ``FieldSources``
      (keys shared, four bytes a line) and its sets, empty containers and maps of plain values
      (an NX-OS port's classification maps) are shared by value.
    - References (one per port that names a profile) are compacted the same way.

    Models are never changed once built, so sharing them is safe; the parser's plain data
    stays the single source of what each port says, and the model reads, compares and dumps
    exactly as the plain one (``tests/test_memory.py``)."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        """File name -> the one string object that source references of it hold."""
        self.memo: dict[Any, BaseModel] = {}
        self.values: dict[Any, Any] = {}
        """Sets and empty containers, one object per value (and iteration order)."""
        self.sources: dict[bytes, FieldSources] = {}
        """Sources of fewer keys that the parser knows many objects have (``share_sources``)."""
        self.recent: dict[SourceRef, SourceRef] = {}
        """The source references compacted last, one object per value: a port's lines are
        named by several of its objects (an NX-OS port's service-policy line is the source of
        its binding, its classification maps and the reference to the policy)."""
        self.variants = Variants()
        """Objects alike in all but a few values keep only those (``fablint.variants``)."""
        self.done: dict[int, tuple[BaseModel, BaseModel]] = {}
        """id of a model shared by ports -> (it, its compacted self); the first element keeps
        the id from being reused."""

    def share_sources(self, refs: dict[str, SourceRef]) -> None:
        """Let every object whose ``field_src`` is ``refs`` share one (an NX-OS port's
        classification maps: the same policy's lines on every port that binds it)."""
        sources = FieldSources.compact(refs)
        if sources.__class__ is FieldSources:
            self.sources.setdefault(bytes(sources), sources)  # type: ignore[arg-type]

    def model(self, cls: type[ModelT], obj: Any) -> ModelT | Any:
        if obj.__class__ is not dict:
            # None, or a model already: one the parser shares between ports (NX-OS queues)
            return self.shared(obj) if isinstance(obj, BaseModel) else obj
        key = (cls, _key(obj))
        model = self.memo.get(key)
        if model is None:
            model = self.memo[key] = self.shared(cls.model_validate(obj))
        return model  # type: ignore[return-value]

    def shared(self, model: ModelT) -> ModelT:
        """The compacted form of ``model``, a model that several ports hold: made once."""
        known = self.done.get(id(model))
        if known is not None:
            return known[1]  # type: ignore[return-value]
        compact = self.compact(model)
        self.done[id(model)] = (model, compact)
        self.done[id(compact)] = (compact, compact)
        return compact

    def port_qos(self, qos: Obj) -> None:
        """Replace the shareable parts of a port's QoS (plain data) by shared models."""
        pfc = qos.get("pfc")
        if pfc is not None and pfc.__class__ is dict and "watchdog" in pfc:
            pfc["watchdog"] = self.model(Watchdog, pfc["watchdog"])
        if "pause" in qos:
            qos["pause"] = self.model(LinkPause, qos["pause"])
        queues = qos.get("queues")
        if queues:
            for qid, queue in queues.items():
                queues[qid] = self.model(Queue, queue)

    def port(self, iface: Obj) -> Interface:
        """The compacted model of a port (plain data)."""
        qos = iface.get("qos")
        if qos.__class__ is dict:  # not a QosSettings shared by ports already
            self.port_qos(qos)
        elif qos is not None:
            iface["qos"] = self.shared(qos)
        return self.compact(Interface.model_validate(iface))

    def compact(self, model: ModelT) -> ModelT:
        """``model`` rebuilt small (see the class): a new object that reads, compares and
        serialises as ``model``; the models under it compacted too."""
        done = self.done
        values = self.values
        setattr_ = object.__setattr__
        cls = model.__class__
        fields = {}
        for name, value in model.__dict__.items():
            kind = value.__class__
            if name == "field_src":
                if not value:
                    value = NO_SOURCES
                else:
                    value = FieldSources.compact(value)
                    if value.__class__ is FieldSources:
                        if len(value) >= 8:
                            # many keys: a map's entries, which ports often have alike
                            value = values.setdefault((FieldSources, bytes(value)), value)
                        elif self.sources:
                            value = self.sources.get(bytes(value), value)
            elif kind is str:
                if len(value) <= 24 and not _HAS_DIGIT(value):
                    value = values.setdefault(value, value)  # a keyword, a profile's name
            elif kind is int:
                if value > 256:  # an MTU, a speed (CPython shares the small ones itself)
                    value = values.setdefault((int, value), value)
            elif kind is SourceRef:
                known = self.recent.get(value)
                if known is not None:
                    value = known
                else:
                    file = self.files.setdefault(value[0], value[0])
                    if file is not value[0]:
                        value = _new_tuple(SourceRef, (file, value[1]))
                    if len(self.recent) >= RECENT_REFS:
                        self.recent.clear()
                    self.recent[value] = value
            elif kind is dict:
                if not value:
                    value = values.setdefault(dict, value)
                elif any(isinstance(item, BaseModel) for item in value.values()):
                    shared = True
                    for key, item in value.items():
                        if isinstance(item, BaseModel):
                            known = done.get(id(item))
                            if known is None:
                                shared = False
                                value[key] = self.compact(item)
                            else:
                                value[key] = known[1]
                        else:
                            shared = False
                    if shared:  # the same shared models (a profile's queues): one dict
                        value = values.setdefault(
                            (dict, *((key, id(item)) for key, item in value.items())), value)
                else:  # a map of plain values: one object per value
                    value = values.setdefault((dict, *value.items()), value)
            elif kind is list:
                if not value:
                    value = values.setdefault(list, value)
                else:
                    for index, item in enumerate(value):
                        if isinstance(item, BaseModel):
                            known = done.get(id(item))
                            value[index] = known[1] if known else self.compact(item)
            elif kind is set:
                value = values.setdefault((set, *value), value)
            elif isinstance(value, BaseModel):
                known = done.get(id(value))
                value = known[1] if known else self.compact(value)
            fields[name] = value
        new = self.variants.make(cls, fields)
        if new is None:
            new = object.__new__(cls)
            for name, value in fields.items():
                setattr_(new, name, value)
        setattr_(new, "__pydantic_fields_set__", model.__pydantic_fields_set__)
        setattr_(new, "__pydantic_extra__", model.__pydantic_extra__)
        setattr_(new, "__pydantic_private__", model.__pydantic_private__)
        share_fields_set(new)
        return new


FREEZE_BYTES = 4 << 20
"""A running-config at least this large (some 10,000 ports) keeps the plain data of the ports
it has read serialised (``Freezer``)."""

TRIM_PORTS = 8192
"""Frozen ports thawed between two returns of the memory their bytes took (``malloc_trim``):
the bytes are the C library's, which the models built meanwhile (Python's own arenas) would
never reuse, so all of them would otherwise stay in the process until the device is done."""

FREEZE_BATCH = 256
"""Ports read since the last freeze that are frozen together."""


class Freezer:
    """The plain data of a very large device's ports, serialised (``marshal``) once read.

    A port's dicts, sets and source references while the parser reads the rest of the file
    are some 4 KB; as bytes, about 600. Ports are frozen a batch at a time when the
    parser opens a port at column 0 (so no block of theirs is open), thawed when the file
    opens one again, and each thawed in turn when the device is validated (``prepare`` of
    ``validate_device``). Only what this process wrote is ever read back."""

    def __init__(self, interfaces: dict[str, Any]) -> None:
        self.interfaces = interfaces
        self.recent: list[str] = []

    @classmethod
    def for_text(cls, text: str, interfaces: dict[str, Any]) -> Freezer | None:
        """A Freezer for the ports of a text of ``FREEZE_BYTES`` or more, else None."""
        return cls(interfaces) if len(text) >= FREEZE_BYTES else None

    def opened(self, name: str, iface: Any, freeze: bool = True) -> Obj:
        """``iface`` (the entry of port ``name``), thawed; the ports read before it frozen
        when a batch is full (``freeze``: no block of theirs is open)."""
        recent = self.recent
        if freeze and len(recent) >= FREEZE_BATCH:
            interfaces = self.interfaces
            for other in recent:
                if other != name:
                    raw = interfaces[other]
                    if raw.__class__ is dict:
                        # a value marshal cannot write (none today): the dict kept as it is
                        with contextlib.suppress(ValueError):
                            interfaces[other] = marshal.dumps(_marshallable(raw))
            recent.clear()
        recent.append(name)
        if iface.__class__ is bytes:
            iface = self.interfaces[name] = thaw(iface)
        return iface  # type: ignore[no-any-return]


def thaw(entry: Any) -> Any:
    """A port's plain data from ``Freezer``'s bytes (anything else as it is), its source
    references as plain ``(file, line)`` tuples (which the model reads as ``SourceRef``). The
    bytes are only ever ``Freezer.opened``'s own ``marshal.dumps`` of the parser's plain data,
    never input."""
    return marshal.loads(entry) if entry.__class__ is bytes else entry  # noqa: S302


def _marshallable(value: Any) -> Any:
    """Plain data with its ``SourceRef``s as plain tuples, which ``marshal`` takes."""
    kind = value.__class__
    if kind is dict:
        return {key: _marshallable(item) for key, item in value.items()}
    if kind is list:
        return [_marshallable(item) for item in value]
    if kind is SourceRef:
        return tuple(value)
    return value  # str, int, float, bool, None, and sets of them


def validate_device(device: Obj, path: str, prepare: Callable[[Obj], Obj] | None = None,
                    compactor: Compactor | None = None,
                    prepared: Callable[[], None] | None = None) -> Device:
    """The model of a parsed device (plain data). A device of ``COMPACT_PORTS`` or more ports
    is validated port by port, each port's plain data freed as its model is made and what
    ports have alike shared (``Compactor``): the peak then holds the model and one port's
    data, not the whole switch twice. The model is the same either way. ``prepare``: what a
    port's plain data needs (thawed, resolved) before its model is made, port by port
    (``Freezer``). ``compactor``: the one the parser shared models with already (references
    made models as they were made are left as they are). ``prepared``: what the parser adds to
    the device once every port is prepared. A validation error (a parser bug) is a ParseError
    that names the file."""
    interfaces = device["interfaces"]
    where: tuple[str, ...] = ()
    try:
        if prepare is not None or len(interfaces) >= COMPACT_PORTS:
            if compactor is None:
                compactor = Compactor()
            variants = compactor.variants
            for count, (name, iface) in enumerate(interfaces.items(), 1):
                where = ("interfaces", name)
                variants.port_name = name  # the owner of the references made meanwhile
                if prepare is not None:
                    iface = prepare(iface)
                    if iface["name"] == name:
                        iface["name"] = name  # the key's string, not a thawed copy
                    if count % TRIM_PORTS == 0:
                        _release_freed_memory()
                interfaces[name] = compactor.port(iface)
            variants.port_name = None
            where = ()
            if prepared is not None:
                prepared()
            references = device["references"]
            for index, reference in enumerate(references):
                if reference.__class__ is dict:
                    where = ("references", str(index))
                    references[index] = compactor.compact(Reference.model_validate(reference))
            where = ()
            # the ports and references are models already: validated without them, then
            # given their containers as they are (pydantic would copy both, a transient the
            # size of a port table of 100,000 ports at the end of the parse)
            interfaces, references = device["interfaces"], device["references"]
            device["interfaces"], device["references"] = {}, []
            try:
                model = Device.model_validate(device)
            finally:
                device["interfaces"], device["references"] = interfaces, references
            object.__setattr__(model, "interfaces", interfaces)
            object.__setattr__(model, "references", references)
            if prepare is not None:
                _release_freed_memory()
            return model
        return Device.model_validate(device)
    except ValidationError as exc:
        first_error = exc.errors()[0]
        loc = ".".join((*where, *(str(p) for p in first_error["loc"])))
        raise ParseError(path, None, f"cannot build the model ({loc}: "
                         f"{first_error['msg']})") from exc


def _release_freed_memory() -> None:
    """Give back to the system what the thawed ports' plain data took (``Freezer``'s bytes and
    the dicts made from them, about 0.7 KB a port): glibc's allocator keeps freed memory for
    the process, and the lint of a 50 MB configuration would carry 80 MB of it to its peak
    (the report rendered beside the model). Nothing where the C library has no
    ``malloc_trim`` (not glibc)."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError, TypeError):  # TypeError: Windows has no CDLL(None)
        pass
