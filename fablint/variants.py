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
from operator import is_, itemgetter
from typing import Any

from pydantic import BaseModel

from fablint.model import FieldSources, SourceRef
from fablint.trusted import bare

_new = object.__new__
_setattr = object.__setattr__
_getattribute = object.__getattribute__
_new_tuple = tuple.__new__

MAX_VARIANTS = 64
"""Variant classes of one model class in one ``Variants`` (one device): past it, objects whose
shared values are new are plain. Each class costs a few kilobytes, and a device has a handful
(ports alike in all but their own values)."""

FORMED_VARIANTS = 16
"""Variant classes of one model class past which a list that would make a class of its own is
kept as it is (``Variants.make``)."""


def restore(cls: type[BaseModel], values: dict[str, Any], names: set[str]) -> BaseModel:
    """A plain ``cls`` object with ``values`` (a variant's copy and pickled form)."""
    return bare(cls, values, names)


def plain_class(obj: object) -> type:
    """The model class of ``obj``: a variant's model class, any other object's own."""
    cls = obj.__class__
    return getattr(cls, "_variant_of", cls)  # type: ignore[no-any-return]


def _make_class(cls: type[BaseModel], names: tuple[str, ...], shared: dict[str, Any],
                forms: dict[str, tuple[Any, ...]]) -> type[BaseModel]:
    """The variant class of ``cls`` whose objects have ``shared``'s values in common and keep
    their own values in the ``forms`` given (``Variants.form``)."""

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
        "__hash__": cls.__hash__, "_variant_of": cls, "_assigned": None,
    }
    for name, form in forms.items():
        if form[0] == "none":
            shared[name] = None
        elif form[0] != "own":
            namespace[name] = _formed(name, form)
    # ABCMeta.__new__ is type.__new__ and the abc registry: pydantic's own metaclass would
    # build the class anew (fields, schema); the variant takes its model class's as they are
    variant: type[BaseModel] = ABCMeta.__new__(type(cls), cls.__name__, (cls,), namespace)
    for name, value in shared.items():
        type.__setattr__(variant, name, value)
    return variant


def _formed(name: str, form: tuple[Any, ...]) -> property:
    """Field ``name`` of a variant class, read from the smaller form its objects keep it in
    (attribute ``_`` + name); a value assigned later is kept as it is (``_assigned``)."""
    store = "_" + name
    kind = form[0]
    decode: Callable[[Any], Any]
    if kind == "line":
        file = form[1]

        def decode(kept: Any) -> Any:
            return _new_tuple(SourceRef, (file, kept))
    elif kind == "head":
        tail = form[1:]

        def decode(kept: Any) -> Any:
            return [kept, *tail]
    else:  # "prefix"
        prefix = form[1]

        def decode(kept: Any) -> Any:
            return prefix + kept

    def get(self: BaseModel) -> Any:
        assigned = self._assigned  # type: ignore[attr-defined]
        if assigned is not None and name in assigned:
            return assigned[name]
        return decode(_getattribute(self, store))

    def set_(self: BaseModel, value: Any) -> None:
        _setattr(self, "_assigned", {**(self._assigned or {}), name: value})  # type: ignore[attr-defined]

    return property(get, set_)


class Variants:
    """Makes the variants of one device's objects (``make``), one class per set of shared
    values and forms of the own ones."""

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

    FORMS: dict[str, str] = {"src": "line", "ip_addresses": "head", "policies": "head",
                             "owner": "prefix"}
    """Own fields kept in a smaller form where their value allows (``forms``)."""

    PREFIX = "interface "
    """A reference's owner before the name of the port being validated (``port_name``)."""

    def __init__(self) -> None:
        self.classes: dict[Any, type[BaseModel]] = {}
        self.made: dict[type, int] = {}
        self.specs: dict[type, tuple[tuple[tuple[str, str, str], ...], tuple[str, ...],
                                     Callable[[dict[str, Any]], tuple[Any, ...]]] | None] = {}
        """Model class -> ``spec`` (None: a class without variants)."""
        self.last: dict[type, tuple[type[BaseModel], tuple[Any, ...], tuple[Any, ...],
                                    tuple[str, ...]]] = {}
        """Model class -> the variant class of the object made last, the shape of its own
        values, its shared values and the forms it keeps its own in (``make``)."""
        self.port_name: str | None = None
        """The name of the port being validated (the port table's key, the string its model
        holds): the owner of the references made meanwhile, which keep it instead of a
        string of their own."""

    def spec(self, cls: type[BaseModel], values: dict[str, Any]) -> tuple[
            tuple[tuple[str, str, str], ...], tuple[str, ...],
            Callable[[dict[str, Any]], tuple[Any, ...]]] | None:
        """What ``make`` needs of ``cls``: its own fields that may take a smaller form (with
        the form), the others, and what reads the shared values from an object's values."""
        own = self.OWN.get(cls.__name__)
        if own is None or cls.__module__ != "fablint.model":
            found = None
        else:
            shared = [name for name in values if name not in own]
            found = (tuple((name, self.FORMS[name], "_" + name)
                           for name in own if name in self.FORMS),
                     tuple(name for name in own if name not in self.FORMS),
                     itemgetter(*shared) if len(shared) > 1  # a tuple of them, always
                     else lambda values, shared=shared: tuple(values[n] for n in shared))
        self.specs[cls] = found
        return found

    def forms(self, formed: tuple[tuple[str, str, str], ...], values: dict[str, Any]
              ) -> tuple[list[tuple[Any, ...]], tuple[Any, ...]]:
        """How an object keeps its own values of the fields that may take a smaller form,
        and the shape that its class has: ``none`` (None, in the class); ``line`` (a source
        reference: its line, the file in the class); ``head`` (a list: its first item, the
        others in the class: a port's own policy binding before the system's, its one
        address); ``prefix`` (``interface NAME`` of the port being validated: the port's
        name); ``own`` (as it is). The shape names the other items of a list by identity."""
        forms: list[tuple[Any, ...]] = []
        shape: list[tuple[Any, ...]] = []
        for name, want, _ in formed:
            value = values[name]
            form = _OWN
            if value is None:
                form = _NONE
            elif want == "line":
                if value.__class__ is SourceRef and value[1].__class__ is int:
                    form = ("line", value[0])
            elif want == "head":
                if value.__class__ is list and value:
                    form = ("head", *value[1:])
                    forms.append(form)
                    shape.append(("head", *map(id, value[1:])))
                    continue
            elif want == "prefix":
                port = self.port_name
                if port is not None and value.__class__ is str and value == self.PREFIX + port:
                    form = _PREFIX
            forms.append(form)
            shape.append(form)
        return forms, tuple(shape)

    def make(self, cls: type[BaseModel], values: dict[str, Any]) -> BaseModel | None:
        """A variant of ``cls`` with ``values`` (every field, in the model's order, and
        compacted: equal containers are one object), or None where ``cls`` has none or its
        variants are too many."""
        spec = self.specs.get(cls, False)
        if spec is False:
            spec = self.spec(cls, values)
        if spec is None:
            return None
        formed, plain, shared_of = spec  # type: ignore[misc]
        forms, shape = self.forms(formed, values)
        shared = shared_of(values)
        last = self.last.get(cls)
        # the ports of a chassis come one after another with the same shared values, mostly
        # the very same objects: then the class of the object before, at once
        if last is not None and last[1] == shape and all(map(is_, shared, last[2])):
            variant, kinds = last[0], last[3]
        else:
            try:
                found = self.variant(cls, values, formed, forms, shape)
            except TypeError:  # a value that cannot be a key: the object stays plain
                return None
            if found is None:
                return None
            variant, kinds = found
            self.last[cls] = (variant, shape, shared, kinds)
        obj = _new(variant)
        for name in plain:
            _setattr(obj, name, values[name])
        for (name, _, store), kind in zip(formed, kinds, strict=True):
            if kind == "line":
                _setattr(obj, store, values[name][1])
            elif kind == "own":
                _setattr(obj, name, values[name])
            elif kind == "head":
                _setattr(obj, store, values[name][0])
            elif kind == "prefix":
                _setattr(obj, store, self.port_name)
        return obj

    def variant(self, cls: type[BaseModel], values: dict[str, Any],
                formed: tuple[tuple[str, str, str], ...], forms: list[tuple[Any, ...]],
                shape: tuple[Any, ...]) -> tuple[type[BaseModel], tuple[str, ...]] | None:
        """The variant class of an object of ``cls`` with ``values`` and the own values of
        its ``formed`` fields in ``forms`` (made if new), with the forms it keeps them in;
        None past ``MAX_VARIANTS``."""
        names = set(self.OWN[cls.__name__])
        made = self.made.get(cls, 0)
        shared = tuple([(name, _value_key(value)) for name, value in values.items()
                        if name not in names])
        key = (cls, shared, shape)
        variant = self.classes.get(key)
        if variant is None and made >= FORMED_VARIANTS and any(f[0] == "head" for f in forms):
            # lists whose other items are each object's own too (a port's two addresses):
            # kept as they are, rather than a class an object
            forms = [_OWN if form[0] == "head" else form for form in forms]
            key = (cls, shared, tuple(forms))
            variant = self.classes.get(key)
        if variant is None:
            if made >= MAX_VARIANTS:
                return None
            self.made[cls] = made + 1
            variant = self.classes[key] = _make_class(
                cls, tuple(values),
                {name: value for name, value in values.items() if name not in names},
                {name: form for (name, _, _), form in zip(formed, forms, strict=True)})
        return variant, tuple([form[0] for form in forms])


_OWN = ("own",)
_NONE = ("none",)
_PREFIX = ("prefix", Variants.PREFIX)


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
