"""Model objects from values fablint made itself, without pydantic validation.

A 2,000-switch InfiniBand dump yields 100,000 ports, 50,000 links and as many cables; each goes
through several stages (parse, naming, joining) and validating or ``model_copy``-ing every one
of them cost more than the work itself. These helpers build the very object validation or
``model_copy`` makes from values of the right types (field order, defaults, the set of fields
given); tests compare the two (tests/test_ib_construct.py, tests/test_trusted.py).
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_new = object.__new__
_setattr = object.__setattr__


def _slot_setter(name: str) -> Any:
    """``object.__setattr__(obj, name, value)`` as ``setter(obj, value)``: the setter of the
    slot pydantic's BaseModel declares for ``name`` (no look-up of the name on each call)."""
    setter = getattr(BaseModel.__dict__.get(name), "__set__", None)
    if setter is None:  # (another pydantic: the plain way)
        return lambda obj, value: _setattr(obj, name, value)
    return setter


_set_dict, _set_fields, _set_extra, _set_private = map(_slot_setter, (
    "__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"))


def bare(cls: type[M], values: dict[str, Any], given: set[str]) -> M:
    """The object validation makes of ``values`` (every field in order, each of its type),
    with ``given`` as its ``model_fields_set``; ``values`` becomes its ``__dict__``. The one
    place fablint builds a model object without pydantic (callers: ``Maker``, the parsers'
    and the topology's hot loops, the caches, ``fablint.variants``)."""
    obj = _new(cls)
    _set_dict(obj, values)
    _set_fields(obj, given)
    _set_extra(obj, None)
    _set_private(obj, None)
    return obj  # type: ignore[no-any-return]


class Maker(Generic[M]):
    """``Maker(Cls)(values)``: what ``Cls.model_validate(values)`` makes of a dict whose values
    already have their fields' types (nested models as model objects). ``required=False``
    spares the required-field check where the builder always gives them (objects a switch
    has hundreds of)."""

    def __init__(self, cls: type[M], required: bool = True) -> None:
        fields = cls.__pydantic_fields__
        self.cls = cls
        self.template = {name: info.default for name, info in fields.items()}
        """Every field in order with its default (PydanticUndefined where there is none)."""
        self.factories = [(name, info.default_factory) for name, info in fields.items()
                          if info.default_factory is not None]
        self.required = [name for name, info in fields.items()
                         if required and info.is_required()]
        self.every: set[str] = set(fields)
        """Every field's name: the one ``model_fields_set`` of all the objects given every
        field. pydantic gives each object a set of its own (216 to 728 bytes: 110 MB of the
        cables, port ends and end points of a 1,024-switch fabric), yet it only ever adds a
        name to it (an assignment), and this one holds every name already."""

    def __call__(self, values: dict[str, Any]) -> M:
        for name in self.required:
            if name not in values:
                raise ValueError(f"{self.cls.__name__}.{name}: field required")
        data = {**self.template, **values}  # (the fields' order: every key is in the template)
        for name, factory in self.factories:
            if name not in values:
                data[name] = factory()
        every = self.every
        return bare(self.cls, data, every if len(values) == len(every)
                    and values.keys() == every else set(values))


def replaced(obj: M, update: dict[str, Any]) -> M:
    """``obj.model_copy(update=update)`` for a model without extra fields or private
    attributes (others take ``model_copy`` itself): a shallow copy with ``update``'s values."""
    if obj.__pydantic_extra__ is not None or obj.__pydantic_private__ is not None:
        return obj.model_copy(update=update)
    return bare(type(obj), {**obj.__dict__, **update}, {*obj.__pydantic_fields_set__, *update})
