"""``.nv.callgraph`` and ``.nv.prototype``.

``.nv.callgraph`` (SHT 0x70000001, entsize 8) is a run of ``{u32 a, i32 b}`` entries. Four
sentinels ``{0,-1}`` .. ``{0,-4}`` open four lists, always in that order and always present
(whole-program cubins hold just the 32 bytes of sentinels, since callees become clones):

* ``{0,-1}`` call edges ``{caller, callee}`` (undefined externs such as ``vprintf`` included);
* ``{0,-2}`` address-taken functions ``{function, 1}``;
* ``{0,-3}`` functions that make indirect calls ``{function, 1}``;
* ``{0,-4}`` possible indirect-call targets ``{caller, target}``.

This was checked on ptxas output of the ``calls`` probe (recursion, device calls, printf/malloc
syscalls, function pointers and an indirect call) in -c and -g: see tests/nvinfo.

``.nv.prototype`` (SHT 0x70000002, -c only) holds ``{u32 symbol, u32 .strtab offset}`` per called
visible, weak or extern function; the offset points at a signature string such as ``#ii`` (int(int)).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable

import attrs

from ..errors import CubinemitError, ModelError, SectionFormatError

SymbolName = Callable[[int], str]
SymbolIndex = Callable[[str], int]
StringAt = Callable[[int], str]
StringOffset = Callable[[str], int]

_CALLBACK_ERRORS = (LookupError, ValueError, TypeError, CubinemitError)
_SENTINELS = (-1, -2, -3, -4)


@attrs.frozen
class CallEdge:
    """A caller -> callee pair (direct call, or possible target of an indirect call)."""

    caller: str
    callee: str


@attrs.frozen
class FunctionMark:
    """An entry of the address-taken or indirect-caller lists; ptxas writes ``value`` = 1."""

    function: str
    value: int = 1


def _edges(values: Iterable[CallEdge]) -> tuple[CallEdge, ...]:
    return tuple(values)


def _marks(values: Iterable[FunctionMark]) -> tuple[FunctionMark, ...]:
    return tuple(values)


@attrs.frozen
class CallGraph:
    """The four lists of ``.nv.callgraph``, symbols by name."""

    calls: tuple[CallEdge, ...] = attrs.field(default=(), converter=_edges)
    address_taken: tuple[FunctionMark, ...] = attrs.field(default=(), converter=_marks)
    indirect_callers: tuple[FunctionMark, ...] = attrs.field(default=(), converter=_marks)
    indirect_targets: tuple[CallEdge, ...] = attrs.field(default=(), converter=_edges)


def _name(symbol_name: SymbolName, index: int, offset: int, section: str) -> str:
    try:
        name = symbol_name(index)
    except _CALLBACK_ERRORS as exc:
        raise SectionFormatError(f"symbol index {index} rejected ({exc})", offset=offset, where=section) from None
    if not isinstance(name, str):
        raise SectionFormatError(f"symbol_name({index}) returned {name!r}", offset=offset, where=section)
    return name


def _index(symbol_index: SymbolIndex, name: str, what: str) -> int:
    try:
        index = symbol_index(name)
    except _CALLBACK_ERRORS as exc:
        raise ModelError(f"{what}: unknown symbol {name!r} ({exc})") from None
    if not isinstance(index, int) or not 0 <= index < 1 << 32:
        raise ModelError(f"{what}: symbol_index({name!r}) returned {index!r}")
    return index


def decode_callgraph(data: bytes, *, symbol_name: SymbolName, section: str = ".nv.callgraph") -> CallGraph:
    """Decode ``.nv.callgraph``; CubinFormatError if the entries or sentinels are malformed."""
    if len(data) % 8:
        raise SectionFormatError(
            f"size {len(data)} is not a multiple of the 8-byte entry", offset=len(data) - len(data) % 8, where=section
        )
    lists: list[list[tuple[int, int, int]]] = []
    for pos in range(0, len(data), 8):
        a, b = struct.unpack_from("<Ii", data, pos)
        if a == 0 and b < 0:
            expected = _SENTINELS[len(lists)] if len(lists) < 4 else None
            if b != expected:
                raise SectionFormatError(
                    f"sentinel {{0,{b}}} out of order (expected {{0,{expected}}})", offset=pos, where=section
                )
            lists.append([])
            continue
        if not lists:
            raise SectionFormatError("entry before the {0,-1} sentinel", offset=pos, where=section)
        lists[-1].append((pos, a, b))
    if len(lists) != 4:
        raise SectionFormatError(f"{len(lists)} of the 4 sentinels present", offset=len(data), where=section)

    def edges(entries: list[tuple[int, int, int]]) -> tuple[CallEdge, ...]:
        out = []
        for pos, a, b in entries:
            if b < 0:
                raise SectionFormatError(f"negative callee index {b}", offset=pos + 4, where=section)
            out.append(CallEdge(_name(symbol_name, a, pos, section), _name(symbol_name, b, pos + 4, section)))
        return tuple(out)

    def marks(entries: list[tuple[int, int, int]]) -> tuple[FunctionMark, ...]:
        return tuple(FunctionMark(_name(symbol_name, a, pos, section), b & 0xFFFFFFFF) for pos, a, b in entries)

    return CallGraph(edges(lists[0]), marks(lists[1]), marks(lists[2]), edges(lists[3]))


def encode_callgraph(graph: CallGraph, *, symbol_index: SymbolIndex) -> bytes:
    """Encode a :class:`CallGraph` (sentinels included)."""
    what = ".nv.callgraph"

    def edges(sentinel: int, entries: tuple[CallEdge, ...]) -> bytes:
        out = struct.pack("<Ii", 0, sentinel)
        for e in entries:
            caller, callee = _index(symbol_index, e.caller, what), _index(symbol_index, e.callee, what)
            if caller == 0 and callee >= 1 << 31:
                raise ModelError(f"{what}: edge {e!r} cannot be encoded (it would read as a sentinel)")
            out += struct.pack("<II", caller, callee)
        return out

    def marks(sentinel: int, entries: tuple[FunctionMark, ...]) -> bytes:
        out = struct.pack("<Ii", 0, sentinel)
        for m in entries:
            index = _index(symbol_index, m.function, what)
            if not 0 <= m.value < 1 << 32 or (index == 0 and m.value >= 1 << 31):
                raise ModelError(f"{what}: mark {m!r} cannot be encoded (it would read as a sentinel)")
            out += struct.pack("<II", index, m.value)
        return out

    return (
        edges(-1, graph.calls)
        + marks(-2, graph.address_taken)
        + marks(-3, graph.indirect_callers)
        + edges(-4, graph.indirect_targets)
    )


@attrs.frozen
class Prototype:
    """A ``.nv.prototype`` entry: a called function and its signature string (e.g. ``#ii``)."""

    symbol: str
    signature: str


def decode_prototype(
    data: bytes, *, symbol_name: SymbolName, string_at: StringAt, section: str = ".nv.prototype"
) -> list[Prototype]:
    """Decode ``.nv.prototype``; ``string_at`` reads the NUL-terminated ``.strtab`` string at an offset."""
    if len(data) % 8:
        raise SectionFormatError(
            f"size {len(data)} is not a multiple of the 8-byte entry", offset=len(data) - len(data) % 8, where=section
        )
    out = []
    for pos in range(0, len(data), 8):
        sym, off = struct.unpack_from("<II", data, pos)
        try:
            signature = string_at(off)
        except _CALLBACK_ERRORS as exc:
            raise SectionFormatError(f".strtab offset {off} rejected ({exc})", offset=pos + 4, where=section) from None
        out.append(Prototype(_name(symbol_name, sym, pos, section), signature))
    return out


def encode_prototype(entries: Iterable[Prototype], *, symbol_index: SymbolIndex, string_offset: StringOffset) -> bytes:
    """Encode ``.nv.prototype``; ``string_offset`` gives the ``.strtab`` offset of a signature."""
    out = bytearray()
    for p in entries:
        try:
            off = string_offset(p.signature)
        except _CALLBACK_ERRORS as exc:
            raise ModelError(f".nv.prototype: no .strtab string {p.signature!r} ({exc})") from None
        out += struct.pack("<II", _index(symbol_index, p.symbol, ".nv.prototype"), off)
    return bytes(out)
