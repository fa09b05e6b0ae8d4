"""Model objects from a parser's plain data, without building pydantic's validators, when
validation could only give every value back as it is.

Building the validators of a switch's ~30 model classes (pydantic's schema generation) is most
of what a one-file lint costs beyond imports: a pre-commit hook pays it on every commit for a
single validation. ``build(cls, data)`` makes the object ``cls.model_validate(data)`` makes
when every value already has its field's type exactly (a ``str`` for ``str``, an ``int`` for
``int``, a dict of the nested model's fields, a model object, ...): new containers, defaults
and default factories, field order and the set of fields given, as validation makes them
(``tests/test_plain_build.py`` compares the two). Anything else (a value validation would
convert or refuse, a missing required field, an unknown key of a class that forbids them, a
class with validators, constraints, aliases or private attributes) raises ``NotPlain``, and
the caller validates the same data instead, which gives the same object or the same error.
So nothing is accepted that validation would refuse or change.
"""

from __future__ import annotations

import builtins
import copy
import re
import sys
import types
from collections.abc import Callable
from functools import partial
from typing import Any, ForwardRef, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from fablint.model import FieldSources, SourceRef, _SourcesSchema
from fablint.trusted import bare

M = TypeVar("M", bound=BaseModel)
Convert = Callable[[Any], Any]



class NotPlain(Exception):
    """A value (or a class) that only validation can turn into the model: validate instead."""


_CONFIG = {"defer_build", "extra", "frozen", "title"}
"""Model settings that change nothing in what validation makes of exactly typed values."""


class _Plan:
    """How to build objects of one class: its fields in order, each with its conversion and
    its default."""

    __slots__ = ("cls", "fields", "forbid", "names")

    def __init__(self, cls: type[BaseModel]) -> None:
        config = cls.model_config
        decorators = cls.__pydantic_decorators__
        if (not set(config) <= _CONFIG or config.get("extra") not in (None, "ignore", "forbid")
                or decorators.validators or decorators.field_validators
                or decorators.root_validators or decorators.model_validators
                or cls.__private_attributes__ or cls.__pydantic_post_init__
                or "__get_pydantic_core_schema__" in vars(cls)):
            raise NotPlain(f"{cls.__name__} is not built without validation")
        self.cls = cls
        self.forbid = config.get("extra") == "forbid"
        self.fields: list[tuple[str, Convert, Any, Callable[[], Any] | None]] = []
        """Name, conversion, default, factory (a default validation copies has one too)."""
        for name, info in cls.__pydantic_fields__.items():
            if (info.alias is not None or info.validation_alias is not None
                    or info.validate_default or info.discriminator is not None):
                raise NotPlain(f"{cls.__name__}.{name} is not built without validation")
            if info.metadata == [_SourcesSchema]:
                convert: Convert = _sources
            elif info.metadata:
                raise NotPlain(f"{cls.__name__}.{name} has constraints")
            else:
                convert = _converter(info.annotation, cls.__module__)
            factory = info.default_factory
            if factory is not None:
                factory = _factory(factory)
            elif not _hashable(info.default):  # validation gives each object its own copy
                factory = partial(copy.deepcopy, info.default)
            self.fields.append((name, convert, info.default, factory))
        self.names = frozenset(cls.__pydantic_fields__)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _factory(factory: Callable[..., Any]) -> Callable[[], Any]:
    """A default factory; a model class as one (``Field(default_factory=Pfc)``) is built here
    with no values, as its own validation would make it (without building its validator)."""
    if isinstance(factory, type) and issubclass(factory, BaseModel):
        return lambda: build(factory, {})
    return factory


_PLANS: dict[type[BaseModel], _Plan] = {}


def build(cls: type[M], data: Any) -> M:
    """``cls.model_validate(data)`` for exactly typed plain data (see the module); NotPlain
    when validation has to decide."""
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _Plan(cls)
    if data.__class__ is not dict:
        raise NotPlain(cls.__name__)
    names = plan.names
    if plan.forbid and not data.keys() <= names:
        raise NotPlain(f"{cls.__name__}: unknown field")
    values = {}
    for name, convert, default, factory in plan.fields:
        if name in data:
            values[name] = convert(data[name])
        elif factory is not None:
            values[name] = factory()
        elif default is PydanticUndefined:
            raise NotPlain(f"{cls.__name__}.{name}: field required")
        else:
            values[name] = default
    _made[0] += 1
    return bare(cls, values,
                set(data) if plan.forbid or data.keys() <= names else set(data.keys() & names))


def _sources(value: Any) -> Any:
    """``field_src``: a dict of names to SourceRefs (a new dict), or FieldSources as it is."""
    if value.__class__ is dict:
        for key, ref in value.items():
            if key.__class__ is not str or ref.__class__ is not SourceRef:
                raise NotPlain("field_src")
        return dict(value)
    if value.__class__ is FieldSources:
        return value
    raise NotPlain("field_src")


def _exactly(kind: type) -> Convert:
    def convert(value: Any) -> Any:
        if value.__class__ is kind:
            return value
        raise NotPlain(kind.__name__)
    return convert


def _any(value: Any) -> Any:
    return value


def _none(value: Any) -> Any:
    if value is None:
        return None
    raise NotPlain("None")


_CONVERTERS: dict[Any, Convert] = {Any: _any, type(None): _none, None: _none}


def _converter(annotation: Any, module: str) -> Convert:
    """The conversion of a field's annotation (the forms fablint's models use)."""
    if isinstance(annotation, ForwardRef):
        annotation = _resolve(annotation.__forward_arg__, module)
    known = _CONVERTERS.get(annotation)
    if known is not None:
        return known
    if annotation in (str, int, float, bool, SourceRef):
        return _exactly(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model(annotation)
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is Literal:
        allowed = {(arg.__class__, arg) for arg in args}

        def literal(value: Any) -> Any:
            try:
                if (value.__class__, value) in allowed:
                    return value
            except TypeError:  # unhashable: not one of the values
                pass
            raise NotPlain("literal")
        return literal
    if origin in (Union, types.UnionType):
        others = [arg for arg in args if arg is not type(None)]
        if len(others) != 1 or len(args) != 2:
            raise NotPlain(f"union {annotation}")
        other = _converter(others[0], module)
        return lambda value: None if value is None else other(value)
    if origin is list and len(args) == 1:
        item = _converter(args[0], module)

        def list_(value: Any) -> Any:
            if value.__class__ is list:
                return [item(x) for x in value]
            raise NotPlain("list")
        return list_
    if origin is set and len(args) == 1:
        member = _converter(args[0], module)

        def set_(value: Any) -> Any:
            if value.__class__ is set:
                return {member(x) for x in value}
            raise NotPlain("set")
        return set_
    if origin is dict and len(args) == 2:
        key, item = (_converter(arg, module) for arg in args)

        def dict_(value: Any) -> Any:
            if value.__class__ is dict:
                return {key(k): item(v) for k, v in value.items()}
            raise NotPlain("dict")
        return dict_
    if origin is tuple and args and Ellipsis not in args:
        parts = [_converter(arg, module) for arg in args]

        def tuple_(value: Any) -> Any:
            # a list too: validation makes the tuple of its items (lax mode)
            if (value.__class__ is tuple or value.__class__ is list) and len(value) == len(parts):
                return tuple([part(x) for part, x in zip(parts, value, strict=True)])
            raise NotPlain("tuple")
        return tuple_
    raise NotPlain(f"annotation {annotation!r}")


def _model(cls: type[BaseModel]) -> Convert:
    if cls.model_config.get("revalidate_instances", "never") != "never":
        raise NotPlain(f"{cls.__name__} revalidates instances")

    def model(value: Any) -> Any:
        if value.__class__ is dict:
            return build(cls, value)
        if isinstance(value, cls):  # validation keeps a model object as it is
            return value
        raise NotPlain(cls.__name__)
    return model


_TOKENS = re.compile(r"\s*([A-Za-z_][\w.]*|[\[\],|])")


def _resolve(text: str, module: str) -> Any:
    """The type a forward reference (``dict[int, BufferAssignment]``, ``ClassMaps | None``)
    names in ``module``: read by this small parser of names, subscripts and ``|``, never
    evaluated."""
    tokens = _TOKENS.findall(text)
    if "".join(tokens) != "".join(text.split()):
        raise NotPlain(f"forward reference {text!r}")
    space = vars(sys.modules[module])
    position = 0

    def union() -> Any:
        nonlocal position
        found = [single()]
        while position < len(tokens) and tokens[position] == "|":
            position += 1
            found.append(single())
        return found[0] if len(found) == 1 else Union[tuple(found)]  # noqa: UP007

    def single() -> Any:
        nonlocal position
        name = tokens[position]
        position += 1
        kind = type(None) if name == "None" else space.get(name, getattr(builtins, name, None))
        if kind is None:
            raise NotPlain(f"forward reference {text!r}")
        if position < len(tokens) and tokens[position] == "[":
            position += 1
            args = [union()]
            while tokens[position] == ",":
                position += 1
                args.append(union())
            if tokens[position] != "]":
                raise NotPlain(f"forward reference {text!r}")
            position += 1
            return kind[tuple(args)] if len(args) > 1 else kind[args[0]]
        return kind

    found = union()
    if position != len(tokens):
        raise NotPlain(f"forward reference {text!r}")
    return found


PLAIN_BUDGET = 2_000
"""Objects a process builds without validation before it lets validation build them: this
module makes an object some 2 us slower than a built validator does, and building a
switch's validators costs about as much as 10,000 objects made here. A one-file lint (a
fabric switch is 100-300 objects) stays under it; a serial run of more than a handful of
switches pays for the validators early (64 switches: as fast as before), and forked workers
have them already."""

_made = [0]


def made(cls: type[M], data: Any, validate: Callable[[Any], M] | None = None) -> M:
    """``cls.model_validate(data)`` (or ``validate(data)``): without building the validator
    while ``build`` can make the object and the budget allows, else by validation (the same
    object, or the same error). Once the class's validator is built, always by validation."""
    if not cls.__pydantic_complete__ and _made[0] < PLAIN_BUDGET:
        try:
            return build(cls, data)
        except NotPlain:
            pass
    return cls.model_validate(data) if validate is None else validate(data)
