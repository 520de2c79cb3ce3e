"""The emitter: replay ptxas's section creator for a :class:`Module`.

Sections and symbols are created in the order ptxas creates them, so the string tables (with
their leftovers) and every order and index follow from the model alone. Payloads that other
rules derive (.nv.info records, notes, banks, Mercury clones) are filled by the builder; this
module owns the structure.

Covered: modules of kernels and device functions in whole-program (default, -O0, -lineinfo),
relocatable (-c), -g and -g -c builds (PTX with ``.target ..., debug`` from nvcc -G acts as -g
in every mode; -g -c is -g's function order and debug sections with -c's section types,
UDT/UFT symbols and parameter-bank symbols), with their debug payloads (line tables, register
maps, and the DWARF of nvcc -G/-lineinfo PTX), address taking and indirect calls, compiler
constants (.nv.constant2.<f>: jump tables, FP64 literals, function-address tables), module
.global/.const data and module texture/surface/sampler references (not under -g), on every family (the sm_100+ Mercury tail included). Shared data objects
raise NotImplementedError naming what is missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..arch import facts, family_of, Family
from ..elf.constants import (
    ET_EXEC,
    SHN_COMMON,
    STB_WEAK,
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
from ..elf.model import ElfObject, Role, Section, Symbol, final_name
from ..elf.order import relocation_order, symbol_order
from ..elf.model import Relocation as ElfRelocation
from ..errors import ModelError
from .data import CONST0_SIZE, DEBUG_SHARED, MERCURY_DATA_TYPES, RESERVED_READ_NAMES, cap_resolved, cap_trigger, live_shared_refs, initialiser_asks, initialiser_ask_order, local_block, rela_asked_first, CONSTANT3, CONSTANT4, GLOBAL, GLOBAL_INIT, R_CUDA_64, R_CUDA_FUNC_DESC_64, RELOCATION_ORDER as DATA_RELOCATION_ORDER, SECTIONS as DATA_SECTIONS, SPACE_MARKS, DataPlan, call_closure, plan as plan_data, section_of, shared_layout, walked_first
from .model import NO_ABI_DEBUG, DataObject, DebugSection, Function, Module, Relocation, abi_disabled, empty_ptx_section, unmodelled_options
from .texrefs import REF_TYPES

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..funcorder import PtxFunction

_SECTION_SYM = 0x03
_LOCAL_FUNC = 0x02
_WEAK_FUNC = 0x22
_LOCAL_CUDA_OBJECT = 0x0D
_GLOBAL_FUNC = 0x12
_WEAK_UND_OBJECT = 0x21
_WEAK_NOTYPE = 0x20
_LOCAL_OBJECT = 0x01
_STV_INTERNAL = 0x01


def clones_in_order(fn: Function) -> list[tuple[str, int, int]]:
    """``fn``'s whole-program copies in the order ptxas creates them
    (cubinemit.nvinfo.builder.clone_order: recursive or address-taken callees first, each
    group sorted by name; a builtin copy ``$__internal_N_$<b>`` sorts by ``<b>``, and N
    counts the copies in that order: fo_builtins K1 ``_5_$..dblrcp.. _6_$..div_rn..
    _7_$..dsqrt.. $K1$ssqrt``)."""
    info = fn.facts.get("nvinfo")
    if not fn.inlined or not isinstance(info, dict):
        return list(fn.inlined)
    from ..nvinfo.builder import clone_callee, clone_order
    from ..nvinfo.facts import FunctionFacts, from_json

    ff = from_json(FunctionFacts, info)  # type: ignore[arg-type]
    rank = {clone_callee(c.name): i for i, c in enumerate(clone_order(ff))}
    if any(callee not in rank for callee, _, _ in fn.inlined):
        return list(fn.inlined)
    return sorted(fn.inlined, key=lambda c: rank[c[0]])


def builtin_copy_names(m: Module, order: list[str] | None = None) -> dict[tuple[str, str], str]:
    """Whole program: (kernel, builtin) -> the name of the kernel's copy of a ptxas builtin,
    ``$__internal_N_$<builtin>``, N counting the copies in .text order (``order``, derived
    when not given), each kernel's in :func:`clones_in_order`. A kernel's fact
    ``internal_numbers_skipped`` counts the numbers the counter gives to other things first:
    nvopencc's function statics, module ``.shared`` variables named ``__cuda_local_var_*``,
    take one each for every kernel that uses them (gpuocelot dxtc: its kernel uses four, so
    its copy is ``$__internal_4_$...``; tests/probes_builtin bi_cuda_local_var)."""
    from ..funcorder import function_order
    from .decompose import ptx_functions

    names: dict[tuple[str, str], str] = {}
    if not any(f.inlined for f in m.functions):
        return names
    by_name = {f.name: f for f in m.functions}
    builtins = {f.name for f in m.functions if f.linkage == "builtin"}
    taken = 0
    for kernel in order if order is not None else function_order(ptx_functions(m), m.ordering_mode()):
        fn = by_name[kernel]
        if not any(callee in builtins for callee, _, _ in fn.inlined):
            continue  # no copy to number: the clone order (a facts decode) is not needed
        skipped = fn.facts.get("internal_numbers_skipped", 0)
        if not isinstance(skipped, int) or skipped < 0:
            raise ModelError(f"function {kernel!r}: fact internal_numbers_skipped {skipped!r} is not a count")
        taken += skipped
        for callee, _, _ in clones_in_order(fn):
            if callee in builtins:
                names[(kernel, callee)] = f"$__internal_{taken}_${callee}"
                taken += 1
    return names


#: debug payloads that always ask .rela.<name>, with or without relocations kept
_RELA_ALWAYS = (".debug_info", ".debug_pubnames", ".debug_pubtypes")


def late_bank_order(functions: Sequence[Function]) -> list[Function]:
    """The order ptxas makes the late -g banks (fact ``constant_bank_late``) in, ``functions``
    being in .text order: it walks the functions from the last .text on and, at each, makes
    the banks of the kernels that reach it through calls, last kernel first; the kernels no
    callee explains follow, last first. The callee that holds the constants is what matters
    (late_banks_by_callee: k_a -> dev_two, k_b and k_c -> dev_poly give k_a, k_c, k_b;
    late_banks: k_c -> dev_poly, k_a -> both, k_b -> dev_two give k_b, k_a, k_c; sm_75-89,
    tests/probes_const2). The callees whose code has compiler constants carry the fact
    ``holds_constants``; where none does, every callee stands for one (the decomposer records
    the fact only where that gives another order: decompose._check_late_banks)."""
    return [f for group in late_bank_groups(functions) for f in group]


def late_bank_groups(functions: Sequence[Function]) -> list[list[Function]]:
    """:func:`late_bank_order` by the step of ptxas's walk that makes them: the banks one
    callee brings are made together, then (sm_90+) their .rela sections (lb3 -g, sm_90:
    `.nv.constant2.k_b .nv.constant2.k_a .rela.nv.constant2.k_b .rela.nv.constant2.k_a
    .nv.constant2.k_c .rela.nv.constant2.k_c`, tests/probes_const2/late_banks_jt); a kernel
    no callee explains stands alone."""
    late = [f for f in functions if f.facts.get("constant_bank_late") and f.constants]
    if len(late) < 2:
        return [[f] for f in late]
    by_name = {f.name: f for f in functions}
    reached = {f.name: call_closure(by_name, f.name) - {f.name} for f in late}
    holders = [f for f in functions if f.facts.get("holds_constants")] or list(functions)
    out: list[list[Function]] = []
    made: set[str] = set()
    for callee in reversed(holders):
        group = [f for f in reversed(late) if callee.name in reached[f.name] and f.name not in made]
        if group:
            out.append(group)
            made.update(f.name for f in group)
    return out + [[f] for f in reversed(late) if f.name not in made]


class _Emitter:
    def __init__(self, module: Module, ptx: Sequence[PtxFunction] | None = None):
        self.m = module
        #: the funcorder view of the functions (decompose.ptx_functions), worked out once
        self.ptx: tuple[PtxFunction, ...] | None = None if ptx is None else tuple(ptx)
        self.sm = module.sm
        self.family = family_of(self.sm)
        self.obj = ElfObject(sm=self.sm, e_type=ET_EXEC)
        if abi_disabled(module):
            self.obj.abi_version = facts(self.sm).no_abi_version
        self.symtab: Section | None = None
        self.pending_relocs: list[tuple[Section, list]] = []  # type: ignore[type-arg]
        self.proto_section: Section | None = None
        self.functions = {f.name: f for f in module.functions}
        # function-scope .shared variables: by name, and per declaring function in declaration order
        self.scoped = {d.name: d for d in module.data if d.space == "shared" and d.scope is not None}
        self.scoped_of: dict[str, list[str]] = {}
        for d in self.scoped.values():
            self.scoped_of.setdefault(d.scope, []).append(d.name)  # type: ignore[arg-type]
        self.func_symbols: dict[str, Symbol] = {}  # function symbols made so far, by name
        #: reference parameters whose symbols are not made yet: name -> (space, the kernel's .text)
        self.pending_refs: dict[str, tuple[str, Section]] = {}
        self.protos: list = []  # type: ignore[type-arg]
        self.created: dict[int, str] = {}  # creation name of each section (renamed ones differ)
        self.data_sections: dict[str, Section] = {}  # module data sections by final name
        self.data_symbols: dict[str, Symbol] = {}
        #: -g: module .shared symbols named before the kernel section they are privatised to
        #: exists (section name per symbol), resolved once every function's sections are made
        self.late_shared: list[tuple[Symbol, str]] = []
        self.plan: DataPlan | None = None
        self.walked = False  # the visible variables' sections are made
        self.walked_names: set[str] = set()  # the visible and weak variables walked so far
        self.constant4_late = False  # whole program: .nv.constant4 made by a later kernel
        self.deferred_scoped: set[str] = set()  # functions naming unused .shared after their bank's .rela
        #: .nv.constant2.<f> banks made so far (created as .nv.constant.optimizer.<f>), by function
        self.banks2: dict[str, Section] = {}
        #: whole program: the handle slots of each kernel using texture references, and the
        #: banks made for them
        self.slots: dict[str, tuple] = {}  # type: ignore[type-arg]
        self.g_functions: list[Function] | None = None
        self.g_positions: dict[str, list[int]] = {}  # where each name stands in g_functions
        self.handle_banks: dict[str, Section] = {}
        self.txq = False
        self.resolved_ghosts = False  # -preserve-relocs -c below sm_90 (ask_relocations)
        self.resolved_asked: set[str] = set()  # the targets whose .nv.resolvedrela is made

    # -- helpers -------------------------------------------------------------------------------
    def section(self, name: str, sh_type: int, *, symbol: bool = False, **kw: object) -> Section:
        """Create a section; one that gets a section symbol enters .strtab with the symbol."""
        s = self.obj.create_section(name, sh_type, in_strtab=not symbol, **kw)  # type: ignore[arg-type]
        self.created[id(s)] = name
        if symbol:
            self.section_symbol(s)
        return s

    def section_symbol(self, s: Section) -> Symbol:
        if s.strtab_slot is None:
            s.strtab_slot = self.obj.strtab.add(s.name, share=False)
        return self.obj.add_symbol(Symbol(s.strtab_slot, _SECTION_SYM, 0, s))

    def drop(self, sec: Section) -> None:
        """Delete a section made by :meth:`section` (its name stays in the string tables) and
        forget its creation name: ``created`` is keyed by id(), and a later section may get
        the id of a dropped one once it is freed, which would inherit the stale name and its
        place in the creation order (the Mercury bank clones are sorted by it: llmc_misc_80 -c
        sm_100a, tests/probes_rw4, came out with two optimizer banks swapped in some runs)."""
        self.obj.delete_section(sec)
        self.created.pop(id(sec), None)

    def ghost(self, name: str, sh_type: int = SHT_PROGBITS) -> None:
        """A section made and dropped at once: only its names stay behind (``sh_type`` says
        which section ptxas asked for)."""
        self.obj.leave_names(name)

    def ask_relocations(self, target: Section, asks: list[tuple[str, list[Relocation] | None]], share: bool = False, flags: int = SHF_INFO_LINK) -> None:
        """Ask for .rel.<X>/.rela.<X> of ``target`` in the order ptxas does, creating each name:
        a section given entries (possibly none) is kept with them, one given None is dropped
        again (its name stays behind in the string tables). ``share``: a name asked (and
        dropped) before is reused, not made again (texture-index banks)."""
        for prefix, entries in asks:
            sh_type, size = (SHT_REL, 16) if prefix == ".rel" else (SHT_RELA, 24)
            sec = self.section(f"{prefix}{target.name}", sh_type, flags=flags, addralign=8, entsize=size, share=share)
            if self.resolved_ghosts and target.name not in self.resolved_asked:
                # -preserve-relocs -c below sm_90: ptxas makes .nv.resolvedrela<X> after the
                # first ask for X and drops it, nothing being resolved (tests/probes_flags
                # preserve_relocs_c)
                self.resolved_asked.add(target.name)
                self.ghost(f".nv.resolvedrela{target.name}", SHT_RELA)
            if entries is None:
                self.drop(sec)
            else:
                sec.link, sec.info = self.symtab, target  # type: ignore[assignment]
                sec.relocs = []
                self.pending_relocs.append((sec, entries))

    def reserved_smem(self) -> None:
        """sm_90+ EXEC: the reserved shared-memory symbols and section."""
        f = facts(self.sm)
        self.offset0()
        reserved = self.reserved_section()
        alias = Symbol(self.obj.strtab.add("__nv_reservedSMEM_offset_0_alias"), _WEAK_NOTYPE, 0xA0, reserved, 0, f.reserved_smem_offset)
        self.obj.add_symbol(alias)
        # the extern-function slots and the visible variables come before sm_110's workaround
        # object, the other variables after it (printf, global_vars, mix probes on sm_110)
        self.visible_walk(before_reserved=True)
        self.reserved_objects(reserved)

    def tcgen05(self) -> bool:
        """The module allocates tensor memory (tcgen05.alloc): ptxas reserves a partition
        object in reserved shared memory (fact ``tcgen05``)."""
        return bool(self.m.facts.get("tcgen05"))

    def reserved_objects(self, reserved: Section) -> None:
        """The objects of .nv.shared.reserved.0 after the offset symbols: sm_110's workaround
        object, then the tcgen05 partition (rsv_tcgen05_* probes: WEAK at its offset, in -c a
        REL-style variable valued at its alignment); the partition first where ptxas met the
        allocation before the first kernel (fact ``tcgen05_first``)."""
        first = bool(self.m.facts.get("tcgen05_first"))
        if not first:
            self.war_variable(reserved)
        self.tcgen05_partition(reserved)
        if first:
            self.war_variable(reserved)

    def tcgen05_partition(self, reserved: Section) -> None:
        """The tensor-memory partition's symbol, where the module allocates (fact ``tcgen05``)."""
        if not self.tcgen05():
            return
        from ..alloc.shared import RESERVED_TCGEN05

        name, size, _ = RESERVED_TCGEN05
        value = self.reserved_layout().symbols[name]  # type: ignore[union-attr]
        if self.rel:
            self.obj.new_symbol(name, info=0x2D, other=0xA0, section=reserved, value=value, size=size)
        else:
            self.obj.new_symbol(name, info=_WEAK_UND_OBJECT, section=reserved, value=value, size=size)

    def reserved_layout(self):  # type: ignore[no-untyped-def]
        from ..alloc.shared import layout_reserved_smem
        from .data import alloc_mode

        return layout_reserved_smem(self.sm, alloc_mode(self.m), tcgen05=self.tcgen05(), tcgen05_first=bool(self.m.facts.get("tcgen05_first")))

    def war(self) -> bool:
        """sm_110 keeps a hardware-workaround object in reserved shared memory."""
        return self.sm in facts(self.sm).reserved_smem_war_sms

    def reserved_section(self) -> Section:
        """.nv.shared.reserved.0, sized by cubinemit.alloc.shared.layout_reserved_smem; with a
        section symbol when objects live in it (sm_110's workaround object, the tcgen05
        partition)."""
        lay = self.reserved_layout()
        sh_type = SHT_CUDA_SHARED_RESERVED if self.rel else SHT_NOBITS
        return self.section(".nv.shared.reserved.0", sh_type, symbol=self.war() or self.tcgen05(), flags=SHF_ALLOC | SHF_WRITE, addralign=lay.align, nobits_size=lay.size)

    def war_variable(self, reserved: Section) -> None:
        """sm_110: __nv_reservedSMEM_gb10b_war_var, 0x80 bytes after the 0x40 reserved ones
        (relocatable output: a REL-style variable at 0x10), or after the tcgen05 partition
        placed first (alloc.shared.layout_reserved_smem)."""
        if not self.war():
            return
        from ..alloc.shared import RESERVED_WAR_VAR

        name, size, _ = RESERVED_WAR_VAR
        value = self.reserved_layout().symbols[name]  # type: ignore[union-attr]
        if self.rel:
            self.obj.new_symbol(name, info=0x2D, other=0xA0, section=reserved, value=value, size=size)
        else:
            self.obj.new_symbol(name, info=_WEAK_UND_OBJECT, section=reserved, value=value, size=size)

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
    def extern_calls(self, fn: Function) -> list[str]:
        """The extern functions ``fn`` calls."""
        called = set(fn.calls)
        if not called:
            return []
        # in declaration order (measured: free before malloc when declared so, whatever the call order)
        return [f.name for f in self.m.functions if f.linkage == "extern" and f.name in called]

    def debug_callee_symbols(self, fn: Function) -> None:
        """-g keeps the relocations; the static functions they name get their symbols now, in
        declaration order (not code order: k_poly calls poly before square, yet square is named
        first; fabsf before fmaxf; dbg_calls/dbg_kernel); so are the WEAK builtins it calls
        (softmax_warp -g: __cuda_sm20_rcp_rn_f32_slowpath is named right after the first
        kernel's symbols, before its .rela.text; tests/probes_rw2). Walked in G order
        (funcorder.g_order: non-static, WEAK builtins included, then static): printf_switch -g
        names the builtin __cuda_sm20_div_rn_f64_full before the static __internal_accurate_pow
        declared ahead of it (every target, tests/probes_rw2; tests/probes_builtin). -g -c
        with constants names them before the on-demand walk (bi_bank_late g_c)."""
        named = {r.symbol for r in fn.relocations}
        if self.order_names and fn.name == self.order_names[0]:
            # the first function also names every function whose address the module's code
            # takes (funcorder.symbol_creation_order; fp_takers -g: k names fa, fb, h)
            from ..funcorder import first_group_takings

            named |= first_group_takings(self.ptx_functions(), self.mode)
        if self.g_functions is None:  # G order, once per module
            self.g_functions = [f for f in self.m.functions if f.linkage != "static"] + [f for f in self.m.functions if f.linkage == "static"]
            for i, f in enumerate(self.g_functions):
                self.g_positions.setdefault(f.name, []).append(i)
        # the named functions in G order (looked up, not scanned: a scan per function was
        # quadratic in the number of functions)
        hits = sorted(i for n in named for i in self.g_positions.get(n, ()))  # type: ignore[arg-type]
        for callee in (self.g_functions[i] for i in hits):
            # a WEAK kernel (a template kernel) taken for a device-side launch is named so too
            # (dynpar_rdc -c, tests/probes_rw6: chain<int> names scale_chunk<float, double,
            # int> and chain<float, double>, the module's taken WEAK kernels, in G order)
            if callee.name in named and callee.linkage in ("static", "weak", "builtin") and callee.name != fn.name and callee.name not in self.func_symbols:
                info = _LOCAL_FUNC if callee.linkage == "static" else _WEAK_FUNC
                self.func_symbols[callee.name] = self.obj.new_symbol(callee.name, info=info, other=STO_CUDA_ENTRY if callee.is_kernel else 0, size=len(callee.sass))

    def text_relocations(self, fn: Function, text: Section) -> None:
        """Relocation sections of .text.<f>. Relocatable and -g output keep the relocations;
        whole-program output resolves them, keeping an empty .rela from sm_90 on when callees
        were inlined."""
        self.reference_symbols(fn)
        if self.rel and not self.debug:
            # -c names the static and weak callees its relocations name that have no symbol
            # yet like -g, before the relocation sections: -c -O0 makes functions in creation
            # order (tests/probes_lib lib_calls O0_c: `helper .rela.text.lib_add`), other -c
            # builds meet such a callee in a call cycle, where the DFS emits the caller first
            # (fo_recursion -c: `.nv.info.c2 f:c1 .rela.text.c2`); every target
            self.debug_callee_symbols(fn)
        if self.rel and not self.debug and self.family is not Family.LEGACY:
            self.relocatable_walk(fn, text)
            return
        if self.rel and fn.constants:
            if self.debug:
                self.debug_callee_symbols(fn)
            self.relocations_on_demand(fn, text)
            return
        # relocations ptxas emits and resolves itself: whole-program calls to extern functions
        # (through .nv.constant4), -g references to .const data, sm_90 -c references to the
        # tombstoned cap symbol
        # (and whole-program references to unresolved extern variables: decompose._resolved_extern_data)
        # -g -c: a resolved read of a reserved register asks .rel, then .rela, kept empty,
        # taken to come after the code's relocations (tests/probes_reserved, sm_90 and
        # sm_100a; reserved_reads_callee: `.rela.text.ka .rel.text.ka`, a call then a read)
        reads = self.rel and self.debug and bool(self.live_reads(fn))
        # (not when the optimizer folded every extern call away: fact extern_calls_folded,
        # decompose._extern_call_asks)
        calls_extern = bool(self.extern_calls(fn)) and not fn.facts.get("extern_calls_folded")
        resolved = bool(fn.facts.get("resolved_relocations")) or (not (self.rel or self.debug) and calls_extern)
        # whole program from sm_90 on: references to shared variables are resolved like the
        # calls of inlined callees, leaving an empty .rela (shared_module, shared_dynamic)
        # whole program: resolved references to shared memory the code makes (not merely a
        # section of declared, unreferenced variables: gsh_unused_no_cap asks nothing)
        # (and resolved reads of %reserved_smem_offset_*: tests/probes_reserved)
        shared_refs = not (self.rel or self.debug) and (live_shared_refs(self.m, fn) or bool(self.live_reads(fn)))
        # a resolved subroutine call: .rela, then .rel; or .rela right after a reference's .rel
        # ("after_rel"), or after the own variables and bank named since ("after_bank"):
        # decompose._resolved_call
        hidden = fn.facts.get("resolved_call") is True
        hidden_after = fn.facts.get("resolved_call") == "after_rel"
        hidden_late = fn.facts.get("resolved_call") == "after_bank"
        # whole program: calls to the clones are resolved relocations; a kernel that only
        # takes addresses reaches its clones through its bank and asks nothing
        # (decompose._clones_address_only)
        calls_clones = bool(fn.inlined) and not fn.facts.get("clones_address_only")
        # sm_90+: an indirect call resolved likewise (decompose._resolved_indirect_call)
        calls_clones = calls_clones or bool(fn.facts.get("resolved_indirect_call"))
        between = bool(fn.facts.get("own_between_asks")) and self.debug  # decompose._own_between
        if not fn.relocations and not calls_clones and not resolved and not shared_refs and not hidden and not between and not reads:
            if self.debug and self.order_names and fn.name == self.order_names[0]:
                # -g: the first function names the module's taken functions even when its own
                # code asks for nothing (dynpar_rdc -g -c, tests/probes_rw6: scale_chunk<float>
                # names the WEAK kernels launched elsewhere)
                self.debug_callee_symbols(fn)
            if self.debug:
                self.constant_bank(fn, text)
            if self.debug and _jump_tables(fn):
                # -g: the BRX's table reference asks for .rela.text.<f>, resolved and dropped
                # (jt_kernels probe, every target), also when the tables live in the caller's
                # late bank (jumptable -g: dev_jt, dev_weak_jt, dev_static_jt)
                self.ask_relocations(text, [(".rela", None)])
            self.unused_scoped(fn)  # -g: own .shared variables of a kernel without relocations
            return
        if self.debug:
            self.debug_callee_symbols(fn)
            # -g: the kernel's own constant bank comes after those symbols, before its
            # relocation sections (fp64 probe, every target), or, when the code's first
            # constant reference follows some relocations, after the asks they made (fact
            # constant_bank_after, decompose._resolved_references; printf_switch -g sm_75-89:
            # .rela.text/.rel.text/.nv.constant2 of calc)
            bank_after = int(fn.facts.get("constant_bank_after", 0))
            if not bank_after:
                self.constant_bank(fn, text)
        elif not self.rel and (calls_clones or shared_refs) and not hidden:
            if self.family is not Family.LEGACY:
                asks: list[tuple[str, list[Relocation] | None]] = [(".rel", None), (".rela", [])]
                # the first resolved reference carries an addend (sm_110a tcgen05: the reserved
                # alias + 0x80 comes first): .rela is asked first (fact ``rela_first``), or
                # alone where every one does ("only")
                first = fn.facts.get("rela_first")
                self.ask_relocations(text, asks[1:] if first == "only" else asks[::-1] if first else asks)
            elif resolved:  # below sm_90: the resolved extern call's .rel only (misc_device: __assertfail, tests/probes_rw2)
                # (and a resolved call's .rela after it: decompose._extern_call_asks)
                self.ask_relocations(text, [(".rel", None)] + ([(".rela", None)] if hidden_after else []))
            return
        # ptxas asks for a relocation section when it makes the first relocation of its kind,
        # in code order: a return address (against the function itself) starts RELA, every
        # other one (call target, address taking, data address, __UFT_OFFSET) starts REL and
        # may be turned RELA later, which asks for .rela then (from sm_90 on every entry ends
        # RELA). Relocations ptxas resolves itself still ask: they come first. Empty sections
        # are dropped. Measured on every -c/-g probe, tests/probes_fp (an address taken before
        # any call asks .rel first), printf and the data-address probes.
        legacy = self.family is Family.LEGACY
        rel, rela = _split(fn.relocations)
        kept_empty = "rela_kept" in (fn.facts.get("resolved_relocations"), fn.facts.get("own_between_asks")) or reads
        entries = {".rel": rel or None, ".rela": rela or ([] if kept_empty else None)}
        asked: list[str] = []

        bank_after = int(fn.facts.get("constant_bank_after", 0)) if self.debug else 0

        # -g: a kernel's own used .shared variables, named at their first (resolved) reference,
        # which comes after the first relocation section asked for; unused ones after the walk
        # (-g -c keeps some references: those variables are named at their relocation, below;
        # random -g -c modules, sm_75: `.rel.text.k0 s0b .rela.text.k0 s0a`, both referenced)
        named_by_relocation = {r.symbol for r in fn.relocations}
        own = [n for n in self.scoped_of.get(fn.name, ()) if fn.name in self.scoped[n].users and n not in named_by_relocation] if self.debug and fn.is_kernel else []
        after_bank = set(fn.facts.get("own_after_bank", ()))  # type: ignore[arg-type]
        after_rela = set(fn.facts.get("own_after_rela", ()))  # type: ignore[arg-type]

        def name_own() -> None:
            # -g: a kernel's own .shared variables are named once its first relocation section
            # is asked for (shared_module/sh_callgraph -g: `.rel.text.k1 k1a .rela.text.k1`
            # below sm_90, after both names from sm_90 on): once .rel is asked, even when a
            # return address asked .rela first (nvcc -G layernorm_smem, -g and -c, every
            # target: `.rela.text.k .rel.text.k partial`), used ones first
            # (fact own_shared_after_rela: their first reference came after .rela too,
            # decompose._own_shared_after_rela)
            if ".rel" in asked and (".rela" in asked or not fn.facts.get("own_shared_after_rela")):
                for name in own:
                    # one first referenced after the code's first constant reference is named
                    # once the bank is made (fact own_after_bank, data._decompose_debug_shared)
                    # (one first referenced after the code's first .rela ask once that is
                    # asked: fact own_after_rela)
                    if (name not in after_bank or fn.name in self.banks2) and (name not in after_rela or ".rela" in asked):
                        self.scoped_symbol(name)

        def ask(kind: str) -> None:
            if kind not in asked:
                asked.append(kind)
                self.ask_relocations(text, [(kind, entries[kind])])
                if len(asked) == bank_after:
                    # the kernel's own variables are named before the bank its first constant
                    # reference makes (kitchen80 -g sm_90: `.rela.text.k_sink_c bar1
                    # .nv.constant2.k_sink_c`)
                    name_own()
                    self.constant_bank(fn, text)
                    name_own()
                if kind == ".rel" and hidden_after:
                    ask(".rela")  # the resolved call right after the first .rel

        for name in fn.facts.get("shared_named_first", ()) if self.debug else ():  # type: ignore[union-attr]
            self.scoped_symbol(name)  # -g: the code's first reference names it before any ask
        if between:
            # .rela (a BRX's table reference), the kernel's own variable its code then names,
            # .rel (that reference's)
            ask(".rela")
            for name in fn.facts.get("own_between", own):  # type: ignore[union-attr]
                self.scoped_symbol(name)
            ask(".rel")
        if hidden:
            ask(".rela")
            ask(".rel")
        if resolved:
            ask(".rel")
            if not legacy:
                ask(".rela")  # turned RELA at once from sm_90 on
        refs = {d.name for d in self.m.data if d.space in REF_TYPES}
        name_own()
        for r in sorted(fn.relocations, key=lambda r: r.offset):
            if not r.symbol and not legacy:
                continue  # the YIELD hint pair: made after the walk from sm_90 on (below)
            # what a relocation names is made first (a function-scope .shared variable)
            self.scoped_symbol(r.symbol)
            # made RELA at once: a return address; a relocation with a nonzero addend (below
            # sm_90 the return address of a resolved internal call, kept in -c against no
            # symbol, and on every target a reference into the middle of a .const variable:
            # reduce_atomics/coop_grid/constant_tables -c, tests/probes_rw2); -c below sm_90, a
            # sampled texture's reference (texref_independent -c: .rela.text.k_texs first)
            # a kernel's own address for a device-side launch (R_CUDA_FUNC_DESC32_*) asks like
            # any other reference (device_launch -c, tests/probes_rw6/rules: self_launch names
            # `.rel.text.k .rela.text.k`, every target)
            # (a REL entry against the function itself is no return address: the function
            # takes its own address, which asks .rel like any taking; fz h015 -c sm_80: f1's
            # `mov.u64 %rd5, f1`)
            self_ref = r.symbol == fn.name and r.type not in _FUNC_DESC_TYPES and r.addend is not None
            if self_ref or r.addend or (legacy and r.symbol in refs and r.addend is not None):
                ask(".rela")
            else:
                ask(".rel")
                if not legacy:
                    ask(".rela")  # turned RELA at once from sm_90 on
            name_own()
        if not legacy and any(not r.symbol for r in fn.relocations):
            # relocations against no symbol, the YIELD hint pair of code for a PTX target
            # below sm_70: from sm_90 on made after the others, RELA (their entries follow the
            # others' in .rela; tests/probes_directives yield_hints -g -c: `.rel.text.f
            # .rela.text.f` though the pair sits at 0x0); below sm_90 in code order, the
            # opcode RELA, the predicate REL
            ask(".rela")
        if reads:
            ask(".rel")
            ask(".rela")
        if legacy and any(r.symbol != fn.name for r in rela):
            ask(".rela")
        if hidden_late:
            # after the own variables named since .rel and the bank if made since
            # (decompose._resolved_call); a bank made after both asks comes after it (random
            # -g module, sm_75-89: `s2a .rel.text.k2 s2b .rela.text.k2 .nv.constant2.k2`,
            # an atom loop before a BRX; tests/probes_gshared/gsh_atom_then_bank)
            ask(".rela")
        if bank_after:
            self.constant_bank(fn, text)  # made once
            name_own()
        self.unused_scoped(fn)  # variables no relocation names, after the walk

    def ptx_functions(self) -> list[PtxFunction]:
        """The functions as cubinemit.funcorder sees them (semantic.decompose.ptx_functions),
        worked out once per emission (a fresh list each call: callers may change theirs)."""
        if self.ptx is None:
            from .decompose import ptx_functions

            self.ptx = tuple(ptx_functions(self.m))
        return list(self.ptx)

    # -- per-function compiler constants (.nv.constant2.<f>) ------------------------------------
    def constant_bank(self, fn: Function, text: Section, *, late: bool = False) -> Section | None:
        """Create .nv.constant2.<f> for ``fn``'s constants (once) with its section symbol. ptxas
        creates it as .nv.constant.optimizer.<f> from sm_90 on and renames it later
        (rename_banks); executables make it right after the kernel's .nv.shared.<f> name (and the reserved-SMEM
        symbols of the first function), before the inlined copies' symbols; -g after the static
        callees' symbols; relocatable output at its first const_opt relocation. A -g kernel
        that holds only its callees' constants (fact ``constant_bank_late``) gets it from
        :meth:`late_constant_banks` (``late``)."""
        if not fn.constants or bool(fn.facts.get("constant_bank_late")) != late:
            return None
        bank = self.banks2.get(fn.name)
        if bank is not None:
            return bank
        # relocatable output types the bank CUDA_CONSTANT2, executables PROGBITS
        sh_type = SHT_CUDA_CONSTANT + 2 if self.rel else SHT_PROGBITS
        # sm_90+ creates it as .nv.constant.optimizer.<f> (renamed later, the old name's width
        # stays in .shstrtab); below sm_90 it is created under its final name
        prefix = ".nv.constant2." if self.family is Family.LEGACY else ".nv.constant.optimizer."
        bank = self.section(f"{prefix}{fn.name}", sh_type, symbol=True, flags=SHF_ALLOC | SHF_INFO_LINK, addralign=bank2_align(fn, self.rel, self.debug), data=fn.constants)
        bank.info = text
        self.banks2[fn.name] = bank
        return bank

    def late_constant_banks(self, functions: list[tuple[Function, Section]]) -> None:
        """-g whole program: a kernel whose own code has no compiler constants while its callees'
        have (jump tables, FP64 literals) gets its .nv.constant2.<k>, holding them, after
        .nv.callgraph and .nv.prototype (before .nv.rel.action), and from sm_90 on its .rela
        right after the banks made with it (late_bank_groups; jumptable -g, tests/probes_const2, every target: k_calls holds dev_jt's
        tables; realistic_G, tests/probes_rw, sm_75-89: mathy holds sin's 2/pi). Several such
        banks come in reverse .text order (kernels k_c, k_a, k_b calling device functions with
        FP64 literals, sm_75/sm_86 -g: .nv.constant2.k_b, .k_a, .k_c), as
        :func:`late_bank_order` gives them."""
        if self.debug_slots and self.family is not Family.LEGACY and any(fn.facts.get("constant_bank_late") for fn, _ in functions):
            # both come after .nv.prototype from sm_90 on; no probe tells their order
            raise NotImplementedError("-g late constant banks next to late texture-handle banks are not implemented yet")
        texts = {fn.name: text for fn, text in functions}
        for group in late_bank_groups([fn for fn, _ in functions]):
            banks = [(fn, self.constant_bank(fn, texts[fn.name], late=True)) for fn in group]
            if self.family is not Family.LEGACY:
                for fn, bank in banks:
                    if bank is not None:
                        self.ask_relocations(bank, [(".rela", fn.constant_relocations)])

    def relocations_on_demand(self, fn: Function, text: Section) -> None:
        """Relocatable output of a function with constants: ptxas walks the code in order and,
        at each relocation, first makes what it names (the bank at the first constant, then the
        constant's LOCAL object ``<f>.const_opt.<start>.<end>``), then the relocation section of
        its kind if not made yet (fp64 -c: .rela.text.<f> before the bank; jumptable -c: the
        second table's symbol after .rela.text.<f>). Relocations are listed in reverse code
        order, so the walk goes by ascending offset. A function-scope .shared variable is named
        at its first relocation too, as in text_relocations (kitchen80 -c of
        tests/nvinfo/probes/builder, sm_80: `$__bar0__40 .rel.text.k_sink_c $__bar1__41
        .rela.text.k_sink_c .nv.constant2.k_sink_c`), unreferenced ones after the walk."""
        rel, rela = _split(fn.relocations)
        made: set[str] = set()
        if fn.facts.get("resolved_relocations") and self.family is not Family.LEGACY:
            # -g -c sm_90+: a first reference to the tombstoned cap asks both before the first
            # variable is named (data._hidden_first_reference; gsh_own_before_bank -c sm_90+:
            # `.rel.text.k .rela.text.k $__s0__10 .nv.constant2.k`)
            made.update((".rel", ".rela"))
            self.ask_relocations(text, [(".rel", rel or None), (".rela", rela)])
        for r in sorted(fn.relocations, key=lambda q: q.offset):
            self.scoped_symbol(r.symbol)
            if _const_opt_span(fn, r.symbol) is not None and r.symbol not in self.func_symbols:
                self.const_opt_object(fn, text, r.symbol)  # type: ignore[arg-type]
            prefix = ".rel" if r.addend is None else ".rela"
            if self.family is not Family.LEGACY and r.addend == 0 and r.symbol != fn.name:
                # sm_90+: a call (or other zero-addend reference) starts REL and is turned RELA
                # at once, as in text_relocations (printf_switch -c: .rel.text._Z4calc... is
                # named at the builtin call, between two const_opt objects; tests/probes_rw2)
                prefix = ".rel"
            for kind in (prefix, ".rela") if prefix == ".rel" and self.family is not Family.LEGACY else (prefix,):
                if kind not in made:
                    made.add(kind)
                    self.ask_relocations(text, [(kind, (rel or None) if kind == ".rel" else rela)])
        self.unused_scoped(fn)
        if fn.name not in self.banks2:
            raise NotImplementedError(f"relocatable {fn.name!r} has constants but no relocation names a {fn.name}.const_opt object")

    def const_opt_object(self, fn: Function, text: Section, name: str) -> None:
        """The LOCAL object ``<f>.const_opt.<start>.<end>`` a -c relocation names, in the bank
        (made first if need be). Sized in whole words: kitchen -c -O0 sm_75, a 16-bit constant
        named k_sink_a.const_opt.16.18 is 4 bytes long (tests/probes_rw5/rules/const_opt_half)."""
        bank = self.constant_bank(fn, text)
        start, end = _const_opt_span(fn, name)  # type: ignore[misc]
        size = (end - start + 3) & ~3
        self.func_symbols[name] = self.obj.new_symbol(name, info=_LOCAL_CUDA_OBJECT, other=0x81, section=bank, value=start, size=size)  # type: ignore[arg-type]

    def relocatable_walk(self, fn: Function, text: Section) -> None:
        """-c, sm_90+: the relocation sections of .text.<f>, the bank and const_opt objects
        its constants need and its own .shared variables' names, made as
        :func:`relocatable_walk` orders them (the hidden reference's place being the fact
        ``hidden_ask_at``, decompose._hidden_asks). A function with constants keeps an empty
        .rela (relocations_on_demand); other sections asked without entries are dropped."""
        rel, rela = _split(fn.relocations)
        # a resolved read of a reserved register keeps an empty .rela, as constants do
        # (tests/probes_reserved -c: reserved_reads_begin, sm_90 and sm_100a)
        keep = bool(fn.constants) or bool(self.live_reads(fn))
        entries = {".rel": rel or None, ".rela": rela if keep else (rela or None)}
        at = fn.facts.get("hidden_ask_at")
        for kind, name in relocatable_walk(fn, at if isinstance(at, int) else None):
            if kind == "ask":
                self.ask_relocations(text, [(name, entries[name])])
            elif kind == "symbol":
                self.scoped_symbol(name)
            else:
                self.const_opt_object(fn, text, name)
        self.unused_scoped(fn)
        if fn.constants and fn.name not in self.banks2:
            raise NotImplementedError(f"relocatable {fn.name!r} has constants but no relocation names a {fn.name}.const_opt object")

    def jump_table_relocations(self, fn: Function) -> None:
        """From sm_90 on ptxas asks for .rela.nv.constant.optimizer.<f> of a bank that holds
        jump tables right after the function's text relocations, and keeps it (empty: the
        tables are .text offsets). Below sm_90 it asks for nothing (jumptable probe)."""
        bank = self.banks2.get(fn.name)
        if bank is None or self.family is Family.LEGACY:
            return
        if not _jump_tables(fn):
            if not self.rel and not self.debug and _address_table(fn):
                return  # asked after the debug payloads (address_table_relocations)
            if self.rel or self.debug or any(r.symbol for r in fn.constant_relocations):
                raise NotImplementedError(f"sm_90+ .nv.constant2.{fn.name} without jump or address tables")
            # a bank that holds nothing to relocate asks nothing (the 24 zero bytes ptxas gives
            # a kernel of a module without the ABI: tests/probes_directives module_local kb)
            return
        self.ask_relocations(bank, [(".rela", fn.constant_relocations)])
        if fn.name in self.deferred_scoped:
            self.scoped_symbols(fn)

    def unused_scoped(self, fn: Function) -> None:
        """The function-scope .shared variables no reference named, after the walk of its code;
        from sm_90 on a function with jump tables names them after its bank's .rela
        (jump_table_relocations; tests/probes_gshared/gsh_unused_brx, -g and -c:
        `.rela.text.k .rela.nv.constant.optimizer.k s0`)."""
        if self.family is not Family.LEGACY and _jump_tables(fn) and fn.name in self.banks2:
            self.deferred_scoped.add(fn.name)
        else:
            self.scoped_symbols(fn)

    def callgraph(self, protos: list) -> None:  # type: ignore[type-arg]
        """.nv.callgraph, then .nv.prototype (kept with entries, else dropped)."""
        graph = self.section(".nv.callgraph", SHT_CUDA_CALLGRAPH, symbol=True, addralign=4, entsize=8)
        graph.link = self.symtab
        if protos:
            proto = self.section(".nv.prototype", SHT_CUDA_PROTOTYPE, symbol=True, addralign=4, entsize=8)
            proto.link = self.symtab
            self.proto_section, self.protos = proto, protos
        else:
            self.ghost(".nv.prototype", SHT_CUDA_PROTOTYPE)

    # -- module texture/surface/sampler references (cubinemit.semantic.texrefs) ---------------
    def plan_handles(self, order: list[Function]) -> None:
        from .texrefs import plan_slots, texture_query

        self.order_names = [f.name for f in order]
        self.txq = texture_query(self.m)
        if not self.rel and not self.debug:
            self.slots = plan_slots(self.m)
        # -g: every handle-using kernel's bank 0 holds the module's handle table; its relocation
        # section is made with the bank and kept (texref_unified/texref_independent -g)
        self.debug_slots = plan_slots(self.m) if self.debug and not self.rel else {}

    def debug_slot_relocations(self, fn: Function, bank: Section) -> None:
        """-g below sm_90: the relocations of a kernel's handle table, in a .rel made right
        after its bank and, unlike every other relocation section, without SHF_INFO_LINK
        (texref_unified/texref_independent -g)."""
        from .texrefs import slot_relocations

        self.ask_relocations(bank, [(".rel", slot_relocations(self.debug_slots[fn.name], self.sm))], flags=0)

    def debug_handle_banks(self, late: list[tuple[Function, Section]], bank_type: int) -> None:
        """-g from sm_90 on: the banks of the kernels with a handle table are made after
        .nv.callgraph/.nv.prototype and before the GLOBAL symbols' names, in function order,
        each as .nv.constant.entry_image_header_indices.<k> (renamed .nv.constant0.<k> with the
        other banks) with its .rela kept, then its section symbol (texref_* -g, sm_90-sm_120)."""
        from .texrefs import slot_relocations

        for fn, text in late:
            if fn.name in self.debug_slots:
                self.index_bank(fn, text, bank_type, [(".rela", slot_relocations(self.debug_slots[fn.name], self.sm))])

    def reference_symbols(self, fn: Function) -> None:
        """texmode_independent: txq on a sampler reads .nv.independent.samplerrefDescSize, a WEAK
        undefined 4-byte object ptxas names before the function's relocation sections
        (texref_independent, hnd_independent; every family and mode)."""
        name = ".nv.independent.samplerrefDescSize"
        if name not in self.func_symbols and any(r.symbol == name for r in fn.relocations):
            self.func_symbols[name] = self.obj.new_symbol(name, info=_WEAK_UND_OBJECT, size=4)

    def param_ref_symbols(self, fn: Function, text: Section) -> None:
        """texmode_independent reference parameters: a LOCAL symbol each, typed like a module
        reference (10 texture, 11 sampler, 12 surface), in the kernel's .text at 0. Whole-program
        builds name them in parameter order before the kernel's bank 0; relocatable ones as the
        code's relocations first name them (:meth:`param_ref_symbol`; tests/probes_directives/
        ref_params, every family)."""
        from .texrefs import param_refs

        for name, kind in param_refs(fn):
            if name in self.pending_refs or name in self.func_symbols or name in self.functions or any(d.name == name for d in self.m.data):
                # ptxas reuses the other symbol and writes a broken KPARAM_INFO
                # (two kernels' `.param .texref t`): refused rather than reproduced
                raise ModelError(f"reference parameter {name!r} of {fn.name!r}: another symbol has that name")
            self.pending_refs[name] = (kind, text)
            if not self.rel:
                self.param_ref_symbol(name)

    def param_ref_symbol(self, name: str) -> None:
        """Make a reference parameter's symbol, once. Relocatable output makes it when the
        first relocation naming it is walked, like a function-scope .shared variable's
        (ref_params -c, every family: `t .rel.text.k .rela.text.k s su`), and any the code
        never names after the walk."""
        entry = self.pending_refs.pop(name, None)
        if entry is not None:
            kind, text = entry
            self.func_symbols.setdefault(name, self.obj.new_symbol(name, info=REF_TYPES[kind], section=text))

    def handle_bank(self, fn: Function, text: Section, bank_type: int) -> None:
        """sm_90+: a kernel with handle slots gets its bank 0 where sm_75-89 makes every bank,
        created as .nv.constant.entry_image_header_indices.<k> (renamed .nv.constant0.<k> with
        the other banks), then .rela of it asked and dropped unless the module queries
        textures, then its section symbol (tex, texind probes; texref_unified for txq)."""
        if self.family is Family.LEGACY or fn.name not in self.slots:
            return
        self.index_bank(fn, text, bank_type, [] if self.txq else [(".rela", None)])

    def index_bank(self, fn: Function, text: Section, bank_type: int, asks: list[tuple[str, list[Relocation] | None]]) -> None:
        """sm_90+: ``fn``'s bank 0 as .nv.constant.entry_image_header_indices.<k> (no .shstrtab
        name until the renames), the relocation sections ``asks`` names, then its section
        symbol."""
        bank = self.obj.create_section(f".nv.constant.entry_image_header_indices.{fn.name}", bank_type, in_strtab=False, flags=SHF_ALLOC | SHF_INFO_LINK, addralign=4)
        self.created[id(bank)] = bank.name
        bank.info = text
        self.ask_relocations(bank, asks)
        self.section_symbol(bank)
        self.handle_banks[fn.name] = bank

    def bank_relocations(self, first: bool) -> None:
        """The relocation names of the banks ptxas fills after the debug payloads, function by
        function (function order): the first function's after the debug payloads' and module
        data's, before .debug_frame's; every other one's after .debug_frame's. Each function
        asks its function-address table's (.nv.constant2) before its handle slots' (bank 0):
        sm_90: `.rela.nv.constant2.k1_sf .rela.nv.constant0.k1_sf .rela.debug_frame
        .rela.nv.constant2.k2_f`, `... .rela.debug_frame .rela.nv.constant2.k2_sf
        .rela.nv.constant0.k2_sf .rela.nv.constant0.k0_s` (tests/probes_texg/tbl_*)."""
        for n, name in enumerate(self.order_names):
            if (n == 0) == first:
                self.address_table_relocations(name)
                self.handle_relocations(name)

    def handle_relocations(self, name: str) -> None:
        """The handle slots' relocation sections of kernel ``name``. Below sm_90 .rel only,
        from sm_90 on .rel (dropped) then .rela; a name asked when the bank was made is reused
        (texref_unified, hnd_unified: k_e before .rel.debug_frame; tex/texind -lineinfo after
        .rel.nv_debug_line_sass)."""
        from .texrefs import slot_relocations

        bank = self.handle_banks.get(name)
        if bank is None:
            return
        relocs = slot_relocations(self.slots[name], self.sm)
        if self.family is Family.LEGACY:
            self.ask_relocations(bank, [(".rel", relocs)], share=True)
        else:
            self.ask_relocations(bank, [(".rel", None), (".rela", relocs)], share=True)

    def address_table_relocations(self, name: str) -> None:
        """Executables: a bank holding a table of function addresses gets .rela then .rel
        asked after the debug payloads (ftab probe; propagation_order: kp_ind_ba, then
        .rel.debug_frame, then kp_ind_ab and kp_mixed; fo_fptr: K2's before .rel.debug_frame,
        K1's after .rela.debug_frame, every target): both dropped below sm_90 (asked under the
        bank's final name), .rela kept empty from sm_90 on (the addresses are resolved; asked
        under the creation name)."""
        if self.rel or self.debug:
            return
        bank = self.banks2.get(name)
        if bank is None or not _address_table(self.functions[name]):
            return
        if self.family is Family.LEGACY:
            final = final_name(self.created[id(bank)])
            self.ghost(f".rela{final}", SHT_RELA)
            self.ghost(f".rel{final}", SHT_REL)
        elif _jump_tables(self.functions[name]):
            # the .rela asked for the bank's jump tables (jump_table_relocations) stays the one:
            # only .rel is new (a kernel whose inlined factory switches over five classes and
            # stores their vtables, sm_90: `.rela.nv.constant2.run ... ~.rel.nv.constant.optimizer.run`;
            # tests/probes_rw6/rules/vtable_factory)
            self.ask_relocations(bank, [(".rel", None)])
        else:
            self.ask_relocations(bank, [(".rela", []), (".rel", None)])

    def debug_sections(self) -> None:
        """The debug payloads after the functions, in the order ptxas creates them (the order
        the model lists them), .debug_frame first (always made; a section symbol only when it
        has bytes). Each payload's relocation names follow it, but .debug_frame's come after
        every other debug section, and .debug_line's after .debug_str when there is one."""
        m = self.m
        payloads = {d.name: d for d in m.debug}
        if ".debug_frame" not in payloads:
            payloads[".debug_frame"] = DebugSection(".debug_frame", b"")
        ordered = [payloads[".debug_frame"]] + [d for d in m.debug if d.name != ".debug_frame"]
        sections: dict[str, Section] = {}
        for i, d in enumerate(ordered):
            if d.name in sections:  # made early (.debug_str, below)
                continue
            if not d.data and not d.relocations and empty_ptx_section(d.name):
                # DWARF the PTX declares empty: relocatable output makes the section and drops
                # it, whole-program output does not make it (Triton -g: .debug_macinfo)
                if self.rel:
                    self.ghost(d.name)
                continue
            sec = sections[d.name] = self.section(d.name, SHT_PROGBITS, symbol=bool(d.data), data=d.data)
            if d.name == ".debug_line" and i + 1 < len(ordered) and ordered[i + 1].name == ".debug_str":
                # PTX with inlined-at line info (`.loc ..., function_name ...`) brings .debug_str:
                # ptxas makes it while it writes the line program, before asking for
                # .debug_line's relocation sections, which it then asks .rela first (every
                # family, every mode: dbg_inline_L)
                s_str = ordered[i + 1]
                sections[s_str.name] = self.section(s_str.name, SHT_PROGBITS, symbol=bool(s_str.data), data=s_str.data)
                if s_str.relocations:
                    raise NotImplementedError(".debug_str with relocations is not implemented yet")
                self.debug_relocations(sec, d.relocations, rela_first=True)
            elif d.name != ".debug_frame" and (d.relocations or d.labels or d.name in _RELA_ALWAYS):
                self.debug_relocations(sec, d.relocations, labels=d.labels)
            elif d.labels:
                raise NotImplementedError(f"unplaced labels in {d.name} are not implemented yet")
        late = (CONSTANT4,) if self.constant4_late else ()
        self.data_relocations(skip=late)
        self.bank_relocations(first=True)
        frame = payloads[".debug_frame"]
        if frame.relocations:
            self.debug_relocations(sections[".debug_frame"], frame.relocations, frame=True)
        if late:
            self.data_relocations(only=late)  # later_extern_slots
        self.bank_relocations(first=False)

    def debug_relocations(self, sec: Section, relocs: list[Relocation], frame: bool = False, rela_first: bool = False, labels: list[str] | None = None) -> None:
        """Relocation sections of a debug payload. From sm_90 on: .rel asked then .rela kept.
        Below sm_90 line tables and .debug_loc only ask .rel; .debug_frame asks .rel then .rela,
        which an executable drops empty and relocatable output fills with the RELA entries.
        .debug_info (nvcc -G PTX: DW_AT_low_pc/high_pc of each function, with addends) only
        asks .rela, on every family; so do .debug_pubnames/.debug_pubtypes (nvcc -G PTX for
        sm_100+: one reference to .debug_info each, kept in -c only; sm_100a-121).
        ``rela_first``: .rela then .rel (.debug_line followed by
        .debug_str). ``labels``: unplaced PTX labels (undefined local symbols), named after the
        first relocation; below sm_90 the first one asks .rela (an executable drops it empty),
        from sm_90 on they follow both asks (nvcc -G dbg_inline, .debug_loc)."""
        if labels and sec.name in _RELA_ALWAYS and not rela_first:
            # a label the DWARF names but the PTX never places (clang -O0 -g: .debug_info names
            # a printf format string `.str`, the IR name LLVM renamed `_$_str`) follows the
            # .rela ask; an executable drops the entry, relocatable output keeps it (every
            # family, every mode: tests/probes_debug/dbg_unplaced_info_label)
            self.ask_relocations(sec, [(".rela", relocs or None)])
            self.label_symbols(labels)
            return
        if labels:
            if sec.name != ".debug_loc" or rela_first or not relocs:
                raise NotImplementedError(f"unplaced labels in {sec.name} are not implemented yet")
            first = min(relocs, key=lambda r: r.offset)
            if first.offset > 0 or first.symbol in labels:
                # the first entry is an unplaced label's (relocatable output relocates it
                # against the label, an executable leaves offset 0 without a relocation): its
                # symbol is made, it asks .rela, then the next entry .rel,
                # then the other labels as they come (`.debug_loc $L__tmp5 .rela.debug_loc
                # .rel.debug_loc $L__tmp48`: nvcc -G, a template kernel with a
                # __grid_constant__ struct whose first location starts at a dropped label;
                # tests/probes_debug/dbg_grid_const, every target and mode)
                self.label_symbols(labels[:1])
                if self.family is not Family.LEGACY:
                    self.ask_relocations(sec, [(".rela", relocs), (".rel", None)])
                else:
                    # (below sm_90 the placed ones stay REL; the labels' RELA entries only in
                    # relocatable output)
                    rel, rela = _split(relocs)
                    self.ask_relocations(sec, [(".rela", rela or None), (".rel", rel or None)])
                self.label_symbols(labels[1:])
                return
            if self.family is not Family.LEGACY:
                self.ask_relocations(sec, [(".rel", None), (".rela", relocs)])
                self.label_symbols(labels)
            else:
                # relocatable output keeps the label relocations (RELA, addend 0); an
                # executable drops them, and the .rela section with them
                rel, rela = _split(relocs)
                self.ask_relocations(sec, [(".rel", rel or None)])
                self.label_symbols(labels[:1])
                self.ask_relocations(sec, [(".rela", rela or None)])
                self.label_symbols(labels[1:])
            return
        if sec.name in _RELA_ALWAYS:
            if any(r.addend is None for r in relocs):
                raise NotImplementedError(f"{sec.name} relocations without addend are not implemented yet")
            # an executable resolves the pubnames/pubtypes reference to .debug_info and drops
            # the section; relocatable output keeps it
            self.ask_relocations(sec, [(".rela", relocs or None)])
            return
        if rela_first:
            rel, rela = _split(relocs)
            if self.family is not Family.LEGACY:
                rel, rela = [], relocs
            self.ask_relocations(sec, [(".rela", rela or None), (".rel", rel or None)])
            return
        if self.family is not Family.LEGACY:
            self.ask_relocations(sec, [(".rel", None), (".rela", relocs)])
            return
        rel, rela = _split(relocs) if self.rel else (relocs, [])
        asks: list[tuple[str, list[Relocation] | None]] = [(".rel", rel or None)]
        if frame:
            asks.append((".rela", rela or None))
        self.ask_relocations(sec, asks)

    def label_symbols(self, names: list[str]) -> None:
        """Undefined LOCAL NOTYPE symbols for unplaced PTX labels."""
        for name in names:
            self.obj.new_symbol(name, info=0)

    def prototypes(self, order: list[Function]) -> list:  # type: ignore[type-arg]
        """.nv.prototype entries (relocatable output only)."""
        if not self.rel:
            return []
        from ..funcorder import prototypes

        return prototypes(self.ptx_functions(), self.mode, [f.name for f in order], self.sm)

    def signature_strings(self, order: list[Function]) -> None:
        """The signature strings come first in .strtab (funcorder.signature_strings: the
        .nv.prototype ones, the address-taken functions' and the .callprototype ones, last
        created first); ptxas writes them whether or not .nv.prototype is kept."""
        from ..funcorder import signature_strings

        if self.rel or self.debug:
            ptx = self.ptx_functions()
            for text in signature_strings(ptx, self.mode, [f.name for f in order], self.sm):
                self.obj.strtab.add(text)

    def address_taken_symbols(self, first: Function) -> None:
        """-c: the address-taken functions that have no symbol yet get their local or weak one
        right after the first function's .nv.info (and, for a kernel, its reserved-SMEM and
        UDT/UFT symbols), together with the first function's callees, in G order; their global
        names still come with the other globals (ptxas, -c, every target: tests/probes_fp;
        r4_1 random module: the callee f00 between the address-taken f02 and f04 would
        otherwise come after them)."""
        if not self.rel or self.debug:
            return
        from ..funcorder import g_order, taken_functions

        # (those only module data takes too: tests/funcorder_probes/fo_table_load -c)
        taken = taken_functions(self.ptx_functions())
        if taken:
            taken |= set(first.calls)
        for name in g_order(self.ptx_functions()):
            fn = self.functions[name]
            if name in taken and name not in self.func_symbols and fn.linkage in ("static", "weak") and not fn.is_kernel:
                info = _LOCAL_FUNC if fn.linkage == "static" else _WEAK_FUNC
                self.func_symbols[name] = self.obj.new_symbol(name, info=info, size=len(fn.sass))

    def global_function_symbols(self, late: list[tuple[Function, Section]], early: bool = False) -> set[str]:
        """Relocatable and -g output: the GLOBAL function symbols (visible functions, called
        externs) in the order ptxas created the symbols (funcorder.symbol_creation_order: each
        function of the order, then the callees without a symbol yet in G order, the first
        function also every address-taken function), the visible variables right after the
        first function's own (r1_0 random module -c: f05 calls f02, so `f02 f09` although .text
        has f09 first; fo_random_fptr -c: address-taken f00 before f09; ad hoc: .text
        `s0 zz K aa tk`, globals `s0 gv aa zz K tk`; ftab -c: k_itab f_one f_two f_three k_ftab
        with .text k_itab f_three f_two f_one k_ftab; calls -c: k_malloc malloc free; sm_75,
        sm_90). ``early``: a -c library module names the visible variables before any function
        (f2 probe). Returns the externs named."""
        from ..funcorder import symbol_creation_order

        texts = {fn.name: text for fn, text in late}
        created = symbol_creation_order(self.ptx_functions(), self.mode, [fn.name for fn, _ in late])
        names = [n for n in created if self.functions[n].linkage in ("visible", "extern")]
        first = late[0][0].name
        if early:
            self.visible_data_symbols()
        elif names and names[0] == first:
            self.global_function_symbol(first, texts)
        if not early:
            self.visible_data_symbols()
        externs = set()
        for name in names:
            self.global_function_symbol(name, texts)
            if self.functions[name].linkage == "extern":
                externs.add(name)
        return externs

    def global_function_symbol(self, name: str, texts: dict[str, Section]) -> None:
        if name in self.func_symbols:
            return
        fn = self.functions[name]
        text = texts.get(name)
        if fn.linkage == "extern":
            # an extern .entry (a kernel of another unit, launched from the device) is marked
            sym = Symbol(self.obj.strtab.add(name), _GLOBAL_FUNC, STO_CUDA_ENTRY if fn.is_kernel else 0, None)
        elif text is not None:
            sym = Symbol(self.obj.strtab.add(name), _GLOBAL_FUNC, STO_CUDA_ENTRY if fn.is_kernel else 0, text, 0, 0, len(fn.sass))
        else:
            raise ModelError(f"visible function {name!r} has no .text")
        self.func_symbols[name] = self.obj.add_symbol(sym)

    def first_function_symbols(self, first: Function | None = None) -> None:
        """After the first function's section (or at the end when there is none): the reserved
        shared-memory block in executables, the UDT/UFT symbols then the reserved-SMEM offset
        in relocatable output (sm_90+); then the module data (``first``: the function whose
        section it follows)."""
        self.reserved_symbols()
        self.data_block(first)

    def data_block(self, first: Function | None = None) -> None:
        """Module variables, visible and weak ones first, each group in declaration order: a
        variable's section is made (with its section symbol) when the first variable needs it,
        a weak or non-visible variable gets its WEAK or LOCAL symbol now. Whole program: .nv.constant4 comes
        first when the first function calls an extern function, else right after the first
        .global variable. -c: when ``first`` is a visible or weak device function, the
        .shared variables its code uses are named between the two groups, the unused ones after
        the walk (tests/probes_casks dev_shared_first: `.nv_debug.shared $__d0__10 .nv.global gv
        ms $__u0__9` after the visible `vs`, -c -O0, sm_75-120; -g -c alike, `d0 ms`; a static
        one's all come after the walk, with its code)."""
        self.visible_walk()
        if first is not None and self.rel and not first.is_kernel and first.linkage in ("visible", "weak"):
            for name in self.scoped_of.get(first.name, ()):
                if first.name in self.scoped[name].users:
                    self.scoped_symbol(name)
        p = self.plan
        if p is None:
            return
        for v in p.walk():
            if not walked_first(v):
                self.walked_symbol(v)
        if (self.debug or DEBUG_SHARED in p.layouts) and not self.rel and any(d.space == "shared" and d.linkage == "extern" for d in self.m.data):
            # -g: extern .shared lives in .nv_debug.shared; ptxas walks the externs after the
            # non-visible variables, whatever their declaration order (realistic -g:
            # `o:__cudart_i2opi_d .nv_debug.shared` with `sm` declared before `$str`; a
            # module variable walked earlier made the section already, shared_dynamic -g).
            # Whole program without kernels the same (shared_extern_no_kernel: `c .nv_debug.shared`)
            self.data_section(DEBUG_SHARED)

    def walked_symbol(self, v: DataObject) -> None:
        """Name ``v`` where the data walk reaches it: its section first (made if needed), then
        its symbol, LOCAL for a non-visible variable, WEAK for a weak one (`.weak .global`:
        STT_OBJECT 0x21, or STT_CUDA_OBJECT 0x2d marked with its space in relocatable output,
        tests/probes_weak), then .nv.constant4 after the first .global variable."""
        p = self.plan
        assert p is not None
        name = section_of(v)
        self.data_section(name)
        if self.dropped(v):
            return
        section, value = self.data_sections[name], p.layouts[name].offsets.get(v.name, 0) if name in p.layouts else 0
        late = None
        if v.space == "shared" and self.shared is not None:
            # -g: a module variable one kernel reaches lives in that kernel's section
            # (shared_dynamic -g: s_static in .nv.shared.k_dyn)
            where, value = self.shared.symbols[v.name]
            section, late = self.shared_home(where, section)
        bind = STB_WEAK << 4 if v.linkage == "weak" else 0
        self.data_symbols[v.name] = self.obj.new_symbol(v.name, info=bind | (0x0D if self.rel else 0x01), other=self.space_mark(v), section=section, value=value, size=v.size)
        if late is not None:
            self.late_shared.append((self.data_symbols[v.name], late))
        self.place(v)  # .nv.constant4 after the first .global variable's symbol

    def descriptor_names(self) -> None:
        """Whole program: the weak kernels whose addresses initializers hold and whose symbols
        are not made yet get them once the first function's own symbols are made, before its
        inlined copies' and its relocations; their code sections come later (clang
        -fgpu-rdc's __clang_gpu_used_external = {weak template kernels}: CUDA samples
        matrixMul, nbody, sm_90 and sm_100a, the shared-memory cap's tombstone before the
        name; tests/probes_data init_kernel_addresses)."""
        if self.rel or self.debug or self.plan is None:
            return
        # in declaration order, as their .nv.constant4 slots (data.plan; Mandelbrot's {1d, 1f,
        # 0d, 0f} declared 0f 0d 1f 1d names 0f, 0d, 1f, 1d)
        for name in self.plan.descriptors:
            fn = self.functions.get(name)
            if fn is not None and fn.linkage == "weak" and fn.name not in self.func_symbols:
                self.func_symbols[fn.name] = self.obj.new_symbol(fn.name, info=_WEAK_FUNC, other=STO_CUDA_ENTRY if fn.is_kernel else 0, size=len(fn.sass))

    def dropped(self, v: DataObject) -> bool:
        """-g: a .shared variable no function references. ptxas drops it, but walks it first: a
        module variable makes .nv_debug.shared at its place in the data walk (made and deleted
        when nothing lands there: an unused `.shared mu` declared before `.global gout` makes it
        before .nv.global), a device function's right after that function's code section
        (sh_rand14 -g: `S:.text.fn0 ~.nv_debug.shared`); it gets no symbol."""
        return self.debug and not self.rel and v.space == "shared" and self.shared is not None and v.linkage != "extern" and v.name not in self.shared.symbols

    def shared_home(self, where: str, fallback: Section) -> tuple[Section, str | None]:
        """The section of a -g module .shared symbol, and the name of the kernel section to
        move it to later when that section is not made yet: ptxas names the variable in the
        data walk and places it when it allocates, after every function (sh_rand10 -g: `m0`
        privatised to .nv.shared.k1 is named after `gout`, before .text.k1)."""
        found = self.obj.find_section(where)
        if found is not None:
            return found, None
        return fallback, where

    def resolve_late_shared(self) -> None:
        for y, where in self.late_shared:
            found = self.obj.find_section(where)
            if found is None:
                raise NotImplementedError(f"-g: {y.name!r} is privatised to {where}, which is never made")
            y.section = found
        self.late_shared.clear()

    def visible_walk(self, before_reserved: bool = False) -> None:
        """The extern-function slots, then the sections of the visible variables (their
        symbols are named with the GLOBAL ones) and, in the same declaration-order walk, the
        weak variables with their symbols (sm_110: before the workaround object); once.
        ``before_reserved``: the walk sm_110 makes before its reserved shared-memory objects,
        which leaves out the variables the PTX declares after a kernel (fact
        ``visible_after_kernel``, decompose._visible_after_kernel); a later walk makes theirs."""
        p = self.plan
        if p is None or self.walked:
            return
        late = set(self.m.facts.get("visible_after_kernel", ())) if before_reserved else set()  # type: ignore[call-overload]
        self.walked = not late
        self.extern_slots()
        for v in p.walk():
            if v.name in late or v.name in self.walked_names:
                continue
            if v.linkage == "visible":
                self.walked_names.add(v.name)
                self.place(v)
            elif v.linkage == "weak":
                self.walked_names.add(v.name)
                self.walked_symbol(v)


    def place(self, v: DataObject) -> None:
        """Make ``v``'s section if needed, and .nv.constant4 after the first .global variable."""
        self.data_section(section_of(v))
        if v.space == "global" and self.plan is not None and self.plan.constant4:
            self.data_section(CONSTANT4)

    def shared_section(self, fn: Function, text: Section) -> bool:
        """.nv.shared.<k> of a kernel, made after its .nv.info.<k> (dropped again when the
        kernel has no shared memory). It gets a section symbol when static variables live in
        it; a kernel whose section only exists because the module declares extern shared
        memory has none (shared_dynamic, sh_rext probes). True when the kernel uses shared
        memory (static or dynamic)."""
        name = f".nv.shared.{fn.name}"
        sh_type = SHT_CUDA_SHARED if self.rel else SHT_NOBITS
        sec = self.shared.sections.get(name) if self.shared is not None else None
        if sec is None:
            self.ghost(name, sh_type)
            return False
        # the section symbol comes with static bytes: a -g kernel that only uses extern shared
        # memory gets one when its extern sits above the static bytes of the other kernels of
        # its component (sh_rext2012 -g: .nv.shared.k1, 0x440 bytes, uses only x0)
        static = any(d.size for d in self.shared_objects(fn)) or (self.debug and not self.rel and sec.size > facts(self.sm).shared_base)
        s = self.section(name, sh_type, symbol=static, flags=SHF_ALLOC | SHF_WRITE | SHF_INFO_LINK, addralign=sec.align, nobits_size=sec.size)
        s.info = text
        return self.uses_shared(fn)

    def local_section(self, fn: Function, text: Section) -> None:
        """.nv.local.<k> of a kernel when the module declares ``.local`` variables: every
        kernel's holds all of them, used or not, made after its constants' bank, and, unless
        -O0, after its callees' copies and its text relocations (sm_90: the resolved call's
        .rel/.rela.text.<k>), before its .nv.constant0 (every target and mode ptxas builds
        such PTX in: the ABI is off, so no relocatable output; tests/probes_directives
        module_local)."""
        block = local_block(self.m.data)
        if block is not None:
            size, align = block
            self.section(f".nv.local.{fn.name}", SHT_NOBITS, symbol=True, flags=SHF_ALLOC | SHF_WRITE | SHF_INFO_LINK, addralign=align, nobits_size=size).info = text

    def scoped_symbol(self, name: str | None) -> None:
        """-c: the symbol of a function-scope .shared variable, made when the first relocation
        naming it is emitted (shared_module -c: `.rel.text.k lv:$__s_local__N .rela.text.k`
        below sm_90, after both names from sm_90 on). Its value is its alignment (the linker
        places it); a kernel's own variables live in .nv.shared.<k>, device functions' in
        .nv_debug.shared."""
        if name in self.pending_refs:
            self.param_ref_symbol(name)
            return
        if not name or name in self.data_symbols or self.shared is None:
            return
        d = self.scoped.get(name)
        if d is None:
            return
        if self.dropped(d):
            owner = self.functions.get(d.scope or "")
            if owner is not None and not owner.is_kernel:
                self.data_section(DEBUG_SHARED)  # made (and deleted) for it all the same
            return
        if name not in self.shared.symbols:
            return
        where, value = self.shared.symbols[name]
        owner = self.functions.get(d.scope or "")
        if owner is not None and not owner.is_kernel:
            # a device function's variable is named in .nv_debug.shared's list, which is made
            # (and dropped when -g privatised everything) first (sh_rand14 -g)
            self.data_section(DEBUG_SHARED)
        late = None
        if where == DEBUG_SHARED:
            section = self.data_section(DEBUG_SHARED)
        elif self.debug and not self.rel and owner is not None and not owner.is_kernel:
            # -g: a device function's variable privatised to a kernel made later is named
            # after the function's code and placed at allocation (nvcc: a __noinline__
            # function's __shared__ buffer, its only caller a later kernel)
            section, late = self.shared_home(where, self.data_section(DEBUG_SHARED))
        else:
            found = self.obj.find_section(where)
            if found is None:
                raise NotImplementedError(f"{name!r} lives in {where}, which is made after it is named")
            section = found
        self.data_symbols[name] = self.obj.new_symbol(name, info=0x0D if self.rel else 0x01, other=self.space_mark(d), section=section, value=value, size=d.size)
        if late is not None:
            self.late_shared.append((self.data_symbols[name], late))

    def const0_size(self, fn: Function) -> None:
        """The LOCAL INTERNAL undefined object of 4 bytes ptxas makes for the first function
        (in .text order) whose code reads :data:`CONST0_SIZE`, before its relocations: a
        kernel's after its .nv.info and the module symbols the first function makes, a device
        function's after its .shared variables' names, before its .nv.info; after the shared
        cap either way (const0_size -c, -g -c, -c -O0 on every target: `.text.f $__sh_f__7
        .nv.ptx.const0.size .nv.info.f`, `.nv.shared.k .nv.reservedSmem.cap .nv.ptx.const0.size
        .rela.text.k`). -g and whole-program builds resolve it."""
        if CONST0_SIZE not in self.data_symbols and any(r.symbol == CONST0_SIZE for r in fn.relocations):
            self.data_symbols[CONST0_SIZE] = self.obj.new_symbol(CONST0_SIZE, info=_LOCAL_OBJECT, other=_STV_INTERNAL, size=4)

    def scoped_symbols(self, fn: Function) -> None:
        """Name every .shared variable ``fn`` declares that has no symbol yet, in declaration
        order."""
        for name in self.scoped_of.get(fn.name, ()):
            self.scoped_symbol(name)

    def shared_objects(self, fn: Function) -> list[DataObject]:
        """The shared variables ``fn`` declares or references."""
        return [d for d in self.m.data if d.space == "shared" and (d.scope == fn.name or fn.name in d.users)]

    def uses_shared(self, fn: Function) -> bool:
        return bool(self.shared_objects(fn))

    def reserved_reads(self, fn: Function) -> list[str]:
        """The reserved shared-memory symbols ``fn``'s PTX names, in first-reference order
        (``.nv.reservedSmem.<name>``): shared memory names ``cap``, the base of its addresses,
        and so does a read of %reserved_smem_offset_cap; %reserved_smem_offset_begin names
        ``begin``, %reserved_smem_offset_0 ``offset0``; %reserved_smem_offset_end names none
        (tests/probes_reserved). Fact ``reserved_refs`` where the code reads such a
        register, else the shared-memory cap (data.cap_trigger)."""
        if "reserved_refs" in fn.facts:
            names = fn.facts["reserved_refs"]
            if not isinstance(names, list) or not all(n in RESERVED_READ_NAMES for n in names):
                raise ModelError(f"function {fn.name!r}: fact reserved_refs {names!r} is not a list of {', '.join(RESERVED_READ_NAMES)}")
            return list(names)
        return ["cap"] if cap_trigger(self.m, fn) else []

    def live_reads(self, fn: Function) -> set[str]:
        """The reserved symbols ``fn``'s code still names after optimisation: a read the
        optimizer removed (fact ``reserved_refs_dead``) names its symbol all the same."""
        if "reserved_refs" not in fn.facts:
            return set()
        return set(self.reserved_reads(fn)) - set(fn.facts.get("reserved_refs_dead", ()))  # type: ignore[arg-type]

    def read_resolved(self, name: str) -> bool:
        """sm_90 deletes a reserved symbol once a reference to it is resolved (Blackwell
        keeps them for its Mercury relocations)."""
        return self.family is not Family.BLACKWELL and any(name in self.live_reads(f) for f in self.m.functions)

    def reserved_names(self, fn: Function) -> None:
        """Where the first function naming them is processed (after the symbols the shared
        cap comes after: :meth:`shared_cap`), the reserved symbols it names, each once, in its
        first-reference order (tests/probes_reserved, sm_90 and sm_100a: `.nv.reservedSmem.cap
        .nv.reservedSmem.begin` for a kernel storing to shared memory before it reads
        %reserved_smem_offset_begin, the other way round after). A whole-program kernel names
        its inlined callees' after its own."""
        if self.family is Family.LEGACY:
            return
        for name in self.reserved_reads(fn):
            if name == "cap":
                self.shared_cap()
            elif name != "offset0" and name not in self.reserved_made:
                sym = self.obj.new_symbol(f".nv.reservedSmem.{name}", info=_WEAK_UND_OBJECT, size=4)
                self.reserved_made.add(name)
                if self.read_resolved(name):
                    self.obj.tombstone(sym)

    def offset0(self) -> None:
        """.nv.reservedSmem.offset0 (WEAK UND at the reserved offset), deleted in place on sm_90
        when a read of %reserved_smem_offset_0 is resolved."""
        sym = self.obj.new_symbol(".nv.reservedSmem.offset0", info=_WEAK_UND_OBJECT, size=4, value=facts(self.sm).reserved_smem_offset)
        if self.read_resolved("offset0"):
            self.obj.tombstone(sym)

    def shared_cap(self) -> None:
        """After the first kernel with shared variables (and the first function's symbols):
        .nv.reservedSmem.cap (WEAK UND, at the reserved base) from sm_100 on; sm_90 creates it
        and deletes it again, leaving a tombstone entry (measured on shared probes)."""
        if self.cap_done or self.family is Family.LEGACY:
            return
        self.cap_done = True
        cap = self.obj.new_symbol(".nv.reservedSmem.cap", info=_WEAK_UND_OBJECT, size=4, value=facts(self.sm).shared_base)
        if self.family is not Family.BLACKWELL and (cap_resolved(self.m) or self.read_resolved("cap")):
            self.obj.tombstone(cap)

    def extern_slots(self) -> None:
        """Whole program: when the first function calls an extern function, its address takes
        the first .nv.constant4 slot and the bank is made before any variable."""
        p = self.plan
        first = self.functions.get(self.order_names[0]) if self.order_names else None
        if p is not None and p.constant4 and ((first is not None and self.extern_calls(first)) or p.descriptors):
            # kernel addresses in initializers take the first slots the same way
            self.data_section(CONSTANT4)

    def later_extern_slots(self, fn: Function) -> None:
        """Whole program: with neither an extern call in the first function nor a .global
        variable, .nv.constant4 is made by the first later kernel calling an extern, after its
        .nv.shared.<k> (tests/probes_gfold/fold_two_kernels def: `.nv.shared.kp_c .nv.constant4
        .rel.text.kp_c`, kp_ab first calls none; every target). Its relocation names then
        follow .debug_frame's (`.rel.debug_frame .rela.debug_frame .rel.nv.constant4`)."""
        p = self.plan
        if p is not None and p.constant4 and not (self.rel or self.debug) and self.extern_calls(fn) and CONSTANT4 not in self.data_sections:
            self.data_section(CONSTANT4)
            self.constant4_late = True

    def data_section(self, name: str) -> Section:
        """The module data section ``name``, made now if it does not exist yet (under the name
        ptxas creates it with on this family)."""
        sec = self.data_sections.get(name)
        if sec is not None:
            return sec
        d = DATA_SECTIONS[name]
        p = self.plan
        assert p is not None
        sh_type = d.rel_type if self.rel else d.exec_type
        if name == DEBUG_SHARED and name not in p.layouts:
            # -g: every module object went to a kernel's section; ptxas made .nv_debug.shared
            # and dropped it (sh_rand13 -g: `~.nv_debug.shared o:m1`)
            sec = self.section(d.creation_name(self.sm), sh_type, flags=d.flags)
            self.drop(sec)
            self.data_sections[name] = sec
            return sec
        if name == CONSTANT4:
            size, align = 8 * len(p.constant4), 8
            payload: dict[str, object] = {"data": bytes(size)}
        else:
            lay = p.layouts[name]
            size, align = lay.size, lay.align
            payload = {"nobits_size": size} if name in (GLOBAL, DEBUG_SHARED) else {"data": self.data_bytes(name)}
        # .nv_debug.shared gets a section symbol when a variable lives in it (-g: not for
        # externs alone, shared_dynamic -g)
        symbol = name != DEBUG_SHARED or bool(p.layouts[name].offsets)
        sec = self.section(d.creation_name(self.sm), sh_type, symbol=symbol, flags=d.flags, addralign=align, **payload)
        self.data_sections[name] = sec
        return sec

    def data_bytes(self, name: str) -> bytes:
        p = self.plan
        assert p is not None
        lay = p.layouts[name]
        out = bytearray(lay.size)
        for v in p.variables:
            if v.name in lay.offsets and v.init is not None:
                off = lay.offsets[v.name]
                out[off : off + v.size] = v.init
        return bytes(out)

    def data_relocations(self, skip: tuple[str, ...] = (), only: tuple[str, ...] | None = None) -> None:
        """Relocation sections of module data, after the debug payloads' (bank 4 first, then the
        initialisers' of bank 3 and .nv.global.init in the order :func:`data.initialiser_ask_order`
        gives). Below sm_90 only .rel is asked; from sm_90 on .rel then .rela.
        ``skip`` / ``only``: the sections left out / the only ones done this time."""
        p = self.plan
        if p is None:
            return
        legacy = self.family is Family.LEGACY
        # the data walk's order (`static ftab = {f, f}; gfp = f` lists gfp's entry first and
        # asks ftab's first; tests/probes_data init_across_sections)
        walk = p.walk()
        asks: dict[str, list[tuple[str, list[Relocation] | None]]] = {}
        resolved_any = False
        for name in DATA_RELOCATION_ORDER:
            sec = self.data_sections.get(name)
            if sec is None or name in skip or (only is not None and name not in only):
                continue
            if name == CONSTANT4:
                addend = None if legacy else 0
                # one R_CUDA_64 per slot, listed from the last slot back
                relocs = [Relocation(8 * i, R_CUDA_FUNC_DESC_64 if slot in p.descriptors else R_CUDA_64, slot, addend) for i, slot in reversed(list(enumerate(p.constant4)))]
                self.ask_relocations(sec, initialiser_asks(legacy, relocs, False))
                continue
            lay = p.layouts[name]
            relocs = [Relocation(lay.offsets[v.name] + r.offset, r.type, r.symbol, r.addend) for v in walk if v.name in lay.offsets for r in v.relocations]
            resolved = self.m.facts.get("resolved_data", {}).get(name)  # type: ignore[union-attr]
            if resolved is not None:
                # function addresses ptxas resolved itself (whole program) ask sections of their
                # own: the sections asked, in order, each dropped or kept (empty or with the
                # entries left; decompose._resolved_data_relocations)
                resolved_any = True
                rel, rela = _split(relocs) if legacy else ([], relocs)
                left = {".rel": rel, ".rela": rela}
                asks[name] = [(str(kind), left[str(kind)] or ([] if stays else None)) for kind, stays in resolved]
            else:
                asks[name] = initialiser_asks(legacy, relocs, rela_asked_first(p.variables, lay.offsets))
        if not asks:
            return
        given = self.m.facts.get("data_ask_order")
        if given is not None:
            # resolved function addresses ask unseen: the order across sections as read
            order = [(str(n), str(k)) for n, k in given]  # type: ignore[union-attr]
        elif resolved_any:
            order = [(n, k) for n in asks for k, _ in asks[n]]
        else:
            home = {v.name: n for n in asks for v in p.variables if v.name in p.layouts[n].offsets}
            order = initialiser_ask_order(legacy, [(home[v.name], v.relocations) for v in walk if v.name in home])
        entries = {n: dict(a) for n, a in asks.items()}
        done: set[tuple[str, str]] = set()
        for n, k in order + [(n, k) for n in asks for k, _ in asks[n]]:
            if (n, k) in done or k not in entries.get(n, {}):
                continue
            done.add((n, k))
            self.ask_relocations(self.data_sections[n], [(k, entries[n][k])])

    def visible_data_symbols(self) -> None:
        """GLOBAL symbols of visible variables, in declaration order (after the first function's)."""
        p = self.plan
        if p is None:
            return
        info = 0x1D if self.rel else 0x11
        planned = {id(v) for v in p.variables}  # identity: attrs equality would compare the bytes
        # module .texref/.surfref/.samplerref: undefined GLOBAL symbols, those the first
        # function uses before the visible variables, the others after them, each part in the
        # model's order (texref_*, hnd_* probes; texrefs.refs_used)
        from .texrefs import refs_used

        # (-g keeps no kernel's own uses, only the module's handle table: the model's order,
        # which the decomposer read off the symbols, stands)
        hoist = not self.mode.device_debug
        first = self.functions.get(self.order_names[0]) if self.order_names and hoist else None
        used = refs_used(self.m, first) if first is not None else set()
        ref_vars = [v for v in self.m.data if v.space in REF_TYPES and hoist]
        for v in ref_vars:
            if v.name in used:
                self.obj.new_symbol(v.name, info=0x10 | REF_TYPES[v.space])
        for v in self.m.data:
            if v.space in REF_TYPES:
                if not hoist:
                    self.obj.new_symbol(v.name, info=0x10 | REF_TYPES[v.space])
                continue
            if v.linkage in ("extern", "common") and v.space in ("global", "const"):
                # -c: an extern variable, undefined, of its declared size (rdc_lib probe); a
                # .common one the same in SHN_COMMON, its value the alignment (common_global)
                if not self.rel:
                    raise ModelError(f"extern variable {v.name!r}: only relocatable output leaves a variable undefined")
                y = self.obj.new_symbol(v.name, info=0x1D, other=self.space_mark(v), size=v.size, value=v.align if v.linkage == "common" else 0)
                if v.linkage == "common":
                    y.shndx = SHN_COMMON
                self.data_symbols[v.name] = y
                continue
            if id(v) in planned and v.linkage == "visible" and not self.dropped(v):
                name = section_of(v)
                section, value = self.data_sections[name], p.layouts[name].offsets.get(v.name, 0) if name in p.layouts else 0
                late = None
                if v.space == "shared" and self.shared is not None:
                    where, value = self.shared.symbols[v.name]  # -g: maybe privatised to a kernel
                    section, late = self.shared_home(where, section)
                self.data_symbols[v.name] = self.obj.new_symbol(v.name, info=info, other=self.space_mark(v), section=section, value=value, size=v.size)
                if late is not None:
                    self.late_shared.append((self.data_symbols[v.name], late))
        for v in ref_vars:
            if v.name not in used:
                self.obj.new_symbol(v.name, info=0x10 | REF_TYPES[v.space])
        self.resolve_late_shared()
        if self.rel or self.debug:
            # extern .shared, named after the visible variables (shared_dynamic: `k_nodyn
            # dyn_smem k_dyn`): -c leaves it an undefined GLOBAL; -g places it in
            # .nv_debug.shared after the static bytes of the kernels that use it
            for d in self.m.data:
                if d.space == "shared" and d.linkage == "extern":
                    if self.rel:
                        self.data_symbols[d.name] = self.obj.new_symbol(d.name, info=0x1D, other=self.space_mark(d))
                    else:
                        value = self.shared.symbols[d.name][1] if self.shared is not None else 0
                        self.data_symbols[d.name] = self.obj.new_symbol(d.name, info=0x11, section=self.data_section(DEBUG_SHARED), value=value)

    def space_mark(self, v: DataObject) -> int:
        """Relocatable output types variables STT_CUDA_OBJECT and marks their space in st_other
        (0x20 .global, 0x80 .const, 0x40 .shared); a managed variable has 0x04 in every mode."""
        managed = 0x04 if v.managed else 0  # .attribute(.managed), every mode (realistic probe)
        if not self.rel:
            return managed
        return SPACE_MARKS[v.space] | managed

    def rename_banks(self) -> None:
        """Banks created under another name (.nv.constant.pic/.user/.optimizer.<f>, sm_90+) get
        their final names after the GLOBAL symbols, in creation order: in place in .shstrtab
        (tail zero-filled); in .strtab in place below sm_100 and appended from sm_100 on, where
        their section symbols take the new name. Their relocation sections are renamed in
        .shstrtab only (.strtab keeps the creation name)."""
        mode = "append" if self.family is Family.BLACKWELL else "in_place"
        for sec in list(self.obj.sections):
            created = self.created.get(id(sec), sec.name)
            final = final_name(created)
            if final == created or sec.sh_type in (SHT_REL, SHT_RELA):
                continue
            symbols = [y for y in self.obj.symbols if y.section is sec and y.type == 3 and y.name_slot is sec.strtab_slot]
            self.obj.rename_section(sec, final, strtab=mode)
            for y in symbols:
                y.name_slot = sec.strtab_slot
            for r in self.obj.sections:
                if r.sh_type in (SHT_REL, SHT_RELA) and r.info is sec:
                    self.obj.rename_section(r, final_name(self.created[id(r)]), strtab="keep")

    def reserved_symbols(self) -> None:
        if self.family is Family.LEGACY:
            return
        if self.debug and not self.rel:  # -g: the offset symbol only; sm_110 adds the section and its object
            self.offset0()
            if self.war() or self.tcgen05():
                self.visible_walk(before_reserved=True)  # the visible variables' sections come first (sm_110)
                self.reserved_objects(self.reserved_section())
            return
        if not self.rel:
            self.reserved_smem()
            return
        # relocatable output, -g or not (-g -c measured on every probe)
        for name in ("__UDT_OFFSET", "__UFT_OFFSET", "__UFT_CANONICAL", "__UDT_CANONICAL", "__UFT", "__UDT", "__UFT_END", "__UDT_END"):
            self.obj.new_symbol(name, info=_WEAK_UND_OBJECT, size=8)
        self.offset0()
        if self.war() or self.tcgen05():  # relocatable: the objects' bytes only
            self.visible_walk(before_reserved=True)  # the visible variables' sections come first (sm_110)
            self.reserved_objects(self.reserved_section())

    def function_order(self) -> list[Function]:
        """ptxas's .text order (cubinemit.funcorder): -g (with or without -c) gives every function
        a .text, non-static ones in declaration order, then the static ones; relocatable output
        the post-order DFS (declaration order at -O0); whole program the kernels in reverse PTX
        order; a module that takes a function's address shuffles the non-DFS orders."""
        from ..funcorder import function_order

        m = self.m
        if not self.debug and not self.rel:
            kernels = [f for f in m.functions if f.is_kernel]
            inlined = {n for k in kernels for n, _, _ in k.inlined}
            if any(not f.is_kernel and f.linkage != "extern" and f.name not in inlined for f in m.functions):
                raise NotImplementedError("device functions that are not inlined into a kernel")
        names = function_order(self.ptx_functions(), self.mode)
        return [self.functions[n] for n in names]

    def run(self) -> ElfObject:
        m, obj = self.m, self.obj
        self.rel = bool(m.options.get("compile_only"))
        self.debug = m.device_debug  # -g, or PTX with `.target ..., debug` (nvcc -G)
        self.mode = m.ordering_mode()
        why = unmodelled_options(m.options, kernels=sum(f.is_kernel and f.linkage != "extern" for f in m.functions))
        if why is not None:
            raise NotImplementedError(why)
        if self.debug and any(d.space == "local" for d in m.data):
            raise NotImplementedError(NO_ABI_DEBUG)
        for f in m.functions:
            for callee, _, _ in f.inlined:
                if callee not in self.functions:
                    raise ModelError(f"function {f.name!r} holds a copy of unknown function {callee!r} (inlined)")
        if self.rel:
            obj.e_type = ET_REL
        preserve = bool(m.options.get("preserve_relocs")) and self.family is Family.LEGACY
        if preserve and not self.rel:
            # whole program keeps the .nv.resolvedrela sections of what it resolved
            raise NotImplementedError("-preserve-relocs whole-program output below sm_90 (.nv.resolvedrela sections) is not implemented yet")
        self.resolved_ghosts = preserve
        order = self.function_order()
        self.copy_names = builtin_copy_names(m, [f.name for f in order])
        self.shared = shared_layout(m, self.sm)
        self.plan = plan_data(m, [f.name for f in order], self.shared)
        self.cap_done = False
        self.reserved_made: set[str] = set()
        self.plan_handles(order)
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
        # an optimised -c module without kernels (a library of device functions) makes them
        # before its first function's .text, not after it (sm_75-sm_120, -c and -c -lineinfo;
        # -c -O0 and -g -c keep the usual place)
        early = bool(order) and self.rel and not self.mode.creation_style and not any(f.is_kernel for f in order)
        if early:
            self.first_function_symbols()
        for i, fn in enumerate(order):
            # static and weak functions (kernels included) are named before their .text, a
            # kernel marked STO_CUDA_ENTRY (fo_linkage: `W:K3 .text.K3`, `f:K2 .text.K2`, every
            # target and mode)
            entry = STO_CUDA_ENTRY if fn.is_kernel else 0
            if fn.linkage == "static":
                if fn.name not in self.func_symbols:
                    self.func_symbols[fn.name] = obj.new_symbol(fn.name, info=_LOCAL_FUNC, other=entry, size=len(fn.sass))
            elif fn.linkage == "weak" and fn.name not in self.func_symbols:
                self.func_symbols[fn.name] = obj.new_symbol(fn.name, info=_WEAK_FUNC, other=entry, size=len(fn.sass))
            text = self.section(f".text.{fn.name}", SHT_PROGBITS, symbol=True, flags=SHF_ALLOC | SHF_EXECINSTR, addralign=128, data=fn.sass)
            text.link = self.symtab
            if fn.is_kernel:
                nvi = self.section(f".nv.info.{fn.name}", SHT_CUDA_INFO, flags=SHF_INFO_LINK, addralign=4)
                nvi.link, nvi.info = self.symtab, text
                self.shared_section(fn, text)
                if i == 0:
                    self.first_function_symbols()
                else:
                    self.later_extern_slots(fn)
                self.reserved_names(fn)
                self.const0_size(fn)
                self.param_ref_symbols(fn, text)
            else:
                if i == 0 and not early:
                    self.first_function_symbols(fn)
                # -c: a device function's .shared variables are named now, in declaration
                # order, used or not (sh_callgraph -c: `.text.dev_b $__db__42 $__db_unused__43
                # .nv.info.dev_b`)
                self.scoped_symbols(fn)
                self.reserved_names(fn)
                self.const0_size(fn)
                nvi = self.section(f".nv.info.{fn.name}", SHT_CUDA_INFO, flags=SHF_INFO_LINK, addralign=4)
                nvi.link, nvi.info = self.symtab, text
            if i == 0:
                self.address_taken_symbols(fn)
                self.descriptor_names()
            if not self.rel and not self.debug:
                self.constant_bank(fn, text)
            if fn.is_kernel and self.mode.opt_level == 0:
                self.local_section(fn, text)  # -O0: before the copies' symbols
            for callee, offset, size in clones_in_order(fn):
                # the copy is bound like its callee: static -> LOCAL, weak -> WEAK (both named
                # now), visible -> GLOBAL (named with the globals, after its kernel)
                linkage = self.functions[callee].linkage
                if linkage == "builtin":  # $__internal_N_$<builtin> (decompose._BUILTIN_COPY)
                    obj.new_symbol(self.copy_names[(fn.name, callee)], info=_WEAK_FUNC, section=text, value=offset, size=size)
                elif linkage != "visible":
                    obj.new_symbol(f"${fn.name}${callee}", info=_LOCAL_FUNC if linkage == "static" else _WEAK_FUNC, section=text, value=offset, size=size)
            self.text_relocations(fn, text)
            if fn.is_kernel and self.mode.opt_level != 0:
                self.local_section(fn, text)
            for name in [n for n, (_, t) in self.pending_refs.items() if t is text]:
                self.param_ref_symbol(name)  # -c: reference parameters the code never names
            self.jump_table_relocations(fn)
            self.handle_bank(fn, text, bank_type)
            if self.family is Family.LEGACY and fn.is_kernel:
                bank = obj.create_section(f".nv.constant0.{fn.name}", bank_type, in_strtab=False, flags=SHF_ALLOC | SHF_INFO_LINK, addralign=4)
                bank.info = text
                if fn.name in self.debug_slots:
                    # -g below sm_90: the table's .rel right after its bank, flags 0
                    self.debug_slot_relocations(fn, bank)
                elif not self.rel and not self.txq:
                    # whole program with txq/suq asks no .rel of bank 0 here (texref_unified)
                    self.ghost(f".rel.nv.constant0.{fn.name}", SHT_REL)
                if fn.name in self.slots:
                    self.handle_banks[fn.name] = bank
                self.section_symbol(bank)
                if self.rel:
                    # relocatable, below sm_90: the parameter block's symbol (strings shared), or
                    # _SREG at 0 for a kernel without parameters
                    # (a block of more than 4352 bytes sits at the large base, 0x1a80: hnd_unified_large -c)
                    base, size = _param_block(m.target, fn)
                    if size:
                        obj.new_symbol("_param", info=_LOCAL_CUDA_OBJECT, other=0x81, section=bank, value=base, size=size)
                    else:  # the special-register block below the parameters
                        obj.new_symbol("_SREG", info=_LOCAL_CUDA_OBJECT, other=0x81, section=bank, size=base)
            late.append((fn, text))

        if not order:
            self.first_function_symbols()  # made after the first function, or here when there is none
        self.resolve_late_shared()
        self.debug_sections()
        if not self.txq:
            # whole program with txq/suq makes no .nv.callgraph and no .nv.prototype name
            # (texref_unified, texref_independent, hnd_* probes on every family)
            self.callgraph(protos)
        self.late_constant_banks(late)
        if self.debug_slots and self.family is not Family.LEGACY:
            self.debug_handle_banks(late, bank_type)
        if self.family is Family.LEGACY and not self.rel:
            self.section(".nv.rel.action", SHT_CUDA_RELOCINFO, symbol=True, addralign=8, entsize=8)

        # GLOBAL symbols get their names now, in symtab order: relocatable and -g output in
        # creation order (global_function_symbols), executables in function order
        externs_done: set[str] = set()
        if late and (self.rel or self.debug):
            externs_done = self.global_function_symbols(late, early)
        elif early:  # and the visible variables before the first function (f2 probe, -c)
            self.visible_data_symbols()
        extern_names = [f.name for f in m.functions if f.linkage == "extern"]  # declaration order
        for n, (fn, text) in enumerate(late):
            if fn.linkage == "visible" and fn.name not in self.func_symbols:
                sym = Symbol(obj.strtab.add(fn.name), _GLOBAL_FUNC, STO_CUDA_ENTRY if fn.is_kernel else 0, text, 0, 0, len(fn.sass))
                self.func_symbols[fn.name] = obj.add_symbol(sym)
            else:
                sym = self.func_symbols[fn.name]
                sym.section = text
            text.info = sym
            if n == 0 and not (self.rel or self.debug):  # the visible variables are named after the first function
                self.visible_data_symbols()
            if facts(self.sm).text_info_regcount:
                text.info_high = _info_facts(fn).get("register_count", 0) << 24  # type: ignore[operator]
            # an undefined function gets its GLOBAL symbol after the first function naming it (a
            # relocation, or in whole-program output a call resolved through .nv.constant4); a
            # name no function has (__UFT_OFFSET, a variable, a constant object) is not one.
            # They come in declaration order, not code order (fo_syscalls -c: helper calls
            # vprintf then free, named `vprintf free`; calls to free vprintf malloc are named
            # `vprintf malloc free` as declared; non-syscall externs alike; sm_75, sm_90)
            refs = {r.symbol for r in fn.relocations if r.symbol} | set(self.extern_calls(fn))
            named = [n for n in extern_names if n in refs]
            for ref in named:
                target = self.functions.get(ref)
                if ref not in externs_done and target is not None and target.linkage == "extern":
                    externs_done.add(ref)
                    if ref not in self.func_symbols:
                        self.func_symbols[ref] = obj.add_symbol(Symbol(obj.strtab.add(ref), _GLOBAL_FUNC, 0, None))
            # the copies of visible callees, after the externs (fo_syscalls K3: `K3 malloc free
            # $K3$vhelper`; with a visible variable: `K gv malloc $K$aa $K$zz`, sm_90)
            for callee, offset, size in clones_in_order(fn):
                if self.functions[callee].linkage == "visible":
                    obj.add_symbol(Symbol(obj.strtab.add(f"${fn.name}${callee}"), _GLOBAL_FUNC, 0, text, 0, offset, size))
        if not late:
            self.visible_data_symbols()
        self.rename_banks()
        if facts(self.sm).late_bank0:
            for fn, text in late:
                if fn.is_kernel and fn.name not in self.handle_banks:
                    bank = self.section(f".nv.constant0.{fn.name}", bank_type, symbol=True, flags=SHF_ALLOC | SHF_INFO_LINK, addralign=4)
                    bank.info = text
        if facts(self.sm).mercury:
            self.mercury_tail(late)
        self.const0_size_value()
        self.resolve_relocations()
        return obj

    def const0_size_value(self) -> None:
        """ptxas leaves the size of the module's .const bank in the value of the undefined
        :data:`CONST0_SIZE` (tests/probes_data/const0_size_user: 0x11 for `.const` arrays of 5,
        8 and 3 bytes, 0 without a .nv.constant3)."""
        sym = self.data_symbols.get(CONST0_SIZE)
        bank = self.obj.find_section(CONSTANT3)
        if sym is not None and bank is not None:
            sym.value = len(bank.data)

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
        handles = {id(b) for b in self.handle_banks.values()}
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
        for s in relocation_order(obj):  # (header order)
            if s.sh_type in (SHT_REL, SHT_RELA) and not s.mercury:
                # relocation clones keep the creation name of their section (.rela.nv.constant.pic,
                # .rela.nv.constant.optimizer.<f>)
                c = clone(s, f".nv.merc{self.created.get(id(s), s.name)}", SHT_CUDA_MERC_RELA, flags=SHF_INFO_LINK, addralign=8, entsize=24)
                c.info = clones.get(id(s.info), s.info) if isinstance(s.info, Section) else 0
                c.relocs = []
                merc_symtab_ref.append(c)
        # then the banks (texture-index banks .nv.constant.entry_image_header_indices.<k>,
        # constant2 per function, module banks 3 and 4) in creation order, then
        # .nv.global.init, each under its creation name (measured on sm_100a/sm_110/sm_120:
        # texref_unified makes its index banks first; kitchen makes .nv.constant.pic, then
        # k_sink_a's optimizer bank, then its index bank)
        banks2 = {id(b) for b in self.banks2.values()}
        made = {key: n for n, key in enumerate(self.created)}
        banks = sorted((x for x in existing if id(x) in handles or id(x) in banks2 or x.name in (CONSTANT3, CONSTANT4)), key=lambda x: made[id(x)])
        for s in banks + [x for x in existing if x.name == GLOBAL_INIT]:
            if id(s) in handles:
                c = clone(s, f".nv.merc{self.created[id(s)]}", SHT_CUDA_CONSTANT_MERC0, flags=s.flags, addralign=s.addralign)
                c.info = clones[id(s.info)] if isinstance(s.info, Section) else 0
            elif id(s) in banks2:
                # .nv.merc.nv.constant.optimizer.<f> (CUDA_MERCURY_CONSTANT_OPT), sh_info its
                # function's capsule
                c = clone(s, f".nv.merc{self.created[id(s)]}", SHT_CUDA_MERC_CONSTANT_OPT, flags=s.flags, addralign=s.addralign)
                c.info = clones[id(s.info)] if isinstance(s.info, Section) else 0
            else:
                clone(s, f".nv.merc{self.created[id(s)]}", MERCURY_DATA_TYPES[s.name], flags=s.flags, addralign=s.addralign, data=s.data)
        for c in obj.sections:  # relocation clones point at the bank clones made after them
            if c.mercury and c.sh_type == SHT_CUDA_MERC_RELA and isinstance(c.info, Section) and id(c.info) in clones:
                c.info = clones[id(c.info)]
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
        late = {id(s) for s in obj.sections if s.name.startswith(".nv.constant0.") and facts(self.sm).late_bank0 and id(s) not in handles}
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


#: R_CUDA_FUNC_DESC32_32 / _LO_32 / _HI_32: a kernel's address, taken for a device-side launch
_FUNC_DESC_TYPES = (61, 62, 63)

#: the Mercury clone of a .nv.constant2.<f> bank
SHT_CUDA_MERC_CONSTANT_OPT = 0x70000084
#: the Mercury clone of a texture-index bank 0 (0x70000079 + bank number)
SHT_CUDA_CONSTANT_MERC0 = 0x70000079


def relocatable_walk(fn: Function, hidden_at: int | None) -> list[tuple[str, str]]:
    """-c, sm_90+: what ptxas makes as it walks ``fn``'s code, in order, each once:
    ("symbol", name) at a relocation's first naming (a function-scope .shared variable gets
    its symbol then), ("const", name) a ``<f>.const_opt`` object (its bank first), ("ask",
    ".rel"/".rela") the relocation section of a reference's kind. A return address or a
    reference with an addend starts RELA; one against no symbol (YIELD_OPCODE9_0 and
    YIELD_CLEAR_PRED4_87) comes after the walk, RELA; any other starts REL and is turned
    RELA at once (every entry ends RELA from sm_90 on). Relocations are listed in reverse code order, so
    the walk goes by ascending offset.

    ``hidden_at``: the code also makes a reference ptxas resolves itself, leaving no entry
    (the tombstoned .nv.reservedSmem.cap base of a shared address: sm_90 `UMOV UR5, 0x400`
    before the `UIADD3` that adds it to a variable's address), which asks .rel then .rela
    where it stands in the code, before the ``hidden_at``-th kept relocation (random -c
    modules with a .const read, a jump table and a function-scope .shared array, sm_90-121:
    `.rela.text.k1 .rel.text.k1 .nv.constant2.k1 k1.const_opt.0.16 $__s1b__46`, the cap's
    UMOV between the .const read and the table's load; tests/probes_casks)."""
    events: list[tuple[str, str]] = []
    made: set[tuple[str, str]] = set()

    def once(kind: str, name: str) -> None:
        if (kind, name) not in made:
            made.add((kind, name))
            events.append((kind, name))

    relocs = sorted(fn.relocations, key=lambda r: r.offset)
    for i in range(len(relocs) + 1):
        if i == hidden_at:
            once("ask", ".rel")
            once("ask", ".rela")
        if i == len(relocs):
            break
        r = relocs[i]
        if r.symbol:
            once("symbol", r.symbol)
        if fn.constants and _const_opt_span(fn, r.symbol) is not None:
            once("const", r.symbol)  # type: ignore[arg-type]
        if not r.symbol:
            continue  # the YIELD hint pair: made after the walk (below)
        if r.symbol == fn.name or r.addend:
            once("ask", ".rela")
        else:
            once("ask", ".rel")
            once("ask", ".rela")
    if any(not r.symbol for r in relocs):
        # relocations against no symbol, the YIELD hint pair of code for a PTX target below
        # sm_70, come after the walk, RELA (gpuocelot's particles -c, sm_90: only .rela)
        once("ask", ".rela")
    return events


def _const_opt_span(fn: Function, symbol: str | None) -> tuple[int, int] | None:
    """(start, end) of a relocatable constant object ``<f>.const_opt.<start>.<end>``."""
    prefix = f"{fn.name}.const_opt."
    if not symbol or not symbol.startswith(prefix):
        return None
    start, _, end = symbol[len(prefix) :].partition(".")
    if not (start.isdigit() and end.isdigit()):
        return None
    return int(start), int(end)


def bank2_align(fn: Function, rel: bool, debug: bool) -> int:
    """The bank's alignment: 4 in executables; relocatable and -g output align it to 8 when one
    of its constant objects is 8 bytes (an FP64 literal, a two-entry jump table) and to 4
    otherwise (fp64, jumptable and switch_fp64 probes, every target). -g keeps no constant
    objects: the jump tables are known (order -g: one four-entry table, 4; jt_kernels -g: a
    two-entry one, 8), the other bytes are FP64 literals when there are 8 of them (sync -g:
    k_atom16's one float, 4)."""
    spans = [sp for sp in (_const_opt_span(fn, r.symbol) for r in fn.relocations) if sp is not None]
    if rel and spans:
        # -g -c names the objects too (lowp_math -g -c sm_75, tests/probes_rw6: half_math's
        # eleven 16-bit constants in 4-byte slots, 44 bytes, align 4)
        return 8 if any(end - start == 8 for start, end in spans) else 4
    if debug:
        tables = _jump_table_sizes(fn)
        rest = len(fn.constants) - sum(tables)
        if rest >= 8 and rest % 8:
            # words that are not all FP64 literals (lowp_math -g sm_75: eleven 16-bit
            # constants, align 4); whether FP64 literals sit among them only the compiler
            # knows: fact ``constant_align`` (decompose._bank_alignment)
            if "constant_align" not in fn.facts:
                raise ModelError(f".nv.constant2.{fn.name}: -g bank of {rest} bytes of constants that are not all FP64 literals: say its alignment (fact constant_align: 8 when an FP64 literal is among them, else 4)")
            return int(fn.facts["constant_align"])  # type: ignore[call-overload]
        return 8 if 8 in tables or rest >= 8 else 4
    return 4


def _jump_table_sizes(fn: Function) -> list[int]:
    """The byte size of each of the function's jump tables (a u32 per target)."""
    info = fn.facts.get("nvinfo")
    branches = info.get("indirect_branches") if isinstance(info, dict) else None
    return [4 * len(b["targets"]) for b in branches or ()]


def _jump_tables(fn: Function) -> bool:
    """The function has brx.idx jump tables (INDIRECT_BRANCH_TARGETS facts)."""
    info = fn.facts.get("nvinfo")
    return isinstance(info, dict) and bool(info.get("indirect_branches"))


def _address_table(fn: Function) -> bool:
    """Whole program: the bank holds the address of a callee copy (a u64 at an 8-aligned
    offset equal to the copy's offset in .text, as cubinemit.mercury reads such tables)."""
    return bool(address_table_functions(fn))


def address_table_functions(fn: Function) -> set[str]:
    """Whole program: the functions whose copies' addresses ``fn``'s bank holds (see
    :func:`_address_table`): the module's address-taken functions, for a kernel that takes
    an address or calls through a pointer."""
    copies = {off: name for name, off, _ in fn.inlined}
    data = fn.constants
    values = (int.from_bytes(data[i : i + 8], "little") for i in range(0, len(data) - 7, 8))
    return {copies[v] for v in values if v in copies}


def _info_facts(fn: Function) -> dict[str, object]:
    info = fn.facts.get("nvinfo")
    if not isinstance(info, dict):
        raise NotImplementedError(f"function {fn.name!r} has no .nv.info facts")
    return info


def _param_block(target: str, fn: Function) -> tuple[int, int]:
    """(bank-0 base, bytes) of the packed parameters (what _param covers), from the parameter facts."""
    from ..nvinfo.builder import param_layout
    from ..nvinfo.facts import FunctionFacts, from_json

    lay = param_layout(target, from_json(FunctionFacts, _info_facts(fn)))  # type: ignore[arg-type]
    return lay.base, lay.size


def emit(module: Module, ptx: Sequence[PtxFunction] | None = None) -> ElfObject:
    """The ELFW object ptxas builds for ``module`` (structure; payloads filled by the builder).
    ``ptx``: decompose.ptx_functions(module), when the caller has it."""
    return _Emitter(module, ptx).run()
