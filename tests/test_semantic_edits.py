"""Edits through the model give the bytes ptxas gives for the equally edited PTX."""

from __future__ import annotations

import copy
import re

import attrs
import pytest

import oracle
from cubinemit.errors import ModelError, ToolchainError
from cubinemit.reader import read_cubin
from cubinemit.semantic.build import build
from cubinemit.semantic import Module
from cubinemit.semantic.decompose import decompose

TARGETS = ("sm_75", "sm_89", "sm_90", "sm_100a", "sm_120")


def _compile(tmp_path, name: str, text: str, target: str, mode: str) -> bytes:
    ptx = tmp_path / target / mode / f"{name}.ptx"
    ptx.parent.mkdir(parents=True, exist_ok=True)
    ptx.write_text(text)
    return oracle.compile_ptx(ptx, target, mode).read_bytes()


def _without_kernel(text: str, kernel: str) -> str:
    """``text`` without the definition of ``kernel``, or of a device function so named (a
    blank line in its place)."""
    cut = re.search(r"\n(?:\.visible |\.weak )?\.entry " + re.escape(kernel) + r"\(.*?\n}\n", text, re.S)
    cut = cut or re.search(r"\n(?:\.visible |\.weak )?\.func\s+(?:\([^)]*\)\s*)?" + re.escape(kernel) + r"\([^;{]*?\n\{.*?\n}\n", text, re.S)
    assert cut is not None
    return text[: cut.start()] + "\n" + text[cut.end() :]


def _assert_refusal_was_needed(tmp_path, monkeypatch, src, kernel: str, target: str, mode: str, match: str, owner: object, check: str) -> None:
    """Removing ``kernel`` from ptxas's build of ``src`` is refused (:func:`_assert_removal_refused`),
    and with ``owner.check`` switched off the removal gives other bytes than ptxas's cubin of
    the PTX without the kernel: the refusal stands where the model would be wrong."""
    _assert_removal_refused(oracle.compile_ptx(src, target, mode).read_bytes(), kernel, match)
    monkeypatch.setattr(owner, check, lambda *_: None)
    got, want = _removed(tmp_path, src, kernel, target, mode)
    assert got != want


def _assert_swap_refusal_was_needed(tmp_path, monkeypatch, src, a: str, b: str, target: str, mode: str, match: str, check: str, owner: object = Module, replacement: object = lambda *_: None) -> None:
    """Swapping the definitions of ``a`` and ``b`` in ptxas's build of ``src`` is refused
    with a message matching ``match``, the module left as it was; with ``owner.check``
    switched off (``replacement`` in its place) the swap gives other bytes than ptxas's cubin
    of the swapped PTX."""
    text = src.read_text()
    data = _compile(tmp_path, src.stem, text, target, mode)
    module = decompose(read_cubin(data))
    with pytest.raises(ModelError, match=match):
        module.reorder_functions([b, a])
    assert build(module) == data
    monkeypatch.setattr(owner, check, replacement)
    module.reorder_functions([b, a])
    assert build(module) != _compile(tmp_path / "edited", src.stem, _swap_definitions(text, a, b), target, mode)


def _assert_removal_refused(data: bytes, kernel: str, match: str) -> None:
    """Removing ``kernel`` from the cubin ``data`` raises a ModelError matching ``match``, and
    the module then still builds ``data``: refused before anything changed."""
    module = decompose(read_cubin(data))
    with pytest.raises(ModelError, match=match):
        module.remove_function(kernel)
    assert build(module) == data


def _removed(tmp_path, src, kernel: str, target: str, mode: str, check=None) -> tuple[bytes, bytes]:
    """(cubinemit's build of ``src`` with ``kernel`` removed through the model, ptxas's cubin of
    the PTX without the kernel's definition); ``check`` sees the module before the edit."""
    text = src.read_text()
    module = decompose(read_cubin(_compile(tmp_path, src.stem, text, target, mode)))
    if check is not None:
        check(module)
    module.remove_function(kernel)
    want = _compile(tmp_path / "edited", src.stem, _without_kernel(text, kernel), target, mode)
    return build(module), want


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["def", "c", "O0", "lineinfo", "g"])
def test_rename_kernel_matches_ptxas(ptxas_ok, tmp_path, target, mode):
    """-lineinfo and -g: the embedded PTX text names the kernel as the renamed PTX does, and
    the -g register tables' records (and their Mercury clones' bytes) carry the new name."""
    text = (oracle.PROBES / "func_calls.ptx").read_text()
    module = decompose(read_cubin(_compile(tmp_path, "func_calls", text, target, mode)))
    module.rename_function("k_user2", "k_renamed_kernel")
    want = _compile(tmp_path / "edited", "func_calls", text.replace("k_user2", "k_renamed_kernel"), target, mode)
    assert build(module) == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
def test_rename_refused_where_a_section_is_named_after_the_ptx(ptxas_ok, tmp_path, target):
    """-c -lineinfo names the PTX text section after the Adler-32 of the whole PTX file
    (comments included, which the embedded text drops): ptxas's name for the renamed PTX
    differs, and the rename is refused rather than written with the old name."""
    import zlib

    text = (oracle.PROBES / "func_calls.ptx").read_text()
    data = _compile(tmp_path, "func_calls", text, target, "lineinfo_c")
    named = [s.name for s in read_cubin(data).sections if s.name.startswith(".nv_debug_ptx_txt.")]
    assert named == [f".nv_debug_ptx_txt.{zlib.adler32(text.encode())}"]
    edited = _compile(tmp_path / "edited", "func_calls", text.replace("k_user2", "k_renamed_kernel"), target, "lineinfo_c")
    assert named[0] not in {s.name for s in read_cubin(edited).sections}
    module = decompose(read_cubin(data))
    with pytest.raises(ModelError, match=r"nv_debug_ptx_txt\.\d+ is named after a checksum"):
        module.rename_function("k_user2", "k_renamed_kernel")
    assert module.function("k_user2").name == "k_user2"  # refused before anything changed


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
@pytest.mark.parametrize("mode", ["c", "O0_c"])
@pytest.mark.parametrize("kernel", ["k_free", "k_launch"])
def test_remove_moves_the_launched_kernel_to_the_new_first_function(ptxas_ok, tmp_path, target, mode, kernel):
    """-rdc: ptxas lists a kernel launched from the device in the EXTERNS of the first
    function in .text order too (tests/probes_rw6/rules/launch_externs; cuda-samples
    cdpBezierTessellation -c without freeVertexMem). Removing k_free, which stands first in
    -c, leaves k_launch first with child once; removing the launcher leaves child in no
    EXTERNS. The old decomposer kept child among k_free's own facts."""
    src = oracle.PROBES.parent / "probes_rw6" / "rules" / "launch_externs.ptx"
    got, want = _removed(tmp_path, src, kernel, target, mode)
    assert got == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
@pytest.mark.parametrize("mode", ["c", "O0_c"])  # (whole program: refused, who takes what is lost)
@pytest.mark.parametrize("kernel", ["k_other", "k_create"])
def test_remove_the_vtable_taker_hands_the_table_on(ptxas_ok, tmp_path, target, mode, kernel):
    """The kernel that took a vtable's addresses (the first referencing it in ptxas's walk)
    goes: the next function referencing it takes them, here the base class's destructor
    (tests/funcorder_probes/fo_vtables; cuda-samples newdelete -c without complexVector). The
    old model left the takings with nobody."""
    src = oracle.PROBES.parent / "funcorder_probes" / "fo_vtables.ptx"
    got, want = _removed(tmp_path, src, kernel, target, mode)
    assert got == want


@pytest.mark.parametrize("target", ("sm_80", "sm_86", "sm_89"))  # FP64 literal banks: below sm_90
def test_rename_kernel_with_constant_objects_matches_ptxas(ptxas_ok, tmp_path, target):
    """-c: a kernel's FP64 literals become LOCAL objects named after it
    (``<kernel>.const_opt.<start>.<end>``), renamed with it (tests/probes_rw4 late_call_80)."""
    src = oracle.PROBES.parent / "probes_rw4" / "late_call_80.ptx"
    text, old = src.read_text(), "_Z11k_late_fp64P13__nv_bfloat16PKd"
    module = decompose(read_cubin(_compile(tmp_path, src.stem, text, target, "c")))
    assert any(r.symbol.startswith(old + ".const_opt.") for r in module.function(old).relocations if r.symbol)
    module.rename_function(old, "k_fp64_renamed")
    want = _compile(tmp_path / "edited", src.stem, re.sub(rf"\b{old}\b", "k_fp64_renamed", text), target, "c")
    assert build(module) == want


@pytest.mark.parametrize("target", TARGETS)
def test_remove_kernel_matches_ptxas(ptxas_ok, tmp_path, target):
    text = (oracle.PROBES / "func_calls.ptx").read_text()
    module = decompose(read_cubin(_compile(tmp_path, "func_calls", text, target, "def")))
    module.remove_function("k_chain")  # its callees f_c1..f_c3 are reached by nothing else
    assert {f.name for f in module.functions} == {"f_shared", "k_user1", "k_user2"}
    want = _compile(tmp_path / "edited", "func_calls", _without_kernel(text, "k_chain"), target, "def")
    assert build(module) == want


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["def", "c", "O0"])
def test_remove_the_dynamic_shared_user_keeps_the_declaration(ptxas_ok, tmp_path, target, mode):
    """Whole program drops the variables no function uses any more, but the module's extern
    (dynamic) shared array stays declared in the edited PTX, and it gives every kernel a
    .nv.shared.<k> section (CUDA samples SobelFilter sm_120: removing SobelShared left
    SobelTex without its section; tests/probes_data/shared_dynamic_only)."""
    got, want = _removed(tmp_path, oracle.PROBES.parent / "probes_data" / "shared_dynamic_only.ptx", "k_dyn_only", target, mode)
    assert got == want


@pytest.mark.parametrize("target", TARGETS + ("sm_86",))
@pytest.mark.parametrize("mode", ["def", "c", "O0"])
def test_remove_the_first_caller_of_a_builtin(ptxas_ok, tmp_path, target, mode):
    """A builtin is created in the body of its first caller; without it, in its next caller's.
    Below sm_90 k_any1 creates __cuda_sm70_votesync_any first; removed, k_all creates _all
    before k_both creates _any, and -c's DFS visits them the other way round (CUDA samples
    simpleVoteIntrinsics; tests/probes_builtin/bi_vote_remove)."""
    got, want = _removed(tmp_path, oracle.PROBES.parent / "probes_builtin" / "bi_vote_remove.ptx", "k_any1", target, mode)
    assert got == want


@pytest.mark.parametrize("target", ("sm_90", "sm_100a", "sm_110", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "c"])
@pytest.mark.parametrize("kernel", ["k_surface", "k_plain"])
def test_remove_the_surface_kernel_lowers_the_isa_class(ptxas_ok, tmp_path, target, mode, kernel):
    """.nv.compat ISA_CLASS is the module's: 2 while a surface instruction is there. Removing
    the surface kernel gives 1, as ptxas does for the PTX without it; removing the other
    kernel keeps 2 (CUDA samples EGLSync_CUDAEvent_Interop; tests/probes_data/isa_class_surface)."""
    modules = []

    def keep(module) -> None:
        assert module.facts.get("isa_class") == 2
        modules.append(module)

    got, want = _removed(tmp_path, oracle.PROBES.parent / "probes_data" / "isa_class_surface.ptx", kernel, target, mode, keep)
    assert modules[0].facts.get("isa_class", 1) == (1 if kernel == "k_surface" else 2)
    assert got == want


@pytest.mark.parametrize(
    "probe, kernel, target, unknown",
    [
        ("isa_class_surface", "k_surface", "sm_100a", ("_ISA_CLASS2_OPCODES", {90: frozenset(), 100: frozenset(), 120: frozenset()})),
        ("fastpath_imma", "k_imma", "sm_100a", ("_FASTPATH_MMA_OPS", frozenset())),
    ],
)
def test_remove_refused_where_compat_is_not_explained(ptxas_ok, tmp_path, monkeypatch, probe, kernel, target, unknown):
    """An instruction this table does not know asks .nv.compat's ISA_CLASS 2 or clears
    CAN_FASTPATH_FINALIZE bit 3 (simulated by taking the surface or IMMA opcodes out of the
    tables): the cubin does not say whether the removed or the kept code holds it, so the
    removal is refused and the module left as it was. Let through, it keeps the old value
    where ptxas, without the kernel, writes the other."""
    from cubinemit.nvinfo import gating

    src = oracle.PROBES.parent / "probes_data" / f"{probe}.ptx"
    text = src.read_text()
    data = _compile(tmp_path, src.stem, text, target, "def")
    want = _compile(tmp_path / "edited", src.stem, _without_kernel(text, kernel), target, "def")
    monkeypatch.setattr(gating, *unknown)
    module = decompose(read_cubin(data))
    with pytest.raises(ModelError, match="by code the cubin does not show"):
        module.remove_function(kernel)
    assert build(module) == data
    monkeypatch.setattr(Module, "_refuse_unexplained_compat", lambda *_: None)
    module.remove_function(kernel)
    assert build(module) != want


@pytest.mark.parametrize("target", ("sm_90", "sm_100a", "sm_120", "sm_121"))
@pytest.mark.parametrize("mode", ["def", "c", "lineinfo"])
def test_remove_the_surface_kernel_beside_uniform_code(ptxas_ok, tmp_path, target, mode):
    """IDP.4A and FSETP reading a uniform register ask ISA_CLASS 1: without k_surface the
    class goes to 1 (ggml mmvq sm_120 -lineinfo without quantize_q8_1 kept 2: the q4_K kernels'
    IDP.4A was taken for a trigger; tests/probes_data/isa_class_uniform)."""
    got, want = _removed(tmp_path, oracle.PROBES.parent / "probes_data" / "isa_class_uniform.ptx", "k_surface", target, mode)
    assert Module.from_cubin(want).facts.get("isa_class", 1) == 1
    assert got == want


def _declared_as(text: str, names: list[str]) -> str:
    """``text`` with its prototypes dropped and its function definitions in this order."""
    head = text[: text.index(".address_size 64\n") + len(".address_size 64\n")]
    defs = {m.group(2): m.group(0) for m in re.finditer(r"\.(visible|weak) \.(?:func|entry) (\w+)\(\n[^;{]*\)\n\{.*?\n}\n", text, re.S)}
    return head + "\n" + "\n".join(defs[n] for n in names)


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a", "sm_120"))
def test_remove_refused_where_the_declaration_order_decides(ptxas_ok, tmp_path, target):
    """-c: two PTX declaration orders give one cubin, and two cubins without k0 (its callees
    f1, f2 become roots of the post-order DFS, whose turn comes from where they were
    declared). The decomposer cannot tell which one the cubin came from, so the removal is
    refused and the module left as it was (fz r021 sm_80; tests/funcorder_probes/fo_open_order)."""
    src = oracle.PROBES.parent / "funcorder_probes" / "fo_open_order.ptx"
    text = src.read_text()
    other = _declared_as(text, ["f3", "f2", "f0", "f1", "k1", "k0"])
    data = _compile(tmp_path / "a", src.stem, text, target, "c")
    assert _compile(tmp_path / "b", src.stem, other, target, "c") == data
    without = [_compile(tmp_path / d, src.stem, _without_kernel(t, "k0"), target, "c") for d, t in (("a0", text), ("b0", other))]
    assert without[0] != without[1]
    _assert_removal_refused(data, "k0", "declaration order behind it")
    got, want = _removed(tmp_path, src, "k1", target, "c")  # k1 reaches nothing: no doubt
    assert got == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "O0"])
def test_remove_refused_where_the_global_address_bank_moves(ptxas_ok, tmp_path, target, mode):
    """Whole program: the kept kernels read .nv.constant4 at fixed offsets. Without k_last,
    k_first leads and its extern malloc takes slot 0, so g moves to slot 1 and ptxas compiles
    k_first anew: that removal is refused, naming the slot, and the module is left as it was;
    removing k_first moves no slot and gives ptxas's bytes (tests/probes_rw realistic sm_75
    without bigparam; tests/probes_data/constant4_moved)."""
    src = oracle.PROBES.parent / "probes_data" / "constant4_moved.ptx"
    text = src.read_text()
    data = _compile(tmp_path, src.stem, text, target, mode)
    _assert_removal_refused(data, "k_last", r"'malloc' from slot 1 to slot 0 of \.nv\.constant4")
    edited = _compile(tmp_path / "edited", src.stem, _without_kernel(text, "k_last"), target, mode)
    code = {c: [s.data for s in read_cubin(c).sections if s.name == ".text.k_first"] for c in (data, edited)}
    assert code[data] != code[edited]  # ptxas's k_first really changes
    got, want = _removed(tmp_path / "first", src, "k_first", target, mode)
    assert got == want


SHARED_USE_UNKNOWN = oracle.PROBES.parent / "probes_data" / "shared_use_unknown.ptx"


@pytest.mark.parametrize("target", ("sm_90", "sm_100a", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "O0"])
def test_remove_the_cap_kernel_where_the_next_kernel_stores_to_shared(ptxas_ok, tmp_path, target, mode):
    """Whole program from sm_90 on: .nv.reservedSmem.cap follows the first kernel using shared
    memory. k_store and k_plain keep an empty .rela.text.<k> for their division's copy either
    way, so the decomposer reads k_store's use from its STS/LDS and leaves k_plain's unknown;
    without k_last the cap follows k_store, as ptxas writes it (llm.c layernorm_backward sm_90
    without kernel6: the cap came out after a later kernel; tests/probes_data/shared_use_unknown)."""

    def check(module):
        assert [f.name for f in module.functions if f.facts.get("shared_use_unknown")] == ["k_plain"]
        assert next(d.users for d in module.data if d.space == "shared") == ["k_last", "k_store"]

    got, want = _removed(tmp_path, SHARED_USE_UNKNOWN, "k_last", target, mode, check)
    assert got == want


@pytest.mark.parametrize("target", ("sm_90", "sm_100a", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "O0"])
def test_edits_refused_where_a_kernel_s_shared_use_decides_the_cap(ptxas_ok, tmp_path, target, mode):
    """Swapping k_plain and k_store keeps the cap after k_last (ptxas's bytes); removing k_last
    afterwards, or putting k_last first in the PTX (last in .text), would leave the cap to
    k_plain's unknown use: refused, naming it, and the module is left as it was."""
    text = SHARED_USE_UNKNOWN.read_text()
    module = decompose(read_cubin(_compile(tmp_path, SHARED_USE_UNKNOWN.stem, text, target, mode)))
    module.reorder_functions(["k_store", "k_plain"])
    swapped = _swap_definitions(text, "k_plain", "k_store")
    assert build(module) == _compile(tmp_path / "swapped", SHARED_USE_UNKNOWN.stem, swapped, target, mode)
    unknown = r"the cubin does not say whether 'k_plain' uses the dynamic shared memory"
    with pytest.raises(ModelError, match=r"cannot remove 'k_last': " + unknown):
        module.remove_function("k_last")
    with pytest.raises(ModelError, match=r"cannot reorder functions: " + unknown):
        module.reorder_functions(["k_last", "k_store", "k_plain"])
    assert [f.name for f in module.functions if f.is_kernel] == ["k_store", "k_plain", "k_last"]
    assert build(module) == _compile(tmp_path / "swapped", SHARED_USE_UNKNOWN.stem, swapped, target, mode)


GSH_EXTERN_UNKNOWN = oracle.PROBES.parent / "probes_gshared" / "gsh_extern_unknown.ptx"


@pytest.mark.parametrize("target", ("sm_90", "sm_100a", "sm_120"))
def test_g_extern_users_where_every_kernel_has_a_section(ptxas_ok, tmp_path, target):
    """-g: with m coloured every kernel's section ends where dyn sits, so sizes do not tell its
    users. k_plain asked for no relocation section, which a shared reference would: not a
    user. k_glob's relocations leave its use unknown, and removing k_own would leave the cap to
    it: refused, the module as it was. Without k_glob the cap follows k_dyn, as ptxas writes it
    (llm.c test_gpt2 -g sm_120 without wte_backward_kernel: the cap came out after
    layernorm_forward_kernel3, which never touches shared memory)."""
    text = GSH_EXTERN_UNKNOWN.read_text()
    module = decompose(read_cubin(_compile(tmp_path, GSH_EXTERN_UNKNOWN.stem, text, target, "g")))
    assert next(d.users for d in module.data if d.name == "dyn") == ["k_dyn"]
    assert [f.name for f in module.functions if f.facts.get("shared_use_unknown")] == ["k_glob"]
    with pytest.raises(ModelError, match=r"cannot remove 'k_own': the cubin does not say whether 'k_glob' uses the dynamic shared memory"):
        module.remove_function("k_own")
    assert [f.name for f in module.functions] == ["k_own", "k_plain", "k_glob", "k_dyn", "k_c1", "k_c2"]
    module.remove_function("k_glob")
    module.remove_function("k_own")
    edited = _without_kernel(_without_kernel(text, "k_glob"), "k_own")
    assert build(module) == _compile(tmp_path / "edited", GSH_EXTERN_UNKNOWN.stem, edited, target, "g")


@pytest.mark.parametrize("mode", ["def", "O0"])
def test_reorder_refused_where_the_global_address_bank_moves(ptxas_ok, tmp_path, mode):
    """Swapping k_first and k_last puts k_first first in .text (whole program lays the kernels
    out in reverse): its extern malloc takes slot 0 of .nv.constant4 and g moves to slot 1,
    so ptxas compiles the kernels anew; the reorder is refused and the module left as it was
    (probes_rw5 montecarlo_misc sm_75, incKernel and checkResults swapped, came out wrong)."""
    src = oracle.PROBES.parent / "probes_data" / "constant4_moved.ptx"
    text = src.read_text()
    data = _compile(tmp_path, src.stem, text, "sm_75", mode)
    module = decompose(read_cubin(data))
    with pytest.raises(ModelError, match=r"cannot reorder functions: it moves 'malloc' from slot 1 to slot 0 of \.nv\.constant4"):
        module.reorder_functions(["k_last", "k_first"])
    assert build(module) == data
    edited = _compile(tmp_path / "edited", src.stem, _swap_definitions(text, "k_first", "k_last"), "sm_75", mode)
    code = {c: [s.data for s in read_cubin(c).sections if s.name == ".text.k_first"] for c in (data, edited)}
    assert code[data] != code[edited]


@pytest.mark.parametrize("target", ("sm_90", "sm_100a", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "c"])
@pytest.mark.parametrize("kernel", ["k_fp8", "k_bf16"])
def test_remove_the_fp8_kernel_lowers_the_isa_class(ptxas_ok, tmp_path, target, mode, kernel):
    """The 8-bit float conversions (F2FP with E4M3/E5M2) ask ISA_CLASS 2, the BF16 pack does
    not: removing k_fp8 gives class 1, removing k_bf16 keeps 2, as ptxas does for the edited
    PTX (tests/probes_rw6 cluster_sm90_90 without quantize_rows_fp8 was written with class 2;
    tests/probes_rw6/rules/isa_class_fp8)."""
    modules = []

    def keep(module) -> None:
        assert module.facts.get("isa_class") == 2
        modules.append(module)

    got, want = _removed(tmp_path, oracle.PROBES.parent / "probes_rw6" / "rules" / "isa_class_fp8.ptx", kernel, target, mode, keep)
    assert modules[0].facts.get("isa_class", 1) == (1 if kernel == "k_fp8" else 2)
    assert got == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "O0"])
def test_rename_keeps_or_refuses_the_copy_layout(ptxas_ok, tmp_path, target, mode):
    """Whole program lays a kernel's copies of its callees out by name: renaming fa to fb keeps
    fa's copy before fc's and gives ptxas's bytes for the renamed PTX; fz would come after fc,
    with other code, so that rename is refused, naming both copies (tests/probes_fp/fp_clone_layout)."""
    src = oracle.PROBES.parent / "probes_fp" / "fp_clone_layout.ptx"
    text = src.read_text()
    module = decompose(read_cubin(_compile(tmp_path, src.stem, text, target, mode)))
    module.rename_function("fa", "fb")
    want = _compile(tmp_path / "edited", src.stem, re.sub(r"\bfa(?=\b|_)", "fb", text), target, mode)
    assert build(module) == want
    module = decompose(read_cubin(_compile(tmp_path, src.stem, text, target, mode)))
    with pytest.raises(ModelError, match="'fz'.*past the copy of 'fc'"):
        module.rename_function("fa", "fz")
    assert module.function("fa").name == "fa"  # refused before anything changed


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["def", "O0"])
def test_remove_renumbers_the_builtin_copies(ptxas_ok, tmp_path, target, mode):
    """Whole program: the kernels' builtin copies $__internal_N_$<builtin> are numbered over the
    module in .text order; without k_first the rcp copy of k_next is numbered anew (fz3 h001;
    tests/probes_builtin/bi_copy_renumber)."""
    got, want = _removed(tmp_path, oracle.PROBES.parent / "probes_builtin" / "bi_copy_renumber.ptx", "k_first", target, mode)
    assert b"$__internal_0_$__cuda_sm20_rcp_rn_f32_slowpath" in want
    assert got == want


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["def", "O0"])
@pytest.mark.parametrize("kernel", ["k_plain", "k_last"])
def test_whole_program_remove_beside_a_function_pointer_kernel(ptxas_ok, tmp_path, target, mode, kernel):
    """Whole program: a device function lives only as copies in kernels, so the visible f_v
    goes with k_plain, its only caller (it used to stay and fail the build); beside one kernel
    that takes addresses, two kernels leave one order only (tests/probes_fp/fp_remove_wp)."""
    got, want = _removed(tmp_path, oracle.PROBES.parent / "probes_fp" / "fp_remove_wp.ptx", kernel, target, mode)
    assert got == want


def _text(data: bytes, kernel: str) -> bytes:
    return next(s.data for s in read_cubin(data).sections if s.name == f".text.{kernel}")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["def", "O0"])
@pytest.mark.parametrize(
    "probe, kernel, changed, why",
    [
        ("fp_remove_taker", "k_take", "k_call", "whether it alone takes some function's address"),
        ("fp_remove_taker", "k_call", None, "whether it alone takes some function's address"),
        ("fp_remove_direct", "k_take", "k_direct", "whether it alone takes some function's address"),
        ("fp_remove_lone", "k_plain", "k_take", "'k_take' would be the only kernel"),
        ("fp_remove_wp", "k_lead", None, "the possible orders disagree"),
    ],
)
def test_whole_program_remove_refused_where_takings_are_unknown(ptxas_ok, tmp_path, target, mode, probe, kernel, changed, why):
    """Whole program keeps no trace of who takes which function's address: every kernel that
    takes one or calls through a pointer gets copies of all the taken functions and a table of
    their addresses. Removing the only taker of f_t makes ptxas drop f_t from the others
    (their SASS changes) or compiles a directly called copy of it anew (fp_remove_direct), a
    lone kernel gets no table (its SASS changes), and the kernel order
    follows a declaration order the cubin does not keep. Such removals are refused, the module
    left as it was (tests/probes_fp; fz h000, h003, h025, h078)."""
    src = oracle.PROBES.parent / "probes_fp" / f"{probe}.ptx"
    text = src.read_text()
    data = _compile(tmp_path, src.stem, text, target, mode)
    module = decompose(read_cubin(data))
    names = [f.name for f in module.functions]
    with pytest.raises(ModelError, match=re.escape(why)):
        module.remove_function(kernel)
    assert [f.name for f in module.functions] == names
    assert build(module) == data
    if changed is not None:  # ptxas's own code for the kept kernel changes: no leaf data gives it
        want = _compile(tmp_path / "edited", src.stem, _without_kernel(text, kernel), target, mode)
        assert _text(want, changed) != _text(data, changed)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["def", "O0"])
def test_whole_program_remove_the_taker_beside_a_plain_kernel(ptxas_ok, tmp_path, target, mode):
    got, want = _removed(tmp_path, oracle.PROBES.parent / "probes_fp" / "fp_remove_lone.ptx", "k_take", target, mode)
    assert got == want


@pytest.mark.parametrize("target", ("sm_100a", "sm_100f", "sm_103a", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "c", "O0"])
@pytest.mark.parametrize("probe, kernel", [("fastpath_fp64", "k_fp64"), ("fastpath_fp64", "k_plain"), ("fastpath_mufu", "k_fp64"), ("fastpath_mufu", "k_div"), ("fastpath_fsetp", "k_cmp_imm"), ("fastpath_fsetp", "k_cmp_reg"), ("fastpath_approx", "k_fp64"), ("fastpath_sqrt_ftz", "k_fp64"), ("fastpath_imma", "k_imma"), ("fastpath_imma", "k_hmma"), ("fastpath_dmma", "k_dmma"), ("fastpath_dmma", "k_hmma")])
def test_remove_the_fp64_kernel_restores_the_fastpath_mask(ptxas_ok, tmp_path, target, mode, probe, kernel):
    """.nv.compat CAN_FASTPATH_FINALIZE is the AND over the module's code: on sm_100 FP64
    arithmetic clears bit 3 (9 -> 1). Removing the kernel that adds doubles gives 9 back, as
    ptxas does for the PTX without it; removing the other keeps 1, as does removing it where
    sqrt.rn.f32 code stays (fz3 h030 sm_100a; other targets carry no such bit). An f32 compare
    against an immediate clears it too (fastpath_fsetp; samples_mix without k_blend); the
    .ftz approximations' MUFU code does not (fastpath_approx; gemm_softmax), sqrt.rn.ftz.f32
    does outside -O0 (fastpath_sqrt_ftz), and so do integer and FP64 MMA, not HMMA
    (fastpath_imma, fastpath_dmma; immaTensorCoreGemm)."""
    before = []
    got, want = _removed(tmp_path, oracle.PROBES.parent / "probes_data" / f"{probe}.ptx", kernel, target, mode, lambda m: before.append(m.facts.get("fastpath")))
    assert before == [1 if target.startswith("sm_100") else None]
    assert got == want


@pytest.mark.parametrize("target", TARGETS + ("sm_110",))
@pytest.mark.parametrize(
    "probe, kernel",
    [
        ("func_calls", "k_chain"),
        ("kernels_three", "k_three"),
        ("malloc_free", "_Z6k_freePPi"),
        ("shared_dynamic", "k_dyn"),
        ("../probes_rw2/printf_switch", "_Z4calcPKiPKdS2_Pdii"),
    ],
)
def test_remove_kernel_relocatable_matches_ptxas(ptxas_ok, tmp_path, target, probe, kernel):
    """-c: .debug_frame CIE pointers are relocation addends (kept spacing, REL for the first
    CIE below sm_90); static functions nothing calls stay, an extern or a ptxas builtin
    (printf_switch: __cuda_sm20_div_rn_f64_full) goes with its last caller; module variables
    stay though no function uses them any more (shared_dynamic); sm_120's .nv.compat ISA_CLASS
    goes back to 1 with calc, whose code alone asked class 2 (nvinfo.gating.asks_isa_class2)."""
    text = (oracle.PROBES / f"{probe}.ptx").read_text()
    probe = probe.rsplit("/", 1)[-1]
    module = decompose(read_cubin(_compile(tmp_path, probe, text, target, "c")))
    module.remove_function(kernel)
    want = _compile(tmp_path / "edited", probe, _without_kernel(text, kernel), target, "c")
    assert build(module) == want


def _definition(text: str, name: str) -> re.Match[str]:
    """Where ``text`` defines ``name``: a kernel, or a device function's body (not its prototype),
    from the newline before it to its closing brace (the newline after it is left to the text
    between, so that two definitions that touch, `}\n.entry`, swap without a doubled newline)."""
    found = re.search(r"\n(?:\.visible |\.weak )?\.func\s+(?:\([^)]*\)\s*)?" + re.escape(name) + r"\([^;{]*?\n\{.*?\n}(?=\n)", text, re.S)
    found = found or re.search(r"\n(?:\.visible |\.weak )?\.entry " + re.escape(name) + r"\(.*?\n}(?=\n)", text, re.S)
    assert found is not None, name
    return found


def _swap_definitions(text: str, a: str, b: str) -> str:
    """``text`` with the definitions (not the prototypes) of functions ``a`` and ``b`` swapped."""
    mx, my = sorted((_definition(text, a), _definition(text, b)), key=lambda m: m.start())
    return text[: mx.start()] + my.group(0) + text[mx.end() : my.start()] + mx.group(0) + text[my.end() :]


def test_g_line_sequences_refused_where_a_visible_device_function_moves():
    """-g from sm_90 on, a removal under the shuffle: the visible kernels' line sequences follow
    the new .text order (random modules a/s0018, c/s0111: ptxas did), but a visible device
    function the edit moves among them may keep its place (d/s0164 -rdc -g sm_100a without
    kern16: ptxas kept `h12 reduce18 dh14 k19 h13` though .text put dh14 after k19), so
    that removal is refused."""
    from cubinemit.semantic.model import _sequence_arranger

    before = ["reduce18", "dh14", "h12", "k19", "kern16", "h13"]
    after = ["reduce18", "k19", "dh14", "h12", "h13"]
    kernels = {"reduce18", "k19"}
    arrange = _sequence_arranger(before, after, kernels, "remove 'kern16'", frozenset({"h12"}))
    with pytest.raises(ModelError, match="visible device function 'dh14'"):
        arrange(["h12", "reduce18", "dh14", "k19", "h13"])
    # only kernels move: they follow .text
    arrange = _sequence_arranger(["ka", "kb", "kc", "kd"], ["ka", "kc", "kb"], {"ka", "kb", "kc"}, "remove 'kd'", frozenset({"h"}))
    assert arrange(["h", "ka", "kb", "kc"]) == ["h", "ka", "kc", "kb"]


def test_swap_definitions_that_touch():
    """The PTX edit the reorder tests compare with: definitions that touch (`}\n.entry`, as
    nvcc writes a kernel right after a device function) swap with the text between them kept
    as it was, no newline doubled (ptxas embeds the PTX under -lineinfo, where one byte
    shows)."""
    text = ".version 8.0\n.entry a()\n{\nret;\n}\n.entry b()\n{\nexit;\n}\n// end\n"
    swapped = _swap_definitions(text, "a", "b")
    assert swapped == ".version 8.0\n.entry b()\n{\nexit;\n}\n.entry a()\n{\nret;\n}\n// end\n"


@pytest.mark.parametrize("target", TARGETS + ("sm_110",))
@pytest.mark.parametrize("mode", ["def", "c", "O0"])
@pytest.mark.parametrize(
    "probe, a, b",
    [
        ("func_calls", "k_user1", "k_chain"),
        ("kernels_three", "k_one", "k_three"),
        ("launch_bounds", "k_maxntid", "k_nobounds"),
        ("../probes_rw2/ggml_quant", "_Z13mul_mat_vec_qILi0EEvPKvPK10block_q8_0Pfii", "_Z13quantize_q8_0PKfP10block_q8_0i"),
        ("../probes_rw2/softmax_warp", "_Z12softmax_rowsIfEvPKT_Pfiif", "_Z12softmax_rowsI6__halfEvPKT_Pfiif"),
        ("../probes_rw2/coop_grid", "_Z14grid_two_phasePfi", "_Z15coalesced_countPKiiPi"),
    ],
)
def test_reorder_kernels_matches_ptxas(ptxas_ok, tmp_path, target, mode, probe, a, b):
    """Swapping two kernels' definitions: the .text order and everything after it follow, and
    the .debug_frame pairs (carried in the old order) move to the new .text order, their
    relocations in ptxas's order and, in -c, the CIE pointers re-spaced. A ptxas builtin is
    made in the body of its first caller (ggml_quant -c: the float division slow path; the
    WEAK sm_70 warp builtins stand first, in their first callers' order: coop_grid -c), and
    whole program numbers the builtins' copies ``$__internal_N_$`` in the new .text order
    (softmax_warp)."""
    text = (oracle.PROBES / f"{probe}.ptx").read_text()
    probe = probe.rsplit("/", 1)[-1]
    module = decompose(read_cubin(_compile(tmp_path, probe, text, target, mode)))
    names = [f.name for f in module.functions]
    assert a in names and b in names
    module.reorder_functions([b, a])
    swapped = [b if n == a else a if n == b else n for n in names]
    assert [f.name for f in module.functions if "__cuda_sm" not in f.name] == [n for n in swapped if "__cuda_sm" not in n]
    want = _compile(tmp_path / "edited", probe, _swap_definitions(text, a, b), target, mode)
    assert want != _compile(tmp_path, probe, text, target, mode)
    assert build(module) == want


@pytest.mark.parametrize("target, mode", [("sm_75", "c"), ("sm_75", "g"), ("sm_90", "c"), ("sm_100a", "c"), ("sm_120", "c")])
def test_reorder_hands_a_table_to_its_new_first_referrer(ptxas_ok, tmp_path, target, mode):
    """kb and kc reference tbl = {f, g}; with kc defined before kb it takes the table's
    addresses, which .nv.callgraph lists against it (tests/probes_edits/table_taker_moves):
    the takings move from kb to kc, as ptxas does for the swapped PTX."""
    text = (oracle.PROBES.parent / "probes_edits" / "table_taker_moves.ptx").read_text()
    module = decompose(read_cubin(_compile(tmp_path, "table_taker_moves", text, target, mode)))
    assert module.function("kb").address_taken and not module.function("kc").address_taken
    module.reorder_functions(["kc", "ka"])
    assert module.function("kc").address_taken == ["f", "g"] and not module.function("kb").address_taken
    want = _compile(tmp_path / "edited", "table_taker_moves", _swap_definitions(text, "ka", "kc"), target, mode)
    assert build(module) == want


@pytest.mark.parametrize("target", ["sm_75", "sm_89"])
@pytest.mark.parametrize("mode", ["c", "O0_c"])
def test_reorder_weak_builtins_follow_their_first_caller(ptxas_ok, tmp_path, target, mode):
    """The WEAK sm_70 warp builtins are made in the body of their first caller like the other
    builtins, in its call order (probes_builtin/bi_weak_reorder, cg_algos in small): with kB
    defined first, -c -O0 lists matchsync, votesync, then shflsync_idx_p after it, and in -c
    kC, which now makes only shflsync_bfly, still makes it last, so the DFS roots it first."""
    text = (oracle.PROBES.parent / "probes_builtin" / "bi_weak_reorder.ptx").read_text()
    module = decompose(read_cubin(_compile(tmp_path, "bi_weak_reorder", text, target, mode)))
    module.reorder_functions(["kB", "kA"])
    want = _compile(tmp_path / "edited", "bi_weak_reorder", _swap_definitions(text, "kA", "kB"), target, mode)
    assert build(module) == want


@pytest.mark.parametrize("target", ["sm_75", "sm_90"])
@pytest.mark.parametrize("mode", ["def", "c", "O0_c"])
def test_reorder_of_functions_a_variable_points_to(ptxas_ok, tmp_path, target, mode):
    """Functions a variable's initializer points to are declared by prototype before it in
    nvcc's and LLVM's PTX (tests/funcorder_probes/fo_data_declared: ptxas creates them
    there, and swapping their definitions moves nothing) and may be defined before it in
    hand-written PTX (fo_data_defined: created at their definitions, which the swap moves).
    Both give one cubin, so a plain reorder either gives both PTX's bytes or is refused
    before anything changed (fo_shuffle_data and weak_vtable_last -c came out in the nvcc
    order); with ``prototyped=True`` the caller vouches for the prototypes, and the swaps
    give fo_data_declared's bytes. fc's body makes the f64 division builtin where it
    stands."""
    probes = oracle.PROBES.parent / "funcorder_probes"
    texts = [(probes / f"{stem}.ptx").read_text() for stem in ("fo_data_declared", "fo_data_defined")]
    data = _compile(tmp_path / "declared", "fo_data", texts[0], target, mode)
    assert _compile(tmp_path / "defined", "fo_data", texts[1], target, mode) == data  # the cubin cannot tell
    parted = refused = 0
    outcomes = {}
    for a, b in (("fa", "fb"), ("fb", "fc"), ("fa", "k"), ("fc", "k")):
        wants = []
        for i, text in enumerate(texts):
            try:
                wants.append(_compile(tmp_path / f"{a}{b}{i}", "fo_data", _swap_definitions(text, a, b), target, mode))
            except ToolchainError:
                assert i == 1 and "k" in (a, b)  # k defined before the variable it reads: no such PTX
        parted += len(set(wants)) > 1
        for prototyped in (False, True):
            module = decompose(read_cubin(data))
            try:
                module.reorder_functions([b, a], prototyped=prototyped)
            except ModelError:
                assert build(module) == data  # refused before anything changed
                refused += not prototyped
                outcomes[a, b, prototyped] = "refused"
                continue
            got = build(module)
            assert got == wants[0] and (prototyped or set(wants) == {got}), (a, b, prototyped)
            outcomes[a, b, prototyped] = "same" if got == data else "changed"
    if mode == "def":
        assert parted == refused == 0  # whole program compiles none of them apart from k
    else:
        assert parted and refused >= parted
        # swapping definitions of functions declared ahead moves nothing
        assert outcomes["fa", "fb", True] == outcomes["fb", "fc", True] == "same"

def test_reorder_refuses_unknown_names(cubin):
    module = decompose(read_cubin(cubin("func_calls", "sm_90", "def")))
    with pytest.raises(ModelError, match="no function named 'k_none'"):
        module.reorder_functions(["k_chain", "k_none"])
    with pytest.raises(ModelError, match="'k_chain' is named twice"):
        module.reorder_functions(["k_chain", "k_chain"])


def test_edits_refuse_moving_line_named_variables(cubin):
    """-c names a function-scope .shared variable after its PTX line ($__s_local2__44): an edit
    that moves the lines of its function is refused, the module left as it was."""
    module = decompose(read_cubin(cubin("shared_module", "sm_90", "c")))
    names = [f.name for f in module.functions]
    with pytest.raises(ModelError, match=r"\$__s_local2__\d+' of 'k_sh2' is named after its PTX line"):
        module.reorder_functions(["k_sh2", "k_sh1"])
    with pytest.raises(ModelError, match="named after its PTX line"):
        module.remove_function("k_sh1")
    assert [f.name for f in module.functions] == names


@pytest.mark.parametrize("target", ["sm_75", "sm_90"])
@pytest.mark.parametrize("mode", ["c", "O0_c"])
def test_edits_refuse_moving_line_named_variables_of_statics(ptxas_ok, tmp_path, monkeypatch, target, mode):
    """The static kernel ks, defined between kw and kv, holds $__buf__<line>. The cubin does
    not tell where a static function stood among the others (the model declares ks first),
    so removing kw or swapping kw and kv (one line longer) may move ks's lines: both are
    refused, and both let through give ptxas other bytes than the model would (ggml
    mean.cu -rdc -c: reduce_rows_f32's shared_vals__114 became __95 without
    divide_by_count)."""
    src = oracle.PROBES.parent / "probes_edits" / "c_line_named_static.ptx"
    data = oracle.compile_ptx(src, target, mode).read_bytes()
    module = decompose(read_cubin(data))
    assert [f.name for f in module.functions][0] == "ks"  # the precondition: ks declared first
    match = r"'\$__buf__\d+' of 'ks' is named after its PTX line"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "kw", target, mode, match, Module, "_refuse_moved_lines")
    monkeypatch.undo()
    _assert_swap_refusal_was_needed(tmp_path, monkeypatch, src, "kw", "kv", target, mode, match, "_refuse_moved_lines")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["g", "c", "O0_c"])
def test_remove_the_last_kernel_takes_its_builtins_along(ptxas_ok, tmp_path, target, mode):
    """k_div alone calls the builtins __cuda_sm20_div_u64 and __cuda_sm20_rem_s64, functions
    of their own under -g and -c. Removing k_div takes them along, and ptxas writes a module
    without functions: the removal goes through as such, not refused for the device
    functions left (-g: their call frame rules written anew; -c: their creation order), of
    which there are none. (-g -c names the embedded PTX text after a checksum of the file.)"""

    def check(module):  # the precondition: the builtins have functions of their own
        assert sorted(f.name for f in module.functions) == ["__cuda_sm20_div_u64", "__cuda_sm20_rem_s64", "k_div"]

    got, want = _removed(tmp_path, oracle.PROBES.parent / "probes_edits" / "last_kernel_builtin.ptx", "k_div", target, mode, check)
    assert got == want


def _alone(text: str, kernel: str | None) -> str:
    """``text`` with every kernel definition but ``kernel``'s cut out (None: every one)."""
    for name in re.findall(r"^\.visible \.entry (\w+)\(", text, re.M):
        if name != kernel:
            text = _without_kernel(text, name)
    return text


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", ["def", "c", "O0", "lineinfo"])
def test_remove_the_last_kernel_matches_ptxas(ptxas_ok, tmp_path, target, mode):
    """Removing a module's only kernel gives ptxas's cubin of the PTX without kernels: whole
    program drops the device functions (recursion, func_visible), -c keeps them; data stays;
    .nv.compat's CAN_FASTPATH_FINALIZE is 0 without code (sm_100 and sm_120 too). shared_dynamic
    with k_nodyn alone (an empty .nv.shared.k_nodyn: the module declares extern shared) gets
    .nv_debug.shared in whole-program builds. -lineinfo on PTX without .loc: the line tables
    have no file table, and .nv_debug_line_sass is left with the bare header .debug_line has."""
    cases = [(p, None) for p in ("recursion", "func_visible", "func_weak", "const_vars", "printf", "local_array")]
    cases.append(("shared_dynamic", "k_nodyn"))
    misses = []
    for probe, kernel in cases:
        text = (oracle.PROBES / f"{probe}.ptx").read_text()
        if kernel is not None:
            text = _alone(text, kernel)
        data = _compile(tmp_path, probe, text, target, mode)
        module = decompose(read_cubin(data))
        (only,) = [f.name for f in module.functions if f.is_kernel]
        module.remove_function(only)
        want = _compile(tmp_path / "edited", probe, _alone(text, None), target, mode)
        if build(module) != want:
            misses.append(probe)
    assert not misses


def _assert_last_kernel_refused(tmp_path, monkeypatch, src, kernel: str, target: str, mode: str, why: str) -> None:
    """Removing ``kernel`` from ``src`` cut down to it is refused naming ``why``, the module
    is left as it was, and ptxas's cubin without kernels differs from what the removal would
    have built without the check."""
    text = src.read_text()
    data = _compile(tmp_path, src.stem, _alone(text, kernel), target, mode)
    _assert_removal_refused(data, kernel, f"cannot remove {kernel!r}, the last kernel: .*{re.escape(why)}")
    assert _removed_anyway(monkeypatch, data, kernel) != _compile(tmp_path / "edited", src.stem, _alone(text, None), target, mode)


def _removed_anyway(monkeypatch, data: bytes, kernel: str) -> bytes | None:
    """The build after removing ``kernel`` with the last-kernel checks switched off (None where
    that fails)."""
    with monkeypatch.context() as patched:
        patched.setattr(Module, "_refuse_unknown_kernelless", lambda *_: None)
        module = decompose(read_cubin(data))
        try:
            module.remove_function(kernel)
            return build(module)
        except Exception:
            return None


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
def test_remove_the_last_kernel_refused_where_the_cubin_does_not_tell(ptxas_ok, tmp_path, monkeypatch, target):
    """What the cubin of a one-kernel module does not keep about the module without it:
    the references' declaration order (texref_unified with k_surf alone names sref, tref;
    ptxas without kernels tref, sref), the function numbers ptxas writes into an
    initialiser that held a copy's offset (init_ops_first), extern shared memory inside a
    kernel's section (shared_dynamic with k_dyn alone).
    Each removal is refused and leaves the module as it was; ptxas's cubins do differ."""
    cases = [
        (oracle.PROBES / "texref_unified.ptx", "k_surf", "def", "names its 2 texture/surface/sampler references"),
        (oracle.PROBES.parent / "probes_data" / "init_ops_first.ptx", "_Z10use_tablesPii", "def", "'g_ops' may hold a function's address"),
        (oracle.PROBES / "shared_dynamic.ptx", "k_dyn", "def", "may end in extern"),
    ]
    for src, kernel, mode, why in cases:
        _assert_last_kernel_refused(tmp_path, monkeypatch, src, kernel, target, mode, why)


@pytest.mark.parametrize("target", ("sm_75", "sm_100a"))
def test_remove_the_last_kernel_refused_with_dwarf_from_the_ptx(ptxas_ok, tmp_path, target):
    """nvcc -G PTX brings its own DWARF (.debug_info, .debug_abbrev), which names the kernel's
    labels: a module without the kernel writes it anew (and ptxas rejects the PTX cut that
    way). Refused, the module left as it was."""
    src = oracle.PROBES.parent / "probes_debug" / "dbg_kernel_G.ptx"
    data = _compile(tmp_path, src.stem, src.read_text(), target, "def")
    module = decompose(read_cubin(data))
    (kernel,) = [f.name for f in module.functions if f.is_kernel]
    with pytest.raises(ModelError, match=r"the last kernel: a module without code writes its debug tables \(\.debug_\w+\) anew"):
        module.remove_function(kernel)
    assert build(module) == data


def test_remove_the_last_kernel_refused_for_builtins_and_tensor_memory(ptxas_ok, tmp_path, monkeypatch):
    """-c: with k0 gone bi_forward_split's builtins are made in another order; -O0: the visible
    d left in the PTX still allocates tensor memory, so ptxas keeps the tcgen05 partition in
    .nv.shared.reserved.0 (fold_flags_tail, sm_100a). Both refused; ptxas's cubins differ."""
    cases = [
        (oracle.PROBES.parent / "probes_builtin" / "bi_forward_split.ptx", "k0", "c", "builtins' and address-taken functions' symbols"),
        (oracle.PROBES.parent / "probes_gfold" / "fold_flags_tail.ptx", "k", "O0", "tensor memory"),
    ]
    for src, kernel, mode, why in cases:
        _assert_last_kernel_refused(tmp_path, monkeypatch, src, kernel, "sm_100a", mode, why)


def test_remove_refuses_relocatable_line_rows(cubin):
    module = decompose(read_cubin(cubin("func_calls", "sm_90", "lineinfo_c")))
    with pytest.raises(ModelError, match=r"is named after a checksum"):
        module.remove_function("k_chain")
    assert [f.name for f in module.functions] == [f.name for f in decompose(read_cubin(cubin("func_calls", "sm_90", "lineinfo_c"))).functions]


@pytest.mark.parametrize("target", ("sm_75", "sm_89", "sm_90", "sm_100a", "sm_120"))
@pytest.mark.parametrize("kernel", ["k_chain", "k_user1"])
def test_remove_under_g_matches_ptxas(ptxas_ok, tmp_path, target, kernel):
    """-g on PTX without DWARF of its own: the line tables and the register tables'
    records follow the PTX without the kernel (tests/probes_lines has more). From sm_90 on,
    -g lists the line sequences in a walk of .text order (Module._walked_sequences), so
    k_chain's removal moves f_c1's, which no kernel calls any more: f_shared f_c1 f_c3 f_c2
    becomes f_shared f_c3 f_c2 f_c1 (refused before); below sm_90 they stand in .text order."""
    got, want = _removed(tmp_path, oracle.PROBES / "func_calls.ptx", kernel, target, "g")
    assert got == want


@pytest.mark.parametrize("target", ("sm_90", "sm_100a", "sm_120"))
def test_remove_under_g_walks_the_line_sequences(ptxas_ok, tmp_path, target):
    """fo_recursion without K1, -g from sm_90 on: the static even and odd call each other
    and lose their only kernel caller. Walking .text order (fact c3 c2 K2 odd even c1), each
    function placing itself and then its callees, lists c2 c1 odd even before the visible
    ones, where the module had c2 c1 even odd (K1, before odd in .text, reached even first)."""
    src = oracle.PROBES.parent / "funcorder_probes" / "fo_recursion.ptx"
    got, want = _removed(tmp_path, src, "K1", target, "g")
    assert got == want


def test_remove_under_g_refuses_unwalked_sequences_where_addresses_are_taken(ptxas_ok, tmp_path, monkeypatch):
    """fo_table_load_taker -g sm_90: code loads functions' addresses from tables, and the
    line sequences follow no walk of .text order measured (fo_fptr, fo_vtables and ftab
    neither). Removing k2 leaves callees without a kernel caller: refused, and let through
    the sequences come out in another order than ptxas's."""
    src = oracle.PROBES.parent / "funcorder_probes" / "fo_table_load_taker.ptx"
    data = oracle.compile_ptx(src, "sm_90", "g").read_bytes()
    module = decompose(read_cubin(data))
    assert module._walked_sequences() is None  # the precondition: addresses are taken
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "k2", "sm_90", "g", "loses its last kernel", Module, "_refuse_moved_debug_sequences")


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
@pytest.mark.parametrize(
    "probe, kernel, why",
    [("shared_module", "k_sh1", "lays the shared memory out anew without it"), ("texref_unified", "k_tex", "compiles the kernels anew")],
)
def test_remove_under_g_refuses_module_shared_and_textures(cubin, target, probe, kernel, why):
    """-g lays module shared memory and texture slots out anew for the kept kernels, whose
    SASS then changes (s_common, shared by both kernels, becomes k_sh2's alone; k_surf's
    slot): refused, the module kept."""
    data = cubin(probe, target, "g")
    _assert_removal_refused(data, kernel, why)


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a", "sm_120"))
def test_remove_keeps_or_refuses_the_texture_query(ptxas_ok, tmp_path, target):
    """Whole program: a module that queries a texture (txq/suq: a TXQ in the SASS) writes no
    .nv.callgraph, and other module records. Removing k_tex keeps k_txq's query and matches
    ptxas; removing k_txq, the only TXQ, makes ptxas lay the module out as one without
    queries, which is refused (until now it gave wrong bytes), as is any removal from
    texref_independent, whose sampler query leaves no TXQ; the module is left as it was."""
    got, want = _removed(tmp_path, oracle.PROBES / "texref_unified.ptx", "k_tex", target, "def")
    assert got == want
    for probe, kernel in (("texref_unified", "k_txq"), ("texref_independent", "k_plain")):
        data = oracle.compile_ptx(oracle.PROBES / f"{probe}.ptx", target, "def").read_bytes()
        _assert_removal_refused(data, kernel, "does not show a query in the kept code")


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a", "sm_120"))
def test_remove_refuses_moving_the_handle_slots(ptxas_ok, tmp_path, target):
    """From sm_90 on a kernel's handle slots start after the module's largest parameter list:
    removing k_wide (24 parameter bytes) moves k_suq's surface slot (sm_90: 0x228 to 0x218;
    sm_100a, sm_120: 0x3a0 to 0x390, the slots aligned to 16), and ptxas's k_suq then reads it
    there. We kept the old SASS (wrong bytes); now the removal is refused and the module is
    left as it was. On sm_75 the slots follow the kernel's own parameters: the removal matches
    ptxas; k_plain's removal matches everywhere."""
    src = oracle.PROBES.parent / "probes_data" / "handle_slots_moved.ptx"
    got, want = _removed(tmp_path, src, "k_plain", target, "def")
    assert got == want
    if target == "sm_75":
        got, want = _removed(tmp_path, src, "k_wide", target, "def")
        assert got == want
        return
    data = _compile(tmp_path, src.stem, src.read_text(), target, "def")
    moved = "0x228 to 0x218" if target == "sm_90" else "0x3a0 to 0x390"
    _assert_removal_refused(data, "k_wide", f"moves the texture/surface handle slots of 'k_suq' from bank-0 offset {moved}")
    edited = _compile(tmp_path / "edited", src.stem, _without_kernel(src.read_text(), "k_wide"), target, "def")
    assert _text(edited, "k_suq") != _text(data, "k_suq")


def test_remove_refuses_a_called_function(cubin):
    module = decompose(read_cubin(cubin("func_calls", "sm_90", "c")))
    with pytest.raises(ModelError, match="not supported yet|calls it"):
        module.remove_function("f_c2")


@pytest.mark.parametrize("target", ("sm_75", "sm_86", "sm_100a"))
@pytest.mark.parametrize(
    "src, kernel",
    [
        ("probes_builtin/bi_two_kernels", "Kdiv"),
        ("probes_builtin/bi_vote_remove", "k_any1"),
        ("probes_builtin/bi_copy_renumber", "k_next"),
        ("probes_fp/fp_remove_taker", "k_take"),
        ("probes_fp/fp_remove_taker", "k_call2"),
        ("probes_const2/ftab", "k_itab"),
    ],
)
def test_remove_under_g_follows_the_new_text_order(ptxas_ok, tmp_path, target, src, kernel):
    """-g writes its register tables' records and (below sm_90) its line sequences in .text
    order: a builtin's record and sequence move after its first caller left (bi_vote_remove
    without k_any1: __cuda_sm70_votesync_any after k_both), and kernels whose order the
    removal changes swap theirs (fp_remove_taker without k_take: k_call's before k_call2's).
    Until now the removal only dropped the records, which gave wrong bytes. From sm_90 on the
    device functions' sequences come first and the kernels' follow in .text order (sm_100a:
    f_t, then k_call before k_call2). bi_two_kernels without Kdiv (sm_100a): -g compiles
    unoptimised, so Ksqrt's sqrt builtin does not keep CAN_FASTPATH_FINALIZE's bit 3 clear."""
    got, want = _removed(tmp_path, oracle.PROBES.parent / f"{src}.ptx", kernel, target, "g")
    assert got == want


@pytest.mark.parametrize("mode", ["c", "g"])
def test_remove_refuses_an_unknown_builtin_order(ptxas_ok, tmp_path, monkeypatch, mode):
    """bi_forward_split without k0: f0 now makes both divisions, in call order (f32 first),
    where k0 made the f64 one first; the model cannot tell where f0's builtins then stand
    (f0 is declared before k0, defined after it). Refused, the module left as it was; the
    unchecked removal differs from ptxas."""
    from cubinemit.semantic import model as semantic_model

    src = oracle.PROBES.parent / "probes_builtin" / "bi_forward_split.ptx"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "k0", "sm_75", mode, "'f0' would make builtins", semantic_model, "_refuse_unknown_builtin_order")


@pytest.mark.parametrize("target", ("sm_75", "sm_89"))
def test_remove_under_g_refuses_moving_callee_constants(ptxas_ok, tmp_path, monkeypatch, target):
    """Whole-program -g puts the callees' FP64 literals in each calling kernel's
    .nv.constant2.<k>; without k_a ptxas lays them out anew and dev_poly's code reads other
    offsets. Refused (it gave wrong bytes), the module left as it was; the unchecked removal
    differs from ptxas."""
    src = oracle.PROBES.parent / "probes_const2" / "late_banks.ptx"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "k_a", target, "g", "'k_a''s .nv.constant2 may hold constants of 'dev_poly'", Module, "_refuse_moved_debug_sequences")


_G_LAST_KERNEL = [(p, t) for p in ("const_vars", "printf", "local_array") for t in TARGETS]
# below sm_90: from there on a function losing its last kernel caller is refused for its line
# sequence (Module._refuse_moved_debug_sequences)
_G_LAST_KERNEL += [(p, t) for p in ("func_visible", "func_weak", "recursion") for t in ("sm_75", "sm_89")]


@pytest.mark.parametrize("probe, target", _G_LAST_KERNEL)
def test_remove_the_last_kernel_under_g_matches_ptxas(ptxas_ok, tmp_path, target, probe):
    """-g: the line tables and the register tables follow the PTX without the kernel, and
    .nv_debug_line_sass holds .debug_line's unit. The device functions left (func_visible's
    vis_add and vis_unused, func_weak's weak_fn, recursion's fib) keep their order, code and
    call frame rules; such removals were refused before."""
    src = oracle.PROBES / f"{probe}.ptx"
    module = decompose(read_cubin(_compile(tmp_path, probe, src.read_text(), target, "g")))
    (only,) = [f.name for f in module.functions if f.is_kernel]
    module.remove_function(only)
    assert build(module) == _compile(tmp_path / "edited", probe, _alone(src.read_text(), None), target, "g")


@pytest.mark.parametrize(
    "src, match",
    [
        ("probes_fp/fp_takers", "'h' takes function addresses or calls through them"),
        ("funcorder_probes/fo_static_reached", "takes function addresses or calls through them"),
        ("probes_data/init_ops_first", "holds a function's address"),
    ],
)
def test_remove_the_last_kernel_under_g_refuses_address_takers_left(ptxas_ok, tmp_path, monkeypatch, src, match):
    """-g keeps the device functions. Where they take addresses (in code or in a variable's
    initializer), ptxas orders them anew once no kernel leads, by a rule not measured: other
    .text orders than the module's, sm_75. Refused, the module left as it was, and let
    through the removal gives other bytes than ptxas's."""
    path = oracle.PROBES.parent / f"{src}.ptx"
    text = path.read_text()
    data = _compile(tmp_path, path.stem, text, "sm_75", "g")
    (kernel,) = [f.name for f in decompose(read_cubin(data)).functions if f.is_kernel]
    _assert_removal_refused(data, kernel, match)
    assert _removed_anyway(monkeypatch, data, kernel) != _compile(tmp_path / "edited", path.stem, _alone(text, None), "sm_75", "g")


def test_remove_the_last_kernel_under_g_refuses_loosened_launch_bounds(ptxas_ok, tmp_path, monkeypatch):
    """params_spill, conv2d_direct alone, sm_75 -g: the kernel's launch bounds cap its callee
    out_index's registers, and without it ptxas compiles out_index anew (the .debug_frame
    CIE's R64-R67 rules undefined instead of same_value). Refused, the module left as it was."""
    src = oracle.PROBES.parent / "probes_rw6" / "params_spill.ptx"
    kernel = "_Z13conv2d_direct10ConvParamsPKfS1_Pf"
    text = _alone(src.read_text(), kernel)
    data = _compile(tmp_path, src.stem, text, "sm_75", "g")
    _assert_removal_refused(data, kernel, "launch bounds cap the registers of '_Z9out_indexRK10ConvParamsiiii'")
    monkeypatch.setattr(Module, "_refuse_loosened_register_budget", lambda *_: None)
    assert _removed_anyway(monkeypatch, data, kernel) != _compile(tmp_path / "edited", src.stem, _alone(text, None), "sm_75", "g")


EDIT_PROBES = oracle.ROOT / "tests" / "probes_edits"


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
@pytest.mark.parametrize("mode", ["def", "c", "lineinfo", "g", "O0"])
def test_rename_extern_c_kernel_renames_its_statics(ptxas_ok, tmp_path, monkeypatch, target, mode):
    """An extern "C" kernel's function-scope shared array is named _ZZ10scan_blockE3buf, and
    renaming the kernel in the PTX text renames it too (the length prefix stays): its symbol
    (-c, -g) and the embedded PTX (-lineinfo, -g) carry the new name. Without that rule the
    rename differs from ptxas where the array's name is written."""
    from cubinemit.semantic import model

    text = (EDIT_PROBES / "extern_c_static.ptx").read_text()
    data = _compile(tmp_path, "extern_c_static", text, target, mode)
    want = _compile(tmp_path / "edited", "extern_c_static", text.replace("scan_block", "scan_block_renamed"), target, mode)

    def renamed() -> bytes:
        module = decompose(read_cubin(data))
        module.rename_function("scan_block", "scan_block_renamed")
        return build(module)

    assert renamed() == want
    if mode in ("c", "lineinfo", "g"):
        monkeypatch.setattr(model, "_static_prefixes", lambda old, new: None)
        assert renamed() != want


@pytest.mark.parametrize(
    "probe, a, b, targets",
    [
        ("kernels_three", "k_one", "k_three", ("sm_75", "sm_90", "sm_100a")),
        ("func_calls", "k_user1", "k_chain", ("sm_75", "sm_89")),
        ("../probes_rw2/softmax_warp", "_Z12softmax_rowsIfEvPKT_Pfiif", "_Z12softmax_rowsI6__halfEvPKT_Pfiif", ("sm_75",)),
        ("../probes_rw2/ggml_quant", "_Z13mul_mat_vec_qILi0EEvPKvPK10block_q8_0Pfii", "_Z13quantize_q8_0PKfP10block_q8_0i", ("sm_75",)),
    ],
)
def test_reorder_under_g_matches_ptxas(ptxas_ok, tmp_path, probe, a, b, targets):
    """-g reorders: the line tables follow the moved PTX lines as under -lineinfo, and the
    register tables' records (.nv_debug_info_reg_sass/_type) come in the new .text order, a
    builtin's after its first caller."""
    text = (oracle.PROBES / f"{probe}.ptx").read_text()
    stem = probe.rsplit("/", 1)[-1]
    for target in targets:
        module = decompose(read_cubin(_compile(tmp_path, stem, text, target, "g")))
        module.reorder_functions([b, a])
        want = _compile(tmp_path / "edited", stem, _swap_definitions(text, a, b), target, "g")
        assert want != _compile(tmp_path, stem, text, target, "g")
        assert build(module) == want, target


@pytest.mark.parametrize(
    "probe, a, b, target, check, why",
    [
        ("../probes_gshared/gsh_nvcc", "_Z6matmulPKfS0_Pfi", "_Z6reducePKfPfi", "sm_75", "_refuse_recompiled_under_g", "names shared variable '_ZZ6matmulPKfS0_PfiE2As' in the first kernel's walk"),
        ("../probes_gshared/gsh_unused_no_cap", "k0", "k1", "sm_75", "_refuse_recompiled_under_g", "names an unused .shared variable it dropped in the first kernel's walk"),
        ("../probes_edits/g_shared_dup_local", "ka", "kb", "sm_75", "_refuse_recompiled_under_g", "names shared variable 'loc' after its place in declaration order"),
        ("../probes_edits/g_shared_dup_local", "kb", "kc", "sm_90", "_refuse_recompiled_under_g", "names shared variable 'loc' after its place in declaration order"),
        ("../probes_texg/texg_first_two", "k_a", "k_b", "sm_90", "_refuse_recompiled_under_g", "compiles the kernels anew"),
    ],
)
def test_reorder_under_g_refused_where_ptxas_lays_out_anew(ptxas_ok, tmp_path, monkeypatch, probe, a, b, target, check, why):
    """-g reorders are refused beside texture variables, and beside shared variables the first
    kernel's walk names (module scope, or a scope the cubin does not tell: gsh_nvcc's As
    stays in matmul's block when reduce moves first, the model moved it with
    .nv_debug.shared) or that ptxas numbered in declaration order (loc, loc.1, loc.2). The
    refusal guards real bytes: let through, the result differs from ptxas."""
    text = (oracle.PROBES / f"{probe}.ptx").read_text()
    stem = probe.rsplit("/", 1)[-1]
    data = _compile(tmp_path, stem, text, target, "g")
    module = decompose(read_cubin(data))
    with pytest.raises(ModelError, match=why):
        module.reorder_functions([b, a])
    assert build(module) == data
    monkeypatch.setattr(Module, check, lambda self, edit: None)
    module.reorder_functions([b, a])
    assert build(module) != _compile(tmp_path / "edited", stem, _swap_definitions(text, a, b), target, "g")


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
@pytest.mark.parametrize("mode", ["def", "c", "lineinfo", "g", "O0"])
def test_remove_keeps_trailing_builtins_in_first_call_order(ptxas_ok, tmp_path, monkeypatch, target, mode):
    """Where ptxas makes the builtins after every other function (-g, kernels without
    .visible), a builtin whose first caller goes stays in that block, placed by its next
    first call: without k_div the s64 division still follows k_rcp's reciprocal. Putting it
    right after its new caller instead (the rule for builtins made beside their callers)
    differs from ptxas under -g."""
    from cubinemit.semantic import model

    src = EDIT_PROBES / "builtins_trailing.ptx"
    got, want = _removed(tmp_path, src, "k_div", target, mode)
    assert got == want
    if mode == "g":
        monkeypatch.setattr(model, "_trailing_builtins_by_first_call", lambda functions, check=True: None)
        try:
            unchecked = _removed(tmp_path / "unchecked", src, "k_div", target, mode)[0]
        except ModelError:
            unchecked = None  # the creation-order search sees that other orders differ
        assert unchecked != want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
@pytest.mark.parametrize("mode", ["def", "c", "lineinfo", "g", "O0"])
def test_rename_device_function_renames_its_return_parameter(ptxas_ok, tmp_path, target, mode):
    """Renaming a device function in the PTX renames its return parameter ``f_c3_ret`` as well
    as ``f_c3_a``: the embedded PTX text (-lineinfo, -g) says so too."""
    text = (oracle.PROBES / "func_calls.ptx").read_text()
    module = decompose(read_cubin(_compile(tmp_path, "func_calls", text, target, mode)))
    module.rename_function("f_c3", "f_c3_renamed")
    assert build(module) == _compile(tmp_path / "edited", "func_calls", text.replace("f_c3", "f_c3_renamed"), target, mode)


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
@pytest.mark.parametrize("mode", ["def", "g"])
def test_rename_refused_where_the_ptx_brings_dwarf(ptxas_ok, tmp_path, target, mode):
    """In PTX with DWARF of its own (nvcc -G) ptxas compiles a renamed function anew, even for a
    name of the same length: its code or its register tables change beyond the name (llm.c
    adamw -G: the kernel's SASS; here k_poly's register-table records). Refused, the module
    kept."""
    text = (oracle.ROOT / "tests" / "probes_debug" / "dbg_calls_G.ptx").read_text()
    old, new = "_Z6k_polyPKiPii", "_Z6k_polyPKiPij"
    data = _compile(tmp_path, "dbg_calls_G", text, target, mode)
    module = decompose(read_cubin(data))
    with pytest.raises(ModelError, match="the DWARF the PTX brings names it"):
        module.rename_function(old, new)
    assert build(module) == data
    renamed = read_cubin(_compile(tmp_path / "edited", "dbg_calls_G", text.replace(old, new), target, mode))

    def payloads(obj, name: str) -> list[bytes]:
        # the leaf payloads the module holds, the (same-length) name put back
        keep = (f".text.{name}", ".nv_debug_info_reg_sass", ".nv_debug_info_reg_type")
        return [bytes(s.data).replace(name.encode(), old.encode()) for s in obj.sections if s.name in keep]

    assert payloads(renamed, new) != payloads(read_cubin(data), old)


@pytest.mark.parametrize("target", ("sm_80", "sm_90", "sm_100a", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "lineinfo", "g", "O0"])
def test_rename_matches_ptxas_where_the_ptx_dwarf_names_no_function(ptxas_ok, tmp_path, target, mode):
    """Triton's DWARF is one compile unit without subprograms: it names no function, and ptxas
    -g compiles the renamed kernel to the same code. The rename was refused for any DWARF the
    PTX brings; every Triton kernel under -g (tests/probes_debug/dbg_cu_only)."""
    text = (oracle.ROOT / "tests" / "probes_debug" / "dbg_cu_only.ptx").read_text()
    module = decompose(read_cubin(_compile(tmp_path, "dbg_cu_only", text, target, mode)))
    module.rename_function("add_kernel", "add_kernel_renamed")
    assert build(module) == _compile(tmp_path / "edited", "dbg_cu_only", text.replace("add_kernel", "add_kernel_renamed"), target, mode)


@pytest.mark.parametrize("target", ("sm_90", "sm_100a", "sm_120"))
def test_remove_names_the_references_the_new_first_kernel_names(ptxas_ok, tmp_path, monkeypatch, target):
    """ptxas names the references the first kernel in .text order names first, then the others
    in declaration order: -c texref_unified without k_txq (tref) starts with k_surf, which names
    sref before tref. Keeping the old order differs from ptxas."""
    got, want = _removed(tmp_path, oracle.PROBES / "texref_unified.ptx", "k_txq", target, "c")
    assert [y.name for y in read_cubin(want).symbols if y.name in ("tref", "sref")] == ["sref", "tref"]
    assert got == want


@pytest.mark.parametrize(
    "probe, kernel, target, mode, check, why",
    [
        # t4, k_b's, joins t0 t2 t4 in declaration order, where the cubin does not show it
        ("../probes_texg/texg_first_two", "k_b", "sm_75", "def", "_references_after", "its declared place among the other references"),
        # -c below sm_90: k_tex's BINDLESS records repeat after the kernels around it
        ("texref_unified", "k_surf", "sm_75", "c", "_refuse_carried_bindless", "carries BINDLESS records"),
        # -c sm_90: k_suq's handles follow the module's largest parameter list (k_wide's)
        ("../probes_data/handle_slots_moved", "k_wide", "sm_90", "c", "_refuse_moved_relocatable_handles", "largest parameter list"),
        # -c: k_itab, compiled after the indirect caller k_ftab, has its count raised to 24
        ("../probes_const2/ftab", "k_ftab", "sm_75", "c", "_refuse_moved_indirect_callers", "may have raised to the caller's"),
    ],
)
def test_remove_refused_where_the_cubin_does_not_tell(ptxas_ok, tmp_path, monkeypatch, probe, kernel, target, mode, check, why):
    """Removals whose texture/surface reference symbols, BINDLESS records, handle slots or
    register counts the cubin does not tell are refused, the module kept; let through, each
    differs from ptxas."""
    src = oracle.PROBES / f"{probe}.ptx"
    data = _compile(tmp_path, src.stem, src.read_text(), target, mode)
    _assert_removal_refused(data, kernel, why)
    if check == "_references_after":
        monkeypatch.setattr(Module, check, lambda self, edit, functions: [d for d in self.data if d.space in ("tex", "surf", "sampler")])
    else:
        monkeypatch.setattr(Module, check, lambda self, *args: None)
    if check == "_refuse_moved_indirect_callers":
        # the first function in .text keeps 24 registers too, which the cubin does not tell
        # apart from its own count either (_first_function_raised)
        monkeypatch.setattr(Module, "_first_function_raised", lambda *_: None)
    got, want = _removed(tmp_path / "unchecked", src, kernel, target, mode)
    assert got != want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
@pytest.mark.parametrize("mode", ["def", "c", "lineinfo", "O0"])
def test_rename_kernel_renames_its_reference_parameters(ptxas_ok, tmp_path, target, mode):
    """texmode_independent reference parameters named after the kernel (k_all_t, k_all_s,
    k_all_su) are renamed with it in the PTX, and so are the LOCAL symbols ptxas makes for them."""
    src = oracle.ROOT / "tests" / "probes_directives" / "ref_params.ptx"
    text = src.read_text()
    module = decompose(read_cubin(_compile(tmp_path, "ref_params", text, target, mode)))
    module.rename_function("k_all", "k_all_renamed")
    assert build(module) == _compile(tmp_path / "edited", "ref_params", text.replace("k_all", "k_all_renamed"), target, mode)


@pytest.mark.parametrize("target", ("sm_86", "sm_90", "sm_100a", "sm_120"))
@pytest.mark.parametrize(
    "probe, a, b",
    [
        ("../probes_weak/weak_func", "kv", "kw"),
        ("../probes_weak/nvcc_templates_80", "_Z10use_helperPfPd", "_Z6reduceIfLi128EEvPT_PKS0_i"),
    ],
)
def test_reorder_with_line_tables_keeps_weak_sequences_first(ptxas_ok, tmp_path, target, probe, a, b):
    """-lineinfo from sm_90 on: .nv_debug_line_sass lists the weak functions' sequences first,
    then the others, each in .text order, and a reorder keeps that (kw before kv whichever
    comes first in .text); sm_86 and the Mercury clones keep plain .text order."""
    text = (oracle.PROBES / f"{probe}.ptx").read_text()
    stem = probe.rsplit("/", 1)[-1]
    module = decompose(read_cubin(_compile(tmp_path, stem, text, target, "lineinfo")))
    module.reorder_functions([b, a])
    want = _compile(tmp_path / "edited", stem, _swap_definitions(text, a, b), target, "lineinfo")
    assert build(module) == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a", "sm_120"))
@pytest.mark.parametrize("kernel", ["_Z7k_stagePfS_", "_Z7k_plainPfS_i", "_Z8k_mirrorPf"])
def test_g_remove_beside_dynamic_shared_matches_ptxas(ptxas_ok, tmp_path, target, kernel):
    """-g keeps the kept kernels' code around the module's extern (dynamic) shared array: it
    has no offset to lay out anew, unlike static shared variables. Removals were refused for
    it (every XLA and Triton module declares global_smem[]); tests/probes_edits/g_dynamic_shared."""
    got, want = _removed(tmp_path, EDIT_PROBES / "g_dynamic_shared.ptx", kernel, target, "g")
    assert got == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a", "sm_120"))
def test_g_reorder_beside_dynamic_shared_matches_ptxas(ptxas_ok, tmp_path, target):
    text = (EDIT_PROBES / "g_dynamic_shared.ptx").read_text()
    a, b = "_Z7k_stagePfS_", "_Z8k_mirrorPf"
    module = decompose(read_cubin(_compile(tmp_path, "g_dynamic_shared", text, target, "g")))
    module.reorder_functions([b, a])
    assert build(module) == _compile(tmp_path / "edited", "g_dynamic_shared", _swap_definitions(text, a, b), target, "g")


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a", "sm_120"))
def test_g_remove_refused_where_launch_bounds_cap_a_shared_callee(ptxas_ok, tmp_path, monkeypatch, target):
    """-g compiles the f32 division slow path once, within the tightest register budget of
    the kernels calling it: k_bounded's __launch_bounds__(1024, 2). Without k_bounded ptxas
    compiles it anew for k_free (llm.c layernorm_backward without kernel8; CUDA-style
    realistic probe without reduce: a builtin's .debug_frame CIE). The removal is refused and
    the module left as it was; let through, it differs from ptxas. Default mode, and -g
    where a kept kernel has the same bounds, are exact (tests/probes_edits/g_bounds_callee)."""
    src = EDIT_PROBES / "g_bounds_callee.ptx"
    text = src.read_text()
    kernel = "_Z9k_boundedPfPKfi"
    data = _compile(tmp_path, src.stem, text, target, "g")
    want = _compile(tmp_path / "edited", src.stem, _without_kernel(text, kernel), target, "g")
    _assert_removal_refused(data, kernel, "launch bounds cap the registers of '__cuda_sm3x_div_rn_noftz_f32_slowpath'")
    monkeypatch.setattr(Module, "_refuse_loosened_register_budget", lambda *_: None)
    module = decompose(read_cubin(data))
    module.remove_function(kernel)
    assert build(module) != want
    got, want = _removed(tmp_path / "def", src, kernel, target, "def")
    assert got == want


@pytest.mark.parametrize(
    "probe, kernel, changed, targets",
    [
        ("c_bounds_callee", "k0", "f1", ("sm_75", "sm_90", "sm_100a", "sm_120")),
        ("c_budget_builtin", "k1", "__cuda_sm20_div_rn_f64_full", ("sm_75", "sm_90", "sm_100a")),
        ("c_bounds_taken", "k_bounded", "f_deep", ("sm_90", "sm_100a")),
    ],
)
def test_c_remove_refused_where_launch_bounds_cap_a_callee(ptxas_ok, tmp_path, monkeypatch, probe, kernel, changed, targets):
    """Optimised -c compiles the module's own device functions, and at times ptxas's builtins,
    within their callers' tightest register budget: without k0 (.maxnreg 32) ptxas compiles
    f1, which k1 still calls, anew (c_bounds_callee, a random synthetic module); without k1's
    budget of 40 the f64 division builtin k2 still calls comes out other code
    (c_budget_builtin, after a random module); k_bounded reads a table holding f_deep's
    address, and from sm_90 on f_deep frames other bytes without it (c_bounds_taken, after a
    random nvcc module). The removals are refused; let through, they differ from ptxas
    (tests/probes_edits)."""
    src = EDIT_PROBES / f"{probe}.ptx"
    text = src.read_text()
    for target in targets:
        data = _compile(tmp_path, src.stem, text, target, "c")
        want = _compile(tmp_path / "edited", src.stem, _without_kernel(text, kernel), target, "c")
        before = {f.name: f.sass for f in decompose(read_cubin(data)).functions}
        assert {f.name: f.sass for f in decompose(read_cubin(want)).functions}[changed] != before[changed]
        _assert_removal_refused(data, kernel, f"under -c '{kernel}''s launch bounds cap the registers of")
        with monkeypatch.context() as m:
            m.setattr(Module, "_refuse_loosened_register_budget", lambda *_: None)
            module = decompose(read_cubin(data))
            module.remove_function(kernel)
            assert build(module) != want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_120"))
def test_g_remove_refused_beside_an_uncalled_user(ptxas_ok, tmp_path, target):
    """-g: s0 is k0's and uncalled f1's, read as k0's alone; without k0 ptxas keeps it for f1
    (tests/probes_edits/g_shared_uncalled), so the removal is refused, and k1's is exact."""
    src = EDIT_PROBES / "g_shared_uncalled.ptx"
    data = _compile(tmp_path, src.stem, src.read_text(), target, "g")
    want = _compile(tmp_path / "edited", src.stem, _without_kernel(src.read_text(), "k0"), target, "g")
    assert any(y.name == "s0" for y in read_cubin(want).symbols)
    _assert_removal_refused(data, "k0", "'s0' may belong to 'f1', which ptxas still compiles without it")
    got, want = _removed(tmp_path / "k1", src, "k1", target, "g")
    assert got == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_120"))
def test_g_remove_beside_a_kernel_with_the_same_bounds_matches_ptxas(ptxas_ok, tmp_path, target):
    """With k_free given k_bounded's launch bounds too, the budget stays and the removal is
    exact."""
    text = (EDIT_PROBES / "g_bounds_callee.ptx").read_text()
    head = re.search(r"\.entry _Z6k_freePfPKfi\(.*?\n\)\n", text, re.S)
    assert head is not None
    twin = text[: head.end()] + ".maxntid 1024, 1, 1\n.minnctapersm 2\n" + text[head.end() :]
    kernel = "_Z9k_boundedPfPKfi"
    module = decompose(read_cubin(_compile(tmp_path, "g_bounds_callee", twin, target, "g")))
    module.remove_function(kernel)
    assert build(module) == _compile(tmp_path / "edited", "g_bounds_callee", _without_kernel(twin, kernel), target, "g")


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_120"))
def test_g_remove_where_the_bounds_cap_nothing_matches_ptxas(ptxas_ok, tmp_path, target):
    """.maxntid 128 leaves 512 registers per thread of the 64K file, more than the 255 a thread
    can hold: the budget is not capped and the removal is exact (XLA's .reqntid 64 kernels)."""
    text = (EDIT_PROBES / "g_bounds_callee.ptx").read_text()
    assert ".maxntid 1024, 1, 1\n.minnctapersm 2\n" in text
    loose = text.replace(".maxntid 1024, 1, 1\n.minnctapersm 2\n", ".maxntid 128, 1, 1\n")
    kernel = "_Z9k_boundedPfPKfi"
    module = decompose(read_cubin(_compile(tmp_path, "g_bounds_callee", loose, target, "g")))
    module.remove_function(kernel)
    assert build(module) == _compile(tmp_path / "edited", "g_bounds_callee", _without_kernel(loose, kernel), target, "g")


@pytest.mark.parametrize("target", ("sm_80", "sm_90", "sm_100a", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "O0", "lineinfo"])
def test_remove_the_last_kernel_where_no_loc_is_left_matches_ptxas(ptxas_ok, tmp_path, target, mode):
    """Triton writes its .loc directives only inside the kernel: without it the PTX holds
    none, and ptxas writes no line tables and no PTX text unless -lineinfo asks (the .file
    directive and the DWARF sections left do not count). They were kept (tests/probes_debug
    dbg_cu_only)."""
    got, want = _removed(tmp_path, oracle.ROOT / "tests" / "probes_debug" / "dbg_cu_only.ptx", "add_kernel", target, mode)
    assert (read_cubin(want).find_section(".debug_line") is None) == (mode != "lineinfo")
    assert got == want


@pytest.mark.parametrize("target", ("sm_80", "sm_90", "sm_100a", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "O0", "lineinfo"])
def test_remove_the_last_kernel_beside_a_function_without_loc_matches_ptxas(ptxas_ok, tmp_path, target, mode):
    """Triton's libdevice helper __internal_trig_reduction_slowpathd stays defined in the PTX
    but its body has no .loc (its copy in the kernel starts no .debug_line row), so nothing
    keeps the line tables outside -lineinfo; nvcc's square_plus, whose copies start rows,
    keeps them (tests/probes_lines; tests/probes_debug dbg_cu_helper)."""
    src = oracle.ROOT / "tests" / "probes_debug" / "dbg_cu_helper.ptx"
    got, want = _removed(tmp_path, src, "mathlib64", target, mode)
    assert (read_cubin(want).find_section(".debug_line") is None) == (mode != "lineinfo")
    assert got == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a", "sm_120"))
@pytest.mark.parametrize("probe, kernel", [("g_shared_layout", "kc"), ("g_shared_names", "ka"), ("g_shared_names", "kb"), ("g_shared_names", "kc")])
def test_g_remove_beside_static_shared_matches_ptxas(ptxas_ok, tmp_path, target, probe, kernel):
    """-g keeps the kept kernels' shared layout when the removed kernel only takes its own
    variables with it (kc's sc, a loc) and what the others share stays shared (m by ka and
    kb, or by two of three): the removal is exact. It was refused for any static shared
    variable. ptxas names the kernels' own loc 'loc', 'loc.1', 'loc.2' in declaration order,
    and numbers the kept ones anew (tests/probes_edits g_shared_layout, g_shared_names)."""
    got, want = _removed(tmp_path, EDIT_PROBES / f"{probe}.ptx", kernel, target, "g")
    assert got == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
def test_g_remove_renumbers_the_shared_names_declared_again(ptxas_ok, tmp_path, monkeypatch, target):
    """Without ka ptxas names kb's loc 'loc' and kc's 'loc.1': the numbers are derived, and
    keeping them as the cubin had them differs from ptxas."""
    monkeypatch.setattr(Module, "_shared_renumbered", lambda *_: {})
    got, want = _removed(tmp_path, EDIT_PROBES / "g_shared_names.ptx", "ka", target, "g")
    assert got != want
    names = lambda data: [y.name for y in read_cubin(data).symbols if y.name.startswith("loc")]  # noqa: E731
    assert names(got) == ["loc.1", "loc.2"] and names(want) == ["loc", "loc.1"]


@pytest.mark.parametrize(
    "probe, kernel, targets, why",
    [
        ("g_shared_layout", "ka", ("sm_75", "sm_90", "sm_100a", "sm_120"), r"lays the shared memory out anew without it \(whether kernels share a variable"),
        ("g_shared_layout", "kd", ("sm_75",), "'hs' may belong to 'f', which ptxas still compiles without it"),
    ],
)
def test_g_remove_refused_where_the_shared_layout_moves(ptxas_ok, tmp_path, monkeypatch, probe, kernel, targets, why):
    """-g removals that change the shared layout of what is kept are refused and leave the
    module as it was; let through, they differ from ptxas:

    * without ka, m is kb's alone: nothing is coloured any more, and kc's section goes from
      .nv_debug.shared's 16 to its own 2, which the cubin hid;
    * without kd, f stays uncalled (-g keeps static functions), and ptxas colours its hs: the
      cubin recorded hs as kd's and does not say it was f's."""
    src = EDIT_PROBES / f"{probe}.ptx"
    text = src.read_text()
    for target in targets:
        data = _compile(tmp_path, src.stem, text, target, "g")
        _assert_removal_refused(data, kernel, why)
        want = _compile(tmp_path / "edited", src.stem, _without_kernel(text, kernel), target, "g")
        with monkeypatch.context() as patched:
            patched.setattr(Module, "_refuse_moved_debug_shared", lambda *_: None)
            module = decompose(read_cubin(data))
            module.remove_function(kernel)
            assert build(module) != want, target



ADD_GLOBAL_SLOT = oracle.PROBES.parent / "probes_edits" / "add_global_slot.ptx"
ADDED_VISIBLE = "\n.visible .global .align 4 .b8 added[12];\n"
ADDED_STATIC = "\n.global .align 4 .b8 added[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};\n"


def _text_sections(data: bytes) -> dict[str, bytes]:
    return {s.name: bytes(s.data) for s in read_cubin(data).sections if s.name.startswith(".text.")}


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "O0"])
def test_add_global_refused_where_it_moves_a_slot_the_code_reads(ptxas_ok, tmp_path, monkeypatch, target, mode):
    """Whole program: the visible `added`, declared after the code, takes .nv.constant4 slot 0
    and moves gv to slot 1; ptxas's code for k2 changes, so to_cubin refuses, naming the slot.
    Let through, the bytes differ from ptxas's. The static initialised one moves nothing and
    gives ptxas's bytes. A visible .const variable is placed before k's c1 in .nv.constant3:
    refused likewise, a static one is not; with c1 unread no code reads c[0x3], and it passes.
    Data added back in the cubin's order passes. (Without the .loc
    lines: with them ptxas embeds the PTX text in every mode.)"""
    text = "".join(line for line in ADD_GLOBAL_SLOT.read_text().splitlines(keepends=True) if ".loc" not in line and ".file" not in line)
    orig = _compile(tmp_path, "add_global_slot", text, target, mode)
    want = _compile(tmp_path / "visible", "add_global_slot", text + ADDED_VISIBLE, target, mode)
    assert _text_sections(want)[".text.k2"] != _text_sections(orig)[".text.k2"]  # ptxas's k2 really changes
    module = Module.from_cubin(orig)
    module.add_global("added", 12, align=4, visible=True)
    with pytest.raises(ModelError, match=r"'gv' would move from slot 0 to slot 1 of \.nv\.constant4"):
        module.to_cubin()
    monkeypatch.setattr(Module, "_refuse_moved_code_slots", lambda self, functions, data: None)
    assert module.to_cubin() != want
    monkeypatch.undo()

    static = Module.from_cubin(orig)
    static.add_global("added", 12, align=4, init=bytes(range(1, 13)))
    assert static.to_cubin() == _compile(tmp_path / "static", "add_global_slot", text + ADDED_STATIC, target, mode)

    const = Module.from_cubin(orig)
    const.add_constant("added", 16, align=8, init=bytes(16), visible=True)
    with pytest.raises(ModelError, match=r"'c1' would move from 0x0 to 0x10 in \.nv\.constant3"):
        const.to_cubin()
    const_text = text + "\n.visible .const .align 8 .b8 added[16];\n"
    assert _text_sections(_compile(tmp_path / "const", "add_global_slot", const_text, target, mode))[".text.k"] != _text_sections(orig)[".text.k"]
    static_const = Module.from_cubin(orig)
    static_const.add_constant("added", 16, align=8)
    assert static_const.to_cubin() == _compile(tmp_path / "static_const", "add_global_slot", text + "\n.const .align 8 .b8 added[16];\n", target, mode)

    # with c1 unread (still kept) no code reads c[0x3]: the visible .const is let through
    unread = text.replace("ld.const.u32 \t%r1, [c1];", "mov.u32 \t%r1, 7;")
    assert unread != text
    unread_orig = _compile(tmp_path / "unread", "add_global_slot", unread, target, mode)
    assert any(s.name == ".nv.constant3" for s in read_cubin(unread_orig).sections)
    lifted = Module.from_cubin(unread_orig)
    lifted.add_constant("added", 16, align=8, init=bytes(16), visible=True)
    assert lifted.to_cubin() == _compile(tmp_path / "unread_const", "add_global_slot", unread + "\n.visible .const .align 8 .b8 added[16];\n", target, mode)

    again = Module.from_cubin(orig)
    kept = list(again.data)
    again.data = []
    for d in kept:
        (again.add_constant if d.space == "const" else again.add_global)(d.name, d.size, align=d.align, init=d.init)
    assert again.to_cubin() == orig


ADD_BESIDE_TIES = oracle.PROBES.parent / "probes_edits" / "add_beside_ties.ptx"


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "c", "g", "g_c"])
def test_add_global_beside_equal_variables(ptxas_ok, tmp_path, monkeypatch, target, mode):
    """ptxas orders add_beside_ties's ten one-byte arrays anew once `added_v` joins their
    section (its merge sort depends on the whole list). The offsets alone let cpo_advance, at
    0x8, be aligned 4; read with the alignment its size allows (1), the addition sorts as
    ptxas's does and is exact in every mode (given, for -g, the edited build's PTX text and
    line tables). With cpo_advance's alignment stated as 4 the order is a guess: refused,
    naming one of the equal ones; let through, the symbols' values differ from ptxas's."""
    text = ADD_BESIDE_TIES.read_text()
    orig = _compile(tmp_path, ADD_BESIDE_TIES.stem, text, target, mode)
    want = _compile(tmp_path / "added", ADD_BESIDE_TIES.stem, text + "\n.visible .global .align 4 .b8 added_v[12];\n", target, mode)

    def added(over_stated: bool) -> Module:
        module = Module.from_cubin(orig)
        assert {d.align for d in module.data if d.name.startswith("cpo_")} == {1}
        if over_stated:
            next(d for d in module.data if d.name == "cpo_advance").align = 4
            assert module.to_cubin() == orig  # the layout holds either way
        module.add_global("added_v", 12, align=4, visible=True)
        module.debug = Module.from_cubin(want).debug  # the variable's PTX text, and -g -c's line tables naming it
        return module

    assert added(False).to_cubin() == want
    with pytest.raises(ModelError, match=r"cannot add 'added_v': ptxas sorts its section by alignment and size, and orders 'cpo_\w+' and the others"):
        added(True).to_cubin()
    monkeypatch.setattr(Module, "_refuse_reshuffled_ties", lambda self, data: None)
    values = lambda data: {y.name: y.value for y in read_cubin(data).symbols if y.name.startswith("cpo_")}  # noqa: E731
    assert values(added(True).to_cubin()) != values(want)


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
def test_add_constant_under_g_refused_where_it_moves_what_the_code_reads(ptxas_ok, tmp_path, target):
    """-g is not position independent, yet the code reads .nv.constant3 at fixed offsets as
    whole program does: a visible .const added before add_global_slot's c1 moves it to 0x10,
    and ptxas compiles k anew; refused. (CUDA samples ParticleSystem_cuda -g: cudaParams.)"""
    text = ADD_GLOBAL_SLOT.read_text()
    const_text = text + "\n.visible .const .align 8 .b8 added[16];\n"
    orig = _compile(tmp_path, "add_global_slot", text, target, "g")
    want = _compile(tmp_path / "const", "add_global_slot", const_text, target, "g")
    assert _text_sections(want)[".text.k"] != _text_sections(orig)[".text.k"]
    module = Module.from_cubin(orig)
    module.add_constant("added", 16, align=8, init=bytes(16), visible=True)
    module.debug = Module.from_cubin(want).debug
    with pytest.raises(ModelError, match=r"'c1' would move from 0x0 to 0x10 in \.nv\.constant3"):
        module.to_cubin()


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
def test_g_c_text_needs_its_line_tables(ptxas_ok, tmp_path, target):
    """-g -c names the PTX text after the Adler-32 of the PTX file, and the line tables name
    that text: an addition given the edited build's text alone is refused, naming both;
    given its line tables too, the build is ptxas's (CUDA samples LargeKernelParameter)."""
    text = ADD_GLOBAL_SLOT.read_text()
    orig = _compile(tmp_path, "add_global_slot", text, target, "g_c")
    want = _compile(tmp_path / "static", "add_global_slot", text + ADDED_STATIC, target, "g_c")
    module = Module.from_cubin(orig)
    module.add_global("added", 12, align=4, init=bytes(range(1, 13)))
    edited = Module.from_cubin(want).debug
    new_text = next(d for d in edited if d.name.startswith(".nv_debug_ptx_txt."))
    module.debug = [new_text if d.name.startswith(".nv_debug_ptx_txt.") else d for d in module.debug]
    with pytest.raises(ModelError, match=r"\.nv_debug_line_sass names another PTX text than " + re.escape(new_text.name)):
        module.to_cubin()
    module.debug = edited
    assert module.to_cubin() == want


def _add_back(base: bytes, full: bytes, name: str) -> Module:
    """The module read from ``base`` with ``name`` added through add_kernel, with the leaf
    data ptxas's ``full`` build holds for it: its code and facts, the builtins it brings, the
    .debug_frame and, on sm_100+, the Mercury facts."""
    whole = Module.from_cubin(full)
    module = Module.from_cubin(base)
    k = whole.function(name)
    module.add_kernel(name, k.sass, **{a.name: getattr(k, a.name) for a in attrs.fields(type(k)) if a.init and a.name not in ("name", "is_kernel", "sass")})
    have = {f.name for f in module.functions}
    for f in whole.functions:
        if f.name not in have:
            module.add_function(f.name, f.sass, **{a.name: getattr(f, a.name) for a in attrs.fields(type(f)) if a.init and a.name not in ("name", "sass")})
    module.debug = whole.debug
    if "mercury" in whole.facts:
        module.facts["mercury"] = whole.facts["mercury"]
    return module


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
@pytest.mark.parametrize("mode", ["def", "O0"])
def test_add_kernel_beside_address_takers_is_refused(ptxas_ok, tmp_path, monkeypatch, target, mode):
    """Whole program: k_table and k_call take function addresses, so ptxas shuffles the
    kernels and moves those two first; k_plain, appended to the PTX, comes last. Read from the
    cubin without k_plain, the module holds an order giving the takers' order unshuffled, and
    k_plain added to it would come first: refused, naming a taker. Let through, the bytes
    differ from ptxas's. In -c the kernels keep their own order, and the addition is exact."""
    src = EDIT_PROBES / "add_beside_takers.ptx"
    text = src.read_text()
    want = _compile(tmp_path, src.stem, text, target, mode)
    assert [s.name for s in read_cubin(want).sections if s.name.startswith(".text.")][-1] == ".text.k_plain"
    base = _compile(tmp_path / "base", src.stem, _without_kernel(text, "k_plain"), target, mode)
    with pytest.raises(ModelError, match=r"cannot add kernel 'k_plain': kernel 'k_(table|call)' takes function addresses"):
        _add_back(base, want, "k_plain").to_cubin()
    monkeypatch.setattr(Module, "_refuse_added_kernels_beside_takers", lambda self: None)
    assert _add_back(base, want, "k_plain").to_cubin() != want
    monkeypatch.undo()
    want_c = _compile(tmp_path / "c", src.stem, text, target, "c")
    base_c = _compile(tmp_path / "c_base", src.stem, _without_kernel(text, "k_plain"), target, "c")
    if target == "sm_100a":
        # without ptxas's Mercury facts for k_plain's code the build says so
        from cubinemit.mercury import MercuryError

        bare = Module.from_cubin(base_c)
        plain = Module.from_cubin(want_c).function("k_plain")
        bare.add_kernel("k_plain", plain.sass, **{a.name: getattr(plain, a.name) for a in attrs.fields(type(plain)) if a.init and a.name not in ("name", "is_kernel", "sass")})
        bare.debug = Module.from_cubin(want_c).debug
        with pytest.raises(MercuryError, match="know no function 'k_plain'.*fact 'mercury'"):
            bare.to_cubin()
    assert _add_back(base_c, want_c, "k_plain").to_cubin() == want_c


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "c", "O0"])
def test_add_kernel_settles_copy_names_and_compat(ptxas_ok, tmp_path, monkeypatch, target, mode):
    """k_tex added back to the module without it gives ptxas's bytes for the PTX with it:
    whole program, its builtin copy takes $__internal_0_$ and the kept kernels' copies move
    up; from sm_90 on its texture fetch raises .nv.compat's ISA class to 2. Without settling
    either, the bytes differ (whole program: both; -c: the class)."""
    src = EDIT_PROBES / "add_builtin_copies.ptx"
    text = src.read_text()
    want = _compile(tmp_path, src.stem, text, target, mode)
    base = _compile(tmp_path / "base", src.stem, _without_kernel(text, "k_tex"), target, mode)
    assert _add_back(base, want, "k_tex").to_cubin() == want
    whole = Module.from_cubin(want)
    if mode != "c":
        copies = {n for f in whole.functions for n in re.findall(r"\$__internal_\d+_\$\w+", repr(f.facts)) if f.name == "k_tex"}
        assert copies == {"$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath"}
        monkeypatch.setattr(Module, "_copy_names_after_additions", lambda self: self.functions)
        assert _add_back(base, want, "k_tex").to_cubin() != want
        monkeypatch.undo()
    if target != "sm_75":
        assert whole.facts.get("isa_class") == 2 and "isa_class" not in Module.from_cubin(base).facts
        monkeypatch.setattr(Module, "_compat_after_code_changes", lambda self: self.facts)
        assert _add_back(base, want, "k_tex").to_cubin() != want


@pytest.mark.parametrize("target", ("sm_90", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "c", "lineinfo"])
def test_add_kernel_to_a_module_read_without_functions(ptxas_ok, tmp_path, target, mode):
    """A cubin without functions is still a module read from a cubin: k_tex added to it
    raises .nv.compat's ISA class to 2, as ptxas writes the PTX with k_tex (CUDA samples
    bilateral_kernel with d_bilateral_filter added back; the class stayed 1 when an empty
    record of the code read was taken for no record)."""
    src = EDIT_PROBES / "add_builtin_copies.ptx"
    only_tex = _without_kernel(_without_kernel(src.read_text(), "k_a"), "k_b")
    want = _compile(tmp_path, src.stem, only_tex, target, mode)
    base = _compile(tmp_path / "base", src.stem, _without_kernel(only_tex, "k_tex"), target, mode)
    assert not Module.from_cubin(base).functions
    assert Module.from_cubin(want).facts.get("isa_class") == 2
    assert _add_back(base, want, "k_tex").to_cubin() == want


@pytest.mark.parametrize("target", ("sm_75", "sm_89"))
def test_add_kernel_under_g_refuses_moving_callee_constants(ptxas_ok, tmp_path, monkeypatch, target):
    """Whole-program -g: k_a, added back (appended to the PTX), holds dev_poly's FP64
    literals in its .nv.constant2.k_a, and ptxas lays them out anew: dev_poly's code reads
    other offsets. Refused, naming the callee; let through, the bytes differ from ptxas's
    (the converse of the removal check above)."""
    src = oracle.PROBES.parent / "probes_const2" / "late_banks.ptx"
    text = src.read_text()
    block = re.search(r"\n\.visible \.entry k_a\(.*?\n}\n", text, re.S)
    assert block is not None
    base_text = _without_kernel(text, "k_a")
    want = _compile(tmp_path, src.stem, base_text + block.group(0), target, "g")
    base = _compile(tmp_path / "base", src.stem, base_text, target, "g")
    assert Module.from_cubin(want).function("dev_poly").sass != Module.from_cubin(base).function("dev_poly").sass
    with pytest.raises(ModelError, match=r"cannot add kernel 'k_a': under -g its \.nv\.constant2 holds constants of the functions it calls \('dev_poly'\)"):
        _add_back(base, want, "k_a").to_cubin()
    monkeypatch.setattr(Module, "_refuse_added_callers_under_g", lambda self: None)
    assert _add_back(base, want, "k_a").to_cubin() != want


@pytest.mark.parametrize(("target", "mode"), [("sm_90", "g"), ("sm_100a", "g"), ("sm_90", "O0_c")])
def test_add_kernel_refused_where_its_launch_bounds_cap_a_callee(ptxas_ok, tmp_path, monkeypatch, target, mode):
    """-g and -c -O0 compile the f32 division slow path once, within the tightest register
    budget of its callers: k_bounded's __launch_bounds__(1024, 2), added back (appended),
    makes ptxas compile it anew. Refused, naming the callee; let through, the bytes differ.
    (At sm_75 and sm_120 this addition leaves the slow path's code as it was: the check is
    conservative there, as the removal check is not.)"""
    src = EDIT_PROBES / "g_bounds_callee.ptx"
    text = src.read_text()
    kernel = "_Z9k_boundedPfPKfi"
    block = re.search(r"\n\.visible \.entry " + kernel + r"\(.*?\n}\n", text, re.S)
    assert block is not None
    base_text = _without_kernel(text, kernel)
    want = _compile(tmp_path, src.stem, base_text + block.group(0), target, mode)
    base = _compile(tmp_path / "base", src.stem, base_text, target, mode)
    with pytest.raises(ModelError, match=r"its launch bounds cap the registers of '__cuda_sm3x_div_rn_noftz_f32_slowpath'"):
        _add_back(base, want, kernel).to_cubin()
    monkeypatch.setattr(Module, "_refuse_added_callers_under_g", lambda self: None)
    assert _add_back(base, want, kernel).to_cubin() != want


def test_add_kernel_allocating_tensor_memory_is_refused(ptxas_ok, tmp_path, monkeypatch):
    """sm_100a: k_alloc's tcgen05.alloc makes a tensor-memory partition in
    .nv.shared.reserved.0, which the module read without it (and without k_relinq) lacks:
    added back, it is refused rather than built without the partition."""
    src = oracle.PROBES.parent / "probes_compat" / "tensor_memory.ptx"
    text = src.read_text()
    block = re.search(r"\n\.visible \.entry k_alloc\(.*?\n}\n", text, re.S)
    assert block is not None
    base_text = _without_kernel(_without_kernel(text, "k_alloc"), "k_relinq")
    want = _compile(tmp_path, src.stem, base_text + block.group(0), "sm_100a", "def")
    base = _compile(tmp_path / "base", src.stem, base_text, "sm_100a", "def")
    assert "tcgen05" in Module.from_cubin(want).facts and "tcgen05" not in Module.from_cubin(base).facts
    with pytest.raises(ModelError, match=r"function 'k_alloc' added: its tensor-memory allocation makes a partition"):
        _add_back(base, want, "k_alloc").to_cubin()
    # let through, the build lacks the partition ptxas makes
    from cubinemit.semantic import model as semantic_model

    monkeypatch.setattr(semantic_model, "_keeps_tcgen05_partition", lambda f: False)
    assert _add_back(base, want, "k_alloc").to_cubin() != want


def _give_code(module: Module, new: Module, names: list[str]) -> None:
    """Give ``module``'s functions ``names`` the leaf data ``new`` (ptxas's build of the
    edited PTX) holds for them, in place, with its debug payloads and Mercury facts."""
    for name in names:
        fn, given = module.function(name), new.function(name)
        for field in attrs.fields(type(fn)):
            if field.init and field.name != "name":
                setattr(fn, field.name, getattr(given, field.name))
    module.debug = new.debug
    if "mercury" in new.facts:
        module.facts["mercury"] = new.facts["mercury"]


def _rebound(tmp_path, target: str, mode: str) -> tuple[Module, Module, bytes]:
    """rebound_callee read from ptxas's cubin, with k_div given the leaf data of ptxas's
    build with `.maxnreg 32` on its header line; the module of that build; its bytes."""
    src = EDIT_PROBES / "rebound_callee.ptx"
    text = src.read_text()
    capped = text.replace(".visible .entry k_div(.param .u64 p, .param .f64 x)", ".visible .entry k_div(.param .u64 p, .param .f64 x) .maxnreg 32")
    assert capped != text
    want = _compile(tmp_path / "capped", src.stem, capped, target, mode)
    module = Module.from_cubin(_compile(tmp_path, src.stem, text, target, mode))
    new = Module.from_cubin(want)
    _give_code(module, new, ["k_div"])
    return module, new, want


@pytest.mark.parametrize(("target", "mode"), [("sm_75", "c"), ("sm_120", "c"), ("sm_90", "g"), ("sm_100a", "g"), ("sm_90", "O0_c")])
def test_changed_launch_bounds_refused_while_a_callee_keeps_its_code(ptxas_ok, tmp_path, monkeypatch, target, mode):
    """Outside whole program ptxas compiles the f64 division builtin within its callers'
    register budget: k_div given `.maxnreg 32` (its new code and facts) while the builtin
    keeps the code read from the cubin is refused, naming the builtin; let through, the bytes
    differ from ptxas's. Given the builtin's new code too, the build is ptxas's."""
    module, new, want = _rebound(tmp_path, target, mode)
    with pytest.raises(ModelError, match=r"kernel 'k_div': its launch bounds changed since the module was read, and ptxas compiles '__cuda_sm20_div_rn_f64_full'"):
        module.to_cubin()
    monkeypatch.setattr(Module, "_refuse_rebounded_callers", lambda self: None)
    from cubinemit.mercury import MercuryError

    try:
        assert module.to_cubin() != want
    except MercuryError:  # sm_100a: the new Mercury facts do not fit the old builtin code
        pass
    monkeypatch.undo()
    _give_code(module, new, ["__cuda_sm20_div_rn_f64_full"])
    assert module.to_cubin() == want


def test_a_copy_of_a_read_module_checks_as_the_module_does(ptxas_ok, tmp_path):
    """A deep copy (as an edit's trial run makes) knows which functions were read and how:
    the changed launch bounds are refused on the copy too, and given the builtin's new code
    the copy builds ptxas's bytes. Before, the copy's record of the code read was keyed by
    the original objects' ids, so the copy's checks saw nothing read."""
    module, new, want = _rebound(tmp_path, "sm_75", "c")
    twin = copy.deepcopy(module)
    assert twin._added_since_read() == []
    with pytest.raises(ModelError, match=r"kernel 'k_div': its launch bounds changed since the module was read"):
        twin.to_cubin()
    _give_code(twin, new, ["__cuda_sm20_div_rn_f64_full"])
    assert twin.to_cubin() == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
def test_changed_launch_bounds_reach_through_pointers(ptxas_ok, tmp_path, monkeypatch, target):
    """-g: k_ptr calls f_div only through a pointer, yet ptxas compiles f_div and the f64
    division builtin it calls within k_ptr's budget: k_ptr given `.maxnreg 24` is refused
    while they keep their code; let through, the bytes differ."""
    src = EDIT_PROBES / "rebound_indirect.ptx"
    text = src.read_text()
    capped = text.replace(".visible .entry k_ptr(.param .u64 p, .param .f64 x)", ".visible .entry k_ptr(.param .u64 p, .param .f64 x) .maxnreg 24")
    assert capped != text
    want = _compile(tmp_path / "capped", src.stem, capped, target, "g")
    module, new = Module.from_cubin(_compile(tmp_path, src.stem, text, target, "g")), Module.from_cubin(want)
    assert module.function("k_ptr").calls == [] and module.function("k_ptr").has_indirect_call
    _give_code(module, new, ["k_ptr"])
    with pytest.raises(ModelError, match=r"kernel 'k_ptr': its launch bounds changed since the module was read, and ptxas compiles '(__cuda_sm20_div_rn_f64_full|f_div)'"):
        module.to_cubin()
    monkeypatch.setattr(Module, "_refuse_rebounded_callers", lambda self: None)
    assert module.to_cubin() != want


@pytest.mark.parametrize("target", ("sm_75", "sm_100a"))
def test_changed_launch_bounds_whole_program_pass(ptxas_ok, tmp_path, target):
    """Whole program the builtin is a copy inside k_div's own code: the new bounds and code
    build ptxas's bytes."""
    module, _, want = _rebound(tmp_path, target, "def")
    assert module.to_cubin() == want


@pytest.mark.parametrize("target", ("sm_90", "sm_120"))
@pytest.mark.parametrize("mode", ["def", "c"])
def test_replaced_code_moves_the_isa_class(ptxas_ok, tmp_path, target, mode):
    """k_tex given the code of its body with the texture fetch: .nv.compat's ISA class goes
    up to 2 as ptxas's build of that PTX has it; given back the code without it, the class
    goes down to 1 again (no other code asks for it). It was kept as read."""
    src = EDIT_PROBES / "add_builtin_copies.ptx"
    with_tex = src.read_text()
    fetch = "tex.2d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd2, {%f1, %f1}];"
    without = with_tex.replace(fetch, "mov.f32 %f2, %f1;")
    assert without != with_tex
    a = _compile(tmp_path / "tex", src.stem, with_tex, target, mode)
    b = _compile(tmp_path / "plain", src.stem, without, target, mode)
    assert Module.from_cubin(a).facts.get("isa_class") == 2 and "isa_class" not in Module.from_cubin(b).facts
    for start, end in ((b, a), (a, b)):
        module, new = Module.from_cubin(start), Module.from_cubin(end)
        _give_code(module, new, ["k_tex"])
        assert module.to_cubin() == end


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
def test_g_code_given_an_own_shared_array_moves_the_others_extern_base(ptxas_ok, tmp_path, monkeypatch, target):
    """-g lays shared memory out over the module: k_stage given the code of its body with an
    own .shared array (and the variable) moves the extern `sh` up in k_sum's and k_mirror's
    code, which keep the code read: refused, naming such a kernel; let through, the bytes
    differ. Given the new code of every kernel, the build is ptxas's."""
    src = EDIT_PROBES / "g_dynamic_shared.ptx"
    text = src.read_text()
    head = text.index(".visible .entry _Z7k_stagePfS_(")
    at = text.index("ret;", head)
    grown = text[:at] + "{ .shared .align 16 .b8 own_sh[96]; .reg .b32 %xr; mov.u32 %xr, 0; st.shared.u32 [own_sh+4], %xr; } " + text[at:]
    want = _compile(tmp_path / "grown", src.stem, grown, target, "g")
    module, new = Module.from_cubin(_compile(tmp_path, src.stem, text, target, "g")), Module.from_cubin(want)
    _give_code(module, new, ["_Z7k_stagePfS_"])
    module.data = [attrs.evolve(d) for d in new.data]
    with pytest.raises(ModelError, match=r"kernel '_Z(5k_sumPfS_|8k_mirrorPf)' keeps the code read from the cubin, and under -g ptxas lays the shared memory out anew: 'sh' moves"):
        module.to_cubin()
    monkeypatch.setattr(Module, "_refuse_moved_shared_since_read", lambda self: None)
    assert module.to_cubin() != want
    monkeypatch.undo()
    _give_code(module, new, [f.name for f in new.functions if f.name != "_Z7k_stagePfS_"])
    assert module.to_cubin() == want


def test_add_kernel_without_the_functions_it_holds_copies_of(ptxas_ok, tmp_path):
    """A kernel taken from another module holds copies of functions this one lacks: a
    ModelError names the kernel and the function, not a KeyError from inside the emitter."""
    src = EDIT_PROBES / "add_builtin_copies.ptx"
    full = Module.from_cubin(_compile(tmp_path, src.stem, src.read_text(), "sm_90", "def"))
    k = full.function("k_tex")
    assert k.inlined
    module = Module("sm_90", options=dict(full.options))
    module.add_kernel("k_tex", k.sass, **{a.name: getattr(k, a.name) for a in attrs.fields(type(k)) if a.init and a.name not in ("name", "is_kernel", "sass")})
    with pytest.raises(ModelError, match=r"function 'k_tex' holds a copy of unknown function '__cuda_sm3x_div_rn_noftz_f32_slowpath'"):
        module.to_cubin()


#: (name, its PTX declaration, how the API declares it): each added variable needs the text
_ADDED_VARIABLES = {
    "added": (ADDED_STATIC, lambda m: m.add_global("added", 12, align=4, init=bytes(range(1, 13)))),
    # before, the check looked at .global and .const variables only, and a visible .shared
    # array added under -g kept the old text (llm.c, every dev kernel file, sm_90 -g)
    "added_sh": ("\n.visible .shared .align 4 .b8 added_sh[64];\n", lambda m: m.add_shared("added_sh", 64, align=4, visible=True)),
}


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
@pytest.mark.parametrize("mode", ["lineinfo", "g"])
@pytest.mark.parametrize("name", sorted(_ADDED_VARIABLES))
def test_added_variable_needs_the_ptx_text(ptxas_ok, tmp_path, target, mode, name):
    """-lineinfo and -g embed the PTX text ptxas compiled: a variable (of any space) added
    without the text that declares it is refused, naming .nv_debug_ptx_txt; given ptxas's
    text of the edited PTX, the build is ptxas's."""
    decl, add = _ADDED_VARIABLES[name]
    text = ADD_GLOBAL_SLOT.read_text()
    orig = _compile(tmp_path, "add_global_slot", text, target, mode)
    want = _compile(tmp_path / name, "add_global_slot", text + decl, target, mode)
    module = Module.from_cubin(orig)
    add(module)
    with pytest.raises(ModelError, match=r"\.nv_debug_ptx_txt \(the PTX text ptxas embeds\) never names " + repr(name)):
        module.to_cubin()
    edited_text = next(d for d in Module.from_cubin(want).debug if d.name == ".nv_debug_ptx_txt")
    module.debug = [edited_text if d.name == ".nv_debug_ptx_txt" else d for d in module.debug]
    assert module.to_cubin() == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
def test_c_shared_names_lead_back_to_the_ptx_text(ptxas_ok, tmp_path, target):
    """-c names function-scope .shared variables `$__<name>__<line>`, with `$<n>` for one in a
    nested block (tests/probes_edits/c_nested_shared). The text check looks each up by the
    name the PTX declares: such a variable added with the text that declares it passes
    (a kernel given an own nested-block array under -lineinfo -c was refused before)."""
    from cubinemit.semantic.model import _ptx_name

    src = EDIT_PROBES / "c_nested_shared.ptx"
    module = Module.from_cubin(_compile(tmp_path, src.stem, src.read_text(), target, "lineinfo_c"))
    names = sorted(d.name for d in module.data if d.space == "shared")
    assert names == ["$__inner2__12$1", "$__inner__11$1", "$__top__10"]
    assert [_ptx_name(n) for n in names] == ["inner2", "inner", "top"]
    at = next(i for i, d in enumerate(module.data) if d.name == "$__inner__11$1")
    module.data[at] = attrs.evolve(module.data[at], users=list(module.data[at].users))  # declared anew
    assert module.to_cubin() == _compile(tmp_path, src.stem, src.read_text(), target, "lineinfo_c")


def test_constant_bank_reads_are_read_from_the_encoding():
    """The bank of a constant operand sits in bits 54-58 of an instruction's first word
    (cuobjdump: `MOV R1, c[0x0][0x28]` is 0x00000a0000017a02, `MOV R2, RZ` 0x000000ff00027202)."""
    from cubinemit.semantic.model import _reads_constant_bank

    mov_c0 = (0x00000A0000017A02).to_bytes(8, "little") + bytes(8)
    mov_rz = (0x000000FF00027202).to_bytes(8, "little") + bytes(8)
    mov_c3 = (0x00000A0000017A02 | 3 << 54).to_bytes(8, "little") + bytes(8)
    assert _reads_constant_bank(mov_c0, 0) and not _reads_constant_bank(mov_c0, 3)
    assert not _reads_constant_bank(mov_rz + mov_c0, 3)
    assert _reads_constant_bank(mov_rz + mov_c3, 3) and not _reads_constant_bank(mov_rz + mov_c3, 4)


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
def test_edits_refused_where_a_later_kernel_order_explains_the_cubin(ptxas_ok, tmp_path, monkeypatch, target):
    """-g: the cubin of static kernels defined after prototyped device functions is also given
    by the kernels declared first; the edits try the orders that put the device functions,
    the builtins and the kernels one group after another (and every order of a small module),
    so swapping kA and kB is refused (without that search the builtin comes out first, unlike
    ptxas's), and under -c so is removing kA."""
    from cubinemit.semantic import creation

    src = EDIT_PROBES / "static_kernels_late.ptx"
    text = src.read_text()
    data = _compile(tmp_path, src.stem, text, target, "g")
    with pytest.raises(ModelError, match=r"cannot reorder \['kB', 'kA'\]: the cubin keeps ptxas's function order"):
        decompose(read_cubin(data)).reorder_functions(["kB", "kA"])
    want = _compile(tmp_path / "edited", src.stem, _swap_definitions(text, "kA", "kB"), target, "g")
    monkeypatch.setattr(creation, "_permutations", lambda names: iter(()))
    monkeypatch.setattr(creation, "_grouped", lambda names, kernels: iter(()))
    # (the decomposed order has the kernels apart from the builtins they made, which is
    # refused up front too, Module._refuse_unplaced_kernel_bodies, and lets the single moves
    # find the other orders, creation.edit_outcome_unknown)
    monkeypatch.setattr(Module, "_refuse_unplaced_kernel_bodies", lambda *_: None)
    monkeypatch.setattr(creation, "_moves", lambda names: iter(()))
    module = decompose(read_cubin(data))
    module.reorder_functions(["kB", "kA"])
    assert build(module) != want
    monkeypatch.undo()
    _assert_removal_refused(_compile(tmp_path, src.stem, text, target, "c"), "kA", "cannot remove 'kA': the cubin keeps ptxas's function order")
    want_c = _compile(tmp_path / "removed", src.stem, _without_kernel(text, "kA"), target, "c")
    from cubinemit.semantic import model as semantic_model

    monkeypatch.setattr(creation, "_permutations", lambda names: iter(()))
    monkeypatch.setattr(creation, "_grouped", lambda names, kernels: iter(()))
    monkeypatch.setattr(semantic_model, "_refuse_unknown_builtin_order", lambda *_: None)
    module = decompose(read_cubin(_compile(tmp_path, src.stem, text, target, "c")))
    module.remove_function("kA")
    assert build(module) != want_c


@pytest.mark.parametrize("target", ("sm_75", "sm_86"))  # from sm_90 on refused for its line sequence
def test_remove_refuses_a_builtin_a_prototyped_function_makes_anew(ptxas_ok, tmp_path, monkeypatch, target):
    """fo_builtins -g without K2: K2's body made the f32 division, which `later`, prototyped
    first and defined after srem, also calls; ptxas now makes it in later's body, after srem's
    s64 remainder, and the cubin does not keep where later's body stands. Refused, the module
    left as it was; the unchecked removal differs from ptxas."""
    from cubinemit.semantic import model as semantic_model

    src = oracle.PROBES.parent / "funcorder_probes" / "fo_builtins.ptx"
    why = "'__cuda_sm3x_div_rn_noftz_f32_slowpath', which 'K2''s body made, would be made by 'later''s"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "K2", target, "g", why, semantic_model, "_refuse_unknown_builtin_order")


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
def test_reorder_refuses_a_static_function_among_others_under_g(ptxas_ok, tmp_path, monkeypatch, target):
    """fo_linkage -g: ptxas lists static functions after the others, so the static kernel K2's
    definition place among them is not kept, and K1 moved into it follows vfn1, whose
    prototype stood between the two definitions. Refused, the module left as it was; the
    unchecked reorder differs from ptxas (sm_75)."""
    src = oracle.PROBES.parent / "funcorder_probes" / "fo_linkage.ptx"
    text = src.read_text()
    data = _compile(tmp_path, src.stem, text, target, "g")
    module = decompose(read_cubin(data))
    with pytest.raises(ModelError, match=r"cannot reorder \['K2', 'K1'\]: under -g and -c -O0 ptxas lists static functions after the others"):
        module.reorder_functions(["K2", "K1"])
    assert build(module) == data
    if target == "sm_75":
        monkeypatch.setattr(Module, "_refuse_static_among_others", lambda *_: None)
        module.reorder_functions(["K2", "K1"])
        assert build(module) != _compile(tmp_path / "edited", src.stem, _swap_definitions(text, "K1", "K2"), target, "g")


@pytest.mark.parametrize("target", ("sm_90", "sm_100a"))
def test_remove_refuses_a_taken_function_losing_its_last_kernel(ptxas_ok, tmp_path, monkeypatch, target):
    """fo_data_taker -g: make takes the vtable's functions' addresses, and use only calls
    through pointers; without make, ptxas lists their line sequences in another order, which
    is not modelled. Refused, the module left as it was; the unchecked removal differs from
    ptxas."""
    src = oracle.PROBES.parent / "funcorder_probes" / "fo_data_taker.ptx"
    why = "cannot remove 'make': 'd1', whose address 'make' takes, loses its last kernel"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "make", target, "g", why, Module, "_refuse_moved_debug_sequences")


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
@pytest.mark.parametrize("removed", ["f0", "f4"])
def test_remove_refuses_moving_the_first_function_of_an_address_table(ptxas_ok, tmp_path, monkeypatch, target, removed):
    """fo_shuffle_data -g: ``tbl = {f2}`` keeps an R_CUDA_64 to f2 while f2 comes first in
    .text; without f0 (or f4) another function comes first and ptxas writes f2's slot as the
    number it gives f2 (1), no relocation. Which function such a number stands for is not in
    the cubin, so the removal is refused; unchecked, it differs from ptxas."""
    src = oracle.PROBES.parent / "funcorder_probes" / "fo_shuffle_data.ptx"
    why = "'tbl' holds function addresses, which -g resolves to numbers .* moves from 'f2'"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, removed, target, "g", why, Module, "_refuse_moved_first_address")


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
@pytest.mark.parametrize("probe, kernel", [("probes_weak/weak_shared_one", "k"), ("probes_weak/weak_mixed", "k"), ("probes_gshared/gsh_builtin_first", "k1")])
def test_remove_keeps_unused_module_shared_declared(ptxas_ok, tmp_path, target, probe, kernel):
    """-g: module .shared variables that no kept function uses stay declared in the PTX, and
    ptxas makes .nv_debug.shared for them and drops it, its name left in .shstrtab (without
    the only kernel, or without k1, CB1's and CB2's user, beside k2). The model dropped the
    variables with their last user, and the name was missing."""
    src = oracle.PROBES.parent / f"{probe}.ptx"
    got, want = _removed(tmp_path, src, kernel, target, "g")
    assert b".nv_debug.shared\0" in want
    assert got == want


def test_remove_refuses_line_sequences_in_an_order_of_their_own(ptxas_ok, tmp_path, monkeypatch):
    """bi_weak_taken_callgraph -g sm_90: the line table lists f3 f0 k1 f1 f2 k0, neither
    .text order (k1 f2 k0 ... f1 ... f0 f3) nor device functions then kernels in it. Without
    f0 the -g shuffle moves k0 first, and ptxas lists f3 k0 f1 k1 f2; the model kept the
    sequences as they stood. Refused; unchecked, it differs from ptxas."""
    src = oracle.PROBES.parent / "probes_builtin" / "bi_weak_taken_callgraph.ptx"
    why = "the line tables list the functions in an order of their own, not .text order, and the edit changes the kernels"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "f0", "sm_90", "g", why, Module, "_refuse_unfollowed_sequences")


@pytest.mark.parametrize("target", ("sm_75", "sm_89"))
def test_remove_hands_a_table_on_when_its_taker_loses_its_turn(ptxas_ok, tmp_path, target):
    """fo_table_load_taker -g: k1 calls the static h, which references tm, so ptxas's walk
    (non-static functions first, each before its callees) reaches h through k1 before k3, and
    h takes tm's f2. Without k1, k3 references tm first and takes f2: k3 comes first in .text
    and h falls back among the others. The model left f2 with h."""
    src = oracle.PROBES.parent / "funcorder_probes" / "fo_table_load_taker.ptx"
    got, want = _removed(tmp_path, src, "k1", target, "g", check=lambda m: m.function("h").address_taken == ["f2"] or pytest.fail("h does not take f2"))
    assert got == want


def test_remove_refuses_a_table_function_losing_its_last_loader(ptxas_ok, tmp_path, monkeypatch):
    """fo_table_load_taker -g sm_90: k3 loads f2 from tm and calls it; without k3 no kernel
    reaches f2 and ptxas lists the device functions' sequences f1 f2 h, not h f1 f2. Where
    -g lists a sequence then is not modelled: refused; unchecked, it differs."""
    src = oracle.PROBES.parent / "funcorder_probes" / "fo_table_load_taker.ptx"
    why = "'f2', whose address 'k3' takes, loses its last kernel"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "k3", "sm_90", "g", why, Module, "_refuse_moved_debug_sequences")


def test_remove_refuses_a_device_function_that_may_use_module_shared(ptxas_ok, tmp_path, monkeypatch):
    """weak_lib_rdc -g sm_75 (no kernel): f_w's use of w_s is resolved, no relocation names
    it, and the decomposition takes f_v for its user. Without f_w ptxas drops
    .nv_debug.shared and w_s; the model kept them. Refused; unchecked, it differs."""
    src = oracle.PROBES.parent / "probes_weak" / "weak_lib_rdc.ptx"
    why = "which device function uses 'w_s' is not in the cubin"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "f_w", "sm_75", "g", why, Module, "_refuse_moved_debug_shared")


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
def test_remove_refuses_a_device_launcher_before_a_raised_kernel(ptxas_ok, tmp_path, monkeypatch, target):
    """cdp_raise -c: ptxas compiles empty_k after parent, which launches child from the
    device, with 24 registers; without parent it has its own 4, which the cubin does not
    show. Refused like a removal after an indirect caller; unchecked, it differs."""
    src = oracle.PROBES.parent / "probes_edits" / "cdp_raise.ptx"
    why = "'_Z7empty_kIvEvv' comes after '_Z6parentPi'"
    monkeypatch.setattr(Module, "_first_function_raised", lambda *_: None)  # empty_k is first in .text too
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "_Z6parentPi", target, "c", why, Module, "_refuse_moved_indirect_callers")


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
@pytest.mark.parametrize("mode", ["c", "O0_c"])
def test_remove_lists_every_launched_kernel_after_the_new_first_function(ptxas_ok, tmp_path, target, mode):
    """device_launch -c: parent<int>, first in .text, lists every launched kernel in
    declaration order after its other externs, its own leaf<int> among them; without it
    parent<float> comes first and lists leaf<float> (its own) and self_launch. The old
    decomposition turned the rule off where the first function's own launch stood inside
    the list, and self_launch was missing."""
    src = oracle.PROBES.parent / "probes_rw6" / "rules" / "device_launch.ptx"
    got, want = _removed(tmp_path, src, "_Z6parentIiEvPT_i", target, mode, check=lambda m: "launches_unlisted" not in m.facts or pytest.fail("rule off"))
    assert got == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
def test_reorder_refuses_moving_device_launches(ptxas_ok, tmp_path, monkeypatch, target):
    """device_launch -c: with self_launch (which launches itself) defined before leaf<int>,
    ptxas puts self_launch first in .text, a rule not modelled. Refused; unchecked, the
    model's order differs from ptxas's."""
    src = oracle.PROBES.parent / "probes_rw6" / "rules" / "device_launch.ptx"
    why = "launches a kernel or is launched from the device"
    _assert_swap_refusal_was_needed(tmp_path, monkeypatch, src, "_Z11self_launchPii", "_Z4leafIiEvPT_", target, "c", why, "_refuse_moved_launches")


def test_remove_keeps_the_frame_pointer_steps_for_the_move_into_text_order(ptxas_ok, tmp_path):
    """bi_cuda_local_var -O0 -c sm_90: the CIE pointers step 112 after k's 104-byte pair and
    after rcp's 112-byte one (pairs rounded up to 16). Without k, the removal keeps rcp's
    pair then k2's, and the build moves k2's first into .text order: that second rewrite saw
    one step (112 after 112 bytes), took pairs unrounded, and pointed rcp's FDE at 104, not
    ptxas's 112. The steps the removal knew travel through the spec too (JSON, whose
    object keys are strings: a dict of offsets came back unusable, and the built bytes
    differed)."""
    import json

    src = oracle.PROBES.parent / "probes_builtin" / "bi_cuda_local_var.ptx"
    got, want = _removed(tmp_path, src, "k", "sm_90", "O0_c")
    assert got == want
    module = decompose(read_cubin(_compile(tmp_path, src.stem, src.read_text(), "sm_90", "O0_c")))
    module.remove_function("k")
    assert build(Module.from_spec(module.to_spec())) == want
    assert build(Module.from_spec(json.loads(json.dumps(module.to_spec())))) == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
@pytest.mark.parametrize("a, b", [("_Z4tileILi16EEvPf", "_Z6reducePfi"), ("_Z6reducePfi", "_Z4copyPf"), ("_Z4tileILi16EEvPf", "_Z4copyPf")])
def test_reorder_under_g_moves_each_kernels_own_shared(ptxas_ok, tmp_path, target, a, b):
    """-g reorders beside static .shared variables that are each their kernel's own (nvcc's
    __shared__ arrays): ptxas names them in their kernel's walk, and they move with it. Such
    reorders were refused outright."""
    src = EDIT_PROBES / "g_shared_own.ptx"
    text = src.read_text()
    data = _compile(tmp_path, src.stem, text, target, "g")
    module = decompose(read_cubin(data))
    assert any(d.space == "shared" and d.scope in (a, b) for d in module.data)
    module.reorder_functions([b, a])
    want = _compile(tmp_path / "edited", src.stem, _swap_definitions(text, a, b), target, "g")
    assert want != data
    assert build(module) == want


def test_reorder_refuses_builtin_callers_under_target_debug(ptxas_ok, tmp_path, monkeypatch):
    """g_cg_wrappers (nvcc -G) -g sm_75: the static wrappers __barrier_sync and
    __shfl_down_sync call ptxas builtins. Under .target debug ptxas does not make builtins at
    their first caller's body, so the hypotheses that place a body before its builtins
    took the wrappers for prototyped and kept them in place; ptxas swaps them. Refused;
    unchecked, it differs from ptxas."""
    src = EDIT_PROBES / "g_cg_wrappers.ptx"
    a = "_ZN47_INTERNAL_6074eb95_16_g_cg_wrappers_cu_9125929b14__barrier_syncEj"
    b = "_ZN47_INTERNAL_6074eb95_16_g_cg_wrappers_cu_9125929b16__shfl_down_syncEjiji"
    why = r"calls the builtin '__cuda_sm70_shflsync_down_p', and under \.target debug"
    _assert_swap_refusal_was_needed(tmp_path, monkeypatch, src, a, b, "sm_75", "g", why, "_refuse_moved_builtin_makers_under_target_debug")


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
def test_reorder_of_kernels_in_nvcc_g_ptx_matches_ptxas(ptxas_ok, tmp_path, target):
    """PTX from nvcc -G brings its own DWARF (.debug_info, .debug_loc, ...), which names
    functions by relocation: a reorder leaves it as it is, while the line tables and the
    embedded text follow the moved definitions. Such reorders were refused outright
    (g_nvcc_kernels: ka, with its own __shared__ array, swapped with kb)."""
    src = EDIT_PROBES / "g_nvcc_kernels.ptx"
    text = src.read_text()
    a, b = "_Z2kaPf", "_Z2kbPfi"
    data = _compile(tmp_path, src.stem, text, target, "g")
    module = decompose(read_cubin(data))
    module.reorder_functions([b, a])
    want = _compile(tmp_path / "edited", src.stem, _swap_definitions(text, a, b), target, "g")
    assert want != data
    assert build(module) == want


@pytest.mark.parametrize(
    "probe, target, mode, name, why",
    [
        ("probes_builtin/bi_copy_renumber", "sm_75", "def", "__cuda_sm20_rcp_rn_f32_slowpath", "'k_next' holds a copy of it"),
        ("funcorder_probes/fo_fptr", "sm_90", "O0", "op_b", "'K3' holds a copy of it"),
        ("funcorder_probes/fo_table_load", "sm_75", "c", "f1", "variable 'tl' holds the address of 'f1'"),
    ],
)
def test_remove_refuses_a_function_something_kept_still_names(ptxas_ok, tmp_path, probe, target, mode, name, why):
    """A removal is refused up front where something kept still names the function: a
    kernel's whole-program copy of it (a ptxas builtin is no PTX definition to remove; a
    device function's callers do not build without it), or the initializer of a variable that
    stays. These removals went through, and the build then failed with a KeyError (found by
    fuzzing random edits)."""
    src = oracle.PROBES.parent / f"{probe}.ptx"
    data = _compile(tmp_path, src.stem, src.read_text(), target, mode)
    _assert_removal_refused(data, name, why)


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
def test_remove_raises_the_registers_of_the_new_first_function(ptxas_ok, tmp_path, monkeypatch, target):
    """fo_shuffle_kernels -c: k1 takes f0's address, and ptxas takes the address-taken
    functions for the callees of the first function in .text, which so has at least 24
    registers. Without k6, k5 comes first and has 24 where it had its own 4; the model kept
    4. A reorder that puts k5 first instead leaves k6 with its own count, which the cubin
    does not show: refused, and let through it differs from ptxas."""
    src = oracle.PROBES.parent / "funcorder_probes" / "fo_shuffle_kernels.ptx"
    got, want = _removed(tmp_path, src, "k6", target, "c")
    assert got == want
    _assert_swap_refusal_was_needed(tmp_path, monkeypatch, src, "k5", "k6", target, "c", "'k6', first in .text, has the 24 registers", "_first_function_raised")


def test_remove_keeps_the_hidden_sequences_first_in_the_new_text_order(ptxas_ok, tmp_path):
    """fo_shuffle_protos -g sm_90: the line tables list the functions that are not .visible
    first, then fma, each group in .text order. Without C the -g shuffle swaps A and B in
    .text, and ptxas's sequences follow (A K2 B S K1 U fma); the model left them as they
    stood (B K2 S A ...), as that order was neither .text order nor kernels last."""
    src = oracle.PROBES.parent / "funcorder_probes" / "fo_shuffle_protos.ptx"
    got, want = _removed(tmp_path, src, "C", "sm_90", "g")
    assert got == want


def test_remove_refuses_a_loosened_register_budget_under_c_o0(ptxas_ok, tmp_path, monkeypatch):
    """g_bounds_callee -O0 -c sm_90: -c -O0 calls the division slow path through the ABI, as
    -g does, and compiles it within k_bounded's launch-bound budget; without k_bounded ptxas
    compiles it anew for k_free, and its code changes. The check ran under -g only."""
    src = EDIT_PROBES / "g_bounds_callee.ptx"
    why = "under -c -O0 '_Z9k_boundedPfPKfi''s launch bounds cap the registers of"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "_Z9k_boundedPfPKfi", "sm_90", "O0_c", why, Module, "_refuse_loosened_register_budget")


@pytest.mark.parametrize("target", ("sm_80", "sm_90", "sm_100a", "sm_120"))
def test_g_removal_lines_follow_the_shuffled_text_order(ptxas_ok, tmp_path, target):
    """g_lines_follow_shuffle -g without ka: the table's taking shuffles .text to kb h8 h9
    h7, and the line sequences of the device functions follow it before the kernel's."""
    got, want = _removed(tmp_path, EDIT_PROBES / "g_lines_follow_shuffle.ptx", "ka", target, "g")
    assert got == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_120"))
def test_remove_the_last_kernel_refused_beside_a_resolved_data_taking_under_g(ptxas_ok, tmp_path, monkeypatch, target):
    """fo_g_data_take_only -g: `ftab = {f1}` holds a static function's address, which -g
    resolves (no relocation; .nv.callgraph lists the taking, fact taken_by_data). Without
    k0, the only kernel, ptxas orders f0 and f1 anew; the removal is refused, and let through
    it differs from ptxas (random module b/s0057 -g without step13, every target)."""
    src = oracle.PROBES.parent / "funcorder_probes" / "fo_g_data_take_only.ptx"
    why = "a variable's initializer holds 'f1''s address"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "k0", target, "g", why, Module, "_refuse_unknown_kernelless")


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
def test_remove_the_last_kernel_refused_beside_code_taking_addresses_under_c_o0(ptxas_ok, tmp_path, monkeypatch, target):
    """fp_takers -O0 -c: without k, the only kernel, the static h still takes fb's address;
    ptxas lays out h fa fb, where the -c -O0 shuffle rule gives h fb fa. Only data taking
    addresses was refused there before; unchecked, it differs."""
    src = oracle.PROBES.parent / "probes_fp" / "fp_takers.ptx"
    why = "a relocatable module without kernels creates its builtins' and address-taken functions' symbols in an order not modelled"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "k", target, "O0_c", why, Module, "_refuse_unknown_kernelless")


@pytest.mark.parametrize("target, mode", [("sm_75", "def"), ("sm_90", "def"), ("sm_90", "c"), ("sm_100a", "def"), ("sm_100a", "c")])
def test_reorder_names_the_new_first_functions_references_first(ptxas_ok, tmp_path, target, mode):
    """ky (using the visible B) comes first in .text and ptxas names B A C; with the kernels
    swapped kx (using C) does, and ptxas names C B A: the references the first function uses
    come before the visible variables (tests/probes_edits/refs_first_function; whole program
    makes no symbol for B). (-c below sm_90 refuses the swap for its BINDLESS records.)"""
    src = EDIT_PROBES / "refs_first_function.ptx"
    text = src.read_text()
    data = _compile(tmp_path, src.stem, text, target, mode)
    want = _compile(tmp_path / "edited", src.stem, _swap_definitions(text, "kx", "ky"), target, mode)

    def named(cubin: bytes) -> list[str]:
        return [y.name for y in read_cubin(cubin).symbols if y.name in ("A", "B", "C")]

    assert named(want) == (["C", "B", "A"] if mode == "c" else ["C", "A"])
    module = decompose(read_cubin(data))
    module.reorder_functions(["ky", "kx"])
    assert build(module) == want


@pytest.mark.parametrize("target", ("sm_90", "sm_100a"))
def test_reorder_refused_where_a_kernels_use_order_is_not_kept(ptxas_ok, tmp_path, monkeypatch, target):
    """ky reads surface C, then texture A; whole program keeps its uses as slots, textures
    first, so once ky comes first in .text the order ptxas names them in (C A) is not known:
    refused (tests/probes_edits/refs_use_order)."""
    src = EDIT_PROBES / "refs_use_order.ptx"
    text = src.read_text()
    data = _compile(tmp_path, src.stem, text, target, "def")
    module = decompose(read_cubin(data))
    with pytest.raises(ModelError, match="in its code's order, which a whole-program cubin does not keep"):
        module.reorder_functions(["kx", "ky"])
    assert build(module) == data
    # let through, the references keep the slots' order (A C), where ptxas names C A
    monkeypatch.setattr(Module, "_references_after", lambda self, edit, functions: [d for d in self.data if d.space in ("tex", "surf", "sampler")])
    module.reorder_functions(["kx", "ky"])
    want = _compile(tmp_path / "edited", src.stem, _swap_definitions(text, "kx", "ky"), target, "def")
    assert [y.name for y in read_cubin(want).symbols if y.name in ("A", "C")] == ["C", "A"]
    assert build(module) != want


@pytest.mark.parametrize("target", ("sm_90", "sm_100a"))
def test_remove_in_independent_mode_follows_the_codes_relocations(ptxas_ok, tmp_path, target):
    """texmode_independent: -c names the new first function's references by its code's
    relocations, in order, and removals match ptxas; whole program keeps them as slots,
    texture-sampler pairs first, which do not show that order: refused there
    (tests/probes_texg/texg_independent)."""
    src = oracle.PROBES.parent / "probes_texg" / "texg_independent.ptx"
    for kernel in ("k_a", "k_b"):
        got, want = _removed(tmp_path / kernel, src, kernel, target, "c")
        assert got == want
    data = _compile(tmp_path, src.stem, src.read_text(), target, "def")
    _assert_removal_refused(data, "k_b", "independent texturing mode")


@pytest.mark.parametrize("target", ("sm_80", "sm_90"))
@pytest.mark.parametrize("probe, kernel, why", [
    ("wp_resolved_table", "k1", "resolved through 'k1''s address table"),
    ("wp_data_takes", "k0", "which shuffle the kernel order"),
    ("wp_data_takes_plain", "k0", "'g' may hold function addresses ptxas resolved"),
])
def test_remove_refused_beside_resolved_function_addresses(ptxas_ok, tmp_path, monkeypatch, target, probe, kernel, why):
    """Whole program: an initializer's function addresses are resolved to offsets in the
    kernels' address tables (wp_resolved_table: 8, then 1 once k1 goes), and data-only
    takings shuffle the kernel order (wp_data_takes; wp_data_takes_plain, where a plain
    pointer asks what the table does and no fact tells): such removals are refused, and let
    through they differ from ptxas."""
    _assert_refusal_was_needed(tmp_path, monkeypatch, EDIT_PROBES / f"{probe}.ptx", kernel, target, "def", why, Module, "_refuse_resolved_data_takings")


@pytest.mark.parametrize("target", ("sm_90", "sm_100a"))
def test_remove_refused_moving_a_device_functions_handle_offsets(ptxas_ok, tmp_path, monkeypatch, target):
    """-c from sm_90 on: f's relocated surface and texture reads hold the offset after the
    module's largest parameter list, ka's; removing ka is refused
    (tests/probes_edits/c_handles_in_function)."""
    _assert_refusal_was_needed(tmp_path, monkeypatch, EDIT_PROBES / "c_handles_in_function.ptx", "ka", target, "c", "texture/surface handles 'f' reads", Module, "_refuse_moved_relocatable_handles")


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_120"))
def test_g_remove_refused_beside_a_bounded_indirect_caller(ptxas_ok, tmp_path, monkeypatch, target):
    """-g: k0 (.maxntid 1024) reaches f0 only through a pointer, and ptxas compiles f0 within
    its budget all the same; without k0 f0's .debug_frame rules change, so the removal is
    refused (tests/probes_edits/g_bounds_indirect). k0 is also the last function calling
    through a pointer beside the table holding f0, which is refused on its own
    (test_g_remove_of_the_last_pointer_caller_beside_a_function_table_is_refused): that
    check is off here."""
    monkeypatch.setattr(Module, "_refuse_debug_data_takings", lambda *_: None)
    _assert_refusal_was_needed(tmp_path, monkeypatch, EDIT_PROBES / "g_bounds_indirect.ptx", "k0", target, "g", "'k0''s launch bounds cap the registers of 'f0'", Module, "_refuse_loosened_register_budget")


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a", "sm_120"))
def test_reorder_steps_the_cie_pointers_as_ptxas_laid_the_pairs_out(ptxas_ok, tmp_path, target):
    """-c: k0's CIE/FDE pair (0x60 bytes) ends .debug_frame; once the swap moves it off the
    end the next CIE pointer steps 0x70 from it on sm_90 and later, the size ptxas laid the
    pair out at before it fitted k0's CFA program, not the 0x60 the file shows
    (tests/probes_edits/c_frame_steps; the other pairs, 0x68 bytes, step 0x70 too)."""
    src = EDIT_PROBES / "c_frame_steps.ptx"
    text = src.read_text()
    module = decompose(read_cubin(_compile(tmp_path, src.stem, text, target, "c")))
    module.reorder_functions(["k1", "k0"])
    assert build(module) == _compile(tmp_path / "edited", src.stem, _swap_definitions(text, "k0", "k1"), target, "c")


def test_laid_out_size_of_the_fde_programs_ptxas_writes():
    """frame.laid_out_size on FDEs as ptxas 13.0.88 writes them for sm_90 (bytes from the
    random modules' cubins): a kernel's leading advance was split and a closing def_cfa had a
    zero advance and another def_cfa before it; a device function starting with a def_cfa lost
    a zero advance; an unknown opcode gives None."""
    from cubinemit.semantic.frame import laid_out_size

    head = bytes(36)
    leaf_kernel = head + bytes.fromhex("04100000000c818080280000")  # advance, def_cfa: 0x30
    call_kernel = head + bytes.fromhex("04140000000c8180802800045000000000000000")  # 0x38
    split_kernel = head + bytes.fromhex("0454000000" "0404000000" "0c8180802800" "00000000")  # 0x38
    device = head + bytes.fromhex("0c818080280004e000000000")  # def_cfa, advance: 0x30
    assert laid_out_size(leaf_kernel, kernel=True) == 0x40
    assert laid_out_size(call_kernel, kernel=True) == 0x40
    assert laid_out_size(split_kernel, kernel=True) == 0x40
    assert laid_out_size(device, kernel=False) == 0x38
    assert laid_out_size(head + bytes.fromhex("2a000000"), kernel=False) is None


@pytest.mark.parametrize("target", ("sm_75", "sm_90"))
def test_g_remove_refused_where_the_searched_users_disagree(ptxas_ok, tmp_path, monkeypatch, target):
    """-g: several sets of users of s0 give the cubin's .nv_debug.shared layout, and without k2
    they give different layouts: the removal is refused; let through (the first set found) it
    differs from ptxas (tests/probes_edits/g_searched_users)."""
    src = EDIT_PROBES / "g_searched_users.ptx"
    module = decompose(read_cubin(_compile(tmp_path, src.stem, src.read_text(), target, "g")))
    fact = module.facts["searched_users"]
    assert fact["complete"] and fact["others"]
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "k2", target, "g", "several sets give this cubin's layout", Module, "_refuse_searched_shared_users")


def test_laid_out_size_reads_cfa_expressions():
    """A device function's program with a DW_CFA_expression (ptxas -c sm_90: a saved
    register's rule) is walked to its end: the block's bytes count, and an advance opens it,
    so nothing is added."""
    from cubinemit.semantic.frame import laid_out_size

    program = bytes.fromhex("0404000000" "0c8180802800" "0404000000" "1091808028" "06928180802870" "0404000000" "0c81808028")
    fde = bytes(36) + program + bytes(-(36 + len(program)) % 8)
    assert laid_out_size(fde, kernel=False) == 36 + len(program) + (-(36 + len(program)) % 8)


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
def test_c_swap_of_a_static_kernel_whose_builtins_another_kernel_made_is_refused(ptxas_ok, tmp_path, monkeypatch, target):
    """-c: the static k2 calls the builtins k1 made, so the cubin does not keep whether k2 was
    defined first or last; swapping k0 and k2 moves k0 after k1 only in the second case. The
    order the decomposer holds (k2 first) and the one with k2 moved last, its builtins left to
    k1, give this cubin, so the swap is refused; without trying that second order it builds
    other bytes than ptxas (tests/probes_edits/c_static_kernel_builtins)."""
    import cubinemit.semantic.creation as creation

    src = EDIT_PROBES / "c_static_kernel_builtins.ptx"
    _assert_swap_refusal_was_needed(
        tmp_path, monkeypatch, src, "k0", "k2", target, "c", "not the PTX declaration order behind it", "_kernel_builtins_placed", owner=creation, replacement=lambda names, _by_ptx, _builtins, **_: names
    )


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
def test_remove_refused_where_the_next_first_kernel_names_the_same_slots_in_its_order(ptxas_ok, tmp_path, monkeypatch, target):
    """kb, first in .text, reads texture A then surface C; ka, next, reads C then A. Both hold
    the same handle slots, so the references the first function names look the same without
    kb, but ptxas names them in ka's code order (C A), which the cubin does not keep: the
    removal is refused (tests/probes_edits/refs_same_slots)."""
    src = EDIT_PROBES / "refs_same_slots.ptx"
    text = src.read_text()
    data = _compile(tmp_path, src.stem, text, target, "def")
    assert [y.name for y in read_cubin(data).symbols if y.name in ("A", "C")] == ["A", "C"]
    _assert_removal_refused(data, "kb", "which names the references \\['A', 'C'\\], textures and surfaces, in its code's order")
    monkeypatch.setattr(Module, "_references_after", lambda self, edit, functions: [d for d in self.data if d.space in ("tex", "surf", "sampler")])
    got, want = _removed(tmp_path, src, "kb", target, "def")
    assert [y.name for y in read_cubin(want).symbols if y.name in ("A", "C")] == ["C", "A"]
    assert got != want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
@pytest.mark.parametrize("mode", ("c", "g", "O0_c"))
def test_reorder_without_prototypes_places_each_definition_where_it_was_created(ptxas_ok, tmp_path, target, mode):
    """Swapping the uncalled device function f1 and k0 moves f1 only if it was defined where
    ptxas created it; the cubin does not say whether a prototype declared it first, so the
    swap is refused, and with ``no_prototypes=True`` (the caller's PTX has none) it matches
    ptxas (tests/probes_edits/c_no_prototypes)."""
    src = EDIT_PROBES / "c_no_prototypes.ptx"
    text = src.read_text()
    data = _compile(tmp_path, src.stem, text, target, mode)
    want = _compile(tmp_path / "edited", src.stem, _swap_definitions(text, "f1", "k0"), target, mode)
    assert want != data
    module = decompose(read_cubin(data))
    with pytest.raises(ModelError, match="does not keep where '(k0|f1)' stood among the definitions"):
        module.reorder_functions(["k0", "f1"])
    assert build(module) == data
    with pytest.raises(ModelError, match="contradict"):
        module.reorder_functions(["k0", "f1"], prototyped=True, no_prototypes=True)
    module.reorder_functions(["k0", "f1"], no_prototypes=True)
    assert build(module) == want


@pytest.mark.parametrize("target", ("sm_80", "sm_90", "sm_100a"))
def test_reorder_without_prototypes_keeps_a_static_functions_place_a_hypothesis(ptxas_ok, tmp_path, monkeypatch, target):
    """-c -O0 lists static functions after the others, so where the static f1 was created among
    them is not kept even when no prototype declared it: the swap of f1 and f2 stays refused
    with ``no_prototypes=True`` (which took f1's decomposed place for its definition and built
    other bytes than ptxas; tests/probes_edits/c_no_prototypes_static, a random module)."""
    # (its static kernels stand apart from the builtins they made, which is refused first)
    _refused_behind_unplaced_kernels(tmp_path, monkeypatch, "c_no_prototypes_static", target, ["f2", "f1"], "does not keep where")


def _refused_behind_unplaced_kernels(tmp_path, monkeypatch, probe: str, target: str, names: list[str], match: str) -> tuple[Module, str]:
    """-c -O0: reordering ``names`` with ``no_prototypes=True`` in ptxas's build of ``probe``
    is refused for kernels standing apart from their builtins, and with that check off for
    ``match``, the module left as it was; returns the module (that check still off) and the
    probe's text."""
    text = (EDIT_PROBES / f"{probe}.ptx").read_text()
    data = _compile(tmp_path, probe, text, target, "O0_c")
    module = decompose(read_cubin(data))
    with pytest.raises(ModelError, match="has a kernel apart from the builtins its body made"):
        module.reorder_functions(names, no_prototypes=True)
    monkeypatch.setattr(Module, "_refuse_unplaced_kernel_bodies", lambda *_: None)
    with pytest.raises(ModelError, match=match):
        module.reorder_functions(names, no_prototypes=True)
    assert build(module) == data
    return module, text


@pytest.mark.parametrize("target", ("sm_90", "sm_100a"))
def test_reorder_refused_where_static_kernels_made_builtins_elsewhere(ptxas_ok, tmp_path, monkeypatch, target):
    """-c -O0: the static kernels k0 and k1, decomposed first, may stand after f0 and f1, each
    followed by the builtins it made; swapping f0 and f1 (which changes ptxas's cubin) then
    gives other bytes, so the swap is refused even with ``no_prototypes=True``, and the search
    of other declaration orders finds those (tests/probes_edits/c_o0_static_kernels_builtins,
    a random module)."""
    # (refused for its kernels apart from their builtins; the search of other declaration
    # orders refuses it too)
    _refused_behind_unplaced_kernels(tmp_path, monkeypatch, "c_o0_static_kernels_builtins", target, ["f1", "f0"], "not the PTX declaration order behind it")
    text = (EDIT_PROBES / "c_o0_static_kernels_builtins.ptx").read_text()
    assert _compile(tmp_path / "edited", "c_o0_static_kernels_builtins", _swap_definitions(text, "f0", "f1"), target, "O0_c") != _compile(tmp_path, "c_o0_static_kernels_builtins", text, target, "O0_c")


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
def test_reorder_refused_where_the_extern_declaration_order_is_not_kept(ptxas_ok, tmp_path, monkeypatch, target):
    """Whole program names the externs walking the kernels in .text order, each kernel's in
    declaration order: k1 first names malloc free (f0's copy), k0 then vprintf, which does
    not show that vprintf was declared first. With k0 first ptxas names vprintf malloc free:
    the swap is refused, and let through it differs from ptxas
    (tests/probes_edits/wp_extern_naming)."""
    src = EDIT_PROBES / "wp_extern_naming.ptx"
    _assert_swap_refusal_was_needed(tmp_path, monkeypatch, src, "k0", "k1", target, "def", "would name the extern functions", "_refuse_unknown_extern_order")


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
def test_reorder_refused_where_the_decomposed_kernels_stand_apart_from_their_builtins(ptxas_ok, tmp_path, monkeypatch, target):
    """-c -O0: the decomposed order puts the static kernels k1 and k2 first, while the
    builtins their bodies made follow k0; no PTX gives that order, so a reorder's hypotheses
    would start from places the kernels did not hold. Swapping f2 and k0 is refused; let
    through (and the search of other declaration orders, which finds some, skipped) it
    differs from ptxas (tests/probes_edits/c_o0_static_kernels_apart)."""
    from cubinemit.semantic import creation

    src = EDIT_PROBES / "c_o0_static_kernels_apart.ptx"
    monkeypatch.setattr(creation, "edit_outcome_unknown", lambda *_, **__: None)
    _assert_swap_refusal_was_needed(tmp_path, monkeypatch, src, "f2", "k0", target, "O0_c", "has a kernel apart from the builtins its body made", "_refuse_unplaced_kernel_bodies")


@pytest.mark.parametrize("bounds", (".maxntid 128, 1, 1\n", ".reqntid 256\n"))
def test_c_remove_refused_where_any_launch_bound_shapes_a_builtin(ptxas_ok, tmp_path, monkeypatch, bounds):
    """-c from sm_90 on compiles the f64 division builtin for its callers' launch bounds even
    where they cap no register (128 threads leave 512 per thread): removing k1 is refused on
    sm_90, and let through it differs from ptxas; on sm_75 the builtin stays and the removal
    is exact (tests/probes_edits/c_budget_builtin with k1's bounds replaced, after random
    module r0124)."""
    src = EDIT_PROBES / "c_budget_builtin.ptx"
    text = src.read_text().replace(".maxntid 128, 1, 1\n.maxnreg 40\n", bounds)
    assert bounds in text
    variant = tmp_path / "src" / src.name
    variant.parent.mkdir()
    variant.write_text(text)
    data = _compile(tmp_path, src.stem, text, "sm_90", "c")
    _assert_removal_refused(data, "k1", "compiles '__cuda_sm20_div_rn_f64_full' for the launch bounds of its callers")
    monkeypatch.setattr(Module, "_refuse_loosened_register_budget", lambda *_: None)
    got, want = _removed(tmp_path / "sm_90", variant, "k1", "sm_90", "c")
    assert got != want
    monkeypatch.undo()
    got, want = _removed(tmp_path / "sm_75", variant, "k1", "sm_75", "c")
    assert got == want


@pytest.mark.parametrize("target", ("sm_80", "sm_90"))
def test_c_remove_refused_where_static_functions_become_roots_in_an_unknown_order(ptxas_ok, tmp_path, monkeypatch, target):
    """-c: without k1 the static f1 and f3 become roots of ptxas's depth-first order, in
    reverse declaration order, which the cubin does not keep; the declaration orders that give
    it are searched even though the decomposed one has k1 apart from its builtins, and the
    removal is refused; let through it differs from ptxas
    (tests/probes_edits/c_static_roots_unknown, a random module)."""
    src = EDIT_PROBES / "c_static_roots_unknown.ptx"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "k1", target, "c", "the cubin keeps ptxas's function order, not the PTX declaration order behind it", Module, "_refuse_unknown_creation_order")


def test_remove_refused_where_the_kept_kernels_shared_references_may_be_gone(ptxas_ok, tmp_path, monkeypatch):
    """Whole program, sm_90: the deleted .nv.reservedSmem.cap says some kernel kept a shared
    reference, not which; without k0 ptxas names the cap (k1's references were optimized
    away), so the removal is refused, and let through it differs from ptxas
    (tests/probes_edits/wp_cap_unknown_users, a random module)."""
    src = EDIT_PROBES / "wp_cap_unknown_users.ptx"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "k0", "sm_90", "def", "does not tell whether 'k1''s references outlived the optimizer", Module, "_refuse_unknown_cap_resolution")


# (from sm_90 on another check refuses it first: f's line sequence without a kernel reaching it)
@pytest.mark.parametrize("target", ("sm_75", "sm_86", "sm_89"))
def test_g_remove_of_the_last_pointer_caller_beside_a_function_table_is_refused(ptxas_ok, tmp_path, monkeypatch, target):
    """-g: tab = {f} is relocated while kc calls through a pointer; without kc ptxas writes 1
    and drops the relocation (tests/probes_edits/g_data_taking_last_caller, after a random
    nvcc module). The removal is refused; let through, it differs from ptxas. kd's goes."""
    src = EDIT_PROBES / "g_data_taking_last_caller.ptx"
    want = _compile(tmp_path / "edited", src.stem, _without_kernel(src.read_text(), "kc"), target, "g")
    init = next(s for s in read_cubin(want).sections if s.name == ".nv.global.init")
    assert init.data == (1).to_bytes(8, "little") and not any(s.name.endswith(".nv.global.init") and s.name.startswith(".rel") for s in read_cubin(want).sections)
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "kc", target, "g", "no function would call through a pointer", Module, "_refuse_debug_data_takings")
    got, want = _removed(tmp_path / "kd", src, "kd", target, "g")
    assert got == want


@pytest.mark.parametrize("target", ("sm_75", "sm_90", "sm_100a"))
def test_g_remove_of_the_first_function_beside_unreached_shared_is_refused(ptxas_ok, tmp_path, monkeypatch, target):
    """-g: removing f_first, first in .text, moves the symbol of fs, the .shared array of f_sh
    that no kernel calls, before the module's $str (tests/probes_edits/g_shared_unreached,
    after a random nvcc -rdc module): refused. Removing k is exact."""
    src = EDIT_PROBES / "g_shared_unreached.ptx"
    _assert_refusal_was_needed(tmp_path, monkeypatch, src, "f_first", target, "g", "which no kernel reaches", Module, "_refuse_unreached_debug_shared")
    got, want = _removed(tmp_path / "k", src, "k", target, "g")
    assert got == want
