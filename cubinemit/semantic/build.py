"""The builder: a :class:`Module` to cubin bytes.

The emitter lays down the structure; the builder fills the payloads that rules derive. Derived
so far: the two notes (options, target), .nv.compat. Pending (their rule sets are being
merged): .nv.info records, .nv.callgraph, parameter banks, Mercury clones. Until then
:func:`build` raises NotImplementedError rather than write a cubin it cannot vouch for.
"""

from __future__ import annotations

from ..elf.constants import NOTE_NAME_NVIDIA, NT_CUDA_CUINFO, NT_CUDA_TKINFO
from ..elf.model import ElfObject
from ..elf.structs import pack_note
from ..elf.writer import write
from ..nvinfo import compat_records, encode_compat, has_compat_section
from ..nvinfo.notes import CuInfo, PtxasOptions, TkInfo, encode_cuinfo, encode_tkinfo
from .emit import emit
from .model import Module


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
        obj.section(".nv.compat").data = encode_compat(compat_records(module.target, isa_class=isa_class))


def build_object(module: Module) -> ElfObject:
    """The ELFW object with every payload the builder derives so far filled in."""
    obj = emit(module)
    fill_notes(module, obj)
    fill_compat(module, obj)
    return obj


def build(module: Module) -> bytes:
    """The cubin ptxas would write for ``module``."""
    raise NotImplementedError(
        "building complete cubins needs the .nv.info, .nv.callgraph, bank and Mercury rules, which are not merged yet"
    )


__all__ = ["build", "build_object", "write"]
