""".nv.compat follows the module's code through edits (tests/probes_compat).

ISA_CLASS is the most any instruction asks (wgmma 4, tensor-map copies and setmaxnreg 2) and
INST_TENSORMAP_V1 holds bit 0 for tensor-map copies and bit 1 for tensormap.replace. Removing
a kernel gives what ptxas gives for the PTX without it; where the cubin cannot tell (bit 1
leaves no instruction of its own) the removal is refused.

Tensor memory (tests/probes_compat/tensor_memory*): VRC_CTA_INIT_COUNT follows the code that
reaches it, which the TCGEN05_*_USED flags do not always say; -g creates the mask helper of the
alloc guardrails with them; the reserved partition follows tcgen05.alloc, and on sm_110a it
comes before the workaround object where a device function defined first allocates.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import oracle
from cubinemit.errors import ModelError
from cubinemit.roundtrip import semantic_roundtrip
from cubinemit.semantic import Module

HERE = Path(__file__).resolve().parent / "probes_compat"
MODES = ("def", "c", "g", "O0", "lineinfo")
#: tensormap.replace asks for an "a" target
TENSORMAP_TARGETS = ("sm_90a", "sm_100a", "sm_103a", "sm_110a", "sm_120a", "sm_121a")
WGMMA = HERE / "compat_wgmma_90a.ptx"
TENSORMAP = HERE / "compat_tensormap.ptx"
TMEM = HERE / "tensor_memory.ptx"
TMEM_CALLEE = HERE / "tensor_memory_callee.ptx"
TMEM_PLAIN = HERE / "tensor_memory_plain.ptx"
#: tcgen05 targets, sm_110a with its reserved-memory workaround object
TMEM_TARGETS = ("sm_100a", "sm_103a", "sm_110a", "sm_100f")


def _compile(tmp_path: Path, src: Path, target: str, mode: str, without: str | None = None) -> bytes:
    """ptxas's cubin of ``src`` for ``target`` (its .target line retargeted), without the
    definition of kernel ``without`` where one is named."""
    text = re.sub(r"^\.target sm_\w+$", f".target {target}", src.read_text(), count=1, flags=re.M)
    if without is not None:
        cut = re.search(r"\n\.visible \.entry " + re.escape(without) + r"\(.*?\n}\n", text, re.S)
        assert cut is not None
        text = text[: cut.start()] + "\n" + text[cut.end() :]
    ptx = tmp_path / target / mode / (without or "all") / src.name
    ptx.parent.mkdir(parents=True, exist_ok=True)
    ptx.write_text(text)
    return oracle.compile_ptx(ptx, target, mode).read_bytes()


def _compat(module: Module) -> tuple[int, int]:
    return int(module.facts.get("isa_class", 1)), int(module.facts.get("tensormap", 0))  # type: ignore[call-overload]


@pytest.mark.parametrize("mode", MODES)
def test_compat_probes_roundtrip(ptxas_ok, tmp_path, mode):
    cases = [(WGMMA, "sm_90a")] + [(TENSORMAP, t) for t in TENSORMAP_TARGETS] + [(p, t) for p in (TMEM, TMEM_CALLEE, TMEM_PLAIN) for t in TMEM_TARGETS]
    misses = []
    for src, target in cases:
        data = _compile(tmp_path, src, target, mode)
        if semantic_roundtrip(data) != data:
            misses.append((src.stem, target))
    assert not misses, misses


#: (kernel removed, mode) -> (ISA_CLASS, INST_TENSORMAP_V1) ptxas writes for the PTX without
#: it. Under -c ptxas ignores k_regs's setmaxnreg, so k_regs asks nothing there (-g removals
#: are refused here: the module has shared variables).
WGMMA_REMOVALS = {
    ("k_wgmma", "def"): (2, 1),
    ("k_wgmma", "c"): (2, 1),
    ("k_tma", "def"): (4, 0),
    ("k_tma", "c"): (4, 0),
    ("k_regs", "def"): (4, 1),
    ("k_plain", "O0"): (4, 1),
    ("k_wgmma", "lineinfo"): (2, 1),
}


@pytest.mark.parametrize("kernel, mode", list(WGMMA_REMOVALS))
def test_remove_lowers_the_compat_values_to_the_kept_code(ptxas_ok, tmp_path, kernel, mode):
    """The wgmma kernel's class 4 goes back to the 2 that k_tma's tensor-map load and k_regs's
    setmaxnreg ask; k_tma takes INST_TENSORMAP_V1 bit 0 with it (CUTLASS-style sm_90a modules:
    a wgmma GEMM beside a TMA copy kernel)."""
    data = _compile(tmp_path, WGMMA, "sm_90a", mode)
    want = _compile(tmp_path, WGMMA, "sm_90a", mode, without=kernel)
    module = Module.from_cubin(data)
    assert _compat(module) == (4, 1)
    module.remove_function(kernel)
    assert _compat(module) == _compat(Module.from_cubin(want)) == WGMMA_REMOVALS[kernel, mode]
    assert module.to_cubin() == want


def test_remove_two_kernels_goes_down_step_by_step(ptxas_ok, tmp_path):
    """Under -c: without k_wgmma the class is k_tma's 2; without k_tma too it is 1 (k_regs's
    setmaxnreg is ignored there) and bit 0 goes."""
    data = _compile(tmp_path, WGMMA, "sm_90a", "c")
    module = Module.from_cubin(data)
    module.remove_function("k_wgmma")
    assert _compat(module) == (2, 1)
    module.remove_function("k_tma")
    assert _compat(module) == (1, 0)
    text = WGMMA.read_text()
    for kernel in ("k_wgmma", "k_tma"):
        text = re.sub(r"\n\.visible \.entry " + kernel + r"\(.*?\n}\n", "\n\n", text, flags=re.S)
    ptx = tmp_path / "both" / WGMMA.name
    ptx.parent.mkdir()
    ptx.write_text(text)
    assert module.to_cubin() == oracle.compile_ptx(ptx, "sm_90a", "c").read_bytes()


@pytest.mark.parametrize("target", ("sm_90a", "sm_100a", "sm_120a"))
def test_remove_refused_with_tensormap_replace(ptxas_ok, tmp_path, monkeypatch, target):
    """tensormap.replace is a plain shared store in SASS: with bit 1 set, the cubin does not say
    which kernel held it, so removing code is refused and the module stays as it was. With the
    check off, removing k_replace keeps bit 1 where ptxas clears it; removing k_store gives
    ptxas's bytes (class 1, bit 0 gone), which shows the rest of the rule."""
    data = _compile(tmp_path, TENSORMAP, target, "def")
    for kernel in ("k_replace", "k_store", "k_plain"):
        module = Module.from_cubin(data)
        with pytest.raises(ModelError, match="tensormap.replace"):
            module.remove_function(kernel)
        assert module.to_cubin() == data
    with monkeypatch.context() as patched:
        patched.setattr(Module, "_refuse_unknown_tensormap_replace", lambda *_: None)
        # (k_store reaches its buffer through a bulk tensor store, which the shared-access
        # scan does not see: the cap check refuses too, Module._refuse_unknown_cap_resolution)
        patched.setattr(Module, "_refuse_unknown_cap_resolution", lambda *_: None)
        results = {}
        for kernel in ("k_replace", "k_store"):
            module = Module.from_cubin(data)
            module.remove_function(kernel)
            results[kernel] = (module.to_cubin(), _compat(module))
    want = {k: _compile(tmp_path, TENSORMAP, target, "def", without=k) for k in results}
    assert results["k_replace"][1] == (2, 3) and _compat(Module.from_cubin(want["k_replace"])) == (2, 1)
    assert results["k_replace"][0] != want["k_replace"]
    assert results["k_store"][1] == _compat(Module.from_cubin(want["k_store"])) == (1, 2)
    assert results["k_store"][0] == want["k_store"]


def _partition(module: Module) -> bool:
    return bool(module.facts.get("tcgen05"))


@pytest.mark.parametrize("target", ("sm_100a", "sm_110a"))
@pytest.mark.parametrize("mode", ("def", "c", "O0"))
@pytest.mark.parametrize("kernel", ("k_alloc", "k_ld", "k_st", "k_relinq", "k_plain"))
def test_remove_follows_tensor_memory(ptxas_ok, tmp_path, target, mode, kernel):
    """Each removal keeps the partition: k_relinq's relinquish keeps it without k_alloc (its
    TCGEN05_1CTA_USED says so). The other kernels' VRC records stay their own. (-c -O0
    without k_alloc is not modelled: ptxas names the shared-memory cap at k_relinq then.)"""
    data = _compile(tmp_path, TMEM, target, mode)
    want = _compile(tmp_path, TMEM, target, mode, without=kernel)
    module = Module.from_cubin(data)
    assert _partition(module)
    module.remove_function(kernel)
    assert _partition(module) and _partition(Module.from_cubin(want))
    assert module.to_cubin() == want


@pytest.mark.parametrize("target", ("sm_100a", "sm_110a"))
@pytest.mark.parametrize("mode", ("def", "c"))
def test_remove_the_last_allocation_drops_the_partition(ptxas_ok, tmp_path, target, mode):
    """Without k_relinq and then k_alloc no code names a cta_group: the partition goes from
    .nv.shared.reserved.0 (CUTLASS 70_blackwell_fp16_gemm sm_100a without its GEMM kernel,
    which kept 0x20 bytes and two symbols too many)."""
    module = Module.from_cubin(_compile(tmp_path, TMEM, target, mode))
    module.remove_function("k_relinq")
    assert _partition(module)
    module.remove_function("k_alloc")
    assert not _partition(module)
    text = TMEM.read_text().replace(".target sm_100a", f".target {target}")
    for kernel in ("k_relinq", "k_alloc"):
        text = re.sub(r"\n\.visible \.entry " + kernel + r"\(.*?\n}\n", "\n\n", text, flags=re.S)
    ptx = tmp_path / "both" / TMEM.name
    ptx.parent.mkdir()
    ptx.write_text(text)
    assert module.to_cubin() == oracle.compile_ptx(ptx, target, mode).read_bytes()


@pytest.mark.parametrize("target", TMEM_TARGETS)
@pytest.mark.parametrize("mode", ("def", "c", "lineinfo", "O0"))
def test_remove_the_allocating_kernel_lowers_the_isa_class(ptxas_ok, tmp_path, target, mode):
    """The partition asks ISA_CLASS 2 while it stays; once the last allocation goes, the class
    follows the code left: k_plain's 1 (CuTe blackwell 01_mma_sm100 without gemm_device kept 2
    before)."""
    module = Module.from_cubin(_compile(tmp_path, TMEM_PLAIN, target, mode))
    assert _partition(module) and _compat(module) == (2, 0)
    module.remove_function("k_alloc")
    want = _compile(tmp_path, TMEM_PLAIN, target, mode, without="k_alloc")
    assert _compat(module) == _compat(Module.from_cubin(want)) == (1, 0)
    assert module.to_cubin() == want


@pytest.mark.parametrize("target", ("sm_100a", "sm_110a"))
def test_remove_refused_where_a_dropped_callee_may_allocate(ptxas_ok, tmp_path, monkeypatch, target):
    """Without k_call, whole-program ptxas keeps the partition for f_alloc, whose code it no
    longer compiles: the cubin holds f_alloc only as a copy inside k_call, with no records of
    its own, so the removal is refused; with the check off the partition goes where ptxas keeps
    it."""
    data = _compile(tmp_path, TMEM_CALLEE, target, "def")
    module = Module.from_cubin(data)
    with pytest.raises(ModelError, match="'f_alloc' stays in the PTX"):
        module.remove_function("k_call")
    assert module.to_cubin() == data
    want = _compile(tmp_path, TMEM_CALLEE, target, "def", without="k_call")
    assert _partition(Module.from_cubin(want))
    with monkeypatch.context() as patched:
        patched.setattr(Module, "_refuse_unknown_tcgen05_partition", lambda *_: None)
        module = Module.from_cubin(data)
        module.remove_function("k_call")
    assert not _partition(module)
    assert module.to_cubin() != want


@pytest.mark.parametrize("target, left", [("sm_90", 1), ("sm_100a", 1), ("sm_110", 1), ("sm_120", 2)])
def test_remove_the_texture_kernel_leaves_vabsdiff4s_class(ptxas_ok, tmp_path, target, left):
    """-c: k_tex's TEX asks ISA_CLASS 2; f_sad's vabsdiff4 asks nothing up to sm_110 (its
    VABSDIFF4 was taken for a class-2 trigger, and CUDA samples stereoDisparity -rdc without
    its kernel kept class 2), while sm_120 writes it with VIADD, which asks 2."""
    from cubinemit.nvinfo.gating import isa_class_asked

    src = HERE / "vabsdiff_class.ptx"
    data = _compile(tmp_path, src, target, "c")
    want = _compile(tmp_path, src, target, "c", without="k_tex")
    module = Module.from_cubin(data)
    assert _compat(module)[0] == 2
    assert isa_class_asked(target, module.function("f_sad").sass) == left
    module.remove_function("k_tex")
    assert _compat(Module.from_cubin(want))[0] == left
    assert module.to_cubin() == want
