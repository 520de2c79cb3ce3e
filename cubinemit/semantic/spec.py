"""The spec: a documented, versioned JSON form of a :class:`Module`.

Bytes are hex strings; everything is referenced by name. ``to_spec``/``from_spec`` are exact
inverses; unknown keys and a wrong version are refused with the path of the offending key.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..errors import ModelError
from .model import SPEC_VERSION, DataObject, DebugSection, Function, Module, Relocation

#: per class: fields that hold bytes (hex in JSON) and lists of nested classes
_BYTES: dict[type, set[str]] = {Function: {"sass", "constants", "capsule"}, DataObject: {"init"}, DebugSection: {"data"}}
_LISTS: dict[type, dict[str, type]] = {
    Module: {"functions": Function, "data": DataObject, "debug": DebugSection},
    Function: {"relocations": Relocation, "constant_relocations": Relocation},
    DebugSection: {"relocations": Relocation},
    DataObject: {"relocations": Relocation},
}


def _dump(value: Any, key: str = "") -> Any:
    if isinstance(value, bytes):
        return value.hex()
    if attrs.has(type(value)):
        return {f.name: _dump(getattr(value, f.name), f.name) for f in attrs.fields(type(value))}
    if isinstance(value, (list, tuple)):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return value


def to_spec(module: Module) -> dict[str, Any]:
    """The JSON-ready spec of ``module``."""
    out = _dump(module)
    out["$schema"] = f"cubinemit-module/{SPEC_VERSION}"
    return out


def _load(cls: type, obj: Any, path: str) -> Any:
    if not isinstance(obj, dict):
        raise ModelError(f"{path}: expected an object, got {type(obj).__name__}")
    fields = {f.name: f for f in attrs.fields(cls)}
    unknown = set(obj) - set(fields) - {"$schema"}
    if unknown:
        raise ModelError(f"{path}: unknown key {sorted(unknown)[0]!r}")
    kwargs = {}
    for name, value in obj.items():
        if name == "$schema":
            continue
        where = f"{path}.{name}"
        nested = _LISTS.get(cls, {}).get(name)
        if name in _BYTES.get(cls, ()) and value is not None:
            try:
                value = bytes.fromhex(value)
            except (TypeError, ValueError):
                raise ModelError(f"{where}: not a hex string") from None
        elif nested is not None:
            if not isinstance(value, list):
                raise ModelError(f"{where}: expected a list")
            value = [_load(nested, v, f"{where}[{i}]") for i, v in enumerate(value)]
        elif name in ("inlined", "capsule_symbols"):
            value = [tuple(v) for v in value]
        kwargs[name] = value
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"{path}: {exc}") from None


def from_spec(obj: dict[str, Any]) -> Module:
    """A Module from its spec; ModelError naming the offending key path on bad input."""
    schema = obj.get("$schema") if isinstance(obj, dict) else None
    if schema != f"cubinemit-module/{SPEC_VERSION}":
        raise ModelError(f"$schema: expected 'cubinemit-module/{SPEC_VERSION}', got {schema!r}")
    return _load(Module, obj, "$")
