"""Catalogue of the attribute codes found in ``.nv.info*`` and ``.nv.compat`` sections.

Names are spelled exactly as NVIDIA ``cuobjdump -elf`` 13.2.51 prints them. They were read off
cuobjdump by patching the code byte of a record in a real ptxas cubin (the derivation lives in
``tests/nvinfo/cuobjdump_names.py``; a test re-runs it for codes 0x00-0x6f). cuobjdump
13.2.51 knows 0x00-0x66 except 0x56, 0x60 and 0x63, for which it prints ``unknown Attribute``.
ptxas 13.0.88's own name table stops at 0x60 (``EIATTR_ERROR_LAST``), so ptxas never writes a
code above 0x5f.

Every record starts ``[fmt:u8][code:u8]``; the format byte says how long the record is, so a
reader never needs the catalogue to walk a section. The catalogue's format is the one ptxas
uses for the code (``evidence="ptxas"``: seen in ptxas 13.0.88 output), or the one cuobjdump's
value printer for that code assumes (``evidence="cuobjdump"``), or ``None`` when nothing tells.
"""

from __future__ import annotations

import enum
import types
from collections.abc import Mapping

import attrs


class EIFormat(enum.IntEnum):
    """The format byte (byte 0) of a record."""

    NVAL = 1  # ``01 cc 00 00``: a flag, no value
    BVAL = 2  # ``02 cc vv 00``: u8 value in byte 2
    HVAL = 3  # ``03 cc vvvv``: u16 LE value in bytes 2-3
    SVAL = 4  # ``04 cc ssss`` + ssss payload bytes

    @property
    def cuobjdump_name(self) -> str:
        return f"EIFMT_{self.name}"


class Scope(enum.Enum):
    """Which ``.nv.info`` section ptxas puts a code in."""

    GLOBAL = "global"  # the module-wide ``.nv.info``
    FUNCTION = "function"  # ``.nv.info.<function>``


class EIAttr(enum.IntEnum):
    """EIATTR codes that cuobjdump 13.2.51 names (member name = cuobjdump name minus ``EIATTR_``)."""

    ERROR = 0x00
    PAD = 0x01
    IMAGE_SLOT = 0x02
    JUMPTABLE_RELOCS = 0x03
    CTAIDZ_USED = 0x04
    MAX_THREADS = 0x05
    IMAGE_OFFSET = 0x06
    IMAGE_SIZE = 0x07
    TEXTURE_NORMALIZED = 0x08
    SAMPLER_INIT = 0x09
    PARAM_CBANK = 0x0A
    SMEM_PARAM_OFFSETS = 0x0B
    CBANK_PARAM_OFFSETS = 0x0C
    SYNC_STACK = 0x0D
    TEXID_SAMPID_MAP = 0x0E
    EXTERNS = 0x0F
    REQNTID = 0x10
    FRAME_SIZE = 0x11
    MIN_STACK_SIZE = 0x12
    SAMPLER_FORCE_UNNORMALIZED = 0x13
    BINDLESS_IMAGE_OFFSETS = 0x14
    BINDLESS_TEXTURE_BANK = 0x15
    BINDLESS_SURFACE_BANK = 0x16
    KPARAM_INFO = 0x17
    SMEM_PARAM_SIZE = 0x18
    CBANK_PARAM_SIZE = 0x19
    QUERY_NUMATTRIB = 0x1A
    MAXREG_COUNT = 0x1B
    EXIT_INSTR_OFFSETS = 0x1C
    S2RCTAID_INSTR_OFFSETS = 0x1D
    CRS_STACK_SIZE = 0x1E
    NEED_CNP_WRAPPER = 0x1F
    NEED_CNP_PATCH = 0x20
    EXPLICIT_CACHING = 0x21
    ISTYPEP_USED = 0x22
    MAX_STACK_SIZE = 0x23
    SUQ_USED = 0x24
    LD_CACHEMOD_INSTR_OFFSETS = 0x25
    LOAD_CACHE_REQUEST = 0x26
    ATOM_SYS_INSTR_OFFSETS = 0x27
    COOP_GROUP_INSTR_OFFSETS = 0x28
    COOP_GROUP_MASK_REGIDS = 0x29
    SW1850030_WAR = 0x2A
    WMMA_USED = 0x2B
    HAS_PRE_V10_OBJECT = 0x2C
    ATOMF16_EMUL_INSTR_OFFSETS = 0x2D
    ATOM16_EMUL_INSTR_REG_MAP = 0x2E
    REGCOUNT = 0x2F
    SW2393858_WAR = 0x30
    INT_WARP_WIDE_INSTR_OFFSETS = 0x31
    SHARED_SCRATCH = 0x32
    STATISTICS = 0x33
    INDIRECT_BRANCH_TARGETS = 0x34
    SW2861232_WAR = 0x35
    SW_WAR = 0x36
    CUDA_API_VERSION = 0x37
    NUM_MBARRIERS = 0x38
    MBARRIER_INSTR_OFFSETS = 0x39
    COROUTINE_RESUME_ID_OFFSETS = 0x3A
    SAM_REGION_STACK_SIZE = 0x3B
    PER_REG_TARGET_PERF_STATS = 0x3C
    CTA_PER_CLUSTER = 0x3D
    EXPLICIT_CLUSTER = 0x3E
    MAX_CLUSTER_RANK = 0x3F
    INSTR_REG_MAP = 0x40
    RESERVED_SMEM_USED = 0x41
    RESERVED_SMEM_0_SIZE = 0x42
    UCODE_SECTION_DATA = 0x43
    UNUSED_LOAD_BYTE_OFFSET = 0x44
    KPARAM_INFO_V2 = 0x45
    SYSCALL_OFFSETS = 0x46
    SW_WAR_MEMBAR_SYS_INSTR_OFFSETS = 0x47
    GRAPHICS_GLOBAL_CBANK = 0x48
    SHADER_TYPE = 0x49
    VRC_CTA_INIT_COUNT = 0x4A
    TOOLS_PATCH_FUNC = 0x4B
    NUM_BARRIERS = 0x4C
    TEXMODE_INDEPENDENT = 0x4D
    PERF_STATISTICS = 0x4E
    AT_ENTRY_FRAGMENTS = 0x4F
    SPARSE_MMA_MASK = 0x50
    TCGEN05_1CTA_USED = 0x51
    TCGEN05_2CTA_USED = 0x52
    GEN_ERRBAR_AT_EXIT = 0x53
    REG_RECONFIG = 0x54
    ANNOTATIONS = 0x55
    # 0x56: cuobjdump 13.2.51 prints "unknown Attribute" (ptxas calls it EIATTR_UNKNOWN)
    STACK_CANARY_TRAP_OFFSETS = 0x57
    STUB_FUNCTION_KIND = 0x58
    LOCAL_CTA_ASYNC_STORE_OFFSETS = 0x59
    MERCURY_FINALIZER_OPTIONS = 0x5A
    BLOCKS_ARE_CLUSTERS = 0x5B
    SANITIZE = 0x5C
    SYSCALLS_FALLBACK = 0x5D
    CUDA_REQ = 0x5E
    MERCURY_ISA_VERSION = 0x5F
    # 0x60: unknown to cuobjdump 13.2.51 (ptxas 13.0.88: EIATTR_ERROR_LAST, the end of its table)
    RTCORE_ENTRY = 0x61
    CLUSTER_LAUNCH_CONTROL_USED = 0x62
    # 0x63: unknown to cuobjdump 13.2.51
    MIN_PER_CTA_MEMORY_SIZE = 0x64
    IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS = 0x65
    LANGUAGE = 0x66

    @property
    def cuobjdump_name(self) -> str:
        return f"EIATTR_{self.name}"


class EICompatAttr(enum.IntEnum):
    """``.nv.compat`` codes that cuobjdump 13.2.51 names (``EICOMPAT_ATTR_`` + member name)."""

    ERROR = 0x0
    PAD = 0x1
    ISA_CLASS = 0x2
    INST_TENSORMAP_V1 = 0x3
    INST_TCGEN05_MMA_DEPRECATED = 0x4
    INST_TCGEN05_MMA = 0x5
    ENABLE_OPPORTUNISTIC_FINALIZATION = 0x6
    MERCURY_ISA_MAJOR_MINOR_VERSION = 0x7
    MERCURY_ISA_PATCH_VERSION = 0x8
    CUDA_ACCELERATOR_TARGET = 0x9
    CUDA_DRIVER_VERSION = 0xA
    CAN_FASTPATH_FINALIZE = 0xB
    ERROR_LAST = 0xC

    @property
    def cuobjdump_name(self) -> str:
        return f"EICOMPAT_ATTR_{self.name}"


#: What cuobjdump prints for a code it has no name for.
UNKNOWN_ATTRIBUTE = "unknown Attribute"


@attrs.frozen
class AttrSpec:
    """What is known about one code: its name, its wire format and where ptxas puts it."""

    code: int
    name: str
    fmt: EIFormat | None
    evidence: str  # "ptxas", "cuobjdump" or "" (format unknown)
    scope: Scope | None = None


_N, _B, _H, _S = EIFormat.NVAL, EIFormat.BVAL, EIFormat.HVAL, EIFormat.SVAL
_G, _F = Scope.GLOBAL, Scope.FUNCTION

# Formats ptxas 13.0.88 writes (probes in tests/nvinfo/probes and the metadata study) and the
# section each code goes to. tests/nvinfo checks every record of every probe against this.
_PTXAS_SEEN: Mapping[EIAttr, tuple[EIFormat, Scope]] = types.MappingProxyType(
    {
        EIAttr.CTAIDZ_USED: (_N, _F),
        EIAttr.MAX_THREADS: (_S, _F),
        EIAttr.SAMPLER_INIT: (_S, _G),
        EIAttr.PARAM_CBANK: (_S, _F),
        EIAttr.EXTERNS: (_S, _F),
        EIAttr.REQNTID: (_S, _F),
        EIAttr.FRAME_SIZE: (_S, _G),
        EIAttr.MIN_STACK_SIZE: (_S, _G),
        EIAttr.SAMPLER_FORCE_UNNORMALIZED: (_S, _G),
        EIAttr.BINDLESS_TEXTURE_BANK: (_B, _F),
        EIAttr.BINDLESS_SURFACE_BANK: (_B, _F),
        EIAttr.KPARAM_INFO: (_S, _F),
        EIAttr.CBANK_PARAM_SIZE: (_H, _F),
        EIAttr.MAXREG_COUNT: (_H, _F),
        EIAttr.EXIT_INSTR_OFFSETS: (_S, _F),
        EIAttr.CRS_STACK_SIZE: (_S, _F),
        EIAttr.MAX_STACK_SIZE: (_S, _G),
        EIAttr.COOP_GROUP_INSTR_OFFSETS: (_S, _F),
        EIAttr.COOP_GROUP_MASK_REGIDS: (_S, _F),
        EIAttr.WMMA_USED: (_N, _F),
        EIAttr.ATOM16_EMUL_INSTR_REG_MAP: (_S, _F),
        EIAttr.REGCOUNT: (_S, _G),
        EIAttr.INT_WARP_WIDE_INSTR_OFFSETS: (_S, _F),
        EIAttr.INDIRECT_BRANCH_TARGETS: (_S, _F),
        EIAttr.SW2861232_WAR: (_N, _F),
        EIAttr.SW_WAR: (_S, _F),
        EIAttr.CUDA_API_VERSION: (_S, _F),
        EIAttr.NUM_MBARRIERS: (_H, _F),
        EIAttr.MBARRIER_INSTR_OFFSETS: (_S, _F),
        EIAttr.CTA_PER_CLUSTER: (_S, _F),
        EIAttr.EXPLICIT_CLUSTER: (_N, _F),
        EIAttr.MAX_CLUSTER_RANK: (_S, _F),
        EIAttr.INSTR_REG_MAP: (_S, _F),
        EIAttr.RESERVED_SMEM_USED: (_N, _F),
        EIAttr.KPARAM_INFO_V2: (_S, _F),
        EIAttr.SYSCALL_OFFSETS: (_S, _F),
        EIAttr.VRC_CTA_INIT_COUNT: (_B, _F),
        EIAttr.TOOLS_PATCH_FUNC: (_N, _F),
        EIAttr.NUM_BARRIERS: (_B, _F),
        EIAttr.TEXMODE_INDEPENDENT: (_N, _G),
        EIAttr.AT_ENTRY_FRAGMENTS: (_S, _F),
        EIAttr.SPARSE_MMA_MASK: (_H, _F),
        EIAttr.TCGEN05_1CTA_USED: (_N, _F),
        EIAttr.TCGEN05_2CTA_USED: (_N, _F),
        EIAttr.GEN_ERRBAR_AT_EXIT: (_N, _G),
        EIAttr.ANNOTATIONS: (_S, _F),
        EIAttr.SANITIZE: (_H, _F),
        EIAttr.MERCURY_ISA_VERSION: (_H, _F),
        EIAttr.UNUSED_LOAD_BYTE_OFFSET: (_S, _F),
        EIAttr.REG_RECONFIG: (_N, _F),
        EIAttr.BLOCKS_ARE_CLUSTERS: (_N, _F),
    }
)

# Codes ptxas was not seen to write, but for which cuobjdump 13.2.51 has a value printer that
# only makes sense for one format: it decodes an SVAL payload field by field (or dereferences a
# symbol in it), or prints an HVAL value symbolically.
_CUOBJDUMP_IMPLIED: Mapping[EIAttr, EIFormat] = types.MappingProxyType(
    {
        EIAttr.QUERY_NUMATTRIB: _S,  # four "NumAttrib ..." u32 fields
        EIAttr.LOAD_CACHE_REQUEST: _S,  # reads a symbol from the payload
        EIAttr.SHARED_SCRATCH: _S,  # "start offset", "size"
        EIAttr.STATISTICS: _S,  # "instructions", "loops", ...
        EIAttr.COROUTINE_RESUME_ID_OFFSETS: _S,
        EIAttr.SAM_REGION_STACK_SIZE: _S,  # reads a symbol from the payload
        EIAttr.PER_REG_TARGET_PERF_STATS: _S,
        EIAttr.SYSCALLS_FALLBACK: _S,
        EIAttr.LANGUAGE: _S,  # "Language: ..."
        EIAttr.SHADER_TYPE: _H,  # symbolic HVAL value
        EIAttr.STUB_FUNCTION_KIND: _H,  # symbolic HVAL value
    }
)


def _build_specs() -> Mapping[int, AttrSpec]:
    specs: dict[int, AttrSpec] = {}
    for attr in EIAttr:
        if attr in _PTXAS_SEEN:
            fmt, scope = _PTXAS_SEEN[attr]
            specs[attr] = AttrSpec(attr.value, attr.cuobjdump_name, fmt, "ptxas", scope)
        elif attr in _CUOBJDUMP_IMPLIED:
            specs[attr] = AttrSpec(attr.value, attr.cuobjdump_name, _CUOBJDUMP_IMPLIED[attr], "cuobjdump")
        else:
            specs[attr] = AttrSpec(attr.value, attr.cuobjdump_name, None, "")
    return types.MappingProxyType(specs)


#: code -> AttrSpec for every code cuobjdump 13.2.51 names.
EIATTR_SPECS: Mapping[int, AttrSpec] = _build_specs()

# .nv.compat: ptxas 13.0.88 writes exactly these seven, in this order, on sm_90 and newer.
_COMPAT_SEEN: Mapping[EICompatAttr, EIFormat] = types.MappingProxyType(
    {
        EICompatAttr.CUDA_ACCELERATOR_TARGET: _B,
        EICompatAttr.ISA_CLASS: _B,
        EICompatAttr.INST_TCGEN05_MMA: _B,
        EICompatAttr.MERCURY_ISA_MAJOR_MINOR_VERSION: _H,
        EICompatAttr.INST_TENSORMAP_V1: _B,
        EICompatAttr.ENABLE_OPPORTUNISTIC_FINALIZATION: _B,
        EICompatAttr.CAN_FASTPATH_FINALIZE: _S,
    }
)

#: code -> AttrSpec for every ``.nv.compat`` code cuobjdump 13.2.51 names.
COMPAT_SPECS: Mapping[int, AttrSpec] = types.MappingProxyType(
    {
        a.value: AttrSpec(
            a.value,
            a.cuobjdump_name,
            _COMPAT_SEEN.get(a),
            "ptxas" if a in _COMPAT_SEEN else "",
            Scope.GLOBAL if a in _COMPAT_SEEN else None,
        )
        for a in EICompatAttr
    }
)


def attr_name(code: int) -> str:
    """The name cuobjdump prints for an EIATTR code (``unknown Attribute`` if it has none)."""
    spec = EIATTR_SPECS.get(code)
    return spec.name if spec else UNKNOWN_ATTRIBUTE


def compat_attr_name(code: int) -> str:
    """The name cuobjdump prints for a ``.nv.compat`` code."""
    spec = COMPAT_SPECS.get(code)
    return spec.name if spec else UNKNOWN_ATTRIBUTE


def format_name(fmt: int) -> str:
    """``EIFMT_NVAL`` etc.; ``EIFMT_<n>`` for a byte that is no format."""
    try:
        return EIFormat(fmt).cuobjdump_name
    except ValueError:
        return f"EIFMT_{fmt:#x}"
