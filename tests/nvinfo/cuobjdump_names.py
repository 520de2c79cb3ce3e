"""Read attribute names off NVIDIA cuobjdump by patching the code byte of a record in a real cubin.

This is how the names in ``cubinemit/nvinfo/catalogue.py`` were obtained. Run it as a script to
print the whole table again::

    PYTHONPATH=. python tests/nvinfo/cuobjdump_names.py

cuobjdump decodes each record by its own format byte and prints ``unknown Attribute`` for codes
it has no name for. In ``.nv.compat`` it insists on a valid CUDA_ACCELERATOR_TARGET record
("Invalid ELF" otherwise), so the code patched there is that of the last (SVAL) record.
"""

from __future__ import annotations

import struct
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from elftools.elf.elffile import ELFFile

sys.path.insert(0, str(Path(__file__).parent))

import nvinfo_oracle as oracle

from cubinemit import toolchain


def _section_offset(cubin: Path, name: str) -> tuple[int, int]:
    with cubin.open("rb") as fh:
        sec = ELFFile(fh).get_section_by_name(name)
        assert sec is not None, name
        return sec["sh_offset"], sec["sh_size"]


def _last_record_offset(data: bytes) -> int:
    pos = last = 0
    while pos < len(data):
        last = pos
        pos += 4 + (struct.unpack_from("<H", data, pos + 2)[0] if data[pos] == 4 else 0)
    return last


def _index_of(data: bytes, record_offset: int) -> int:
    pos = idx = 0
    while pos < record_offset:
        pos += 4 + (struct.unpack_from("<H", data, pos + 2)[0] if data[pos] == 4 else 0)
        idx += 1
    return idx


def _names_for(cubin: Path, section: str, record_offset: int, codes: Iterable[int], workdir: Path) -> dict[int, str]:
    data = bytearray(cubin.read_bytes())
    sec_off, _ = _section_offset(cubin, section)
    out: dict[int, str] = {}
    for code in codes:
        patched = bytearray(data)
        patched[sec_off + record_offset + 1] = code
        # Value printers that read a symbol index out of the payload would fault on 0x82.
        patched[sec_off + record_offset + 4 : sec_off + record_offset + 8] = bytes(4)
        path = workdir / f"patched_{code:02x}.cubin"
        path.write_bytes(bytes(patched))
        text = oracle.cuobjdump_elf(path, check=False)
        records = oracle.cuobjdump_records(text)[section]
        if record_offset == 0:
            out[code] = records[0][0]
        else:  # the patched record is the one cuobjdump listed at the same position
            out[code] = records[_index_of(bytes(data[sec_off:]), record_offset)][0]
    return out


def template_cubin(workdir: Path) -> Path:
    """A small sm_90 cubin: its ``.nv.info.k_wmma`` starts with CUDA_API_VERSION (SVAL)."""
    return oracle.compile_probe(oracle.PROBES / "wmma.ptx", "sm_90", "default", workdir)


def eiattr_names(codes: Iterable[int], workdir: Path) -> dict[int, str]:
    cubin = template_cubin(workdir)
    return _names_for(cubin, ".nv.info.k_wmma", 0, codes, workdir)


def compat_names(codes: Iterable[int], workdir: Path) -> dict[int, str]:
    cubin = template_cubin(workdir)
    off, size = _section_offset(cubin, ".nv.compat")
    last = _last_record_offset(cubin.read_bytes()[off : off + size])
    return _names_for(cubin, ".nv.compat", last, codes, workdir)


def main() -> None:
    toolchain.cuobjdump()
    with tempfile.TemporaryDirectory() as tmp:
        for code, name in eiattr_names(range(0x70), Path(tmp)).items():
            print(f"{code:#04x} {name}")
        for code, name in compat_names(range(0x10), Path(tmp)).items():
            print(f"compat {code:#04x} {name}")


if __name__ == "__main__":
    main()
