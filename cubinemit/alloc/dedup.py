"""Constant deduplication for backends (opt-in).

ptxas 13.0.88 itself never shares constants between variables: equal ``.const`` values each keep
their storage in ``.nv.constant3`` and compiler constants are only reused inside one function's
``.nv.constant2`` (tests/alloc/test_data.py checks the first). This module is therefore a library
feature for code generators that want a smaller bank; a cubin meant to match ptxas must not use
it where ptxas would not.

The algorithm is the one nvlink's OCG-constant optimiser is described to use:

* constants are visited in order; a 4- or 8-byte value is looked up in a hash table of the
  values already placed, a 12-64-byte value among the placed values of its width (by
  comparison), any other width is simply appended;
* a hit whose offset satisfies the constant's alignment aliases the constant to it; otherwise the
  constant is appended at its alignment and becomes a candidate for later ones;
* a constant with relocations into it only matches one with equal bytes *and* equal relocations
  (offsets and targets), and its relocations are moved to the alias;
* a zero-valued user constant is never aliased (distinct ``__constant__`` variables that hold 0
  keep distinct addresses);
* when the section does not shrink, the optimisation is reverted.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import attrs

from ..errors import ModelError
from ._common import is_pow2

#: widths found by hashing / by comparison (others are appended)
HASHED_WIDTHS = frozenset({4, 8})
COMPARED_WIDTHS = range(12, 65)


@attrs.frozen
class ConstReloc:
    """A relocation applied at ``offset`` inside a constant; ``target`` identifies what it writes
    (symbol, type, addend: any hashable value)."""

    offset: int
    target: Hashable


@attrs.frozen
class Constant:
    name: str
    data: bytes
    align: int
    is_user: bool = False
    relocs: tuple[ConstReloc, ...] = ()


@attrs.frozen
class Alias:
    """``name`` was not placed: it reads ``target``'s bytes at ``offset``."""

    name: str
    target: str
    offset: int


@attrs.frozen
class MovedReloc:
    """A relocation of an aliased constant, now applied at ``new_offset`` of the section."""

    constant: str
    reloc: ConstReloc
    old_offset: int
    new_offset: int


@attrs.frozen
class DedupResult:
    data: bytes
    #: section offset of every constant (aliases included)
    offsets: Mapping[str, int]
    aliases: tuple[Alias, ...]
    #: section offset of every relocation, by (constant, index in its relocs)
    reloc_offsets: Mapping[tuple[str, int], int]
    moved: tuple[MovedReloc, ...]
    size: int
    original_size: int
    align: int
    reverted: bool


def _append_layout(constants: Sequence[Constant]) -> tuple[dict[str, int], int]:
    offsets: dict[str, int] = {}
    cursor = 0
    for c in constants:
        cursor = (cursor + c.align - 1) & -c.align
        offsets[c.name] = cursor
        cursor += len(c.data)
    return offsets, cursor


def _materialise(constants: Sequence[Constant], offsets: Mapping[str, int], placed: Sequence[Constant], size: int) -> bytes:
    buf = bytearray(size)
    for c in placed:
        off = offsets[c.name]
        buf[off : off + len(c.data)] = c.data
    return bytes(buf)


def _check(constants: Sequence[Constant]) -> None:
    seen: set[str] = set()
    for c in constants:
        if not isinstance(c.name, str) or not c.name:
            raise ModelError(f"constant has no name ({c.name!r})")
        if c.name in seen:
            raise ModelError(f"constant {c.name!r} is declared twice")
        seen.add(c.name)
        if not isinstance(c.data, bytes) or not c.data:
            raise ModelError(f"constant {c.name!r}: data must be non-empty bytes")
        if not isinstance(c.align, int) or not is_pow2(c.align):
            raise ModelError(f"constant {c.name!r}: alignment {c.align!r} is not a power of two")
        for r in c.relocs:
            if not 0 <= r.offset < len(c.data):
                raise ModelError(f"constant {c.name!r}: relocation at {r.offset} lies outside its {len(c.data)} bytes")


def deduplicate(constants: Sequence[Constant]) -> DedupResult:
    """Lay ``constants`` out in one section, aliasing equal values (see the module doc)."""
    _check(constants)
    original_offsets, original_size = _append_layout(constants)
    align = max((c.align for c in constants), default=1)

    offsets: dict[str, int] = {}
    owner: dict[int, str] = {}
    placed: list[Constant] = []
    aliases: list[Alias] = []
    tables: dict[int, dict[Hashable, int]] = {}
    cursor = 0
    hashed = HASHED_WIDTHS
    for c in constants:
        data = c.data
        width = len(data)
        a = c.align
        key: Hashable = data if not c.relocs else (data, c.relocs)
        table = None
        if width in hashed or 12 <= width <= 64:
            table = tables.get(width)
            if table is None:
                table = tables[width] = {}
            hit = table.get(key)
            if hit is not None and not hit & (a - 1) and not (c.is_user and not any(data)):
                offsets[c.name] = hit
                aliases.append(Alias(c.name, owner[hit], hit))
                continue
        cursor = (cursor + a - 1) & -a
        offsets[c.name] = cursor
        owner[cursor] = c.name
        placed.append(c)
        if table is not None and key not in table:
            table[key] = cursor
        cursor += width

    if cursor >= original_size:
        # No gain: ptxas/nvlink give the optimisation up ("didn't help") and keep the plain layout.
        data = _materialise(constants, original_offsets, constants, original_size)
        reloc_offsets = {(c.name, i): original_offsets[c.name] + r.offset for c in constants for i, r in enumerate(c.relocs)}
        return DedupResult(data, original_offsets, (), reloc_offsets, (), original_size, original_size, align, True)

    data = _materialise(constants, offsets, placed, cursor)
    reloc_offsets = {}
    moved = []
    aliased = {al.name for al in aliases}
    for c in constants:
        base = offsets[c.name]
        for i, r in enumerate(c.relocs):
            reloc_offsets[(c.name, i)] = base + r.offset
            if c.name in aliased:
                moved.append(MovedReloc(c.name, r, original_offsets[c.name] + r.offset, base + r.offset))
    return DedupResult(data, offsets, tuple(aliases), reloc_offsets, tuple(moved), cursor, original_size, align, False)
