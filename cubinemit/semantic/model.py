"""Leaf data of a cubin: what a compiler backend knows, nothing a rule derives.

No section indices, order or offsets, no string tables, no symbol indices, no raw .nv.info,
.nv.compat, .nv.callgraph, .nv.prototype or note bytes, no Mercury clones: the builder derives
all of those. Everything is referenced by name.
"""

from __future__ import annotations

import attrs

from ..arch import parse_target
from ..errors import ModelError

SPEC_VERSION = 1

LINKAGES = ("visible", "weak", "static", "extern", "builtin")
SPACES = ("global", "const", "shared", "local")


def _check_linkage(_inst: object, attr: attrs.Attribute, value: str) -> None:  # type: ignore[type-arg]
    if value not in LINKAGES:
        raise ModelError(f"{attr.name} {value!r} is not one of {', '.join(LINKAGES)}")


@attrs.define
class Relocation:
    """A relocation a backend emits: where, what kind, against which symbol (by name).
    ``addend`` None means the REL form (no addend field)."""

    offset: int
    type: int
    symbol: str | None
    addend: int | None = 0


@attrs.define
class Function:
    """A kernel or device function in PTX declaration order."""

    name: str
    is_kernel: bool = False
    linkage: str = attrs.field(default="visible", validator=_check_linkage)
    #: the SASS bytes of its .text (whole program: with the inlined callees' copies)
    sass: bytes = b""
    #: registers per thread (EIATTR_REGCOUNT; below sm_90 also in .text's sh_info)
    registers: int = 0
    relocations: list[Relocation] = attrs.field(factory=list)
    #: whole program: where each callee copy sits in this .text (name, offset, size)
    inlined: list[tuple[str, int, int]] = attrs.field(factory=list)
    #: compiler constants of .nv.constant2.<f> (jump and address tables, FP64 literals)
    constants: bytes = b""
    constant_relocations: list[Relocation] = attrs.field(factory=list)
    #: sm_100+: the Mercury capsule of this function (.nv.capmerc.text.<f>)
    capsule: bytes = b""
    #: sm_100+: where the function and its inlined copies sit in the capsule's code
    #: (name, value, size), as .nv.merc.symtab records them
    capsule_symbols: list[tuple[str, int, int]] = attrs.field(factory=list)
    #: the per-function facts of .nv.info.<f> a compiler knows (cubinemit.nvinfo facts)
    facts: dict[str, object] = attrs.field(factory=dict)
    #: direct callees in order of first call site (externs and builtins included)
    calls: list[str] = attrs.field(factory=list)
    #: every taking of a function's address, in order (cubinemit.funcorder.PtxFunction)
    address_taken: list[str] = attrs.field(factory=list)
    has_indirect_call: bool = False
    #: PTX parameter and return types, [type, count or None] (for .nv.prototype signatures)
    params: list[list[object]] = attrs.field(factory=list)
    returns: list[list[object]] = attrs.field(factory=list)


@attrs.define
class DataObject:
    """A variable: module-scope .global/.const/.shared, or function-scope shared/local."""

    name: str
    space: str
    size: int
    align: int = 1
    init: bytes | None = None
    linkage: str = attrs.field(default="visible", validator=_check_linkage)
    #: functions that use it (shared-memory allocation needs the users)
    users: list[str] = attrs.field(factory=list)


@attrs.define
class DebugSection:
    """A DWARF or NVIDIA debug payload (.debug_*, .nv_debug_*) and its relocations."""

    name: str
    data: bytes
    relocations: list[Relocation] = attrs.field(factory=list)


@attrs.define
class Module:
    """One PTX module compiled by ptxas 13.0.88 for one target."""

    target: str
    #: the ptxas options it was built with (cubinemit.nvinfo.PtxasOptions as a dict)
    options: dict[str, object] = attrs.field(factory=dict)
    #: the SM of the PTX `.target` (recorded in .note.nv.cuinfo)
    ptx_target: int = 75
    functions: list[Function] = attrs.field(factory=list)
    data: list[DataObject] = attrs.field(factory=list)
    debug: list[DebugSection] = attrs.field(factory=list)
    #: module-level facts of .nv.info a compiler knows (samplers, texture modes...)
    facts: dict[str, object] = attrs.field(factory=dict)

    def __attrs_post_init__(self) -> None:
        parse_target(self.target)
        names = [f.name for f in self.functions]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ModelError(f"function {sorted(dup)[0]!r} is defined twice")

    @property
    def sm(self) -> int:
        return parse_target(self.target)[0]

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise ModelError(f"no function named {name!r}")

    def rename_function(self, old: str, new: str) -> None:
        """Rename a function and every reference to it (relocations, users, inlined copies)."""
        if any(f.name == new for f in self.functions):
            raise ModelError(f"cannot rename {old!r} to {new!r}: {new!r} exists")
        self.function(old).name = new
        for f in self.functions:
            for r in [*f.relocations, *f.constant_relocations]:
                if r.symbol == old:
                    r.symbol = new
            f.inlined = [(new if n == old else n, o, s) for n, o, s in f.inlined]
        for d in self.data:
            d.users = [new if u == old else u for u in d.users]
        for dbg in self.debug:
            for r in dbg.relocations:
                if r.symbol == old:
                    r.symbol = new
