"""A tagged JSON form for fact objects that plain JSON cannot hold (bytes, tuples, maps with
integer keys, attrs classes): used for the Mercury facts in a spec. Only the classes listed
in ``TYPES`` are rebuilt; anything else is refused with the key path."""

from __future__ import annotations

from typing import Any

import attrs

from ..errors import ModelError
from .. import mercury

TYPES: dict[str, type] = {
    "MercuryFacts": mercury.MercuryFacts,
    "MercuryFunctionFacts": mercury.FunctionFacts,
    "MercReloc": mercury.MercReloc,
}
_NAMES = {cls: name for name, cls in TYPES.items()}
#: values both directions pass through unchanged: the maps of addresses are mostly these, so
#: they are returned before any other test (and decode builds no key path for them)
_PLAIN = frozenset({int, str, bool, float, type(None)})


def _is_default(field: Any, value: Any) -> bool:
    default = field.default
    if default is attrs.NOTHING:
        return False
    if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
        return not default.takes_self and bool(value == default.factory())
    return bool(value == default) and type(value) is type(default)


def encode(value: Any) -> Any:
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is dict:  # the maps of addresses, most of what is encoded (subclasses: below)
        return {"$map": [[k if type(k) in _PLAIN else encode(k), v if type(v) in _PLAIN else encode(v)] for k, v in value.items()]}
    if isinstance(value, bytes):
        return {"$bytes": value.hex()}
    if isinstance(value, tuple):
        return {"$tuple": [v if type(v) in _PLAIN else encode(v) for v in value]}
    if isinstance(value, list):
        return [v if type(v) in _PLAIN else encode(v) for v in value]
    if attrs.has(type(value)):
        name = _NAMES.get(type(value))
        if name is None:
            raise ModelError(f"cannot encode a {type(value).__name__} in a spec")
        # a field at its default is left out (decode restores it): the spec stays minimal
        return {"$type": name, **{f.name: encode(v) for f in attrs.fields(type(value)) if not _is_default(f, v := getattr(value, f.name))}}
    if isinstance(value, dict) or hasattr(value, "items"):
        return {"$map": [[k if type(k) in _PLAIN else encode(k), v if type(v) in _PLAIN else encode(v)] for k, v in value.items()]}
    return value


def _decode_item(v: Any, path: str, i: int) -> Any:
    """Item ``i`` of a $tuple at ``path``: a plain value as it is, a $tuple of plain values (a
    line event: thousands in a -g module) without the recursion and its key path."""
    if type(v) in _PLAIN:
        return v
    if type(v) is dict and len(v) == 1:
        items = v.get("$tuple")
        if type(items) is list and all(type(x) in _PLAIN for x in items):
            return tuple(items)
    return decode(v, f"{path}[{i}]")


def decode(value: Any, path: str = "$") -> Any:
    if isinstance(value, list):
        return [v if type(v) in _PLAIN else decode(v, f"{path}[{i}]") for i, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    if "$bytes" in value:
        try:
            return bytes.fromhex(value["$bytes"])
        except (TypeError, ValueError):
            raise ModelError(f"{path}: not a hex string") from None
    if "$tuple" in value:
        if not isinstance(value["$tuple"], list):
            raise ModelError(f"{path}: $tuple holds no list")
        return tuple(_decode_item(v, path, i) for i, v in enumerate(value["$tuple"]))
    if "$map" in value:
        pairs = value["$map"]
        if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise ModelError(f"{path}: $map holds no list of [key, value] pairs")
        try:
            return {
                (k if type(k) in _PLAIN else decode(k, path)): (v if type(v) in _PLAIN else decode(v, f"{path}[{k!r}]"))
                for k, v in pairs
            }
        except TypeError as exc:  # a key that cannot be one (a list or a map)
            raise ModelError(f"{path}: {exc}") from None
    if "$type" in value:
        cls = TYPES.get(value["$type"]) if isinstance(value["$type"], str) else None
        if cls is None:
            raise ModelError(f"{path}: unknown $type {value['$type']!r}")
        fields = {k: decode(v, f"{path}.{k}") for k, v in value.items() if k != "$type"}
        try:
            return cls(**fields)
        except TypeError as exc:
            raise ModelError(f"{path}: {exc}") from None
    raise ModelError(f"{path}: an object without a $bytes/$tuple/$map/$type tag")
