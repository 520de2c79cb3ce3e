"""Memory layout as ptxas 13.0.88 does it: pure allocators, objects in, offsets and sizes out.

* :mod:`.params` - bank 0: parameters, the large-parameter base, texture/surface handle slots.
* :mod:`.data` - ``.nv.global``/``.nv.global.init``, ``.nv.constant3``, ``.nv.constant4``.
* :mod:`.shared` - ``.nv.shared.<kernel>``, the ``-g`` interference allocator
  (``.nv_debug.shared``), ``-c`` sizes, ``.nv.shared.reserved.0``.
* :mod:`.dedup` - an opt-in constant deduplicator for backends (ptxas itself never shares).

Every function raises :class:`~cubinemit.errors.ModelError` naming the offending object on bad
input. Per-target constants come from :mod:`cubinemit.arch`.
"""

from ._common import Mode, SectionLayout, align_up, list_sort
from .data import (
    ConstVar,
    GlobalLayout,
    GlobalVar,
    constant4_order,
    layout_constant3,
    layout_constant4,
    layout_globals,
)
from .dedup import Constant, ConstReloc, DedupResult, MovedReloc, deduplicate
from .params import (
    Bank0,
    HandleKind,
    HandleSlot,
    HandleUse,
    Kernel,
    Param,
    ParamLayout,
    handle_slots,
    layout_bank0,
    layout_params,
)
from .shared import (
    DebugKernel,
    ReservedSmem,
    SharedFunction,
    SharedLayout,
    SharedModule,
    SharedObject,
    SharedScope,
    SharedSection,
    SharedVar,
    allocate_debug_shared,
    colour_objects,
    debug_objects,
    layout_reserved_smem,
    layout_shared,
)

__all__ = [
    "Bank0",
    "ConstReloc",
    "ConstVar",
    "Constant",
    "DebugKernel",
    "DedupResult",
    "GlobalLayout",
    "GlobalVar",
    "HandleKind",
    "HandleSlot",
    "HandleUse",
    "Kernel",
    "Mode",
    "MovedReloc",
    "Param",
    "ParamLayout",
    "ReservedSmem",
    "SectionLayout",
    "SharedFunction",
    "SharedLayout",
    "SharedModule",
    "SharedObject",
    "SharedScope",
    "SharedSection",
    "SharedVar",
    "align_up",
    "allocate_debug_shared",
    "colour_objects",
    "constant4_order",
    "debug_objects",
    "deduplicate",
    "handle_slots",
    "layout_bank0",
    "layout_constant3",
    "layout_constant4",
    "layout_globals",
    "layout_params",
    "layout_reserved_smem",
    "layout_shared",
    "list_sort",
]
