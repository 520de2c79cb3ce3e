"""Constant deduplication for backends (opt-in).

ptxas 13.0.88 itself never shares constants between variables: equal ``.const`` values each keep
their storage in ``.nv.constant3`` and compiler constants are only reused inside one function's
``.nv.constant2`` (tests/alloc/test_alloc_data.py checks the first). This module is therefore a library
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

from collections.abc import Hashable, Iterable, Mapping, Sequence
from itertools import compress
from operator import attrgetter, not_

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
class MovedReloc:
    """A relocation of an aliased constant, now applied at ``new_offset`` of the section."""

    constant: str
    reloc: ConstReloc
    old_offset: int
    new_offset: int


@attrs.frozen
class DedupResult:
    data: bytes
    #: the constants' names, in input order
    names: tuple[str, ...]
    #: section offset of every constant (aliases included), in input order
    offsets: tuple[int, ...]
    #: the report, as input indices: constant ``aliased[j]`` reads the bytes of ``targets[j]``
    aliased: tuple[int, ...]
    targets: tuple[int, ...]
    #: section offset of every relocation, by (constant, index in its relocs)
    reloc_offsets: Mapping[tuple[str, int], int]
    moved: tuple[MovedReloc, ...]
    size: int
    original_size: int
    align: int
    reverted: bool

    @property
    def aliases(self) -> dict[str, str]:
        """The report by name: aliased constant -> the placed constant whose bytes it reads."""
        names = self.names
        return dict(zip([names[i] for i in self.aliased], [names[i] for i in self.targets]))

    def offset_of(self, name: str) -> int:
        return self.offsets[self.names.index(name)]

    def by_name(self) -> dict[str, int]:
        return dict(zip(self.names, self.offsets))


def _fail_names(names: Sequence[object]) -> None:
    seen: set[object] = set()
    for name in names:
        if not isinstance(name, str) or not name:
            raise ModelError(f"constant has no name ({name!r})")
        if name in seen:
            raise ModelError(f"constant {name!r} is declared twice")
        seen.add(name)


def _check_values(constants: Sequence[Constant], datas: list[bytes], aligns: list[int], relocs: list[tuple[ConstReloc, ...]]) -> None:
    # cheap whole-list checks first; the per-constant walk only runs to name the culprit
    if set(map(type, datas)) <= {bytes} and all(datas) and all(type(a) is int and is_pow2(a) for a in set(aligns)):  # noqa: E501
        if not any(relocs) or all(0 <= r.offset < len(d) for d, rs in zip(datas, relocs) for r in rs):
            return
    for c in constants:
        if type(c.data) is not bytes or not c.data:
            raise ModelError(f"constant {c.name!r}: data must be non-empty bytes")
        if type(c.align) is not int or not is_pow2(c.align):
            raise ModelError(f"constant {c.name!r}: alignment {c.align!r} is not a power of two")
        for r in c.relocs:
            if not 0 <= r.offset < len(c.data):
                raise ModelError(f"constant {c.name!r}: relocation at {r.offset} lies outside its {len(c.data)} bytes")


def _join(offsets: list[int], datas: list[bytes], keep: Iterable[int], size: int) -> bytes:
    parts: list[bytes] = []
    pos = 0
    zeros = bytes(256)
    for i in keep:
        off = offsets[i]
        gap = off - pos
        if gap:
            parts.append(zeros[:gap] if gap <= 256 else bytes(gap))
        data = datas[i]
        parts.append(data)
        pos = off + len(data)
    if size > pos:
        parts.append(bytes(size - pos))
    return b"".join(parts)


_SEARCHED = frozenset((*HASHED_WIDTHS, *COMPARED_WIDTHS))


def deduplicate(constants: Sequence[Constant]) -> DedupResult:
    """Lay ``constants`` out in one section, aliasing equal values (see the module doc)."""
    n = len(constants)
    names = list(map(attrgetter("name"), constants))
    datas = list(map(attrgetter("data"), constants))
    aligns = list(map(attrgetter("align"), constants))
    users = list(map(attrgetter("is_user"), constants))
    relocs = list(map(attrgetter("relocs"), constants))
    unique = set(names)
    if len(unique) != n or set(map(type, unique)) - {str} or "" in unique:
        _fail_names(names)
    _check_values(constants, datas, aligns, relocs)
    widths = list(map(len, datas))

    # The value tables: each constant's key is its bytes (with its relocations, if any); widths
    # that are neither hashed nor compared get a key of their own. ``first_of(key, i)`` gives the
    # earliest constant with i's key: the one the tables hold when i is visited (a constant that
    # could not alias it, for alignment or as a zero user constant, never replaces it).
    keys: list[Hashable] = [(d, r) if r else d for d, r in zip(datas, relocs)] if any(relocs) else list(datas)
    if not _SEARCHED.issuperset(widths):
        for i in compress(range(n), map(not_, map(_SEARCHED.__contains__, widths))):
            keys[i] = i  # an int key never equals a bytes or tuple key
    table: dict[Hashable, int] = {}
    first_of = table.setdefault
    targets: list[int] = []

    offs = [0] * n
    aliased: list[int] = []
    placed: list[int] = []
    cursor = original = 0
    max_align = 1
    for i in range(n):
        a = aligns[i]
        w = widths[i]
        original = ((original + a - 1) & -a) + w
        f = first_of(keys[i], i)
        if f != i:
            hit = offs[f]
            if not hit & (a - 1) and not (users[i] and not datas[i].strip(b"\0")):
                offs[i] = hit
                aliased.append(i)
                targets.append(f)
                continue
        cursor = (cursor + a - 1) & -a
        offs[i] = cursor
        placed.append(i)
        cursor += w
    max_align = max(set(aligns), default=1)

    if cursor >= original:
        # No gain: ptxas/nvlink give the optimisation up ("didn't help") and keep the plain layout.
        pos = 0
        for i in range(n):
            a = aligns[i]
            pos = (pos + a - 1) & -a
            offs[i] = pos
            pos += widths[i]
        plain = {(names[i], j): offs[i] + r.offset for i in range(n) if relocs[i] for j, r in enumerate(relocs[i])}
        data = _join(offs, datas, range(n), original)
        return DedupResult(data, tuple(names), tuple(offs), (), (), plain, (), original, original, max_align, True)

    reloc_offsets: dict[tuple[str, int], int] = {}
    moved: list[MovedReloc] = []
    if any(relocs):
        pos = 0
        is_alias = set(aliased)
        for i in range(n):
            a = aligns[i]
            pos = (pos + a - 1) & -a
            for j, r in enumerate(relocs[i]):
                reloc_offsets[(names[i], j)] = offs[i] + r.offset
                if i in is_alias:
                    moved.append(MovedReloc(names[i], r, pos + r.offset, offs[i] + r.offset))
            pos += widths[i]
    data = _join(offs, datas, placed, cursor)
    return DedupResult(data, tuple(names), tuple(offs), tuple(aliased), tuple(targets), reloc_offsets, tuple(moved), cursor, original, max_align, False)
