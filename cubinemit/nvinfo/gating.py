"""Which EIATTR codes ptxas 13.0.88 writes for which target, and with which constant value.

Measured by compiling the same PTX probes (tests/nvinfo/probes) for every target in default,
-c and -g modes and reading back the records; tests/nvinfo/test_nvinfo_gating.py re-checks every rule
below against sm_75 80 86 89 90 90a 100 100a 103 110a 120 121 (plus 87/88/'f' spot checks).

Rules are per target, not per family, where ptxas differs inside a family: SW_WAR is 1 on sm_75,
2 on sm_87, absent on sm_80/86/88/89, 8 on sm_90..sm_110 and 0 on sm_120/121.
"""

from __future__ import annotations

import enum
import functools
import re
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Final

import attrs

from ..errors import ModelError
from .catalogue import EIAttr, EICompatAttr, EIFormat
from .records import CompatRecord, CompatValue, CompatWords

#: Every real target ptxas 13.0.88 accepts for ``-arch`` (``ptxas --help``).
PTXAS_TARGETS = (
    "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a",
    "sm_100", "sm_100a", "sm_100f", "sm_103", "sm_103a", "sm_103f",
    "sm_110", "sm_110a", "sm_110f", "sm_120", "sm_120a", "sm_120f", "sm_121", "sm_121a", "sm_121f",
)  # fmt: skip

#: Codes ptxas 13.0.88 can write at all: its name table ends with EIATTR_ERROR_LAST = 0x60.
PTXAS_LAST_CODE = 0x5F


@attrs.frozen
class Target:
    """A real ptxas target: ``sm`` number and variant ("", "a" arch-specific, "f" family)."""

    sm: int
    variant: str = ""

    @property
    def name(self) -> str:
        return f"sm_{self.sm}{self.variant}"

    @property
    def family(self) -> str:
        """ "L" (sm_75..89), "H" (sm_90/90a) or "B" (sm_100 and newer): the metadata study's groups."""
        return "L" if self.sm < 90 else "H" if self.sm < 100 else "B"


def _target_table() -> dict[str, Target]:
    """Every ptxas 13.0.88 target by name (a constant table: the builder parses the target
    several times per function)."""
    table = {}
    for arch in PTXAS_TARGETS:
        m = re.fullmatch(r"sm_(\d+)([af]?)", arch)
        if m:
            table[arch] = Target(int(m.group(1)), m.group(2))
    return table


_TARGETS = _target_table()


def parse_target(arch: str | Target) -> Target:
    """``"sm_90a"`` -> Target(90, "a"); ModelError for anything ptxas 13.0.88 does not accept."""
    if isinstance(arch, Target):
        arch = arch.name
    t = _TARGETS.get(arch)
    if t is None:
        raise ModelError(f"{arch!r} is not a ptxas 13.0.88 target ({', '.join(PTXAS_TARGETS)})")
    return t


class Emission(enum.Enum):
    """How ptxas uses a code on one target."""

    EVERY_FUNCTION = "written in every .nv.info.<function>"
    WHEN_USED = "written when the feature is used"
    NEVER = "never written for this target"
    UNKNOWN = "not seen from ptxas; no rule"


@attrs.frozen
class Gate:
    """The rule for one code on one target. ``value`` is the constant ptxas writes, when it has one."""

    code: EIAttr
    target: str
    emission: Emission
    value: int | None = None
    why: str = ""


_Rule = Callable[[Target], "tuple[Emission, int | None, str]"]
_EVERY, _USED, _NEVER = Emission.EVERY_FUNCTION, Emission.WHEN_USED, Emission.NEVER


def _sw_war(t: Target) -> tuple[Emission, int | None, str]:
    if t.sm == 75:
        return _EVERY, 1, "sm_75 writes SW_WAR = 1"
    if t.sm == 87:
        return _EVERY, 2, "sm_87 writes SW_WAR = 2"
    if t.sm < 90:
        return _NEVER, None, "sm_80/86/88/89 write no SW_WAR"
    if t.sm < 120:
        return _EVERY, 8, "sm_90..sm_110 write SW_WAR = 8"
    return _EVERY, 0, "sm_120/121 write SW_WAR = 0"


def _reserved_smem(t: Target) -> tuple[Emission, int | None, str]:
    if t.sm == 110:
        return _EVERY, None, "sm_110 marks every entry RESERVED_SMEM_USED"
    # kernels with tcgen05.alloc (sm_100a/f, sm_103a/f), and on every target code that reads
    # %reserved_smem_offset_<n>: cooperative_groups for compute_80+ (nvcc -G realistic.cu,
    # sm_80/sm_90/sm_120; tests/probes_rw/realistic_G80)
    return _USED, None, "functions whose code uses reserved shared memory"


def _tcgen05(t: Target) -> tuple[Emission, int | None, str]:
    if t.sm in (100, 103, 110) and t.variant:
        return _USED, None, "tcgen05 kernels"
    return _NEVER, None, "tcgen05 exists only on sm_100a/f, sm_103a/f, sm_110a/f"


def _rule(pred: Callable[[Target], bool], yes: tuple[Emission, int | None], no: str, why: str = "") -> _Rule:
    def rule(t: Target) -> tuple[Emission, int | None, str]:
        if pred(t):
            return yes[0], yes[1], why
        return _NEVER, None, no

    return rule


def _always(value: int | None, why: str) -> _Rule:
    return lambda t: (_EVERY, value, why)


_RULES: Mapping[EIAttr, _Rule] = types.MappingProxyType(
    {
        EIAttr.CUDA_API_VERSION: _always(0x82, "CUDA 13.0, every function, any PTX .version"),
        EIAttr.MERCURY_ISA_VERSION: lambda t: (
            _EVERY,
            0x0101 if t.sm >= 90 else 0,
            "every function: 0.0 before sm_90, 1.1 from sm_90",
        ),
        EIAttr.SW_WAR: _sw_war,
        EIAttr.SW2861232_WAR: _rule(
            lambda t: t.sm in (80, 86, 87, 88), (_EVERY, None), "only sm_80/86/87/88", "every function"
        ),
        EIAttr.CTAIDZ_USED: _rule(lambda t: t.sm < 90, (_USED, None), "sm_90+ never flag %ctaid.z", "%ctaid.z"),
        EIAttr.SPARSE_MMA_MASK: _rule(
            lambda t: t.sm >= 90, (_EVERY, None), "no SPARSE_MMA_MASK before sm_90", "0, or 0x10 with mma.sp"
        ),
        EIAttr.VRC_CTA_INIT_COUNT: _rule(
            lambda t: t.sm >= 100, (_EVERY, None), "no VRC_CTA_INIT_COUNT before sm_100", "0, or 0x80 with tcgen05"
        ),
        EIAttr.INSTR_REG_MAP: _rule(
            lambda t: 80 <= t.sm < 90, (_USED, None), "only sm_80..89 (mbarrier kernels)", "mbarrier kernels"
        ),
        EIAttr.NUM_MBARRIERS: _rule(lambda t: t.sm >= 80, (_USED, None), "mbarrier needs sm_80"),
        EIAttr.MBARRIER_INSTR_OFFSETS: _rule(lambda t: t.sm >= 80, (_USED, None), "mbarrier needs sm_80"),
        EIAttr.CTA_PER_CLUSTER: _rule(lambda t: t.sm >= 90, (_USED, None), "clusters need sm_90"),
        EIAttr.EXPLICIT_CLUSTER: _rule(lambda t: t.sm >= 90, (_USED, None), "clusters need sm_90"),
        EIAttr.MAX_CLUSTER_RANK: _rule(lambda t: t.sm >= 90, (_USED, None), "clusters need sm_90"),
        EIAttr.BLOCKS_ARE_CLUSTERS: _rule(lambda t: t.sm >= 90, (_USED, None), "clusters need sm_90"),
        EIAttr.RESERVED_SMEM_USED: _reserved_smem,
        EIAttr.AT_ENTRY_FRAGMENTS: _tcgen05,
        EIAttr.TCGEN05_1CTA_USED: _tcgen05,
        EIAttr.TCGEN05_2CTA_USED: _tcgen05,
    }
)

# Codes ptxas writes on every target where their feature compiles (no gating seen).
_UNGATED = frozenset(
    {
        EIAttr.MAX_THREADS, EIAttr.SAMPLER_INIT, EIAttr.PARAM_CBANK, EIAttr.EXTERNS, EIAttr.REQNTID,
        EIAttr.FRAME_SIZE, EIAttr.MIN_STACK_SIZE, EIAttr.SAMPLER_FORCE_UNNORMALIZED,
        EIAttr.BINDLESS_TEXTURE_BANK, EIAttr.BINDLESS_SURFACE_BANK, EIAttr.KPARAM_INFO,
        EIAttr.CBANK_PARAM_SIZE, EIAttr.MAXREG_COUNT, EIAttr.EXIT_INSTR_OFFSETS, EIAttr.CRS_STACK_SIZE,
        EIAttr.MAX_STACK_SIZE, EIAttr.COOP_GROUP_INSTR_OFFSETS, EIAttr.COOP_GROUP_MASK_REGIDS,
        EIAttr.WMMA_USED, EIAttr.ATOM16_EMUL_INSTR_REG_MAP, EIAttr.REGCOUNT,
        EIAttr.INT_WARP_WIDE_INSTR_OFFSETS, EIAttr.INDIRECT_BRANCH_TARGETS, EIAttr.KPARAM_INFO_V2,
        EIAttr.SYSCALL_OFFSETS, EIAttr.TOOLS_PATCH_FUNC, EIAttr.NUM_BARRIERS, EIAttr.TEXMODE_INDEPENDENT,
        EIAttr.GEN_ERRBAR_AT_EXIT, EIAttr.ANNOTATIONS, EIAttr.SANITIZE, EIAttr.UNUSED_LOAD_BYTE_OFFSET,
        EIAttr.REG_RECONFIG,
    }
)  # fmt: skip


def gate(arch: str | Target, code: int) -> Gate:
    """The rule for ``code`` on ``arch``."""
    return _gate(arch.name if isinstance(arch, Target) else arch, code)


@functools.lru_cache(maxsize=4096)
def _gate(arch: str, code: int) -> Gate:  # a Gate is frozen: one per (target, code) is shared
    t = parse_target(arch)
    if code > PTXAS_LAST_CODE:
        return Gate(_as_attr(code), t.name, _NEVER, None, f"ptxas 13.0.88 knows codes up to {PTXAS_LAST_CODE:#x}")
    attr = _as_attr(code)
    if attr in _RULES:
        emission, value, why = _RULES[attr](t)
        return Gate(attr, t.name, emission, value, why)
    if attr in _UNGATED:
        return Gate(attr, t.name, _USED, None, "no target gating seen")
    return Gate(attr, t.name, Emission.UNKNOWN, None, "never seen in ptxas output")


def _as_attr(code: int) -> EIAttr:
    try:
        return EIAttr(code)
    except ValueError:
        raise ModelError(f"EIATTR code {code:#x} is unknown (cuobjdump 13.2.51 has no name for it)") from None


def check_record(arch: str | Target, code: int) -> None:
    """ModelError if ptxas 13.0.88 never writes ``code`` for ``arch``; silent otherwise."""
    g = gate(arch, code)
    if g.emission is Emission.NEVER:
        raise ModelError(f"{g.code.cuobjdump_name} is never written for {g.target}: {g.why}")


def gating_table(archs: tuple[str, ...] = PTXAS_TARGETS) -> dict[EIAttr, dict[str, Gate]]:
    """The whole table, code x target, for the codes that have a rule."""
    return {a: {arch: gate(arch, a) for arch in archs} for a in sorted(_RULES.keys() | _UNGATED)}


def every_function_constants(arch: str | Target) -> dict[EIAttr, int | None]:
    """Codes ptxas writes in every ``.nv.info.<function>`` of ``arch``, with their constant value
    (None where the value depends on the code: SPARSE_MMA_MASK, VRC_CTA_INIT_COUNT, NVAL flags).
    RESERVED_SMEM_USED on sm_110 is written for every *entry* and is included here."""
    out = {}
    for attr in _RULES:
        g = gate(arch, attr)
        if g.emission is Emission.EVERY_FUNCTION:
            out[attr] = g.value
    return out


# ---------------------------------------------------------------------------------------------
# .nv.compat


def has_compat_section(arch: str | Target) -> bool:
    """ptxas writes ``.nv.compat`` for sm_90 and newer only."""
    return parse_target(arch).sm >= 90


def fastpath_mask(arch: str | Target) -> int:
    """First word of CAN_FASTPATH_FINALIZE for a module with no special instructions.

    9 on sm_100/100a/100f, 0x50 on sm_120/120a/120f, 0 elsewhere. Kernels can clear bits (DFMA
    on sm_100 leaves 1): the module value is the AND over its kernels.
    """
    t = parse_target(arch)
    return {100: 0x9, 120: 0x50}.get(t.sm, 0)


def fastpath_default(arch: str | Target, *, has_code: bool) -> int:
    """CAN_FASTPATH_FINALIZE's first word before any instruction clears a bit: the AND over no
    code is 0 (a module without .text, e.g. tests/probes/empty_module or whole-program PTX with
    only device functions, gets 0 on sm_100 too), else :func:`fastpath_mask`."""
    return fastpath_mask(arch) if has_code else 0


#: sm_100/100a/100f: the FP64 arithmetic opcodes (bits 0-8 of an instruction's first word;
#: bits 9-11 pick the operand form) whose presence in any .text clears bit 3 of
#: CAN_FASTPATH_FINALIZE (9 -> 1): DMUL 0x28, DADD 0x29, DSETP 0x2a (min/max too), DFMA 0x2b;
#: F2F conversions leave it (measured one instruction per kernel; tests/probes_data/fastpath_fp64)
_FASTPATH_FP64_OPS: Final = frozenset({0x28, 0x29, 0x2A, 0x2B})
#: ... and the integer and FP64 tensor-core MMAs (IMMA 0x237: s8/u8/s4/b1 mma.sync, in -c inside
#: the __cuda_sm_10x_mma_bit_internal_* builtins; DMMA 0x23f), in every mode; HMMA (0x23c:
#: f16/bf16/tf32) leaves it (measured one mma.sync per kernel on sm_100a; tests/probes_data/
#: fastpath_imma, fastpath_dmma; cuda-samples immaTensorCoreGemm, CUTLASS turing_tensorop)
_FASTPATH_MMA_OPS: Final = frozenset({0x237, 0x23F})
#: ... and, in optimised code, the f32 operations ptxas checks for a slow path: div.rn (FCHK
#: 0x102) and sqrt.rn (MUFU.RSQ, then a call to its slowpath builtin, .ftz or not). The
#: approximations' MUFU instructions say nothing: ex2/lg2/rsqrt/sqrt/rcp.approx and
#: div.approx/div.full without .ftz clear the bit with the FSETP immediate of their denormal
#: scaling (below), their .ftz forms leave it with the same MUFU, as do sin/cos/tanh and rcp.rn
#: (measured one instruction per kernel on sm_100a, default and -c; under -O0 only
#: rcp.approx's FSETP clears it; tests/probes_data/fastpath_mufu, fastpath_approx,
#: fastpath_sqrt_ftz; CUTLASS gemm_softmax's MUFU.EX2-only softmax kernels)
_FASTPATH_FCHK: Final = 0x102
_FASTPATH_SLOWPATHS: Final = frozenset({"__cuda_sm20_sqrt_rn_f32_slowpath", "__cuda_sm20_sqrt_rn_ftz_f32_slowpath"})
#: ... and an f32 compare against an immediate (FSETP 0x00b in its immediate form, bits 9-11
#: = 4: ``setp.lt.f32 p, x, 1.0``, .ftz too, in every mode); the register, uniform-register
#: and RZ forms leave it (measured on sm_100a; tests/probes_data/fastpath_fsetp, CUDA-samples
#: style k_blend of tests/probes_rw3 samples_mix)
_FASTPATH_FSETP_IMM: Final = 0x80B


def instruction_words(sass: bytes, end: int | None = None) -> Iterator[tuple[int, int]]:
    """(offset, first 16-bit word) of each 16-byte SASS instruction before ``end``: the word
    whose low bits hold the opcode (bits 0-11) and the predicate (bits 12-15)."""
    stop = len(sass) if end is None else min(end, len(sass))
    for i in range(0, stop - 15, 16):
        yield i, int.from_bytes(sass[i : i + 2], "little")


def queries_texture(sass: bytes) -> bool:
    """Whether ``sass`` holds a TXQ: ptxas compiles ``txq`` on a texture and ``suq`` on a
    surface to it, on every family from sm_75 (opcode 0x36f/0xb6f/0xf6f by operand form;
    measured: tests/probes texref_unified k_txq, and suq/bindless txq probes, sm_75-sm_120).
    A sampler query under texmode_independent leaves none (texref_independent k_texs)."""
    return any(word & 0x1FF == 0x16F for _, word in instruction_words(sass))


def fastpath_cleared(arch: str | Target, sass: bytes, *, optimized: bool = True, callees: Iterable[str] = ()) -> int:
    """The CAN_FASTPATH_FINALIZE bits a function with this ``sass``, calling or holding
    inlined copies of ``callees``, clears (what an edit that removes functions needs to know
    whether the module's mask comes back): on sm_100 bit 3, with FP64 arithmetic, an f32
    compare against an immediate, integer or FP64 MMA, and in optimised code div.rn.f32 and
    sqrt.rn.f32."""
    if parse_target(arch).sm != 100:
        return 0
    if optimized and not _FASTPATH_SLOWPATHS.isdisjoint(callees):
        return 0x8
    for _, word in instruction_words(sass):
        op = word & 0x1FF
        if op in _FASTPATH_FP64_OPS or word & 0xFFF == _FASTPATH_FSETP_IMM or word & 0xFFF in _FASTPATH_MMA_OPS:
            return 0x8
        if optimized and op == _FASTPATH_FCHK:
            return 0x8
    return 0


#: SASS opcodes (bits 0-11 of an instruction's first word) that make ptxas write ISA_CLASS 2
#: in .nv.compat, by family: texture (0xf60-0xf6f: TEX, TXQ...) and surface (0xf98-0xf9f:
#: SULD, SUST, SURED) instructions, bulk copies (0x3ba), tensor-map copies (0x3a8), cluster
#: launch control (0x3ca), and the opcodes that showed up in class-2 cubins only (at least
#: three of them; none of class 1), measured on 18,600 cubins of sm_90-121 (probes and
#: real-world code): on sm_120/121 most are uniform-datapath conversions and float
#: arithmetic (the unsigned division's UI2F 0xd08, UI2FP 0x25e, %clusterid 0xd05), on sm_90
#: wgmma (0x9c5, 0x9f0, class 4). Not every trigger is known, so this can show that code asks
#: for a class, never that it does not. Five opcodes that had shown up in class-2 cubins only
#: are not triggers: class-1 cubins hold them too (of 3,673 sm_120/121 cubins of the later
#: sweeps; every class-2 one is still explained without them): IDP.4A with a uniform operand
#: (0xc26: ggml mmvq's q4_K kernels), FSETP against a uniform register (0xc0b), 0x344, 0x958
#: and 0xe23 (tests/probes_data/isa_class_uniform).
#: The tensor-map copies: UTMALDG (0x5b4; 0x3b4 with .multicast::cluster), UTMASTG (0x3b5),
#: UTMAREDG (0x3b6) and UTMAPF (0x5b8), the same opcodes on sm_90-121. Each sets bit 0 of
#: .nv.compat's INST_TENSORMAP_V1 (tests/probes_compat/compat_tensormap: every
#: cp.async.bulk.tensor form alone; of 10,458 sm_90+ cubins, each with bit 0 has one and none
#: without it does) and asks ISA_CLASS 2.
_TENSOR_COPIES: Final = frozenset({0x3B4, 0x3B5, 0x3B6, 0x5B4, 0x5B8})
#: UTMACCTL (0x9b9: prefetch.tensormap, fence.proxy.tensormap::generic.acquire) asks class 2
#: too; the .release fence asks it with nothing to show (MEMBAR, ERRBAR, CGAERRBAR: class 1
#: code has them), which is why this table can say that code asks, never that it does not.
#: USETMAXREG (0x9c8, setmaxnreg) asks class 2 (tests/probes_compat/compat_wgmma_90a k_regs).
#: VABSDIFF4 (0x215) is no trigger, though it showed up in class-2 cubins only: vabsdiff4
#: alone leaves class 1 on sm_90-110 (tests/probes_compat/vabsdiff_class; CUDA samples
#: stereoDisparity -rdc: __usad4 without the texture kernel). sm_120 has no VABSDIFF4: its
#: VIMNMX/VIADD form asks class 2.
_ISA_CLASS2_COMMON: Final = frozenset([*range(0xF60, 0xF70), *range(0xF98, 0xFA0), *_TENSOR_COPIES, 0x3A8, 0x3BA, 0x3CA, 0x80A, 0x9B9, 0x9C8])
_ISA_CLASS2_OPCODES: Final = {
    90: _ISA_CLASS2_COMMON | {0x239},
    100: _ISA_CLASS2_COMMON | {0x3E9, 0x5E3, 0x5EA, 0x84C, 0x9E3, 0x9EE},
    120: _ISA_CLASS2_COMMON
    | {0x217, 0x236, 0x24A, 0x253, 0x254, 0x255, 0x256, 0x25A, 0x25C, 0x25E, 0x285, 0x29B, 0x2A6, 0x416, 0x454, 0x455}
    | {0x817, 0x845, 0x84A, 0x851, 0x853, 0x855, 0x856, 0x85A, 0x885, 0x89B, 0xC17, 0xC1B, 0xD05, 0xD08},
}


#: F2FP (float to packed float): the conversions to and from 8-, 6- and 4-bit floats (E4M3,
#: E5M2, E2M3, E3M2, E2M1, UE8M0) ask ISA_CLASS 2 on sm_90 and later, the F16/BF16 packs do
#: not. Measured on every such ``cvt`` on sm_90, sm_100a and sm_120a (tests/probes_rw6/
#: rules/isa_class_fp8; tests/probes_rw6 cluster_sm90_90: only quantize_rows_fp8 has one): the
#: low-precision forms, and only they, set bit 89 (UNPACK_B) or bit 90 (MERGE_C)
_F2FP: Final = 0x23E
_F2FP_LOW_PRECISION_BITS: Final = (1 << (89 - 64)) | (1 << (90 - 64))


def _asks_isa_class2_at(sass: bytes, i: int, word: int, ops: frozenset[int]) -> bool:
    op = word & 0xFFF
    if op == _F2FP:
        return bool(int.from_bytes(sass[i + 8 : i + 16], "little") & _F2FP_LOW_PRECISION_BITS)
    return op in ops


#: wgmma (sm_90a) asks more than class 2: WARPGROUP.ARRIVE (0x9c5, which wgmma.fence and
#: wgmma.wait_group make) class 3, the warpgroup MMAs (0x9f0-0x9f3 by operand type: f16/bf16/
#: tf32, s8, b1, e4m3/e5m2; wgmma.commit_group alone makes one) class 4 (tests/probes_compat/
#: compat_wgmma_90a; 105 class-4 sm_90a cubins of CUTLASS and triton-style code, all with both)
_ISA_CLASS_WGMMA: Final = {0x9C5: 3, 0x9F0: 4, 0x9F1: 4, 0x9F2: 4, 0x9F3: 4}


def isa_class_asked(arch: str | Target, sass: bytes) -> int:
    """The least ``.nv.compat`` ISA_CLASS that ``sass`` is known to ask (:data:`_ISA_CLASS_WGMMA`,
    :data:`_ISA_CLASS2_OPCODES`, the low-precision F2FP conversions), 1 where it holds no known
    trigger: what an edit that removes functions needs to know whether the module's class goes
    down (CUDA samples EGLSync_CUDAEvent_Interop sm_120: only the surface kernel asks class 2;
    simpleTemplates sm_120: only testKernel<float>'s UI2FP; a wgmma kernel removed beside a TMA
    one leaves class 2)."""
    t = parse_target(arch)
    family = 120 if t.sm >= 120 else 100 if t.sm >= 100 else 90
    ops = _ISA_CLASS2_OPCODES[family]
    above = _ISA_CLASS_WGMMA if family == 90 else {}
    asked = 1
    for i, word in instruction_words(sass):
        op = word & 0xFFF
        if op in above:
            asked = max(asked, above[op])
            if asked == 4:
                break
        elif asked == 1 and _asks_isa_class2_at(sass, i, word, ops):
            asked = 2
    return asked


def makes_tensor_copies(sass: bytes) -> bool:
    """Whether ``sass`` holds a tensor-map copy (:data:`_TENSOR_COPIES`): bit 0 of
    ``.nv.compat``'s INST_TENSORMAP_V1. Bit 1, ``tensormap.replace``, has no instruction of
    its own: ptxas writes the new field with a plain store."""
    return any(word & 0xFFF in _TENSOR_COPIES for _, word in instruction_words(sass))


def compat_records(arch: str | Target, *, isa_class: int = 1, fastpath: int | None = None, tensormap: int = 0) -> list[CompatRecord]:
    """The seven ``.nv.compat`` records ptxas writes, in its order.

    ``isa_class`` is 1, or 2 when the module has texture/surface, cp.async.bulk, tcgen05 (and on
    sm_120/121 %clusterid or f64->s32 conversions); ``fastpath`` defaults to :func:`fastpath_mask`;
    ``tensormap`` holds bit 0 when the code makes tensor-map copies such as
    ``cp.async.bulk.tensor`` (tests/probes_rw3 tma_wgmma_90a), bit 1 when it uses
    ``tensormap.replace`` (tests/probes_compat/compat_tensormap).
    """
    t = parse_target(arch)
    if t.sm < 90:
        raise ModelError(f"{t.name} has no .nv.compat section")
    b, h = EIFormat.BVAL, EIFormat.HVAL
    return [
        CompatValue(EICompatAttr.CUDA_ACCELERATOR_TARGET, b, 1 if t.variant == "a" else 0),
        CompatValue(EICompatAttr.ISA_CLASS, b, isa_class),
        CompatValue(EICompatAttr.INST_TCGEN05_MMA, b, 5),
        CompatValue(EICompatAttr.MERCURY_ISA_MAJOR_MINOR_VERSION, h, 0x0101),
        CompatValue(EICompatAttr.INST_TENSORMAP_V1, b, tensormap),
        CompatValue(EICompatAttr.ENABLE_OPPORTUNISTIC_FINALIZATION, b, 1),
        CompatWords(EICompatAttr.CAN_FASTPATH_FINALIZE, (fastpath_mask(t) if fastpath is None else fastpath, 0)),
    ]
