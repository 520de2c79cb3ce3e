"""ELF and CUDA ELF constants: the one home for numbers the container layer needs."""

from __future__ import annotations

# --- ELF header -------------------------------------------------------------------------------
ELFMAG = b"\x7fELF"
ELFCLASS64 = 2
ELFDATA2LSB = 1
EV_CURRENT = 1
ELFOSABI_CUDA = 0x41  # ptxas 13.0 writes OSABI 0x41 ...
ELFABIVERSION_CUDA = 8  # ... and ABI version 8
EM_CUDA = 190

ET_NONE = 0
ET_REL = 1  # ptxas -c
ET_EXEC = 2  # ptxas default
ET_CUDA_EWP = 0xFF00  # ptxas -ewp: exec-style sections, no program headers

EHDR_SIZE = 64
SHDR_SIZE = 64
PHDR_SIZE = 56
SYM_SIZE = 24
REL_SIZE = 16
RELA_SIZE = 24

SHN_UNDEF = 0
SHN_LORESERVE = 0xFF00
SHN_ABS = 0xFFF1
SHN_COMMON = 0xFFF2
SHN_XINDEX = 0xFFFF

# --- section types ----------------------------------------------------------------------------
SHT_NULL = 0
SHT_PROGBITS = 1
SHT_SYMTAB = 2
SHT_STRTAB = 3
SHT_RELA = 4
SHT_NOTE = 7
SHT_NOBITS = 8
SHT_REL = 9
SHT_SYMTAB_SHNDX = 18
SHT_LOPROC = 0x70000000

# NVIDIA types, as ptxas 13.0.88 writes them (measured; the seeds disagree on several).
SHT_CUDA_INFO = SHT_LOPROC + 0x00  # .nv.info, .nv.info.<f>
SHT_CUDA_CALLGRAPH = SHT_LOPROC + 0x01  # .nv.callgraph (not 0x70000064 as a seed claims)
SHT_CUDA_PROTOTYPE = SHT_LOPROC + 0x02  # .nv.prototype
SHT_CUDA_RESOLVED_RELA = SHT_LOPROC + 0x03  # .nv.resolvedrela.<X> (-sanitize=memcheck, sm<90)
SHT_CUDA_GLOBAL = SHT_LOPROC + 0x07  # REL-mode .nv.global (NOBITS-like)
SHT_CUDA_GLOBAL_INIT = SHT_LOPROC + 0x08  # REL-mode .nv.global.init
SHT_CUDA_SHARED = SHT_LOPROC + 0x0A  # REL-mode .nv.shared.<f>, .nv_debug.shared (NOBITS-like)
SHT_CUDA_RELOCINFO = SHT_LOPROC + 0x0B  # .nv.rel.action
SHT_CUDA_SHARED_RESERVED = SHT_LOPROC + 0x15  # REL-mode .nv.shared.reserved.0 (NOBITS-like)
SHT_CUDA_CAPMERC_TEXT = SHT_LOPROC + 0x16  # .nv.capmerc.text.<f>
SHT_CUDA_CONSTANT = SHT_LOPROC + 0x64  # REL-mode .nv.constantN: 0x70000064 + N
SHT_CUDA_MERC_RELA = SHT_LOPROC + 0x82  # .nv.merc.rela.*
SHT_CUDA_MERC_INFO = SHT_LOPROC + 0x83  # .nv.merc.nv.info*
SHT_CUDA_MERC_SYMTAB = SHT_LOPROC + 0x85  # .nv.merc.symtab
SHT_CUDA_COMPAT = SHT_LOPROC + 0x86  # .nv.compat

#: Types whose sections occupy no file bytes outside Mercury (REL-mode global/shared).
NOBITS_LIKE_TYPES = frozenset({SHT_NOBITS, SHT_CUDA_GLOBAL, SHT_CUDA_SHARED, SHT_CUDA_SHARED_RESERVED})

SECTION_TYPE_NAMES = {
    SHT_NULL: "NULL",
    SHT_PROGBITS: "PROGBITS",
    SHT_SYMTAB: "SYMTAB",
    SHT_STRTAB: "STRTAB",
    SHT_RELA: "RELA",
    SHT_NOTE: "NOTE",
    SHT_NOBITS: "NOBITS",
    SHT_REL: "REL",
    SHT_SYMTAB_SHNDX: "SYMTAB_SHNDX",
    SHT_CUDA_INFO: "CUDA_INFO",
    SHT_CUDA_CALLGRAPH: "CUDA_CALLGRAPH",
    SHT_CUDA_PROTOTYPE: "CUDA_PROTOTYPE",
    SHT_CUDA_RESOLVED_RELA: "CUDA_RESOLVED_RELA",
    SHT_CUDA_GLOBAL: "CUDA_GLOBAL",
    SHT_CUDA_GLOBAL_INIT: "CUDA_GLOBAL_INIT",
    SHT_CUDA_SHARED: "CUDA_SHARED",
    SHT_CUDA_RELOCINFO: "CUDA_RELOCINFO",
    SHT_CUDA_SHARED_RESERVED: "CUDA_SHARED_RESERVED",
    SHT_CUDA_CAPMERC_TEXT: "CUDA_CAPMERC_TEXT",
    SHT_CUDA_MERC_RELA: "CUDA_MERC_RELA",
    SHT_CUDA_MERC_INFO: "CUDA_MERC_INFO",
    SHT_CUDA_MERC_SYMTAB: "CUDA_MERC_SYMTAB",
    SHT_CUDA_COMPAT: "CUDA_COMPAT",
}
for _bank in range(0x20):
    SECTION_TYPE_NAMES.setdefault(SHT_CUDA_CONSTANT + _bank, f"CUDA_CONSTANT{_bank}")


def section_type_name(sh_type: int) -> str:
    """Display name of a section type; unknown values print as hex."""
    return SECTION_TYPE_NAMES.get(sh_type, f"{sh_type:#x}")


# --- section flags ----------------------------------------------------------------------------
SHF_WRITE = 0x1
SHF_ALLOC = 0x2
SHF_EXECINSTR = 0x4
SHF_INFO_LINK = 0x40  # ptxas sets INFO_LINK (not LINK_ORDER) on .nv.info.<f>, banks, relocs
SHF_CUDA_TKINFO = 0x02000000  # .note.nv.tkinfo
SHF_CUDA_CUINFO = 0x01000000  # .note.nv.cuinfo
SHF_CUDA_MERCURY = 0x10000000  # every .nv.merc.* / .nv.capmerc.* section

# --- symbols ----------------------------------------------------------------------------------
STB_LOCAL = 0
STB_GLOBAL = 1
STB_WEAK = 2

STT_NOTYPE = 0
STT_OBJECT = 1
STT_FUNC = 2
STT_SECTION = 3
STT_FILE = 4
# texture, sampler and surface references (measured: .texref 10, .samplerref 11, .surfref 12;
# tests/probes/texref_*, tests/probes_directives/ref_params)
STT_CUDA_TEXTURE = 10
STT_CUDA_SAMPLER = 11
STT_CUDA_SURFACE = 12
STT_CUDA_OBJECT = 13  # REL-mode variables, _param, _SREG

STO_CUDA_ENTRY = 0x10

# --- program headers --------------------------------------------------------------------------
PT_LOAD = 1
PT_PHDR = 6
PF_X = 1
PF_W = 2
PF_R = 4

# --- notes ------------------------------------------------------------------------------------
NT_CUDA_CUINFO = 1000
NT_CUDA_TKINFO = 2000
NOTE_NAME_NVIDIA = b"NVIDIA Corp\x00"

# --- relocation types, for display only -------------------------------------------------------
# Names as NVIDIA's cuobjdump 13.2.51 prints them (taken by patching a relocation's type
# through every value; tests/test_reloc_names.py re-checks them on real relocations).
R_CUDA_NAMES = {
    0: "R_CUDA_NONE",
    1: "R_CUDA_32",
    2: "R_CUDA_64",
    3: "R_CUDA_G32",
    4: "R_CUDA_G64",
    5: "R_CUDA_ABS32_26",
    6: "R_CUDA_TEX_HEADER_INDEX",
    7: "R_CUDA_SAMP_HEADER_INDEX",
    8: "R_CUDA_SURF_HW_DESC",
    9: "R_CUDA_SURF_HW_SW_DESC",
    10: "R_CUDA_ABS32_LO_26",
    11: "R_CUDA_ABS32_HI_26",
    12: "R_CUDA_ABS32_23",
    13: "R_CUDA_ABS32_LO_23",
    14: "R_CUDA_ABS32_HI_23",
    15: "R_CUDA_ABS24_26",
    16: "R_CUDA_ABS24_23",
    17: "R_CUDA_ABS16_26",
    18: "R_CUDA_ABS16_23",
    19: "R_CUDA_TEX_SLOT",
    20: "R_CUDA_SAMP_SLOT",
    21: "R_CUDA_SURF_SLOT",
    22: "R_CUDA_TEX_BINDLESSOFF13_32",
    23: "R_CUDA_TEX_BINDLESSOFF13_47",
    24: "R_CUDA_CONST_FIELD19_28",
    25: "R_CUDA_CONST_FIELD19_23",
    26: "R_CUDA_TEX_SLOT9_49",
    27: "R_CUDA_6_31",
    28: "R_CUDA_2_47",
    29: "R_CUDA_TEX_BINDLESSOFF13_41",
    30: "R_CUDA_TEX_BINDLESSOFF13_45",
    31: "R_CUDA_FUNC_DESC32_23",
    32: "R_CUDA_FUNC_DESC32_LO_23",
    33: "R_CUDA_FUNC_DESC32_HI_23",
    34: "R_CUDA_FUNC_DESC_32",
    35: "R_CUDA_FUNC_DESC_64",
    36: "R_CUDA_CONST_FIELD21_26",
    37: "R_CUDA_QUERY_DESC21_37",
    38: "R_CUDA_CONST_FIELD19_26",
    39: "R_CUDA_CONST_FIELD21_23",
    40: "R_CUDA_PCREL_IMM24_26",
    41: "R_CUDA_PCREL_IMM24_23",
    42: "R_CUDA_ABS32_20",
    43: "R_CUDA_ABS32_LO_20",
    44: "R_CUDA_ABS32_HI_20",
    45: "R_CUDA_ABS24_20",
    46: "R_CUDA_ABS16_20",
    47: "R_CUDA_FUNC_DESC32_20",
    48: "R_CUDA_FUNC_DESC32_LO_20",
    49: "R_CUDA_FUNC_DESC32_HI_20",
    50: "R_CUDA_CONST_FIELD19_20",
    51: "R_CUDA_BINDLESSOFF13_36",
    52: "R_CUDA_SURF_HEADER_INDEX",
    53: "R_CUDA_INSTRUCTION64",
    54: "R_CUDA_CONST_FIELD21_20",
    55: "R_CUDA_ABS32_32",
    56: "R_CUDA_ABS32_LO_32",
    57: "R_CUDA_ABS32_HI_32",
    58: "R_CUDA_ABS47_34",
    59: "R_CUDA_ABS16_32",
    60: "R_CUDA_ABS24_32",
    61: "R_CUDA_FUNC_DESC32_32",
    62: "R_CUDA_FUNC_DESC32_LO_32",
    63: "R_CUDA_FUNC_DESC32_HI_32",
    64: "R_CUDA_CONST_FIELD19_40",
    65: "R_CUDA_BINDLESSOFF14_40",
    66: "R_CUDA_CONST_FIELD21_38",
    67: "R_CUDA_INSTRUCTION128",
    68: "R_CUDA_YIELD_OPCODE9_0",
    69: "R_CUDA_YIELD_CLEAR_PRED4_87",
    70: "R_CUDA_32_LO",
    71: "R_CUDA_32_HI",
    72: "R_CUDA_UNUSED_CLEAR32",
    73: "R_CUDA_UNUSED_CLEAR64",
    74: "R_CUDA_ABS24_40",
    75: "R_CUDA_ABS55_16_34",
    76: "R_CUDA_8_0",
    77: "R_CUDA_8_8",
    78: "R_CUDA_8_16",
    79: "R_CUDA_8_24",
    80: "R_CUDA_8_32",
    81: "R_CUDA_8_40",
    82: "R_CUDA_8_48",
    83: "R_CUDA_8_56",
    84: "R_CUDA_G8_0",
    85: "R_CUDA_G8_8",
    86: "R_CUDA_G8_16",
    87: "R_CUDA_G8_24",
    88: "R_CUDA_G8_32",
    89: "R_CUDA_G8_40",
    90: "R_CUDA_G8_48",
    91: "R_CUDA_G8_56",
    92: "R_CUDA_FUNC_DESC_8_0",
    93: "R_CUDA_FUNC_DESC_8_8",
    94: "R_CUDA_FUNC_DESC_8_16",
    95: "R_CUDA_FUNC_DESC_8_24",
    96: "R_CUDA_FUNC_DESC_8_32",
    97: "R_CUDA_FUNC_DESC_8_40",
    98: "R_CUDA_FUNC_DESC_8_48",
    99: "R_CUDA_FUNC_DESC_8_56",
    100: "R_CUDA_ABS20_44",
    101: "R_CUDA_SAMP_HEADER_INDEX_0",
    102: "R_CUDA_UNIFIED",
    103: "R_CUDA_UNIFIED_32",
    104: "R_CUDA_UNIFIED_8_0",
    105: "R_CUDA_UNIFIED_8_8",
    106: "R_CUDA_UNIFIED_8_16",
    107: "R_CUDA_UNIFIED_8_24",
    108: "R_CUDA_UNIFIED_8_32",
    109: "R_CUDA_UNIFIED_8_40",
    110: "R_CUDA_UNIFIED_8_48",
    111: "R_CUDA_UNIFIED_8_56",
    112: "R_CUDA_UNIFIED32_LO_32",
    113: "R_CUDA_UNIFIED32_HI_32",
    114: "R_CUDA_ABS56_16_34",
    115: "R_CUDA_CONST_FIELD22_37",
}


def reloc_type_name(r_type: int) -> str:
    """R_CUDA name of a relocation type (Mercury types are 0x10000 + n)."""
    if r_type >= 0x10000:
        return f"R_MERCURY_{r_type - 0x10000}"
    return R_CUDA_NAMES.get(r_type, f"R_CUDA_{r_type}")
