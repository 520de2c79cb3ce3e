"""Build the records of ``.nv.info.<f>`` and of the global ``.nv.info`` from facts, in the order
ptxas 13.0.88 writes them (see :mod:`cubinemit.nvinfo.facts` for the inputs).

Everything ptxas derives is computed here: the per-target constants (through the gating table),
the parameter-bank layout (PARAM_CBANK, CBANK_PARAM_SIZE, KPARAM_INFO/V2), MAXREG_COUNT from the
launch bounds, VRC_CTA_INIT_COUNT / SPARSE_MMA_MASK / SANITIZE / TOOLS_PATCH_FUNC from usage and
mode, BINDLESS_* from the references a function uses, the -g folding of the call graph into
entries (REGCOUNT, NUM_BARRIERS, NUM_MBARRIERS, CTAIDZ_USED, TCGEN05_*, RESERVED_SMEM_USED,
EXTERNS; CRS_STACK_SIZE and MIN_STACK_SIZE when a call cycle is reachable), and the global
record patterns.

Record order in ``.nv.info.<f>`` (measured on ptxas; tests/nvinfo/test_nvinfo_builder*.py
rebuild every section of the probe corpus):

* sm_75-89 (:data:`ORDER_L`) and sm_90+ (:data:`ORDER_HB`), absent records skipped;
* -g only: records an *entry* has only through its callees (:data:`_TAIL_ORDER`; EXTERNS
  brought in by -sanitize instrumentation alone) come after everything else on sm_75-89 and
  just before the parameter-bank tail (CBANK_PARAM_SIZE ...) on sm_90+, in the order the
  reachable functions bring them in (.text order). A record the entry has itself stays in
  place, with the propagated value when that is larger (NUM_MBARRIERS: the sum); EXTERNS
  from user callees join the entry's own EXTERNS in place. A module with a single entry instead folds every function
  into it, called or not, as a last step (:func:`_fold_module`).

Gating (:mod:`cubinemit.nvinfo.gating`): a fact the target cannot carry raises
:class:`~cubinemit.errors.ModelError` naming the function, the attribute and the target when
ptxas would reject the PTX (clusters before sm_90, mbarriers before sm_80, tcgen05 outside
sm_100a/f, 103a/f, 110a/f, reserved shared memory where no target uses it); it is skipped
silently where ptxas accepts the code and simply writes no record (%ctaid.z from sm_90 on,
mma.sp before sm_90, INSTR_REG_MAP outside sm_80-89).
"""

from __future__ import annotations

import re
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final

import attrs

from ..elf.strtab import name_bytes
from ..errors import ModelError
from .catalogue import EIAttr
from .facts import REF_PARAM_OFFSET, SPARSE_MMA_KINDS, SURFACE, TEXTURE, Clone, FunctionFacts, ModuleFacts
from .gating import Emission, Target, gate, parse_target
from .records import (
    AnnotationNote,
    Annotations,
    Atom16EmulRegMap,
    ByteValue,
    Dim3,
    Flag,
    HalfValue,
    IndirectBranch,
    IndirectBranchTargets,
    InstrOffsets,
    KParamInfo,
    KParamInfoV2,
    MbarrierEntry,
    MbarrierInstrOffsets,
    NvInfoRecord,
    ParamCbank,
    RegMapEntry,
    SamplerInit,
    SymbolList,
    SymbolValue,
    U32List,
    U32Value,
    function_info_text,
)

#: MIN_STACK_SIZE / CRS_STACK_SIZE value for a stack that cannot be bounded (recursion).
UNBOUNDED: Final = 0xFFFFFFFF

# ---------------------------------------------------------------------------------------------
# Per-target constants (one table; no scattered ``if sm == ...``)


@attrs.frozen
class _NvArch:
    #: warps one SM holds
    max_warps_per_sm: int
    #: CTAs one SM holds
    max_ctas_per_sm: int
    #: bank-0 parameter base when the parameters exceed KPARAM_INFO's 14-bit size (None: same)
    large_param_base: int | None


# Measured with tests/nvinfo/probes/builder/maxreg.ptx: a .minnctapersm above the CTA limit, or
# one that asks for more warps than the SM holds, is ignored (ptxas warns "out of range").
_NV_ARCH: Mapping[int, _NvArch] = types.MappingProxyType(
    {
        75: _NvArch(32, 16, 0x1A80),
        80: _NvArch(64, 32, 0x1A80),
        86: _NvArch(48, 16, 0x1A80),
        87: _NvArch(48, 16, 0x1A80),
        88: _NvArch(48, 16, 0x1A80),
        89: _NvArch(48, 24, 0x1A80),
        90: _NvArch(64, 32, None),
        100: _NvArch(64, 32, None),
        103: _NvArch(64, 32, None),
        110: _NvArch(48, 24, None),
        120: _NvArch(48, 24, None),
        121: _NvArch(48, 24, None),
    }
)

#: KPARAM_INFO's size field has 14 bits; above this many bytes of parameters ptxas switches
#: every parameter to KPARAM_INFO_V2 (bisected: 4352 -> V1, 4356 -> V2).
KPARAM_V1_LIMIT: Final = 4352
#: 64K registers per SM, split over 4 sub-partitions; registers are given out 8 per thread.
_REGS_PER_PARTITION: Final = 65536 // 4
_REG_GRANULE: Final = 8
_MAX_REGS: Final = 255
#: ``.maxnreg`` below this is raised to it.
_MIN_MAXNREG: Final = 24
#: SANITIZE's value for -sanitize=memcheck.
_SANITIZE_VALUE: Final = 1
#: VRC_CTA_INIT_COUNT of a function reaching tensor memory.
VRC_TENSOR_MEMORY: Final = 0x80


def uses_tensor_memory(f: FunctionFacts) -> bool:
    """Whether ``f``'s own code reaches tensor memory (VRC_CTA_INIT_COUNT 0x80): what its
    TCGEN05_*_USED flags say, unless :attr:`FunctionFacts.tensor_memory` says otherwise."""
    return f.tensor_memory if f.tensor_memory is not None else f.tcgen05_1cta or f.tcgen05_2cta


def _nv_arch(t: Target) -> _NvArch:
    return _NV_ARCH[t.sm]


# ---------------------------------------------------------------------------------------------
# Record order

#: A slot in a family's order: an EIAttr (one or more records of that code), or a group name.
_Slot = EIAttr | str
_BINDLESS, _PROPAGATED = "BINDLESS", "PROPAGATED"

#: ``.nv.info.<f>`` on sm_75-89.
ORDER_L: tuple[_Slot, ...] = (
    EIAttr.SW_WAR,
    EIAttr.CUDA_API_VERSION,
    EIAttr.SW2861232_WAR,
    EIAttr.PARAM_CBANK,
    EIAttr.CBANK_PARAM_SIZE,
    EIAttr.KPARAM_INFO,
    EIAttr.KPARAM_INFO_V2,
    EIAttr.TOOLS_PATCH_FUNC,
    EIAttr.RESERVED_SMEM_USED,  # code reading %reserved_smem_offset_<n> (probes/reserved_smem_read)
    EIAttr.WMMA_USED,
    EIAttr.MAXREG_COUNT,
    EIAttr.NUM_BARRIERS,
    _BINDLESS,
    EIAttr.EXTERNS,
    EIAttr.ANNOTATIONS,
    EIAttr.SANITIZE,
    EIAttr.MERCURY_ISA_VERSION,
    EIAttr.UNUSED_LOAD_BYTE_OFFSET,
    EIAttr.INT_WARP_WIDE_INSTR_OFFSETS,
    EIAttr.COOP_GROUP_MASK_REGIDS,
    EIAttr.COOP_GROUP_INSTR_OFFSETS,
    EIAttr.SYSCALL_OFFSETS,
    EIAttr.INSTR_REG_MAP,
    EIAttr.MBARRIER_INSTR_OFFSETS,
    EIAttr.NUM_MBARRIERS,
    EIAttr.ATOM16_EMUL_INSTR_REG_MAP,
    EIAttr.EXIT_INSTR_OFFSETS,
    EIAttr.INDIRECT_BRANCH_TARGETS,
    EIAttr.CTAIDZ_USED,
    EIAttr.MAX_THREADS,
    EIAttr.REQNTID,
    EIAttr.CRS_STACK_SIZE,
    _PROPAGATED,
)

#: ``.nv.info.<f>`` on sm_90 and newer.
ORDER_HB: tuple[_Slot, ...] = (
    # .blocksareclusters stands before everything, CUDA_API_VERSION included (sm_90, sm_90a,
    # sm_100a, sm_120; every mode: tests/probes_directives/blocks_clusters.ptx)
    EIAttr.BLOCKS_ARE_CLUSTERS,
    EIAttr.CUDA_API_VERSION,
    EIAttr.KPARAM_INFO,
    EIAttr.KPARAM_INFO_V2,
    EIAttr.MAX_CLUSTER_RANK,
    EIAttr.EXPLICIT_CLUSTER,
    EIAttr.CTA_PER_CLUSTER,
    EIAttr.TOOLS_PATCH_FUNC,
    EIAttr.AT_ENTRY_FRAGMENTS,
    EIAttr.RESERVED_SMEM_USED,
    EIAttr.SPARSE_MMA_MASK,
    EIAttr.TCGEN05_1CTA_USED,
    EIAttr.TCGEN05_2CTA_USED,
    EIAttr.WMMA_USED,
    EIAttr.MAXREG_COUNT,
    EIAttr.NUM_BARRIERS,
    EIAttr.EXTERNS,
    EIAttr.ANNOTATIONS,
    EIAttr.SANITIZE,
    EIAttr.MERCURY_ISA_VERSION,
    EIAttr.UNUSED_LOAD_BYTE_OFFSET,
    EIAttr.INT_WARP_WIDE_INSTR_OFFSETS,
    EIAttr.COOP_GROUP_MASK_REGIDS,
    EIAttr.COOP_GROUP_INSTR_OFFSETS,
    # after the cooperative-group records, before SYSCALL and the mbarrier ones (CUTLASS's
    # Hopper warp-specialized GEMMs, sm_90a: 141 kernels measured, all in this place)
    EIAttr.REG_RECONFIG,
    EIAttr.VRC_CTA_INIT_COUNT,
    EIAttr.SYSCALL_OFFSETS,
    EIAttr.MBARRIER_INSTR_OFFSETS,
    EIAttr.NUM_MBARRIERS,
    EIAttr.ATOM16_EMUL_INSTR_REG_MAP,
    EIAttr.EXIT_INSTR_OFFSETS,
    EIAttr.INDIRECT_BRANCH_TARGETS,
    EIAttr.MAX_THREADS,
    EIAttr.REQNTID,
    EIAttr.CRS_STACK_SIZE,
    _PROPAGATED,
    EIAttr.CBANK_PARAM_SIZE,
    EIAttr.PARAM_CBANK,
    EIAttr.SW_WAR,
    _BINDLESS,
)

#: Codes whose feature compiles on targets that simply write no record for it: a fact asking
#: for one of them there is dropped. Any other code a target never writes is an error.
_SILENTLY_DROPPED = frozenset(
    {EIAttr.CTAIDZ_USED, EIAttr.INSTR_REG_MAP, EIAttr.SPARSE_MMA_MASK, EIAttr.VRC_CTA_INIT_COUNT}
)


def record_order(target: str | Target) -> tuple[_Slot, ...]:
    """The slot order of ``.nv.info.<f>`` for ``target``."""
    return ORDER_L if parse_target(target).family == "L" else ORDER_HB


#: each slot's place in ORDER_L / ORDER_HB (a function's few filled slots are sorted by it
#: rather than every slot of the order looked up)
_PLACE_L = types.MappingProxyType({slot: i for i, slot in enumerate(ORDER_L)})
_PLACE_HB = types.MappingProxyType({slot: i for i, slot in enumerate(ORDER_HB)})


# ---------------------------------------------------------------------------------------------
# Derived values


def _align_up(value: int, align: int) -> int:
    return (value + align - 1) & ~(align - 1)


@attrs.frozen
class ParamLayout:
    """Where a kernel's parameters sit in bank 0."""

    offsets: tuple[int, ...]
    size: int  # end of the last parameter (CBANK_PARAM_SIZE), no tail padding
    base: int  # first byte of the parameters in .nv.constant0.<f>
    v2: bool  # KPARAM_INFO_V2 instead of KPARAM_INFO


def param_layout(target: str | Target, facts: FunctionFacts) -> ParamLayout:
    """Pack the parameters in declaration order, each at its own alignment (bank-0 addresses
    or offsets from the base, per family: cubinemit.alloc.params)."""
    from ..alloc.params import MAX_PARAM_BYTES, place_params

    t = parse_target(target)
    # reference parameters (texmode_independent .texref/.samplerref/.surfref) take no bytes:
    # the others are packed as if they were absent, and a reference sits at offset 0xffff
    packed = [p for p in facts.params if not p.is_ref]
    end = 0
    for p in packed:
        end = _align_up(end, p.align) + p.size
    if end > 0xFFFF:
        raise ModelError(f"function {facts.name!r}: {end} bytes of parameters do not fit CBANK_PARAM_SIZE")
    for i, p in enumerate(facts.params):  # (Param validates the alignments, not this)
        if p.size < 1 and not p.is_ref:
            raise ModelError(f"parameter '#{i}': size {p.size!r} must be an integer >= 1")
    # the rule of alloc.params.layout_params, without naming the parameters
    placed, size, base, large = place_params([(p.size, p.align) for p in packed], t.sm)
    if size > MAX_PARAM_BYTES:
        raise ModelError(f"parameter '#{len(facts.params) - 1}' ends at {size:#x}: more than {MAX_PARAM_BYTES:#x} parameter bytes")
    at = iter(placed)
    offsets = tuple(REF_PARAM_OFFSET if p.is_ref else next(at) for p in facts.params)
    return ParamLayout(offsets, size, base, large)


def maxreg_count(target: str | Target, module: ModuleFacts, facts: FunctionFacts) -> int:
    """MAXREG_COUNT of an entry (the register cap ptxas compiled it under).

    * ``.maxnreg`` clamped to 24..255 when given: it overrides everything else, launch bounds
      included (``.maxntid 1024`` + ``.maxnreg 100`` gives 100);
    * else, with ``.maxntid`` / ``.reqntid`` (T threads) and ``.minnctapersm`` (M, default 1):
      ``W = ceil(T/32) * M`` warps per SM, ``w = ceil(W/4)`` per sub-partition,
      ``min(255, floor(16384 / (32 w) / 8) * 8)``; M is ignored (taken as 1) when it exceeds
      the SM's CTA limit or W its warp limit, and -maxrregcount is ignored;
    * else -maxrregcount clamped to 24..255, else 255.
    """
    t = parse_target(target)
    arch = _nv_arch(t)
    if facts.maxnreg is not None:
        return min(_MAX_REGS, max(_MIN_MAXNREG, facts.maxnreg))
    dims = facts.reqntid or facts.maxntid
    if dims is None:
        if module.maxrregcount is not None:
            return min(_MAX_REGS, max(_MIN_MAXNREG, module.maxrregcount))
        return _MAX_REGS
    warps_per_cta = -(-(dims[0] * dims[1] * dims[2]) // 32)
    ctas = facts.minnctapersm or 1
    if ctas > arch.max_ctas_per_sm or warps_per_cta * ctas > arch.max_warps_per_sm:
        ctas = 1
    per_partition = -(-(warps_per_cta * ctas) // 4)
    return min(_MAX_REGS, _REGS_PER_PARTITION // (32 * per_partition) // _REG_GRANULE * _REG_GRANULE)


@attrs.frozen
class Propagated:
    """What an entry inherits from the functions it can reach (-g only)."""

    register_count: int
    num_barriers: int
    ctaid_z_used: bool
    #: the entry's mbarrier objects and those of every function it reaches, each function
    #: counted once (NUM_MBARRIERS adds up where NUM_BARRIERS takes the largest; None: none)
    num_mbarriers: int | None
    #: the entry or a function it calls allocates tensor memory (VRC_CTA_INIT_COUNT)
    tcgen05: bool
    #: EXTERNS at its usual place: the entry's own, then those of the reachable functions
    #: (instrumentation excluded) in .text order, each once
    externs: tuple[str, ...]
    #: records the entry has only through callees, in the order ptxas appends them: for each
    #: reachable function (the user's in .text order, then instrumentation in reverse .text
    #: order), each record of :data:`_TAIL_ORDER` the first time one shows up; then EXTERNS
    #: when only instrumentation brings externs
    tail: tuple[EIAttr, ...]
    #: externs folded last (EXTERNS in the tail): those only -sanitize instrumentation brings,
    #: in a module whose own code calls no extern
    late_externs: tuple[str, ...]
    #: ``late_externs`` are every function's of a one-entry module (_fold_module): ptxas lists
    #: them by descending .symtab index
    module_fold: bool
    #: some call cycle is reachable (stack and CRS depth cannot be bounded)
    recursive: bool
    #: own frame + the deepest chain of callee frames (UNBOUNDED with a cycle)
    min_stack_size: int


def _callees(module: ModuleFacts, skip: frozenset[str] = frozenset()) -> dict[str, list[str]]:
    """The calls -g folds along: direct callees, and for a function making indirect calls the
    address-taken functions whose signature is the .callprototype of one of its calls; not what
    a function merely takes the address of (a vtable's destructors). The marks of both lists
    hold the .strtab offset of a signature string, each string once, so equal values are equal
    signatures. virtual_shapes -g: the `float area()` call reaches the area methods, not the
    destructors, whose 8-byte frames stay out of MIN_STACK_SIZE; with several kernels their
    free() stays out of the caller's EXTERNS (tests/probes_gfold/fold_single_other_prototype,
    fold_virtual_kernels; every target). ``skip``: targets the indirect calls do not reach."""
    g = module.call_graph
    out: dict[str, list[str]] = {}
    for e in g.calls:
        out.setdefault(e.caller, []).append(e.callee)
    for m in g.indirect_callers:
        out.setdefault(m.function, []).extend(t.function for t in g.address_taken if t.value == m.value and t.function not in skip)
    return out


def _table_externs_only(module: ModuleFacts, name: str, functions: Mapping[str, FunctionFacts]) -> bool:
    """No function ``name`` knows from the start brings an extern (:func:`_propagate`): it
    knows its direct callees, the functions whose address code takes that its indirect calls
    reach, and the functions a callee takes the address of (a table's destructor calling its
    vtable's methods: fold_virtual_kernels -g, areas gets Ci::area's vprintf in place; the
    kernel's own takings do not count: fo_vtables -g, k_other), each with what it knows. A
    kernel that calls any function itself (a device function, a builtin) knows them all from
    the start: only one whose calls are all indirect gets the late record
    (tests/probes_gfold/fold_table_direct_call: k_call calling g, and k_div dividing, get
    f's vprintf in place; fz s0038 -g, apply18 calling h10; every target)."""
    if any(e.caller == name for e in module.call_graph.calls):
        return False
    taken: dict[str, list[str]] = {}
    for e in module.call_graph.indirect_targets:
        taken.setdefault(e.caller, []).append(e.callee)
    edges = _callees(module, skip=frozenset(module.table_functions))
    seen: set[str] = set()
    stack = [name]
    while stack:
        cur = stack.pop()
        for callee in [*edges.get(cur, ()), *(taken.get(cur, ()) if cur != name else ())]:
            if callee not in seen:
                seen.add(callee)
                stack.append(callee)
    return not any(functions[n].externs for n in seen if n in functions)


class FunctionMap(dict):  # type: ignore[type-arg]
    """Functions by name in .text order, remembering what every :func:`propagate` call over it
    needs once (each function's position, whether the user's code calls externs): a module of
    a thousand kernels propagates into each of them. It also remembers each propagation: the
    builder asks for an entry's three times (its .nv.info.<f>, REGCOUNT, MIN_STACK_SIZE)."""

    def shared(self) -> dict[object, object]:
        """What the builder gives every function of the module alike (_Slots.shared)."""
        return self.__dict__.setdefault("_shared", {})  # type: ignore[no-any-return]

    def derived(self) -> tuple[dict[str, int], bool, int]:
        cached = self.__dict__.get("_derived")
        if cached is None:
            cached = self.__dict__["_derived"] = _derive(self)
        return cached  # type: ignore[no-any-return]

    def propagated(self, module: ModuleFacts, facts: FunctionFacts) -> Propagated:
        """:func:`propagate` over this map, once per (module, facts) object pair (the entry
        holds both, so neither id can be reused while it is remembered)."""
        memo: dict[int, tuple[ModuleFacts, FunctionFacts, Propagated]] = self.__dict__.setdefault("_propagated", {})
        hit = memo.get(id(facts))
        if hit is not None and hit[0] is module and hit[1] is facts:
            return hit[2]
        result = _propagate(module, facts, self)
        memo[id(facts)] = (module, facts, result)
        return result


def _derive(functions: Mapping[str, FunctionFacts]) -> tuple[dict[str, int], bool, int]:
    """Each function's .text position, whether the user's code calls externs, how many entries."""
    rank = {name: i for i, name in enumerate(functions)}
    kernels = sum(1 for f in functions.values() if f.is_kernel)
    return rank, any(f.externs for f in functions.values() if not f.instrumentation), kernels


def _fold_module(facts: FunctionFacts, functions: Mapping[str, FunctionFacts]) -> tuple[bool, int, int | None, tuple[EIAttr, ...], tuple[str, ...], tuple[str, ...]]:
    """-g, a module with one entry: ptxas folds every function into it, called or not (an
    uncalled function's %ctaid.z, barriers, mbarriers, tcgen05 and reserved shared memory use,
    externs), as a last step whose records come after all others in a fixed order
    (:data:`_FOLD_ORDER`; NUM_MBARRIERS the sum: tests/probes_gfold/fold_mbarriers_single),
    then EXTERNS when the functions bring externs the entry does not call itself, then the
    entry's AT_ENTRY_FRAGMENTS when only a function allocates tensor memory. That EXTERNS record
    replaces the entry's own: each extern put in front as the functions, the entry among them,
    are walked in .text order (own free, then a callee's malloc: ``malloc free``). Registers and stack still follow
    the calls. tests/probes_gfold/fold_single_* (every target), virtual_shapes -g
    (tests/probes_rw3). Returns ctaid_z_used, num_barriers, num_mbarriers, the tail, the
    externs in place and the externs folded last."""
    others = [f for f in functions.values() if f.name != facts.name]
    ctaid = facts.ctaid_z_used or any(f.ctaid_z_used for f in others)
    barriers = max([facts.num_barriers, *(f.num_barriers for f in others)])
    mbarriers = _mbarrier_sum(facts, others)
    tail = [attr for attr in _FOLD_ORDER if any(_brings(f, attr) for f in others) and not _brings(facts, attr)]
    if not mbarriers and EIAttr.NUM_MBARRIERS in tail:
        # a cta_group::2 tcgen05.alloc's NUM_MBARRIERS 0 alone is not folded here, where an
        # entry reaching it with several entries gets one (fold_tcgen05_cta2_single, fold_flags_tail)
        tail.remove(EIAttr.NUM_MBARRIERS)
    # the module's externs: which ones, and an order for callers without .symtab indices
    # (build_function_info lists them by descending index, as ptxas does: fold_single_symbols);
    # a .text walk putting each new one in front agrees where each function calls one extern
    # (fold_single_order: `malloc free`; fold_single_text_order: `malloc vprintf`)
    folded: list[str] = []
    for f in functions.values():
        for e in (facts if f.name == facts.name else f).externs:
            if e not in folded:
                folded.insert(0, e)
    if set(folded) != set(facts.externs):
        tail.append(EIAttr.EXTERNS)
    if facts.at_entry_fragments and not (facts.tcgen05_1cta or facts.tcgen05_2cta) and any(f.tcgen05_1cta or f.tcgen05_2cta for f in others):
        # the tensor-memory fragments the entry gets through a function allocating tensor
        # memory come after the folded flags and the folded EXTERNS, last
        # (tests/probes_gfold/fold_tcgen05_single, sm_100a: `RESERVED_SMEM_USED
        # TCGEN05_1CTA_USED NUM_BARRIERS NUM_MBARRIERS AT_ENTRY_FRAGMENTS`;
        # fold_tcgen05_externs: `... NUM_MBARRIERS EXTERNS AT_ENTRY_FRAGMENTS`)
        tail.append(EIAttr.AT_ENTRY_FRAGMENTS)
    if EIAttr.EXTERNS not in tail:
        return ctaid, barriers, mbarriers, tuple(tail), tuple(facts.externs), ()
    return ctaid, barriers, mbarriers, tuple(tail), (), tuple(folded)


#: -g: the records an entry has only through what it calls come in the order the functions
#: bring them (.text order), each function's in this order (tests/probes_gfold/fold_flags_tail:
#: NUM_MBARRIERS, NUM_BARRIERS, TCGEN05_1CTA_USED, RESERVED_SMEM_USED from one callee; CTAIDZ_USED
#: before the others, below sm_90 only)
_TAIL_ORDER: Final = (
    EIAttr.CTAIDZ_USED,
    EIAttr.NUM_MBARRIERS,
    EIAttr.NUM_BARRIERS,
    EIAttr.TCGEN05_1CTA_USED,
    EIAttr.TCGEN05_2CTA_USED,
    EIAttr.RESERVED_SMEM_USED,
)

#: -g, one entry: what the module's other functions bring, folded last in this fixed order
#: whatever the .text order (fold_single_tail_order, fold_flags_single, fold_mbarriers_single)
_FOLD_ORDER: Final = (
    EIAttr.CTAIDZ_USED,
    EIAttr.RESERVED_SMEM_USED,
    EIAttr.TCGEN05_1CTA_USED,
    EIAttr.TCGEN05_2CTA_USED,
    EIAttr.NUM_BARRIERS,
    EIAttr.NUM_MBARRIERS,
)


def _brings(f: FunctionFacts, attr: EIAttr) -> bool:
    """Whether ``f``'s own records include ``attr`` (one of :data:`_TAIL_ORDER`)."""
    if attr is EIAttr.CTAIDZ_USED:
        return f.ctaid_z_used
    if attr is EIAttr.NUM_MBARRIERS:
        return f.num_mbarriers is not None
    if attr is EIAttr.NUM_BARRIERS:
        return bool(f.num_barriers)
    if attr is EIAttr.TCGEN05_1CTA_USED:
        return f.tcgen05_1cta
    if attr is EIAttr.TCGEN05_2CTA_USED:
        return f.tcgen05_2cta
    return f.reserved_smem


def _mbarrier_sum(facts: FunctionFacts, others: Iterable[FunctionFacts]) -> int | None:
    """-g: an entry's NUM_MBARRIERS counts its own mbarrier objects and those of each function
    folded into it, once each (tests/probes_gfold/fold_mbarriers: own 1 + callee 2 gives 3; a
    callee two paths reach counts once); None when none has a record."""
    counts = [n for n in (facts.num_mbarriers, *(f.num_mbarriers for f in others)) if n is not None]
    return sum(counts) if counts else None


def propagate(module: ModuleFacts, facts: FunctionFacts, functions: Mapping[str, FunctionFacts]) -> Propagated:
    """Fold the call graph under ``facts``; ``functions`` in .text order (the order in which
    ptxas visits the reachable functions)."""
    if isinstance(functions, FunctionMap):
        return functions.propagated(module, facts)
    return _propagate(module, facts, functions)


def _propagate(module: ModuleFacts, facts: FunctionFacts, functions: Mapping[str, FunctionFacts]) -> Propagated:
    """:func:`propagate`, worked out."""
    edges = _callees(module)
    seen: set[str] = set()
    stack = [facts.name]
    while stack:
        for callee in edges.get(stack.pop(), ()):
            if callee in functions and callee not in seen:
                seen.add(callee)
                stack.append(callee)
    rank, early, kernels = functions.derived() if isinstance(functions, FunctionMap) else _derive(functions)
    reached = [functions[name] for name in sorted(seen, key=rank.__getitem__)]
    recursive = False
    depth: dict[str, int] = {}
    on_path: set[str] = set()

    def deepest(name: str) -> int:
        nonlocal recursive
        if name in on_path:
            recursive = True
            return 0
        if name in depth:
            return depth[name]
        on_path.add(name)
        f = functions.get(name)
        below = max((deepest(c) for c in edges.get(name, ()) if c in functions), default=0)
        on_path.discard(name)
        depth[name] = (f.frame_size if f is not None else 0) + below
        return depth[name]

    own_depth = facts.frame_size + max((deepest(c) for c in edges.get(facts.name, ()) if c in functions), default=0)
    # When the user's code calls some extern anywhere in the module, ptxas folds EXTERNS early,
    # instrumentation included, in .text order, into the usual EXTERNS record. Otherwise the
    # externs only -sanitize brings are folded last: a record after the others, its functions in
    # reverse .text order (their compile order; free's extern comes before malloc's).
    user = [f for f in reached if early or not f.instrumentation]
    instrumentation = [] if early else [f for f in reversed(reached) if f.instrumentation]
    externs = list(facts.externs)
    late: list[str] = []
    tail: list[EIAttr] = []
    late_names = {f.name for f in instrumentation}
    for f in (*user, *instrumentation):
        # each function's own in this order (tests/probes_gfold/fold_flags_*: %ctaid.z,
        # mbarriers, bar.sync, tcgen05.alloc, a %reserved_smem_offset read in one callee)
        for attr in _TAIL_ORDER:
            if _brings(f, attr) and not _brings(facts, attr) and attr not in tail:
                tail.append(attr)
        target = late if f.name in late_names else externs
        for e in f.externs:
            if e not in externs and e not in late:
                target.append(e)
    if externs and not late and not facts.externs and module.table_functions and rank.get(facts.name) != 0 and _table_externs_only(module, facts.name, functions):
        # a kernel whose externs all come from functions it reaches through its indirect
        # calls into function tables (vtables), not first in .text: ptxas counts a table's
        # functions as reachable only after the kernel's records are made and appends an
        # EXTERNS record of its own after them (tests/funcorder_probes/fo_table_load and
        # fo_vtables -g: k1, k_delete, k_other; every target). The first function has the
        # module's address-taken functions among its callees from the start; functions whose
        # address code takes are known from the start (propagation_order -g: kp_ind_ab gets
        # fd's malloc in place); a kernel with an EXTERNS of its own gets them in it, after
        # its own (fo_table_load_own -g: vprintf free malloc)
        late, externs = externs, []
    if late:
        tail.append(EIAttr.EXTERNS)
    num_barriers = max([facts.num_barriers, *(f.num_barriers for f in reached)])
    ctaid_z_used = facts.ctaid_z_used or any(f.ctaid_z_used for f in reached)
    num_mbarriers = _mbarrier_sum(facts, reached)
    # (VRC_CTA_INIT_COUNT follows the tcgen05 use of what the entry calls, not of the folded
    # uncalled functions: fold_flags_single)
    tcgen05 = any(map(uses_tensor_memory, (facts, *reached)))
    module_fold = False
    if kernels == 1 and facts.is_kernel:
        # a single entry's VRC_CTA_INIT_COUNT is its own, called functions' tensor memory
        # folded with the rest (tests/probes_gfold/fold_tcgen05_single)
        tcgen05 = uses_tensor_memory(facts)
        ctaid_z_used, num_barriers, num_mbarriers, folded_tail, own, folded = _fold_module(facts, functions)
        tail, externs, late = list(folded_tail), list(own), list(folded)
        module_fold = True
    return Propagated(
        register_count=max([facts.register_count, *(f.register_count for f in reached)]),
        num_barriers=num_barriers,
        ctaid_z_used=ctaid_z_used,
        num_mbarriers=num_mbarriers,
        tcgen05=tcgen05,
        externs=tuple(externs),
        tail=tuple(tail),
        late_externs=tuple(late),
        module_fold=module_fold,
        recursive=recursive,
        min_stack_size=UNBOUNDED if recursive else own_depth,
    )


def _by_name(functions: Iterable[FunctionFacts] | Mapping[str, FunctionFacts] | None, facts: FunctionFacts) -> Mapping[str, FunctionFacts]:
    """``functions`` by name, ``facts`` standing under its own name unless one of them does
    (a mapping that already holds it is used as is: no copy per function)."""
    if isinstance(functions, Mapping):
        if facts.name in functions:
            return functions
        return FunctionMap({**functions, facts.name: facts})
    by_name = FunctionMap((f.name, f) for f in functions or ())
    by_name.setdefault(facts.name, facts)
    return by_name


def _propagates(module: ModuleFacts, facts: FunctionFacts) -> bool:
    """-g (whole-program debug) folds callees into entries; -c leaves it to nvlink."""
    return module.debug and not module.compile_only and facts.is_kernel


def register_count(module: ModuleFacts, facts: FunctionFacts, functions: Mapping[str, FunctionFacts]) -> int:
    """REGCOUNT of ``facts`` in the global ``.nv.info``."""
    if _propagates(module, facts):
        return propagate(module, facts, functions).register_count
    return facts.register_count


def min_stack_size(module: ModuleFacts, facts: FunctionFacts, functions: Mapping[str, FunctionFacts]) -> int:
    """MIN_STACK_SIZE of an entry in the trailing list (P1, P3): its frame in whole-program mode
    (clones included there, recursion ignored); under -g its frame plus the deepest chain of
    callee frames, UNBOUNDED with recursion."""
    if _propagates(module, facts):
        return propagate(module, facts, functions).min_stack_size
    return facts.frame_size


# ---------------------------------------------------------------------------------------------
# .nv.info.<f>


class _Slots:
    """Collects records per slot, checking each code against the gating table."""

    def __init__(self, target: Target, facts: FunctionFacts, shared: dict[object, object] | None = None):
        self.target = target
        self.arch = target.name  # what gate() keys its table by, worked out once per function
        self.facts = facts
        self.slots: dict[_Slot, list[NvInfoRecord]] = {}
        #: what every function of the module gets alike (FunctionMap.shared): each code's
        #: emission where it passes, the constant records (frozen, so one serves them all)
        self.shared: dict[object, object] = {} if shared is None else shared

    def gate(self, attr: EIAttr) -> Emission | None:
        """The emission rule, or None when the record must be dropped silently."""
        passed = self.shared.get((self.arch, attr))
        if passed is not None:
            return passed  # type: ignore[return-value]
        g = gate(self.arch, attr)
        if g.emission is Emission.NEVER:
            if attr in _SILENTLY_DROPPED:
                return None
            raise ModelError(
                f"function {self.facts.name!r}: {attr.cuobjdump_name} is not accepted by {self.target.name} ({g.why})"
            )
        self.shared[(self.arch, attr)] = g.emission
        return g.emission

    def add(self, slot: _Slot, record: NvInfoRecord, attr: EIAttr | None = None) -> None:
        code = attr if attr is not None else record.attr
        if isinstance(code, EIAttr) and self.gate(code) is None:
            return
        self.slots.setdefault(slot, []).append(record)

    def constant(self, attr: EIAttr, make: type[U32Value] | type[HalfValue] | type[Flag]) -> None:
        key = (self.arch, attr, make)
        if key not in self.shared:
            g = gate(self.arch, attr)
            if g.emission is not Emission.EVERY_FUNCTION:
                self.shared[key] = None
            elif make is Flag:
                self.shared[key] = Flag(attr)
            else:
                assert g.value is not None
                self.shared[key] = make(attr, g.value)  # type: ignore[call-arg]
        record = self.shared[key]
        if record is not None:
            self.add(attr, record)  # type: ignore[arg-type]

    def ordered(self) -> list[NvInfoRecord]:
        """The records in the target family's slot order (:func:`record_order`)."""
        place = _PLACE_L if self.target.family == "L" else _PLACE_HB
        unknown = [slot for slot in self.slots if slot not in place]
        if unknown:  # pragma: no cover - the order tables cover every slot the builder fills
            raise ModelError(f"no place for {sorted(map(str, unknown))} in the {self.target.name} record order")
        return [r for slot in sorted(self.slots, key=place.__getitem__) for r in self.slots[slot]]


def _bindless(target: Target, module: ModuleFacts, facts: FunctionFacts) -> list[str]:
    """BINDLESS_* records, as TEXTURE/SURFACE in order.

    sm_90+: both records whenever the function uses a module texture or surface reference,
    none under -c. sm_75-89: the kinds used, surface first; under -c, -g and -sanitize ptxas
    repeats records (``facts.legacy_bindless`` carries that sequence when given).
    """
    uses = facts.uses_texref or facts.uses_surfref
    if target.family != "L":
        return [TEXTURE, SURFACE] if uses and not module.compile_only else []
    if facts.legacy_bindless is not None:
        return list(facts.legacy_bindless)
    return ([SURFACE] if facts.uses_surfref else []) + ([TEXTURE] if facts.uses_texref else [])


def build_function_info(
    target: str | Target | None,
    module: ModuleFacts,
    facts: FunctionFacts,
    *,
    functions: Iterable[FunctionFacts] | Mapping[str, FunctionFacts] | None = None,
    layout: ParamLayout | None = None,
    symbol_rank: Callable[[str], int] | None = None,
) -> list[NvInfoRecord]:
    """The records of ``.nv.info.<facts.name>`` in ptxas's order.

    ``target`` defaults to ``module.target`` (and must agree with it when given). ``functions``
    are the module's other functions: -g propagation reads the callees' facts from them.
    ``layout``: :func:`param_layout` of ``facts``, when the caller has it. ``symbol_rank``
    (a name's .symtab index) places the symbols of reference parameters.
    """
    t = _target(target, module)
    _validate(t, module, facts)
    by_name = _by_name(functions, facts)
    s = _Slots(t, facts, by_name.shared() if isinstance(by_name, FunctionMap) else None)
    f = facts
    kernel = f.is_kernel

    s.constant(EIAttr.SW_WAR, U32Value)
    s.constant(EIAttr.CUDA_API_VERSION, U32Value)
    s.constant(EIAttr.SW2861232_WAR, Flag)
    s.constant(EIAttr.MERCURY_ISA_VERSION, HalfValue)

    if kernel and f.params:
        lay = layout if layout is not None else param_layout(t, f)
        s.add(EIAttr.PARAM_CBANK, ParamCbank(f".nv.constant0.{f.name}", lay.base, lay.size))
        s.add(EIAttr.CBANK_PARAM_SIZE, HalfValue(EIAttr.CBANK_PARAM_SIZE, lay.size))
        for ordinal in reversed(range(len(f.params))):
            p, off = f.params[ordinal], lay.offsets[ordinal]
            index, log_align = 0, p.pointee_log_align
            if p.is_ref:
                # a reference parameter: its LOCAL symbol's index, offset 0xffff, size 0 and
                # the reference's space code (tests/probes_directives/ref_params)
                if symbol_rank is None:
                    raise ModelError(f"function {f.name!r}: reference parameter {p.symbol!r} needs the symbol table")
                index, log_align = symbol_rank(p.symbol), 0  # type: ignore[arg-type]
            record = (KParamInfoV2 if lay.v2 else KParamInfo)(index, ordinal, off, p.size, log_align, p.pointee_space)
            s.add(record.attr, record)

    if kernel and f.cluster_dims is not None:
        s.add(EIAttr.CTA_PER_CLUSTER, Dim3(EIAttr.CTA_PER_CLUSTER, *f.cluster_dims))
    if kernel and f.max_cluster_rank is not None:
        s.add(EIAttr.MAX_CLUSTER_RANK, U32Value(EIAttr.MAX_CLUSTER_RANK, f.max_cluster_rank))
    if kernel and f.explicit_cluster:
        s.add(EIAttr.EXPLICIT_CLUSTER, Flag(EIAttr.EXPLICIT_CLUSTER))
    if kernel and f.blocks_are_clusters:
        s.add(EIAttr.BLOCKS_ARE_CLUSTERS, Flag(EIAttr.BLOCKS_ARE_CLUSTERS))
    if module.tools_patch:
        s.add(EIAttr.TOOLS_PATCH_FUNC, Flag(EIAttr.TOOLS_PATCH_FUNC))
    prop = propagate(module, f, by_name) if _propagates(module, f) else None
    if f.at_entry_fragments and not (prop is not None and EIAttr.AT_ENTRY_FRAGMENTS in prop.tail):
        s.add(EIAttr.AT_ENTRY_FRAGMENTS, U32List(EIAttr.AT_ENTRY_FRAGMENTS, f.at_entry_fragments))
    reserved = gate(s.arch, EIAttr.RESERVED_SMEM_USED).emission
    if (kernel and reserved is Emission.EVERY_FUNCTION) or f.reserved_smem:
        s.add(EIAttr.RESERVED_SMEM_USED, Flag(EIAttr.RESERVED_SMEM_USED))
    if gate(s.arch, EIAttr.SPARSE_MMA_MASK).emission is Emission.EVERY_FUNCTION:
        mask = 0
        for kind in f.sparse_mma:
            mask |= 1 << SPARSE_MMA_KINDS[kind]
        s.add(EIAttr.SPARSE_MMA_MASK, HalfValue(EIAttr.SPARSE_MMA_MASK, mask))
    if f.wmma_used:
        s.add(EIAttr.WMMA_USED, Flag(EIAttr.WMMA_USED))
    if f.tcgen05_1cta:
        s.add(EIAttr.TCGEN05_1CTA_USED, Flag(EIAttr.TCGEN05_1CTA_USED))
    if f.tcgen05_2cta:
        s.add(EIAttr.TCGEN05_2CTA_USED, Flag(EIAttr.TCGEN05_2CTA_USED))
    if kernel:
        s.add(EIAttr.MAXREG_COUNT, HalfValue(EIAttr.MAXREG_COUNT, maxreg_count(t, module, f)))
    externs = f.externs if prop is None else prop.externs
    if externs:
        s.add(EIAttr.EXTERNS, SymbolList(EIAttr.EXTERNS, externs))
    for kind in _bindless(t, module, f):
        attr = EIAttr.BINDLESS_TEXTURE_BANK if kind == TEXTURE else EIAttr.BINDLESS_SURFACE_BANK
        s.add(_BINDLESS, ByteValue(attr, 0))

    barriers = f.num_barriers if prop is None else prop.num_barriers
    if f.num_barriers:
        s.add(EIAttr.NUM_BARRIERS, ByteValue(EIAttr.NUM_BARRIERS, barriers))
    if f.spill_refill_offsets or f.instruction_notes or f.annotated_instructions is not None:
        s.add(EIAttr.ANNOTATIONS, _annotations(f))
    if module.sanitize is not None:
        s.add(EIAttr.SANITIZE, HalfValue(EIAttr.SANITIZE, _SANITIZE_VALUE))
    if f.atom16_emulations:
        s.add(
            EIAttr.ATOM16_EMUL_INSTR_REG_MAP,
            Atom16EmulRegMap(RegMapEntry(e.offset, e.reg) for e in f.atom16_emulations),
        )
    if f.unused_load_bytes:
        # ptxas 13.0.88 -O0, every target: right after MERCURY_ISA_VERSION, before the
        # COOP_GROUP records (probe unused_load_kitchen in tests/test_semantic_realworld5.py)
        s.add(EIAttr.UNUSED_LOAD_BYTE_OFFSET, U32List(EIAttr.UNUSED_LOAD_BYTE_OFFSET, f.unused_load_bytes))
    if f.reg_reconfig:
        # sm_90a+ setmaxnreg: placed by ORDER_HB (tests/probes_rw5/rules/reg_reconfig.ptx,
        # tests/probes_rw5/rules/reg_reconfig_coop.ptx)
        s.add(EIAttr.REG_RECONFIG, Flag(EIAttr.REG_RECONFIG))
    if f.int_warp_wide_offsets:
        s.add(
            EIAttr.INT_WARP_WIDE_INSTR_OFFSETS,
            InstrOffsets(EIAttr.INT_WARP_WIDE_INSTR_OFFSETS, f.int_warp_wide_offsets),
        )
    if f.coop_group_offsets:
        s.add(EIAttr.COOP_GROUP_MASK_REGIDS, U32List(EIAttr.COOP_GROUP_MASK_REGIDS, f.coop_group_mask_regids))
        s.add(EIAttr.COOP_GROUP_INSTR_OFFSETS, InstrOffsets(EIAttr.COOP_GROUP_INSTR_OFFSETS, f.coop_group_offsets))
    if f.instr_reg_map is not None:
        s.add(EIAttr.INSTR_REG_MAP, U32List(EIAttr.INSTR_REG_MAP, f.instr_reg_map))
    if gate(s.arch, EIAttr.VRC_CTA_INIT_COUNT).emission is Emission.EVERY_FUNCTION:
        vrc = VRC_TENSOR_MEMORY if uses_tensor_memory(f) or (prop is not None and prop.tcgen05) else 0
        s.add(EIAttr.VRC_CTA_INIT_COUNT, ByteValue(EIAttr.VRC_CTA_INIT_COUNT, vrc))
    if f.mbarriers:
        s.add(
            EIAttr.MBARRIER_INSTR_OFFSETS,
            MbarrierInstrOffsets(
                MbarrierEntry(m.offset, m.base_reg, m.imm_offset, m.kind, m.base_ureg, m.stride, m.aux)
                for m in f.mbarriers
            ),
        )
    if f.num_mbarriers is not None:
        total = prop.num_mbarriers if prop is not None else f.num_mbarriers
        s.add(EIAttr.NUM_MBARRIERS, HalfValue(EIAttr.NUM_MBARRIERS, total))
    if f.syscall_offsets:
        s.add(EIAttr.SYSCALL_OFFSETS, InstrOffsets(EIAttr.SYSCALL_OFFSETS, f.syscall_offsets))
    if f.exit_offsets:
        s.add(EIAttr.EXIT_INSTR_OFFSETS, InstrOffsets(EIAttr.EXIT_INSTR_OFFSETS, f.exit_offsets))
    if f.indirect_branches:
        s.add(
            EIAttr.INDIRECT_BRANCH_TARGETS,
            IndirectBranchTargets(IndirectBranch(b.offset, b.targets) for b in f.indirect_branches),
        )
    if f.ctaid_z_used:
        s.add(EIAttr.CTAIDZ_USED, Flag(EIAttr.CTAIDZ_USED))
    if kernel and f.maxntid is not None:
        s.add(EIAttr.MAX_THREADS, Dim3(EIAttr.MAX_THREADS, *f.maxntid))
    if kernel and f.reqntid is not None:
        s.add(EIAttr.REQNTID, Dim3(EIAttr.REQNTID, *f.reqntid))
    crs = f.crs_stack_size
    if prop is not None and prop.recursive:
        crs = UNBOUNDED
    if crs is not None:
        s.add(EIAttr.CRS_STACK_SIZE, U32Value(EIAttr.CRS_STACK_SIZE, crs))
    if prop is not None:
        # E1: records the entry has only through its callees come last (before the
        # parameter-bank tail on sm_90+), in the order the callees bring them in.
        for attr in prop.tail:
            if attr is EIAttr.CTAIDZ_USED:
                s.add(_PROPAGATED, Flag(EIAttr.CTAIDZ_USED))
            elif attr is EIAttr.NUM_BARRIERS:
                s.add(_PROPAGATED, ByteValue(EIAttr.NUM_BARRIERS, prop.num_barriers))
            elif attr is EIAttr.NUM_MBARRIERS:
                s.add(_PROPAGATED, HalfValue(EIAttr.NUM_MBARRIERS, prop.num_mbarriers))  # type: ignore[arg-type]
            elif attr in (EIAttr.TCGEN05_1CTA_USED, EIAttr.TCGEN05_2CTA_USED):
                s.add(_PROPAGATED, Flag(attr))
            elif attr is EIAttr.AT_ENTRY_FRAGMENTS:
                s.add(_PROPAGATED, U32List(attr, f.at_entry_fragments))
            elif attr is EIAttr.RESERVED_SMEM_USED:
                if not (kernel and reserved is Emission.EVERY_FUNCTION):  # (then in place already)
                    s.add(_PROPAGATED, Flag(attr))
            else:
                late = prop.late_externs
                if prop.module_fold and symbol_rank is not None:
                    # each put in front as ptxas makes its symbol: descending .symtab index,
                    # whichever function calls it (tests/probes_gfold/fold_single_symbols:
                    # free, malloc, vprintf where a .text walk gives malloc, free, vprintf)
                    late = tuple(sorted(late, key=symbol_rank, reverse=True))
                s.add(_PROPAGATED, SymbolList(EIAttr.EXTERNS, late))
    return s.ordered()


#: Pairs of facts ptxas refuses together (its message, abridged).
_CONFLICTS = (
    ("maxntid", "reqntid", ".maxntid and .reqntid cannot both be specified"),
    ("cluster_dims", "max_cluster_rank", ".reqnctapercluster and .maxclusterrank cannot both be specified"),
    ("tcgen05_1cta", "tcgen05_2cta", "a function cannot use both .cta_group::1 and .cta_group::2"),
)
#: Facts only an entry can carry (PTX performance directives).
_ENTRY_ONLY = ("maxntid", "reqntid", "minnctapersm", "maxnreg", "cluster_dims", "max_cluster_rank", "explicit_cluster", "blocks_are_clusters")


def _validate(t: Target, module: ModuleFacts, f: FunctionFacts) -> None:
    """Reject facts ptxas would reject (ModelError naming the function and the target)."""
    for a, b, why in _CONFLICTS:
        if getattr(f, a) not in (None, False) and getattr(f, b) not in (None, False):
            raise ModelError(f"function {f.name!r} on {t.name}: {why}")
    if not f.is_kernel:
        for name in _ENTRY_ONLY:
            if getattr(f, name) not in (None, False):
                raise ModelError(f"function {f.name!r} on {t.name}: {name} is an entry directive, the function is no kernel")
    if f.is_kernel and module.tools_patch:
        raise ModelError(f"function {f.name!r} on {t.name}: -astoolspatch modules cannot hold entry functions")
    if f.clones and not module.whole_program:
        raise ModelError(f"function {f.name!r} on {t.name}: whole-program clones in a -c/-g module")
    if f.blocks_are_clusters and (f.reqntid is None or f.cluster_dims is None):
        # ptxas: ".reqntid and .reqnctapercluster directive(s) required for directive '.blocksareclusters'"
        raise ModelError(f"function {f.name!r} on {t.name}: blocks_are_clusters needs reqntid and cluster_dims")


def _target(target: str | Target | None, module: ModuleFacts) -> Target:
    mt = parse_target(module.target)
    if target is None:
        return mt
    t = parse_target(target)
    if t != mt:
        raise ModelError(f"target {t.name} given, but the module facts are for {mt.name}")
    return t


# ---------------------------------------------------------------------------------------------
# Global .nv.info


def global_pattern(module: ModuleFacts) -> str:
    """Which of ptxas's global ``.nv.info`` patterns applies (the metadata study's names).

    P1 whole program; P2 -c; P3 -g; P4 -ewp; P5 whole program in a module that queries a
    texture/surface (txq/suq): ptxas then gives every function MAX_STACK_SIZE and
    MIN_STACK_SIZE inside its block, and writes no ``.nv.callgraph``.
    """
    if module.compile_only:
        return "P2"
    if module.debug:
        return "P3"
    if module.extensible_whole_program:
        return "P4"
    if module.uses_texture_query:
        return "P5"
    return "P1"


def _sym(attr: EIAttr, name: str, value: int) -> SymbolValue:
    return SymbolValue(attr, name, value)


def _sampler_records(module: ModuleFacts) -> list[NvInfoRecord]:
    """[SAMPLER_FORCE_UNNORMALIZED] SAMPLER_INIT per sampler, last declared first."""
    out: list[NvInfoRecord] = []
    for smp in reversed(module.samplers):
        if smp.force_unnormalized is not None:
            out.append(_sym(EIAttr.SAMPLER_FORCE_UNNORMALIZED, smp.name, smp.force_unnormalized))
        out.append(SamplerInit(smp.name, smp.addr_mode_0, smp.addr_mode_1, smp.addr_mode_2, smp.filter_mode))
    return out


#: whole program: ptxas names the copy of a builtin it injected (``__cuda_sm20_rcp_rn_f32_slowpath``
#: for rcp.rn.f32, ``__cuda_sm70_barrier_sync_0`` for cooperative-groups barriers...) not
#: ``$<kernel>$<callee>`` but ``$__internal_<N>_$<callee>``, N counting those copies over the
#: module in creation order (softmax_warp: the half kernel, first in .text order, holds
#: __internal_0, the float one __internal_1; tests/probes_rw2, every target)
BUILTIN_COPY = re.compile(r"^\$__internal_(\d+)_\$(.+)$")


def clone_callee(clone: str) -> str:
    """The function a whole-program clone copies: ``$<kernel>$<callee>``, or a builtin's
    ``$__internal_<N>_$<builtin>``. The callee's name may hold ``$`` itself (Triton's
    noinline helpers: ``$k$__main___$_helper_scale__fp32_c2_$_0``); kernel names do not."""
    builtin = BUILTIN_COPY.match(clone)
    if builtin is not None:
        return builtin.group(2)
    return clone.split("$", 2)[2] if clone.startswith("$") and clone.count("$") >= 2 else clone


def clone_order(f: FunctionFacts) -> list[Clone]:
    """``f``'s clones in the order ptxas creates them; the global ``.nv.info`` lists their
    FRAME_SIZE in the reverse of it (last created first).

    ptxas creates first the clones of functions that stay called subroutines (recursive or
    address-taken: :attr:`Clone.not_inlinable`), then the others, each group sorted by the name
    of the function copied, in byte order (strcmp: ``B < _x < a < a0 < aB < a_ < ab < abc``),
    whatever the declaration or call order and the linkage; a builtin's or a -sanitize helper's
    copy ``$__internal_N_$<f>`` sorts by ``<f>``. Measured on every target in whole-program
    modes: fo_chain_diamond, fo_linkage, fo_builtins, fo_fptr, kitchen -O0 (recursive ``rec``
    before the sm_70 shfl/vote builtins), calls -sanitize=memcheck (recursive ``fact``, then the
    sanitizer helpers and ``with_local``; address-taken ``thrice``/``twice`` before the
    helpers), and ad-hoc modules varying names, linkage, recursion and address-taking.
    The LOCAL/WEAK clone symbols are created in this order too."""
    return sorted(f.clones, key=lambda c: (not c.not_inlinable, name_bytes(clone_callee(c.name))))


def clone_groups(created: Sequence[str]) -> int | None:
    """How many of the clones ``created`` (names, in creation order) :func:`clone_order` puts in
    the first group: the smallest count for which both groups come sorted; None when no split
    gives ``created`` (an order :func:`clone_order` does not model)."""
    keys = [name_bytes(clone_callee(n)) for n in created]

    def ordered(part: list[bytes]) -> bool:
        return all(a < b for a, b in zip(part, part[1:]))

    for k in range(len(keys) + 1):
        if ordered(keys[:k]) and ordered(keys[k:]):
            return k
    return None


def build_global_info(
    target: str | Target | None,
    module: ModuleFacts,
    functions_in_text_order: Sequence[FunctionFacts],
    *,
    symbol_rank: Callable[[str], int] | None = None,
    by_name: FunctionMap | None = None,
) -> list[NvInfoRecord]:
    """The records of the global ``.nv.info``. ``by_name``: the functions as a
    :class:`FunctionMap`, when the caller has one (its propagations are shared).

    ``functions_in_text_order`` lists the functions with their own ``.text.<f>`` in section
    order. ptxas writes one block per function in the reverse of that order:

    * P1 (whole program): REGCOUNT, FRAME_SIZE of each clone (the reverse of
      :func:`clone_order`), FRAME_SIZE; then MIN_STACK_SIZE (= FRAME_SIZE, recursion or not)
      of every entry in .symtab order (``symbol_rank``: a name's .symtab index; without it
      .text order, which is .symtab order when every entry is visible);
    * P2 (-c): REGCOUNT, MAX_STACK_SIZE, FRAME_SIZE;
    * P3 (-g): REGCOUNT (propagated for entries), FRAME_SIZE, GEN_ERRBAR_AT_EXIT; then
      MIN_STACK_SIZE of every entry in .symtab order, as P1;
    * P4 (-ewp): REGCOUNT, then MAX_STACK_SIZE (0), [MIN_STACK_SIZE if the call tree
      recurses: UNBOUNDED], FRAME_SIZE for each clone (reverse :func:`clone_order`) and for the function;
    * P5 (txq/suq anywhere in a whole-program module): as P4, with MIN_STACK_SIZE always
      (the frame, or UNBOUNDED when the call tree recurses).

    Samplers (last declared first, each [SAMPLER_FORCE_UNNORMALIZED] SAMPLER_INIT) go right
    after the REGCOUNT of the last block; TEXMODE_INDEPENDENT after the last block; debug info
    (-g, or a ``.target ..., debug`` PTX, also under -c) adds GEN_ERRBAR_AT_EXIT at the end of
    each block. A module without functions has its samplers, MERCURY_ISA_VERSION in place of
    the blocks, then TEXMODE_INDEPENDENT.
    """
    t = _target(target, module)
    funcs = list(functions_in_text_order)
    if by_name is None:
        by_name = FunctionMap((f.name, f) for f in funcs)
    if len(by_name) != len(funcs):
        raise ModelError("two functions share a name in functions_in_text_order")
    out: list[NvInfoRecord] = []
    if not funcs:
        # No function blocks: MERCURY_ISA_VERSION stands in for them (after the samplers).
        out.extend(_sampler_records(module))
        out.append(_merc(t))
        if module.texmode_independent:
            out.append(Flag(EIAttr.TEXMODE_INDEPENDENT))
        return out
    pattern = global_pattern(module)
    if module.compile_only or module.debug:
        for f in funcs:
            if f.clones:
                raise ModelError(f"function {f.name!r} has whole-program clones, but the module is not whole program")
    # A module with functions but no kernel (a -c library, a -g module of device functions)
    # still gets its MERCURY_ISA_VERSION: before the blocks when ptxas emits functions in
    # creation order (-g, -c -O0) or adds sanitizer functions, after them otherwise (-c);
    # -astoolspatch writes none.
    kernel_less = not module.tools_patch and not any(f.is_kernel for f in funcs)
    merc_first = module.debug or (module.compile_only and module.opt_level == 0) or module.sanitize is not None
    if kernel_less and merc_first:
        out.append(_merc(t))
    for i, f in enumerate(reversed(funcs)):
        out.append(_sym(EIAttr.REGCOUNT, f.name, register_count(module, f, by_name)))
        if i == len(funcs) - 1:
            out.extend(_sampler_records(module))
        if pattern == "P2":
            out.append(_sym(EIAttr.MAX_STACK_SIZE, f.name, 0))
        elif pattern in ("P4", "P5"):
            for name, frame in [*((c.name, c.frame_size) for c in reversed(clone_order(f))), (f.name, f.frame_size)]:
                out.append(_sym(EIAttr.MAX_STACK_SIZE, name, 0))
                if pattern == "P5" or f.recursive:
                    out.append(_sym(EIAttr.MIN_STACK_SIZE, name, UNBOUNDED if f.recursive else frame))
                out.append(_sym(EIAttr.FRAME_SIZE, name, frame))
            if module.debug or module.errors_visible_at_exit:
                out.append(Flag(EIAttr.GEN_ERRBAR_AT_EXIT))
            continue
        else:
            for c in reversed(clone_order(f)):
                out.append(_sym(EIAttr.FRAME_SIZE, c.name, c.frame_size))
        out.append(_sym(EIAttr.FRAME_SIZE, f.name, f.frame_size))
        if module.debug or module.errors_visible_at_exit:
            # -make-errors-visible-at-exit asks what -g implies (tests/probes_flags errbar_at_exit)
            out.append(Flag(EIAttr.GEN_ERRBAR_AT_EXIT))
    if kernel_less and not merc_first:
        out.append(_merc(t))
    if module.texmode_independent:
        out.append(Flag(EIAttr.TEXMODE_INDEPENDENT))
    if pattern in ("P1", "P3"):
        # .symtab order: static and weak entries (LOCAL/WEAK symbols) before visible ones
        # (fo_linkage: .text K4 K3 K2 K1, MIN_STACK_SIZE K3 K2 K4 K1 in every whole-program
        # mode; -g: K3 K2 K1 K4, every target)
        entries = [f for f in funcs if f.is_kernel]
        if symbol_rank is not None:
            entries.sort(key=lambda f: symbol_rank(f.name))
        for f in entries:
            if f.is_kernel:
                out.append(_sym(EIAttr.MIN_STACK_SIZE, f.name, min_stack_size(module, f, by_name)))
    return out


def _merc(t: Target) -> NvInfoRecord:
    """The module-level MERCURY_ISA_VERSION record of a module without kernels."""
    g = gate(t, EIAttr.MERCURY_ISA_VERSION)
    assert g.value is not None
    return HalfValue(EIAttr.MERCURY_ISA_VERSION, g.value)


def build_module_info(
    module: ModuleFacts,
    functions_in_text_order: Sequence[FunctionFacts],
    *,
    symbol_rank: Callable[[str], int] | None = None,
    layouts: Mapping[str, ParamLayout] | None = None,
) -> dict[str, list[NvInfoRecord]]:
    """Every ``.nv.info*`` section of the module: ``.nv.info`` and ``.nv.info.<f>`` per function
    (``symbol_rank``: see :func:`build_global_info`; ``layouts``: :func:`param_layout` by
    function name, for the functions the caller has worked it out for)."""
    by_name = FunctionMap((f.name, f) for f in functions_in_text_order)
    out = {".nv.info": build_global_info(None, module, functions_in_text_order, symbol_rank=symbol_rank, by_name=by_name)}
    layouts = layouts or {}
    for f in functions_in_text_order:
        out[f".nv.info.{f.name}"] = build_function_info(None, module, f, functions=by_name, layout=layouts.get(f.name), symbol_rank=symbol_rank)
    return out


def _annotations(f: FunctionFacts) -> Annotations:
    """ANNOTATIONS: spills, -annotate's remarks, and its FunctionInfo, whose register count is
    the function's own (REGCOUNT before -g propagation; ptxas -annotate, every probe)."""
    info = None
    if f.annotated_instructions is not None:
        info = function_info_text(f.annotated_instructions, f.register_count)
    return Annotations(f.spill_refill_offsets, (AnnotationNote(n.offset, n.text) for n in f.instruction_notes), info)
