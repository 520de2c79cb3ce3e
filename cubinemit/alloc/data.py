"""Module data: ``.nv.global``, ``.nv.global.init``, ``.nv.constant3`` and ``.nv.constant4``.

Rules measured on ptxas 13.0.88 (tests/alloc/test_alloc_data.py; symbol values of random modules):

* Globals, every mode: the initialised variables go to ``.nv.global.init``, the others to
  ``.nv.global``. Each section lists its visible variables (declaration order) then the others
  (declaration order, unused ones kept), sorts that list with ptxas's list sort (larger alignment
  first, then smaller size) and places the variables one after the other at their alignment.
  Section size = end of the last variable; alignment = the largest. Compiler-made globals such as
  nvcc's ``$str`` printf formats are ordinary non-visible ``.global`` variables here.
* User constants (``.nv.constant3``): visible then the others, each in declaration order. In
  whole-program builds (default, -lineinfo, -O0) they are placed in that order; with ``-g`` and
  ``-c`` the same list is first sorted like the globals. Equal values are never shared.
* ``.nv.constant4`` (whole-program only): one zero-filled 8-byte slot, relocated with R_CUDA_64,
  per generic address ptxas may need: every ``.global`` variable (used or not) and every extern
  function a kernel calls (vprintf, malloc, free). See :func:`constant4_order`.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from ..errors import ModelError
from ._common import Mode, SectionLayout, by_alignment_then_size, check_object, check_unique, list_sort, sequential

#: Size and alignment of one ``.nv.constant4`` slot.
CONSTANT4_SLOT = 8


@attrs.frozen
class GlobalVar:
    """A module ``.global`` variable; ``initialized`` when the PTX gives it an initializer."""

    name: str
    size: int
    align: int
    visible: bool = False
    initialized: bool = False


@attrs.frozen
class GlobalLayout:
    init: SectionLayout  # .nv.global.init
    uninit: SectionLayout  # .nv.global


def _visible_first(objs: Sequence[GlobalVar] | Sequence[ConstVar]) -> list[tuple[str, int, int]]:
    return [(v.name, v.size, v.align) for v in objs if v.visible] + [(v.name, v.size, v.align) for v in objs if not v.visible]


def _sorted_section(items: list[tuple[str, int, int]]) -> SectionLayout:
    offsets, end, align = sequential(list_sort(items, by_alignment_then_size))
    return SectionLayout(offsets, end, align)


def layout_globals(variables: Sequence[GlobalVar]) -> GlobalLayout:
    """Offsets of the module's ``.global`` variables (declaration order in, any mode)."""
    check_unique("global variable", [v.name for v in variables])
    for v in variables:
        check_object("global variable", v.name, v.size, v.align)
    init = _sorted_section(_visible_first([v for v in variables if v.initialized]))
    uninit = _sorted_section(_visible_first([v for v in variables if not v.initialized]))
    return GlobalLayout(init, uninit)


@attrs.frozen
class ConstVar:
    """A module ``.const`` variable (``__constant__``)."""

    name: str
    size: int
    align: int
    visible: bool = False


def layout_constant3(variables: Sequence[ConstVar], mode: Mode = Mode.WHOLE_PROGRAM) -> SectionLayout:
    """``.nv.constant3`` offsets (symbol values in every mode) from the declaration-order list."""
    check_unique("constant", [v.name for v in variables])
    for v in variables:
        check_object("constant", v.name, v.size, v.align)
    items = _visible_first(variables)
    if mode is not Mode.WHOLE_PROGRAM:
        return _sorted_section(items)
    offsets, end, align = sequential(items)
    return SectionLayout(offsets, end, align)


def constant4_order(
    function_externs: Sequence[Sequence[str]],
    variables: Sequence[GlobalVar],
) -> list[str]:
    """The order of the ``.nv.constant4`` slots of a whole-program module.

    ``function_externs`` lists, per function in ptxas function order (kernels in reverse PTX order
    for whole-program builds), the extern functions it calls, in their declaration order. The
    slots are the symbols in creation order: the first function's externs, then every global
    variable (visible, then the others, declaration order), then each later function's externs
    not seen before.
    """
    order: list[str] = []
    seen: set[str] = set()

    def add(name: str) -> None:
        if name not in seen:
            seen.add(name)
            order.append(name)

    for i, externs in enumerate(function_externs):
        for name in externs:
            add(name)
        if i == 0:
            for name, _, _ in _visible_first(variables):
                add(name)
    if not function_externs:
        for name, _, _ in _visible_first(variables):
            add(name)
    return order


def layout_constant4(entries: Sequence[str]) -> SectionLayout:
    """One 8-byte slot per entry, in order (see :func:`constant4_order`)."""
    check_unique(".nv.constant4 entry", entries)
    for name in entries:
        if not isinstance(name, str) or not name:
            raise ModelError(f".nv.constant4 entry has no name ({name!r})")
    offsets = {name: i * CONSTANT4_SLOT for i, name in enumerate(entries)}
    return SectionLayout(offsets, len(entries) * CONSTANT4_SLOT, CONSTANT4_SLOT if entries else 1)
