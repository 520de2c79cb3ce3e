"""Module-scope texture, surface and sampler references at the semantic level.

The leaf data of a reference is a :class:`DataObject` of space ``tex``, ``surf`` or
``sampler`` (name, declaration order; a sampler's initialiser is a .nv.info fact,
SAMPLER_INIT). Which kernel uses which reference, in which first-use order and pairing (the
``tex [t, s, ...]`` instructions of texmode_independent), is a compiler fact kept per kernel as
``Function.facts["handles"]``: a list of ``[texture, sampler, surface]`` uses
(cubinemit.alloc.params.HandleUse). The handle slots of bank 0, their relocations and the bank
size are derived from it with :func:`cubinemit.alloc.params.handle_slots`.

Measured on ptxas 13.0.88 (tests/probes/texref_*.ptx, tests/alloc/probes/hnd_*.ptx,
tests/nvinfo/probes/tex*.ptx):

* every reference gets an undefined GLOBAL symbol typed 10 (texture), 11 (sampler) or 12
  (surface), named with the visible variables right after the first function's symbol;
* whole-program builds fill one 4-byte slot per handle after the parameters: R_CUDA_TEX_HEADER_INDEX
  (6) for a texture, 7 (sm_75-89) / 101 (sm_90+) for a sampler, R_CUDA_SURF_HEADER_INDEX (52)
  for a surface, listed from the last slot back (a sm_75-89 paired slot: sampler, then texture);
  REL entries below sm_90, RELA with addend 0 from sm_90 on;
* -c leaves the references to the linker (relocations in .rel.text.<f>, plain banks).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..alloc.params import HANDLE_SLOT_SIZE, SMALL_PARAM_LIMIT, HandleKind, HandleSlot, HandleUse, check_use, debug_handle_order, debug_slot_permutation, handle_slots
from ..alloc._common import align_up
from ..arch import facts as arch_facts
from ..elf.model import ElfObject
from ..elf.order import symbol_order
from ..errors import CubinFormatError
from ..nvinfo.facts import REF_PARAM_KINDS, REF_SYMBOL_TYPES
from .model import Function, Module, Relocation

#: reference spaces and their symbol types (st_info low nibble, as ptxas writes them)
REF_TYPES = REF_SYMBOL_TYPES
REF_SPACES = {v: k for k, v in REF_TYPES.items()}
R_TEX_HEADER_INDEX = 6
R_SURF_HEADER_INDEX = 52


def sampler_type(sm: int) -> int:
    """The sampler-slot relocation: 7 below sm_90, 101 from sm_90 on."""
    return 7 if sm < 90 else 101


def refs(module: Module) -> list:  # type: ignore[type-arg]
    return [d for d in module.data if d.space in REF_TYPES]


def param_refs(fn: Function) -> list[tuple[str, str]]:
    """The texmode_independent reference parameters of a kernel, in parameter order: (symbol
    name, space: ``tex``, ``sampler`` or ``surf``). Their KPARAM_INFO records and LOCAL symbols
    are derived from these (nvinfo.facts.Param.symbol)."""
    info = fn.facts.get("nvinfo")
    params = info.get("params") if isinstance(info, dict) else None
    if not params:
        return []
    return [(p["symbol"], REF_PARAM_KINDS[p["pointee_space"]]) for p in params if p.get("symbol") is not None]


def uses_of(fn: Function) -> tuple[HandleUse, ...]:
    raw = fn.facts.get("handles") or []
    return tuple(HandleUse(*u) for u in raw)  # type: ignore[misc]


def refs_used(module: Module, fn: Function) -> set[str]:
    """The references ``fn`` uses: its handle uses and its code's relocations naming one.
    ptxas names the first function's references as it compiles that function, then the
    visible variables, then the other references in declaration order (-c, -c -O0, whole
    program; declared A B C, B a visible variable: `C B A` when the first function uses C,
    `B A C` when it uses B or nothing; tests/probes_edits/refs_first_function). The model
    keeps the references in naming order (Module._references_after)."""
    names = {d.name for d in refs(module)}
    used = {n for u in uses_of(fn) for n in (u.texture, u.sampler, u.surface) if n is not None}
    return (used | {r.symbol for r in fn.relocations if r.symbol in names}) & names  # type: ignore[operator]


def independent(module: Module) -> bool:
    info = module.facts.get("nvinfo")
    return isinstance(info, dict) and bool(info.get("texmode_independent"))


def texture_query(module: Module) -> bool:
    """Whole program with txq/suq: ptxas then makes no .nv.callgraph/.nv.prototype and asks no
    .rel of bank 0 while it makes the banks (texref_unified, hnd_* probes, every family)."""
    info = module.facts.get("nvinfo")
    whole = not module.options.get("compile_only") and not module.device_debug
    return whole and isinstance(info, dict) and bool(info.get("uses_texture_query"))


def param_end(module: Module, fn: Function) -> tuple[int, int]:
    """(bank-0 base, parameter bytes) of a kernel, from its parameter facts."""
    from ..nvinfo.builder import param_layout
    from ..nvinfo.facts import FunctionFacts, from_json

    lay = param_layout(module.target, from_json(FunctionFacts, fn.facts["nvinfo"]))  # type: ignore[arg-type]
    return lay.base, lay.size


_KINDS = {"tex": HandleKind.TEXTURE, "sampler": HandleKind.SAMPLER, "surf": HandleKind.SURFACE}
_FIELDS = {HandleKind.TEXTURE: "texture", HandleKind.SAMPLER: "sampler", HandleKind.SURFACE: "surface"}


def debug_first_function(module: Module) -> Function | None:
    """The first function of a -g build (non-static ones in declaration order, then the
    static ones): its handle uses order the module's -g handle table."""
    defined = [f for f in module.functions if f.linkage != "extern"]
    ordered = [f for f in defined if f.linkage != "static"] + [f for f in defined if f.linkage == "static"]
    return ordered[0] if ordered else None


def _debug_table(module: Module) -> list[tuple[str, HandleKind]]:
    first = debug_first_function(module)
    return debug_handle_order([(d.name, _KINDS[d.space]) for d in refs(module)], uses_of(first) if first is not None else ())


def plan_slots(module: Module) -> dict[str, tuple[HandleSlot, ...]]:
    """Each handle-using kernel's slots (cubinemit.alloc.params rules): its own handles in whole
    program builds, the module's -g table under -g."""
    kernels = [f for f in module.functions if f.is_kernel]
    if not any(uses_of(f) for f in kernels):
        return {}
    arch = arch_facts(module.sm)
    ends = {f.name: param_end(module, f) for f in kernels}
    module_max = max((size for _, size in ends.values()), default=0)
    module_base = arch.param_base_large if module_max > SMALL_PARAM_LIMIT else arch.param_base
    if module.device_debug:
        start = module_base + align_up(module_max, arch.handle_slot_align)
        table = tuple(HandleSlot(start + HANDLE_SLOT_SIZE * i, **{_FIELDS[kind]: name}) for i, (name, kind) in enumerate(_debug_table(module)))
        for f in kernels:
            for use in uses_of(f):
                check_use(f.name, use, independent(module))
        return {f.name: table for f in kernels if uses_of(f)}
    out = {}
    for f in kernels:
        uses = uses_of(f)
        if not uses:
            continue
        base, size = ends[f.name]
        if arch.handle_slot_scope == "module":
            start = module_base + align_up(module_max, arch.handle_slot_align)
        else:
            start = base + align_up(size, arch.handle_slot_align)
        out[f.name] = handle_slots(uses, start, module.sm, independent=independent(module), kernel=f.name)
    return out


def slot_relocations(slots: Sequence[HandleSlot], sm: int) -> list[Relocation]:
    """The bank's relocations, from the last slot back (a paired slot: sampler, texture)."""
    addend = None if sm < 90 else 0
    kinds = {"texture": R_TEX_HEADER_INDEX, "sampler": sampler_type(sm), "surface": R_SURF_HEADER_INDEX}
    out = []
    for slot in slots:
        for name, kind in slot.handles:
            out.append(Relocation(slot.offset, kinds[kind.value], name, addend))
    return list(reversed(out))


def _uses_from_slots(slots: list[HandleSlot]) -> list[list[str | None]]:
    """HandleUses that lay out as ``slots``: a paired slot or a texture slot followed by a
    sampler slot is one sampled tex, any other slot a use alone."""
    uses: list[list[str | None]] = []
    i = 0
    while i < len(slots):
        s = slots[i]
        if s.texture is not None and s.sampler is None and i + 1 < len(slots) and slots[i + 1].sampler is not None and slots[i + 1].texture is None:
            uses.append([s.texture, slots[i + 1].sampler, None])
            i += 2
            continue
        uses.append([s.texture, s.sampler, s.surface])
        i += 1
    return uses


def decompose_refs(obj: ElfObject, module: Module, banks: dict[str, list[Relocation]]) -> None:
    """The references (declaration order: their GLOBAL symbols' order) and, in whole-program
    builds, each kernel's handle uses from its bank-0 relocations (``banks``: kernel ->
    relocations). Declines what the slot rules do not reproduce."""
    from .model import DataObject

    if module.device_debug and not module.options.get("compile_only"):
        # whole-program -g names them in the code's use order around its dropped relocation
        # sections, and lists them in the handle table with the module's: not measured enough
        with_refs = [f.name for f in module.functions if param_refs(f)]
        if with_refs:
            raise NotImplementedError(f"-g: reference parameters ({', '.join(with_refs)}) are not modelled in whole-program -g builds")
    for y in symbol_order(obj):
        if y.type in REF_SPACES and y.section is None:
            if y.bind != 1:
                raise NotImplementedError(f"texture reference {y.name!r}: a non-global reference is not modelled yet")
            module.data.append(DataObject(name=y.name, space=REF_SPACES[y.type], size=0))
    by_name = {f.name: f for f in module.functions}
    sampler = sampler_type(module.sm)
    kind_of = {R_TEX_HEADER_INDEX: "texture", sampler: "sampler", R_SURF_HEADER_INDEX: "surface"}
    tables: dict[str, list[HandleSlot]] = {}
    for kernel, relocs in banks.items():
        if kernel not in by_name:
            raise CubinFormatError("its relocations name a handle bank of no function", where=f"section .nv.constant0.{kernel}")
        slots: dict[int, dict[str, str]] = {}
        for r in relocs:
            kind = kind_of.get(r.type)
            if kind is None or r.symbol is None or kind in slots.get(r.offset, {}):
                raise NotImplementedError(f".nv.constant0.{kernel}: relocation type {r.type} at {r.offset:#x} is not a handle slot the model knows")
            slots.setdefault(r.offset, {})[kind] = r.symbol
        ordered = [HandleSlot(off, **fields) for off, fields in sorted(slots.items())]
        tables[kernel] = ordered
        by_name[kernel].facts["handles"] = _uses_from_slots(ordered)
    if banks and module.device_debug:
        _debug_uses(module, tables, by_name)
    if banks:
        plan = plan_slots(module)
        for kernel, relocs in banks.items():
            if slot_relocations(plan.get(kernel, ()), module.sm) != relocs:
                raise NotImplementedError(f".nv.constant0.{kernel}: the handle slots are not reproduced by ptxas's slot rule")


def _use_of(name: str, kind: HandleKind) -> list[str | None]:
    """A use of one handle alone, as ``Function.facts["handles"]`` holds it."""
    return [name if kind is HandleKind.TEXTURE else None, name if kind is HandleKind.SAMPLER else None, name if kind is HandleKind.SURFACE else None]


def _debug_uses(module: Module, tables: dict[str, list[HandleSlot]], by_name: dict[str, Function]) -> None:
    """-g keeps each kernel's table of every module handle, not its uses: read the first
    function's uses back from the table order (alloc.params.debug_handle_order: its handles
    lead each kind group, the others follow in declaration order; the shortest such prefix),
    and give every other kernel with slots one use of the table's first handle, which makes
    its slots too. What these uses do not rebuild is declined by the caller's check."""
    table = [next(n for n in (s.surface, s.sampler, s.texture) if n is not None) for s in next(iter(tables.values()))]
    perm = debug_slot_permutation(len(table))
    listed: list[str | None] = [None] * len(table)
    for slot, index in enumerate(perm):
        listed[index] = table[slot]
    kinds = {d.name: _KINDS[d.space] for d in refs(module)}
    declared = [d.name for d in refs(module)]
    first_uses: list[list[str | None]] = []
    for kind in (HandleKind.SURFACE, HandleKind.SAMPLER, HandleKind.TEXTURE):
        group = [n for n in listed if n is not None and kinds.get(n) is kind]
        if sorted(group) != sorted(n for n in declared if kinds[n] is kind):
            raise NotImplementedError(f"-g: the handle slots do not list every declared {kind.value} reference once")
        k = 0
        while group[k:] != [n for n in declared if kinds[n] is kind and n not in group[:k]]:
            k += 1
        first_uses += [_use_of(n, kind) for n in group[:k]]
    first = debug_first_function(module)
    lead = listed[0]
    for name in tables:
        fn = by_name[name]
        fn.facts["handles"] = first_uses if fn is first and first_uses else [_use_of(lead, kinds[lead])]  # type: ignore[index, arg-type]
    if first is not None and first.name not in tables and first_uses:
        raise NotImplementedError("-g: the handle table names uses of a first function that has no handle slots")
