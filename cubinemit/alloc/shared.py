"""Shared memory: ``.nv.shared.<kernel>``, ``.nv_debug.shared`` and ``.nv.shared.reserved.0``.

All rules were measured on ptxas 13.0.88 over random modules (module ``.shared`` of every scope,
function-scope ``.shared`` in kernels and device functions, call graphs, ``.extern .shared``):
symbol values under ``-g``/``-c``, SASS addresses under the default mode, section sizes and
alignments on sm_75, sm_90 and sm_100a (tests/alloc/test_alloc_shared.py).

Whole program (default, -lineinfo, -O0): every kernel gets a private copy of what it reaches
(device functions are cloned). Per kernel, in this order, each at its alignment:

1. visible module variables used by the kernel or a callee (declaration order);
2. the kernel's own function-scope variables that its body uses (declaration order);
3. internal module variables used by the kernel or a callee (declaration order);
4. the callees' function-scope variables their bodies use (functions in creation order);
5. the kernel's own unused function-scope variables, then the callees' unused ones.

Unused module variables disappear. The section's size is the end of the last variable and its
alignment the largest. When the module declares any ``.extern .shared`` every kernel gets a
section, rounded up to ``R = max(16, largest extern alignment of the module)``, aligned to at
least ``R``; each extern the kernel reaches starts at the end of the referenced variables (1-4)
rounded up to ``max(16, its own alignment, the first declared extern's alignment)``, so the
unreferenced tail (5) may overlap it. A module with externs and no kernel gets
``.nv_debug.shared`` instead: ``base`` bytes (0, or 0x400 from sm_90 on), aligned ``R``.

``-g``: functions are not cloned, and module-scope objects (module variables and the
function-scope variables of device functions) go through an interference allocator:

* Every declared object (visible, then internal, then extern, then each device function's
  variables, used ones first) is sorted with ptxas's list sort by decreasing size (ties go to
  the second half: the comparison is ``>=``). Walking that order: objects nobody references are
  dropped; objects reached by exactly one kernel are privatised to it; the others (two or more
  kernels, or only functions no kernel calls) are coloured greedily: each takes the lowest
  colour none of its interfering objects (sharing a kernel) holds. Colour groups are laid out in
  colour order in ``.nv_debug.shared``, each at its largest member's alignment, sized by its
  largest member.
* A kernel's section starts at the end of the coloured objects it uses and holds its own
  function-scope variables (used ones first, all kept) followed by its privatised objects, sorted
  by larger alignment then smaller size (ptxas's list sort) and placed in that order.
* ``.nv_debug.shared`` is aligned to the largest alignment of every declared module or
  device-function object (externs included, and at least 16 when the module has externs).
  Kernels that use a coloured object share that alignment.
* Externs: kernels linked by a common extern form a component; every extern of a component sits
  at ``align16(largest static size of its kernels)`` (the extern's own alignment is ignored), and
  each of those kernels' sections ends there.

``-c``: nothing is placed. Module objects and device-function variables are listed in
``.nv_debug.shared``, kernel variables in their kernel's section; every symbol value is the
object's alignment, and a section's size is the sum ``S`` of its objects' sizes, plus its
alignment ``A`` when ``S <= A``. ``.nv_debug.shared`` is aligned to its largest object, a kernel
section to the larger of its own objects and ``.nv_debug.shared``. Externs stay undefined.

* With externs declared, an object coloured only for functions no kernel calls gives every
  kernel a section (empty ones at the base, aligned 16) while ``.nv_debug.shared`` is aligned
  16.

sm_90 and later put every user byte 0x400 further (the ``shared_base`` arch fact), -c excepted.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence

import attrs

from ..arch import facts
from ..errors import ModelError
from ._common import Mode, align_up, by_alignment_then_size, check_object, check_unique, list_sort, sequential


class SharedScope(enum.Enum):
    VISIBLE = "visible"  # .visible .shared
    INTERNAL = "internal"  # .shared at module scope, or function-scope .shared
    EXTERN = "extern"  # .extern .shared (dynamic shared memory), size 0


@attrs.frozen
class SharedVar:
    """A ``.shared`` variable. Function-scope variables are always ``INTERNAL``."""

    name: str
    size: int
    align: int
    scope: SharedScope = SharedScope.INTERNAL


def _frozenset(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


def _tuple(value: Iterable[object]) -> tuple:  # type: ignore[type-arg]
    return tuple(value)


@attrs.frozen
class SharedFunction:
    """A kernel or device function as the shared allocator sees it."""

    name: str
    kernel: bool = False
    #: function-scope ``.shared`` declarations, in declaration order
    shared: tuple[SharedVar, ...] = attrs.field(default=(), converter=_tuple)
    #: names of the shared variables (module or own) the body references
    uses: frozenset[str] = attrs.field(default=frozenset(), converter=_frozenset)
    #: direct callees
    calls: tuple[str, ...] = attrs.field(default=(), converter=_tuple)


@attrs.frozen
class SharedModule:
    #: module-scope ``.shared`` in declaration order
    variables: tuple[SharedVar, ...] = attrs.field(default=(), converter=_tuple)
    #: kernels and device functions in creation order (first mention in the PTX)
    functions: tuple[SharedFunction, ...] = attrs.field(default=(), converter=_tuple)


@attrs.frozen
class SharedSection:
    size: int
    align: int


@attrs.frozen
class SharedLayout:
    """The result of a shared allocation.

    ``sections`` maps ``.nv.shared.<kernel>`` and ``.nv_debug.shared`` to their size and alignment
    (absent sections are not listed). ``offsets[kernel][var]`` is the address a kernel uses for a
    variable (whole program and -g; empty for -c). ``symbols[var]`` is ``(section, st_value)`` for
    -g and -c, where variables have symbols.
    """

    sections: Mapping[str, SharedSection]
    offsets: Mapping[str, Mapping[str, int]]
    symbols: Mapping[str, tuple[str, int]]


DEBUG_SECTION = ".nv_debug.shared"


def kernel_section(kernel: str) -> str:
    return f".nv.shared.{kernel}"


# --- validation and the call graph --------------------------------------------------------------


def _check_var(v: SharedVar, where: str) -> None:
    if not isinstance(v, SharedVar):
        raise ModelError(f"{where}: {v!r} is not a SharedVar")
    extern = v.scope is SharedScope.EXTERN
    check_object("shared variable", v.name, v.size, v.align, min_size=0 if extern else 1)
    if extern and v.size != 0:
        raise ModelError(f"extern shared variable {v.name!r} must have size 0, not {v.size}")


def _validate(module: SharedModule) -> dict[str, SharedFunction]:
    check_unique("function", [f.name for f in module.functions])
    funcs = {f.name: f for f in module.functions}
    names = [v.name for v in module.variables] + [v.name for f in module.functions for v in f.shared]
    check_unique("shared variable", names)
    for v in module.variables:
        _check_var(v, "module")
    module_names = {v.name for v in module.variables}
    for f in module.functions:
        own = set()
        for v in f.shared:
            _check_var(v, f"function {f.name!r}")
            if v.scope is not SharedScope.INTERNAL:
                raise ModelError(f"function-scope shared variable {v.name!r} of {f.name!r} must be INTERNAL, not {v.scope.value}")
            own.add(v.name)
        for name in sorted(f.uses):
            if name not in module_names and name not in own:
                raise ModelError(f"function {f.name!r} uses unknown shared variable {name!r}")
        for callee in f.calls:
            if callee not in funcs:
                raise ModelError(f"function {f.name!r} calls unknown function {callee!r}")
            if funcs[callee].kernel:
                raise ModelError(f"function {f.name!r} calls kernel {callee!r}")
    return funcs


def _reach(kernel: SharedFunction, funcs: Mapping[str, SharedFunction]) -> set[str]:
    """Names of the device functions ``kernel`` reaches through calls (itself excluded)."""
    seen: set[str] = set()
    stack = list(kernel.calls)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(funcs[name].calls)
    seen.discard(kernel.name)
    return seen


def _triples(vs: Iterable[SharedVar]) -> list[tuple[str, int, int]]:
    return [(v.name, v.size, v.align) for v in vs]


def _used_first(f: SharedFunction) -> list[SharedVar]:
    return [v for v in f.shared if v.name in f.uses] + [v for v in f.shared if v.name not in f.uses]


# --- whole program ------------------------------------------------------------------------------


def _whole_program(module: SharedModule, funcs: Mapping[str, SharedFunction], base: int) -> SharedLayout:
    externs = [v for v in module.variables if v.scope is SharedScope.EXTERN]
    dyn_align = max([16] + [v.align for v in externs]) if externs else 0
    decl = {v.name: (i, v) for i, v in enumerate(module.variables)}
    creation = {f.name: i for i, f in enumerate(module.functions)}
    sections: dict[str, SharedSection] = {}
    offsets: dict[str, dict[str, int]] = {}
    for k in module.functions:
        if not k.kernel:
            continue
        callees = [funcs[name] for name in sorted(_reach(k, funcs), key=creation.__getitem__)]
        used = set(k.uses).union(*(f.uses for f in callees))
        module_used = [decl[name][1] for name in sorted((n for n in used if n in decl), key=lambda n: decl[n][0])]
        live = (
            [v for v in module_used if v.scope is SharedScope.VISIBLE]
            + [v for v in k.shared if v.name in k.uses]
            + [v for v in module_used if v.scope is SharedScope.INTERNAL]
            + [v for f in callees for v in f.shared if v.name in f.uses]
        )
        dead = [v for v in k.shared if v.name not in k.uses] + [v for f in callees for v in f.shared if v.name not in f.uses]
        order = live + dead
        placed, end, align = sequential(_triples(order))
        mine = {name: base + off for name, off in placed.items()}
        if externs:
            # The dynamic area starts after the referenced variables; the unreferenced tail may
            # overlap it, but still counts for the section size (measured in SASS on sm_75).
            live_end = sequential(_triples(live))[1]
            end = align_up(end, dyn_align)
            align = max(align, dyn_align)
            for v in module_used:
                if v.scope is SharedScope.EXTERN:
                    mine[v.name] = base + align_up(live_end, max(16, externs[0].align, v.align))
        elif not order:
            offsets[k.name] = mine
            continue
        sections[kernel_section(k.name)] = SharedSection(base + end, align)
        offsets[k.name] = mine
    if externs and not any(k.kernel for k in module.functions):
        # no kernel to give the dynamic area to: ptxas makes .nv_debug.shared instead, the
        # reserved base long and aligned R (tests/probes_data/shared_extern_no_kernel)
        sections[DEBUG_SECTION] = SharedSection(base, dyn_align)
    return SharedLayout(sections, offsets, {})


# --- -g: the interference allocator -------------------------------------------------------------


@attrs.frozen
class SharedObject:
    """A module-scope object of the ``-g`` interference allocator.

    ``users`` are the kernels that reach the object through the call graph; ``referenced`` is
    False when no function at all names it (it is then dropped).
    """

    name: str
    size: int
    align: int
    users: frozenset[str] = attrs.field(default=frozenset(), converter=_frozenset)
    referenced: bool = True
    extern: bool = False


@attrs.frozen
class DebugKernel:
    """A kernel for the ``-g`` allocator: its own function-scope variables, used ones first."""

    name: str
    own: tuple[SharedVar, ...] = attrs.field(default=(), converter=_tuple)


@attrs.frozen
class ColourGroup:
    offset: int
    size: int
    align: int
    members: tuple[str, ...]


def colour_objects(
    objects: Sequence[SharedObject], *, base: int = 0
) -> tuple[dict[str, int], list[ColourGroup], dict[str, list[SharedObject]], list[SharedObject]]:
    """Sort, privatise and colour ``objects`` (ptxas's declaration-order list, see the module doc).

    Returns (colour of each coloured object, the groups laid out from ``base``, the privatised
    objects per kernel in sorted order, the coloured objects in colouring order).
    """
    ordered = list_sort(list(objects), lambda a, b: a.size >= b.size)
    kernel_mask: dict[str, int] = {}
    colour: dict[str, int] = {}
    sizes: list[int] = []
    aligns: list[int] = []
    members: list[list[str]] = []
    private: dict[str, list[SharedObject]] = {}
    coloured: list[SharedObject] = []
    for obj in ordered:
        if obj.extern or not obj.referenced:
            continue
        if len(obj.users) == 1:
            (user,) = obj.users
            private.setdefault(user, []).append(obj)
            continue
        taken = 0
        for k in obj.users:
            taken |= kernel_mask.get(k, 0)
        c = (~taken & (taken + 1)).bit_length() - 1
        bit = 1 << c
        for k in obj.users:
            kernel_mask[k] = kernel_mask.get(k, 0) | bit
        if c == len(sizes):
            sizes.append(0)
            aligns.append(1)
            members.append([])
        if obj.size > sizes[c]:
            sizes[c] = obj.size
        if obj.align > aligns[c]:
            aligns[c] = obj.align
        members[c].append(obj.name)
        colour[obj.name] = c
        coloured.append(obj)
    groups: list[ColourGroup] = []
    cursor = base
    for size, align, names in zip(sizes, aligns, members):
        cursor = align_up(cursor, align)
        groups.append(ColourGroup(cursor, size, align, tuple(names)))
        cursor += size
    return colour, groups, private, coloured


def allocate_debug_shared(
    objects: Sequence[SharedObject], kernels: Sequence[DebugKernel], *, base: int = 0, memo: dict[object, object] | None = None
) -> SharedLayout:
    """The ``-g`` layout of module objects shared by ``kernels`` (see the module doc).

    ``objects`` must be in ptxas's list order: visible module variables, internal ones, externs
    (each in declaration order), then every device function's variables (functions in creation
    order, each function's used variables first). Unreferenced and extern objects take part in
    the sort, so they must be passed too.

    ``memo``: a dict kept by a caller that calls again with the same objects and kernels but
    other users (cubinemit.semantic's search for users): the inputs are checked on the first
    call only, and each kernel's placement is remembered by where its section starts.
    """
    if memo is None or "checked" not in memo:
        check_unique("shared object", [o.name for o in objects] + [v.name for k in kernels for v in k.own])
        check_unique("kernel", [k.name for k in kernels])
        for o in objects:
            check_object("shared object", o.name, o.size, o.align, min_size=0 if o.extern else 1)
        for k in kernels:
            for v in k.own:
                check_object("shared variable", v.name, v.size, v.align)
        if memo is not None:
            memo["checked"] = True
    known = {k.name for k in kernels}
    for o in objects:
        for user in o.users:
            if user not in known:
                raise ModelError(f"shared object {o.name!r} is used by unknown kernel {user!r}")
    colour, groups, private, coloured = colour_objects(objects, base=base)
    externs = [o for o in objects if o.extern]
    debug_align = max([o.align for o in objects] + [1])
    if externs:
        debug_align = max(debug_align, 16)

    sections: dict[str, SharedSection] = {}
    symbols: dict[str, tuple[str, int]] = {}
    offsets: dict[str, dict[str, int]] = {k.name: {} for k in kernels}
    start = {k.name: base for k in kernels}
    for obj in coloured:
        off = groups[colour[obj.name]].offset
        symbols[obj.name] = (DEBUG_SECTION, off)
        end = off + obj.size
        for user in obj.users:
            offsets[user][obj.name] = off
            if end > start[user]:
                start[user] = end
    if coloured:
        last = groups[-1]
        sections[DEBUG_SECTION] = SharedSection(last.offset + last.size, debug_align)
    elif externs:
        sections[DEBUG_SECTION] = SharedSection(base, 16)

    static_end: dict[str, int] = {}
    private_align: dict[str, int] = {}
    for k in kernels:
        items = _triples(k.own) + [(o.name, o.size, o.align) for o in private.get(k.name, ())]
        key = (k.name, tuple(items), start[k.name])
        if memo is not None and key in memo:
            placed, end, align = memo[key]  # type: ignore[misc]
        else:
            placed, end, align = sequential(list_sort(items, by_alignment_then_size), start[k.name])
            if memo is not None:
                memo[key] = (placed, end, align)
        static_end[k.name] = end
        private_align[k.name] = align if items else 1
        for name, off in placed.items():
            offsets[k.name][name] = off
            symbols[name] = (kernel_section(k.name), off)

    # Externs: kernels joined by a common extern share one dynamic-area offset.
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for o in externs:
        users = sorted(o.users)
        for other in users[1:]:
            parent[find(other)] = find(users[0])
    comp_end: dict[str, int] = {}
    for o in externs:
        for user in o.users:
            root = find(user)
            comp_end[root] = max(comp_end.get(root, base), static_end[user])
    extern_users: set[str] = set()
    final_end = dict(static_end)
    for o in externs:
        value = align_up(comp_end[find(next(iter(o.users)))], 16) if o.users else base
        symbols[o.name] = (DEBUG_SECTION, value)
        for user in o.users:
            extern_users.add(user)
            offsets[user][o.name] = value
            final_end[user] = max(final_end[user], value)

    uses_coloured = {user for obj in coloured for user in obj.users}
    # with externs declared, any coloured object gives every kernel a section, empty or not,
    # while .nv_debug.shared is aligned 16 (measured on sm_75/sm_80: an uncalled fn0 naming
    # its own variable or a module one, or two kernels sharing a module variable, and k2
    # naming nothing gets .nv.shared.k2 of 0 bytes aligned 16; none when nothing is coloured
    # (only the extern named, or a variable one kernel names), none without externs, none
    # once an extern or any object is aligned 32 or more: sh_rext2026)
    every = bool(externs) and debug_align <= 16 and bool(coloured)
    for k in kernels:
        has_private = bool(k.own) or bool(private.get(k.name))
        if not (has_private or every or k.name in uses_coloured or k.name in extern_users):
            continue
        align = private_align[k.name]
        if coloured:
            align = max(align, debug_align)
        if k.name in extern_users:
            align = max(align, 16)
        sections[kernel_section(k.name)] = SharedSection(final_end[k.name], align)
    return SharedLayout(sections, offsets, symbols)


def debug_objects(module: SharedModule) -> tuple[list[SharedObject], list[DebugKernel]]:
    """The ``-g`` allocator's inputs for a module (users through the call graph)."""
    funcs = _validate(module)
    kernels = [f for f in module.functions if f.kernel]
    users_of: dict[str, set[str]] = {}
    referenced: set[str] = set()
    for f in module.functions:
        referenced |= f.uses
    for k in kernels:
        for fname in _reach(k, funcs) | {k.name}:
            for name in funcs[fname].uses:
                users_of.setdefault(name, set()).add(k.name)

    def obj(v: SharedVar) -> SharedObject:
        return SharedObject(v.name, v.size, v.align, frozenset(users_of.get(v.name, ())), v.name in referenced, v.scope is SharedScope.EXTERN)

    objects = (
        [obj(v) for v in module.variables if v.scope is SharedScope.VISIBLE]
        + [obj(v) for v in module.variables if v.scope is SharedScope.INTERNAL]
        + [obj(v) for v in module.variables if v.scope is SharedScope.EXTERN]
        + [obj(v) for f in module.functions if not f.kernel for v in _used_first(f)]
    )
    return objects, [DebugKernel(k.name, tuple(_used_first(k))) for k in kernels]


# --- -c -----------------------------------------------------------------------------------------


def _relocatable_size(items: Sequence[tuple[str, int, int]], align: int) -> int:
    total = sum(size for _, size, _ in items)
    # ptxas -c sizes a section as the plain sum of its objects, plus its alignment when the sum
    # does not exceed it (measured on 663 sections: 4 B at align 16 -> 20, 17 B -> 17).
    return total + align if total <= align else total


def _relocatable(module: SharedModule) -> SharedLayout:
    sections: dict[str, SharedSection] = {}
    symbols: dict[str, tuple[str, int]] = {}
    debug = [v for v in module.variables if v.scope is not SharedScope.EXTERN] + [
        v for f in module.functions if not f.kernel for v in f.shared
    ]
    debug_align = 0
    if debug:
        debug_align = max(v.align for v in debug)
        sections[DEBUG_SECTION] = SharedSection(_relocatable_size(_triples(debug), debug_align), debug_align)
        for v in debug:
            symbols[v.name] = (DEBUG_SECTION, v.align)
    for k in module.functions:
        if not k.kernel or not k.shared:
            continue
        align = max([v.align for v in k.shared] + [debug_align])
        sections[kernel_section(k.name)] = SharedSection(_relocatable_size(_triples(k.shared), align), align)
        for v in k.shared:
            symbols[v.name] = (kernel_section(k.name), v.align)
    return SharedLayout(sections, {}, symbols)


# --- entry point --------------------------------------------------------------------------------


def layout_shared(module: SharedModule, sm: int, mode: Mode = Mode.WHOLE_PROGRAM) -> SharedLayout:
    """Every shared section of a module for SM number ``sm`` under ``mode``."""
    funcs = _validate(module)
    base = facts(sm).shared_base
    if mode is Mode.WHOLE_PROGRAM:
        return _whole_program(module, funcs, base)
    if mode is Mode.RELOCATABLE:
        return _relocatable(module)
    objects, kernels = debug_objects(module)
    return allocate_debug_shared(objects, kernels, base=base)


# --- .nv.shared.reserved.0 ----------------------------------------------------------------------

#: weak symbol ptxas puts at the first free reserved byte (whole-program builds only)
RESERVED_ALIAS = "__nv_reservedSMEM_offset_0_alias"
#: reserved per-CTA object of targets listed in ArchFacts.reserved_smem_war_sms
RESERVED_WAR_VAR = ("__nv_reservedSMEM_gb10b_war_var", 0x80, 16)
#: reserved object of modules that use tcgen05.alloc
RESERVED_TCGEN05 = ("__nv_reservedSMEM_tcgen05_partition", 0x20, 1)


@attrs.frozen
class ReservedSmem:
    size: int
    align: int
    #: symbol -> st_value
    symbols: Mapping[str, int]


def layout_reserved_smem(sm: int, mode: Mode = Mode.WHOLE_PROGRAM, *, tcgen05: bool = False, tcgen05_first: bool = False) -> ReservedSmem | None:
    """``.nv.shared.reserved.0`` (None where ptxas emits none).

    Measured: sm_90 keeps an empty section (only the alias at 0); sm_100+ reserve 0x40 bytes;
    sm_110 adds the 0x80-byte WAR object at 0x40 (align 16); tcgen05.alloc adds a 0x20-byte
    partition object after those, or before the WAR object where ptxas met the allocation
    before the first kernel (``tcgen05_first``: a device function defined first,
    tests/probes_compat/tensor_memory_callee sm_110a; not under -g, which only names it
    first). ``-g`` has no alias and no section
    without objects; ``-c`` gives symbol values = alignment and sizes by the relocatable rule.
    """
    arch = facts(sm)
    if arch.reserved_smem_base is None:
        return None
    objs = []
    if sm in arch.reserved_smem_war_sms:
        objs.append(RESERVED_WAR_VAR)
    if tcgen05:
        # (-g lays the WAR object out first all the same, though it names the partition first)
        objs.insert(0 if tcgen05_first and mode is not Mode.DEBUG else len(objs), RESERVED_TCGEN05)
    align = max([a for _, _, a in objs] + [1])
    if mode is Mode.RELOCATABLE:
        if not objs:
            return None
        return ReservedSmem(_relocatable_size(objs, align), align, {name: a for name, _, a in objs})
    placed, end, align = sequential(objs, arch.reserved_smem_base)
    if mode is Mode.DEBUG:
        if not objs:
            return None
        return ReservedSmem(end, align, placed)
    return ReservedSmem(end, align, {RESERVED_ALIAS: arch.reserved_smem_base, **placed})
