"""Helpers shared by the allocators: alignment, input checks, the ptxas list sort, modes."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

import attrs

from ..errors import ModelError

T = TypeVar("T")


class Mode(enum.Enum):
    """The ptxas compilation regimes whose memory layouts differ.

    ``WHOLE_PROGRAM`` is ptxas's default, ``-lineinfo`` and ``-O0`` (device functions are cloned
    into each kernel); ``DEBUG`` is ``-g`` (functions keep their own code, module ``.shared`` goes
    through the interference allocator); ``RELOCATABLE`` is ``-c`` (the linker allocates).
    """

    WHOLE_PROGRAM = "whole-program"
    DEBUG = "debug"
    RELOCATABLE = "relocatable"

    @classmethod
    def from_flags(cls, flags: str) -> Mode:
        """The regime of a tests/oracle.py mode name: ``def``, ``lineinfo``, ``O0``, ``g`` or ``c``."""
        table = {"def": cls.WHOLE_PROGRAM, "lineinfo": cls.WHOLE_PROGRAM, "O0": cls.WHOLE_PROGRAM, "g": cls.DEBUG, "c": cls.RELOCATABLE}
        try:
            return table[flags]
        except KeyError:
            raise ModelError(f"unknown ptxas mode {flags!r}; expected one of {', '.join(table)}") from None


@attrs.frozen
class SectionLayout:
    """Offsets of the objects placed in one section, its size and its alignment.

    ``offsets`` iterates in placement order. An empty layout (no objects) has size 0 and
    alignment 1; ptxas emits no section for it.
    """

    offsets: Mapping[str, int]
    size: int
    align: int

    @property
    def empty(self) -> bool:
        return not self.offsets


def align_up(value: int, align: int) -> int:
    """``value`` rounded up to a multiple of ``align`` (a power of two)."""
    return (value + align - 1) & -align


def is_pow2(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


def check_object(what: str, name: str, size: int, align: int, *, min_size: int = 1) -> None:
    """ModelError naming ``what`` ``name`` when its size or alignment is unusable."""
    if not isinstance(name, str) or not name:
        raise ModelError(f"{what} has no name ({name!r})")
    if not isinstance(size, int) or isinstance(size, bool) or size < min_size:
        raise ModelError(f"{what} {name!r}: size {size!r} must be an integer >= {min_size}")
    if not isinstance(align, int) or isinstance(align, bool) or not is_pow2(align):
        raise ModelError(f"{what} {name!r}: alignment {align!r} is not a power of two")


def check_unique(what: str, names: Sequence[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ModelError(f"{what} {name!r} is declared twice")
        seen.add(name)


def list_sort(items: Sequence[T], before: Callable[[T, T], bool]) -> list[T]:
    """The merge sort ptxas applies to its linked lists of data objects.

    ptxas splits a list by dealing its elements alternately onto two lists, pushing each at the
    head (so both halves come out reversed), sorts the halves recursively and merges them, taking
    from the second half only when ``before(second, first)`` holds. The result is therefore not
    stable: equal elements come out in a fixed shuffle (4 equal elements 0,1,2,3 -> 2,0,3,1). The
    shuffle was measured on ``.nv.global`` symbol values for 1-20 equal variables (tests/alloc).
    """
    n = len(items)
    if n <= 1:
        return list(items)
    first = list_sort(items[0::2][::-1], before)
    second = list_sort(items[1::2][::-1], before)
    out: list[T] = []
    i = j = 0
    while i < len(first) and j < len(second):
        if before(second[j], first[i]):
            out.append(second[j])
            j += 1
        else:
            out.append(first[i])
            i += 1
    out.extend(first[i:])
    out.extend(second[j:])
    return out


def sequential(objects: Sequence[tuple[str, int, int]], start: int = 0) -> tuple[dict[str, int], int, int]:
    """Place ``(name, size, align)`` one after the other, each at its alignment.

    Returns (offsets, end, max alignment).
    """
    offsets: dict[str, int] = {}
    cursor = start
    max_align = 1
    for name, size, align in objects:
        cursor = align_up(cursor, align)
        offsets[name] = cursor
        cursor += size
        if align > max_align:
            max_align = align
    return offsets, cursor, max_align


def by_alignment_then_size(a: tuple[str, int, int], b: tuple[str, int, int]) -> bool:
    """``a`` strictly before ``b``: larger alignment first, then smaller size (ptxas's data sort)."""
    return a[2] > b[2] or (a[2] == b[2] and a[1] < b[1])
