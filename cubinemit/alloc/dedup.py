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

    def __attrs_post_init__(self) -> None:
        try:
            hash(self.target)
        except TypeError:
            raise ModelError(f"constant relocation at {self.offset!r}: its target {self.target!r:.60} is not hashable") from None


@attrs.frozen
class Constant:
    """One constant to place. Checked when it is made, so that the error names it and
    ``deduplicate`` need not walk a million constants again to look for a bad one."""

    name: str
    data: bytes
    align: int
    is_user: bool = False
    relocs: tuple[ConstReloc, ...] = ()

    def __attrs_post_init__(self) -> None:
        if type(self.name) is not str or not self.name:
            raise ModelError(f"constant has no name ({self.name!r})")
        if type(self.data) is not bytes or not self.data:
            raise ModelError(f"constant {self.name!r}: data must be non-empty bytes")
        if type(self.align) is not int or not is_pow2(self.align):
            raise ModelError(f"constant {self.name!r}: alignment {self.align!r} is not a power of two")
        if type(self.relocs) is not tuple or not all(type(r) is ConstReloc for r in self.relocs):
            raise ModelError(f"constant {self.name!r}: relocations must be a tuple of ConstReloc")
        for r in self.relocs:
            if type(r.offset) is not int or not 0 <= r.offset < len(self.data):
                raise ModelError(f"constant {self.name!r}: relocation at {r.offset} lies outside its {len(self.data)} bytes")


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
    align: int
    reverted: bool
    #: the size of the plain layout (no aliases), or the (alignments, widths) it is computed
    #: from when first asked: a result that shrank below the sum of the widths never needed it
    _original: int | tuple[list[int], list[int]] = attrs.field(eq=False, repr=False)

    @property
    def original_size(self) -> int:
        o = self._original
        return o if type(o) is int else _plain_size(*o)

    @property
    def aliases(self) -> dict[str, str]:
        """The report by name: aliased constant -> the placed constant whose bytes it reads."""
        names = self.names
        return dict(zip([names[i] for i in self.aliased], [names[i] for i in self.targets]))

    def offset_of(self, name: str) -> int:
        return self.offsets[self.names.index(name)]

    def by_name(self) -> dict[str, int]:
        return dict(zip(self.names, self.offsets))


def _check_list(constants: Sequence[object], names: Sequence[str]) -> None:
    """ModelError naming the first item that is not a Constant, or the first repeated name."""
    for c in constants:
        if not isinstance(c, Constant):
            raise ModelError(f"deduplicate takes Constant objects, not {type(c).__name__} ({c!r:.60})")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ModelError(f"constant {name!r} is declared twice")
        seen.add(name)


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


def _plain_size(aligns: list[int], widths: list[int]) -> int:
    """The size of the plain layout (every constant appended at its alignment)."""
    end = 0
    for a, w in zip(aligns, widths):
        end += -end % a + w
    return end


_SEARCHED = frozenset((*HASHED_WIDTHS, *COMPARED_WIDTHS))


def deduplicate(constants: Sequence[Constant]) -> DedupResult:
    """Lay ``constants`` out in one section, aliasing equal values (see the module doc).

    A million constants are memory-bound, so each list is walked as few times as possible: the
    fields are read once (each constant checked itself when it was made; a comprehension reads
    a slot faster than ``attrgetter``), the value table is filled at C speed, and one loop does
    the deduplicated layout with its bytes. The plain layout is walked only when needed."""
    n = len(constants)
    if set(map(type, constants)) - {Constant}:
        _check_list(constants, ())
    names = tuple([c.name for c in constants])
    if len(set(names)) != n:
        _check_list(constants, names)
    datas = [c.data for c in constants]
    aligns = [c.align for c in constants]
    relocs = [c.relocs for c in constants]
    if not any(relocs):
        relocs = None
    max_align = max(aligns, default=1)

    # The value table maps each key (the bytes, with the relocations if any) to the first
    # constant that had it, which is always placed; a constant that could not alias it never
    # replaces it. ``map(table.setdefault, ...)`` fills it and reads every constant's first
    # twin in one pass at C speed. Other widths are looked up too but never alias (their bytes
    # can only equal a constant of the same unsearched width).
    keys: Sequence[Hashable] = datas if relocs is None else [(d, r) if r else d for d, r in zip(datas, relocs)]
    table: dict[Hashable, int] = {}
    firsts = list(map(table.setdefault, keys, range(n)))
    del table, keys
    widths = list(map(len, datas))
    offs = [0] * n
    aliased: list[int] = []
    targets: list[int] = []
    parts: list[bytes] = []  # the deduplicated section: placed data and the zero gaps
    put, alias, target = parts.append, aliased.append, targets.append
    cursor = 0
    for i, f, d, a, w in zip(range(n), firsts, datas, aligns, widths):
        if f != i:
            hit = offs[f]
            # alias: the offset suits this alignment, the width is searched, and it is not a
            # zero-valued user constant (the bytes test first: it needs no object look-up)
            if not hit % a and w in _SEARCHED and (d.strip(b"\0") or not constants[i].is_user):
                offs[i] = hit
                alias(i)
                target(f)
                continue
        gap = -cursor % a
        if gap:
            put(bytes(gap))
            cursor += gap
        offs[i] = cursor
        put(d)
        cursor += w
    del firsts

    # The plain layout is at least the sum of the widths, so a smaller result needs no second
    # walk to know that it shrank; its exact size is then read when asked for.
    original = _plain_size(aligns, widths) if cursor >= sum(widths) else None
    if original is not None and cursor >= original:
        # No gain: ptxas/nvlink give the optimisation up ("didn't help") and keep the plain layout.
        data = _plain_layout(aligns, datas, offs)
        plain: dict[tuple[str, int], int] = {}
        if relocs:
            plain = {(names[i], j): offs[i] + r.offset for i in compress(range(n), relocs) for j, r in enumerate(relocs[i])}
        return DedupResult(data, names, tuple(offs), (), (), plain, (), original, max_align, True, original)

    reloc_offsets: dict[tuple[str, int], int] = {}
    moved: list[MovedReloc] = []
    if relocs:
        old = [0] * n
        _plain_layout(aligns, datas, old)
        original = old[-1] + widths[-1]
        is_alias = set(aliased)
        for i in compress(range(n), relocs):
            name, new, pos = names[i], offs[i], old[i]
            for j, r in enumerate(relocs[i]):
                reloc_offsets[(name, j)] = new + r.offset
                if i in is_alias:
                    moved.append(MovedReloc(name, r, pos + r.offset, new + r.offset))
    data = b"".join(parts)
    plain_size = (aligns, widths) if original is None else original
    return DedupResult(data, names, tuple(offs), tuple(aliased), tuple(targets), reloc_offsets, tuple(moved), cursor, max_align, False, plain_size)
