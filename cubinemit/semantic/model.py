"""Leaf data of a cubin: what a compiler backend knows, nothing a rule derives.

No section indices, order or offsets, no string tables, no symbol indices, no raw .nv.info,
.nv.compat, .nv.callgraph, .nv.prototype or note bytes, no Mercury clones: the builder derives
all of those. Everything is referenced by name.
"""

from __future__ import annotations

import attrs

from typing import TYPE_CHECKING

from ..arch import parse_target
from ..errors import ModelError

if TYPE_CHECKING:
    from ..funcorder import Mode

SPEC_VERSION = 1

LINKAGES = ("visible", "weak", "static", "extern", "builtin")
SPACES = ("global", "const", "shared", "local", "tex", "surf", "sampler")


def _renamed(value: object, old: str, new: str) -> object:
    """``value`` with the function name ``old`` replaced by ``new`` wherever it names it: a whole
    string, or one part of a whole-program copy's ``$kernel$callee``."""
    if isinstance(value, str):
        if value == old:
            return new
        if value.startswith("$") and value.count("$") >= 2:
            kernel, callee = value[1:].split("$", 1)
            return f"${new if kernel == old else kernel}${new if callee == old else callee}"
        return value
    if isinstance(value, dict):
        return {_renamed(k, old, new): _renamed(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, old, new) for v in value]
    if isinstance(value, tuple):
        return tuple(_renamed(v, old, new) for v in value)
    return value


def _prune_frame(frame: DebugSection, gone: set[str], module: Module) -> None:
    """Drop the .debug_frame entries of removed functions: each FDE whose initial location is
    relocated against one, and every CIE left without an FDE. The kept entries move up, their
    CIE pointers (data in executables, the .debug_frame relocation's addend in relocatable
    output) and relocation offsets follow, and the Mercury facts keyed by FDE ordinal too."""
    data = frame.data
    entries = []  # (offset, size, is_cie, cie_pointer)
    pos = 0
    while pos + 12 <= len(data):
        if int.from_bytes(data[pos : pos + 4], "little") != 0xFFFFFFFF:
            raise ModelError(f".debug_frame: entry at {pos:#x} is not 64-bit DWARF")
        length = int.from_bytes(data[pos + 4 : pos + 12], "little")
        pointer = int.from_bytes(data[pos + 12 : pos + 20], "little")
        entries.append((pos, 12 + length, pointer == 0xFFFFFFFFFFFFFFFF, pointer))
        pos += 12 + length
    owner: dict[int, str | None] = {}
    cie_reloc: dict[int, Relocation] = {}
    for r in frame.relocations:
        for off, size, is_cie, _ in entries:
            if not is_cie and off + 20 <= r.offset < off + 28 and r.type == 2:
                owner[off] = r.symbol
            if not is_cie and r.offset == off + 12 and r.symbol == ".debug_frame":
                cie_reloc[off] = r
    # relocatable output: a CIE pointer is the addend of a relocation against .debug_frame
    # (the REL one of the first FDE keeps it in the data: 0). ptxas does not always write the
    # CIE's offset there (sm_90+ -c: each CIE+FDE pair counts rounded up to 16 bytes), but the
    # pointers rise with the CIEs: the n-th smallest names the n-th CIE
    def pointer_of(r: Relocation) -> int:
        return r.addend if r.addend is not None else 0

    steps = sorted({pointer_of(r) for r in cie_reloc.values()})
    cies = [off for off, _, is_cie, _ in entries if is_cie]
    if cie_reloc and len(steps) != len(cies):
        raise ModelError(f".debug_frame: {len(steps)} CIE pointers for {len(cies)} CIEs")
    cie_at = dict(zip(steps, cies))
    cie_of: dict[int, int] = {}
    for off, size, is_cie, pointer in entries:
        if not is_cie:
            cie_of[off] = cie_at[pointer_of(cie_reloc[off])] if off in cie_reloc else pointer
    kept_fdes = [off for off, _, is_cie, _ in entries if not is_cie and owner.get(off) not in gone]
    live_cies = {cie_of[off] for off in kept_fdes}
    keep = [e for e in entries if (e[2] and e[0] in live_cies) or (not e[2] and e[0] in kept_fdes)]
    moved, out = {}, bytearray()
    for off, size, _, _ in keep:
        moved[off] = len(out)
        out += data[off : off + size]
    for off, _, is_cie, _ in keep:
        if not is_cie and off not in cie_reloc:  # executables store the CIE offset itself
            new = moved[off]
            out[new + 12 : new + 20] = moved[cie_of[off]].to_bytes(8, "little")
    # the kept CIE pointers keep the spacing they had: a kept CIE's new pointer is the sum of
    # the pointer steps of the kept CIEs before it
    step_of = {a: (steps[i + 1] - a if i + 1 < len(steps) else 0) for i, a in enumerate(steps)}
    kept_steps = [a for a in steps if cie_at[a] in live_cies]
    new_pointer = {a: sum(step_of[b] for b in kept_steps if b < a) for a in kept_steps}
    zero_is_rel = any(r.addend is None for r in cie_reloc.values())
    relocs = []
    for r in frame.relocations:
        base = next((off for off, size, _, _ in keep if off <= r.offset < off + size), None)
        if base is None:
            continue
        addend = new_pointer[r.addend] if r in cie_reloc.values() and r.addend is not None else r.addend
        if r in cie_reloc.values() and addend == 0 and zero_is_rel:
            # below sm_90 ptxas writes the pointer to the first CIE as REL (0 in the data)
            addend = None
        relocs.append(Relocation(moved[base] + r.offset - base, r.type, r.symbol, addend))
    frame.data, frame.relocations = bytes(out), relocs
    ordinal = {old: new for new, old in enumerate(off for off, _, is_cie, _ in keep if not is_cie)}
    fde_ordinal = {k: ordinal.get(off) for k, off in enumerate(off for off, _, is_cie, _ in entries if not is_cie)}
    merc = module.facts.get("mercury")
    if isinstance(merc, dict):
        for key in ("cfa", "fde_ranges"):
            table = merc.get(key)
            if isinstance(table, dict) and "$map" in table:
                table["$map"] = [[fde_ordinal[k], v] for k, v in table["$map"] if fde_ordinal.get(k) is not None]


def _without(value: object, names: set[str]) -> object:
    """``value`` without the entries that name a removed function: call-graph edges and marks
    (dicts whose string fields name one), map entries keyed by one."""
    if isinstance(value, dict):
        if "$map" in value:  # tagged JSON map: drop pairs keyed by a removed function
            return {"$map": [[k, _without(v, names)] for k, v in value["$map"] if k not in names]}
        if any(isinstance(v, str) and v in names for v in value.values()):
            return None
        return {k: _without(v, names) for k, v in value.items()}
    if isinstance(value, list):
        kept = [_without(v, names) for v in value]
        return [v for v in kept if v is not None and not (isinstance(v, str) and v in names)]
    return value


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
    #: PTX parameter and return types, [type, count or None] (for .nv.prototype signatures
    #: and the signatures of address-taken functions)
    params: list[list[object]] = attrs.field(factory=list)
    returns: list[list[object]] = attrs.field(factory=list)
    #: the .callprototype signature of each indirect call, in code order (``#iii``: the
    #: cubinemit.funcorder.signature form)
    call_prototypes: list[str] = attrs.field(factory=list)


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
    #: relocations inside the initialiser (offset from the variable's first byte), e.g. the
    #: address of another variable in ``generic(v)``
    relocations: list[Relocation] = attrs.field(factory=list)
    #: the function whose body declares it (function-scope ``.shared``); None at module scope
    scope: str | None = None
    #: ``.attribute(.managed)`` (``__managed__``): st_other bit 0x04 in every mode
    managed: bool = False


@attrs.define
class DebugSection:
    """A DWARF or NVIDIA debug payload (.debug_*, .nv_debug_*) and its relocations."""

    name: str
    data: bytes
    relocations: list[Relocation] = attrs.field(factory=list)
    #: PTX labels the payload refers to that ptxas could not place in the code (nvcc -G
    #: location lists naming a label optimized away): ptxas names each as an undefined local
    #: symbol and drops the relocation
    labels: list[str] = attrs.field(factory=list)


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

    @property
    def device_debug(self) -> bool:
        """-g, or PTX that says ``.target sm_XX, debug`` (nvcc -G): ptxas builds the same
        debug layout for both (fact ``ptx_debug``; the options note only records -g)."""
        return bool(self.options.get("debug")) or bool(self.facts.get("ptx_debug"))

    def ordering_mode(self) -> Mode:
        """The build mode as the function-order rules see it (-c, -g, -O level)."""
        from ..funcorder import Mode

        opt = self.options.get("opt_level")
        return Mode(
            relocatable=bool(self.options.get("compile_only")),
            debug=bool(self.options.get("debug")),
            opt_level=int(opt) if opt is not None else 3,  # type: ignore[call-overload]
            ptx_debug=bool(self.facts.get("ptx_debug")),
        )

    # --- the fixed API -------------------------------------------------------------------------
    @classmethod
    def from_cubin(cls, data: bytes) -> Module:
        """The leaf data of a ptxas cubin (CubinFormatError if malformed; NotImplementedError
        names what the semantic level does not model yet)."""
        from ..reader import read_cubin
        from .decompose import decompose

        return decompose(read_cubin(data, quirks=False))

    def to_cubin(self) -> bytes:
        """The cubin ptxas 13.0.88 writes for this module."""
        from .build import build

        return build(self)

    def to_spec(self) -> dict[str, object]:
        """The versioned JSON form (cubinemit.semantic.spec)."""
        from .spec import to_spec

        return to_spec(self)

    @classmethod
    def from_spec(cls, obj: dict[str, object]) -> Module:
        from .spec import from_spec

        return from_spec(obj)

    # --- builder methods ----------------------------------------------------------------------
    def add_kernel(self, name: str, sass: bytes, **fields: object) -> Function:
        """Append a kernel (``.entry``) in declaration order; ``fields`` are further
        :class:`Function` fields (relocations, facts, calls...)."""
        return self._add_function(Function(name, is_kernel=True, sass=sass, **fields))  # type: ignore[arg-type]

    def add_function(self, name: str, sass: bytes = b"", *, linkage: str = "static", **fields: object) -> Function:
        """Append a device function (``.func``); ``linkage="extern"`` declares one defined
        elsewhere (no SASS)."""
        return self._add_function(Function(name, linkage=linkage, sass=sass, **fields))  # type: ignore[arg-type]

    def _add_function(self, fn: Function) -> Function:
        if any(f.name == fn.name for f in self.functions):
            raise ModelError(f"function {fn.name!r} is defined twice")
        self.functions.append(fn)
        return fn

    def add_global(self, name: str, size: int, *, align: int = 1, init: bytes | None = None, visible: bool = False, relocations: list[Relocation] | None = None) -> DataObject:
        """Append a module ``.global`` variable (``init`` None: uninitialised, in .nv.global)."""
        return self._add_data(DataObject(name, "global", size, align, init, "visible" if visible else "static", relocations=list(relocations or ())))

    def add_constant(self, name: str, size: int, *, align: int = 1, init: bytes | None = None, visible: bool = False, relocations: list[Relocation] | None = None) -> DataObject:
        """Append a module ``.const`` variable (``__constant__``; zero-filled without ``init``)."""
        return self._add_data(DataObject(name, "const", size, align, init if init is not None else bytes(size), "visible" if visible else "static", relocations=list(relocations or ())))

    def add_shared(self, name: str, size: int, *, align: int = 1, users: list[str] | None = None, scope: str | None = None, visible: bool = False, extern: bool = False) -> DataObject:
        """Append a ``.shared`` variable: module scope (``scope`` None; ``extern`` for dynamic
        shared memory, size 0) or declared in function ``scope``; ``users`` are the functions
        whose code references it."""
        linkage = "extern" if extern else "visible" if visible else "static"
        obj = DataObject(name, "shared", size, align, None, linkage, users=list(users or ()), scope=scope)
        if extern:
            if size != 0:
                raise ModelError(f"extern shared variable {name!r} must have size 0, not {size}")
            self.data.append(obj)
            return obj
        return self._add_data(obj)

    def _add_data(self, obj: DataObject) -> DataObject:
        if obj.size < 1 or obj.align < 1 or obj.align & (obj.align - 1):
            raise ModelError(f"data object {obj.name!r}: size {obj.size} and alignment {obj.align} must be positive, the alignment a power of two")
        if any(d.name == obj.name for d in self.data) or any(f.name == obj.name for f in self.functions):
            raise ModelError(f"data object {obj.name!r}: the name is taken")
        self.data.append(obj)
        return obj

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise ModelError(f"no function named {name!r}")

    def remove_function(self, name: str) -> None:
        """Remove a function and what only it needed: device functions no other function calls
        or has inlined (in -c builds only externs and builtins: ptxas compiles every defined
        function there), their call-graph edges and facts, their .debug_frame entries. A
        function still called by another one cannot be removed (ModelError names the caller);
        neither can the last kernel, nor a function with line-table rows (-g, -lineinfo -c)."""
        victim = self.function(name)
        if victim.is_kernel and not any(f.is_kernel for f in self.functions if f is not victim):
            # a module left without kernels is laid out differently (-c: an uncalled first
            # function's symbol comes after the reserved-SMEM ones; module .nv.info records
            # change): not modelled yet
            raise ModelError(f"cannot remove {name!r}: removing the last kernel is not supported yet")
        for f in self.functions:
            if f is not victim and (name in f.calls or any(r.symbol == name for r in f.relocations)):
                raise ModelError(f"cannot remove {name!r}: {f.name!r} calls it")
        # callees nothing reaches any more go too: keep what the kernels and the visible and
        # weak functions reach through calls, inlined copies and relocations (a recursive
        # function reaching itself does not keep itself). Relocatable and -g builds compile
        # every defined function, static ones nothing calls included (ptxas -c, measured on
        # func_calls and recursion): there only externs and builtins go with their last caller
        rest = {f.name: f for f in self.functions if f is not victim}
        every = bool(self.options.get("compile_only") or self.options.get("debug"))
        roots = ("visible", "weak", "static") if every else ("visible", "weak")
        reached = [n for n, f in rest.items() if f.is_kernel or f.linkage in roots]
        seen = set(reached)
        while reached:
            f = rest[reached.pop()]
            for n in [*f.calls, *(c for c, _, _ in f.inlined), *(r.symbol for r in f.relocations if r.symbol)]:
                if n in rest and n not in seen:
                    seen.add(n)
                    reached.append(n)
        kept = [f for f in self.functions if f.name in seen]
        gone = {f.name for f in self.functions} - seen
        for dbg in self.debug:  # refuse before changing anything
            if dbg.name != ".debug_frame" and any(r.symbol in gone for r in dbg.relocations):
                raise ModelError(f"cannot remove {name!r}: its {dbg.name} rows are not removable yet")
        for dbg in self.debug:
            if dbg.name == ".debug_frame":
                _prune_frame(dbg, gone, self)
        self.functions = kept
        self.data = [d for d in self.data if not d.users or set(d.users) - gone]
        for d in self.data:
            d.users = [u for u in d.users if u not in gone]
        self.facts = _without(self.facts, gone)  # type: ignore[assignment]

    def rename_function(self, old: str, new: str) -> None:
        """Rename a function and every reference to it (relocations, calls, users, inlined
        copies and their ``$kernel$callee`` names, the facts)."""
        if any(f.name == new for f in self.functions):
            raise ModelError(f"cannot rename {old!r} to {new!r}: {new!r} exists")
        self.function(old).name = new
        self.facts = _renamed(self.facts, old, new)  # type: ignore[assignment]
        for f in self.functions:
            f.facts = _renamed(f.facts, old, new)  # type: ignore[assignment]
            f.calls = [new if c == old else c for c in f.calls]
            f.address_taken = [new if c == old else c for c in f.address_taken]
            f.capsule_symbols = [(_renamed(n, old, new), v, sz) for n, v, sz in f.capsule_symbols]  # type: ignore[misc]
            for r in [*f.relocations, *f.constant_relocations]:
                if r.symbol == old:
                    r.symbol = new
            f.inlined = [(new if n == old else n, o, s) for n, o, s in f.inlined]
        for d in self.data:
            d.users = [new if u == old else u for u in d.users]
            if d.scope == old:
                d.scope = new
            for r in d.relocations:
                if r.symbol == old:
                    r.symbol = new
        for dbg in self.debug:
            for r in dbg.relocations:
                if r.symbol == old:
                    r.symbol = new
