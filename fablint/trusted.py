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

    def __call__(self, values: dict[str, Any], _new: Any = _new, _setattr: Any = _setattr) -> M:
        for name in self.required:
            if name not in values:
                raise ValueError(f"{self.cls.__name__}.{name}: field required")
        data = {**self.template, **values}  # (the fields' order: every key is in the template)
        for name, factory in self.factories:
            if name not in values:
                data[name] = factory()
        obj = _new(self.cls)
        _setattr(obj, "__dict__", data)
        every = self.every
        _setattr(obj, "__pydantic_fields_set__",
                 every if len(values) == len(every) and values.keys() == every else set(values))
        _setattr(obj, "__pydantic_extra__", None)
        _setattr(obj, "__pydantic_private__", None)
        return obj


def replaced(obj: M, update: dict[str, Any]) -> M:
    """``obj.model_copy(update=update)`` for a model without extra fields or private
    attributes (others take ``model_copy`` itself): a shallow copy with ``update``'s values."""
    if obj.__pydantic_extra__ is not None or obj.__pydantic_private__ is not None:
        return obj.model_copy(update=update)
    copy = _new(type(obj))
    _setattr(copy, "__dict__", {**obj.__dict__, **update})
    _setattr(copy, "__pydantic_fields_set__", {*obj.__pydantic_fields_set__, *update})
    _setattr(copy, "__pydantic_extra__", None)
    _setattr(copy, "__pydantic_private__", None)
    return copy
