"""Describe a cubin for people and tools: the dump data, and what a file offset falls in."""

from __future__ import annotations

from typing import Any

import attrs

from .elf.constants import (
    NT_CUDA_CUINFO,
    NT_CUDA_TKINFO,
    SHT_CUDA_CALLGRAPH,
    SHT_CUDA_COMPAT,
    SHT_CUDA_INFO,
    SHT_NOTE,
    reloc_type_name,
    section_type_name,
)
from .elf.layout import Layout, layout
from .elf.model import ElfObject
from .errors import CubinFormatError
from .nvinfo import compat_record_to_json, decode_callgraph, decode_compat, decode_nvinfo, record_to_json
from .nvinfo.notes import section_notes


def _in_file(exc: CubinFormatError, section_offset: int) -> CubinFormatError:
    """Turn a decoder's section-relative error into one with a file offset."""
    if exc.in_section and exc.offset is not None:
        return CubinFormatError(exc.message, offset=section_offset + exc.offset, where=exc.where)
    return exc


def metadata(obj: ElfObject, lay: Layout) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any] | None]:
    """The decoded .nv.info / .nv.info.<f> / .nv.compat records (file order) and .nv.callgraph."""
    names = [""] + [s.name for s in lay.symbols]

    def symbol_name(index: int) -> str:
        if not 0 < index < len(names):
            raise LookupError(f"no symbol {index} (.symtab has {len(names) - 1})")
        return names[index]

    records: dict[str, list[dict[str, Any]]] = {}
    graph = None
    for s in lay.order:
        try:
            if s.sh_type == SHT_CUDA_INFO:
                records[s.name] = [record_to_json(r) for r in decode_nvinfo(s.data, section=s.name, symbol_name=symbol_name)]
            elif s.sh_type == SHT_CUDA_COMPAT:
                records[s.name] = [compat_record_to_json(r) for r in decode_compat(s.data, section=s.name)]
            elif s.sh_type == SHT_CUDA_CALLGRAPH and graph is None:
                graph = attrs.asdict(decode_callgraph(s.data, symbol_name=symbol_name, section=s.name))
        except CubinFormatError as exc:
            raise _in_file(exc, lay.offsets[id(s)]) from None
    return records, graph


def _decode_note_desc(n_type: int, desc: bytes) -> dict[str, Any]:
    """Readable fields of the two NVIDIA notes (the raw desc is always given too)."""
    if n_type == NT_CUDA_CUINFO and len(desc) >= 8:
        return {
            "version": int.from_bytes(desc[0:2], "little"),
            "ptx_target_sm": int.from_bytes(desc[2:4], "little"),
            "value": int.from_bytes(desc[4:8], "little"),
        }
    if n_type == NT_CUDA_TKINFO and len(desc) >= 24:
        words = [int.from_bytes(desc[i : i + 4], "little") for i in range(0, 24, 4)]
        blob = desc[24:]

        def string(off: int) -> str:
            if off >= len(blob):
                return ""
            end = blob.find(b"\0", off)
            return blob[off : end if end >= 0 else len(blob)].decode("utf-8", "replace")

        return {
            "version": words[0],
            "object_name": string(words[1]),
            "tool_name": string(words[2]),
            "tool_version": string(words[3]),
            "tool_branch": string(words[4]),
            "tool_options": string(words[5]),
        }
    return {}


def describe(obj: ElfObject, lay: Layout | None = None) -> dict[str, Any]:
    """The dump of ``obj`` as plain JSON-able data (what ``cubinemit dump --json`` prints)."""
    lay = lay or layout(obj)
    eh = lay.ehdr
    sections = []
    for i, (s, sh) in enumerate(zip(lay.order, lay.shdrs[1:]), start=1):
        sections.append(
            {
                "index": i,
                "name": s.name,
                "type": sh.sh_type,
                "type_name": section_type_name(sh.sh_type),
                "flags": sh.sh_flags,
                "offset": sh.sh_offset,
                "size": sh.sh_size,
                "link": sh.sh_link,
                "info": sh.sh_info,
                "addralign": sh.sh_addralign,
                "entsize": sh.sh_entsize,
            }
        )

    def sym_rows(symbols: list, index_of_section: dict[int, int]) -> list[dict[str, Any]]:
        rows = []
        for i, y in enumerate(symbols, start=1):
            rows.append(
                {
                    "index": i,
                    "name": y.name,
                    "bind": y.bind,
                    "type": y.type,
                    "other": y.other,
                    "section": y.section.name if y.section is not None else None,
                    "shndx": index_of_section[id(y.section)] if y.section is not None else y.shndx,
                    "value": y.value,
                    "size": y.size,
                }
            )
        return rows

    relocations = {}
    for s in lay.order:
        if s.relocs is None:
            continue
        relocations[s.name] = [
            {
                "offset": r.offset,
                "type": r.type,
                "type_name": reloc_type_name(r.type),
                "symbol": r.symbol.name if r.symbol is not None else None,
                "addend": r.addend,
            }
            for r in s.relocs
        ]
    notes: dict[str, list[dict[str, Any]]] = {}
    for s in lay.order:
        if s.sh_type != SHT_NOTE:
            continue
        parsed = section_notes(s, lay.offsets[id(s)])
        notes[s.name] = [
            {"name": name.rstrip(b"\0").decode("latin-1"), "type": n_type, "desc": desc.hex(), **_decode_note_desc(n_type, desc)}
            for name, n_type, desc in parsed
        ]
    nvinfo, callgraph = metadata(obj, lay)
    return {
        "header": {
            "type": eh.e_type,
            "machine": eh.e_machine,
            "sm": obj.sm,
            "flags": eh.e_flags,
            "osabi": eh.e_ident[7],
            "abiversion": eh.e_ident[8],
            "phoff": eh.e_phoff,
            "shoff": eh.e_shoff,
            "phentsize": eh.e_phentsize,
            "phnum": eh.e_phnum,
            "shnum": eh.e_shnum,
            "shstrndx": eh.e_shstrndx,
        },
        "sections": sections,
        "symbols": sym_rows(lay.symbols, lay.index),
        "merc_symbols": sym_rows(obj.merc_symbols, lay.index),
        "relocations": relocations,
        "notes": notes,
        "nvinfo": nvinfo,
        "callgraph": callgraph,
        "program_headers": [
            {"type": p.p_type, "flags": p.p_flags, "offset": p.p_offset, "filesz": p.p_filesz, "memsz": p.p_memsz, "align": p.p_align}
            for p in lay.phdrs
        ],
    }


def where_in(obj: ElfObject, offset: int, lay: Layout | None = None) -> str:
    """Name what file ``offset`` falls in: the ELF header, a header table, a section, padding."""
    lay = lay or layout(obj)
    eh = lay.ehdr
    if offset < 64:
        return "ELF header"
    shoff, shnum = eh.e_shoff, len(lay.shdrs)
    if shoff <= offset < shoff + 64 * shnum:
        i = (offset - shoff) // 64
        name = lay.order[i - 1].name if i else "NULL"
        return f"section header [{i}] {name}"
    if eh.e_phnum and eh.e_phoff <= offset < eh.e_phoff + 56 * eh.e_phnum:
        return f"program header [{(offset - eh.e_phoff) // 56}]"
    best = None
    for i, s in enumerate(lay.order, start=1):
        start = lay.offsets[id(s)]
        size = 0 if s.nobits else len(lay.contents.get(id(s), s.data))
        if start <= offset < start + size:
            return f"section [{i}] {s.name}"
        if start + size <= offset and (best is None or start + size >= best[0]):
            best = (start + size, i, s.name)
    if best is not None:
        return f"padding after section [{best[1]}] {best[2]}"
    return "padding"
