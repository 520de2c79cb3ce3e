"""Serialise a laid-out ELFW object. Gap bytes are zero, as in every ptxas cubin."""

from __future__ import annotations

from ..errors import ModelError
from .layout import Layout, layout
from .model import ElfObject

#: the largest file written: ptxas pads a section to its alignment in the file too (a
#: .global of .align 1048576 makes a 1 MiB cubin), and an alignment or size of 2**40 from a
#: hand-written spec would ask for a terabyte
MAX_FILE_SIZE = 1 << 32


def write(obj: ElfObject, lay: Layout | None = None) -> bytes:
    """The cubin bytes of ``obj``."""
    lay = lay or layout(obj)
    if lay.file_size > MAX_FILE_SIZE:
        big = max(lay.order, key=lambda s: (s.addralign, 0 if s.nobits else len(s.data)))
        raise ModelError(f"the file would be {lay.file_size:#x} bytes, more than {MAX_FILE_SIZE:#x} (section {big.name}: alignment {big.addralign:#x})")
    out = bytearray(lay.file_size)
    out[0 : len(lay.ehdr.pack())] = lay.ehdr.pack()
    for s in lay.order:
        if s.nobits:
            continue
        data = lay.contents.get(id(s), s.data)
        off = lay.offsets[id(s)]
        out[off : off + len(data)] = data
    shoff = lay.ehdr.e_shoff
    for i, shdr in enumerate(lay.shdrs):
        out[shoff + 64 * i : shoff + 64 * (i + 1)] = shdr.pack()
    for i, phdr in enumerate(lay.phdrs):
        off = lay.ehdr.e_phoff + 56 * i
        out[off : off + 56] = phdr.pack()
    if obj.quirks.file_size is not None:
        out = out[: obj.quirks.file_size] + bytes(max(0, obj.quirks.file_size - len(out)))
    for off, blob in obj.quirks.overlay or ():
        if off + len(blob) > len(out):
            out += bytes(off + len(blob) - len(out))
        out[off : off + len(blob)] = blob
    return bytes(out)
