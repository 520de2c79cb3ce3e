"""The spec: a documented, versioned JSON form of a :class:`Module`.

Bytes are hex strings; everything is referenced by name. ``to_spec``/``from_spec`` are exact
inverses; unknown keys and a wrong version are refused with the path of the offending key.
"""

from __future__ import annotations

import types
import typing
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
        # (fields set after construction, such as Module's record of the code read from a
        # cubin, are not part of the spec)
        return {f.name: _dump(getattr(value, f.name), f.name) for f in attrs.fields(type(value)) if f.init}
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


def _type_error(value: Any, hint: Any, where: str) -> str | None:
    """Where ``value`` is not of the annotated type ``hint``: the path and what was expected
    (the model's classes hold plain JSON types: str, int, bool, lists, tuples, str-keyed
    dicts; ``object`` takes anything)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is object or hint is Any:
        return None
    if origin in (types.UnionType, typing.Union):
        if value is None and type(None) in args:
            return None
        return _type_error(value, next(a for a in args if a is not type(None)), where)
    if hint is bool:
        return None if isinstance(value, bool) else f"{where}: expected true or false, got {type(value).__name__}"
    if hint is int:
        return None if isinstance(value, int) and not isinstance(value, bool) else f"{where}: expected an integer, got {type(value).__name__}"
    if hint is str:
        return None if isinstance(value, str) else f"{where}: expected a string, got {type(value).__name__}"
    if origin is list:
        if not isinstance(value, list):
            return f"{where}: expected a list, got {type(value).__name__}"
        return next((e for i, v in enumerate(value) if (e := _type_error(v, args[0], f"{where}[{i}]"))), None)
    if origin is tuple:
        if not isinstance(value, (list, tuple)) or len(value) != len(args):
            return f"{where}: expected a list of {len(args)} items"
        return next((e for i, (v, a) in enumerate(zip(value, args)) if (e := _type_error(v, a, f"{where}[{i}]"))), None)
    if origin is dict:
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            return f"{where}: expected an object"
        return None
    return None


def _load(cls: type, obj: Any, path: str) -> Any:
    if not isinstance(obj, dict):
        raise ModelError(f"{path}: expected an object, got {type(obj).__name__}")
    fields = {f.name: f for f in attrs.fields(attrs.resolve_types(cls)) if f.init}
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
        else:
            wrong = _type_error(value, fields[name].type, where)
            if wrong is not None:
                raise ModelError(wrong)
            if name in ("inlined", "capsule_symbols", "frame_steps"):
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
    module = _load(Module, obj, "$")
    _check_facts(module)
    return module


def _check_facts(module: Module) -> None:
    """ModelError naming the path where the options or the facts do not have the shape the
    builder reads them in (it would fail deep inside otherwise)."""
    from ..nvinfo.facts import FunctionFacts, ModuleFacts, from_json
    from ..nvinfo.notes import PtxasOptions
    from .tagged import decode

    shapes = (TypeError, ValueError, KeyError, AttributeError, IndexError)
    try:
        PtxasOptions(**module.options)  # type: ignore[arg-type]
    except shapes as exc:
        raise ModelError(f"$.options: {exc}") from None
    checks: list[tuple[str, Any, Any]] = [(f"$.functions[{i}].facts.nvinfo", FunctionFacts, f.facts.get("nvinfo")) for i, f in enumerate(module.functions)]
    checks.append(("$.facts.nvinfo", ModuleFacts, module.facts.get("nvinfo")))
    for where, cls, value in checks:
        if value is None:
            continue
        if not isinstance(value, dict):
            raise ModelError(f"{where}: expected an object")
        try:
            from_json(cls, value)
        except shapes as exc:
            raise ModelError(f"{where}: {type(exc).__name__}: {exc}") from None
    if "mercury" in module.facts:
        decode(module.facts["mercury"], "$.facts.mercury")
