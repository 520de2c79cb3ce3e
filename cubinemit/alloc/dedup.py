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

from collections.abc import Hashable, Mapping, Sequence
from itertools import compress
from operator import attrgetter

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


def _check_values(constants: Sequence[Constant], datas: list[bytes], aligns: list[int], relocs: list[tuple[ConstReloc, ...]] | None) -> None:
    """ModelError naming the first unusable constant; ``relocs`` is None when no constant has any.

    Cheap whole-list checks first (types over every item: a set of the values would take 4.0 or
    True for 4 or 1); the per-constant walk only runs to name the culprit."""
    if set(map(type, datas)) <= {bytes} and all(datas) and set(map(type, aligns)) <= {int} and all(map(is_pow2, set(aligns))):
        if relocs is None or all(0 <= r.offset < len(d) for d, rs in zip(datas, relocs) if rs for r in rs):
            return
    for c in constants:
        if type(c.data) is not bytes or not c.data:
            raise ModelError(f"constant {c.name!r}: data must be non-empty bytes")
        if type(c.align) is not int or not is_pow2(c.align):
            raise ModelError(f"constant {c.name!r}: alignment {c.align!r} is not a power of two")
        for r in c.relocs:
            if not 0 <= r.offset < len(c.data):
                raise ModelError(f"constant {c.name!r}: relocation at {r.offset} lies outside its {len(c.data)} bytes")


def _plain_layout(aligns: list[int], datas: list[bytes], offsets: list[int]) -> bytes:
    """Every constant appended at its alignment (the layout without aliases), writing
    ``offsets``; returns the section bytes, collected in the same pass since it knows every gap."""
    parts: list[bytes] = []
    end = 0
    for i, a, d in zip(range(len(datas)), aligns, datas):
        gap = -end % a
        if gap:
            parts.append(bytes(gap))
            end += gap
        offsets[i] = end
        parts.append(d)
        end += len(d)
    return b"".join(parts)


_SEARCHED = frozenset((*HASHED_WIDTHS, *COMPARED_WIDTHS))


def deduplicate(constants: Sequence[Constant]) -> DedupResult:
    """Lay ``constants`` out in one section, aliasing equal values (see the module doc).

    A million constants are memory-bound, so each list is walked as few times as possible: the
    fields are read once with ``attrgetter``, checked in bulk, and one loop does the table
    look-up, the deduplicated layout with its bytes and the plain size it is compared with."""
    n = len(constants)
    names = tuple(map(attrgetter("name"), constants))
    unique = set(names)
    if len(unique) != n or set(map(type, names)) - {str} or "" in unique:
        _fail_names(names)
    del unique  # a million names: free them now, not at the end
    datas = list(map(attrgetter("data"), constants))
    aligns = list(map(attrgetter("align"), constants))
    relocs = list(map(attrgetter("relocs"), constants)) if any(map(attrgetter("relocs"), constants)) else None
    _check_values(constants, datas, aligns, relocs)
    max_align = max(aligns, default=1)

    # The value table maps each key (the bytes, with the relocations if any) to the first
    # constant that had it, which is always placed; a constant that could not alias it never
    # replaces it. Other widths are looked up too but never alias (their bytes can only equal
    # a constant of the same unsearched width).
    keys: Sequence[Hashable] = datas if relocs is None else [(d, r) if r else d for d, r in zip(datas, relocs)]
    table: dict[Hashable, int] = {}
    offs = [0] * n
    aliased: list[int] = []
    targets: list[int] = []
    parts: list[bytes] = []  # the deduplicated section: placed data and the zero gaps
    cursor = original = 0
    for i, key, d, a in zip(range(n), keys, datas, aligns):
        w = len(d)
        original += -original % a + w
        f = table.setdefault(key, i)
        if f != i:
            hit = offs[f]
            # alias: the offset suits this alignment, the width is searched, and it is not a
            # zero-valued user constant (the bytes test first: it needs no object look-up)
            if not hit % a and w in _SEARCHED and (d.strip(b"\0") or not constants[i].is_user):
                offs[i] = hit
                aliased.append(i)
                targets.append(f)
                continue
        gap = -cursor % a
        if gap:
            parts.append(bytes(gap))
            cursor += gap
        offs[i] = cursor
        parts.append(d)
        cursor += w
    del table, keys

    if cursor >= original:
        # No gain: ptxas/nvlink give the optimisation up ("didn't help") and keep the plain layout.
        data = _plain_layout(aligns, datas, offs)
        plain: dict[tuple[str, int], int] = {}
        if relocs:
            plain = {(names[i], j): offs[i] + r.offset for i in compress(range(n), relocs) for j, r in enumerate(relocs[i])}
        return DedupResult(data, names, tuple(offs), (), (), plain, (), original, original, max_align, True)

    reloc_offsets: dict[tuple[str, int], int] = {}
    moved: list[MovedReloc] = []
    if relocs:
        old = [0] * n
        _plain_layout(aligns, datas, old)
        is_alias = set(aliased)
        for i in compress(range(n), relocs):
            name, new, pos = names[i], offs[i], old[i]
            for j, r in enumerate(relocs[i]):
                reloc_offsets[(name, j)] = new + r.offset
                if i in is_alias:
                    moved.append(MovedReloc(name, r, pos + r.offset, new + r.offset))
    data = b"".join(parts)
    return DedupResult(data, names, tuple(offs), tuple(aliased), tuple(targets), reloc_offsets, tuple(moved), cursor, original, max_align, False)
