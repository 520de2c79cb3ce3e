"""Test helpers: compile the PTX probes with ptxas 13.0.88, read cubins with pyelftools, parse
``cuobjdump -elf`` 13.2.51 output. Nothing here is used by the library itself."""

from __future__ import annotations

import re
import struct
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from elftools.elf.elffile import ELFFile

from cubinemit import toolchain

PROBES = Path(__file__).parent / "probes"

#: Targets the round-trip tests cover (the brief's list).
TEST_ARCHS = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_103", "sm_110a", "sm_120")
#: Targets the SM-gating table is checked on.
GATING_ARCHS = (
    "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103", "sm_110a", "sm_120", "sm_121",
)  # fmt: skip
#: ptxas options per mode name (a probe's ``// modes:`` header picks among them).
MODES: dict[str, tuple[str, ...]] = {
    "default": (),
    "c": ("-c",),
    "g": ("-g",),
    "ewp": ("-ewp",),
    "memcheck": ("-sanitize=memcheck",),
    "toolspatch": ("-astoolspatch",),
}


def arch_number(arch: str) -> int:
    return int(re.match(r"sm_(\d+)", arch).group(1))  # type: ignore[union-attr]


def _header(probe: Path, key: str, default: str) -> str:
    for line in probe.read_text().splitlines():
        if line.startswith(f"// {key}:"):
            return line.split(":", 1)[1].strip()
    return default


def _archs_spec(probe: Path) -> str:
    return _header(probe, "archs", "all")


def probe_modes(probe: Path) -> tuple[str, ...]:
    """The ``// modes:`` header of a probe (default: default, -c, -g)."""
    return tuple(_header(probe, "modes", "default c g").split())


def probe_jobs(archs: tuple[str, ...]) -> list[tuple[Path, str, str]]:
    """(probe, arch, mode) for every probe, target and mode it supports."""
    return [
        (p, a, m) for p in sorted(PROBES.glob("*.ptx")) for a in archs if probe_supports(p, a) for m in probe_modes(p)
    ]


def probe_supports(probe: Path, arch: str) -> bool:
    """The ``// archs:`` header of a probe: ``all``, ``sm_80+`` (any variant) or an explicit list."""
    spec = _archs_spec(probe)
    if spec == "all":
        return True
    if spec.endswith("+"):
        return arch_number(arch) >= arch_number(spec[:-1])
    return arch in spec.split()


def compile_probe(probe: Path, arch: str, mode: str, outdir: Path, extra: tuple[str, ...] = ()) -> Path:
    """ptxas ``probe`` for ``arch`` in ``mode``; returns the cubin path."""
    tag = "_".join([probe.stem, arch, mode, *[e.strip("-=").replace("=", "") for e in extra]])
    ptx = outdir / f"{tag}.ptx"
    ptx.write_text(probe.read_text().replace("@TARGET@", arch))
    out = outdir / f"{tag}.cubin"
    toolchain.run_ptxas(["-arch", arch, *MODES[mode], *extra, str(ptx), "-o", str(out)])
    return out


def compile_many(jobs: list[tuple[Path, str, str]], outdir: Path, workers: int = 4) -> dict[tuple[str, str, str], Path]:
    with ThreadPoolExecutor(workers) as pool:
        futs = {(p.stem, a, m): pool.submit(compile_probe, p, a, m, outdir) for p, a, m in jobs}
        return {k: f.result() for k, f in futs.items()}


@dataclass
class Cubin:
    """What the tests need from one cubin: raw section bytes by name and symbol names by index."""

    path: Path
    sections: dict[str, bytes] = field(default_factory=dict)
    section_types: dict[str, int] = field(default_factory=dict)
    symbols: list[str] = field(default_factory=list)
    symbol_other: list[int] = field(default_factory=list)
    symbol_shndx: list[int] = field(default_factory=list)
    notes: dict[str, bytes] = field(default_factory=dict)  # section name -> desc bytes (descsz incl. padding)
    strtab: bytes = b""

    def symbol_name(self, index: int) -> str:
        if not 0 <= index < len(self.symbols):
            raise IndexError(f"symbol index {index} out of range (symtab has {len(self.symbols)})")
        return self.symbols[index]

    def symbol_index(self, name: str) -> int:
        return self.symbols.index(name)

    def strtab_string(self, offset: int) -> str:
        if not 0 <= offset < len(self.strtab):
            raise IndexError(f".strtab offset {offset} out of range")
        return self.strtab[offset : self.strtab.index(b"\0", offset)].decode()

    def metadata_sections(self) -> list[str]:
        return [n for n in self.sections if n == ".nv.compat" or n == ".nv.info" or n.startswith(".nv.info.")]


def read_cubin(path: Path) -> Cubin:
    data = path.read_bytes()
    cub = Cubin(path)
    with path.open("rb") as fh:
        elf = ELFFile(fh)
        for sec in elf.iter_sections():
            cub.section_types[sec.name] = sec["sh_type"] if isinstance(sec["sh_type"], int) else 0
            raw = data[sec["sh_offset"] : sec["sh_offset"] + sec["sh_size"]] if sec["sh_type"] != "SHT_NOBITS" else b""
            cub.sections[sec.name] = raw
            if sec.name == ".strtab":
                cub.strtab = raw
        symtab = elf.get_section_by_name(".symtab")
        # Raw entries: pyelftools does not expose st_other bits beyond visibility.
        sraw = cub.sections[".symtab"]
        for i in range(len(sraw) // 24):
            st_name, _info, st_other, st_shndx = struct.unpack_from("<IBBH", sraw, 24 * i)
            cub.symbols.append(cub.strtab_string(st_name) if st_name else "")
            cub.symbol_other.append(st_other)
            cub.symbol_shndx.append(st_shndx)
        assert symtab is not None and symtab.num_symbols() == len(cub.symbols)
    for name in (".note.nv.tkinfo", ".note.nv.cuinfo"):
        note = cub.sections.get(name)
        if note:
            namesz, descsz, _ntype = struct.unpack_from("<III", note)
            start = 12 + ((namesz + 3) & ~3)
            cub.notes[name] = note[start : start + descsz]
    return cub


def cuobjdump_elf(path: Path, *, check: bool = True) -> str:
    """stdout of ``cuobjdump -elf``; with ``check=False`` also what it printed before failing."""
    proc = subprocess.run(
        [str(toolchain.cuobjdump()), "-elf", str(path)], check=False, capture_output=True, text=True, timeout=60
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"cuobjdump -elf {path} failed: {proc.stderr}")
    return proc.stdout


def cuobjdump_entries(text: str) -> dict[str, list[tuple[str, str, str]]]:
    """(attribute, format, value text with whitespace collapsed) per ``.nv.info*``/``.nv.compat``
    section of ``cuobjdump -elf`` output; the value text is "" for records without a Value."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    current: list[tuple[str, str, str]] | None = None
    attr: str | None = None
    fmt: str | None = None
    value: list[str] = []

    def flush() -> None:
        nonlocal attr, fmt, value
        if current is not None and attr is not None and fmt is not None:
            current.append((attr, fmt, " ".join(" ".join(value).split())))
        attr, fmt, value = None, None, []

    for line in text.splitlines():
        if line and not line[0].isspace():
            flush()
            name = line.strip()
            is_meta = name in (".nv.info", ".nv.compat") or name.startswith(".nv.info.")
            current = out.setdefault(name, []) if is_meta else None
            continue
        if current is None:
            continue
        if re.fullmatch(r"\t<0x[0-9a-f]+>", line):
            flush()
        elif line.startswith("\tAttribute:"):
            attr = line.split("\t")[-1]
        elif line.startswith("\tFormat:"):
            fmt = line.split("\t")[-1]
        elif line.startswith("\tValue:"):
            value.append(line[len("\tValue:") :])
        elif fmt is not None:
            value.append(line)
    flush()
    return out


def cuobjdump_records(text: str) -> dict[str, list[tuple[str, str]]]:
    """(attribute name, format name) per ``.nv.info*`` / ``.nv.compat`` section of ``cuobjdump -elf``."""
    return {sec: [(a, f) for a, f, _ in recs] for sec, recs in cuobjdump_entries(text).items()}


SymbolName = Callable[[int], str]
