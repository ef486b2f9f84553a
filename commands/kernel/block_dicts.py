"""Block Kit objects to the dicts Slack receives: what ``JsonObject.to_dict`` returns,
validated as it validates, for a fraction of its CPU.

``slack_sdk``'s ``to_dict`` finds an object's validators by listing ``dir(self)`` and
reading every attribute (properties included) on every call, about 25 µs per object, and
then calls ``to_dict`` on each child, which does the same.  A campaigns page is a table of
rich-text cells, buttons and texts, some 150 objects: 4.5 ms of CPU per reply, the largest
single cost of ``/callops campaigns`` (``benchmarks/ack.py``).  Here each class's
validators are found once and then run on every object, in the same (alphabetical) order,
raising the same ``SlackObjectFormationError``; the dict is built as
``get_non_null_attributes`` builds it.  A class that writes its own ``to_dict`` (options,
confirmations, rich-text styles, ...) keeps it, exactly as ``slack_sdk`` calls it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.basic_objects import EMPTY_ALLOWED_TYPE_AND_PROPERTY_LIST, JsonObject

_EMPTY_ALLOWED = frozenset(
    (entry["type"], entry["property"]) for entry in EMPTY_ALLOWED_TYPE_AND_PROPERTY_LIST
)
_validators: dict[type, tuple[str, ...]] = {}


def _validator_names(cls: type) -> tuple[str, ...]:
    """The names of ``cls``'s ``@JsonValidator`` methods, sorted as ``dir`` sorts them."""
    names = _validators.get(cls)
    if names is None:
        names = tuple(
            name
            for name in dir(cls)
            if not name.startswith("__")
            and callable(member := getattr(cls, name, None))
            and hasattr(member, "validator")
        )
        _validators[cls] = names
    return names


@dataclass(frozen=True)
class _Shape:
    """What ``to_dict`` looks up on every call, looked up once per class: the validators,
    the attribute names in sorted order, whether attributes are read the usual way, and
    (when every attribute is a plain instance attribute, as Block Kit's ``__init__``
    methods set them) one getter that reads them all from the instance's ``__dict__``."""

    validators: tuple[str, ...]
    keys: tuple[str, ...]
    plain_reads: bool
    read_all: Callable[[dict[str, Any]], tuple[Any, ...] | None] | None = None


_MISSING = object()


def _reader(
    obj: JsonObject, keys: tuple[str, ...]
) -> Callable[[dict[str, Any]], tuple[Any, ...] | None] | None:
    """A function reading ``keys`` from an instance's ``__dict__`` in one pass, as
    ``getattr(obj, key, None)`` reads them, or None when a descriptor on the class (a
    property) answers for one of them.  A name the class also defines (``type``) is read
    from the instance only when the instance has it; otherwise the reader answers None
    and the attributes are read one by one.  A name neither has (``ButtonElement``'s
    ``alt_text``) is None either way."""
    cls = type(obj)
    on_class: list[str] = []
    for key in keys:
        static = inspect.getattr_static(cls, key, _MISSING)
        if static is _MISSING:
            continue
        if hasattr(type(static), "__set__") or hasattr(type(static), "__delete__"):
            return None
        on_class.append(key)
    needed = frozenset(on_class)

    def read(attributes: dict[str, Any]) -> tuple[Any, ...] | None:
        if attributes.keys() >= needed:
            return tuple(map(attributes.get, keys))
        return None

    return read


_shapes: dict[type, _Shape] = {}
_SCALARS = (str, int, float, bool)
_PLAIN = frozenset((dict, *_SCALARS))
"""Values ``to_dict_compatible`` leaves as they are: answered without a call."""


def _shape(obj: JsonObject) -> _Shape:
    cls = type(obj)
    shape = _shapes.get(cls)
    if shape is None:
        # ``attributes`` is a property, but every Block Kit class returns a constant set
        # (its own names joined to its parents'), so the first object's is the class's.
        keys = tuple(sorted(obj.attributes))
        plain_reads = cls.get_object_attribute is JsonObject.get_object_attribute
        shape = _Shape(
            validators=_validator_names(cls),
            keys=keys,
            plain_reads=plain_reads,
            read_all=_reader(obj, keys) if plain_reads else None,
        )
        _shapes[cls] = shape
    return shape


def _own_dict(obj: JsonObject) -> dict[str, Any]:
    """``obj.to_dict()`` for a class that keeps ``JsonObject``'s: validate, then every
    non-empty attribute, converted, in sorted order."""
    shape = _shape(obj)
    for name in shape.validators:
        getattr(obj, name)()
    out: dict[str, Any] = {}
    for key, value in zip(shape.keys, _values(obj, shape), strict=True):
        if value is None:
            continue
        if type(value) in _SCALARS:
            # A string, number or flag is itself in the dict; only "" can be left out.
            if value != "" or (getattr(obj, "type", None), key) in _EMPTY_ALLOWED:
                out[key] = value
            continue
        if (
            hasattr(value, "__len__")
            and not len(value)
            and (getattr(obj, "type", None), key) not in _EMPTY_ALLOWED
        ):
            continue
        out[key] = _compatible(value)
    return out


def _values(obj: JsonObject, shape: _Shape) -> tuple[Any, ...]:
    """Every attribute of ``obj``, in ``shape.keys``'s order, as ``to_dict`` reads them."""
    if shape.read_all is not None:
        values = shape.read_all(vars(obj))
        if values is not None:
            return values
    if shape.plain_reads:
        return tuple(getattr(obj, key, None) for key in shape.keys)
    return tuple(obj.get_object_attribute(key) for key in shape.keys)


def _compatible(value: Any) -> Any:
    """``to_dict_compatible`` of ``slack_sdk``: lists and tuples become lists, objects
    with a ``to_dict`` their dict, anything else stays as it is.  A plain dict or scalar
    is answered first, before the checks against ``JsonObject`` (an abstract class, so
    each check is slow): a table's cells are dicts already, a hundred per page."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if isinstance(value, (list, tuple)):
        return [v if type(v) in _PLAIN else _compatible(v) for v in value]
    if isinstance(value, JsonObject) and type(value).to_dict is JsonObject.to_dict:
        return _own_dict(value)
    to_dict = getattr(value, "to_dict", None)
    if to_dict is not None and callable(to_dict):
        return {k: _compatible(v) for k, v in to_dict().items()}
    return value


def block_dict(obj: JsonObject) -> dict[str, Any]:
    """``obj.to_dict()``, the same dict and the same errors, cheaper."""
    if type(obj).to_dict is JsonObject.to_dict:
        return _own_dict(obj)
    return obj.to_dict()
