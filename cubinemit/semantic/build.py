"""The builder: a :class:`Module` to cubin bytes.

The emitter lays down the structure; the builder fills the payloads that rules derive. The two
notes come from the options and target, .nv.compat from the target, .nv.info records from the
facts (cubinemit.nvinfo.builder), .nv.callgraph and .nv.prototype from the call facts
(cubinemit.funcorder), the banks from the parameters. The Mercury tail is not wired yet: a
sm_100+ module raises NotImplementedError rather than give a cubin the builder cannot vouch for.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

import attrs

from ..elf.constants import NOTE_NAME_NVIDIA, NT_CUDA_CUINFO, NT_CUDA_TKINFO
from ..elf.model import ElfObject, Section
from ..elf.structs import pack_note
from ..elf.writer import write
from ..errors import ModelError
from ..nvinfo import compat_records, encode_compat, has_compat_section
from ..nvinfo.gating import fastpath_default
from ..nvinfo.notes import CuInfo, PtxasOptions, TkInfo, encode_cuinfo, encode_tkinfo
from ..elf.layout import layout, section_order
from ..elf.order import symbol_order, text_sections
from .emit import emit
from .model import Function, Module

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..funcorder import PtxFunction


def fill_notes(module: Module, obj: ElfObject) -> None:
    """.note.nv.tkinfo from the options (ptxas renders them in its canonical order) and
    .note.nv.cuinfo from the PTX target."""
    options = PtxasOptions(**module.options)  # type: ignore[arg-type]
    tk = TkInfo.for_ptxas(options, output_basename=options.output_name or "elf.o")
    obj.section(".note.nv.tkinfo").data = pack_note(NOTE_NAME_NVIDIA, NT_CUDA_TKINFO, encode_tkinfo(tk))
    obj.section(".note.nv.cuinfo").data = pack_note(NOTE_NAME_NVIDIA, NT_CUDA_CUINFO, encode_cuinfo(CuInfo(module.ptx_target)))


def fill_compat(module: Module, obj: ElfObject) -> None:
    if has_compat_section(module.target):
        isa_class = int(module.facts.get("isa_class", 1))  # type: ignore[call-overload]
        fastpath = module.facts.get("fastpath", fastpath_default(module.target, has_code=module.has_code()))
        tensormap = int(module.facts.get("tensormap", 0))  # type: ignore[call-overload]
        records = compat_records(module.target, isa_class=isa_class, fastpath=int(fastpath), tensormap=tensormap)  # type: ignore[call-overload]
        obj.section(".nv.compat").data = encode_compat(records)


#: .nv.rel.action (sm_75-89 executables): one relocation-action record, the same in every
#: cubin of the corpus
REL_ACTION = bytes.fromhex("73000000000000000000001125000536")


def _functions_in_text_order(module: Module, obj: ElfObject) -> list[Function]:
    by_name: dict[str, Function] = {}
    for f in module.functions:
        by_name.setdefault(f.name, f)
    names = [s.name[len(".text.") :] for s in text_sections(obj)]
    return [by_name[n] if n in by_name else module.function(n) for n in names]


def fill_metadata(module: Module, obj: ElfObject, ptx: Sequence[PtxFunction] | None = None) -> None:
    """.nv.info and .nv.info.<f> from the facts (records in ptxas's order per family and mode),
    the parameter banks (zero-filled: the base plus the packed parameters), .nv.callgraph and
    .nv.prototype from the call facts, .nv.rel.action. ``ptx``: decompose.ptx_functions(module),
    when the caller has it."""
    from ..funcorder import callgraph as derive_callgraph
    from ..nvinfo import encode_callgraph, encode_nvinfo, encode_prototype
    from ..nvinfo.builder import build_module_info, param_layout
    from ..nvinfo.callgraph import CallGraph
    from ..nvinfo.facts import FunctionFacts, ModuleFacts, from_json
    from .decompose import function_tables, launched_kernels, ptx_functions

    if ptx is None:
        ptx = ptx_functions(module)
    index = {s.name: i for i, s in enumerate(symbol_order(obj), start=1) if s.name}
    symbol_index = index.__getitem__
    if "nvinfo" not in module.facts:
        raise NotImplementedError("the module has no .nv.info facts")
    mfacts = from_json(ModuleFacts, module.facts["nvinfo"])  # type: ignore[arg-type]
    # an option, not a fact: read from the options the module is built with
    mfacts = attrs.evolve(mfacts, errors_visible_at_exit=bool(module.options.get("make_errors_visible_at_exit")))
    texts = _functions_in_text_order(module, obj)
    offsets = obj.strtab.offsets()
    by_text = {slot.text: offsets[id(slot)] for slot in reversed(obj.strtab.slots)}
    graph = obj.find_section(".nv.callgraph")
    # the call graph (.nv.callgraph, which -g folds along) and the functions in tables, from
    # the functions' call facts and the data: derived, never read from the spec
    cg = derive_callgraph(list(ptx), module.ordering_mode(), [f.name for f in texts], string_offset=by_text.__getitem__, sm=module.sm) if graph is not None else CallGraph()
    if cg.address_taken and module.ordering_mode().whole_program:
        # whole program: the kernels initializers take are marked the first function first,
        # then in the order of their .nv.constant4 slots, their declaration order (CUDA samples
        # Mandelbrot, clang -fgpu-rdc: 0f 0d 1f 1d; tests/probes_data init_kernel_addresses:
        # kb, the first function, then ka kc)
        from .data import constant4_slots

        slots = [r.symbol.name for r in constant4_slots(obj) or () if r.symbol is not None]
        first = texts[0].name if texts else None
        rank = {n: i for i, n in enumerate(slots)}
        cg = attrs.evolve(cg, address_taken=sorted(cg.address_taken, key=lambda m: -1 if m.function == first else rank.get(m.function, len(rank))))
    tables = tuple(dict.fromkeys(n for names in function_tables(module).values() for n in names))
    mfacts = attrs.evolve(mfacts, call_graph=cg, table_functions=tables)
    ffacts = [from_json(FunctionFacts, f.facts["nvinfo"]) for f in texts]  # type: ignore[arg-type]
    if module.options.get("annotate"):
        # -annotate writes every function's FunctionInfo; its instruction count is the compiler's
        for ff in ffacts:
            if ff.annotated_instructions is None:
                raise ModelError(f"function {ff.name!r}: -annotate needs the instruction count ptxas reports (fact nvinfo.annotated_instructions)")
    if ffacts and module.options.get("compile_only") and not module.facts.get("launches_unlisted"):
        # every launched kernel closes the first function's EXTERNS in declaration order,
        # its own launches among them (decompose._first_function_launches)
        launched = [k for k in launched_kernels(module) if k != ffacts[0].name]
        if launched:
            ffacts[0] = attrs.evolve(ffacts[0], externs=(*(e for e in ffacts[0].externs if e not in launched), *launched))
    by_name = {s.name: s for s in obj.sections}
    # the parameter layout of every kernel with a bank, worked out once for its records and its bank
    banks = {f.name: by_name[f".nv.constant0.{f.name}"] for f in texts if f".nv.constant0.{f.name}" in by_name}
    layouts = {ff.name: param_layout(module.target, ff) for ff in ffacts if ff.name in banks}
    for name, records in build_module_info(mfacts, ffacts, symbol_rank=symbol_index, layouts=layouts).items():
        by_name[name].data = encode_nvinfo(records, symbol_index=symbol_index)
    slots = _handle_slots(module)
    for f in texts:
        bank = banks.get(f.name)
        if bank is not None:
            lay = layouts[f.name]
            # a kernel using texture references: the bank ends after its last handle slot
            # (cubinemit.alloc.params; the slots are zero, filled by their relocations)
            end = slots[f.name][-1].offset + 4 if slots.get(f.name) else lay.base + lay.size
            bank.data = bytes(end)
    if graph is not None:
        graph.data = encode_callgraph(cg, symbol_index=symbol_index)
    proto = obj.find_section(".nv.prototype")
    if proto is not None and proto in obj.sections:
        from ..funcorder import prototypes

        entries = prototypes(list(ptx), module.ordering_mode(), [f.name for f in texts], module.sm)
        proto.data = encode_prototype(entries, symbol_index=symbol_index, string_offset=by_text.__getitem__)
    action = obj.find_section(".nv.rel.action")
    if action is not None:
        action.data = REL_ACTION


def _handle_slots(module: Module) -> dict[str, tuple]:  # type: ignore[type-arg]
    """Whole program and -g: the bank-0 handle slots of the kernels using texture references."""
    from .texrefs import plan_slots

    if module.options.get("compile_only"):
        return {}
    return plan_slots(module)


def _commons_resolved(module: Module) -> Module:
    """``module``, or a copy whose ``.common`` variables are visible ones: a whole-program
    build allocates a .common .global as if it were .visible (GLOBAL symbol, declaration
    order: tests/probes_directives/common_global); only -c leaves it in SHN_COMMON."""
    if module.options.get("compile_only") or not any(d.linkage == "common" for d in module.data):
        return module
    return attrs.evolve(module, data=[attrs.evolve(d, linkage="visible") if d.linkage == "common" else d for d in module.data])


def _frame_in_text_order(module: Module, ptx: Sequence[PtxFunction]) -> Module:
    """``module``, or a copy whose .debug_frame pairs stand in .text order (ptxas writes them
    so; a backend that reordered its functions still holds them in the old order). ``ptx``:
    decompose.ptx_functions(module)."""
    import copy

    from ..funcorder import function_order
    from . import frame as debug_frame

    payload = next((d for d in module.debug if d.name == ".debug_frame"), None)
    if payload is None or not payload.data:
        return module
    parsed = debug_frame.parse(payload)
    keep = debug_frame.text_order(parsed, function_order(list(ptx), module.ordering_mode()))
    if keep is None:
        return module
    module = attrs.evolve(module, facts=copy.deepcopy(module.facts))
    module.debug = [debug_frame.rewrite(parsed, module, keep) if d is payload else d for d in module.debug]
    return module


def build_object(module: Module) -> ElfObject:
    """The ELFW object with every payload derived. The funcorder view of the functions is
    worked out once here: the emitter and the fillers all order by it (the .debug_frame
    rewrite leaves the functions and data as they are)."""
    return _build_object(module)[0]


def _build_object(module: Module) -> tuple[ElfObject, list[Section] | None]:
    """:func:`build_object`, and the section order when the Mercury filler worked it out (it
    numbers the sections as the layout does: the layout takes it rather than sort again)."""
    from .decompose import ptx_functions

    module = _commons_resolved(module)
    ptx = tuple(ptx_functions(module))
    module = _frame_in_text_order(module, ptx)
    obj = emit(module, ptx)
    fill_notes(module, obj)
    fill_compat(module, obj)
    fill_metadata(module, obj, ptx)
    order = None
    if obj.merc_symbols:
        order = section_order(obj)
        fill_mercury(module, obj, ptx, order=order)
    return obj, order


def fill_mercury(
    module: Module, obj: ElfObject, ptx: Sequence[PtxFunction] | None = None, *, order: Sequence[Section] | None = None
) -> None:
    """sm_100+: every .nv.merc.* clone and .nv.merc.symtab from the originals just built and the
    Mercury facts (cubinemit.mercury). ``ptx``: decompose.ptx_functions(module), when the caller
    has it; ``order``: elf.layout.section_order(obj), when the caller has it."""
    from .. import mercury
    from ..elf.model import Relocation
    from .tagged import decode

    if "mercury" not in module.facts:
        raise NotImplementedError("the module has no Mercury facts")
    facts = decode(module.facts["mercury"])
    if order is None:
        order = section_order(obj)
    index = {id(s): i for i, s in enumerate(order, start=1)}  # as layout() numbers them
    for s in obj.sections:  # each capsule starts with the header index of its .text.<f>
        if s.name.startswith(".nv.capmerc.text.") and s.clone_of is not None and len(s.data) >= 4:
            s.data = index[id(s.clone_of)].to_bytes(4, "little") + s.data[4:]
    obj.merc_symbols = mercury.derive_merc_symbols(obj, facts)
    from ..funcorder import g_order
    from .decompose import ptx_functions

    if ptx is None:
        ptx = ptx_functions(module)
    g = g_order(list(ptx))  # orders the entries of function-address tables
    shared = mercury.Derivation(obj, facts)  # .nv.merc.debug_frame and line tables, derived once
    for s in obj.sections:
        if not s.mercury or s.name.startswith(".nv.capmerc.") or s.name == ".nv.merc.symtab":
            continue
        if s.relocs is not None:
            s.relocs = [
                Relocation(off, obj.merc_symbols[i - 1] if i else None, t, a)
                for off, i, t, a in mercury.derive_merc_relocations(obj, s, facts, function_order=g, shared=shared, data_order=[d.name for d in module.data])
            ]
        elif s.name.startswith(".nv.merc.nv.info"):
            s.data = mercury.derive_merc_info(obj, s.clone_of, facts)  # type: ignore[arg-type]
        else:
            data = mercury.derive_merc_data(obj, s, facts, shared=shared)
            if s.sh_type == 0x70000015:  # the reserved-SMEM clone holds real bytes
                s.data = data
            else:
                s.data = data


def build(module: Module) -> bytes:
    """The cubin ptxas would write for ``module``. A module whose values the rules cannot
    read (a spec written by hand: a number out of range, a fact of another shape, a name that
    names nothing) gives a ModelError saying what failed, the Python error as its cause; the
    spec loader names the path of what it can check (:func:`cubinemit.semantic.spec.from_spec`)."""
    try:
        obj, order = _build_object(module)
        # (the Mercury filler changes bytes, relocations and symbols, never the section order)
        return write(obj, layout(obj, order) if order is not None else None)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, ArithmeticError, struct.error) as exc:
        raise ModelError(f"the module does not build: {type(exc).__name__}: {exc} (a value of another type or range than the rules read, or a name that names nothing)") from exc


__all__ = ["build", "build_object", "write"]
