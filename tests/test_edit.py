"""The container regenerates its tables: edit the model, and every index, offset and string
follows. NVIDIA's own decoders must accept the result."""

from __future__ import annotations

import subprocess

from cubinemit import toolchain
from cubinemit.elf.writer import write
from cubinemit.reader import read_cubin


def _decoders_accept(path) -> None:
    for tool, args in ((toolchain.nvdisasm(), []), (toolchain.cuobjdump(), ["-elf"])):
        proc = subprocess.run([str(tool), *args, str(path)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert "unknown" not in proc.stdout.lower()


def test_renaming_a_variable_regenerates_strtab_and_offsets(cubin, tmp_path):
    from elftools.elf.elffile import ELFFile

    data = cubin("global_vars", "sm_90", "def")
    obj = read_cubin(data)
    var = next(s for s in obj.symbols if s.type == 1 and s.name)
    old = var.name
    var.name_slot.text = old + "_renamed_with_a_much_longer_name"
    out = tmp_path / "edited.cubin"
    out.write_bytes(write(obj))
    before = ELFFile(open(_write(tmp_path / "orig.cubin", data), "rb"))
    after = ELFFile(open(out, "rb"))
    names_before = [s.name for s in before.get_section_by_name(".symtab").iter_symbols()]
    names_after = [s.name for s in after.get_section_by_name(".symtab").iter_symbols()]
    assert names_after == [n + "_renamed_with_a_much_longer_name" if n == old else n for n in names_before]
    assert [s.name for s in after.iter_sections()] == [s.name for s in before.iter_sections()]
    grown = after.get_section_by_name(".strtab")["sh_size"] - before.get_section_by_name(".strtab")["sh_size"]
    assert grown == len("_renamed_with_a_much_longer_name")
    for a, b in zip(before.iter_sections(), after.iter_sections()):
        assert a.data() == b.data() or a.name in (".strtab", ".symtab")
    _decoders_accept(out)


def test_growing_a_payload_moves_what_follows(cubin, tmp_path):
    data = cubin("kernels_three", "sm_100a", "def")
    obj = read_cubin(data)
    info = next(s for s in obj.sections if s.name == ".nv.info")
    info.data += bytes.fromhex("01 2b 00 00")  # one more record: EIATTR_WMMA_USED (NVAL)
    out = tmp_path / "grown.cubin"
    out.write_bytes(write(obj))
    again = read_cubin(out.read_bytes())
    assert again.quirks.used(again.sections) == []  # still laid out by the rules alone
    assert next(s for s in again.sections if s.name == ".nv.info").data == info.data
    _decoders_accept(out)


def _write(path, data):
    path.write_bytes(data)
    return path
