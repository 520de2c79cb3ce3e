"""Recover the leaf facts of a cubin: the inverse of :mod:`cubinemit.nvinfo.builder`.

:func:`facts_from_cubin` reads the decoded ``.nv.info*`` records, the symbols, the
``.nv.callgraph`` and the ptxas options in ``.note.nv.tkinfo``, and keeps only what a backend
would know (:mod:`cubinemit.nvinfo.facts`). Derived records are not copied: they are inverted
where the builder's rule needs an input that only shows through them (the parameter
alignments behind the KPARAM offsets, the ``.maxnreg`` / ``.minnctapersm`` behind MAXREG_COUNT,
an entry's own barrier count behind a -g propagated one), and otherwise dropped.

Where the records do not pin a fact down, the simplest value that rebuilds the same records is
chosen (for example ``.minnctapersm`` rather than ``.maxnreg`` when both explain MAXREG_COUNT).
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from ..arch import facts as arch_facts
from ..elf.constants import SHT_CUDA_CALLGRAPH, SHT_CUDA_INFO, STT_FUNC
from ..elf.order import symbol_order, text_sections
from ..elf.model import ElfObject, Section, Symbol
from ..errors import ModelError
from .builder import ORDER_HB, ORDER_L, VRC_TENSOR_MEMORY, FunctionMap, build_function_info, clone_groups, maxreg_count, propagate
from .callgraph import CallGraph, decode_callgraph
from .catalogue import EIAttr
from .codec import decode_nvinfo
from .facts import (
    SPARSE_MMA_KINDS,
    SURFACE,
    TEXTURE,
    Atom16Emulation,
    Clone,
    FunctionFacts,
    IndirectJump,
    InstructionNote,
    MbarrierUse,
    ModuleFacts,
    Param,
    REF_PARAM_OFFSET,
    REF_PARAM_KINDS,
    REF_SYMBOL_TYPES,
    Sampler,
)
from .gating import Emission, Target, gate, parse_target
from .notes import PtxasOptions, object_options
from .records import (
    Annotations,
    Atom16EmulRegMap,
    ByteValue,
    Dim3,
    HalfValue,
    IndirectBranchTargets,
    InstrOffsets,
    KParamInfo,
    KParamInfoV2,
    MbarrierInstrOffsets,
    NvInfoRecord,
    SamplerInit,
    SymbolList,
    SymbolValue,
    U32List,
    U32Value,
    parse_function_info,
)

_STO_CUDA_ENTRY = 0x10
_STT_FUNC = 2
_DEBUG_SECTION = ".nv_debug_info_reg_sass"
_UNBOUNDED = 0xFFFFFFFF
#: the codes the builder writes in a function's .nv.info: a record of any other code would be
#: dropped by the decomposition, so it declines instead
_FUNCTION_CODES = frozenset(a for a in ORDER_L + ORDER_HB if isinstance(a, EIAttr)) | {
    EIAttr.BINDLESS_TEXTURE_BANK,
    EIAttr.BINDLESS_SURFACE_BANK,
}
#: the BINDLESS_* codes, as a set (tested against every record of every function)
_BINDLESS_CODES = frozenset({EIAttr.BINDLESS_TEXTURE_BANK, EIAttr.BINDLESS_SURFACE_BANK})
#: functions -sanitize=memcheck links in
_INSTRUMENTATION_PREFIX = "__cuda_sanitizer_"


def _infer_alignments(sizes: list[int], offsets: list[int], origin: int = 0) -> list[int]:
    """Parameter alignments that reproduce ``offsets`` when packing in order (aligning bank-0
    addresses ``origin + offset`` on the families that do).

    The largest power of two up to the parameter's natural size class (its size rounded down to
    a power of two, at most 16) that lands on the offset, else any larger one that does.
    """
    out = []
    end = 0
    for size, off in zip(sizes, offsets):
        natural = 1
        while natural * 2 <= min(size, 16):
            natural *= 2
        out.append(_landing_alignment(origin + end, origin + off, natural, off, end))
        end = off + size
    return out


def _landing_alignment(start: int, target: int, natural: int, off: int, end: int) -> int:
    """The alignment for :func:`_infer_alignments`: among the powers of two up to 1 << 15 that
    round ``start`` up to ``target``, the largest up to ``natural``, else the smallest."""
    best = 0
    for k in range(16):
        a = 1 << k
        if (start + a - 1) & -a == target:
            if a > natural:
                return best or a  # the smallest one above natural, when none below lands
            best = a
    if not best:
        raise ModelError(f"parameter at offset {off} cannot follow one ending at {end}")
    return best


@attrs.define
class _Raw:
    """One function while its facts are being recovered."""

    symbol: Symbol
    section: Section
    records: list[NvInfoRecord]


def table_functions(obj: ElfObject) -> tuple[str, ...]:
    """The functions whose address a module variable's initializer holds: the FUNC symbols the
    relocations of the module data sections name (.nv.global.init, .nv.constant3)."""
    out: dict[str, None] = {}
    for s in obj.relocation_sections():
        target = s.info
        if s.mercury or not isinstance(target, Section) or not target.name.startswith((".nv.global", ".nv.constant")) or target.name.startswith(".nv.constant0"):
            continue
        for r in s.relocs:
            if r.symbol is not None and r.symbol.type == STT_FUNC:
                out.setdefault(r.symbol.name, None)
    return tuple(out)


def facts_from_cubin(obj: ElfObject, *, symbols: list[Symbol] | None = None) -> tuple[ModuleFacts, list[FunctionFacts]]:
    """The module facts and the facts of every function with its own .text, in .text order
    (``symbols``: symbol_order(obj), when the caller has it)."""
    if symbols is None:
        symbols = symbol_order(obj)
    names = [""] + [s.name for s in symbols]

    def symbol_name(index: int) -> str:
        if not 0 < index < len(names):
            raise LookupError(f"no symbol {index}")
        return names[index]

    options = object_options(obj)
    target = parse_target(options.arch if isinstance(options.arch, str) else f"sm_{obj.sm}")
    info: dict[str, list[NvInfoRecord]] = {}
    graph = CallGraph()
    # (creation order: the header order of the .nv.info and .nv.callgraph sections, which
    # share one class and keep their creation order there, is not needed to read them)
    for s in obj.sections:
        if s.sh_type == SHT_CUDA_INFO:
            info[s.name] = decode_nvinfo(s.data, section=s.name, symbol_name=symbol_name)
        elif s.sh_type == SHT_CUDA_CALLGRAPH:
            graph = decode_callgraph(s.data, symbol_name=symbol_name, section=s.name)
    glob = info.get(".nv.info", [])
    debug = options.debug or any(s.name.startswith(_DEBUG_SECTION) for s in obj.sections)

    # --- module facts
    samplers: list[Sampler] = []
    force: dict[str, int] = {}
    for r in glob:
        if isinstance(r, SymbolValue) and r.attr is EIAttr.SAMPLER_FORCE_UNNORMALIZED:
            force[r.symbol] = r.value
        elif isinstance(r, SamplerInit):
            samplers.append(
                Sampler(r.symbol, r.addr_mode_0, r.addr_mode_1, r.addr_mode_2, r.filter_mode, force.get(r.symbol))
            )
    samplers.reverse()  # ptxas writes the last declared first
    whole = not options.compile_only and not debug
    uses_query = (
        whole
        and not options.extensible_whole_program
        and any(isinstance(r, SymbolValue) and r.attr is EIAttr.MAX_STACK_SIZE for r in glob)
    )
    module = ModuleFacts(
        target=target.name,
        compile_only=options.compile_only,
        debug=debug,
        extensible_whole_program=options.extensible_whole_program,
        tools_patch=options.tools_patch,
        errors_visible_at_exit=options.make_errors_visible_at_exit,
        sanitize=None if options.sanitize is None else str(options.sanitize),
        maxrregcount=options.maxrregcount if isinstance(options.maxrregcount, int) else None,
        opt_level=options.opt_level if isinstance(options.opt_level, int) else None,
        lineinfo=options.lineinfo,
        texmode_independent=any(r.attr is EIAttr.TEXMODE_INDEPENDENT for r in glob),
        uses_texture_query=uses_query,
        samplers=samplers,
        call_graph=graph,
        table_functions=table_functions(obj),
    )

    # --- functions with their own .text, in section order
    regcount: dict[str, int] = {}
    frame: dict[str, int] = {}
    min_stack: dict[str, int] = {}
    for r in glob:
        if isinstance(r, SymbolValue):
            if r.attr is EIAttr.REGCOUNT:
                regcount[r.symbol] = r.value
            elif r.attr is EIAttr.FRAME_SIZE:
                frame[r.symbol] = r.value
            elif r.attr is EIAttr.MIN_STACK_SIZE:
                min_stack[r.symbol] = r.value
    raws: list[_Raw] = []
    for s in text_sections(obj):
        sym = s.info if isinstance(s.info, Symbol) else None
        if sym is None:
            sym = next((y for y in symbols if y.section is s and y.name == s.name[6:]), None)
        if sym is None:
            raise ModelError(f"{s.name}: no function symbol")
        raws.append(_Raw(sym, s, info.get(f".nv.info.{sym.name}", [])))
    by_section, position = _func_index(symbols)
    index = (by_section, position, {n: i for i, n in enumerate(frame)})
    funcs = [_function(target, module, raw, symbols, regcount, frame, min_stack, index) for raw in raws]
    if module.debug and not module.compile_only:
        rank = {y.name: i for i, y in enumerate(symbols, start=1)}
        funcs = _undo_propagation(module, funcs, raws, rank.__getitem__)
    return module, funcs


def _func_index(symbols: list[Symbol]) -> tuple[dict[int, list[Symbol]], dict[int, int]]:
    """FUNC symbols grouped by section, and every symbol's position: built once per cubin (a
    scan per function made decomposition quadratic in the number of functions)."""
    groups: dict[int, list[Symbol]] = {}
    for y in symbols:
        if y.section is not None and y.info & 0xF == _STT_FUNC:
            groups.setdefault(id(y.section), []).append(y)
    return groups, {id(y): i for i, y in enumerate(symbols)}


def _ref_param(name: str, r: KParamInfo | KParamInfoV2, symbols: list[Symbol]) -> Param:
    """A texmode_independent reference parameter from its KPARAM_INFO: the record's index names
    a LOCAL symbol of the reference's type (10 texture, 11 sampler, 12 surface) in the kernel's
    .text (tests/probes_directives/ref_params)."""
    if r.space not in REF_PARAM_KINDS or not 0 < r.index <= len(symbols):
        raise NotImplementedError(f"{name}: parameter #{r.ordinal} at offset 0xffff (index {r.index}, space {r.space}) is not modelled")
    sym = symbols[r.index - 1]
    want = REF_SYMBOL_TYPES[REF_PARAM_KINDS[r.space]]
    if sym.info != want:
        raise NotImplementedError(f"{name}: reference parameter #{r.ordinal} names symbol {sym.name!r} of type {sym.info & 0xF} (want a LOCAL of type {want})")
    return Param(0, 1, 0, r.space, symbol=sym.name)


def _function(
    t: Target,
    module: ModuleFacts,
    raw: _Raw,
    symbols: list[Symbol],
    regcount: dict[str, int],
    frame: dict[str, int],
    min_stack: dict[str, int],
    index: tuple[dict[int, list[Symbol]], dict[int, int], dict[str, int]],
) -> FunctionFacts:
    name = raw.symbol.name
    recs = raw.records
    kernel = bool(raw.symbol.other & _STO_CUDA_ENTRY)
    by: dict[EIAttr, list[NvInfoRecord]] = {}
    for r in recs:
        if isinstance(r.attr, EIAttr):
            by.setdefault(r.attr, []).append(r)
    unknown = [r.attr for r in recs if r.attr not in _FUNCTION_CODES]
    if unknown:
        names = ", ".join(sorted({getattr(a, "name", str(a)) for a in unknown}))
        raise NotImplementedError(f".nv.info.{name}: {names} records are not modelled")
    if any(r.attr is EIAttr.ANNOTATIONS and r.raw for r in recs):
        # a layout the codec does not read would be dropped by the rebuild
        raise NotImplementedError(f".nv.info.{name}: an ANNOTATIONS record whose sub-records are not modelled")

    def one(attr: EIAttr) -> NvInfoRecord | None:
        got = by.get(attr)
        return got[0] if got else None

    def offsets(attr: EIAttr) -> tuple[int, ...]:
        r = one(attr)
        return r.offsets if isinstance(r, InstrOffsets) else ()

    def dim(attr: EIAttr) -> tuple[int, int, int] | None:
        r = one(attr)
        return (r.x, r.y, r.z) if isinstance(r, Dim3) else None

    kw: dict[str, object] = {"name": name, "is_kernel": kernel}
    # registers: sm_75-89 keep the function's own count in .text sh_info[31:24]
    own_regs = regcount.get(name, 0)
    if t.family == "L" and raw.section.info_high >> 24:
        own_regs = min(own_regs, raw.section.info_high >> 24) if own_regs else raw.section.info_high >> 24
    kw["register_count"] = own_regs
    kw["frame_size"] = frame.get(name, 0)

    # parameters
    kparams = [r for r in recs if isinstance(r, (KParamInfo, KParamInfoV2))]
    if kparams:
        ordered = sorted(kparams, key=lambda r: r.ordinal)
        refs = {r.ordinal: _ref_param(name, r, symbols) for r in ordered if r.offset == REF_PARAM_OFFSET and r.size == 0}
        packed = [r for r in ordered if r.ordinal not in refs]
        for r in packed:
            if r.size == 0:
                # ptxas writes this for a reference parameter named like another kernel's (it
                # finds the other kernel's symbol and gives no index): not a shape a build makes
                raise NotImplementedError(f"{name}: parameter #{r.ordinal} has size 0 at offset {r.offset:#x} (a reference parameter named like another one?)")
        af = arch_facts(t.sm)
        large = any(isinstance(r, KParamInfoV2) for r in kparams)
        absolute = af.param_align_absolute_large if large else af.param_align_absolute
        origin = (af.param_base_large if large else af.param_base) if absolute else 0
        aligns = iter(_infer_alignments([r.size for r in packed], [r.offset for r in packed], origin))
        kw["params"] = tuple(
            refs[r.ordinal] if r.ordinal in refs else Param(r.size, next(aligns), r.log_alignment, r.space) for r in ordered
        )
    kw["maxntid"] = dim(EIAttr.MAX_THREADS)
    kw["reqntid"] = dim(EIAttr.REQNTID)
    kw["cluster_dims"] = dim(EIAttr.CTA_PER_CLUSTER)
    kw["explicit_cluster"] = EIAttr.EXPLICIT_CLUSTER in by
    kw["blocks_are_clusters"] = EIAttr.BLOCKS_ARE_CLUSTERS in by
    rank = one(EIAttr.MAX_CLUSTER_RANK)
    kw["max_cluster_rank"] = rank.value if isinstance(rank, U32Value) else None

    # whole-program clones: the other FUNC symbols defined in this .text. The global .nv.info
    # lists their FRAME_SIZE last created first; which of them ptxas created in its first group
    # (recursive or address-taken callees) is read back from that order (builder.clone_order).
    by_section = index[0]
    members = {y.name for y in by_section.get(id(raw.section), ()) if y is not raw.symbol}
    # (a set minus dict keys copies the keys: a scan of every function per function)
    missing = {n for n in members if n not in frame}
    if missing:
        raise NotImplementedError(f"{name}: clones without FRAME_SIZE ({', '.join(sorted(missing))}) are not modelled")
    # last created first: FRAME_SIZE record order (positions counted once per cubin)
    frame_rank = index[2]
    created = sorted((n for n in members if n in frame), key=lambda n: -frame_rank[n])
    first = clone_groups(created)
    if first is None:
        raise NotImplementedError(f"{name}: ptxas created its clones in an order not modelled ({', '.join(created)})")
    kw["clones"] = tuple(Clone(n, frame[n], i < first) for i, n in enumerate(created))

    ext = [r for r in recs if isinstance(r, SymbolList) and r.attr is EIAttr.EXTERNS]
    kw["externs"] = tuple(e for r in ext for e in r.symbols)
    kw["instrumentation"] = name.startswith(_INSTRUMENTATION_PREFIX)
    kw["exit_offsets"] = offsets(EIAttr.EXIT_INSTR_OFFSETS)
    kw["coop_group_offsets"] = offsets(EIAttr.COOP_GROUP_INSTR_OFFSETS)
    masks = one(EIAttr.COOP_GROUP_MASK_REGIDS)
    kw["coop_group_mask_regids"] = masks.values if isinstance(masks, U32List) else ()
    kw["syscall_offsets"] = offsets(EIAttr.SYSCALL_OFFSETS)
    kw["int_warp_wide_offsets"] = offsets(EIAttr.INT_WARP_WIDE_INSTR_OFFSETS)
    unused = one(EIAttr.UNUSED_LOAD_BYTE_OFFSET)
    kw["unused_load_bytes"] = unused.values if isinstance(unused, U32List) else ()
    mb = one(EIAttr.MBARRIER_INSTR_OFFSETS)
    if isinstance(mb, MbarrierInstrOffsets):
        for e in mb.entries:
            if e.kind_high or e.pad:
                raise ModelError(f"{name}: MBARRIER_INSTR_OFFSETS entry {e!r} has bits the facts do not model")
        kw["mbarriers"] = tuple(
            MbarrierUse(e.offset, e.base_reg, e.imm_offset, e.kind, e.base_ureg, e.stride, e.aux) for e in mb.entries
        )
    nmb = one(EIAttr.NUM_MBARRIERS)
    kw["num_mbarriers"] = nmb.value if isinstance(nmb, HalfValue) else None
    a16 = one(EIAttr.ATOM16_EMUL_INSTR_REG_MAP)
    if isinstance(a16, Atom16EmulRegMap):
        kw["atom16_emulations"] = tuple(Atom16Emulation(e.offset, e.reg) for e in a16.entries)
    ibt = one(EIAttr.INDIRECT_BRANCH_TARGETS)
    if isinstance(ibt, IndirectBranchTargets):
        for b in ibt.branches:
            if b.reserved:
                raise ModelError(f"{name}: INDIRECT_BRANCH_TARGETS entry with reserved word {b.reserved:#x}")
        kw["indirect_branches"] = tuple(IndirectJump(b.offset, b.targets) for b in ibt.branches)
    ann = one(EIAttr.ANNOTATIONS)
    if isinstance(ann, Annotations):
        kw["spill_refill_offsets"] = ann.spill_refill_offsets
        kw["instruction_notes"] = tuple(InstructionNote(n.offset, n.text) for n in ann.notes)
        if ann.function_info is not None:
            parsed = parse_function_info(ann.function_info)
            if parsed is None or parsed[1] != kw["register_count"]:
                raise NotImplementedError(f".nv.info.{name}: ANNOTATIONS FunctionInfo {ann.function_info!r} is not the form the builder writes")
            kw["annotated_instructions"] = parsed[0]
    irm = one(EIAttr.INSTR_REG_MAP)
    kw["instr_reg_map"] = irm.values if isinstance(irm, U32List) else None
    crs = one(EIAttr.CRS_STACK_SIZE)
    kw["crs_stack_size"] = crs.value if isinstance(crs, U32Value) else None

    # barriers: a NUM_BARRIERS after MERCURY_ISA_VERSION is a -g propagated one (own count 0)
    nb = one(EIAttr.NUM_BARRIERS)
    if isinstance(nb, ByteValue):
        attrs_in_order = [r.attr for r in recs]
        merc = attrs_in_order.index(EIAttr.MERCURY_ISA_VERSION) if EIAttr.MERCURY_ISA_VERSION in attrs_in_order else len(recs)
        kw["num_barriers"] = nb.value if attrs_in_order.index(EIAttr.NUM_BARRIERS) < merc else 0
    kw["ctaid_z_used"] = EIAttr.CTAIDZ_USED in by
    kw["wmma_used"] = EIAttr.WMMA_USED in by
    kw["reg_reconfig"] = EIAttr.REG_RECONFIG in by
    sp = one(EIAttr.SPARSE_MMA_MASK)
    if isinstance(sp, HalfValue):
        kw["sparse_mma"] = tuple(k for k, bit in SPARSE_MMA_KINDS.items() if sp.value >> bit & 1) if sp.value else ()
        if sp.value >> 8:
            raise ModelError(f"{name}: SPARSE_MMA_MASK {sp.value:#x} has bits no sparse MMA kind names")
    kw["tcgen05_1cta"] = EIAttr.TCGEN05_1CTA_USED in by
    kw["tcgen05_2cta"] = EIAttr.TCGEN05_2CTA_USED in by
    vrc = one(EIAttr.VRC_CTA_INIT_COUNT)
    if isinstance(vrc, ByteValue):
        if vrc.value not in (0, VRC_TENSOR_MEMORY):
            raise ModelError(f"{name}: VRC_CTA_INIT_COUNT {vrc.value:#x} is neither 0 nor {VRC_TENSOR_MEMORY:#x}")
        if (vrc.value == VRC_TENSOR_MEMORY) != (kw["tcgen05_1cta"] or kw["tcgen05_2cta"]):
            kw["tensor_memory"] = vrc.value == VRC_TENSOR_MEMORY
    frag = one(EIAttr.AT_ENTRY_FRAGMENTS)
    kw["at_entry_fragments"] = frag.values if isinstance(frag, U32List) else ()
    every_entry = gate(t, EIAttr.RESERVED_SMEM_USED).emission is Emission.EVERY_FUNCTION
    kw["reserved_smem"] = EIAttr.RESERVED_SMEM_USED in by and not (every_entry and kernel)

    bindless = [TEXTURE if r.attr is EIAttr.BINDLESS_TEXTURE_BANK else SURFACE for r in recs if r.attr in _BINDLESS_CODES]
    if t.family == "L":
        kw["uses_texref"] = TEXTURE in bindless
        kw["uses_surfref"] = SURFACE in bindless
        derived = ([SURFACE] if SURFACE in bindless else []) + ([TEXTURE] if TEXTURE in bindless else [])
        if bindless != derived:
            kw["legacy_bindless"] = tuple(bindless)
    else:
        # sm_90+ writes both records for either use: which references are used does not show
        kw["uses_texref"] = bool(bindless)

    # -ewp and P5: an unbounded MIN_STACK_SIZE says the call tree recurses
    if module.whole_program and (module.extensible_whole_program or module.uses_texture_query):
        kw["recursive"] = min_stack.get(name) == _UNBOUNDED
    facts = FunctionFacts(**kw)  # type: ignore[arg-type]
    maxreg = one(EIAttr.MAXREG_COUNT)
    if kernel and isinstance(maxreg, HalfValue):
        facts = decompose_maxreg(t.name, module, facts, maxreg.value)
    return facts


#: the FunctionFacts flag behind each record -g may fold into an entry
_PROPAGATED_FLAG = {
    "reserved_smem": EIAttr.RESERVED_SMEM_USED,
    "tcgen05_1cta": EIAttr.TCGEN05_1CTA_USED,
    "tcgen05_2cta": EIAttr.TCGEN05_2CTA_USED,
}


def _undo_propagation(module: ModuleFacts, funcs: list[FunctionFacts], raws: list[_Raw], symbol_rank: Callable[[str], int]) -> list[FunctionFacts]:
    """-g entries: keep only what the entry has itself (the builder propagates the rest).

    Own externs are the entry's own call-graph edges to undefined functions; a CTAIDZ_USED the
    callees explain is taken as inherited unless only an own one rebuilds the same records.
    """
    by_name = FunctionMap((f.name, f) for f in funcs)
    direct = {(e.caller, e.callee) for e in module.call_graph.calls}
    out = []
    for f, raw in zip(funcs, raws):
        if not f.is_kernel:
            out.append(f)
            continue
        # what is read of the propagation: recursion, which the entry's own facts do not
        # change, and for an entry using %ctaid.z or a flag of _PROPAGATED_FLAG whether its
        # callees do too (only then is the bare copy needed: most entries would pay for a copy
        # they do not use)
        flags = [n for n in _PROPAGATED_FLAG if getattr(f, n)]
        if f.ctaid_z_used or flags:
            bare = attrs.evolve(f, ctaid_z_used=False, num_barriers=0, register_count=0, externs=(), **{n: False for n in flags})
        else:
            bare = f
        prop = propagate(module, bare, by_name)
        changes: dict[str, object] = {"externs": tuple(e for e in f.externs if (f.name, e) in direct)}
        if prop.recursive:
            changes["crs_stack_size"] = None  # overridden by the builder; the own value is unknowable
        candidates = [changes]
        if f.ctaid_z_used and prop.ctaid_z_used:
            candidates = [{**changes, "ctaid_z_used": False}, changes]
        for name in flags:
            # a flag record the callees bring may stand in the tail rather than be the entry's
            # own (tests/probes_gfold/fold_flags_*): own first, as for %ctaid.z
            if _PROPAGATED_FLAG[name] in prop.tail:
                candidates = [{**c, name: False} for c in candidates] + candidates
        if f.num_mbarriers is not None:
            # NUM_MBARRIERS adds the reachable functions' mbarriers to the entry's own: the own
            # count is what is left, or none when the callees account for all of it
            # (tests/probes_gfold/fold_mbarriers)
            # (a cta_group::2 tcgen05.alloc brings a record of 0: tests/probes_gfold/fold_flags_tail)
            callees = propagate(module, attrs.evolve(bare, num_mbarriers=None), by_name).num_mbarriers
            if callees is not None:
                owns: list[int | None] = [f.num_mbarriers - callees] if f.num_mbarriers > callees else []
                owns += [None, 0] if f.num_mbarriers == callees else []
                candidates = [{**c, "num_mbarriers": n} for n in owns for c in candidates]
        if f.tensor_memory is not None or any(getattr(f, n) for n in ("tcgen05_1cta", "tcgen05_2cta")):
            # VRC_CTA_INIT_COUNT folds the callees' tensor memory in too: the own value may be
            # what the flags say once the callees explain the rest
            candidates += [{**c, "tensor_memory": v} for v in (None, True, False) for c in candidates]
        for cand in candidates:
            # (no copy when the candidate changes nothing: most entries keep their own facts)
            same = all(getattr(f, k) == v for k, v in cand.items())
            facts = f if same else attrs.evolve(f, **cand)  # type: ignore[arg-type]
            if build_function_info(None, module, facts, functions=by_name, symbol_rank=symbol_rank) == raw.records:
                break
        else:
            # no own facts give the records: what ptxas folded in is not modelled
            raise NotImplementedError(f".nv.info.{f.name}: the records -g folds into this kernel are not reproduced")
        out.append(facts)
    return out


def decompose_maxreg(target: str, module: ModuleFacts, facts: FunctionFacts, value: int) -> FunctionFacts:
    """Choose ``.minnctapersm`` / ``.maxnreg`` so that the builder gives MAXREG_COUNT ``value``."""
    if maxreg_count(target, module, facts) == value:
        return facts
    if facts.maxntid is not None or facts.reqntid is not None:
        for m in range(2, 65):
            cand = attrs.evolve(facts, minnctapersm=m)
            if maxreg_count(target, module, cand) == value:
                return cand
    cand = attrs.evolve(facts, maxnreg=value)
    if maxreg_count(target, module, cand) == value:
        return cand
    raise ModelError(f"function {facts.name!r}: no launch bounds give MAXREG_COUNT {value} on {target}")

