"""Constant bank 0: kernel parameters and texture/surface handle slots (``.nv.constant0.<kernel>``).

Rules measured on ptxas 13.0.88 (tests/alloc/test_alloc_params.py, tests/alloc/test_alloc_handles.py):

* Parameters are packed in declaration order, each at its own alignment (natural alignment for
  scalars, ``.align`` for byte arrays); the parameter size is the end of the last one, not rounded.
  The alignment applies to the bank-0 address on sm_75-89 (small blocks) and sm_90, to the offset
  from the base on sm_75-89 large blocks and sm_100+ (``.align 64`` first parameter: offset 32 on
  sm_75, 48 on sm_90, 0 on sm_100).
* The bank holds ``param_base + parameter bytes`` (zero-filled); a kernel without parameters has a
  bank of exactly ``param_base``. ``param_base`` is 0x160 on sm_75-89, 0x210 on sm_90 and 0x380
  from sm_100 on.
* More than 4352 parameter bytes (4352 itself is still small; counted as packed from offset 0)
  switch the per-parameter records to KPARAM_INFO_V2 on every target; on sm_75-89 the parameters then move to 0x1a80. The limit is
  0x7ffc bytes (ptxas: "uses too much parameter space").
* Handle slots (``.texref``/``.surfref``/``.samplerref`` used by a kernel) are 4 bytes each after the
  parameters, in whole-program builds only (``-c`` leaves them to the linker). sm_75-89 start them
  at ``align4(this kernel's parameter bytes)``; sm_90 at ``align4(largest parameter block of the
  module)``, sm_100+ at ``align16(largest block)``, for every kernel alike. A kernel's bank ends
  after its last slot; kernels without handles keep ``base + own parameters``.
* Slot order: unified texturing lists textures in first-use order (``tex``, ``txq`` alike), then
  surfaces in first-use order. texmode_independent first makes one (texture, sampler) pair per
  distinct sampled ``tex``, in use order; each texture or sampler used alone then fills the first
  pair that lacks that half, or opens a new one (a handle already in a pair is not repeated). On
  sm_75-89 a pair is one slot holding both relocations; sm_90+ give the texture and then the
  sampler their own slots, each handle once. Surfaces come last.
* ``-g``: every handle-using kernel gets one slot per handle declared in the module, after the
  largest parameter block of the module (its base, aligned as above) on all targets, in one
  module-wide order (:func:`debug_handle_order`): surfaces, samplers, textures, each group
  with the first function's handles in its first-use order, then the others in declaration
  order; that list is then permuted by :func:`debug_slot_permutation`, a function of its
  length alone (measured for 1-20, 24, 32 and 33 handles; tests/probes_texg).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping, Sequence

import attrs

from ..arch import facts
from ..errors import ModelError
from ._common import Mode, align_up, check_object, check_unique

#: The largest parameter block that still uses KPARAM_INFO (V1) and the small base (bisected).
SMALL_PARAM_LIMIT = 4352
#: The most parameter bytes ptxas 13.0.88 accepts for an entry.
MAX_PARAM_BYTES = 0x7FFC
#: Size of one texture/sampler/surface handle slot.
HANDLE_SLOT_SIZE = 4


@attrs.frozen
class Param:
    """One kernel parameter: ``.param .u32 n`` is ``Param("n", 4, 4)``, ``.param .align 16 .b8 a[32]``
    is ``Param("a", 32, 16)``."""

    name: str
    size: int
    align: int


@attrs.frozen
class ParamLayout:
    """Where a kernel's parameters sit in bank 0."""

    #: parameter offsets relative to ``base`` (the KPARAM_INFO offset field), declaration order
    offsets: Mapping[str, int]
    #: end of the last parameter (PARAM_CBANK high half, CBANK_PARAM_SIZE)
    param_bytes: int
    #: bank-0 offset of the first parameter (PARAM_CBANK low half)
    base: int
    #: True when ptxas writes KPARAM_INFO_V2 records (more than 4352 parameter bytes)
    large: bool

    @property
    def end(self) -> int:
        """Bank-0 offset just past the parameters: the bank size of a kernel without handle slots."""
        return self.base + self.param_bytes


def _pack(shapes: Sequence[tuple[int, int]], origin: int) -> tuple[list[int], int]:
    offsets: list[int] = []
    cursor = 0
    for size, align in shapes:
        cursor = align_up(origin + cursor, align) - origin
        offsets.append(cursor)
        cursor += size
    return offsets, cursor


def place_params(shapes: Sequence[tuple[int, int]], sm: int) -> tuple[list[int], int, int, bool]:
    """The rule of :func:`layout_params` for parameters given as (size, alignment) pairs that
    are known to be sound (the .nv.info builder's, validated facts): (offsets relative to the
    base, parameter bytes, base, large). The caller checks the bytes against
    :data:`MAX_PARAM_BYTES`."""
    arch = facts(sm)
    # The V1/V2 choice looks at the block packed from offset 0; the final packing may then align
    # to bank-0 addresses (measured: a block of 4257 relative bytes that ends at 4417 on sm_75
    # stays V1 at 0x160).
    offsets, end = _pack(shapes, 0)
    large = end > SMALL_PARAM_LIMIT
    base = arch.param_base_large if large else arch.param_base
    if arch.param_align_absolute_large if large else arch.param_align_absolute:
        offsets, end = _pack(shapes, base)
    return offsets, end, base, large


def layout_params(params: Sequence[Param], sm: int) -> ParamLayout:
    """Parameter offsets and bank-0 base of one kernel for SM number ``sm``."""
    check_unique("parameter", [p.name for p in params])
    for p in params:
        check_object("parameter", p.name, p.size, p.align)
    offsets, end, base, large = place_params([(p.size, p.align) for p in params], sm)
    if end > MAX_PARAM_BYTES:
        raise ModelError(f"parameter {params[-1].name!r} ends at {end:#x}: more than {MAX_PARAM_BYTES:#x} parameter bytes")
    return ParamLayout(dict(zip((p.name for p in params), offsets)), end, base, large)


class HandleKind(enum.Enum):
    TEXTURE = "texture"
    SAMPLER = "sampler"
    SURFACE = "surface"


@attrs.frozen
class HandleUse:
    """One instruction's use of module handles, in the kernel's first-use order.

    Exactly one of: ``texture`` alone (unified ``tex``, ``txq``), ``sampler`` alone (``txq`` on a
    sampler), ``texture`` with ``sampler`` (independent-mode ``tex``), ``surface`` alone.
    """

    texture: str | None = None
    sampler: str | None = None
    surface: str | None = None


@attrs.frozen
class Kernel:
    """A kernel as bank 0 sees it: its parameters and the handles it uses (after inlining)."""

    name: str
    params: tuple[Param, ...] = ()
    handles: tuple[HandleUse, ...] = ()


@attrs.frozen
class HandleSlot:
    """A 4-byte handle slot. On sm_75-89 in texmode_independent a slot may hold a texture and
    a sampler (two relocations at one offset); otherwise exactly one field is set."""

    offset: int
    texture: str | None = None
    sampler: str | None = None
    surface: str | None = None

    @property
    def handles(self) -> tuple[tuple[str, HandleKind], ...]:
        out = []
        if self.texture is not None:
            out.append((self.texture, HandleKind.TEXTURE))
        if self.sampler is not None:
            out.append((self.sampler, HandleKind.SAMPLER))
        if self.surface is not None:
            out.append((self.surface, HandleKind.SURFACE))
        return tuple(out)


@attrs.frozen
class Bank0:
    """The layout of ``.nv.constant0.<kernel>``."""

    kernel: str
    params: ParamLayout
    slots: tuple[HandleSlot, ...]
    #: section size (the bank is zero-filled; slots are filled by relocations)
    size: int


def check_use(kernel: str, use: HandleUse, independent: bool) -> None:
    """ModelError unless ``use`` is one of the forms :class:`HandleUse` allows."""
    t, s, f = use.texture, use.sampler, use.surface
    if f is not None and (t is not None or s is not None):
        raise ModelError(f"kernel {kernel!r}: a handle use names surface {f!r} together with a texture or sampler")
    if t is None and s is None and f is None:
        raise ModelError(f"kernel {kernel!r}: a handle use names no handle")
    if s is not None and not independent:
        raise ModelError(f"kernel {kernel!r}: sampler {s!r} is used outside texmode_independent")


def _pair_slots(uses: Sequence[HandleUse]) -> list[list[str | None]]:
    """texmode_independent texture/sampler slots as [texture, sampler] pairs (see module doc)."""
    pairs: list[list[str | None]] = []
    for use in uses:
        if use.texture is not None and use.sampler is not None:
            pair: list[str | None] = [use.texture, use.sampler]
            if pair not in pairs:
                pairs.append(pair)
    for use in uses:
        if use.surface is not None or (use.texture is not None and use.sampler is not None):
            continue
        half, name = (0, use.texture) if use.texture is not None else (1, use.sampler)
        if any(p[half] == name for p in pairs):
            continue
        for p in pairs:
            if p[half] is None:
                p[half] = name
                break
        else:
            new: list[str | None] = [None, None]
            new[half] = name
            pairs.append(new)
    return pairs


def _first_use(names: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(names))


def handle_slots(uses: Sequence[HandleUse], start: int, sm: int, *, independent: bool = False, kernel: str = "?") -> tuple[HandleSlot, ...]:
    """Whole-program handle slots of one kernel, the first at bank-0 offset ``start``."""
    for use in uses:
        check_use(kernel, use, independent)
    arch = facts(sm)
    slots: list[HandleSlot] = []
    cursor = start
    if independent:
        pairs = _pair_slots(uses)
        if arch.handle_pair_slots:
            for tex, smp in pairs:
                slots.append(HandleSlot(cursor, texture=tex, sampler=smp))
                cursor += HANDLE_SLOT_SIZE
        else:
            done: set[tuple[int, str]] = set()
            for pair in pairs:
                for half, name in enumerate(pair):
                    if name is None or (half, name) in done:
                        continue
                    done.add((half, name))
                    slots.append(HandleSlot(cursor, texture=name) if half == 0 else HandleSlot(cursor, sampler=name))
                    cursor += HANDLE_SLOT_SIZE
    else:
        for tex in _first_use([u.texture for u in uses if u.texture is not None]):
            slots.append(HandleSlot(cursor, texture=tex))
            cursor += HANDLE_SLOT_SIZE
    for surf in _first_use([u.surface for u in uses if u.surface is not None]):
        slots.append(HandleSlot(cursor, surface=surf))
        cursor += HANDLE_SLOT_SIZE
    return tuple(slots)


@functools.lru_cache(maxsize=None)
def debug_slot_permutation(n: int) -> tuple[int, ...]:
    """The -g slot order of a table of ``n`` handles: entry ``i`` of the result is the index, in
    the :func:`debug_handle_order` list, of the handle in slot ``i``.

    ptxas splits the list into its even and odd positions, orders each part the same way
    (recursively) and reverses it, and puts first the part holding the last element: 2 handles
    [1, 0], 3 [0, 2, 1], 4 [1, 3, 0, 2], 5 [4, 0, 2, 1, 3] (probes of 1-33 handles)."""
    if n <= 1:
        return tuple(range(n))
    n_even, n_odd = (n + 1) // 2, n // 2
    even = [2 * (n_even - 1 - i) for i in debug_slot_permutation(n_even)]
    odd = [2 * (n_odd - 1 - i) + 1 for i in debug_slot_permutation(n_odd)]
    return tuple(even + odd) if n % 2 else tuple(odd + even)


_KIND_ORDER = (HandleKind.SURFACE, HandleKind.SAMPLER, HandleKind.TEXTURE)


def debug_handle_order(declared: Sequence[tuple[str, HandleKind]], first_uses: Sequence[HandleUse]) -> list[tuple[str, HandleKind]]:
    """The -g handle table in slot order: ``declared`` is every module handle in declaration
    order, ``first_uses`` the handle uses of the module's first function (in -g function
    order; a function without handles has none)."""
    check_unique("handle", [name for name, _ in declared])
    kinds = dict(declared)
    used: list[str] = []
    for use in first_uses:
        for name in (use.surface, use.sampler, use.texture):
            if name is not None:
                if name not in kinds:
                    raise ModelError(f"the first function uses handle {name!r}, which the module does not declare")
                if name not in used:
                    used.append(name)
    table: list[tuple[str, HandleKind]] = []
    for kind in _KIND_ORDER:
        first = [n for n in used if kinds[n] is kind]
        table += [(n, kind) for n in first] + [(n, k) for n, k in declared if k is kind and n not in first]
    return [table[i] for i in debug_slot_permutation(len(table))]


def layout_bank0(
    kernels: Sequence[Kernel],
    sm: int,
    *,
    mode: Mode = Mode.WHOLE_PROGRAM,
    independent: bool = False,
    debug_handles: Sequence[tuple[str, HandleKind]] | None = None,
) -> dict[str, Bank0]:
    """``.nv.constant0.<kernel>`` of every kernel of a module.

    ``independent`` is the module's ``texmode_independent``. ``debug_handles`` is, for ``-g``
    only, the module's handle table in ptxas's order (not characterised: see the module doc).
    """
    check_unique("kernel", [k.name for k in kernels])
    arch = facts(sm)
    layouts = {k.name: layout_params(k.params, sm) for k in kernels}
    module_max = max((p.param_bytes for p in layouts.values()), default=0)
    module_base = arch.param_base_large if module_max > SMALL_PARAM_LIMIT else arch.param_base
    out: dict[str, Bank0] = {}
    for k in kernels:
        p = layouts[k.name]
        slots: tuple[HandleSlot, ...] = ()
        if k.handles and mode is Mode.WHOLE_PROGRAM:
            if arch.handle_slot_scope == "module":
                start = module_base + align_up(module_max, arch.handle_slot_align)
            else:
                start = p.base + align_up(p.param_bytes, arch.handle_slot_align)
            slots = handle_slots(k.handles, start, sm, independent=independent, kernel=k.name)
        elif k.handles and mode is Mode.DEBUG:
            for use in k.handles:
                check_use(k.name, use, independent)
            if debug_handles is None:
                raise ModelError(f"kernel {k.name!r} uses handles under -g: pass debug_handles (the module's table order)")
            cursor = module_base + align_up(module_max, arch.handle_slot_align)
            table = []
            for name, kind in debug_handles:
                field = {HandleKind.TEXTURE: "texture", HandleKind.SAMPLER: "sampler", HandleKind.SURFACE: "surface"}[kind]
                table.append(HandleSlot(cursor, **{field: name}))
                cursor += HANDLE_SLOT_SIZE
            slots = tuple(table)
        size = slots[-1].offset + HANDLE_SLOT_SIZE if slots else p.end
        out[k.name] = Bank0(k.name, p, slots, size)
    return out
