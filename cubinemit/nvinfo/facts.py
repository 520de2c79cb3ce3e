"""What a compiler backend knows about a module and its functions: the *inputs* of the
``.nv.info`` builder (:mod:`cubinemit.nvinfo.builder`).

A fact is leaf data: something the code generator decided or measured for one function (its
register count, its frame, the .text offsets of its EXIT instructions, the PTX directives it
was given) or for the module (the ptxas options, the call graph, the samplers). Everything
ptxas *derives* from these (CUDA_API_VERSION, SW_WAR, the parameter bank layout, KPARAM
offsets, MAXREG_COUNT, the -g propagation of register and barrier counts through the call
graph, MIN_STACK_SIZE lists, BINDLESS_* records, the record order...) is computed by the
builder and is deliberately *not* a field here.

A few values look derived but no rule reproduces them from the other facts; they are kept as
facts and say so in their comment (``crs_stack_size``, the frame sizes of whole-program
clones, ``legacy_bindless``, ``at_entry_fragments``, ``instr_reg_map``, ``recursive``).

Every class is a frozen attrs class of plain values (int, str, bool, None, tuples, nested fact
classes), so that a later semantic ``Module`` can embed them; :func:`to_json` /
:func:`from_json` turn them into JSON-ready dicts and back.
"""

from __future__ import annotations

import types
import functools
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, TypeVar

import attrs

from ..elf.constants import STT_CUDA_SAMPLER, STT_CUDA_SURFACE, STT_CUDA_TEXTURE
from ..errors import ModelError
from .callgraph import CallEdge, CallGraph, FunctionMark

# ---------------------------------------------------------------------------------------------
# Validators and converters


def _nonneg(bits: int) -> Any:
    limit = 1 << bits

    def check(inst: object, attribute: attrs.Attribute[Any], value: int) -> None:
        if type(value) is int and 0 <= value < limit:  # the usual case, in two tests
            return
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{type(inst).__name__}.{attribute.name} must be an int, got {value!r}")
        if not 0 <= value < limit:
            raise ValueError(f"{type(inst).__name__}.{attribute.name} must fit in {bits} bits, got {value!r}")

    return check


def _opt(bits: int) -> Any:
    inner = _nonneg(bits)

    def check(inst: object, attribute: attrs.Attribute[Any], value: int | None) -> None:
        if value is not None:
            inner(inst, attribute, value)

    return check


def _u32s(inst: object, attribute: attrs.Attribute[Any], value: tuple[int, ...]) -> None:
    for v in value:
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < 1 << 32:
            raise ValueError(f"{type(inst).__name__}.{attribute.name} holds a non-u32 {v!r}")


#: the converter of the integer-tuple fields: tuple itself (a C call; a function wrapping it
#: cost a Python call per field per record)
_ints: Callable[[Iterable[int]], tuple[int, ...]] = tuple


def _strs(values: Iterable[str]) -> tuple[str, ...]:
    out = tuple(values)
    for v in out:
        if not isinstance(v, str):
            raise TypeError(f"expected a string, got {v!r}")
    return out


def _dim3(value: Iterable[int] | None) -> tuple[int, int, int] | None:
    """``.maxntid 256`` means (256, 1, 1): missing dimensions are 1."""
    if value is None:
        return None
    dims = tuple(value)
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"a launch dimension has 1 to 3 components, got {dims!r}")
    padded = dims + (1,) * (3 - len(dims))
    return (padded[0], padded[1], padded[2])


def _dim3_ok(inst: object, attribute: attrs.Attribute[Any], value: tuple[int, int, int] | None) -> None:
    if value is not None:
        _u32s(inst, attribute, value)


def _tuple_of(cls: type) -> Any:
    def convert(values: Iterable[Any]) -> tuple[Any, ...]:
        if type(values) in (tuple, list) and not values:  # most functions have none (no generator then)
            return ()
        return tuple(v if isinstance(v, cls) else _structure(cls, v) for v in values)

    return convert


def _pow2(inst: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1 or value & (value - 1):
        raise ValueError(f"{type(inst).__name__}.{attribute.name} must be a power of two, got {value!r}")


# ---------------------------------------------------------------------------------------------
# Function-level pieces


@attrs.frozen
class Param:
    """One kernel parameter, as the PTX declares it.

    ``align`` is the parameter's alignment in the parameter space (the natural alignment of a
    scalar, or the ``.align`` of a byte array); the builder packs parameters in declaration
    order from it. ``pointee_log_align`` / ``pointee_space`` come from ``.ptr .space .align N``
    and land in KPARAM_INFO unchanged (space codes: 0 none, 1 .local, 2 .shared, 3 .const on
    sm_75-89, 4 .global (and .const from sm_90), 5 generic ``.ptr``).

    A ``texmode_independent`` reference parameter (``.param .texref t``, ``.samplerref``,
    ``.surfref``) takes no parameter bytes: ``symbol`` names the LOCAL symbol ptxas makes for
    it, ``size`` is 0 and ``pointee_space`` holds its space code (:data:`REF_PARAM_SPACES`);
    KPARAM_INFO gives it the symbol's index and offset 0xffff (tests/probes_directives/
    ref_params).
    """

    size: int = attrs.field(validator=_nonneg(16))
    align: int = attrs.field(default=1, validator=_pow2)
    pointee_log_align: int = attrs.field(default=0, validator=_nonneg(8))
    pointee_space: int = attrs.field(default=0, validator=_nonneg(4))
    symbol: str | None = attrs.field(default=None)

    @symbol.validator
    def _ref_shape(self, attribute: attrs.Attribute[Any], value: str | None) -> None:
        if value is None:
            return
        if not isinstance(value, str) or not value:
            raise ValueError(f"Param.symbol must be a non-empty name, got {value!r}")
        if self.size != 0 or self.pointee_space not in REF_PARAM_SPACES.values():
            raise ValueError(
                f"reference parameter {value!r}: size must be 0 and pointee_space one of "
                f"{sorted(REF_PARAM_SPACES.values())}, got size {self.size} and space {self.pointee_space}"
            )

    @property
    def is_ref(self) -> bool:
        return self.symbol is not None


#: KPARAM_INFO space codes of the texmode_independent reference parameters (measured, sm_75-120)
REF_PARAM_SPACES: Final = {"tex": 6, "surf": 7, "sampler": 8}
#: the reference kind of a KPARAM_INFO space code (REF_PARAM_SPACES inverted)
REF_PARAM_KINDS: Final = {v: k for k, v in REF_PARAM_SPACES.items()}
#: the symbol type of a reference, module-scope or parameter, by space
REF_SYMBOL_TYPES: Final = {"tex": STT_CUDA_TEXTURE, "sampler": STT_CUDA_SAMPLER, "surf": STT_CUDA_SURFACE}
#: the KPARAM_INFO offset ptxas gives a reference parameter (it has no bytes in bank 0)
REF_PARAM_OFFSET: Final = 0xFFFF


@attrs.frozen
class Clone:
    """A whole-program clone ``$<kernel>$<callee>`` that ptxas places inside a kernel's .text.

    ``frame_size`` is the clone's own FRAME_SIZE. It is a fact: it is not the callee's frame
    from a separate compile (``$k_calls$fact`` has 64 where ``fact`` alone has 16), and no rule
    over the other facts gives it.
    """

    name: str
    frame_size: int = attrs.field(default=0, validator=_nonneg(32))
    #: the callee stays a called subroutine: it is recursive (in a call cycle) or its address
    #: is taken somewhere in the module. ptxas creates these clones before the others
    #: (cubinemit.nvinfo.builder.clone_order). A property of the program, read back from the
    #: FRAME_SIZE order by the decomposer.
    not_inlinable: bool = False


@attrs.frozen
class MbarrierUse:
    """One SASS instruction on an mbarrier object (an MBARRIER_INSTR_OFFSETS entry)."""

    offset: int = attrs.field(validator=_nonneg(32))
    base_reg: int = attrs.field(validator=_nonneg(32))  # 255 = RZ
    imm_offset: int = attrs.field()
    kind: int = attrs.field(validator=_nonneg(4))
    base_ureg: int = attrs.field(validator=_nonneg(8))  # 255 = URZ (63 on sm_80-89)
    stride: int = attrs.field(default=0, validator=_nonneg(2))
    aux: int = attrs.field(default=1, validator=_nonneg(8))


@attrs.frozen
class IndirectJump:
    """A ``brx.idx`` (BRX) at ``offset`` and the .text offsets it may jump to."""

    offset: int = attrs.field(validator=_nonneg(32))
    targets: tuple[int, ...] = attrs.field(converter=_ints, validator=_u32s)


@attrs.frozen
class InstructionNote:
    """A compiler remark on the instruction at a .text offset (ANNOTATIONS InstructionInfo,
    -annotate: ``0x80000010 - Not unrolled: Unsupported loop index variable``)."""

    offset: int = attrs.field(validator=_nonneg(32))
    text: str = attrs.field(validator=attrs.validators.instance_of(str))


@attrs.frozen
class Atom16Emulation:
    """A 16-bit atomic emulated by a 32-bit CAS loop: the CAS offset and its register."""

    offset: int = attrs.field(validator=_nonneg(32))
    reg: int = attrs.field(validator=_nonneg(32))


#: SPARSE_MMA_MASK bit per sparse MMA instruction kind (cuobjdump's names).
SPARSE_MMA_KINDS: Mapping[str, int] = types.MappingProxyType(
    {"QGMMA.SP": 0, "HGMMA.SP": 1, "IGMMA.SP": 2, "QMMA.SP": 3, "HMMA.SP": 4, "IMMA.SP": 5, "UTC*MMASparse": 6, "OMMA.SP": 7}
)

#: The two kinds of module texture references a function can use (``.texref`` / ``.surfref``).
TEXTURE, SURFACE = "texture", "surface"


def _sparse_kinds(values: Iterable[str]) -> tuple[str, ...]:
    out = _strs(values)
    for v in out:
        if v not in SPARSE_MMA_KINDS:
            raise ValueError(f"unknown sparse MMA kind {v!r}; known: {', '.join(SPARSE_MMA_KINDS)}")
    return out


def _bindless_kinds(values: Iterable[str] | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    out = _strs(values)
    for v in out:
        if v not in (TEXTURE, SURFACE):
            raise ValueError(f"a bindless bank record is {TEXTURE!r} or {SURFACE!r}, not {v!r}")
    return out


@attrs.frozen
class FunctionFacts:
    """Leaf facts about one function that has its own ``.text.<name>`` (a kernel, or a device
    function under -c/-g). Offsets are .text byte offsets within the function's section."""

    name: str
    is_kernel: bool = False
    #: registers the function's own code uses (REGCOUNT before -g propagation)
    register_count: int = attrs.field(default=0, validator=_nonneg(32))
    #: per-thread local frame (FRAME_SIZE); in whole-program mode it covers the cloned callees
    frame_size: int = attrs.field(default=0, validator=_nonneg(32))
    #: CRS_STACK_SIZE as code generation leaves it (None: no record). A fact because no rule
    #: over the other facts predicts it: it follows the SASS (CALLs to whole-program clones,
    #: compiler-internal subroutines, some -g code) rather than the call graph, e.g. a -g kernel
    #: with a plain bar.sync has it and a -g kernel calling a device function does not. Under
    #: -g the builder overrides it with 0xffffffff for an entry that can reach a call cycle.
    crs_stack_size: int | None = attrs.field(default=None, validator=_opt(32))
    #: the function's call tree (whole-program clones included) contains a cycle. Read in the
    #: whole-program patterns that analyse the stack (-ewp, and modules with txq/suq), which
    #: write MIN_STACK_SIZE 0xffffffff then; the cubin keeps no call graph for clones, so this
    #: is a fact there. Under -g the builder derives the same from the call graph.
    recursive: bool = False
    #: highest named-barrier id used by the function's own code + 1 (16 for a register id)
    num_barriers: int = attrs.field(default=0, validator=_nonneg(8))
    params: tuple[Param, ...] = attrs.field(default=(), converter=_tuple_of(Param))
    maxntid: tuple[int, int, int] | None = attrs.field(default=None, converter=_dim3, validator=_dim3_ok)
    reqntid: tuple[int, int, int] | None = attrs.field(default=None, converter=_dim3, validator=_dim3_ok)
    minnctapersm: int | None = attrs.field(default=None, validator=_opt(32))
    maxnreg: int | None = attrs.field(default=None, validator=_opt(32))
    #: ``.reqnctapercluster`` / ``.explicitcluster`` / ``.maxclusterrank``
    cluster_dims: tuple[int, int, int] | None = attrs.field(default=None, converter=_dim3, validator=_dim3_ok)
    explicit_cluster: bool = False
    #: ``.blocksareclusters`` (with .reqntid and .reqnctapercluster): each CTA is a cluster
    blocks_are_clusters: bool = False
    max_cluster_rank: int | None = attrs.field(default=None, validator=_opt(32))
    #: whole-program clones in this function's .text (the builder orders them:
    #: cubinemit.nvinfo.builder.clone_order)
    clones: tuple[Clone, ...] = attrs.field(default=(), converter=_tuple_of(Clone))
    #: undefined functions the function's own code calls (EXTERNS), in ptxas's order
    externs: tuple[str, ...] = attrs.field(default=(), converter=_strs)
    #: a function -sanitize links in (``__cuda_sanitizer_*``): under -g, in a module whose own
    #: code calls no extern, ptxas folds its externs into the entries last (a separate EXTERNS)
    instrumentation: bool = False
    # --- instruction tables (.text offsets)
    exit_offsets: tuple[int, ...] = attrs.field(default=(), converter=_ints, validator=_u32s)
    coop_group_offsets: tuple[int, ...] = attrs.field(default=(), converter=_ints, validator=_u32s)
    #: one per coop_group_offsets entry: 0xffffffff (immediate mask) or 0x05000000|Rn
    coop_group_mask_regids: tuple[int, ...] = attrs.field(default=(), converter=_ints, validator=_u32s)
    syscall_offsets: tuple[int, ...] = attrs.field(default=(), converter=_ints, validator=_u32s)
    int_warp_wide_offsets: tuple[int, ...] = attrs.field(default=(), converter=_ints, validator=_u32s)
    #: UNUSED_LOAD_BYTE_OFFSET words as code generation writes them (-O0 keeps vector loads whose
    #: results are partly dead): pairs of a load's .text offset and the mask of the bytes it uses
    unused_load_bytes: tuple[int, ...] = attrs.field(default=(), converter=_ints, validator=_u32s)
    mbarriers: tuple[MbarrierUse, ...] = attrs.field(default=(), converter=_tuple_of(MbarrierUse))
    #: distinct mbarrier objects (NUM_MBARRIERS); None: no record
    num_mbarriers: int | None = attrs.field(default=None, validator=_opt(16))
    atom16_emulations: tuple[Atom16Emulation, ...] = attrs.field(default=(), converter=_tuple_of(Atom16Emulation))
    indirect_branches: tuple[IndirectJump, ...] = attrs.field(default=(), converter=_tuple_of(IndirectJump))
    #: .text offsets of register spill/refill instructions (ANNOTATIONS SpillRefill)
    spill_refill_offsets: tuple[int, ...] = attrs.field(default=(), converter=_ints, validator=_u32s)
    #: -annotate's remarks on instructions (ANNOTATIONS InstructionInfo)
    instruction_notes: tuple[InstructionNote, ...] = attrs.field(default=(), converter=_tuple_of(InstructionNote))
    #: -annotate: the instructions ptxas counted for the function (ANNOTATIONS FunctionInfo,
    #: ``instr/R-regs: N instructions, <register_count> R-regs``); a compiler fact, as the
    #: count is taken before the final passes (sm_100 and -g code has more); None: no FunctionInfo
    annotated_instructions: int | None = attrs.field(default=None, validator=_opt(32))
    #: INSTR_REG_MAP words (sm_80-89 mbarrier kernels); their meaning is unknown, so a fact
    instr_reg_map: tuple[int, ...] | None = attrs.field(default=None)
    # --- usage flags
    ctaid_z_used: bool = False  # %ctaid.z in the function's own code (whole program: clones too)
    wmma_used: bool = False
    #: REG_RECONFIG: a kernel with a register limit (.maxnreg / .minnctapersm) that uses
    #: setmaxnreg, built whole program (ptxas 13.0.88 writes none under -c or -g)
    reg_reconfig: bool = False
    sparse_mma: tuple[str, ...] = attrs.field(default=(), converter=_sparse_kinds)  # e.g. ("HMMA.SP",)
    tcgen05_1cta: bool = False
    tcgen05_2cta: bool = False
    #: VRC_CTA_INIT_COUNT (0x80) of the function's own code where the flags above do not say
    #: it: tcgen05.ld/st reach tensor memory with no cta_group (0x80, no TCGEN05_*_USED),
    #: tcgen05.relinquish_alloc_permit names a cta_group without reaching it (TCGEN05_1CTA_USED,
    #: 0); alloc, dealloc, mma, cp, shift and commit set both (tests/probes_compat
    #: tensor_memory, sm_100a). None: the flags tell.
    tensor_memory: bool | None = None
    #: AT_ENTRY_FRAGMENTS values (6 = TMEM_CTA1_V2, 7 = TMEM_CTA2_V2) as code generation emits them
    at_entry_fragments: tuple[int, ...] = attrs.field(default=(), converter=_ints, validator=_u32s)
    #: the kernel uses the reserved shared-memory window (tcgen05.alloc)
    reserved_smem: bool = False
    #: the function uses a module ``.texref`` (tex/tld4/txq) / ``.surfref`` (suld/sust/suq)
    uses_texref: bool = False
    uses_surfref: bool = False
    #: sm_75-89 (seen under -c, -g and -sanitize): the BINDLESS_* records as written,
    #: TEXTURE/SURFACE in order.
    #: ptxas repeats records there in a way no rule over the uses reproduces (a kernel with
    #: suld+sust gets two, a kernel using no reference can get one); None: derive from the uses.
    legacy_bindless: tuple[str, ...] | None = attrs.field(default=None, converter=_bindless_kinds)

    def __attrs_post_init__(self) -> None:
        if self.instr_reg_map is not None:
            object.__setattr__(self, "instr_reg_map", tuple(self.instr_reg_map))
            _u32s(self, attrs.fields(FunctionFacts).instr_reg_map, self.instr_reg_map)
        if len(self.unused_load_bytes) % 2:
            raise ModelError(f"function {self.name!r}: UNUSED_LOAD_BYTE_OFFSET words come in (offset, mask) pairs")
        if len(self.coop_group_mask_regids) != len(self.coop_group_offsets):
            raise ModelError(
                f"function {self.name!r}: {len(self.coop_group_offsets)} COOP_GROUP offsets but "
                f"{len(self.coop_group_mask_regids)} mask register ids"
            )


@attrs.frozen
class Sampler:
    """A module ``.samplerref`` with an initialiser (SAMPLER_INIT).

    Address modes and filter in the record's encoding (wrap 0, mirror 1, clamp_to_edge 3,
    clamp_to_border 4; nearest 0, linear 1; 0xff = not given); ``force_unnormalized`` is the
    ``force_unnormalized_coords`` value when the initialiser gives one.
    """

    name: str
    addr_mode_0: int = attrs.field(default=0xFF, validator=_nonneg(8))
    addr_mode_1: int = attrs.field(default=0xFF, validator=_nonneg(8))
    addr_mode_2: int = attrs.field(default=0xFF, validator=_nonneg(8))
    filter_mode: int = attrs.field(default=0xFF, validator=_nonneg(8))
    force_unnormalized: int | None = attrs.field(default=None, validator=_opt(32))


def _callgraph(value: CallGraph | Mapping[str, Any] | None) -> CallGraph:
    if value is None:
        return CallGraph()
    if isinstance(value, CallGraph):
        return value
    return CallGraph(
        calls=[CallEdge(**e) for e in value.get("calls", ())],
        address_taken=[FunctionMark(**m) for m in value.get("address_taken", ())],
        indirect_callers=[FunctionMark(**m) for m in value.get("indirect_callers", ())],
        indirect_targets=[CallEdge(**e) for e in value.get("indirect_targets", ())],
    )


@attrs.frozen
class ModuleFacts:
    """Module-wide facts: the target, the ptxas mode and what the PTX declares at module scope."""

    target: str
    #: -c: relocatable, no whole-program clones, no propagation
    compile_only: bool = False
    #: -g, or a PTX ``.target ..., debug``: device functions keep their own .text, counts
    #: propagate to entries through the call graph
    debug: bool = False
    #: -ewp
    extensible_whole_program: bool = False
    #: -astoolspatch
    tools_patch: bool = False
    #: -make-errors-visible-at-exit: GEN_ERRBAR_AT_EXIT after each function's block, as -g
    errors_visible_at_exit: bool = False
    #: -sanitize=<value>
    sanitize: str | None = None
    #: -maxrregcount
    maxrregcount: int | None = attrs.field(default=None, validator=_opt(32))
    #: -O<n> and -lineinfo are part of the mode but change no .nv.info record
    opt_level: int | None = None
    lineinfo: bool = False
    #: ``.target ..., texmode_independent``
    texmode_independent: bool = False
    #: the module queries a texture/surface/sampler (txq/suq, on a reference or a handle)
    uses_texture_query: bool = False
    #: initialised ``.samplerref``\\s in declaration order
    samplers: tuple[Sampler, ...] = attrs.field(default=(), converter=_tuple_of(Sampler))
    #: the module's call graph (.nv.callgraph), which -g folds along. Derived: the semantic
    #: builder works it out from the functions' call facts (funcorder.callgraph), and a
    #: module spec does not hold it
    call_graph: CallGraph = attrs.field(factory=CallGraph, converter=_callgraph)
    #: the functions whose address a module variable's initializer holds (vtables, function
    #: tables). Derived like call_graph: from the variables' relocations
    table_functions: tuple[str, ...] = attrs.field(default=(), converter=_strs)

    @property
    def whole_program(self) -> bool:
        """Callees are cloned into each kernel (not -c, not -g)."""
        return not self.compile_only and not self.debug


# ---------------------------------------------------------------------------------------------
# JSON

_T = TypeVar("_T")
_FACT_CLASSES = (Param, Clone, MbarrierUse, IndirectJump, Atom16Emulation, FunctionFacts, Sampler, ModuleFacts)


#: values to_json returns as they are (most fields hold one: no recursion for them)
_PLAIN = frozenset({int, str, bool, type(None)})


def to_json(facts: Any) -> Any:
    """A JSON-ready structure (dicts, lists, ints, strs, bools, None) for any fact object."""
    names = _field_names(type(facts))
    if names is not None:
        out = {}
        for name in names:
            value = getattr(facts, name)
            kind = type(value)
            if kind in _PLAIN:
                out[name] = value
            elif kind is tuple:  # most fields: a tuple of plain values, mostly empty
                out[name] = [v if type(v) in _PLAIN else to_json(v) for v in value] if value else []
            else:
                out[name] = to_json(value)
        return out
    if isinstance(facts, (tuple, list)):
        return [v if type(v) in _PLAIN else to_json(v) for v in facts]
    return facts


@functools.lru_cache(maxsize=None)
def _field_names(tp: type) -> tuple[str, ...] | None:
    """The field names of an attrs class, None for any other type (cached per type)."""
    return tuple(f.name for f in attrs.fields(tp)) if attrs.has(tp) else None


@functools.lru_cache(maxsize=None)
def _hints(tp: type) -> dict[str, Any]:
    """The resolved field types of a fact class (resolving them is slow: cache per class)."""
    return typing.get_type_hints(tp)


def _structure(tp: Any, value: Any) -> Any:
    return _converter(tp)(value)


def _identity(value: Any) -> Any:
    return value


@functools.lru_cache(maxsize=None)
def _converter(tp: Any) -> Callable[[Any], Any]:
    """The function that turns JSON into a ``tp`` (worked out once per type: inspecting the
    type on every value is the slow part of :func:`from_json`)."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        some = _converter([a for a in typing.get_args(tp) if a is not type(None)][0])
        return lambda value: None if value is None else some(value)
    if origin is tuple:
        inner = _converter(typing.get_args(tp)[0])
        if inner is _identity:
            return tuple
        return lambda value: tuple(inner(v) for v in value)
    if isinstance(tp, type) and attrs.has(tp):
        cls: type = tp

        def structure(value: Any) -> Any:
            if isinstance(value, cls):
                return value
            if cls is CallGraph:
                return _callgraph(value)
            names, fields = _field_converters(cls)
            if not names.issuperset(value):
                raise KeyError(next(k for k in value if k not in names))
            if not fields:
                return cls(**value)
            return cls(**{k: v if k not in fields else fields[k](v) for k, v in value.items()})

        return structure
    return _identity


@functools.lru_cache(maxsize=None)
def _field_converters(tp: type) -> tuple[frozenset[str], dict[str, Callable[[Any], Any]]]:
    """The field names of an attrs class, and the converter of each field whose JSON form
    needs one (looked up when first used, so that a class may refer to itself). A field with an
    attrs converter of its own needs none here: those of the fact classes take the JSON form
    (lists, dicts) as it is, and converting twice was most of the time :func:`from_json` took."""
    own = {f.name for f in attrs.fields(tp) if f.converter is not None}
    out = {}
    for name, hint in _hints(tp).items():
        convert = _converter(hint)
        if convert is not _identity and name not in own:
            out[name] = convert
    return frozenset(_hints(tp)), out


def from_json(cls: type[_T], data: Mapping[str, Any]) -> _T:
    """Inverse of :func:`to_json` for a fact class."""
    if cls not in _FACT_CLASSES:
        raise TypeError(f"{cls!r} is not a fact class")
    result: _T = _structure(cls, data)
    return result


facts_to_json = to_json
facts_from_json = from_json
