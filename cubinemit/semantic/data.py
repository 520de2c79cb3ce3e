"""Module data at the semantic level: ``.global``, ``.const`` and ``.shared`` variables.

The leaf data of a variable is what a compiler declares: name, space, size, alignment,
initialiser, linkage and the relocations inside its initialiser (by symbol name, offset from the
variable's start). Offsets, section sizes and alignments, ``.nv.constant4`` and every symbol are
derived here with the allocators of :mod:`cubinemit.alloc`.

Creation order, measured on ptxas 13.0.88 (tests/probes_data, tests/alloc/probes,
tests/probes_weak): right after the first function's symbols, ptxas walks the variables visible
and weak first, then the others, each group in declaration order. A variable whose section does
not exist yet creates it (with its section symbol); a weak variable gets its WEAK symbol then, a
non-visible one its LOCAL symbol, a visible one its GLOBAL symbol after the first function's. In
whole-program builds the global-address bank ``.nv.constant4`` is made right after the first ``.global`` variable, or before every variable when the first function
calls an extern function (its address takes the first slot).

Shared memory: a variable's users (the functions whose code references it) and its scope (the
function declaring it) are leaf data; :func:`shared_layout` runs cubinemit.alloc.shared for the
build mode. Decomposition recovers what each mode records: whole-program builds keep only
section sizes (one object per kernel), -c builds every variable's symbol and the relocations
that name it, -g builds the placement of kernel-private objects and of coloured ones (their
users searched for), and the traces of variables ptxas dropped (no function references them:
they are walked and sorted, never named). -c and -g walk module .shared variables with the
.global and .const ones, in declaration order.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence

import attrs

from ..alloc import (
    ConstVar,
    GlobalVar,
    Mode,
    SectionLayout,
    SharedFunction,
    SharedLayout,
    SharedModule,
    SharedObject,
    SharedScope,
    SharedVar,
    allocate_debug_shared,
    constant4_order,
    debug_objects,
    layout_constant3,
    layout_globals,
    align_up,
    layout_shared,
    list_sort,
)
from ..arch import Family, facts, family_of
from ..elf.constants import (
    SHF_ALLOC,
    SHF_WRITE,
    SHT_CUDA_CONSTANT,
    SHT_CUDA_GLOBAL,
    SHT_CUDA_GLOBAL_INIT,
    SHT_CUDA_SHARED,
    SHT_NOBITS,
    SHT_PROGBITS,
)
from ..elf.constants import SHN_COMMON, STB_GLOBAL, STB_LOCAL, STB_WEAK, STT_SECTION
from ..elf.model import ElfObject, Section, Symbol
from ..elf.model import Relocation as ElfRelocation
from ..elf.order import symbol_order
from ..errors import ModelError
from ..funcorder import is_builtin_name
from ..nvinfo.gating import instruction_words
from .model import DataObject, Function, Module, Relocation

DEBUG_SHARED = ".nv_debug.shared"
GLOBAL_INIT = ".nv.global.init"
GLOBAL = ".nv.global"
CONSTANT3 = ".nv.constant3"
CONSTANT4 = ".nv.constant4"

#: R_CUDA_64: the relocation of each .nv.constant4 slot
R_CUDA_64 = 2
#: R_CUDA_FUNC_DESC_64: a kernel's address in a variable's initializer, and its slot
R_CUDA_FUNC_DESC_64 = 35

#: the size of constant bank 0, which relocatable code asks the linker for: ptxas's test of a
#: generic address against the .const window (isspacep.global/.const) reads it through an
#: R_CUDA_ABS32_32 (tests/probes_data/const0_size)
CONST0_SIZE = ".nv.ptx.const0.size"


@attrs.frozen
class DataSection:
    """How ptxas makes one data section: its final name, the name it is created under per
    family (renamed later), and its type and flags per mode."""

    name: str
    exec_type: int
    rel_type: int
    flags: int
    #: creation name from sm_90 on (None: created under its final name)
    created_as_hopper: str | None = None
    #: creation name from sm_100 on
    created_as_blackwell: str | None = None

    def creation_name(self, sm: int) -> str:
        family = family_of(sm)
        if family is Family.BLACKWELL and self.created_as_blackwell:
            return self.created_as_blackwell
        if family is not Family.LEGACY and self.created_as_hopper:
            return self.created_as_hopper
        return self.name


#: The module data sections. Bank 4 is created as .nv.constant.pic from sm_90 on and bank 3 as
#: .nv.constant.user (measured: the old names stay in .strtab / as Mercury clone names).
SECTIONS = {
    GLOBAL_INIT: DataSection(GLOBAL_INIT, SHT_PROGBITS, SHT_CUDA_GLOBAL_INIT, SHF_ALLOC | SHF_WRITE),
    GLOBAL: DataSection(GLOBAL, SHT_NOBITS, SHT_CUDA_GLOBAL, SHF_ALLOC | SHF_WRITE),
    CONSTANT3: DataSection(CONSTANT3, SHT_PROGBITS, SHT_CUDA_CONSTANT + 3, SHF_ALLOC, ".nv.constant.user", ".nv.constant.user"),
    CONSTANT4: DataSection(CONSTANT4, SHT_PROGBITS, SHT_CUDA_CONSTANT + 4, SHF_ALLOC, ".nv.constant.pic", ".nv.constant.pic"),
    # module .shared variables (and device functions' ones) of -c and -g builds
    DEBUG_SHARED: DataSection(DEBUG_SHARED, SHT_NOBITS, SHT_CUDA_SHARED, SHF_ALLOC | SHF_WRITE),
}

#: sh_type of the Mercury clones of module data, in every mode: banks are typed 0x70000079 + N
#: (bank 3 -> 0x7000007c, bank 4 -> 0x7000007d), .nv.global.init keeps the relocatable type
MERCURY_DATA_TYPES = {CONSTANT3: 0x7000007C, CONSTANT4: 0x7000007D, GLOBAL_INIT: SHT_CUDA_GLOBAL_INIT}

#: the order in which ptxas asks for the relocation sections of module data (after the debug
#: payloads, before .debug_frame's): measured on every family
RELOCATION_ORDER = (CONSTANT4, CONSTANT3, GLOBAL_INIT)


def rela_asked_first(variables: Sequence[DataObject], names: Container[str]) -> bool:
    """Whether a data section holding ``names`` asks .rela before .rel: ptxas makes the
    initialisers' relocations walking the variables from the last declared back, each from its
    first element; a pointer with an offset (generic(x)+8) asks .rela, any other .rel, and the
    first one met asks first (global_tables: compute_75 PTX declares g_ops = {f, g} last,
    `.rel .rela`; compute_100 PTX g_ptr = generic(g_values)+8 last, `.rela .rel`; every
    target; tests/probes_data init_*_last). ``variables`` in declaration order."""
    last = next((v for v in reversed(variables) if v.name in names and v.relocations), None)
    return last is not None and bool(min(last.relocations, key=lambda r: r.offset).addend)


def initialiser_asks(legacy: bool, relocs: Sequence[Relocation], rela_first: bool) -> list[tuple[str, list[Relocation] | None]]:
    """The relocation sections ptxas asks for a data section's initialiser entries ``relocs``,
    in order, each with its entries (None: asked and dropped). Below sm_90 a pointer with an
    offset goes to .rela, the others to .rel, both kept (alone when every pointer has an
    offset, tests/probes_data gptr_addend); from sm_90 on every entry ends in .rela and a .rel
    asked is dropped. ``rela_first``: :func:`rela_asked_first`."""
    if not relocs:
        return []
    if legacy:
        rel = [r for r in relocs if r.addend is None]
        rela = [r for r in relocs if r.addend is not None]
        asks: list[tuple[str, list[Relocation] | None]] = [(kind, entries) for kind, entries in ((".rel", rel), (".rela", rela)) if entries]
    elif any(not r.addend for r in relocs):
        asks = [(".rel", None), (".rela", list(relocs))]
    else:
        return [(".rela", list(relocs))]
    return asks[::-1] if rela_first else asks


def initialiser_ask_order(legacy: bool, variables: Sequence[tuple[str, Sequence[Relocation]]]) -> list[tuple[str, str]]:
    """The (data section, .rel/.rela) pairs the initialisers ask, in order, across sections:
    ptxas walks the variables from the last declared back, each one's entries from its first
    element, and an entry asks its section's .rela when it has an offset, else .rel (from
    sm_90 on, where every entry ends in .rela, .rel then .rela). The walk goes over bank 3 and
    .nv.global.init at once: `gp = generic(g)+8; tbl = {f}` in .const, then `gfp = f` (-c,
    sm_90: ~.rel.nv.global.init .rela.nv.global.init ~.rel.nv.constant.user .rela.nv.constant3;
    sm_86: .rel.nv.global.init .rel.nv.constant3 .rela.nv.global.init; tests/probes_data
    init_across_sections). ``variables``: (section, relocations) in the data walk's order
    (:data:`WALKED_FIRST`, then the others; `gcp = generic(c)+68` visible, then a static
    `ftab = {f}`: .rel.nv.global.init before .rela, -c sm_90)."""
    out: list[tuple[str, str]] = []
    for section, relocs in reversed(variables):
        for r in sorted(relocs, key=lambda r: r.offset):
            kinds = [".rela"] if r.addend else [".rel"] if legacy else [".rel", ".rela"]
            out += [(section, k) for k in kinds if (section, k) not in out]
    return out


def _shared_declarers(module: Module) -> set[str]:
    """The device functions whose own .shared variables may be named right after their code.
    ptxas's builtins declare none: what is named after a builtin's code is the module data
    walk of the first function (-g -c: `.text.__cuda_sm3x_div_rn_noftz_f32_slowpath
    .nv_debug.shared CB1 CB2`; tests/probes_gshared/gsh_builtin_first)."""
    return {f.name for f in module.functions if not f.is_kernel and not is_builtin_name(f.name)}


def local_block(data: Sequence[DataObject]) -> tuple[int, int] | None:
    """The size and alignment of every kernel's ``.nv.local.<k>``: the module-scope
    ``.local`` variables in declaration order, each at its alignment, unused ones too; the
    size not rounded up (gpuocelot sequence2; tests/probes_directives module_local: .u8,
    .u64, .u8, .u16 take 20 bytes, aligned 8). None without such variables."""
    end, align = 0, 0
    for d in data:
        if d.space == "local":
            end = -(-end // d.align) * d.align + d.size
            align = max(align, d.align)
    return (end, align) if align else None


def section_of(obj: DataObject) -> str:
    if obj.space == "shared" and obj.scope is None:
        return DEBUG_SHARED
    if obj.space == "const":
        return CONSTANT3
    if obj.space == "global":
        return GLOBAL if obj.init is None else GLOBAL_INIT
    raise NotImplementedError(f"data object {obj.name!r} in .{obj.space} is not placed by the builder yet")


#: the linkages ptxas walks (and lays out) first: visible variables and weak ones (`.weak`, nvcc's
#: templated __device__/__shared__ variables under -rdc), one group in declaration order
#: (tests/probes_weak weak_mixed, every target and mode: `.global g_s1; .weak .global g_w1;
#: .visible .global g_v1; .weak .const c_w1` names g_w1 before .nv.constant3 is made, and the
#: whole-program .nv.constant3, laid out unsorted, holds c_w1 before c_v1 before c_s1)
WALKED_FIRST = ("visible", "weak")


def walked_first(v: DataObject) -> bool:
    return v.linkage in WALKED_FIRST


def data_walk(variables: Iterable[DataObject]) -> list[DataObject]:
    """``variables`` in the order ptxas walks the module data: the visible and weak ones
    first, then the others, each group in declaration order."""
    vs = list(variables)
    return [v for v in vs if walked_first(v)] + [v for v in vs if not walked_first(v)]


def alloc_mode(module: Module) -> Mode:
    if module.options.get("compile_only"):
        return Mode.RELOCATABLE
    if module.device_debug:
        return Mode.DEBUG
    return Mode.WHOLE_PROGRAM


@attrs.frozen
class DataPlan:
    """Every module variable's placement: section -> layout, the variables in walk order (visible
    and weak ones first, declaration order), and the .nv.constant4 slots (whole program)."""

    variables: tuple[DataObject, ...]
    layouts: dict[str, SectionLayout]
    constant4: tuple[str, ...]
    #: the kernels whose addresses initializers hold, with the first .nv.constant4 slots
    descriptors: tuple[str, ...] = ()

    def walk(self) -> list[DataObject]:
        return data_walk(self.variables)


def plan(module: Module, function_order: Sequence[str], shared: SharedLayout | None = None) -> DataPlan:
    """Lay the module's variables out as ptxas does for its mode (module .shared variables
    have symbols in .nv_debug.shared in -c and -g builds only)."""
    mode = alloc_mode(module)
    # -c and -g walk module .shared variables with the others, in declaration order; extern
    # .global/.const variables are not placed (undefined symbols, -c)
    shared_too = mode is not Mode.WHOLE_PROGRAM
    variables = [
        d
        for d in module.data
        if (d.space in ("global", "const") and d.linkage not in ("extern", "common")) or (shared_too and d.space == "shared" and d.scope is None and d.linkage != "extern")
    ]
    for v in variables:
        if v.linkage not in ("visible", "weak", "static"):
            raise NotImplementedError(f"data object {v.name!r}: {v.linkage} variables are not placed by the builder yet")
        if v.init is not None and len(v.init) != v.size:
            raise ModelError(f"data object {v.name!r}: initialiser has {len(v.init)} bytes, size is {v.size}")
        for r in v.relocations:
            if not 0 <= r.offset < v.size:
                raise ModelError(f"data object {v.name!r}: relocation at {r.offset:#x} lies outside its {v.size} bytes")
    globals_ = layout_globals([GlobalVar(v.name, v.size, v.align, walked_first(v), v.init is not None) for v in variables if v.space == "global"])
    consts = layout_constant3([ConstVar(v.name, v.size, v.align, walked_first(v)) for v in variables if v.space == "const"], mode)
    layouts = {GLOBAL_INIT: globals_.init, GLOBAL: globals_.uninit, CONSTANT3: consts}
    if shared is not None and DEBUG_SHARED in shared.sections:
        sec = shared.sections[DEBUG_SHARED]
        externs = {d.name for d in module.data if d.space == "shared" and d.linkage == "extern"}
        layouts[DEBUG_SHARED] = SectionLayout({n: v for n, (where, v) in shared.symbols.items() if where == DEBUG_SHARED and n not in externs}, sec.size, sec.align)
    slots: list[str] = []
    if mode is Mode.WHOLE_PROGRAM:
        # every .global variable and every extern function a kernel calls takes a slot
        externs = {f.name for f in module.functions if f.linkage == "extern"}
        declared = [f.name for f in module.functions]
        by_name = {f.name: f for f in module.functions}
        per_function = [sorted({c for c in by_name[n].calls if c in externs}, key=declared.index) for n in function_order]
        gvars = [GlobalVar(v.name, v.size, v.align, walked_first(v), v.init is not None) for v in variables if v.space == "global"]
        slots = constant4_order(per_function, gvars)
        # a kernel's address in an initializer (clang -fgpu-rdc's __clang_gpu_used_external)
        # takes a slot too (R_CUDA_FUNC_DESC_64), before the variables', the kernels in
        # declaration order (CUDA samples Mandelbrot: {1d, 1f, 0d, 0f} declared 0f 0d 1f 1d
        # has those slots), and the bank is made before any variable (tests/probes_data
        # init_kernel_addresses)
        taken = {str(r.symbol) for v in variables for r in v.relocations if r.type == R_CUDA_FUNC_DESC_64}
        descriptors = [n for n in declared if n in taken]
        given = module.facts.get("descriptor_order")  # decompose._descriptor_slots
        if given is not None:
            if not isinstance(given, list) or sorted(map(str, given)) != sorted(descriptors):
                raise ModelError(f"fact descriptor_order {given!r} does not list the kernels initializers take: {', '.join(descriptors)}")
            descriptors = [str(n) for n in given]
        if descriptors:
            if per_function and per_function[0]:
                raise NotImplementedError("kernel addresses in initializers beside extern calls of the first function: the order of their .nv.constant4 slots is not measured")
            return DataPlan(tuple(variables), layouts, tuple(descriptors + [n for n in slots if n not in descriptors]), tuple(descriptors))
    return DataPlan(tuple(variables), layouts, tuple(slots))


# --- decomposition -------------------------------------------------------------------------------


def _lowbit(value: int, cap: int) -> int:
    return cap if value == 0 else min(value & -value, cap)


def infer_alignments(placed: Sequence[tuple[str, int, int]], section_align: int, *, sort: bool) -> dict[str, int]:
    """Declared alignments that make ptxas's layout rule place ``(name, offset, size)`` where they
    are (the cubin does not record them). Placement order is offset order. Each variable gets the
    largest power of two its offset allows, capped by the section's alignment and, for sorted
    sections (larger alignment first, then smaller size), by its predecessor's alignment, halved
    when an equal alignment would put a smaller variable after a larger one."""
    out: dict[str, int] = {}
    prev_align, prev_size = section_align, -1
    for name, offset, size in sorted(placed, key=lambda p: p[1]):
        a = _lowbit(offset, section_align)
        if sort:
            a = min(a, prev_align)
            if a == prev_align and size < prev_size:
                a //= 2
            if a < 1:
                raise NotImplementedError(f"data object {name!r}: no declared alignment reproduces offset {offset:#x}")
        out[name] = a
        prev_align, prev_size = a, size
    return out


#: leaves of the alignment search of :func:`search_alignments` before it gives up
ALIGN_SEARCH_LIMIT = 20_000


def search_alignments(placed: Sequence[tuple[str, int, int]], section_align: int, relayout: Callable[[dict[str, int]], bool]) -> dict[str, int] | None:
    """Declared alignments for a sorted section where :func:`infer_alignments`' guess does not
    reproduce the layout: equal keys come out of ptxas's list sort shuffled, so a variable may
    have been declared with less alignment than its offset allows (global_tables: ``g_values``
    .align 4 at 0x28 after three .align 8 pointers, ``g_name`` .align 1 after it). Each
    variable, in offset order, takes an alignment its offset and the gap before it allow, no
    larger than its predecessor's, the largest first; ``relayout`` says whether a candidate
    reproduces the section. None when nothing does within :data:`ALIGN_SEARCH_LIMIT` leaves."""
    items = sorted(placed, key=lambda p: p[1])
    bounds = []
    end = 0
    for name, offset, size in items:
        hi = _lowbit(offset, section_align)
        lo = 1
        while align_up(end, lo) != offset:
            lo *= 2
            if lo > hi:
                return None
        bounds.append((hi, lo))
        end = offset + size
    leaves = 0
    chosen: dict[str, int] = {}

    def walk(i: int, cap: int, prev_size: int) -> dict[str, int] | None:
        nonlocal leaves
        if i == len(items):
            leaves += 1
            return dict(chosen) if relayout(chosen) else None
        name, _, size = items[i]
        hi, lo = bounds[i]
        a = min(hi, cap)
        while a >= lo and leaves < ALIGN_SEARCH_LIMIT:
            if a < cap or size >= prev_size:  # equal alignments keep sizes non-decreasing
                chosen[name] = a
                found = walk(i + 1, a, size)
                if found is not None:
                    return found
            a //= 2
        return None

    return walk(0, section_align, -1)


def _kernel_alignments(placed: Sequence[tuple[str, int, int]], section_align: int) -> dict[str, int]:
    """-g kernel sections: :func:`infer_alignments` (sorted), except that an object as large as
    its predecessor gets half its alignment where the gap before it allows: equal keys come out
    of ptxas's list sort shuffled, a smaller alignment pins the order (sh_equal_sizes -g: e5 16,
    e1 8, e3 4 at 0x40, 0x50, 0x60). Where pinning runs out of alignments, equal keys keep
    theirs (the shuffle gave that order: random -g probe, three 40-byte .align 4 objects then
    a 20-byte one); the allocator's layout is checked afterwards either way."""
    try:
        return _kernel_alignments_pinned(placed, section_align, True)
    except NotImplementedError:
        return _kernel_alignments_pinned(placed, section_align, False)


def _kernel_alignments_pinned(placed: Sequence[tuple[str, int, int]], section_align: int, pin: bool) -> dict[str, int]:
    out = infer_alignments(placed, section_align, sort=True)
    prev: tuple[int, int, int] | None = None  # alignment, size, end of the predecessor
    for name, offset, size in sorted(placed, key=lambda p: p[1]):
        a = out[name] if prev is None else min(out[name], prev[0])  # never above its predecessor
        if pin and prev is not None and a == prev[0] and size == prev[1] and a > 1 and align_up(prev[2], a // 2) == offset:
            a //= 2
        elif prev is not None and a == prev[0] and size < prev[1]:
            # halving the predecessor may leave a smaller object after a larger one at the same
            # alignment, which the sort never does (sh_rand5 -g: k0v0 8 bytes halved to 4, m3 of
            # 3 bytes after it must be below 4)
            a //= 2
            if a < 1:
                raise NotImplementedError(f"data object {name!r}: no declared alignment reproduces offset {offset:#x}")
        out[name] = a
        prev = (a, size, offset + size)
    return out


#: relocatable output marks a variable's space in st_other (STT_CUDA_OBJECT symbols)
SPACE_MARKS = {"global": 0x20, "const": 0x80, "shared": 0x40}
#: the spaces of relocatable extern .global/.const variables, by mark
_EXTERN_SPACES = {SPACE_MARKS[space]: space for space in ("global", "const")}


def _extern_data(y: Symbol) -> bool:
    """An undefined GLOBAL .global/.const variable (an extern of a -c build), or a ``.common``
    one (SHN_COMMON)."""
    return y.type == 13 and y.bind == STB_GLOBAL and y.section is None and y.shndx in (0, SHN_COMMON) and (y.other & ~0x04) in _EXTERN_SPACES


#: the linkage of a defined variable's symbol, by binding
_LINKAGE_OF_BIND = {STB_GLOBAL: "visible", STB_WEAK: "weak", STB_LOCAL: "static"}
#: the module data sections the walk makes (final names)
_WALK_SECTIONS = (GLOBAL_INIT, GLOBAL, CONSTANT3, CONSTANT4, DEBUG_SHARED)
#: how many declaration orders of visible and weak variables :func:`walk_orders` may propose,
#: and for how many variables at most (the search recurses once per variable)
WEAK_ORDER_LIMIT = 2000
WEAK_SEARCH_VARIABLES = 400


def _walk_section(y: Symbol) -> str:
    """The module data section the walk makes for the variable of ``y`` (a module .shared
    variable privatised to a kernel under -g is walked in .nv_debug.shared)."""
    if y.section is None:
        raise ModelError(f"{y.name!r} is undefined")
    return DEBUG_SHARED if y.section.name.startswith(".nv.shared.") else y.section.name


def walk_orders(obj: ElfObject, visible: Sequence[Symbol], weak: Sequence[Symbol]) -> Iterator[list[str]]:
    """Declaration orders of the visible and weak variables (each list in its own declaration
    order) that reproduce the walk: ptxas walks them as one group, a visible variable making its
    section, a weak one its section and its WEAK symbol, the first .global one .nv.constant4
    (whole program); the section and weak symbols keep that order in .symtab. Weak variables as
    early as the symbols allow first; at most :data:`WEAK_ORDER_LIMIT` orders."""
    if not weak:
        yield [y.name for y in visible]
        return
    if len(visible) + len(weak) > WEAK_SEARCH_VARIABLES:
        raise NotImplementedError(f"weak variables: {len(visible) + len(weak)} visible and weak variables are too many to search their declaration order")
    weak_ids = {id(w) for w in weak}
    events: list[tuple[str, str]] = []
    for y in obj.symbols:  # LOCAL and WEAK ones in creation order
        if y.bind == STB_GLOBAL or y.section is None or y.section.mercury:
            continue
        if y.type == STT_SECTION and y.section.name in _WALK_SECTIONS:
            events.append(("sec", y.section.name))
        elif y.type != STT_SECTION and y.bind == STB_WEAK and id(y) in weak_ids:
            events.append(("weak", y.name))
    present = {name for kind, name in events if kind == "sec"}
    created: set[str] = set()
    start = 0
    if events[:1] == [("sec", CONSTANT4)]:  # made before the walk: the first function calls an extern
        created.add(CONSTANT4)
        start = 1
    found = 0

    def steps(y: Symbol, made: set[str]) -> list[tuple[str, str]]:
        if y.section is None:
            return []  # -c: an extern variable, undefined (named with the visible ones)
        out = []
        sec = _walk_section(y)
        if sec not in made:
            made.add(sec)
            if sec in present:
                out.append(("sec", sec))
        if y.bind == STB_WEAK:
            out.append(("weak", y.name))
        if sec in (GLOBAL, GLOBAL_INIT) and CONSTANT4 in present and CONSTANT4 not in made:
            made.add(CONSTANT4)
            out.append(("sec", CONSTANT4))
        return out

    def walk(i: int, j: int, at: int, made: set[str], order: list[str]) -> Iterator[list[str]]:
        nonlocal found
        if i == len(visible) and j == len(weak):
            found += 1
            yield list(order)
            return
        nexts = ([(weak[j], i, j + 1)] if j < len(weak) else []) + ([(visible[i], i + 1, j)] if i < len(visible) else [])
        for y, ni, nj in nexts:
            if found >= WEAK_ORDER_LIMIT:
                return
            nxt = set(made)
            expect = steps(y, nxt)
            if events[at : at + len(expect)] != expect:
                continue
            order.append(y.name)
            yield from walk(ni, nj, at + len(expect), nxt, order)
            order.pop()

    yield from walk(0, 0, start, created, [])


def decompose_data(obj: ElfObject, module: Module, symbols: list[Symbol] | None = None) -> list[str]:
    """The module's ``.global``/``.const`` variables from their symbols and section bytes, in the
    order ptxas walked them (visible and weak ones in one declaration order that reproduces the
    walk, then the others), with the relocations of their initialisers and alignments the
    layout rule reproduces. Returns the declaration order of every visible and weak variable
    (.shared ones of -c and -g builds included), for :func:`decompose_shared`. ``symbols``:
    elf.order.symbol_order(obj), when the caller has it."""
    from .decompose import _relocations

    sections = {}
    for s in obj.sections:
        if s.mercury:
            continue
        if s.name in (GLOBAL_INIT, GLOBAL, CONSTANT3):
            sections[id(s)] = s
    externs = {id(y) for y in obj.symbols if _extern_data(y) and alloc_mode(module) is Mode.RELOCATABLE}
    mode = alloc_mode(module)
    # module .shared variables with symbols are walked too (-c and -g)
    # (not ptxas's own reserved objects: sm_110's WEAK workaround variable is no module one)
    shared = set()
    if mode is not Mode.WHOLE_PROGRAM:
        shared = {id(s) for s in obj.sections if not s.mercury and (s.name == DEBUG_SHARED or s.name.startswith(".nv.shared.")) and s.name != ".nv.shared.reserved.0"}
    visible, weak, internal = [], [], []
    walked_shared = set()  # ids of the .shared ones (decompose_shared makes their objects)
    for y in symbol_order(obj) if symbols is None else symbols:
        if id(y) in externs:
            visible.append(y)  # declared among the visible ones (below)
            continue
        if y.section is None or y.type == STT_SECTION:
            continue
        if id(y.section) in shared and y.bind != STB_LOCAL and y.size and y.type in (1, 13):
            walked_shared.add(id(y))
            (visible if y.bind == STB_GLOBAL else weak).append(y)
            continue
        if id(y.section) not in sections:
            continue
        if y.bind == STB_LOCAL:
            internal.append(y)
        elif y.bind == STB_GLOBAL:
            visible.append(y)
        else:
            weak.append(y)
    by_name = {y.name: y for y in visible + weak}
    orders = walk_orders(obj, visible, weak)
    first = next(orders, None)
    if first is None:
        raise NotImplementedError(f"weak variables: no declaration order of {', '.join(y.name for y in weak)} among the visible ones reproduces the data walk")
    if not sections and not externs:
        return first  # .shared ones only: -c lays none out, -g checks its rebuild (_check_debug_shared)
    kept = len(module.data)
    fallback: list[str] | None = None

    def walked(order: list[str]) -> list[Symbol]:
        return [by_name[n] for n in order if id(by_name[n]) not in walked_shared] + internal

    while True:
        try:
            _decompose_data_in(obj, module, sections, externs, walked(first), _relocations)
            if weak:
                _check_constant4(obj, module)
                _check_relocation_asks(obj, module, strict=fallback is not None or mode is Mode.RELOCATABLE)
            return first
        except _AsksElsewhere:
            # -g: function addresses ptxas resolved ask too, unseen; the asks are a preference
            fallback = first
        except NotImplementedError:
            if not weak:
                raise
        del module.data[kept:]
        nxt = next(orders, None)
        if nxt is None and fallback is not None:
            nxt, first = fallback, fallback
            _decompose_data_in(obj, module, sections, externs, walked(first), _relocations)
            _check_constant4(obj, module)
            return first
        if nxt is None:
            raise NotImplementedError(f"weak variables: no declaration order of {', '.join(y.name for y in weak)} among the visible ones reproduces the data layout") from None
        first = nxt


class _AsksElsewhere(NotImplementedError):
    """-g: the relocation sections are asked in another order than this declaration order
    gives, which resolved function addresses may explain."""


def _check_relocation_asks(obj: ElfObject, module: Module, strict: bool = True) -> None:
    """The initialisers' .rel and .rela sections are asked in the order the last declared
    variable with relocations gives (:func:`rela_asked_first`): a weak variable declared
    after the visible ones moves it (clang's weak vtables _ZTV* after `opp =
    generic(ops)+8`, tests/probes_weak/weak_vtable_last). Both names stay in .shstrtab, a
    dropped one's too. Not in whole-program builds, where function addresses ptxas resolved
    ask as well and leave no entry (fact resolved_data); under -g (some resolved, some not:
    tests/probes_data/init_fptr_linkages) only a preference, when ``strict`` is False: the
    first order that passes the rest is taken when none gives the asks."""
    mode = alloc_mode(module)
    if mode is Mode.WHOLE_PROGRAM:
        return  # function addresses ptxas resolved asked too, unseen (fact resolved_data)
    at = {slot.text: i for i, slot in enumerate(obj.shstrtab.slots)}
    for name in (CONSTANT3, GLOBAL_INIT):
        rel, rela = at.get(".rel" + name), at.get(".rela" + name)
        if rel is None or rela is None:
            continue
        names = {d.name for d in section_variables(module.data, name)}
        if rela_asked_first(module.data, names) != (rela < rel):
            error = NotImplementedError if strict else _AsksElsewhere
            raise error(f"{name}: its relocation sections are not asked in this declaration order")


def constant4_slots(obj: ElfObject) -> list[ElfRelocation] | None:
    """The relocations of .nv.constant4's slots (not its Mercury clone's), by slot offset;
    None without the bank."""
    bank = next((s for s in obj.sections if not s.mercury and s.name == CONSTANT4), None)
    if bank is None:
        return None
    return sorted((r for s in obj.relocation_sections() if s.info is bank and not s.mercury for r in s.relocs or ()), key=lambda r: r.offset)


def sorted_by_alignment(name: str, mode: Mode) -> bool:
    """Whether ptxas lays data section ``name`` out sorted by alignment and size
    (alloc.data._sorted_section): every one but whole program's .nv.constant3, which keeps
    declaration order."""
    return name != CONSTANT3 or mode is not Mode.WHOLE_PROGRAM


def section_variables(data: Sequence[DataObject], name: str) -> list[DataObject]:
    """The .global/.const variables of ``data`` that live in data section ``name``."""
    return [d for d in data if d.space in ("global", "const") and section_of(d) == name]


def _check_constant4(obj: ElfObject, module: Module) -> None:
    """Whole program: the .global variables hold their .nv.constant4 slots in walk order."""
    relocs = constant4_slots(obj)
    if relocs is None:
        return
    names = {d.name for d in module.data if d.space == "global"}
    slots = [r.symbol.name for r in relocs if r.symbol is not None and r.symbol.name in names]
    walk = [d.name for d in data_walk(module.data) if d.space == "global"]
    if slots != walk:
        raise NotImplementedError(".nv.constant4: the slots of the .global variables are not in this walk order")


def _decompose_data_in(obj: ElfObject, module: Module, sections: dict[int, Section], externs: set[int], walked: list[Symbol], _relocations: Callable) -> None:  # type: ignore[type-arg]
    """:func:`decompose_data` for one declaration order ``walked`` (visible and weak, then the others)."""
    by_section: dict[int, list[DataObject]] = {}
    placed: dict[int, list[tuple[str, int, int]]] = {}
    for y in walked:
        if id(y) in externs:
            # -c: an extern .global/.const variable (defined in another translation unit) is an
            # undefined GLOBAL STT_CUDA_OBJECT marked with its space, of its declared size,
            # named with the visible variables in declaration order (rdc_lib probe, every target)
            # -c .common .global: the same, in SHN_COMMON, its value the alignment (probe
            # tests/probes_directives/common_global)
            common = y.shndx == SHN_COMMON
            module.data.append(DataObject(name=y.name, space=_EXTERN_SPACES[y.other & ~0x04], size=y.size, align=y.value if common else 1, linkage="common" if common else "extern", managed=bool(y.other & 0x04)))
            continue
        s = y.section
        init = None if s.name == GLOBAL else bytes(s.data[y.value : y.value + y.size])
        v = DataObject(name=y.name, space="const" if s.name == CONSTANT3 else "global", size=y.size, init=init, linkage=_LINKAGE_OF_BIND[y.bind], managed=bool(y.other & 0x04))
        by_section.setdefault(id(s), []).append(v)
        placed.setdefault(id(s), []).append((y.name, y.value, y.size))
        module.data.append(v)
    mode = alloc_mode(module)
    for sid, variables in by_section.items():
        s = sections[sid]
        starts = {n: off for n, off, _ in placed[sid]}
        rank = {v.name: i for i, v in enumerate(variables)}

        def owner_of(offset: int, starts: dict[str, int] = starts, variables: list[DataObject] = variables) -> DataObject | None:
            return next((v for v in variables if starts[v.name] <= offset < starts[v.name] + v.size), None)

        for kind in (".rel", ".rela"):
            last = -1
            for r in _relocations(obj.find_section(f"{kind}{s.name}")):
                owner = owner_of(r.offset)
                if owner is None:
                    raise NotImplementedError(f"{s.name}: relocation at {r.offset:#x} lies outside every variable")
                # ptxas lists the entries variable by variable in declaration order (weak
                # vtables declared after visible tables: tests/probes_weak/weak_vtable_last)
                if rank[owner.name] < last:
                    raise NotImplementedError(f"{kind}{s.name}: the relocation entries are not in this declaration order")
                last = rank[owner.name]
                owner.relocations.append(Relocation(r.offset - starts[owner.name], r.type, r.symbol, r.addend))
        # the Mercury clone keeps the function addresses an executable resolved, in the same
        # order (sm_100+ whole program: the weak vtables' entries after ops' and opp's)
        for m in obj.sections:
            if m.mercury and m.relocs and isinstance(m.info, Section) and m.info.clone_of is s:
                owners = [owner_of(q.offset) for q in m.relocs]
                ranks = [rank[v.name] for v in owners if v is not None]
                if ranks != sorted(ranks):
                    raise NotImplementedError(f"{m.name}: the relocation entries are not in this declaration order")
        sort = sorted_by_alignment(s.name, mode)

        def relayout(aligns: dict[str, int], s: Section = s, variables: list[DataObject] = variables) -> bool:
            if s.name == CONSTANT3:
                layout = layout_constant3([ConstVar(v.name, v.size, aligns[v.name], walked_first(v)) for v in variables], mode)
            else:
                both = layout_globals([GlobalVar(v.name, v.size, aligns[v.name], walked_first(v), v.init is not None) for v in variables])
                layout = both.init if s.name == GLOBAL_INIT else both.uninit
            return dict(layout.offsets) == starts and layout.align == s.addralign

        aligns: dict[str, int] | None = infer_alignments(placed[sid], s.addralign, sort=sort)
        if sort and not relayout(aligns):  # type: ignore[arg-type]
            aligns = search_alignments(placed[sid], s.addralign, relayout)
        if aligns is None or not relayout(aligns):
            raise NotImplementedError(f"{s.name}: the layout of {', '.join(v.name for v in variables)} is not reproduced by ptxas's rule with any inferred alignment")
        if sort:
            # C and C++ sizes are multiples of their alignment (nvcc declares `.align 1 .b8
            # x[1]`); where the layout holds with each alignment capped so, the capped ones are
            # taken: an offset alone over-states it (libcu++'s one-byte __cpo objects after an
            # 8-byte variable, the first at 0x8: 4 reproduces the layout, and so does 1), and a
            # variable added beside them sorts by the true ones (CUDA samples
            # conjugateGradientMultiDeviceCG; tests/probes_edits/add_beside_ties)
            natural = {name: min(aligns[name], size & -size) for name, _, size in placed[sid]}
            if natural != aligns and relayout(natural):
                aligns = natural
        for v in variables:
            v.align = aligns[v.name]


# --- shared memory -------------------------------------------------------------------------------

#: name of the synthetic per-kernel object of a decomposed whole-program module
KERNEL_SHARED = "{kernel}$shared"
#: name of the synthetic module extern of a decomposed whole-program module
DYNAMIC_SHARED = "$dynamic_shared"


def shared_layout(module: Module, sm: int) -> SharedLayout | None:
    """The shared sections of the module (cubinemit.alloc.shared), or None without shared data."""
    shared_module = _shared_module(module)
    if shared_module is None:
        return None
    return layout_shared(shared_module, sm, alloc_mode(module))


def _shared_module(module: Module) -> SharedModule | None:
    """The module's shared memory as the allocator sees it (users -> each function's uses)."""
    shared = [d for d in module.data if d.space == "shared"]
    if not shared:
        return None
    # a weak module variable is listed with the visible ones (walked with them)
    scope = {"visible": SharedScope.VISIBLE, "weak": SharedScope.VISIBLE, "extern": SharedScope.EXTERN}
    variables = [SharedVar(d.name, d.size, d.align, scope.get(d.linkage, SharedScope.INTERNAL)) for d in shared if d.scope is None]
    defined = {f.name for f in module.functions if f.linkage != "extern"}
    edges = shared_calls(module)
    functions = []
    for f in module.functions:
        if f.name not in defined:
            continue
        own = tuple(SharedVar(d.name, d.size, d.align) for d in shared if d.scope == f.name)
        uses = frozenset(d.name for d in shared if f.name in d.users)
        calls = tuple(dict.fromkeys(c for c in edges[f.name] if c in defined))
        functions.append(SharedFunction(f.name, kernel=f.is_kernel, shared=own, uses=uses, calls=calls))
    if alloc_mode(module) is Mode.DEBUG and any(f.address_taken for f in module.functions):
        # -g lists the device functions' variables in .text order, which address takings move
        # away from the declaration order (random -g module r2078: f3, f2, f1, f0, each with
        # an equal-sized array, sort into colours f2, f0, f3, f1; tests/probes_gshared
        # gsh_indirect_text_order)
        from ..funcorder import function_order
        from .decompose import ptx_functions

        rank = {n: i for i, n in enumerate(function_order(ptx_functions(module), module.ordering_mode()))}
        device = iter(sorted((f for f in functions if not f.kernel), key=lambda f: rank.get(f.name, len(rank))))
        functions = [f if f.kernel else next(device) for f in functions]
    return SharedModule(tuple(variables), tuple(functions))


#: a -g .shared variable ptxas dropped (no function references it) but whose declaration left a
#: trace: (its object, where it goes in Module.data, or None to append it)
Phantom = tuple[DataObject, "int | None"]


def call_closure(funcs: Mapping[str, Function], name: str, edges: Mapping[str, Sequence[str]] | None = None) -> set[str]:
    """``name`` and every function of ``funcs`` it reaches through calls (``edges``: each
    function's callees, when not its ``calls``: :func:`shared_calls`)."""
    seen: set[str] = set()
    stack = [name]
    while stack:
        n = stack.pop()
        if n not in seen and n in funcs:
            seen.add(n)
            stack.extend(funcs[n].calls if edges is None else edges[n])
    return seen


def shared_calls(module: Module) -> dict[str, list[str]]:
    """Each function's callees as ptxas's -g shared-memory allocator follows them: its direct
    calls and, for a function making indirect calls, every address-taken function whose
    signature is one of its calls' prototypes (each one taken where the prototypes are not
    known). Measured on sm_90 -g (tests/probes_gshared/gsh_indirect_*): a kernel whose only
    path to a device function is a call through a pointer, taken by any function or by a
    global's initialiser, gets that function's .shared variables (and its callees') privatised
    in its section; a function of another signature stays coloured. Taking an address alone
    reaches nothing under -g. Whole-program builds are not given these edges: there a taking
    reaches too (a kernel storing f0's address gets f0_sh), but the reader holds each kernel's
    shared memory as one block, so only modules built from scratch would need them."""
    edges = {f.name: list(f.calls) for f in module.functions}
    if alloc_mode(module) is not Mode.DEBUG or not any(f.has_indirect_call for f in module.functions):
        return edges
    from ..funcorder import signature, taken_functions
    from .decompose import ptx_functions

    ptx = {p.name: p for p in ptx_functions(module)}
    taken = [f.name for f in module.functions if f.name in taken_functions(list(ptx.values())) and not f.is_kernel]

    def signed(name: str) -> str | None:
        try:
            return signature(ptx[name], module.sm)
        except ModelError:  # no .nv.prototype form (several return values): any call may reach it
            return None

    signatures = {t: signed(t) for t in taken}
    for f in module.functions:
        if f.has_indirect_call:
            protos = set(f.call_prototypes)
            edges[f.name] += [t for t in taken if t not in edges[f.name] and (not protos or signatures[t] in protos or signatures[t] is None)]
    return edges


def decompose_shared(obj: ElfObject, module: Module, phantoms: Sequence[Phantom] = (), budget: list[int] | None = None, walk_stop: str | None = None, walk: Sequence[str] = ()) -> None:
    """Whole-program shared memory: ptxas privatises what each kernel reaches and keeps no
    symbol, so a kernel's static shared memory is one object of its section's size past the
    reserved base and of its alignment (what a backend that placed its own variables knows).
    A kernel section of no static bytes exists only when the module declares extern (dynamic)
    shared memory: then the module gets one extern object aligned like that section."""
    names = [y.name for y in obj.symbols]
    if "__nv_reservedSMEM_tcgen05_partition" in names and "__nv_reservedSMEM_gb10b_war_var" in names:
        if names.index("__nv_reservedSMEM_tcgen05_partition") < names.index("__nv_reservedSMEM_gb10b_war_var"):
            # ptxas met the allocation before the first kernel (alloc.shared.layout_reserved_smem)
            module.facts["tcgen05_first"] = True
    for y in obj.symbols:
        if y.name == "__nv_reservedSMEM_tcgen05_partition":
            module.facts["tcgen05"] = True  # the code allocates tensor memory (tcgen05.alloc)
        # an undefined variable (an extern .shared or .global of a -c or -g build) other than
        # the reserved-SMEM and UDT/UFT symbols ptxas makes itself; -c extern .shared is modelled
        # (and the constant-bank size relocatable code asks the linker for: CONST0_SIZE)
        if y.type in (1, 13) and y.section is None and y.shndx == 0 and y.name and not y.name.startswith((".nv.reservedSmem.", "__UDT", "__UFT", ".nv.independent.")) and y.name != CONST0_SIZE:
            if alloc_mode(module) is Mode.RELOCATABLE and (y.other == 0x40 and y.bind == STB_GLOBAL or _extern_data(y)):
                continue
            raise NotImplementedError(f"undefined variable {y.name!r} (extern .shared/.global of a -c or -g build) is not implemented yet")
    sections = [s for s in obj.sections if not s.mercury and s.name.startswith(".nv.shared.") and s.name != ".nv.shared.reserved.0"]
    debug = [s for s in obj.sections if not s.mercury and s.name == ".nv_debug.shared"]
    if not sections and not debug and not phantoms and not (alloc_mode(module) is Mode.RELOCATABLE and any(y.other == 0x40 and y.section is None and y.type == 13 for y in obj.symbols)):
        return
    mode = alloc_mode(module)
    if mode is Mode.RELOCATABLE:
        _decompose_relocatable_shared(obj, module, sections + debug)
        _declaration_order(obj, module, walk)
        return
    if mode is Mode.DEBUG:
        _decompose_debug_shared(obj, module, sections, debug[0] if debug else None, phantoms, budget, walk_stop)
        _declaration_order(obj, module, walk)
        return
    base = facts(obj.sm).shared_base
    if debug:
        if sections or any(f.is_kernel for f in module.functions) or debug[0].nobits_size != base:
            raise NotImplementedError(f"decomposing {debug[0].name} of a whole-program build is not implemented")
        # no kernel: the module's extern (dynamic) shared memory leaves .nv_debug.shared, of
        # the reserved base's size and aligned like a kernel's dynamic area would be
        # (alloc.shared: shared_extern_no_kernel)
        module.data.append(DataObject(DYNAMIC_SHARED, "shared", 0, debug[0].addralign, linkage="extern"))
        return
    # from sm_90 on .nv.reservedSmem.cap follows the first kernel whose code names shared
    # memory: the static shared memory of a kernel made before it (of every kernel, without a
    # cap) is declared but never referenced (gsh_unused_no_cap: no cap, no .rel.text.k1)
    idle: set[str] = set()
    if family_of(obj.sm) is not Family.LEGACY:
        texts, cap_after = _cap_position(obj)
        idle = set(texts[: texts.index(cap_after)] if cap_after is not None else texts)
        # a later kernel's resolved references ask .rel and .rela (the .rela kept empty): a
        # kernel that asked neither references none (random probe r3025: k0's unused k0v0)
        asked = {slot.text for slot in obj.shstrtab.slots}
        idle |= {k for k in texts if not _asked_relocations(asked, k)}
    empty = []
    for s in sections:
        kernel = s.name[len(".nv.shared.") :]
        size = s.nobits_size - base
        if size < 0:
            raise NotImplementedError(f"{s.name}: {s.nobits_size} bytes is below the reserved base {base:#x}")
        if size == 0:
            empty.append(s)
            continue
        users = [] if kernel in idle else [kernel]
        module.data.append(DataObject(KERNEL_SHARED.format(kernel=kernel), "shared", size, s.addralign, users=users, scope=kernel))
    if empty:
        module.data.append(DataObject(DYNAMIC_SHARED, "shared", 0, max(s.addralign for s in empty), linkage="extern", users=_dynamic_users(obj, module, empty)))
    if family_of(obj.sm) is not Family.LEGACY:
        _dead_shared_references(obj, module)


def _asked_relocations(asked: set[str], function: str) -> bool:
    """Whether ptxas asked for a relocation section of ``function``'s code (``asked``: the
    section names its string tables keep, made sections and dropped ones alike); a resolved
    reference asks .rel.text.<f> and .rela.text.<f>, and keeps the .rela empty."""
    return f".rel.text.{function}" in asked or f".rela.text.{function}" in asked


def _kernels_with_copies(obj: ElfObject) -> set[str]:
    """Whole program: the kernels whose .text holds inlined callees' copies (``$k$f`` symbols),
    whose calls to them keep an empty .rela.text.<k> from sm_90 on whatever else they do."""
    return {y.section.name[len(".text.") :] for y in obj.symbols if y.name.startswith("$") and y.section is not None and y.section.name.startswith(".text.")}


def _dead_shared_references(obj: ElfObject, module: Module) -> None:
    """Whole program from sm_90 on: a kernel whose PTX references shared memory is followed by
    .nv.reservedSmem.cap, but when the optimizer removed every such reference (code after a
    `trap`, CuTe's sgemm_sm80 built for compute_75: assert, printf, trap) no resolved
    reference keeps an empty .rela.text.<k>, and on sm_90 the cap, never resolved, stays a
    named symbol instead of a tombstone (tests/probes_data/shared_refs_dead, every target from
    sm_90 on). Such a user without the empty .rela (and without clones, which keep one anyway):
    fact ``shared_refs_dead``."""
    live = {s.name for s in obj.sections if not s.mercury}
    inlined = _kernels_with_copies(obj)
    users = {u for d in module.data if d.space == "shared" for u in d.users}
    for fn in module.functions:
        if fn.name in users and fn.is_kernel and f".rela.text.{fn.name}" not in live and fn.name not in inlined:
            fn.facts["shared_refs_dead"] = True


def _declaration_order(obj: ElfObject, module: Module, walk: Sequence[str] = ()) -> None:
    """-c and -g: ptxas walks module .shared variables with the .global and .const ones, in
    declaration order (`.shared m1; .global gout; .const c1; .shared m2` -g and -c:
    `.nv_debug.shared m1 .nv.global gout .nv.constant3 c1 m2`): the module variables that
    have symbols take their places by symbol creation order, the visible and weak ones (named
    apart: visible ones late) by ``walk``, their declaration order from :func:`decompose_data`,
    after the others; the others (unnamed dropped variables, externs, function-scope ones) keep
    theirs."""
    index = {y.name: i for i, y in enumerate(obj.symbols) if y.type != STT_SECTION and y.name}
    slots = [
        i
        for i, d in enumerate(module.data)
        if d.name in index and (d.space in ("global", "const") or (d.space == "shared" and d.scope is None and d.linkage != "extern"))
    ]
    first = {n: i for i, n in enumerate(walk)}
    ordered = sorted((module.data[i] for i in slots), key=lambda d: (1, first[d.name]) if d.name in first else (0, index[d.name]))
    for i, d in zip(slots, ordered):
        module.data[i] = d


#: SASS opcodes (bits 0-11 of an instruction's first word) that access shared memory: LDS
#: 0x984, STS 0x388, ATOMS 0x38c (atom and red), LDSM 0x83b (ldmatrix), LDGSTS 0xfae
#: (cp.async), alike on sm_80, sm_90, sm_100a and sm_120 (measured on one kernel doing each).
#: ptxas's never-executed ``@!PT LDS RZ, [RZ]`` padding (predicate field 0xf) does not count.
#: Shared memory reached otherwise (TMA, wgmma descriptors, generic addresses) is not seen:
#: this can show that code uses shared memory, never that it does not.
_SHARED_ACCESS_OPS = frozenset({0x984, 0x388, 0x38C, 0x83B, 0xFAE})


def _accesses_shared(fn: Function, *, copies: bool = False) -> bool:
    """``fn``'s own code (before any inlined callee's copy; ``copies``: with them) holds a
    shared-memory access."""
    end = len(fn.sass) if copies else min((offset for _, offset, _ in fn.inlined), default=len(fn.sass))
    return any(word & 0xFFF in _SHARED_ACCESS_OPS and (word >> 12) & 0xF != 0xF for _, word in instruction_words(fn.sass, end))


def _dynamic_users(obj: ElfObject, module: Module, empty: list[Section]) -> list[str]:
    """Kernels without static shared memory that use the dynamic area: from sm_90 on such a
    kernel's resolved shared references leave an empty .rela.text.<k> (when it has no inlined
    callees that would leave one anyway), and the first kernel that uses shared memory is
    followed by .nv.reservedSmem.cap (or its tombstone). Below sm_90 the fact leaves no trace
    in the bytes.

    A kernel with inlined copies created after the cap's kernel keeps its .rela either way:
    its own code's shared-memory instructions make it a user (:func:`_accesses_shared`), else
    the cubin does not tell, which an edit that makes it the first kernel must know (llm.c
    layernorm_backward sm_90, whole program: without kernel6, the cap follows kernel5, whose
    code has its division's copies and stores to the dynamic area). Such a kernel gets fact
    ``shared_use_unknown`` (Module._refuse_unknown_shared_use)."""
    names = {s.name[len(".nv.shared.") :] for s in empty}
    live = {s.name for s in obj.sections if not s.mercury}
    inlined = _kernels_with_copies(obj)
    users = {k for k in names if f".rela.text.{k}" in live and k not in inlined}
    texts, cap_after = _cap_position(obj)
    if cap_after is None or family_of(obj.sm) is Family.LEGACY:
        return sorted(users)
    if cap_after in names:
        users.add(cap_after)
    functions = {f.name: f for f in module.functions}
    for k in texts[texts.index(cap_after) + 1 :]:
        fn = functions.get(k)
        if fn is None or k not in names or k not in inlined or k in users:
            continue
        if _accesses_shared(fn):
            users.add(k)
        else:
            fn.facts["shared_use_unknown"] = True
    return sorted(users)


def _decompose_relocatable_shared(obj: ElfObject, module: Module, sections: list[Section]) -> None:
    """-c: every .shared variable keeps a symbol whose value is its alignment. Module variables
    are named in .nv_debug.shared during the data walk; a function-scope one (named
    ``$__<name>__<line>``) is named while its function is processed, in .nv.shared.<k> for a
    kernel's own, in .nv_debug.shared for a device function's. Users are the functions whose
    relocations name a variable."""
    ids = {id(s) for s in sections}
    externs = [y for y in obj.symbols if y.type == 13 and y.section is None and y.shndx == 0 and y.other == 0x40 and y.bind == STB_GLOBAL]
    users: dict[str, list[str]] = {}
    for s in obj.sections:
        if s.relocs and isinstance(s.info, Section) and s.info.name.startswith(".text.") and not s.mercury:
            for r in s.relocs:
                if r.symbol is not None:
                    users.setdefault(r.symbol.name, [])
                    fname = s.info.name[len(".text.") :]
                    if fname not in users[r.symbol.name]:
                        users[r.symbol.name].append(fname)
    current = None
    visible, internal = [], []
    slots = [slot.text for slot in obj.strtab.slots]
    position = {t: i for i, t in enumerate(slots)}
    device = _shared_declarers(module)
    for y in obj.symbols:  # creation order
        if y.type == STT_SECTION and y.section is not None and y.section.name.startswith(".text."):
            current = y.section.name[len(".text.") :]
            continue
        if y.section is None or id(y.section) not in ids or y.type == STT_SECTION:
            continue
        if y.section.name.startswith(".nv.shared."):
            scope = y.section.name[len(".nv.shared.") :]
        elif y.bind != STB_LOCAL:
            # visible and weak module variables (-c puts a weak one in .nv_debug.shared too,
            # named in the walk: tests/probes_weak weak_shared_one)
            scope = None
        elif y.name.startswith("$__"):
            scope = current  # function scope: -c names them $__<name>__<PTX line>
        elif current in device and _named_after_code(slots, position, current, y.name, module.device_debug) and set(users.get(y.name, ())) <= {current}:
            # debug PTX keeps the PTX name (nvcc -G: `_ZZ8only_onefE3buf`); a device
            # function's variable is named right after its code section all the same (one
            # another function's code names is a module variable the data walk named after
            # the first function's code: dct8x8 -g -c, tests/probes_gshared/gsh_module_after_device)
            scope = current
        else:
            scope = None
        d = DataObject(y.name, "shared", y.size, y.value, None, _LINKAGE_OF_BIND[y.bind], users=users.get(y.name, []), scope=scope)
        (visible if y.bind == STB_GLOBAL else internal).append(d)
    # extern (dynamic) .shared stays undefined; the linker places it (alignment not recorded)
    extern = [DataObject(y.name, "shared", 0, 1, None, "extern", users=users.get(y.name, [])) for y in externs]
    module.data.extend(visible + internal + extern)
    _hidden_first_reference(obj, module, {d.name: d for d in visible + internal})
    if family_of(obj.sm) is not Family.LEGACY:
        _dead_relocatable_references(obj, module)


def _dead_relocatable_references(obj: ElfObject, module: Module) -> None:
    """-c from sm_90 on: .nv.reservedSmem.cap follows the first kernel whose PTX references
    shared memory; when the optimizer removed every such reference no relocation names a
    variable, and on sm_90 the cap, never referenced, stays a named symbol (CuTe sgemm_sm80
    for compute_75 -c: assert, printf, trap; tests/probes_data/shared_refs_dead). The kernel
    the cap follows that no relocation makes a user: fact ``shared_refs_dead``."""
    texts, cap_after = _cap_position(obj)
    if cap_after is None:
        return
    users = {u for d in module.data if d.space == "shared" for u in d.users}
    for fn in module.functions:
        if fn.name == cap_after and fn.is_kernel and fn.name not in users:
            fn.facts["shared_refs_dead"] = True


def _named_after_code(slots: Sequence[str], position: dict[str, int], function: str, name: str, debug: bool = False) -> bool:
    """-c: whether ``name`` is among the names right after ``.text.<function>`` (a device
    function's .shared variables, named before its .nv.info), rather than in the data walk.
    Under -g (``debug``) .nv_debug.shared may stand right after the code: the first of them
    makes it when nothing in the walk did (-g -c with only an extern .shared in the walk:
    `.text.f0 .nv_debug.shared fl0`). Elsewhere it is the data walk's, which can follow a
    builtin's code (llmc_train -c sm_75: `.text.__cuda_sm20_sqrt_rn_f32_slowpath
    .nv_debug.shared _ZZ..shared_val`)."""
    start, at = position.get(f".text.{function}"), position.get(name)
    if start is None or at is None or at <= start:
        return False
    between = slots[start + 1 : at]
    if debug and between[:1] == [DEBUG_SHARED]:
        between = between[1:]  # made right after the code, for this variable
    return not any(t.startswith((".nv.info.", ".text.", ".rel")) or t in _DATA_NAMES for t in between)


def _hidden_first_reference(obj: ElfObject, module: Module, shared: dict[str, DataObject]) -> None:
    """sm_90 -c: a kernel's reference to the tombstoned .nv.reservedSmem.cap is a relocation
    that leaves no entry; when it comes first, the relocation sections are asked before the
    kernel's first variable is named (matmul_tiled -c, sm_90: `.rel.text.k .rela.text.k Bs As`
    although Bs is the first relocation). Recorded as the fact ``resolved_relocations``."""
    slots = {slot.text: i for i, slot in enumerate(obj.strtab.slots) if slot.text}
    for fn in module.functions:
        if not fn.relocations:
            continue
        first = min(fn.relocations, key=lambda r: r.offset)
        var = shared.get(first.symbol or "")
        ask = slots.get(f".rel.text.{fn.name}")
        if var is not None and var.scope == fn.name and ask is not None and slots.get(var.name, -1) > ask:
            fn.facts["resolved_relocations"] = True


#: names of the module data sections and their creation names (the -g data walk)
_DATA_NAMES = frozenset({GLOBAL_INIT, GLOBAL, CONSTANT3, CONSTANT4, DEBUG_SHARED, ".nv.constant.user", ".nv.constant.pic"})


def _data_walk(obj: ElfObject, module: Module, stop: str | None = None) -> tuple[set[str], list[str]]:
    """-g: the names of the data walk, and those of them that live in a kernel's section
    (module variables privatised to it), in walk order. ``stop``: a name the walk is taken to
    end before (the kernel's own variable, named first by its code, that it reads as a module
    one below sm_90, where no cap tells: a retry of :func:`_settle_debug_shared`)."""
    data_names = {y.name for y in obj.symbols if y.section is not None and (y.section.name in _DATA_NAMES)}
    slots = [slot.text for slot in obj.strtab.slots]
    # the data walk: the names right after the first data section's, while they are data
    first_data = next((i for i, t in enumerate(slots) if t in _DATA_NAMES), None)
    walk: set[str] = set()
    shared_names: list[str] = []
    # from sm_90 on .nv.reservedSmem.cap (or its tombstone) follows the walk when the first
    # function names shared memory: what comes after it is not walked (random -g probe:
    # `o:gout <cap> o:k0v1 ~.rel.text.k0`, k0v1 k0's own variable)
    tombstones = tombstone_names(obj)
    cap = next((i for i, y in enumerate(obj.symbols) if is_cap(y, tombstones)), None)
    after_cap = {y.name for y in obj.symbols[cap + 1 :]} if cap is not None else set()
    # a kernel created before the cap (every kernel when there is none, sm_90 on) names no
    # shared memory: without callees nothing is privatised to it, so a name in its section
    # right after the walk is its own unused variable (random -g probe: `o:m3 o:k0v0`)
    texts = [y.section.name[len(".text.") :] for y in obj.symbols[: cap if cap is not None else len(obj.symbols)] if y.type == STT_SECTION and y.section is not None and y.section.name.startswith(".text.")]
    if cap is not None and texts:
        texts.pop()  # the function the cap follows
    calls = {f.name: f.calls for f in module.functions}
    idle = {f".nv.shared.{k}" for k in texts if not calls.get(k)} if family_of(obj.sm) is not Family.LEGACY else set()
    if first_data is not None:
        for i, t in enumerate(slots[first_data:], first_data):
            if t == stop:
                break
            if t in _DATA_NAMES or t in data_names or t == "" or t.startswith(".nv.reservedSmem."):
                walk.add(t)
                continue
            if t == ".nv.shared.reserved.0" or t.startswith("__nv_reservedSMEM_"):
                # sm_110 makes the reserved-SMEM section and its gb10b variable inside the
                # walk when a kernel before the walk has shared memory (ml5 -g: `.nv.global
                # .nv.shared.reserved.0 __nv_reservedSMEM_gb10b_war_var .nv.global.init`)
                continue
            # a module variable privatised to a kernel, named in the walk: the walk made
            # .nv_debug.shared before it; else it is the kernel's own variable its code names
            # first (random -g probe: `S:.nv.global o:gout o:k0v0 ~.rel.text.k0`)
            if DEBUG_SHARED in slots[:i] and t not in after_cap and any(y.name == t and y.section is not None and y.section.name.startswith(".nv.shared.") and y.section.name not in idle for y in obj.symbols):
                walk.add(t)
                shared_names.append(t)
                continue
            break
    return walk, shared_names


def _decompose_debug_shared(
    obj: ElfObject,
    module: Module,
    sections: list[Section],
    debug: Section | None,
    phantoms: Sequence[Phantom] = (),
    budget: list[int] | None = None,
    walk_stop: str | None = None,
) -> None:
    """-g: objects one kernel reaches are privatised to its section (at their offsets), objects
    several kernels reach are coloured into .nv_debug.shared. Which kernel reaches a coloured
    module variable is not recorded once ptxas resolved the references: it is searched for
    (:func:`_infer_coloured`). Rebuilt: module variables (named in the data walk),
    device functions' variables (named right after their function's code section) and the
    kernels' own variables, with alignments inferred from the kernel sections; extern
    (dynamic) shared memory sits in .nv_debug.shared after the static bytes of its kernels."""
    slots = [slot.text for slot in obj.strtab.slots]
    walk, _ = _data_walk(obj, module, walk_stop)
    kernels = {s.name[len(".nv.shared.") :]: s for s in sections}
    device = _shared_declarers(module)
    # a kernel's own variable named after the last relocation section ptxas asked for is one
    # its code never references (named after the walk, sh_rand0 -g: `.rela.text.k0 k0v0`)
    unused: set[str] = set()
    position = {t: i for i, t in enumerate(slots)}
    funcs_by_name = {f.name: f for f in module.functions}
    for k in kernels:
        asks = [position[n] for n in (f".rel.text.{k}", f".rela.text.{k}") if n in position]
        if not asks:
            continue
        own = {y.name for y in obj.symbols if y.section is kernels[k] and y.type != STT_SECTION}
        # from sm_90 on the used ones are named once both sections are asked: the run of the
        # kernel's names right after the last ask (kitchen80 -g sm_90: `.rel.text.k_sink_c
        # .rela.text.k_sink_c bar1 .nv.constant2.k_sink_c`, bar1 used)
        named_at_ask: set[str] = set()
        if family_of(obj.sm) is not Family.LEGACY and len(asks) == 2:
            for t in slots[max(asks) + 1 :]:
                if t not in own:
                    break
                named_at_ask.add(t)
        for name in own - named_at_ask:
            at = position.get(name, -1)
            if at > max(asks) and not _used_by_bank_place(slots, position, k, own, at):
                unused.add(name)
        # used ones named after the bank: their first reference follows the code's first
        # constant reference (random -g modules, sm_75: `.rel.text.k2 .nv.constant2.k2 s2a
        # .rela.text.k2`; sm_90: `.rela.text.k0 .nv.constant2.k0 s0b s0a .rela.nv.constant...`)
        bank = min((position[n] for n in (f".nv.constant2.{k}", f".nv.constant.optimizer.{k}") if n in position), default=None)
        after_bank = sorted((n for n in own - unused if bank is not None and position.get(n, -1) > bank > min(asks)), key=position.__getitem__)
        if after_bank and k in funcs_by_name:
            funcs_by_name[k].facts["own_after_bank"] = after_bank
        # used ones named after a .rela asked after .rel: their first reference follows the
        # code's first .rela-asking one (random -g module, sm_75: `.rel.text.k1 s1b
        # .rela.text.k1 s1a .nv.constant2.k1`, s1a stored after a call;
        # tests/probes_gshared/gsh_own_after_call)
        rel, rela = position.get(f".rel.text.{k}"), position.get(f".rela.text.{k}")
        if rel is not None and rela is not None and rel < rela:
            after_rela = sorted((n for n in own - unused if position.get(n, -1) > rela), key=position.__getitem__)
            if after_rela and k in funcs_by_name:
                funcs_by_name[k].facts["own_after_rela"] = after_rela
    base = facts(obj.sm).shared_base
    objects: list[DataObject] = []
    placed: dict[str, list[tuple[str, int, int]]] = {}
    coloured: dict[str, int] = {}  # coloured object -> its offset in .nv_debug.shared
    current = None
    for y in obj.symbols:  # creation order
        if y.type == STT_SECTION and y.section is not None and y.section.name.startswith(".text."):
            current = y.section.name[len(".text.") :]
            continue
        if y.section is None or y.type == STT_SECTION:
            continue
        if debug is not None and y.section is debug:
            if y.size == 0 and y.bind == STB_GLOBAL:
                continue  # an extern, below
            # coloured (shared by several kernels, or only by functions no kernel calls): a
            # module variable is named in the data walk (late when visible), a device function's
            # variable right after its code section; module variables' users are inferred below
            if y.bind != STB_LOCAL or y.name in walk:
                scope, users = None, []
            elif current in device:
                scope, users = current, [current]
            else:
                raise NotImplementedError(f"-g: {y.name!r} is coloured in .nv_debug.shared but named in kernel {current!r}")
            objects.append(DataObject(y.name, "shared", y.size, 1, None, _LINKAGE_OF_BIND[y.bind], users=users, scope=scope))
            coloured[y.name] = y.value
            continue
        if not y.section.name.startswith(".nv.shared.") or y.section.name == ".nv.shared.reserved.0":
            continue
        kernel = y.section.name[len(".nv.shared.") :]
        if y.bind != STB_LOCAL or y.name in walk:  # visible (named late) and weak ones are module-scope
            scope, users = None, [kernel]  # privatised: this kernel reaches it
        elif current in device:
            scope, users = current, [current]  # a device function's, reached by this kernel only
        else:
            scope, users = kernel, [kernel] if y.name not in unused else []
        linkage = _LINKAGE_OF_BIND[y.bind]
        objects.append(DataObject(y.name, "shared", y.size, 1, None, linkage, users=users, scope=scope))
        placed.setdefault(kernel, []).append((y.name, y.value - base, y.size))
    by_name = {d.name: d for d in objects}
    funcs = {f.name: f for f in module.functions}
    for k in kernels:
        # own variables named before the kernel's first relocation section: its code's first
        # (resolved) reference names one of them (matmul_tiled -g: `As .rel.text.k Bs`)
        asks = [position[n] for n in (f".rel.text.{k}", f".rela.text.{k}") if n in position]
        first = [d.name for d in objects if d.scope == k and asks and position.get(d.name, 1 << 30) < min(asks)]
        if first and k in funcs:
            funcs[k].facts["shared_named_first"] = first
    for kernel, items in placed.items():
        for name, align in _kernel_alignments(items, kernels[kernel].addralign).items():
            # a privatised module object counts towards .nv_debug.shared's alignment, which
            # therefore bounds it (a kernel's own variables may exceed it); not when only
            # externs live there, which align it to 16 whatever the objects (sh_rext110 -g:
            # m2 .align 32 privatised, .nv_debug.shared aligned 16)
            if debug is not None and coloured and by_name[name].scope != kernel:
                align = min(align, debug.addralign)
            by_name[name].align = align
    externs = []
    if debug is not None:
        # a kernel reaching an extern ends its section there and aligns it to 16 at least
        # (alloc.shared): one aligned less whose static bytes end there by chance does not
        # (random -g module r06: .nv.shared.k1 of 16 bytes aligned 4 beside k0's, xs at 16)
        sizes = {k: s.nobits_size for k, s in kernels.items() if s.addralign >= 16}
        for y in obj.symbols:
            if y.section is debug and y.size == 0 and y.bind == STB_GLOBAL and y.type != STT_SECTION:
                users = sorted(k for k, size in sizes.items() if size == y.value)
                externs.append(DataObject(y.name, "shared", 0, 1, None, "extern", users=users))
    visible = [d for d in objects if d.linkage == "visible"]
    module.data.extend(visible + [d for d in objects if d.linkage != "visible"] + externs)
    for phantom, at in phantoms:
        # unreferenced: walked and sorted by ptxas, then dropped
        module.data.insert(len(module.data) if at is None else at, phantom)
    expected = {s.name: (s.nobits_size, s.addralign) for s in sections + ([debug] if debug is not None else [])}
    values = {y.name: y.value for y in obj.symbols if y.name in by_name or any(y.name == e.name for e in externs)}
    if coloured:
        assert debug is not None
        extern_users = {k for e in externs for k in e.users}
        _infer_coloured(module, debug, kernels, placed, coloured, extern_users, base, expected, values, budget, obj)
    _direct_users(obj, module)
    _unknown_extern_users(obj, module)
    layout = shared_layout(module, obj.sm)
    got = {name: (sec.size, sec.align) for name, sec in (layout.sections.items() if layout else ())}
    if got != expected or any(layout is None or layout.symbols.get(n, (None, None))[1] != v for n, v in values.items()):
        raise NotImplementedError("-g: the shared-memory layout is not reproduced from the inferred objects")


def _used_by_bank_place(slots: Sequence[str], position: dict[str, int], kernel: str, own: set[str], at: int) -> bool:
    """-g: whether a kernel's own variable named after its last relocation ask is a used one,
    told by its place against the kernel's compiler-constant bank. An unused one is named
    after the kernel's whole walk, so after its bank (and from sm_90 on after the bank's .rela);
    a used one is named at its first (resolved) reference, which may come before the first
    constant reference made the bank (random -g modules, sm_75: `.rel.text.k1 s1b s1a
    .nv.constant2.k1`, both used; tests/probes_gshared/gsh_own_then_bank), or from sm_90 on
    after it, before the .rela of a jump-table bank, asked after the code's walk
    (`.nv.constant.optimizer.k0 s0a .rela.nv.constant.optimizer.k0`; gsh_brx_bank_then_own).
    Elsewhere nothing tells: read as unused."""
    banks = [position[n] for n in (f".nv.constant2.{kernel}", f".nv.constant.optimizer.{kernel}") if n in position]
    if not banks:
        return False
    bank = min(banks)
    if at < bank:
        # only the kernel's own names between it and the bank (a late bank, made after
        # .nv.callgraph, would leave other names between)
        return all(t in own for t in slots[at + 1 : bank])
    relas = [position[n] for n in (f".rela.nv.constant2.{kernel}", f".rela.nv.constant.optimizer.{kernel}") if n in position]
    return bool(relas) and at < min(relas) and all(t in own or position.get(t) in banks for t in slots[bank + 1 : min(relas)])


def _cap_position(obj: ElfObject) -> tuple[list[str], str | None]:
    """Functions in creation order (their .text section symbols) and the one
    .nv.reservedSmem.cap (or its tombstone) follows, None without a cap."""
    texts: list[str] = []
    cap_after = None
    tombstones = tombstone_names(obj)
    for y in obj.symbols:  # creation order
        if y.type == STT_SECTION and y.section is not None and y.section.name.startswith(".text."):
            texts.append(y.section.name[len(".text.") :])
        elif cap_after is None and texts and is_cap(y, tombstones):
            cap_after = texts[-1]
    return texts, cap_after


def _direct_users(obj: ElfObject, module: Module) -> None:
    """-g: which function's code names a module object. The decomposition gives the kernels
    that reach it; from sm_90 on .nv.reservedSmem.cap (or its tombstone) follows the first
    function whose own code references shared memory, so a kernel created before that
    function reaches its objects through a callee: the use moves to the first callee (in
    creation order, not before the cap) that only kernels already reaching the object call
    (sh_rand22 -g: k0 reaches m0 through fn1, the cap follows k2). Such a kernel's own
    variables are unused, and without any cap no function names shared memory (random -g
    probe: k1's only variable, unreferenced, and no relocation section to tell). Below sm_90
    the fact leaves no trace in the bytes."""
    texts, cap_after = _cap_position(obj)
    if family_of(obj.sm) is Family.LEGACY:
        return
    funcs = {f.name: f for f in module.functions}
    early = set(texts[: texts.index(cap_after)]) if cap_after is not None else set(texts)
    for d in module.data:
        if d.space == "shared" and d.scope in early and d.scope in funcs and funcs[d.scope].is_kernel:
            d.users = []
    capped = funcs.get(cap_after or "")
    if capped is not None and capped.is_kernel and not shared_user(module, capped.name):
        # the kernel the cap follows names shared memory itself: its own variables, read as
        # unused from their late names, are used (nvcc -G layernorm_smem: `partial`, named
        # after .rela/.rel.text.k, the cap right after .nv.shared.k)
        for d in module.data:
            if d.space == "shared" and d.scope == capped.name:
                d.users = [capped.name]

    kernels = [f.name for f in module.functions if f.is_kernel]
    edges = shared_calls(module)
    reaches = {k: call_closure(funcs, k, edges) for k in kernels}
    position = {n: i for i, n in enumerate(texts)}
    for d in module.data:
        if d.space != "shared" or d.scope is not None or not any(u in early for u in d.users):
            continue
        reached_by = {k for k in kernels if any(u in reaches[k] for u in d.users)}
        users = [u for u in d.users if u not in early]
        for u in [u for u in d.users if u in early]:
            callees = sorted(
                (g for g in reaches.get(u, {u}) - {u} if g in position and g not in early and not funcs[g].is_kernel and all(g not in reaches[k] or k in reached_by for k in kernels)),
                key=position.__getitem__,
            )
            if not callees and not funcs[u].is_kernel and not any(u in reaches[k] for k in kernels):
                # an object no kernel reaches was given the first uncalled function as its user
                # (_infer_coloured); the cap names one after it: the first uncalled function
                # made after the cap (random -g module q0356 sm_90: f1's atom on s0, the cap
                # after f1, f0 before it)
                callees = [g for g in texts if g in funcs and g not in early and not funcs[g].is_kernel and not any(g in reaches[k] for k in kernels)][:1]
            if not callees:
                if d.linkage == "extern":
                    # an extern's users were read off section sizes, which an empty section
                    # matches by chance (-g: every kernel gets one when an object is coloured
                    # for uncalled functions only): this kernel does not reach it
                    continue
                raise NotImplementedError(f"-g: {u!r} reaches {d.name!r} before the first function naming shared memory, through no callee")
            users.append(callees[0])
        d.users = list(dict.fromkeys(users))
    if cap_after is None or cap_after not in funcs or shared_user(module, cap_after):
        return
    # the function the cap follows names shared memory itself: a device function named first
    # whose variable was read as a module one (its code section and the data walk name it at
    # the same point: nvcc -G, __noinline__ warp_hist's `hist`) names one its kernels reach;
    # so does a WEAK function returning the extern dynamic region (nvcc -G compute_90
    # scan_reduce, tests/probes_rw5: SharedMemory<int>::operator int*() made before any kernel
    # names __smem; the extern variables alias, and the first one its kernels reach takes it)
    reached_by_cap = {k for k in kernels if cap_after in reaches[k]}
    for d in module.data:
        if d.space == "shared" and d.scope is None and d.users:
            reached = {k for k in kernels if any(u in reaches[k] for u in d.users)}
            if reached_by_cap <= reached:
                d.users = [cap_after] + [u for u in d.users if u not in reached_by_cap]
                return


def _unknown_extern_users(obj: ElfObject, module: Module) -> None:
    """-g from sm_90 on: an extern's users were read off section sizes, and once an object is
    coloured into .nv_debug.shared every kernel gets a .nv.shared.<k> of the reserved base's
    size aligned 16, the very section of a kernel reaching an extern that no static bytes
    precede. A kernel created after the one .nv.reservedSmem.cap follows, whose code (and its
    callees') holds no shared-memory access (:func:`_accesses_shared`) and whose section comes
    out the same without it, may or may not use the extern: the bytes do not tell, yet the
    cap follows the first kernel that does once an edit removes the one before it (llm.c
    test_gpt2 -g sm_90: without wte_backward_kernel the cap follows layernorm_forward_kernel6,
    not kernel3; tests/probes_gshared/gsh_extern_unknown). Read as not using it, with fact
    ``shared_use_unknown`` (Module._refuse_unknown_shared_use builds the other answer), unless
    it asked for no relocation section at all."""
    if family_of(obj.sm) is Family.LEGACY:
        return
    texts, cap_after = _cap_position(obj)
    if cap_after is None:
        return
    externs = [d for d in module.data if d.space == "shared" and d.linkage == "extern"]
    funcs = {f.name: f for f in module.functions}
    asked = {slot.text for slot in obj.shstrtab.slots}

    def in_bytes() -> object:
        layout = shared_layout(module, obj.sm)
        return None if layout is None else (layout.sections, layout.symbols)

    reference = in_bytes()
    edges = shared_calls(module)
    for k in texts[texts.index(cap_after) + 1 :]:
        fn = funcs.get(k)
        holding = [d for d in externs if k in d.users]
        if fn is None or not fn.is_kernel or not holding:
            continue
        if any(d.space == "shared" and d.linkage != "extern" and k in d.users for d in module.data):
            continue  # it names shared memory anyway
        if any(_accesses_shared(funcs[g]) for g in call_closure(funcs, k, edges)):
            continue
        before = [list(d.users) for d in holding]
        for d in holding:
            d.users.remove(k)
        if in_bytes() == reference:
            # a resolved shared reference asks .rel.text.<k> and .rela.text.<k> (the .rela kept
            # empty): a kernel that asked neither references none
            if _asked_relocations(asked, k):
                fn.facts["shared_use_unknown"] = True
        else:  # the sections tell: it reaches the extern
            for d, users in zip(holding, before):
                d.users = users


#: the name a dropped .shared variable gets (ptxas keeps none): nothing derived from it is named
PHANTOM_NAME = "$dropped_shared{n}"


def walked_in_kernel_sections(obj: ElfObject, module: Module) -> list[str]:
    """-g: the walk's names that live in kernel sections, in walk order (see :func:`_data_walk`)."""
    return _data_walk(obj, module)[1]


def walked_after_device_code(obj: ElfObject, module: Module) -> list[str]:
    """-g: where the first data section is .nv_debug.shared, made right after a device
    function's code, the names in it that follow: that function's own variables, coloured there,
    read as the data walk's (an address-taken function no kernel calls, the first to name
    shared memory, sm_90: `.text.f0 .nv_debug.shared f0_sh .nv.info.f0`;
    tests/probes_gshared/gsh_indirect_taken). A retry of :func:`_settle_debug_shared` ends the
    walk before one of them."""
    slots = [slot.text for slot in obj.strtab.slots]
    at = slots.index(DEBUG_SHARED) if DEBUG_SHARED in slots else -1
    first_data = next((i for i, t in enumerate(slots) if t in _DATA_NAMES), None)
    if at < 1 or first_data != at or not slots[at - 1].startswith(".text.") or slots[at - 1][len(".text.") :] not in _shared_declarers(module):
        return []
    debug = {y.name for y in obj.symbols if y.section is not None and y.section.name == DEBUG_SHARED and y.bind == STB_LOCAL}
    names = []
    for t in slots[at + 1 :]:
        if t not in debug:
            break
        names.append(t)
    return names


def phantom_hypotheses(obj: ElfObject, module: Module, base: Sequence[DataObject]) -> Iterator[list[Phantom]]:
    """-g: candidate dropped .shared variables, simplest first: one, then two device functions'. Only its size relative
    to the others (the size sort), its alignment (.nv_debug.shared's) and its place (the data
    walk, the sort's list order) matter: sizes 1 and each kept size or one more, alignment 1 or
    .nv_debug.shared's, a device function's (after its used variables) or a module variable
    (visible or not) declared before any module data object or at the end."""
    shared = [y for y in obj.symbols if y.section is not None and y.type != STT_SECTION and (y.section.name.startswith(".nv.shared.") or y.section.name == DEBUG_SHARED)]
    sizes = sorted({y.size for y in shared if y.size})
    size_choices = list(dict.fromkeys([1] + [x for sz in sizes for x in (sz, sz + 1)]))
    debug = next((s for s in obj.sections if not s.mercury and s.name == DEBUG_SHARED), None)
    aligns = [1] + ([debug.addralign] if debug is not None and debug.addralign > 1 else [])
    device = [f.name for f in module.functions if not f.is_kernel and f.linkage != "extern"]
    name = PHANTOM_NAME.format(n=0)
    for align in aligns:
        for size in size_choices:
            for f in device:
                yield [(DataObject(name, "shared", size, align, None, "static", users=[], scope=f), None)]
            for linkage in ("visible", "static"):
                # anywhere among the module data (the walk, the sort's list order)
                for at in range(len(base) + 1 + len(shared)):
                    yield [(DataObject(name, "shared", size, align, None, linkage, users=[], scope=None), at)]
    # two device functions' variables (each after its function's used ones: no place to guess)
    second = PHANTOM_NAME.format(n=1)
    for i, f in enumerate(device):
        for g in device[i:]:
            for size in size_choices:
                for size2 in size_choices:
                    yield [
                        (DataObject(name, "shared", size, 1, None, "static", users=[], scope=f), None),
                        (DataObject(second, "shared", size2, 1, None, "static", users=[], scope=g), None),
                    ]


#: how many partial assignments the search for coloured objects' users may try before declining
COLOUR_SEARCH_LIMIT = 200_000
#: after the first assignment of users that reproduces a -g layout, the search steps spent
#: looking for others, and how many others are kept (bounds, not rules)
ALTERNATIVE_STEPS = 5_000
ALTERNATIVES = 8


class SearchBudgetExceeded(NotImplementedError):
    """The search for coloured objects' users ran out of steps (not a proof that none fits)."""


def _infer_coloured(
    module: Module,
    debug: Section,
    kernels: dict[str, Section],
    placed: dict[str, list[tuple[str, int, int]]],
    coloured: dict[str, int],
    extern_users: set[str],
    base: int,
    expected: dict[str, tuple[int, int]],
    values: dict[str, int],
    budget: list[int] | None = None,
    obj: ElfObject | None = None,
) -> None:
    """-g: declared alignments and users of the objects coloured into .nv_debug.shared.

    ptxas resolved the references, so which kernels reach a module variable is searched for: an
    assignment of kernel sets (smallest first) that the greedy colouring turns into the observed
    colours and whose layout (every section, every symbol) is the cubin's. A device function's
    variable is reached by the kernels that call it (its users are fixed). Declines when no
    assignment within COLOUR_SEARCH_LIMIT steps reproduces the layout."""
    shared = {d.name: d for d in module.data if d.space == "shared"}
    # colours: the groups are laid out in colour order, one offset per group
    group_offsets = sorted(set(coloured.values()))
    colour = {name: group_offsets.index(off) for name, off in coloured.items()}
    for name, off in coloured.items():
        # a group sits at its largest member's alignment: the largest power of two its offset
        # allows (the first group: .nv_debug.shared's own), never above the section's
        shared[name].align = _lowbit(off, debug.addralign)
    shared_module = _shared_module(module)
    assert shared_module is not None
    objects, debug_kernels = debug_objects(shared_module)
    # the colouring walks ptxas's list sorted by decreasing size (the users do not change it)
    order = [o for o in list_sort(objects, lambda a, b: a.size >= b.size) if o.name in coloured]
    names = [k.name for k in debug_kernels]
    # each kernel's section starts at the end of the furthest coloured object it reaches: no
    # later than its first private object; exactly at its size when it holds none (and no
    # dynamic area); a kernel without a section reaches none
    limit: dict[str, int] = {}
    exact: dict[str, int] = {}
    for k in names:
        section = kernels.get(k)
        if section is None:
            continue
        if placed.get(k):
            limit[k] = base + min(off for _, off, _ in placed[k])
        else:
            limit[k] = section.nobits_size
            # an empty section (the module declares externs) reaches no coloured object
            # (random -g probe: .nv.shared.k1 of 0x400 bytes, k1 uses nothing)
            if k not in extern_users and section.nobits_size > base:
                exact[k] = section.nobits_size
    end = {name: off + shared[name].size for name, off in coloured.items()}
    # from sm_90 on the cap says which functions name shared memory (:func:`_direct_users`):
    # a kernel made before it without callees reaches no coloured object, and a device
    # function it follows names one that every kernel reaching it reaches
    funcs_by_name = {f.name: f for f in module.functions}
    edges = shared_calls(module)

    idle: set[str] = set()
    cap_needs: set[str] | None = None
    # an early kernel (made before the cap) names no shared memory: it reaches an object through
    # a callee made after the cap, so every kernel reaching that callee reaches the object too
    # (:func:`_direct_users`; random -g probe r0056 sm_90: k0 reaches s1 through f0, which k1
    # calls as well, so s1's users are k0, k1 and k2, not only k0 and k2); the kernel sets each
    # early kernel needs one of
    through: dict[str, list[frozenset[str]]] = {}
    closure = {k: call_closure(funcs_by_name, k, edges) for k in names}
    if obj is not None and family_of(obj.sm) is not Family.LEGACY:
        texts, cap_after = _cap_position(obj)
        early = texts[: texts.index(cap_after)] if cap_after is not None else texts
        idle = {k for k in early if k in funcs_by_name and funcs_by_name[k].is_kernel and not edges[k]}
        for k in early:
            if k in closure and k not in idle:
                through[k] = [frozenset(x for x in names if g in closure[x]) for g in closure[k] - {k} if g in texts and g not in early and not funcs_by_name[g].is_kernel]
        cap_fn = funcs_by_name.get(cap_after or "")
        if cap_fn is not None and not cap_fn.is_kernel and not shared_user(module, cap_fn.name):
            cap_needs = {k for k in names if cap_fn.name in closure[k]} or None
    allowed = {o.name: [k for k in names if k in limit and end[o.name] <= limit[k] and k not in idle] for o in order}
    # objects whose kernels are known (privatised module objects, externs) may be the one
    coloured_names = {o.name for o in order}
    fixed_users = [d.users for d in module.data if d.space == "shared" and d.scope is None and d.name not in coloured_names]
    free = {o.name for o in order if shared[o.name].scope is None}
    # a kernel whose section ends at a coloured object's end must be among that object's
    # users: check it once the last object that ends there has been assigned
    deadline: dict[int, list[str]] = {}
    for k, size in exact.items():
        at = [i for i, o in enumerate(order) if end[o.name] == size and (o.name in free or k in o.users)]
        if not at:
            raise NotImplementedError(f"-g: no coloured object ends where .nv.shared.{k} does")
        deadline.setdefault(at[-1], []).append(k)
    # an object no kernel reaches needs a user nobody calls (a device function)
    reached = set().union(*closure.values())
    uncalled = [f.name for f in module.functions if not f.is_kernel and f.linkage != "extern" and f.name not in reached]

    def candidates(o: SharedObject, required: frozenset[str]) -> Iterator[frozenset[str]]:
        """The user sets to try for ``o``, smallest first, each holding ``required`` (the
        kernels whose deadline is ``o`` and no object chosen so far covers): only the
        supersets are generated, in the order filtering every combination would give (equal
        sizes compare by the least kernel of their difference, which ``required`` leaves
        alone), so a module whose 33 kernels all use one variable (Warp's smem_base under -g)
        tries one set, not 2**33."""
        if o.name not in free:
            yield o.users
            return
        if colour[o.name] == 0 and uncalled and not required:
            yield frozenset()
        ks = allowed[o.name]
        if not required <= set(ks):
            return
        rest = [k for k in ks if k not in required]
        for r in range(max(2, len(required)), len(ks) + 1):  # one kernel would have privatised it
            for combo in itertools.combinations(rest, r - len(required)):
                users = frozenset(combo) | required
                if all(any(need <= users for need in through[k]) for k in users if k in through):
                    yield users

    if budget is None:
        budget = [COLOUR_SEARCH_LIMIT]  # steps left, shared by the caller's attempts when given
    choice: dict[str, frozenset[str]] = {}
    memo: dict[object, object] = {}  # the allocator's per-kernel placements, by section start

    # a quick necessary condition before the allocator runs: a kernel that is no extern's user
    # ends where its own and privatised objects end, placed from the end of the coloured
    # objects it reaches (the allocator's rule), so its section size must come out of that
    from ..alloc._common import by_alignment_then_size, sequential

    coloured_set = {o.name for o in order}
    private_items: dict[str, list[tuple[str, int, int]]] = {k.name: [(v.name, v.size, v.align) for v in k.own] for k in debug_kernels}
    for o in objects:
        if o.name not in coloured_set and not o.extern and o.referenced and len(o.users) == 1:
            (only,) = o.users
            if only in private_items:
                private_items[only].append((o.name, o.size, o.align))
    sorted_items = {k: list_sort(items, by_alignment_then_size) for k, items in private_items.items()}
    checked = [k for k in names if f".nv.shared.{k}" in expected and k not in extern_users]
    ends: dict[tuple[str, int], int] = {}

    def quick() -> bool:
        for k in checked:
            start = base
            for o in order:
                if k in choice[o.name] and end[o.name] > start:
                    start = end[o.name]
            if sorted_items[k]:
                key = (k, start)
                if key not in ends:
                    ends[key] = sequential(sorted_items[k], start)[1]
                static = ends[key]
            else:
                static = start
            if static != expected[f".nv.shared.{k}"][0]:
                return False
        return True

    def matches() -> bool:
        if cap_needs is not None and not any(cap_needs <= choice[o.name] for o in order if o.name in free) and not any(cap_needs <= set(u) for u in fixed_users):
            return False
        if not quick():
            return False
        trial = [attrs.evolve(o, users=choice[o.name], referenced=True) if o.name in free else o for o in objects]
        layout = allocate_debug_shared(trial, debug_kernels, base=base, memo=memo)
        got = {name: (sec.size, sec.align) for name, sec in layout.sections.items()}
        return got == expected and all(layout.symbols.get(n, (None, None))[1] == v for n, v in values.items())

    # every assignment that reproduces the layout, the first (smallest) kept; the search goes
    # on for others within ALTERNATIVE_STEPS, which a removal needs (Module._refuse_searched_shared_users)
    solutions: list[dict[str, frozenset[str]]] = []
    extra = [ALTERNATIVE_STEPS]

    def search(i: int, masks: dict[str, int]) -> bool:
        if i == len(order):
            if matches():
                solutions.append(dict(choice))
            return len(solutions) > ALTERNATIVES
        o = order[i]
        required = frozenset(k for k in deadline.get(i, ()) if not any(k in choice[p.name] for p in order[:i] if end[p.name] == exact[k]))
        for users in candidates(o, required):
            if solutions:
                extra[0] -= 1
                if extra[0] < 0:
                    return True  # others not searched for: the choice stays unsure
            else:
                budget[0] -= 1
            if budget[0] < 0:
                raise SearchBudgetExceeded(f"-g: no users of the coloured objects found within {COLOUR_SEARCH_LIMIT} steps")
            # greedy colouring: the lowest colour no object sharing a kernel holds yet
            taken = 0
            for k in users:
                taken |= masks.get(k, 0)
            c = (~taken & (taken + 1)).bit_length() - 1
            if c != colour[o.name]:
                continue
            choice[o.name] = users
            if any(not any(k in choice[p.name] for p in order[: i + 1] if end[p.name] == exact[k]) for k in deadline.get(i, ())):
                continue
            nxt = dict(masks)
            for k in users:
                nxt[k] = nxt.get(k, 0) | (1 << c)
            if search(i + 1, nxt):
                return True
        return False

    stopped = search(0, {})
    if not solutions:
        raise NotImplementedError("-g: no users of the coloured objects reproduce the .nv_debug.shared layout")

    def named(users: frozenset[str]) -> list[str]:
        # users named directly by the kernels (or by a function nobody calls)
        return [k for k in names if k in users] or uncalled[:1]

    for name in free:
        shared[name].users = named(solutions[0][name])
    # the first (smallest) assignment that reproduces the layout need not be ptxas's: the
    # others found (all of them where the search ended before the step or count bound) are
    # kept for the edits whose outcome depends on the choice
    others = [{name: named(sol[name]) for name in sorted(free)} for sol in solutions[1:]]
    if others or stopped:
        module.facts["searched_users"] = {"complete": not stopped, "others": others}


#: the reserved shared-memory symbols a function's PTX can name (reads of
#: %reserved_smem_offset_end name none): emit.Emitter.reserved_reads
RESERVED_READ_NAMES = ("offset0", "begin", "cap")


def shared_user(module: Module, name: str) -> bool:
    """The function ``name``'s code references a shared variable (the decomposition's users)."""
    return any(d.space == "shared" and name in d.users for d in module.data)


def live_shared_refs(module: Module, fn: Function) -> bool:
    """``fn``'s code references shared memory and the optimizer left a reference."""
    return not fn.facts.get("shared_refs_dead") and shared_user(module, fn.name)


def cap_trigger(module: Module, fn: Function) -> bool:
    """Whether .nv.reservedSmem.cap comes after ``fn``'s symbols: ``fn`` is the first
    function whose code references shared memory (a kernel: after its .nv.shared.<k> and,
    first, the first function's symbols; a -c device function: after its own .shared
    variables). Declared but unused variables do not count (sh_rand14/21/22, sh_callgraph,
    shared_module, shared_dynamic); PTX references the optimizer removed do (fact
    shared_refs_dead: tests/probes_data/shared_refs_dead)."""
    return bool(fn.facts.get("shared_refs_dead")) or live_shared_refs(module, fn)


def cap_resolved(module: Module) -> bool:
    """sm_90 deletes the cap once a reference to it is resolved: always under -g; whole-program
    code whose shared references were all optimized away resolves none, and the cap stays
    (decompose: :func:`_dead_shared_references`)."""
    return module.device_debug or any(live_shared_refs(module, f) for f in module.functions)


def tombstone_names(obj: ElfObject) -> dict[int, str]:
    """sm_90: which reserved symbol each deleted one (a tombstone: no name, st_other 1) was,
    by ``id``. A deleted name stays in .strtab as zeros, read as the width of the name before
    it: the zeros between two living names are the deleted names between them, and the
    reserved names' lengths (offset0 24, begin 22, cap 20) tell which (a read of
    %reserved_smem_offset_cap and shared memory both name cap). A group the zeros do not
    explain is taken for the shared-memory cap, the tombstone ptxas makes most. Blackwell
    deletes none (its Mercury relocations keep them)."""
    if family_of(obj.sm) is Family.BLACKWELL:
        return {}
    slots = obj.strtab.slots
    at = {id(slot): i for i, slot in enumerate(slots)}
    widths = {n: len(f".nv.reservedSmem.{n}") + 1 for n in RESERVED_READ_NAMES}
    out: dict[int, str] = {}
    symbols = list(obj.symbols)
    i = 0
    while i < len(symbols):
        if not (symbols[i].name_slot is None and symbols[i].other == 1):
            i += 1
            continue
        j = i
        while j < len(symbols) and symbols[j].name_slot is None and symbols[j].other == 1:
            j += 1
        group = symbols[i:j]
        before = next((at[id(y.name_slot)] for y in reversed(symbols[:i]) if y.name_slot is not None and id(y.name_slot) in at), None)
        after = next((at[id(y.name_slot)] for y in symbols[j:] if y.name_slot is not None and id(y.name_slot) in at), len(slots))
        zeros = sum(max(s.width - len(s.encoded) - rename_slack(s.text, obj.sm), 0) for s in slots[before:after]) if before is not None else -1
        found = [c for c in itertools.combinations(RESERVED_READ_NAMES, len(group)) if sum(widths[n] for n in c) == zeros]
        names = list(found[0]) if len(found) == 1 else ["cap"] * len(group)
        if "offset0" in names:  # deleted in place, before the others
            names.remove("offset0")
            names.insert(0, "offset0")
        for y, n in zip(group, names):
            out[id(y)] = n
        i = j
    return out


def rename_slack(text: str, sm: int) -> int:
    """The zeros a section name keeps in .strtab from the longer name ptxas created it under
    and renamed in place (sm_90: .nv.constant3 was .nv.constant.user, 4 more bytes), which
    are no deleted name: without it a deleted cap right after .nv.constant3 (4 + 21 zeros)
    read as a deleted offset0 (25; clang's weak shared arrays beside a kernel reading a
    .const variable, tests/probes_reserved/cap_after_constant3)."""
    for d in SECTIONS.values():
        if text == d.name:
            return max(len(d.creation_name(sm)) - len(text), 0)
    if text.startswith(".nv.constant2.") and family_of(sm) is not Family.LEGACY:
        return len(".nv.constant.optimizer.") - len(".nv.constant2.")
    return 0


def reserved_name(y: Symbol, tombstones: Mapping[int, str]) -> str | None:
    """The reserved symbol ``y`` is (``begin``, ``cap``, ``offset0``), living or deleted."""
    if y.name_slot is None:
        return tombstones.get(id(y)) if y.other == 1 else None
    if y.name.startswith(".nv.reservedSmem."):
        name = y.name[len(".nv.reservedSmem.") :]
        return name if name in RESERVED_READ_NAMES else None
    return None


def is_cap(y: Symbol, tombstones: Mapping[int, str]) -> bool:
    """``y`` is .nv.reservedSmem.cap or its tombstone."""
    return reserved_name(y, tombstones) == "cap"


def _merc_reserved_read(y: Symbol | None) -> str | None:
    """The reserved register a Mercury relocation against ``y`` reads: .nv.reservedSmem.<name>,
    or offset0 through its alias (sm_110a's tcgen05.relinquish_alloc_permit, which reaches
    the tensor-memory partition past the WAR object: tests/probes_compat/tensor_memory)."""
    if y is None:
        return None
    if y.name.startswith(".nv.reservedSmem."):
        return y.name[len(".nv.reservedSmem.") :]
    return "offset0" if y.name == "__nv_reservedSMEM_offset_0_alias" else None


def decompose_reserved_reads(obj: ElfObject, module: Module) -> None:
    """From sm_90 on, the reserved symbols each function's code names (emit.reserved_reads):
    those made after its symbols, in creation order, as the fact ``reserved_refs`` where the
    shared-memory cap alone does not give them. sm_90 resolves a live reference and deletes
    the symbol; one still named was only read by code the optimizer removed (fact
    ``reserved_refs_dead``). Blackwell keeps every symbol: a live reference is a Mercury
    relocation of the function's. A deleted offset0 (made with the module's symbols) is read
    by the first function whose resolved references kept an empty .rela.text.<f> that
    nothing else explains, on Blackwell by the functions whose Mercury relocations name it."""
    family = family_of(obj.sm)
    if family is Family.LEGACY:
        return
    blackwell = family is Family.BLACKWELL
    tombstones = tombstone_names(obj)
    funcs = {f.name: f for f in module.functions}
    # a resolved reference asks for the function's relocation sections (kept or dropped): a
    # symbol deleted without them was deleted for another function's reference
    # (tests/probes_data/shared_refs_dead: k's references all removed, k2's resolved)
    asked = {slot.text for slot in obj.shstrtab.slots} | {slot.text for slot in obj.strtab.slots}
    refs: dict[str, list[str]] = {}
    dead: dict[str, list[str]] = {}
    offset0_live = False
    cap_deleted = False
    current = None
    for y in obj.symbols:  # creation order
        if y.type == STT_SECTION and y.section is not None and y.section.name.startswith(".text."):
            current = y.section.name[len(".text.") :]
            continue
        name = reserved_name(y, tombstones)
        if name == "offset0":
            offset0_live = offset0_live or y.name_slot is None
        elif name is not None and current in funcs:
            refs.setdefault(current, []).append(name)
            cap_deleted = cap_deleted or (name == "cap" and y.name_slot is None)
            resolved_here = _asked_relocations(asked, current)
            if not blackwell and (y.name_slot is not None or not resolved_here):
                dead.setdefault(current, []).append(name)
    if blackwell:
        # the Mercury relocations name what each function reads, made before or not
        merc: dict[str, set[str]] = {}
        for s in obj.sections:
            if s.mercury and s.relocs and isinstance(s.info, Section):
                f = s.info.name.split(".text.", 1)[-1]
                merc.setdefault(f, set()).update(filter(None, (_merc_reserved_read(r.symbol) for r in s.relocs)))
        for f, names in merc.items():
            for name in RESERVED_READ_NAMES:
                if f in funcs and name in names and name not in refs.get(f, ()):
                    refs.setdefault(f, []).append(name)
        dead = {f: [n for n in names if n not in merc.get(f, set())] for f, names in refs.items()}
    else:
        _later_readers(obj, module, refs, dead, offset0_live)
    deleted = cap_resolved(module)
    for f, names in refs.items():
        fn = funcs[f]
        # what the builder derives without the facts: the shared-memory cap, named by live
        # references unless the optimizer removed them all (shared_refs_dead), deleted on
        # sm_90 when some function's shared references stay (always under -g)
        live = "cap" in names and "cap" not in dead.get(f, ())
        if names == (["cap"] if cap_trigger(module, fn) else []) and (not names or (live == live_shared_refs(module, fn) and (blackwell or cap_deleted == deleted))):
            continue
        fn.facts["reserved_refs"] = names
        if dead.get(f):
            fn.facts["reserved_refs_dead"] = dead[f]


def _later_readers(obj: ElfObject, module: Module, refs: dict[str, list[str]], dead: Mapping[str, list[str]], offset0_live: bool) -> None:
    """sm_90: a function reading a register whose symbol an earlier one made (or offset0,
    made with the module's symbols) leaves only the empty .rela.text.<f> its resolved
    reference kept (tests/probes_reserved: reserved_reads_begin, two kernels reading
    %reserved_smem_offset_begin; reserved_reads_cap -c -O0, a kernel reading
    %reserved_smem_offset_cap after one using shared memory). Such a function, reading none
    itself, is taken to read the first register read live; a deleted offset0 is read by the
    first such function, or by the first function that kept a .rela.text at all."""
    funcs = {f.name: f for f in module.functions}
    # -c keeps an empty .rela for nothing else but constants; whole-program code keeps one
    # for its resolved shared references too (and calls of inlined callees): there only a
    # read other than the cap's is looked for
    rel = bool(module.options.get("compile_only"))
    live = [n for f, names in refs.items() for n in names if n not in dead.get(f, ()) and (rel or n != "cap" or not shared_user(module, f))]
    if offset0_live:
        live.insert(0, "offset0")
    if not live:
        return
    kept = {s.name: s for s in obj.sections if not s.mercury and s.name.startswith(".rela.text.")}
    texts = [y.section.name[len(".text.") :] for y in obj.symbols if y.type == STT_SECTION and y.section is not None and y.section.name.startswith(".text.")]
    readers = [f for f in texts if f in funcs and f not in refs and f".rela.text.{f}" in kept and not kept[f".rela.text.{f}"].relocs and not (rel and funcs[f].constants)]
    for f in readers:
        refs[f] = [live[0]]
    if offset0_live and not any("offset0" in names for names in refs.values()):
        first = next((f for f in texts if f".rela.text.{f}" in kept), None)
        if first is None:
            raise NotImplementedError("a resolved read of %reserved_smem_offset_0 whose function the relocation sections do not tell")
        refs.setdefault(first, []).append("offset0")
