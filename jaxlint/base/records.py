"""jaxlint's plain records as JSON: what the cache stores instead of pickles.

Why: a cache lives in the linted project, and a pickle runs code while it loads. JSON
cannot; decoding builds only jaxlint's own dataclasses (by an allow-list of modules),
checks each one's field count, and rejects anything else, so a damaged or planted entry
is a miss, never code that runs.

Encoding: JSON scalars and lists stand for themselves; every other value is a one-key
object: ``{"T": [...]}`` tuple, ``{"S": [...]}`` set, ``{"F": [...]}`` frozenset,
``{"D": [k, v, k, v, ...]}`` dict, ``{"C": "module:Class", "v": [field values]}`` a
dataclass, ``{"U": 0}`` the ``UNKNOWN`` literal, ``{"E": 0}`` Ellipsis, ``{"J": [re, im]}``
a complex number. Values of other types cannot be encoded (``RecordError``): the entry
is simply not cached.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from typing import Any

# modules whose dataclasses may be rebuilt from a cache entry (jaxlint's own, no rule code)
TRUSTED_MODULES = frozenset(
    {
        "jaxlint.base.types",
        "jaxlint.model.facts",
        "jaxlint.plan.outline",
        "jaxlint.plan.slicing",
        "jaxlint.lint.suppress",
    }
)


class RecordError(ValueError):
    """A value that is not one of jaxlint's plain records (or a damaged encoding)."""


def dumps(value: Any) -> bytes:
    plain = _encode(value)
    try:
        return json.dumps(plain, separators=(",", ":"), ensure_ascii=False, allow_nan=True).encode()
    except UnicodeEncodeError:  # a lone surrogate (the literal "\ud800" in a file): escaped, it round-trips
        return json.dumps(plain, separators=(",", ":"), ensure_ascii=True, allow_nan=True).encode()


def loads(data: bytes) -> Any:
    try:
        return json.loads(data, object_hook=_decode_object)
    except RecordError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, RecursionError, UnicodeDecodeError) as e:
        raise RecordError(str(e)) from None


def _encode(v: Any) -> Any:
    t = type(v)
    if v is None or t is str or t is int or t is float or t is bool:
        return v
    if t is list:
        return [_encode(x) for x in v]
    if t is tuple:
        return {"T": [_encode(x) for x in v]}
    if t is dict:
        flat: list[Any] = []
        for k, x in v.items():
            flat.append(_encode(k))
            flat.append(_encode(x))
        return {"D": flat}
    if t is frozenset or t is set:
        return {"F" if t is frozenset else "S": [_encode(x) for x in sorted(v, key=repr)]}
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        name = f"{t.__module__}:{t.__qualname__}"
        if t.__module__ not in TRUSTED_MODULES:
            raise RecordError(f"not a jaxlint record: {name}")
        _, fields, as_tuple, _ = _schema(name, t)
        out = []
        for i, f in enumerate(fields):
            x = getattr(v, f)
            if i in as_tuple and type(x) is tuple:  # the class says tuple: a plain list will do
                out.append([_encode(y) for y in x])
            else:
                out.append(_encode(x))
        return {"C": name, "v": out}
    if v is Ellipsis:
        return {"E": 0}
    if t is complex:
        return {"J": [v.real, v.imag]}
    from jaxlint.base.literals import UNKNOWN

    if v is UNKNOWN:
        return {"U": 0}
    raise RecordError(f"cannot encode a {t.__name__}")


def _decode_object(obj: dict[str, Any]) -> Any:
    if len(obj) == 1:
        ((tag, body),) = obj.items()
        if tag == "T" and type(body) is list:
            return tuple(body)
        if tag == "D" and type(body) is list and len(body) % 2 == 0:
            return {_hashable(body[i]): body[i + 1] for i in range(0, len(body), 2)}
        if tag == "F" and type(body) is list:
            return frozenset(_hashable(x) for x in body)
        if tag == "S" and type(body) is list:
            return {_hashable(x) for x in body}
        if tag == "U":
            from jaxlint.base.literals import UNKNOWN

            return UNKNOWN
        if tag == "E":
            return Ellipsis
        if tag == "J" and type(body) is list and len(body) == 2:
            return complex(body[0], body[1])
    if len(obj) == 2 and type(obj.get("C")) is str and type(obj.get("v")) is list:
        return _build(obj["C"], obj["v"])
    raise RecordError("not a jaxlint record encoding")


def _hashable(x: Any) -> Any:
    if type(x) in (list, dict, set):
        raise RecordError("unhashable key")
    return x


# "module:Class" -> (class, field names, indices of tuple-typed fields, plain __init__?)
_SCHEMAS: dict[str, tuple[type, tuple[str, ...], frozenset[int], bool]] = {}


def _schema(name: str, cls: type | None = None) -> tuple[type, tuple[str, ...], frozenset[int], bool]:
    known = _SCHEMAS.get(name)
    if known is None:
        module, _, qual = name.partition(":")
        if module not in TRUSTED_MODULES or not qual.isidentifier():
            raise RecordError(f"not a jaxlint record: {name}")
        if cls is None:
            cls = getattr(importlib.import_module(module), qual, None)
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == module):
            raise RecordError(f"not a jaxlint record: {name}")
        fields = dataclasses.fields(cls)
        as_tuple = frozenset(i for i, f in enumerate(fields) if str(f.type).startswith("tuple["))
        plain = all(f.init for f in fields) and not hasattr(cls, "__post_init__")
        known = _SCHEMAS[name] = (cls, tuple(f.name for f in fields), as_tuple, plain)
    return known


def _build(name: str, values: list[Any]) -> Any:
    cls, fields, as_tuple, plain = _schema(name)
    if len(values) != len(fields):
        raise RecordError(f"{name}: {len(values)} values for {len(fields)} fields")
    for i in as_tuple:
        if type(values[i]) is list:
            values[i] = tuple(values[i])
    if plain:
        return cls(*values)
    obj: object = object.__new__(cls)
    for f, x in zip(fields, values, strict=False):
        object.__setattr__(obj, f, x)
    return obj
