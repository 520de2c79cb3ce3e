"""Descriptors of the ``.note.nv.tkinfo`` and ``.note.nv.cuinfo`` notes.

The container layer owns the ELF note header (name ``NVIDIA Corp``, n_type 2000 / 1000); this
module encodes and decodes the *desc* bytes, whose size (descsz) includes the zero padding to 4.

``.note.nv.tkinfo`` desc: six u32 (version 2, then offsets of object name, tool name, tool
version, tool branch and options within the string blob that starts at desc+24), then the
NUL-terminated strings in that field order, never shared (an empty options string gets its own
NUL), then zeros up to a multiple of 4. The object name is "" except under -g, where ptxas writes
the output basename (``elf.o`` without -o). The options string is ptxas's normalised command
line, which :class:`PtxasOptions` models.

``.note.nv.cuinfo`` desc: ``u16 2, u16 SM of the PTX .target (sm_100a -> 100), u32 130``.
"""

from __future__ import annotations

import struct
import types

import attrs

from ..elf.constants import NT_CUDA_TKINFO, SHT_NOTE
from ..elf.model import ElfObject, Section
from ..elf.structs import unpack_notes
from ..errors import CubinFormatError, ModelError, SectionFormatError

PTXAS_TOOL_NAME = "ptxas"
PTXAS_TOOL_VERSION = "Cuda compilation tools, release 13.0, V13.0.88"
PTXAS_TOOL_BRANCH = "Build cuda_13.0.r13.0/compiler.36424714_0"

# ptxas writes each explicitly given option as "-<name> <value> " (a flag has an empty value, so
# "-c  "), in this fixed order whatever the command-line order, long and short spellings alike.
# Measured with ptxas 13.0.88 by giving every documented option together and inserting the rest
# one at a time (tests/nvinfo/test_nvinfo_notes.py re-checks a selection). Options that exclude each
# other (-c/-astoolspatch/-ewp, -O/-Ofc with -O1..3, -g/-lineinfo is only a warning) share slots.
# (field, ptxas name, takes a value)
_OPTION_ORDER: tuple[tuple[str, str, bool], ...] = (
    ("suppress_stack_size_warning", "suppress-stack-size-warning", False),
    ("entries", "e", True),
    ("verbose", "v", False),
    ("warn_lmem_usage", "warn-lmem-usage", False),
    ("warn_spills", "warn-spills", False),
    ("warn_double_usage", "warn-double-usage", False),
    ("no_bb_merge", "no-bb-merge", False),
    ("ret_end", "ret-end", False),
    ("disable_optimizer_consts", "disable-optimizer-consts", False),
    ("maxrregcount", "maxrregcount", True),
    ("minnctapersm", "minnctapersm", True),
    ("maxntid", "maxntid", True),
    ("override_directive_values", "override-directive-values", False),
    ("func_maxrregcount", "func-maxrregcount", True),
    ("reg_usage_level", "regUsageLevel", True),
    ("debug", "g", False),
    ("suppress_debug_info", "suppress-debug-info", False),
    ("lineinfo", "lineinfo", False),
    ("sp_bounds_check", "sp-bounds-check", False),
    ("device_stack_protector", "device-stack-protector", True),
    ("opt_level", "O", True),
    ("fast_compile", "Ofc", True),
    ("output_name", "o", True),
    ("arch", "arch", True),
    ("suppress_double_demote_warning", "suppress-double-demote-warning", False),
    ("dlcm", "dlcm", True),
    ("dscm", "dscm", True),
    ("flcm", "flcm", True),
    ("fscm", "fscm", True),
    ("machine", "m", True),
    ("werror", "Werror", False),
    ("disable_warnings", "w", False),
    ("compile_only", "c", False),
    ("tools_patch", "astoolspatch", False),
    ("opt_fp_atomics", "opt-fp-atomics", False),
    ("preserve_relocs", "preserve-relocs", False),
    ("make_errors_visible_at_exit", "make-errors-visible-at-exit", False),
    ("legacy_bar_warp_wide_behavior", "legacy-bar-warp-wide-behavior", False),
    ("suppress_async_bulk_multicast_advisory_warning", "suppress-async-bulk-multicast-advisory-warning", False),
    ("suppress_sparse_mma_advisory_info", "suppress-sparse-mma-advisory-info", False),
    ("sanitize", "sanitize", True),
    ("split_compile", "split-compile", True),
    ("fmad", "fmad", True),
    ("allow_expensive_optimizations", "allow-expensive-optimizations", True),
    ("extensible_whole_program", "ewp", False),
    ("pic", "pic", True),
    ("tmem_access_check", "g-tmem-access-check", False),
    ("no_tmem_access_check", "gno-tmem-access-check", False),
    ("annotate", "annotate", False),
)
_BY_NAME = types.MappingProxyType({name: (field, valued) for field, name, valued in _OPTION_ORDER})

OptValue = int | str | None


def _value(v: OptValue) -> OptValue:
    """Option values are kept as given (int where ptxas takes a number, str otherwise)."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"option value must be int, str or None, not {v!r}")
    return v


def _flag(v: bool) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"flag option must be a bool, not {v!r}")
    return v


@attrs.frozen(repr=False)
class PtxasOptions:
    """The ptxas options a module was built with, as ``.note.nv.tkinfo`` records them.

    Only options given explicitly are recorded (ptxas writes ``-O 3`` when -O3 is passed, nothing
    when it is the default). Values are rendered with ``str()``: ``opt_level=3`` -> ``-O 3``,
    ``fmad="false"`` -> ``-fmad false``. ``input_name``/``output_name`` are basenames; ptxas
    writes them (``<in.ptx> ... -o <out> ``) only under -g.
    """

    input_name: str | None = None
    suppress_stack_size_warning: bool = attrs.field(default=False, converter=_flag)
    entries: OptValue = attrs.field(default=None, converter=_value)
    verbose: bool = attrs.field(default=False, converter=_flag)
    warn_lmem_usage: bool = attrs.field(default=False, converter=_flag)
    warn_spills: bool = attrs.field(default=False, converter=_flag)
    warn_double_usage: bool = attrs.field(default=False, converter=_flag)
    no_bb_merge: bool = attrs.field(default=False, converter=_flag)
    ret_end: bool = attrs.field(default=False, converter=_flag)
    disable_optimizer_consts: bool = attrs.field(default=False, converter=_flag)
    maxrregcount: OptValue = attrs.field(default=None, converter=_value)
    minnctapersm: OptValue = attrs.field(default=None, converter=_value)
    maxntid: OptValue = attrs.field(default=None, converter=_value)
    override_directive_values: bool = attrs.field(default=False, converter=_flag)
    func_maxrregcount: OptValue = attrs.field(default=None, converter=_value)
    reg_usage_level: OptValue = attrs.field(default=None, converter=_value)
    debug: bool = attrs.field(default=False, converter=_flag)
    suppress_debug_info: bool = attrs.field(default=False, converter=_flag)
    lineinfo: bool = attrs.field(default=False, converter=_flag)
    sp_bounds_check: bool = attrs.field(default=False, converter=_flag)
    device_stack_protector: OptValue = attrs.field(default=None, converter=_value)
    opt_level: OptValue = attrs.field(default=None, converter=_value)
    fast_compile: OptValue = attrs.field(default=None, converter=_value)
    output_name: str | None = None
    arch: str | None = None
    suppress_double_demote_warning: bool = attrs.field(default=False, converter=_flag)
    dlcm: OptValue = attrs.field(default=None, converter=_value)
    dscm: OptValue = attrs.field(default=None, converter=_value)
    flcm: OptValue = attrs.field(default=None, converter=_value)
    fscm: OptValue = attrs.field(default=None, converter=_value)
    machine: OptValue = attrs.field(default=None, converter=_value)
    werror: bool = attrs.field(default=False, converter=_flag)
    disable_warnings: bool = attrs.field(default=False, converter=_flag)
    compile_only: bool = attrs.field(default=False, converter=_flag)
    tools_patch: bool = attrs.field(default=False, converter=_flag)
    opt_fp_atomics: bool = attrs.field(default=False, converter=_flag)
    preserve_relocs: bool = attrs.field(default=False, converter=_flag)
    make_errors_visible_at_exit: bool = attrs.field(default=False, converter=_flag)
    legacy_bar_warp_wide_behavior: bool = attrs.field(default=False, converter=_flag)
    suppress_async_bulk_multicast_advisory_warning: bool = attrs.field(default=False, converter=_flag)
    suppress_sparse_mma_advisory_info: bool = attrs.field(default=False, converter=_flag)
    sanitize: OptValue = attrs.field(default=None, converter=_value)
    split_compile: OptValue = attrs.field(default=None, converter=_value)
    fmad: OptValue = attrs.field(default=None, converter=_value)
    allow_expensive_optimizations: OptValue = attrs.field(default=None, converter=_value)
    extensible_whole_program: bool = attrs.field(default=False, converter=_flag)
    pic: OptValue = attrs.field(default=None, converter=_value)
    tmem_access_check: bool = attrs.field(default=False, converter=_flag)
    no_tmem_access_check: bool = attrs.field(default=False, converter=_flag)
    annotate: bool = attrs.field(default=False, converter=_flag)

    def __repr__(self) -> str:
        given = [
            f"{f.name}={getattr(self, f.name)!r}"
            for f in attrs.fields(type(self))
            if getattr(self, f.name) != f.default
        ]
        return f"PtxasOptions({', '.join(given)})"

    def render(self) -> str:
        """The options string exactly as ptxas writes it into ``.note.nv.tkinfo``."""
        parts = [f"{self.input_name} "] if self.input_name is not None else []
        for field, name, valued in _OPTION_ORDER:
            value = getattr(self, field)
            if valued:
                if value is not None:
                    parts.append(f"-{name} {value} ")
            elif value:
                parts.append(f"-{name}  ")
        return "".join(parts)

    @classmethod
    def parse(cls, text: str) -> PtxasOptions:
        """Inverse of :meth:`render`; ValueError if ``text`` is not a string ptxas would write."""
        if text == "":
            return cls()
        if not text.endswith(" "):
            raise ValueError("options string does not end with a space")
        tokens = text[:-1].split(" ")
        kwargs: dict[str, object] = {}
        if not tokens[0].startswith("-"):
            kwargs["input_name"] = tokens.pop(0)
        if len(tokens) % 2:
            raise ValueError(f"odd number of option tokens in {text!r}")
        for i in range(0, len(tokens), 2):
            name, value = tokens[i], tokens[i + 1]
            if not name.startswith("-") or name[1:] not in _BY_NAME:
                raise ValueError(f"unknown option {name!r}")
            field, valued = _BY_NAME[name[1:]]
            if field in kwargs:
                raise ValueError(f"option {name} given twice")
            if valued:
                kwargs[field] = int(value) if value.isdigit() and field not in ("output_name", "arch") else value
            elif value:
                raise ValueError(f"flag {name} has a value {value!r}")
            else:
                kwargs[field] = True
        options = cls(**kwargs)  # type: ignore[arg-type]
        if options.render() != text:
            raise ValueError(f"options not in ptxas's canonical order: {text!r}")
        return options


@attrs.frozen
class TkInfo:
    """The ``.note.nv.tkinfo`` descriptor.

    ``options`` is a :class:`PtxasOptions`, or the raw string when it holds something the model
    does not know (it is then re-encoded verbatim).
    """

    options: PtxasOptions | str = attrs.field(factory=PtxasOptions)
    object_name: str = ""
    tool_name: str = PTXAS_TOOL_NAME
    tool_version: str = PTXAS_TOOL_VERSION
    tool_branch: str = PTXAS_TOOL_BRANCH
    version: int = 2

    @property
    def options_text(self) -> str:
        return self.options if isinstance(self.options, str) else self.options.render()

    @classmethod
    def for_ptxas(cls, options: PtxasOptions, *, output_basename: str = "elf.o") -> TkInfo:
        """What ptxas 13.0.88 writes: the object name is the output basename only under -g."""
        return cls(options=options, object_name=output_basename if options.debug else "")


def _pad4(n: int) -> int:
    return (n + 3) & ~3


def section_notes(section: Section, at: int | None = None) -> list[tuple[bytes, int, bytes]]:
    """The (name, type, desc) notes of a SHT_NOTE section; a CubinFormatError naming the
    section (and ``at``, its file offset, where known) where one runs past its end."""
    try:
        return unpack_notes(section.data)
    except ValueError as exc:
        raise CubinFormatError(str(exc), offset=at, where=f"section {section.name}") from None


def object_options(obj: ElfObject) -> PtxasOptions:
    """The options a cubin's ``.note.nv.tkinfo`` records (none given where it has no note)."""
    for s in obj.sections:
        if s.sh_type != SHT_NOTE:
            continue
        for _name, n_type, desc in section_notes(s):
            if n_type == NT_CUDA_TKINFO:
                info = decode_tkinfo(desc)
                if isinstance(info.options, PtxasOptions):
                    return info.options
                raise ModelError(f".note.nv.tkinfo options {info.options!r} are not a ptxas options string")
    return PtxasOptions()


def encode_tkinfo(info: TkInfo) -> bytes:
    """The desc bytes (padded with zeros to a multiple of 4)."""
    strings = (info.object_name, info.tool_name, info.tool_version, info.tool_branch, info.options_text)
    blob = bytearray()
    offsets = []
    for s in strings:
        if "\0" in s:
            raise ModelError(f".note.nv.tkinfo: string {s!r} contains NUL")
        offsets.append(len(blob))
        blob += s.encode() + b"\0"
    if not 0 <= info.version < 1 << 32:
        raise ModelError(f".note.nv.tkinfo: version {info.version!r} out of range")
    desc = struct.pack("<6I", info.version, *offsets) + bytes(blob)
    return desc + bytes(_pad4(len(desc)) - len(desc))


def decode_tkinfo(desc: bytes, *, where: str = ".note.nv.tkinfo") -> TkInfo:
    """Decode the desc; CubinFormatError if it is not laid out as ptxas lays it out."""
    if len(desc) < 24:
        raise SectionFormatError(f"desc of {len(desc)} bytes, the header alone needs 24", offset=0, where=where)
    version, *offsets = struct.unpack_from("<6I", desc)
    blob = desc[24:]
    strings = []
    pos = 0
    for i, off in enumerate(offsets):
        if off != pos:
            raise SectionFormatError(
                f"string {i} at blob offset {off}, ptxas would put it at {pos}", offset=4 + 4 * i, where=where
            )
        end = blob.find(b"\0", pos)
        if end < 0:
            raise SectionFormatError(f"string {i} is not NUL-terminated", offset=24 + pos, where=where)
        try:
            strings.append(blob[pos:end].decode())
        except UnicodeDecodeError as exc:
            raise SectionFormatError(f"string {i} is not UTF-8 ({exc})", offset=24 + pos, where=where) from None
        pos = end + 1
    if len(desc) != _pad4(24 + pos) or any(blob[pos:]):
        raise SectionFormatError(
            f"{len(desc) - 24 - pos} byte(s) after the strings; expected zero padding to a multiple of 4",
            offset=24 + pos,
            where=where,
        )
    object_name, tool_name, tool_version, tool_branch, text = strings
    options: PtxasOptions | str
    try:
        options = PtxasOptions.parse(text)
    except (ValueError, TypeError):
        options = text
    return TkInfo(options, object_name, tool_name, tool_version, tool_branch, version)


@attrs.frozen
class CuInfo:
    """The ``.note.nv.cuinfo`` descriptor: the SM of the PTX ``.target`` and fixed version words."""

    sm: int
    version: int = 2
    toolkit: int = 130  # CUDA 13.0; cuobjdump prints "CUDA Tool Kit Version: 13.0"


def encode_cuinfo(info: CuInfo) -> bytes:
    if not (0 <= info.sm < 1 << 16 and 0 <= info.version < 1 << 16 and 0 <= info.toolkit < 1 << 32):
        raise ModelError(f".note.nv.cuinfo: field out of range in {info!r}")
    return struct.pack("<HHI", info.version, info.sm, info.toolkit)


def decode_cuinfo(desc: bytes, *, where: str = ".note.nv.cuinfo") -> CuInfo:
    if len(desc) != 8:
        raise SectionFormatError(f"desc of {len(desc)} bytes, expected 8", offset=0, where=where)
    version, sm, toolkit = struct.unpack("<HHI", desc)
    return CuInfo(sm, version, toolkit)
