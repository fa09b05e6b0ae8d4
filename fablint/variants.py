"""Model objects of a very large device that keep only the values that are their own.

The ports of a chassis differ from one another in a few values (their name, description,
address, the lines that set them) and are alike in all the rest. Every model object costs
about 80 bytes plus 8 a field, whatever its values, and a port of a large NX-OS chassis is six
of them. A *variant* keeps the values that ports have alike in its class (one class per set of
such values, made once: ``Variants``) and only its own in the object: attribute reads find the
object's own values first and the class's next, as Python always looks them up, at the same
speed.

A variant is an instance of a subclass of its model class that reads, compares, dumps,
validates into a field, copies and pickles as the plain object with the same values: its
``__dict__`` is every field in the model's order (what pydantic and ``==`` read), a copy or a
pickled copy is a plain object, and an assignment to a field gives the object its own value.
Only ``parsers.build.Compactor`` makes them, for the models of a large device, which are built
once and read.
"""

from __future__ import annotations

import copy
from abc import ABCMeta
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from fablint.model import FieldSources

_new = object.__new__
_setattr = object.__setattr__
_getattribute = object.__getattribute__

MAX_VARIANTS = 64
"""Variant classes of one model class in one ``Variants`` (one device): past it, objects whose
shared values are new are plain. Each class costs a few kilobytes, and a device has a handful
(ports alike in all but their own values)."""


def restore(cls: type[BaseModel], values: dict[str, Any], names: set[str]) -> BaseModel:
    """A plain ``cls`` object with ``values`` (a variant's copy and pickled form)."""
    obj = _new(cls)
    _setattr(obj, "__dict__", values)
    _setattr(obj, "__pydantic_fields_set__", names)
    _setattr(obj, "__pydantic_extra__", None)
    _setattr(obj, "__pydantic_private__", None)
    return obj


def plain_class(obj: object) -> type:
    """The model class of ``obj``: a variant's model class, any other object's own."""
    cls = obj.__class__
    return getattr(cls, "_variant_of", cls)  # type: ignore[no-any-return]


def _make_class(cls: type[BaseModel], names: tuple[str, ...],
                shared: dict[str, Any]) -> type[BaseModel]:
    """The variant class of ``cls`` whose objects have ``shared``'s values in common."""

    def fields(self: BaseModel, names: tuple[str, ...] = names) -> dict[str, Any]:
        return {name: _getattribute(self, name) for name in names}

    def reduce(self: BaseModel) -> tuple[Callable[..., BaseModel], tuple[Any, ...]]:
        return (restore, (cls, fields(self), self.__pydantic_fields_set__))

    def copy_(self: BaseModel) -> BaseModel:
        return restore(cls, fields(self), set(self.__pydantic_fields_set__))

    def deepcopy_(self: BaseModel, memo: dict[int, Any] | None = None) -> BaseModel:
        return restore(cls, copy.deepcopy(fields(self), memo),
                       set(self.__pydantic_fields_set__))

    def setattr_(self: BaseModel, name: str, value: Any) -> None:
        if name not in names:
            cls.__setattr__(self, name, value)  # not a field: pydantic's own error
            return
        _setattr(self, "__pydantic_fields_set__", {*self.__pydantic_fields_set__, name})
        _setattr(self, name, value)  # the object's own value, before the class's

    def eq(self: BaseModel, other: object) -> bool:
        if not isinstance(other, BaseModel):
            return NotImplemented
        return (plain_class(other) is cls and fields(self) == other.__dict__
                and self.__pydantic_private__ == other.__pydantic_private__
                and self.__pydantic_extra__ == other.__pydantic_extra__)

    namespace = {
        "__slots__": (), "__module__": cls.__module__, "__qualname__": cls.__qualname__,
        "__dict__": property(fields), "__reduce__": reduce, "__copy__": copy_,
        "__deepcopy__": deepcopy_, "__setattr__": setattr_, "__eq__": eq,
        "__hash__": cls.__hash__, "_variant_of": cls,
    }
    # ABCMeta.__new__ is type.__new__ and the abc registry: pydantic's own metaclass would
    # build the class anew (fields, schema); the variant takes its model class's as they are
    variant: type[BaseModel] = ABCMeta.__new__(type(cls), cls.__name__, (cls,), namespace)
    for name, value in shared.items():
        type.__setattr__(variant, name, value)
    return variant


class Variants:
    """Makes the variants of one device's objects (``make``), one class per set of shared
    values."""

    OWN: dict[str, tuple[str, ...]] = {
        "Interface": ("src", "field_src", "name", "description", "ip_addresses", "qos"),
        "QosSettings": ("src", "field_src", "pfc", "maps", "policies"),
        "Pfc": ("src", "field_src", "watchdog"),
        "ClassMaps": ("src", "field_src"),
        "PolicyBinding": ("src", "field_src"),
        "Reference": ("src", "field_src", "owner"),
    }
    """The fields whose values are each object's own, by model class (the fields that differ
    from port to port); ``fablint.model`` classes only."""

    def __init__(self) -> None:
        self.classes: dict[Any, type[BaseModel] | None] = {}
        self.made: dict[type, int] = {}

    def make(self, cls: type[BaseModel], values: dict[str, Any]) -> BaseModel | None:
        """A variant of ``cls`` with ``values`` (every field, in the model's order, and
        compacted: equal containers are one object), or None where ``cls`` has none or its
        variants are too many."""
        own = self.OWN.get(cls.__name__)
        if own is None or cls.__module__ != "fablint.model":
            return None
        try:
            key = (cls, *[(name, _value_key(value)) for name, value in values.items()
                          if name not in own])
            variant = self.classes.get(key)
        except TypeError:  # a value that cannot be a key: the object stays plain
            return None
        if variant is None:
            if key in self.classes or self.made.get(cls, 0) >= MAX_VARIANTS:
                return None
            self.made[cls] = self.made.get(cls, 0) + 1
            shared = {name: value for name, value in values.items() if name not in own}
            variant = self.classes[key] = _make_class(cls, tuple(values), shared)
        obj = _new(variant)
        for name in own:
            _setattr(obj, name, values[name])
        return obj


def _value_key(value: Any) -> Any:
    """What two values share a variant class by: containers and models by identity (the
    compacted ones are one object per value, and a class keeps those it holds alive), other
    values by class and value (``True`` is not ``1``)."""
    kind = value.__class__
    if kind is dict or kind is list or kind is set or isinstance(value, BaseModel):
        return (id, id(value))
    if kind is FieldSources:
        return (FieldSources, bytes(value))
    return (kind, value)
