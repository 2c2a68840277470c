"""Folded state as data: a snapshot written as orjson and read back to an equal value, never pickle.

A game's state is a tree of frozen dataclasses over tuples, frozensets, dicts, read-only
mappings, enums and scalars; the platform's `Match` wraps it the same way. `encode` writes any
such tree without knowing its classes. A JSON scalar is itself and a JSON array is a tuple (the
commonest node of a frozen state); every other node is a JSON object of one tag: a dataclass
instance as its class (named once, with its field names, in a table at the head) and its
fields' values, a frozenset, list, dict (its keys keep their types), read-only mapping, enum or
named tuple by what it is.

`decode` makes only classes the caller allows (by module: the rules, the registered games, the
platform's Match), and only classes already imported: a snapshot can name a class but never
make Python import or run anything. An instance is rebuilt as pickle rebuilds it, fields set
without calling `__init__`. Anything unexpected (an unknown class, fields that changed since
the snapshot was written, bytes that are not a snapshot) is a `SnapshotError`: the caller folds
from the events instead.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import operator
import sys
import types
from collections.abc import Callable
from typing import Any

import orjson

VERSION = 2

# The tags of the nodes that are not scalars or tuples.
_OBJECT, _FROZENSET, _LIST, _DICT, _SET, _MAPPINGPROXY = "o", "f", "l", "d", "s", "m"
_ENUM, _NAMEDTUPLE, _SUBCLASS, _FLOAT, _BYTES, _BIGINT = "e", "n", "x", "r", "b", "i"

# Written as themselves. (float is not here: orjson would write NaN and infinities as null.)
_SCALARS: frozenset[type] = frozenset({str, int, bool, type(None)})
# orjson's range of ints; a state with an int outside it is written again with ints checked.
_INT_MIN, _INT_END = -(2**63), 2**64
_NODES: frozenset[type] = frozenset({list, dict})  # what orjson reads a non-scalar node as


class SnapshotError(ValueError):
    """Not a snapshot these classes can be rebuilt from (or a value that cannot be written as one)."""


def encode(value: Any) -> bytes:
    """`value` as snapshot bytes; SnapshotError for a value outside the supported kinds."""
    try:
        return _Encoder(_SCALARS).document(value)
    except orjson.JSONEncodeError:
        pass  # an int beyond 64 bits, most likely: write it tagged
    try:
        return _Encoder(_SCALARS - {int}).document(value)
    except orjson.JSONEncodeError as e:
        raise SnapshotError(f"cannot write the snapshot: {e}") from None


def decode(blob: bytes, allowed: Callable[[str], bool]) -> Any:
    """The value `encode` wrote, making only classes whose module `allowed` accepts."""
    try:
        doc = orjson.loads(blob)
    except orjson.JSONDecodeError as e:
        raise SnapshotError(f"not JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("v") != VERSION:
        raise SnapshotError("not a snapshot of this version")
    try:
        return _Decoder(doc["classes"], allowed).value(doc["root"])
    except SnapshotError:
        raise
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
        raise SnapshotError(f"malformed snapshot: {type(e).__name__}: {e}") from None


def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


class _Encoder:
    def __init__(self, scalars: frozenset[type]) -> None:
        self.scalars = scalars
        self.classes: list[list[Any]] = []
        self._index: dict[type, int] = {}
        self._fields: dict[type, tuple[int, Callable[[Any], Any]]] = {}

    def _class(self, cls: type, names: list[str] | None = None) -> int:
        i = self._index.get(cls)
        if i is None:
            i = self._index[cls] = len(self.classes)
            self.classes.append([_name(cls), names or []])
        return i

    def values(self, vs: Any) -> Any:
        # Most nodes of a state are ints and strings in tuples: a tuple of scalars is written by
        # orjson as it is (an array), its element types checked in one pass in C.
        scalars = self.scalars
        if scalars.issuperset(map(type, vs)):
            return vs
        return [x if type(x) in scalars else self.value(x) for x in vs]

    def document(self, value: Any) -> bytes:
        return orjson.dumps({"v": VERSION, "classes": self.classes, "root": self.value(value)})

    def value(self, v: Any) -> Any:
        t = type(v)
        if t in self.scalars:
            return v
        if t is int:
            return v if _INT_MIN <= v < _INT_END else {_BIGINT: str(v)}
        if t is tuple:
            return self.values(v)
        if hasattr(t, "__dataclass_fields__") and t is not type:
            return self.instance(v)
        if t is frozenset:
            return {_FROZENSET: list(self.values(v))}
        if t is list:
            return {_LIST: self.values(v)}
        if t is dict:
            return {_DICT: self.items(v)}
        if t is types.MappingProxyType:
            return {_MAPPINGPROXY: self.items(v)}
        if t is set:
            return {_SET: list(self.values(v))}
        if t is float:
            return v if math.isfinite(v) else {_FLOAT: repr(v)}
        if t is bytes:
            return {_BYTES: v.hex()}
        if isinstance(v, enum.Enum):
            return {_ENUM: [self._class(t), self.value(v.value)]}
        if isinstance(v, tuple) and hasattr(t, "_fields"):
            return {_NAMEDTUPLE: [self._class(t), *self.values(v)]}
        for base in (tuple, frozenset, dict, list):
            # A subclass of a plain container (a read-only dict, say): rebuilt as cls(base(...)).
            if isinstance(v, base) and not vars(t).get("__slots__", ()) and not getattr(v, "__dict__", None):
                return {_SUBCLASS: [self._class(t), self.value(base(v))]}
        raise SnapshotError(f"cannot write a {_name(t)} into a snapshot")

    def items(self, d: Any) -> list[Any]:
        out: list[Any] = []
        for k, x in d.items():
            out.append(k if type(k) in self.scalars else self.value(k))
            out.append(x if type(x) in self.scalars else self.value(x))
        return out

    def instance(self, v: Any) -> dict[str, list[Any]]:
        t = type(v)
        known = self._fields.get(t)
        if known is None:
            names = [f.name for f in dataclasses.fields(v)]
            get = operator.attrgetter(*names) if len(names) > 1 else (
                (lambda o, g=operator.attrgetter(*names): (g(o),)) if names else (lambda o: ()))
            known = self._fields[t] = (self._class(t, names), get)
        index, get = known
        return {_OBJECT: [index, *self.values(get(v))]}


class _Decoder:
    def __init__(self, classes: list[list[Any]], allowed: Callable[[str], bool]) -> None:
        self.classes = [self._resolve(name, fields, allowed) for name, fields in classes]
        self._tags: dict[str, Callable[[Any], Any]] = {
            _OBJECT: self.instance,
            _FROZENSET: lambda b: frozenset(self.values(b)),
            _LIST: self.values,
            _DICT: self.items,
            _MAPPINGPROXY: lambda b: types.MappingProxyType(self.items(b)),
            _SET: lambda b: set(self.values(b)),
            _FLOAT: float,
            _BYTES: bytes.fromhex,
            _BIGINT: int,
            _ENUM: lambda b: self._kind(b[0], _ENUM)(self.value(b[1])),
            _NAMEDTUPLE: lambda b: self._kind(b[0], _NAMEDTUPLE)._make(self.values(b[1:])),
            _SUBCLASS: lambda b: self._kind(b[0], _SUBCLASS)(self.value(b[1])),
        }

    @staticmethod
    def _resolve(name: str, fields: list[str], allowed: Callable[[str], bool]) -> tuple[type, tuple[str, ...]]:
        module_name, _, qualname = name.partition(":")
        if not allowed(module_name):
            raise SnapshotError(f"class {name} is not one a snapshot may make")
        module = sys.modules.get(module_name)  # never imported here: only classes in use
        if module is None:
            raise SnapshotError(f"module {module_name} is not loaded")
        obj: Any = module
        for part in qualname.split("."):
            obj = getattr(obj, part, None)
        if not isinstance(obj, type) or obj.__module__ != module_name or obj.__qualname__ != qualname:
            raise SnapshotError(f"no class {name}")
        names = tuple(fields)
        if dataclasses.is_dataclass(obj):
            now = tuple(f.name for f in dataclasses.fields(obj))
            if now != names:
                raise SnapshotError(f"{name} has fields {now}, the snapshot {names}")
        elif names:
            raise SnapshotError(f"{name} is not a dataclass")
        return obj, names

    def values(self, vs: list[Any]) -> list[Any]:
        if _NODES.isdisjoint(map(type, vs)):  # only scalars (checked in one pass in C)
            return vs
        return [x if type(x) is not list and type(x) is not dict else self.value(x) for x in vs]

    def value(self, v: Any) -> Any:
        t = type(v)
        if t is list:
            return tuple(self.values(v))
        if t is not dict:
            return v  # a JSON scalar
        if len(v) != 1:
            raise SnapshotError("a tagged node has one key")
        ((tag, body),) = v.items()
        make = self._tags.get(tag)
        if make is None:
            raise SnapshotError(f"unknown tag {tag!r}")
        return make(body)

    def _kind(self, i: int, tag: str) -> Any:
        cls, _ = self.classes[i]
        ok = {
            _ENUM: issubclass(cls, enum.Enum),
            _NAMEDTUPLE: issubclass(cls, tuple) and hasattr(cls, "_fields"),
            _SUBCLASS: issubclass(cls, tuple | frozenset | dict | list),
        }.get(tag, False)
        if not ok:
            raise SnapshotError(f"{_name(cls)} is not what tag {tag!r} makes")
        return cls

    def items(self, body: list[Any]) -> dict[Any, Any]:
        vs = self.values(body)
        if len(vs) % 2:
            raise SnapshotError("a mapping needs key, value pairs")
        it = iter(vs)
        return dict(zip(it, it, strict=True))

    def instance(self, body: list[Any]) -> Any:
        cls, names = self.classes[body[0]]
        if not hasattr(cls, "__dataclass_fields__"):
            raise SnapshotError(f"{_name(cls)} is not a dataclass")
        if len(body) - 1 != len(names):
            raise SnapshotError(f"{_name(cls)} needs {len(names)} fields, the snapshot has {len(body) - 1}")
        # As pickle does: no __init__ or __post_init__ (a field may be init=False), fields set
        # directly (frozen classes included).
        obj = object.__new__(cls)
        for name, x in zip(names, self.values(body[1:]), strict=True):
            object.__setattr__(obj, name, x)
        return obj
