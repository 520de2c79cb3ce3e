"""-g shared memory at the semantic level: the rules behind ptxas's interference allocator that
the memory-layout probes did not pin down (tests/probes_gshared, one small probe per rule, each
compiled by ptxas here; the golden bytes are ptxas's).

* extern ``.shared`` is walked after the non-visible variables (gsh_extern_walk);
* a module variable privatised to a kernel made after the data walk is named in the walk and
  placed later (gsh_privatised_late);
* a kernel section above the shared base has a section symbol, even for an extern alone
  (gsh_extern_only_symbol);
* from sm_90 on .nv.reservedSmem.cap follows the first function whose own code names shared
  memory: kernels before it reach their objects through callees, their own variables are
  unused (gsh_cap_callee, gsh_unused_no_cap), and a name after the cap is not walked;
* a kernel's own variable named right after a walk that made no .nv_debug.shared is the
  kernel's (gsh_own_after_walk);
* variables no function references are dropped but walked and sorted: they are leaf data the
  decomposition recovers (gsh_dropped_*);
* kernel sections sort larger alignment first, then smaller size (gsh_sort_halving); with
  externs alone .nv_debug.shared is aligned 16 and bounds nothing (gsh_extern_align);
* with externs declared, an object coloured for uncalled functions only gives every kernel a
  section while .nv_debug.shared is aligned 16 (gsh_orphan_sections, gsh_orphan_align32);
* from sm_90 on a kernel's own variables are named once .rel and .rela are both asked for,
  even when a call's return address asked .rela first, and the kernel the cap follows uses
  them (gsh_call_first);
* nvcc code (gsh_nvcc.cu: tiled matmul, dynamic-shared reduction, a __noinline__ function's
  __shared__ histogram called by two kernels, another's called by one later kernel, static and
  dynamic shared memory with an unused array), compiled from tests/probes_gshared with
  ``PWD=/proc/self/cwd nvcc -arch=compute_75 -ptx [-G] gsh_nvcc.cu`` (gsh_nvcc.ptx,
  gsh_nvcc_G.ptx): a device function named first has its variable named where the data walk
  would name a module one; the cap tells. gsh_ns.cu (namespace-scope __shared__ arrays, one
  unused, one NVVM demotes into its only function; .global and .const data; extern shared),
  compiled the same way (gsh_ns.ptx, gsh_ns_G.ptx).

Module .shared variables are walked with the .global and .const ones in declaration order, in
-g and -c builds alike (gsh_interleaved).

* below sm_90 a resolved call (an atom used in a loop) or a BRX's table reference asks
  .rela.text.<k> after the resolved reference's .rel (gsh_atom_loop_after_ref), after the own
  variables and the bank named since (gsh_own_then_brx); a BRX first asks .rela.text.<k>, and
  the later reference to an own variable names it before asking .rel.text.<k>
  (gsh_brx_then_own, and with a call after it gsh_brx_then_own_call; every target); from sm_90
  on an unused variable is named after the jump-table bank's .rela (gsh_unused_brx);
* a kernel's own variables are named before the bank its jump table makes; from sm_90 on once
  both relocation sections are asked, which is how a used one is told from an unused one
  (gsh_own_before_bank).

Minimised from random modules (jump tables, extern .shared, calls, module and kernel .shared;
every target, -g and -g -c: test_naming_probes_every_target):

* a kernel's own variables its code references before its first compiler constant are named
  before the bank (gsh_own_then_bank, sm_75-89: `.rel.text.k sb sa .nv.constant2.k`), those
  it references after it right after the bank (gsh_bank_then_own, sm_75-89: `.rel.text.k
  .nv.constant2.k sa .rela.text.k`; gsh_brx_bank_then_own, sm_90+: `.nv.constant2.k sa
  .rela.nv.constant.optimizer.k`, before the jump-table bank's .rela asked after the code);
* from sm_90 on a BRX before the code's first reference asks .rela.text.<k> before that
  reference's .rel (gsh_brx_then_ref: a .const one, both dropped, the .rela kept from sm_100 on
  for the extern's Mercury cap relocation; gsh_brx_then_global: a kept .global one);
* with a BRX first, only the own variables referenced before the call are named between its
  .rela and the call's .rel (gsh_brx_own_call_own, sm_90+: `.rela.text.k sb .rel.text.k sa`);
* -g -c keeps the references to a kernel's own variables: each is named at its relocation
  (gsh_c_named_at_relocation, sm_75-89: `.rel.text.k sb .rela.text.k sa`);
* below sm_90 a variable the code references after a call is named after the call's .rela,
  asked after .rel (gsh_own_after_call: `.rel.text.k sb .rela.text.k sa .nv.constant2.k`);
* below sm_90 an atom loop's resolved call asks .rela.text.<k> before the bank a later
  constant makes (gsh_atom_then_bank: `sa .rel.text.k sb .rela.text.k .nv.constant2.k`);
* a kernel reaching an extern has its section aligned 16 at least: one aligned less whose
  static bytes end where the extern starts does not reach it (gsh_extern_user_align).

A weak kernel (nvcc -G template instantiations) rebuilds or declines (weak_entry.ptx).

Twenty-four kernels sharing one variable (gsh_many_users, as Warp's smem_base) are all its users:
the user search tries only sets holding the kernels whose section ends at the variable.

Indirect calls (minimised from random -g modules with function pointers, which all declined):

* an indirect call reaches every address-taken function whose signature is its prototype's
  (gsh_indirect_call, gsh_indirect_proto), taken by code or by a global's initialiser
  (gsh_indirect_table), and their callees (gsh_indirect_transitive), also when a device function
  makes the call (gsh_indirect_via_callee); taking an address alone reaches nothing
  (gsh_indirect_taken, whose function names .nv_debug.shared first, right after its code);
* from sm_90 on a kernel made before the cap reaches a coloured object through a callee, so every
  kernel calling that callee is a user as well (gsh_early_through_callee).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle
from cubinemit.arch import ALL_TARGETS
from cubinemit.inspect import where_in
from cubinemit.mercury import decode_line_events, encode_line_events
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import first_difference, semantic_roundtrip
from cubinemit.semantic.decompose import decompose

HERE = Path(__file__).resolve().parent
PROBES = HERE / "probes_gshared"
NAMES = sorted(p.stem for p in PROBES.glob("gsh_*.ptx"))
TARGETS = ("sm_75", "sm_90", "sm_100a", "sm_120")


def _cubin(name: str, target: str, mode: str = "g", where: Path = PROBES) -> bytes:
    return oracle.compile_ptx(where / f"{name}.ptx", target, mode).read_bytes()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", NAMES)
def test_gshared_probe_roundtrip(ptxas_ok, name, target):
    data = _cubin(name, target)
    off = first_difference(semantic_roundtrip(data), data)
    assert off is None, f"{name} {target}: {off:#x} {where_in(read_cubin(data), off)}"


def test_probe_count():
    assert len(NAMES) >= 13


def _shared(name: str, target: str) -> dict[str, object]:
    module = decompose(read_cubin(_cubin(name, target)))
    return {d.name: d for d in module.data if d.space == "shared"}


def test_dropped_variable_is_leaf_data(ptxas_ok):
    """The unused ``mu`` leaves no symbol, only .nv_debug.shared made and deleted at its place
    in the walk: the decomposition keeps one unreferenced variable there, nothing more."""
    data = _cubin("gsh_dropped_only", "sm_90")
    obj = read_cubin(data)
    assert not any(y.name == "mu" for y in obj.symbols)
    assert any(s.text == ".nv_debug.shared" for s in obj.shstrtab.slots)
    assert not any(s.name == ".nv_debug.shared" for s in obj.sections)
    shared = list(_shared("gsh_dropped_only", "sm_90").values())
    assert len(shared) == 1 and shared[0].users == [] and shared[0].scope is None


def test_cap_moves_use_to_callee(ptxas_ok):
    """sm_90: k0 reaches m0 through a callee (which one leaves no trace: the first is taken),
    k1 names it itself."""
    users = _shared("gsh_cap_callee", "sm_90")["m0"].users
    assert "k0" not in users and "k1" in users and set(users) & {"fn0", "fn1"}


def test_indirect_call_reaches_taken_functions_of_its_signature(ptxas_ok):
    """k0 calls through a pointer with prototype #ii: f0 (#ii, taken by k2) is privatised to
    it, f2 (#il, taken by k1) stays coloured in .nv_debug.shared; shared_calls says why."""
    from cubinemit.semantic.data import shared_calls

    data = _cubin("gsh_indirect_proto", "sm_90")
    where = {y.name: y.section.name for y in read_cubin(data).symbols if y.name.endswith("_sh")}
    assert where["f0_sh"] == ".nv.shared.k0" and where["f2_sh"] == ".nv_debug.shared"
    edges = shared_calls(decompose(read_cubin(data)))
    assert "f0" in edges["k0"] and "f2" not in edges["k0"] and edges["k1"] == [] and edges["k2"] == []


def test_orphan_sections_depend_on_alignment(ptxas_ok):
    """ptxas's own sections: every kernel has one with .nv_debug.shared aligned 16, none at 32."""
    for name, expect in (("gsh_orphan_sections", {".nv.shared.k0", ".nv.shared.k1"}), ("gsh_orphan_align32", set())):
        obj = read_cubin(_cubin(name, "sm_75"))
        assert {s.name for s in obj.sections if s.name.startswith(".nv.shared.")} == expect, name


@pytest.mark.parametrize("target", TARGETS)
def test_realistic_debug_builds_roundtrip(ptxas_ok, target):
    """nvcc's realistic probes under -g (cooperative groups, extern shared memory, managed
    data): byte for byte on every target."""
    rw = HERE / "probes_rw"
    misses = []
    for ptx in sorted(rw.glob("*.ptx")):
        if ptx.stem in ("realistic_sm90", "realistic_G80") and target == "sm_75":  # compute_80/90 PTX
            continue
        data = _cubin(ptx.stem, target, "g", rw)
        off = first_difference(semantic_roundtrip(data), data)
        if off is not None:
            misses.append((ptx.stem, hex(off), where_in(read_cubin(data), off)))
    assert not misses, misses


@pytest.mark.parametrize("target", ("sm_100a", "sm_120"))
@pytest.mark.parametrize("probe", [("realistic_lineinfo", HERE / "probes_rw"), ("lineinfo_ns", PROBES)], ids=lambda p: p[0])
def test_mercury_line_tables_reencode(ptxas_ok, probe, target):
    """No special opcode for a zero line step; an advance_pc before an advance_line is a step
    of its own, one right before a copy after an extended opcode is not (nvcc -lineinfo,
    Mercury tables: tests/probes_rw and lineinfo_ns.ptx, from gsh_ns.cu with -lineinfo)."""
    name, where = probe
    data = _cubin(name, target, "lineinfo", where)
    off = first_difference(semantic_roundtrip(data), data)
    assert off is None, f"{name} {target}: {off:#x} {where_in(read_cubin(data), off)}"
    obj = read_cubin(data)
    n = 0
    for s in obj.sections:
        if s.relocs is None and s.name.endswith((".debug_line", ".nv_debug_line_sass")) and s.data:
            hdr, events = decode_line_events(s.data)
            assert encode_line_events(hdr, events) == s.data, s.name
            n += 1
    assert n >= 2


@pytest.mark.parametrize("target", TARGETS)
def test_weak_kernel(ptxas_ok, target):
    """A weak kernel (nvcc -G template instantiations, `.weak .entry`) under -g: rebuilt, or
    declined, never wrong (it crashed the emitter with a KeyError before weak kernels were
    modelled)."""
    data = _cubin("weak_entry", target)
    try:
        off = first_difference(semantic_roundtrip(data), data)
    except NotImplementedError:
        return
    assert off is None, f"{target}: {off:#x} {where_in(read_cubin(data), off)}"


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", ["gsh_interleaved", "gsh_nvcc_G", "gsh_ns_G", "gsh_call_first"])
def test_relocatable_probes(ptxas_ok, name, target):
    """-c walks `.shared m1; .global gout; .const c1; .shared m2` in that order too; debug PTX
    keeps a device function's variable its PTX name, named right after the function's code."""
    data = _cubin(name, target, "c")
    off = first_difference(semantic_roundtrip(data), data)
    assert off is None, f"{name} {target}: {off:#x} {where_in(read_cubin(data), off)}"


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["g_c", "c", "O0_c"])
@pytest.mark.parametrize("name", ["gsh_builtin_first", "gsh_module_after_device"])
def test_first_function_walk_is_no_scope(ptxas_ok, name, target, mode):
    """Relocatable: the module data walk names the .shared variables right after the first
    function's code; that function being a builtin, or one whose code does not name them, does
    not make them its own (gpuocelot's dct8x8 -g -c)."""
    data = _cubin(name, target, mode)
    off = first_difference(semantic_roundtrip(data), data)
    assert off is None, f"{name} {target} {mode}: {off:#x} {where_in(read_cubin(data), off)}"
    shared = {d.name: (d.scope, d.users) for d in decompose(read_cubin(data)).data if d.space == "shared" and d.name.startswith("CB")}
    assert {n: scope for n, (scope, _) in shared.items()} == {"CB1": None, "CB2": None}


#: random -g modules (tests/alloc/alloc_probes.random_shared, seeds outside the committed
#: sh_* probes): module, function-scope and extern .shared over random call graphs
RANDOM_SEEDS = range(3000, 3040)


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
def test_random_debug_modules(ptxas_ok, tmp_path, target):
    """Rebuilt byte for byte (a decline would be allowed, a wrong rebuild never): below sm_90 a
    kernel's own variable named right after the data walk reads as a module variable until a
    retry ends the walk before it (r3008 sm_75)."""
    import sys

    sys.path.insert(0, str(HERE / "alloc"))
    from alloc_probes import random_shared, render_shared

    exact, declined, wrong = 0, [], []
    for seed in RANDOM_SEEDS:
        for externs in (False, True):
            ptx = tmp_path / f"{'x' if externs else 'r'}{seed}.ptx"
            ptx.write_text(render_shared(random_shared(seed, externs=externs)))
            data = oracle.compile_ptx(ptx, target, "g").read_bytes()
            try:
                off = first_difference(semantic_roundtrip(data), data)
            except NotImplementedError as exc:
                declined.append((ptx.stem, str(exc)[:60]))
                continue
            if off is None:
                exact += 1
            else:
                wrong.append((ptx.stem, where_in(read_cubin(data), off)))
    assert not wrong, wrong
    assert exact == 2 * len(RANDOM_SEEDS), declined


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["def", "O0", "lineinfo"])
def test_gshared_probes_whole_program(ptxas_ok, mode, target):
    """The same probes in whole-program builds: a kernel whose static shared memory its code
    never references asks no relocation section and makes no cap (gsh_unused_no_cap; the
    random probes r3025, r3060, ...: the cap's position, and no .rel/.rela.text.<k> asked)."""
    misses = []
    for name in NAMES:
        data = _cubin(name, target, mode)
        off = first_difference(semantic_roundtrip(data), data)
        if off is not None:
            misses.append((name, hex(off), where_in(read_cubin(data), off)))
    assert not misses, misses


@pytest.mark.parametrize("name", ["gsh_own_before_bank", "gsh_unused_brx", "gsh_brx_then_own", "gsh_own_then_brx", "gsh_c_device_var_makes_debug", "gsh_c_bank_rel_before_shared", "gsh_c_hidden_rel_after_const", "gsh_c_hidden_rel_first"])
@pytest.mark.parametrize("mode", ["c", "g_c", "def"])
@pytest.mark.parametrize("target", TARGETS)
def test_relocation_asks_other_modes(ptxas_ok, name, target, mode):
    """The relocation-ask probes in the other modes: -c from sm_90 on, the reference to the
    tombstoned cap asks .rel/.rela.text.k before the first variable is named also when the
    kernel has compiler constants (gsh_own_before_bank: `.rel.text.k .rela.text.k $__s0__10
    .nv.constant2.k`); an unused variable is named after the jump-table bank's .rela
    (gsh_unused_brx, -g and -c); -c from sm_90 on, a variable whose reference follows a BRX, a
    barrier and the bank's first constant is named after .rel although no kept relocation asks
    it (gsh_c_bank_rel_before_shared: `k.const_opt.0.16 .rela.text.k .rel.text.k $__sb__7`,
    declined before)."""
    data = _cubin(name, target, mode)
    off = first_difference(semantic_roundtrip(data), data)
    assert off is None, f"{target} {mode}: {off:#x} {where_in(read_cubin(data), off)}"


#: minimised from the random -g modules whose naming order or extern users were declined
NAMING_PROBES = (
    "gsh_own_then_bank",
    "gsh_bank_then_own",
    "gsh_brx_bank_then_own",
    "gsh_brx_then_ref",
    "gsh_brx_then_global",
    "gsh_brx_own_call_own",
    "gsh_c_named_at_relocation",
    "gsh_extern_user_align",
    "gsh_atom_then_bank",
    "gsh_own_after_call",
)


@pytest.mark.parametrize("mode", ["g", "g_c"])
def test_naming_probes_every_target(ptxas_ok, mode):
    """Byte for byte on every target (each declined or rebuilt with another .shstrtab before
    the rules in the module doc)."""
    jobs = [(PROBES / f"{name}.ptx", target, mode) for name in NAMING_PROBES for target in ALL_TARGETS]
    _, misses = oracle.corpus_outcomes(oracle.compile_many(jobs, workers=2))  # no case may decline
    assert len(jobs) == len(NAMING_PROBES) * len(ALL_TARGETS) and not misses, misses


def test_bank_splits_own_variables(ptxas_ok):
    """The facts behind gsh_bank_then_own (sm_75): sa, referenced after the FP64 literal, is a
    used variable named after the bank; gsh_own_then_bank's are named before it."""
    fns = {f.name: f for f in decompose(read_cubin(_cubin("gsh_bank_then_own", "sm_75"))).functions}
    assert fns["k"].facts.get("own_after_bank") == ["sa"]
    assert _shared("gsh_bank_then_own", "sm_75")["sa"].users == ["k"]
    assert _shared("gsh_own_then_bank", "sm_75")["sa"].users == ["k"]
    fns = {f.name: f for f in decompose(read_cubin(_cubin("gsh_own_then_bank", "sm_75"))).functions}
    assert "own_after_bank" not in fns["k"].facts


C_PROBES = ("gsh_c_bank_rel_before_shared", "gsh_c_hidden_rel_after_const", "gsh_c_hidden_rel_first", "gsh_c_hidden_asks")


def test_c_hidden_rel_every_target(ptxas_ok):
    """-c from sm_90 on, a resolved reference asks .rel.text.<k> at a place no kept relocation
    tells: before the bank's first constant after the .const reference
    (gsh_c_hidden_rel_after_const: `cv .rela.text.k .rel.text.k .nv.constant2.k`), before the
    .const reference (gsh_c_hidden_rel_first: `cv .rel.text.k .rela.text.k $__sb__7`), before a
    variable (gsh_c_bank_rel_before_shared); random module s34 (gsh_c_hidden_asks, which
    tests/probes_declined listed). Byte for byte on every target (declined before)."""
    jobs = [(PROBES / f"{name}.ptx", target, "c") for name in C_PROBES for target in ALL_TARGETS]
    _, misses = oracle.corpus_outcomes(oracle.compile_many(jobs, workers=2))  # no case may decline
    assert len(jobs) == len(C_PROBES) * len(ALL_TARGETS) and not misses, misses


def test_c_hidden_rel_fact(ptxas_ok):
    """The place found is before one of the kept relocations (fact hidden_ask_at,
    decompose._hidden_asks), from sm_90 on only."""
    for target, expect in (("sm_75", False), ("sm_90", True), ("sm_120", True)):
        module = decompose(read_cubin(_cubin("gsh_c_hidden_rel_after_const", target, "c")))
        k = next(f for f in module.functions if f.name == "k")
        at = k.facts.get("hidden_ask_at")
        assert (at is not None) == expect, target
        if at is not None:
            assert 0 <= at <= len(k.relocations)

def test_every_kernel_using_one_variable(ptxas_ok):
    """24 kernels share smem: each kernel's section ends where smem does, so every kernel must
    be a user; the search tries that set alone (it used to walk the 2**24 subsets, smallest
    first, and give up)."""
    users = _shared("gsh_many_users", "sm_75")["smem"].users
    assert sorted(users) == sorted(f"k{i}" for i in range(24))
