"""Per-architecture facts, in one table.

Every rule that depends on the target reads it from here instead of testing ``sm`` inline. The
values are measured on ptxas 13.0.88 output (see tests/test_arch.py for the probes that pin them).
"""

from __future__ import annotations

import enum
import functools
import re

import attrs

from .errors import ModelError


class Family(enum.Enum):
    """ptxas groups its container and metadata rules in three families."""

    LEGACY = "sm_75-89"  # Turing, Ampere, Ada
    HOPPER = "sm_90"  # sm_90, sm_90a
    BLACKWELL = "sm_100+"  # every target >= 100, Mercury sections included


@attrs.frozen
class ArchFacts:
    family: Family
    #: e_flags bits 0-7: 4 below sm_100, 2 from sm_100 on (meaning unknown, constant per family)
    eflags_low: int
    #: EXEC program headers: "legacy" (PHDR RX, LOAD RX, LOAD RW, LOAD RX) or "hopper" (2-6 entries)
    phdr_style: str
    #: e_phentsize of a relocatable (-c) cubin: 56 below sm_90, 0 from sm_90 on
    rel_phentsize: int
    #: the .nv.constant0.<f> banks are "late" sections (after NOBITS) from sm_90 on
    late_bank0: bool
    #: Mercury (.nv.merc.*, .nv.capmerc.*) tail from sm_100 on
    mercury: bool
    #: parameter base in bank 0 (used by the metadata and memory layers)
    param_base: int
    #: zero bytes ptxas leaves after .shstrtab's sh_size (see layout.shstrtab_slack):
    #: "none"; "capmerc" = the names .symtab_shndx and .nv.capmerc.text.<f> of every function
    #: with code; "merc_shndx" = .symtab_shndx and .nv.merc.symtab_shndx
    shstrtab_slack: str
    #: zero bytes after .strtab's sh_size on sm_100+, where banks renamed late get their new
    #: name appended (see layout.strtab_slack)
    strtab_slack: bool
    #: .text.<f> sh_info carries the register count in bits 24-31 (below sm_90)
    text_info_regcount: bool
    #: bytes of .nv.shared.reserved.0 in executables, and the value of the reserved-SMEM
    #: symbols (.nv.reservedSmem.offset0, its alias) in .symtab (per SM: _SM_OVERRIDES)
    reserved_smem_size: int = 0
    reserved_smem_offset: int = 0
    # --- memory layout (cubinemit.alloc; probes in tests/alloc) ------------------------------
    #: parameter base in bank 0 when the parameters take more than 4352 bytes (KPARAM_INFO_V2)
    param_base_large: int = 0
    #: parameter alignment applies to the bank-0 address (True) or to the offset from the base
    #: (False), for small and for large (> 4352 bytes) parameter blocks
    param_align_absolute: bool = False
    param_align_absolute_large: bool = False
    #: texture/surface handle slots follow each kernel's own parameters ("kernel") or the largest
    #: parameter block of the module ("module")
    handle_slot_scope: str = "kernel"
    #: the parameter bytes before the first handle slot are rounded up to this
    handle_slot_align: int = 4
    #: texmode_independent: a sampled texture and its sampler share one 4-byte slot
    handle_pair_slots: bool = False
    #: offset of the first user byte in every .nv.shared.<kernel> and in .nv_debug.shared
    shared_base: int = 0
    #: first free offset of .nv.shared.reserved.0 (None: the family has no such section)
    reserved_smem_base: int | None = None
    #: SM numbers whose .nv.shared.reserved.0 holds __nv_reservedSMEM_gb10b_war_var
    reserved_smem_war_sms: tuple[int, ...] = ()
    #: e_ident[EI_ABIVERSION] when ptxas disables the ABI ("Function ... with multiple return
    #: values found, disabling ABI", or module-scope .local variables): 2 below sm_90, the
    #: usual 8 from sm_90 on, where nothing else in the file changes
    #: (tests/probes_directives multiple_return, module_local)
    no_abi_version: int = 8


_FAMILY_FACTS = {
    Family.LEGACY: ArchFacts(
        Family.LEGACY, 0x04, "legacy", 56, False, False, 0x160, "none", False, True,
        param_base_large=0x1A80, param_align_absolute=True, param_align_absolute_large=False,
        handle_slot_scope="kernel", handle_slot_align=4, handle_pair_slots=True,
        shared_base=0, reserved_smem_base=None, no_abi_version=2,
    ),
    Family.HOPPER: ArchFacts(
        Family.HOPPER, 0x04, "hopper", 0, True, False, 0x210, "capmerc", False, False,
        param_base_large=0x210, param_align_absolute=True, param_align_absolute_large=True,
        handle_slot_scope="module", handle_slot_align=4, handle_pair_slots=False,
        shared_base=0x400, reserved_smem_base=0,
    ),
    Family.BLACKWELL: ArchFacts(
        Family.BLACKWELL, 0x02, "hopper", 0, True, True, 0x380, "merc_shndx", True, False,
        param_base_large=0x380, param_align_absolute=False, param_align_absolute_large=False,
        handle_slot_scope="module", handle_slot_align=16, handle_pair_slots=False,
        shared_base=0x400, reserved_smem_base=0x40, reserved_smem_war_sms=(110,),
    ),
}  # fmt: skip

#: 32-bit registers per SM, and the most one thread may hold, on every target ptxas 13.0 writes
#: (launch bounds cap a kernel's registers at REGISTER_FILE / (threads x CTAs per SM))
REGISTER_FILE = 65536
MAX_REGISTERS = 255

#: Every SM number ptxas 13.0.88 accepts as a real target (sm_XY, sm_XYa, sm_XYf).
KNOWN_SMS = (75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121)

#: Every -arch value ptxas 13.0.88 accepts for code generation.
ALL_TARGETS = (
    "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a",
    "sm_100", "sm_100a", "sm_100f", "sm_103", "sm_103a", "sm_103f",
    "sm_110", "sm_110a", "sm_110f", "sm_120", "sm_120a", "sm_120f",
    "sm_121", "sm_121a", "sm_121f",
)  # fmt: skip


#: Facts of single SMs that differ from their family's.
_SM_OVERRIDES: dict[int, dict[str, int]] = {
    100: {"reserved_smem_size": 0x40, "reserved_smem_offset": 0x40},
    103: {"reserved_smem_size": 0x40, "reserved_smem_offset": 0x40},
    110: {"reserved_smem_size": 0xC0, "reserved_smem_offset": 0x40},
    120: {"reserved_smem_size": 0x40, "reserved_smem_offset": 0x40},
    121: {"reserved_smem_size": 0x40, "reserved_smem_offset": 0x40},
}


def family_of(sm: int) -> Family:
    if sm < 90:
        return Family.LEGACY
    if sm < 100:
        return Family.HOPPER
    return Family.BLACKWELL


@functools.cache
def facts(sm: int) -> ArchFacts:
    """The container facts for SM number ``sm`` (75, 90, 100, ...)."""
    return attrs.evolve(_FAMILY_FACTS[family_of(sm)], **_SM_OVERRIDES.get(sm, {}))  # type: ignore[arg-type]


_TARGET_RE = re.compile(r"^sm_(\d+)([af]?)$")


def parse_target(target: str) -> tuple[int, str]:
    """``"sm_90a"`` -> ``(90, "a")``; ModelError for anything ptxas would not accept."""
    m = _TARGET_RE.match(target)
    if not m or int(m.group(1)) not in KNOWN_SMS or target not in ALL_TARGETS:
        raise ModelError(f"unknown target {target!r}; ptxas 13.0.88 accepts {', '.join(ALL_TARGETS)}")
    return int(m.group(1)), m.group(2)
