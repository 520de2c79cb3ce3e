"""The emitter: replay ptxas's section creator for a :class:`Module`.

Sections and symbols are created in the order ptxas creates them, so the string tables (with
their leftovers) and every order and index follow from the model alone. Payloads that other
rules derive (.nv.info records, notes, banks, Mercury clones) are filled by the builder; this
module owns the structure.

Covered: modules of kernels and device functions in whole-program (default, -O0, -lineinfo),
relocatable (-c), -g and -g -c builds, with their debug payloads, on every family (the sm_100+
Mercury tail included), address taking and indirect calls included. Data objects raise
NotImplementedError naming what is missing. -g -c is -g's function order and debug sections
with -c's section types, UDT/UFT symbols and parameter-bank symbols (measured on every probe).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..arch import facts, family_of, Family
from ..elf.constants import (
    ET_EXEC,
    ET_REL,
    SHT_CUDA_CONSTANT,
    SHT_CUDA_SHARED,
    SHF_ALLOC,
    SHF_CUDA_CUINFO,
    SHF_CUDA_TKINFO,
    SHF_EXECINSTR,
    SHF_INFO_LINK,
    SHF_WRITE,
    SHF_CUDA_MERCURY,
    SHT_CUDA_CALLGRAPH,
    SHT_CUDA_CAPMERC_TEXT,
    SHT_CUDA_MERC_INFO,
    SHT_CUDA_MERC_RELA,
    SHT_CUDA_MERC_SYMTAB,
    SHT_CUDA_SHARED_RESERVED,
    SHT_CUDA_COMPAT,
    SHT_CUDA_INFO,
    SHT_CUDA_PROTOTYPE,
    SHT_CUDA_RELOCINFO,
    SHT_NOBITS,
    SHT_NOTE,
    SHT_PROGBITS,
    SHT_REL,
    SHT_RELA,
    SHT_STRTAB,
    SHT_SYMTAB,
    SHT_SYMTAB_SHNDX,
    STO_CUDA_ENTRY,
)
from ..elf.model import ElfObject, Role, Section, Symbol
from ..elf.order import header_order, symbol_order
from ..elf.model import Relocation as ElfRelocation
from ..errors import ModelError
from .model import DebugSection, Function, Module, Relocation

if TYPE_CHECKING:
    from ..funcorder import PtxFunction

_SECTION_SYM = 0x03
_LOCAL_FUNC = 0x02
_WEAK_FUNC = 0x22
_LOCAL_CUDA_OBJECT = 0x0D
_GLOBAL_FUNC = 0x12
_WEAK_UND_OBJECT = 0x21
_WEAK_NOTYPE = 0x20


class _Emitter:
    def __init__(self, module: Module):
        self.m = module
        self.sm = module.sm
        self.family = family_of(self.sm)
        self.obj = ElfObject(sm=self.sm, e_type=ET_EXEC)
        self.symtab: Section | None = None
        self.pending_relocs: list[tuple[Section, list]] = []  # type: ignore[type-arg]
        self.proto_section: Section | None = None
        self.functions = {f.name: f for f in module.functions}
        self.func_symbols: dict[str, Symbol] = {}  # function symbols made so far, by name
        self.protos: list = []  # type: ignore[type-arg]

    # -- helpers -------------------------------------------------------------------------------
    def section(self, name: str, sh_type: int, *, symbol: bool = False, **kw: object) -> Section:
        """Create a section; one that gets a section symbol enters .strtab with the symbol."""
        s = self.obj.create_section(name, sh_type, in_strtab=not symbol, **kw)  # type: ignore[arg-type]
        if symbol:
            self.section_symbol(s)
        return s

    def section_symbol(self, s: Section) -> Symbol:
        if s.strtab_slot is None:
            s.strtab_slot = self.obj.strtab.add(s.name, share=False)
        return self.obj.add_symbol(Symbol(s.strtab_slot, _SECTION_SYM, 0, s))

    def ghost(self, name: str, sh_type: int = SHT_PROGBITS) -> None:
        self.obj.delete_section(self.section(name, sh_type))

    def ask_relocations(self, target: Section, asks: list[tuple[str, list[Relocation] | None]]) -> None:
        """Ask for .rel.<X>/.rela.<X> of ``target`` in the order ptxas does, creating each name:
        a section given entries (possibly none) is kept with them, one given None is dropped
        again (its name stays behind in the string tables)."""
        for prefix, entries in asks:
            sh_type, size = (SHT_REL, 16) if prefix == ".rel" else (SHT_RELA, 24)
            sec = self.section(f"{prefix}{target.name}", sh_type, flags=SHF_INFO_LINK, addralign=8, entsize=size)
            if entries is None:
                self.obj.delete_section(sec)
            else:
                sec.link, sec.info = self.symtab, target  # type: ignore[assignment]
                sec.relocs = []
                self.pending_relocs.append((sec, entries))

    def reserved_smem(self) -> None:
        """sm_90+ EXEC: the reserved shared-memory symbols and section."""
        f = facts(self.sm)
        self.obj.new_symbol(".nv.reservedSmem.offset0", info=_WEAK_UND_OBJECT, size=4, value=f.reserved_smem_offset)
        reserved = self.reserved_section(f.reserved_smem_size)
        alias = Symbol(self.obj.strtab.add("__nv_reservedSMEM_offset_0_alias"), _WEAK_NOTYPE, 0xA0, reserved, 0, f.reserved_smem_offset)
        self.obj.add_symbol(alias)
        self.war_variable(reserved)

    def war(self) -> bool:
        """sm_110 keeps a hardware-workaround object in reserved shared memory."""
        return self.sm in facts(self.sm).reserved_smem_war_sms

    def reserved_section(self, size: int) -> Section:
        """.nv.shared.reserved.0; on sm_110 aligned to 16 and with a section symbol."""
        war = self.war()
        sh_type = SHT_CUDA_SHARED_RESERVED if self.rel else SHT_NOBITS
        return self.section(".nv.shared.reserved.0", sh_type, symbol=war, flags=SHF_ALLOC | SHF_WRITE, addralign=16 if war else 1, nobits_size=size)

    def war_variable(self, reserved: Section) -> None:
        """sm_110: __nv_reservedSMEM_gb10b_war_var, 0x80 bytes after the 0x40 reserved ones
        (relocatable output: a REL-style variable at 0x10)."""
        if not self.war():
            return
        if self.rel:
            self.obj.new_symbol("__nv_reservedSMEM_gb10b_war_var", info=0x2D, other=0xA0, section=reserved, value=0x10, size=0x80)
        else:
            self.obj.new_symbol("__nv_reservedSMEM_gb10b_war_var", info=_WEAK_UND_OBJECT, section=reserved, value=0x40, size=0x80)

    def resolve_relocations(self) -> None:
        """Relocations by symbol name become references, once every symbol exists."""
        by_name: dict[str, Symbol] = {}
        for defined in self.obj.symbols:
            by_name.setdefault(defined.name, defined)
        for section, relocs in self.pending_relocs:
            out = []
            for r in relocs:
                sym = by_name.get(r.symbol) if r.symbol else None
                if r.symbol and sym is None:
                    raise ModelError(f"{section.name}: relocation at {r.offset:#x} names {r.symbol!r}, which no symbol defines")
                out.append(ElfRelocation(r.offset, sym, r.type, r.addend))
            section.relocs = out

    # -- the sequence --------------------------------------------------------------------------
    def text_relocations(self, fn: Function, text: Section) -> None:
        """Relocation sections of .text.<f>. Relocatable and -g output keep the relocations:
        ptxas asks for .rela and .rel in the order below, keeping each that has entries (below
        sm_90 both can). Whole-program output resolves them and keeps an empty .rela from sm_90
        on (.rel is asked first)."""
        if not fn.relocations and not fn.inlined:
            return
        if self.debug:
            # -g keeps the relocations; a static function they name gets its symbol now
            for r in fn.relocations:
                callee = self.functions.get(r.symbol) if r.symbol else None
                if callee is not None and callee.linkage == "static" and callee.name not in self.func_symbols:
                    self.func_symbols[callee.name] = self.obj.new_symbol(callee.name, info=_LOCAL_FUNC, size=len(callee.sass))
        elif not self.rel:
            if self.family is not Family.LEGACY:
                self.ask_relocations(text, [(".rel", None), (".rela", [])])
            return
        rel, rela = _split(fn.relocations)
        # ptxas asks for a relocation section when it makes the first relocation of its kind,
        # in code order: a return address (against the function itself) starts RELA, every
        # other one (call target, address taking, __UFT_OFFSET) starts REL and may be turned
        # RELA later, which asks for .rela then. So .rela comes first when the earliest
        # relocation is a return address, and a .rel twin exists only when some relocation
        # is not one; empty sections are dropped (measured on every -c/-g probe and
        # tests/probes_fp: an address taken before any call asks .rel first)
        kinds = [".rela" if r.symbol == fn.name else ".rel" for r in sorted(fn.relocations, key=lambda r: r.offset)]
        if rela and any(r.symbol != fn.name for r in rela):
            kinds.append(".rela")
        entries = {".rel": rel or None, ".rela": rela or None}
        self.ask_relocations(text, [(k, entries[k]) for k in dict.fromkeys(kinds)])

    def debug_sections(self) -> None:
        """The debug payloads after the functions, .debug_frame first (always made; a section
        symbol only when it has bytes). Each payload's relocation names follow it, but
        .debug_frame's come after every other debug section."""
        m = self.m
        payloads = {d.name: d for d in m.debug}
        if ".debug_frame" not in payloads:
            payloads[".debug_frame"] = DebugSection(".debug_frame", b"")
        ordered = [payloads[".debug_frame"]] + [d for d in m.debug if d.name != ".debug_frame"]
        frame_section = None
        for d in ordered:
            sec = self.section(d.name, SHT_PROGBITS, symbol=bool(d.data), data=d.data)
            if d.name == ".debug_frame":
                frame_section = sec
            elif d.relocations:
                self.debug_relocations(sec, d.relocations)
        frame = payloads[".debug_frame"]
        if frame.relocations:
            self.debug_relocations(frame_section, frame.relocations, frame=True)  # type: ignore[arg-type]

    def debug_relocations(self, sec: Section, relocs: list[Relocation], frame: bool = False) -> None:
        """Relocation sections of a debug payload. From sm_90 on: .rel asked then .rela kept.
        Below sm_90 line tables only ask .rel; .debug_frame asks .rel then .rela, which an
        executable drops empty and relocatable output fills with the RELA entries."""
        if self.family is not Family.LEGACY:
            self.ask_relocations(sec, [(".rel", None), (".rela", relocs)])
            return
        rel, rela = _split(relocs) if self.rel else (relocs, [])
        asks: list[tuple[str, list[Relocation] | None]] = [(".rel", rel or None)]
        if frame:
            asks.append((".rela", rela or None))
        self.ask_relocations(sec, asks)

    def prototypes(self, order: list[Function]) -> list:  # type: ignore[type-arg]
        """.nv.prototype entries (relocatable output only)."""
        if not self.rel:
            return []
        from ..funcorder import prototypes

        return prototypes([_ptx_function(f) for f in self.m.functions], self.mode, [f.name for f in order], self.sm)

    def signature_strings(self, order: list[Function]) -> None:
        """The signature strings come first in .strtab (funcorder.signature_strings: the
        .nv.prototype ones, the address-taken functions' and the .callprototype ones, last
        created first); ptxas writes them whether or not .nv.prototype is kept."""
        from ..funcorder import signature_strings

        if self.rel or self.debug:
            ptx = [_ptx_function(f) for f in self.m.functions]
            for text in signature_strings(ptx, self.mode, [f.name for f in order], self.sm):
                self.obj.strtab.add(text)

    def address_taken_symbols(self) -> None:
        """-c: the address-taken functions that have no symbol yet get their local or weak one
        right after the first function's .nv.info (and, for a kernel, its reserved-SMEM and
        UDT/UFT symbols), in G order; their global names still come with the other globals
        (ptxas, -c, every target: tests/probes_fp)."""
        if not self.rel or self.debug:
            return
        from ..funcorder import g_order

        taken = {t for f in self.m.functions for t in f.address_taken}
        for name in g_order([_ptx_function(f) for f in self.m.functions]):
            fn = self.functions[name]
            if name in taken and name not in self.func_symbols and fn.linkage in ("static", "weak") and not fn.is_kernel:
                info = _LOCAL_FUNC if fn.linkage == "static" else _WEAK_FUNC
                self.func_symbols[name] = self.obj.new_symbol(name, info=info, size=len(fn.sass))

    def first_function_symbols(self) -> None:
        """After the first function's section (or at the end when there is none): the reserved
        shared-memory block in executables, the UDT/UFT symbols then the reserved-SMEM offset
        in relocatable output (sm_90+)."""
        if self.family is Family.LEGACY:
            return
        if self.debug and not self.rel:  # -g: the offset symbol only; sm_110 adds the section and its object
            self.obj.new_symbol(".nv.reservedSmem.offset0", info=_WEAK_UND_OBJECT, size=4, value=facts(self.sm).reserved_smem_offset)
            if self.war():
                self.war_variable(self.reserved_section(facts(self.sm).reserved_smem_size))
            return
        if not self.rel:
            self.reserved_smem()
            return
        # relocatable output, -g or not (-g -c measured on every probe)
        for name in ("__UDT_OFFSET", "__UFT_OFFSET", "__UFT_CANONICAL", "__UDT_CANONICAL", "__UFT", "__UDT", "__UFT_END", "__UDT_END"):
            self.obj.new_symbol(name, info=_WEAK_UND_OBJECT, size=8)
        self.obj.new_symbol(".nv.reservedSmem.offset0", info=_WEAK_UND_OBJECT, size=4, value=facts(self.sm).reserved_smem_offset)
        if self.war():  # relocatable sm_110: the object's 0x80 bytes only
            self.war_variable(self.reserved_section(0x80))

    def function_order(self) -> list[Function]:
        m = self.m
        if self.debug:
            # -g (with or without -c): every function gets its .text: non-static ones in
            # declaration order, then the static ones in declaration order
            defined = [f for f in m.functions if f.linkage not in ("extern",)]
            return [f for f in defined if f.linkage != "static"] + [f for f in defined if f.linkage == "static"]
        if self.rel:
            # relocatable: ptxas's function order (post-order DFS, or declaration order at -O0)
            from ..funcorder import function_order

            names = function_order([_ptx_function(f) for f in m.functions], self.mode)
            return [self.functions[n] for n in names]
        kernels = [f for f in m.functions if f.is_kernel]
        inlined = {n for k in kernels for n, _, _ in k.inlined}
        if any(not f.is_kernel and f.name not in inlined for f in m.functions):
            raise NotImplementedError("device functions that are not inlined into a kernel")
        return list(reversed(kernels))  # whole program: kernels in reverse PTX order

    def run(self) -> ElfObject:
        m, obj = self.m, self.obj
        self.rel = bool(m.options.get("compile_only"))
        self.debug = bool(m.options.get("debug"))
        if m.data:
            raise NotImplementedError("the emitter does not place data objects yet")
        self.mode = m.ordering_mode()
        if self.rel:
            obj.e_type = ET_REL
        order = self.function_order()
        protos = self.prototypes(order)
        self.signature_strings(order)
        self.section(".shstrtab", SHT_STRTAB, role=Role.SHSTRTAB)
        strtab = self.section(".strtab", SHT_STRTAB, role=Role.STRTAB)
        self.symtab = self.section(".symtab", SHT_SYMTAB, addralign=8, entsize=24, role=Role.SYMTAB)
        self.symtab.link = strtab
        shndx = self.section(".symtab_shndx", SHT_SYMTAB_SHNDX, addralign=4, entsize=4, role=Role.SYMTAB_SHNDX)
        shndx.link = self.symtab
        tk = self.section(".note.nv.tkinfo", SHT_NOTE, symbol=True, flags=SHF_CUDA_TKINFO, addralign=4)
        cu = self.section(".note.nv.cuinfo", SHT_NOTE, symbol=True, flags=SHF_CUDA_CUINFO, addralign=4)
        cu.link = tk
        info = self.section(".nv.info", SHT_CUDA_INFO, addralign=4)
        info.link = self.symtab
        if self.family is not Family.LEGACY:
            compat = self.section(".nv.compat", SHT_CUDA_COMPAT, addralign=4)
            cu.info, cu.flags = compat, cu.flags | SHF_INFO_LINK

        bank_type = SHT_CUDA_CONSTANT if self.rel else SHT_PROGBITS
        late = []
        for i, fn in enumerate(order):
            if fn.linkage == "static":
                if fn.name not in self.func_symbols:
                    self.func_symbols[fn.name] = obj.new_symbol(fn.name, info=_LOCAL_FUNC, size=len(fn.sass))
            elif fn.linkage == "weak" and not fn.is_kernel and fn.name not in self.func_symbols:
                self.func_symbols[fn.name] = obj.new_symbol(fn.name, info=_WEAK_FUNC, size=len(fn.sass))
            text = self.section(f".text.{fn.name}", SHT_PROGBITS, symbol=True, flags=SHF_ALLOC | SHF_EXECINSTR, addralign=128, data=fn.sass)
            text.link = self.symtab
            if fn.is_kernel:
                nvi = self.section(f".nv.info.{fn.name}", SHT_CUDA_INFO, flags=SHF_INFO_LINK, addralign=4)
                nvi.link, nvi.info = self.symtab, text
                self.ghost(f".nv.shared.{fn.name}", SHT_CUDA_SHARED if self.rel else SHT_NOBITS)
                if i == 0:
                    self.first_function_symbols()
            else:
                if i == 0:
                    self.first_function_symbols()
                nvi = self.section(f".nv.info.{fn.name}", SHT_CUDA_INFO, flags=SHF_INFO_LINK, addralign=4)
                nvi.link, nvi.info = self.symtab, text
            if i == 0:
                self.address_taken_symbols()
            for callee, offset, size in fn.inlined:
                # the copy is bound like its callee: static -> LOCAL, weak -> WEAK (both named
                # now), visible -> GLOBAL (named with the globals, after its kernel)
                linkage = self.functions[callee].linkage
                if linkage != "visible":
                    obj.new_symbol(f"${fn.name}${callee}", info=_LOCAL_FUNC if linkage == "static" else _WEAK_FUNC, section=text, value=offset, size=size)
            self.text_relocations(fn, text)
            if self.family is Family.LEGACY and fn.is_kernel:
                bank = obj.create_section(f".nv.constant0.{fn.name}", bank_type, in_strtab=False, flags=SHF_ALLOC | SHF_INFO_LINK, addralign=4)
                bank.info = text
                if not self.rel:
                    self.ghost(f".rel.nv.constant0.{fn.name}", SHT_REL)
                self.section_symbol(bank)
                if self.rel:
                    # relocatable, below sm_90: the parameter block's symbol (strings shared), or
                    # _SREG at 0 for a kernel without parameters
                    base, size = facts(self.sm).param_base, _param_bytes(m.target, fn)
                    if size:
                        obj.new_symbol("_param", info=_LOCAL_CUDA_OBJECT, other=0x81, section=bank, value=base, size=size)
                    else:  # the special-register block below the parameters
                        obj.new_symbol("_SREG", info=_LOCAL_CUDA_OBJECT, other=0x81, section=bank, size=base)
            late.append((fn, text))

        if not order:
            self.first_function_symbols()  # made after the first function, or here when there is none
        self.debug_sections()
        graph = self.section(".nv.callgraph", SHT_CUDA_CALLGRAPH, symbol=True, addralign=4, entsize=8)
        graph.link = self.symtab
        if protos:
            proto = self.section(".nv.prototype", SHT_CUDA_PROTOTYPE, symbol=True, addralign=4, entsize=8)
            proto.link = self.symtab
            self.proto_section, self.protos = proto, protos
        else:
            self.ghost(".nv.prototype", SHT_CUDA_PROTOTYPE)
        if self.family is Family.LEGACY and not self.rel:
            self.section(".nv.rel.action", SHT_CUDA_RELOCINFO, symbol=True, addralign=8, entsize=8)

        # GLOBAL symbols get their names now, in symtab order
        externs_done: set[str] = set()
        for fn, text in late:
            if fn.linkage == "visible":
                sym = Symbol(obj.strtab.add(fn.name), _GLOBAL_FUNC, STO_CUDA_ENTRY if fn.is_kernel else 0, text, 0, 0, len(fn.sass))
                obj.add_symbol(sym)
            else:
                sym = self.func_symbols[fn.name]
                sym.section = text
            text.info = sym
            for callee, offset, size in fn.inlined:
                if self.functions[callee].linkage == "visible":
                    obj.add_symbol(Symbol(obj.strtab.add(f"${fn.name}${callee}"), _GLOBAL_FUNC, 0, text, 0, offset, size))
            if facts(self.sm).text_info_regcount:
                text.info_high = _info_facts(fn).get("register_count", 0) << 24  # type: ignore[operator]
            for r in fn.relocations:
                # an undefined function gets its GLOBAL symbol after the first function naming it
                target = self.functions.get(r.symbol) if r.symbol else None
                # (a name no function has, such as __UFT_OFFSET of an indirect call, is not one)
                if r.symbol and r.symbol not in externs_done and target is not None and target.linkage == "extern":
                    externs_done.add(r.symbol)
                    if r.symbol not in self.func_symbols:
                        self.func_symbols[r.symbol] = obj.add_symbol(Symbol(obj.strtab.add(r.symbol), _GLOBAL_FUNC, 0, None))
        if facts(self.sm).late_bank0:
            for fn, text in late:
                if fn.is_kernel:
                    bank = self.section(f".nv.constant0.{fn.name}", bank_type, symbol=True, flags=SHF_ALLOC | SHF_INFO_LINK, addralign=4)
                    bank.info = text
        if facts(self.sm).mercury:
            self.mercury_tail(late)
        self.resolve_relocations()
        return obj

    def mercury_tail(self, functions: list[tuple[Function, Section]]) -> None:
        """sm_100+: capsules, then a Mercury clone of every debug section, .nv.info section,
        relocation section and allocated section that has one, then .nv.merc.symtab. Clone
        names are never added to .strtab. Clone payloads come from the Mercury rules."""
        obj = self.obj
        merc_symtab_ref: list[Section] = []
        clones: dict[int, Section] = {}

        def clone(orig: Section, name: str, sh_type: int, **kw: object) -> Section:
            c = obj.create_section(name, sh_type, in_strtab=False, **kw)  # type: ignore[arg-type]
            c.flags |= SHF_CUDA_MERCURY
            c.clone_of = orig
            clones[id(orig)] = c
            return c

        existing = list(obj.sections)
        for fn, text in functions:
            cap = clone(text, f".nv.capmerc.text.{fn.name}", SHT_CUDA_CAPMERC_TEXT, addralign=16, data=fn.capsule)
            cap.info = text.info
            merc_symtab_ref.append(cap)
        for s in existing:
            if s.sh_type == SHT_PROGBITS and not s.flags & SHF_ALLOC and s.name.startswith((".debug_", ".nv_debug_")):
                clone(s, f".nv.merc{s.name}", SHT_PROGBITS)
        for s in existing:
            if s.sh_type == SHT_CUDA_INFO:
                c = clone(s, f".nv.merc{s.name}", SHT_CUDA_MERC_INFO, flags=s.flags & SHF_INFO_LINK, addralign=4)
                c.info = clones[id(s.info)] if isinstance(s.info, Section) else 0
                merc_symtab_ref.append(c)
        for s in header_order(obj):
            if s.sh_type in (SHT_REL, SHT_RELA) and not s.mercury:
                c = clone(s, f".nv.merc{s.name}", SHT_CUDA_MERC_RELA, flags=SHF_INFO_LINK, addralign=8, entsize=24)
                c.info = clones.get(id(s.info), s.info) if isinstance(s.info, Section) else 0
                c.relocs = []
                merc_symtab_ref.append(c)
        for s in existing:
            if s.name == ".nv.shared.reserved.0":
                clone(s, ".nv.merc.nv.shared.reserved.0", SHT_CUDA_SHARED_RESERVED, flags=s.flags, addralign=s.addralign)
        msym = obj.create_section(".nv.merc.symtab", SHT_CUDA_MERC_SYMTAB, in_strtab=False, addralign=8, entsize=24, role=Role.MERC_SYMTAB)
        msym.flags |= SHF_CUDA_MERCURY
        msym.link = obj.role(Role.STRTAB)  # type: ignore[assignment]
        for c in merc_symtab_ref:
            c.link = msym

        # .nv.merc.symtab: .symtab without the late banks' symbols, naming clones, with the
        # capsule's placement of code and zero for the reserved-SMEM values
        placement = {name: (v, sz) for fn, _ in functions for name, v, sz in fn.capsule_symbols}
        late = {id(s) for s in obj.sections if s.name.startswith(".nv.constant0.") and facts(self.sm).late_bank0}
        for y in symbol_order(obj):
            if y.type == 3 and y.section is not None and id(y.section) in late:
                continue
            m = Symbol(y.name_slot, y.info, y.other, clones.get(id(y.section), y.section) if y.section else None, y.shndx, y.value, y.size)
            if y.name in placement:
                m.value, m.size = placement[y.name]
            elif y.name in (".nv.reservedSmem.offset0", "__nv_reservedSMEM_offset_0_alias"):
                m.value = 0
            obj.merc_symbols.append(m)


def _split(relocs: list[Relocation]) -> tuple[list[Relocation], list[Relocation]]:
    """(REL entries, RELA entries): a relocation without an addend is REL."""
    return [r for r in relocs if r.addend is None], [r for r in relocs if r.addend is not None]


def _info_facts(fn: Function) -> dict[str, object]:
    info = fn.facts.get("nvinfo")
    if not isinstance(info, dict):
        raise NotImplementedError(f"function {fn.name!r} has no .nv.info facts")
    return info


def _param_bytes(target: str, fn: Function) -> int:
    """Bytes of the packed parameters (what _param covers), from the parameter facts."""
    from ..nvinfo.builder import param_layout
    from ..nvinfo.facts import FunctionFacts, from_json

    return param_layout(target, from_json(FunctionFacts, _info_facts(fn))).size  # type: ignore[arg-type]


def _ptx_function(f: Function) -> PtxFunction:
    from .decompose import _ptx_function as convert

    return convert(f)


def emit(module: Module) -> ElfObject:
    """The ELFW object ptxas builds for ``module`` (structure; payloads filled by the builder)."""
    return _Emitter(module).run()
