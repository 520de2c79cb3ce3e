"""ptxas builtins (tests/probes_builtin, see its README) through the semantic round trip: the
functions ptxas injects for div.rn.f64, sqrt.rn.f32, rcp.rn.f64, rem.u64... next to static, weak
and visible functions declared ahead of their bodies, on every target in every mode."""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle
from cubinemit.arch import ALL_TARGETS
from cubinemit.inspect import where_in
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import first_difference, semantic_roundtrip
from cubinemit.funcorder import is_builtin_name

PROBES = sorted((Path(__file__).resolve().parent / "probes_builtin").glob("*.ptx"))
MODES = ("def", "c", "lineinfo", "g", "O0", "g_c")


@pytest.fixture(scope="module")
def bi_corpus(ptxas_ok: None) -> dict[tuple[str, str, str], Path]:
    return oracle.compile_many([(p, t, m) for p in PROBES for t in ALL_TARGETS for m in MODES])


def test_builtin_names() -> None:
    assert is_builtin_name("__cuda_sm20_div_rn_f64_full")
    assert is_builtin_name("__cuda_sm3x_div_rn_noftz_f32_slowpath")
    assert is_builtin_name("__cuda_sm70_barrier_sync_0")
    assert is_builtin_name("__cuda_sm_8x_mma_shfl_f16")
    assert not is_builtin_name("__internal_accurate_pow")
    assert not is_builtin_name("__cuda_sanitizer_report")


def test_builtin_probes_are_exact(bi_corpus) -> None:
    assert len(PROBES) >= 4
    missed = []
    for (stem, target, mode), path in sorted(bi_corpus.items()):
        data = path.read_bytes()
        off = first_difference(semantic_roundtrip(data), data)
        if off is not None:
            missed.append((stem, target, mode, hex(off), where_in(read_cubin(data), off)))
    assert not missed, missed


def _texts(path: Path) -> list[str]:
    return [s.name[len(".text.") :] for s in read_cubin(path.read_bytes()).sections if s.name.startswith(".text.")]


@pytest.mark.parametrize("target", ["sm_75", "sm_90", "sm_120"])
def test_builtin_is_no_static_root(bi_corpus, target) -> None:
    """-c: the LOCAL builtin counts with the non-static roots (the static S, declared first,
    is emitted first; the builtin created in K1's body is a root before K1)."""
    assert _texts(bi_corpus[("bi_static_first", target, "c")]) == ["S", "K2", "__cuda_sm20_div_rn_f64_full", "K1"]


@pytest.mark.parametrize("target", ["sm_75", "sm_90", "sm_120"])
def test_debug_names_builtin_before_static(bi_corpus, target) -> None:
    """-g: K1 names the WEAK builtin before the static S declared ahead of it (G order)."""
    obj = read_cubin(bi_corpus[("bi_static_first", target, "g")].read_bytes())
    texts = [sl.text for sl in obj.strtab.slots]
    assert texts.index("__cuda_sm20_div_rn_f64_full") < texts.index("S")


@pytest.mark.parametrize("target", ["sm_75", "sm_89"])
def test_debug_constant_bank_after_call(bi_corpus, target) -> None:
    """-g below sm_90: the kernel's first FP64 constant follows its calls, so .nv.constant2.K is
    named after .rela.text.K and .rel.text.K."""
    names = [sl.text for sl in read_cubin(bi_corpus[("bi_bank_late", target, "g")].read_bytes()).shstrtab.slots]
    assert names.index(".rela.text.K") < names.index(".rel.text.K") < names.index(".nv.constant2.K")


@pytest.mark.parametrize("target", ("sm_75", "sm_89"))
def test_warp_builtins_are_created_in_the_body(bi_corpus, target):
    """-c: the DFS roots the builtins k's body created (warpsync, rcp slow path, barrier) last
    to first, the WEAK warp builtins among them, and the decomposition gives that order back."""
    path = bi_corpus[("bi_warp_creation", target, "c")]
    assert _texts(path) == ["__cuda_sm70_barrier_sync_0", "__cuda_sm20_rcp_rn_f32_slowpath", "__cuda_sm70_warpsync", "k"]
    data = path.read_bytes()
    assert first_difference(semantic_roundtrip(data), data) is None


@pytest.mark.parametrize("target", ("sm_80", "sm_89"))
def test_builtins_of_builtins_come_after_the_module(bi_corpus, target):
    """-g -c: the static Ks creates the shfl and mma builtins in its body; the mma builtin's own
    body, parsed after the module's, creates two more after the visible Kv (G order: the
    non-static functions in creation order, then Ks)."""
    assert _texts(bi_corpus[("bi_nested", target, "g_c")]) == [
        "__cuda_sm70_shflsync_idx_p",
        "__cuda_sm_8x_mma_col_row_f32_f16_f16_f32",
        "Kv",
        "__cuda_sm_8x_mma_shfl_f16",
        "__cuda_sm_8x_mma_row_col_f32_f16_f16_f32",
        "Ks",
    ]


def test_cuda_local_var_statics_take_copy_numbers(bi_corpus, tmp_path) -> None:
    """Whole program: each kernel's copy is numbered after the __cuda_local_var_* statics it
    uses (fact internal_numbers_skipped); removing the first kernel gives ptxas's numbers."""
    from cubinemit.semantic import Module

    data = bi_corpus[("bi_cuda_local_var", "sm_86", "def")].read_bytes()
    assert b"$__internal_1_$__cuda_sm20_rcp_rn_f32_slowpath" in data and b"$__internal_4_$__cuda_sm20_rcp_rn_f32_slowpath" in data
    module = Module.from_cubin(data)
    assert {f.name: f.facts.get("internal_numbers_skipped") for f in module.functions if f.is_kernel} == {"k": 2, "k2": 1}
    # ptxas on the PTX without k2: k's statics take 0 and 1, its copy 2
    text = (PROBES[0].parent / "bi_cuda_local_var.ptx").read_text()
    start = text.index(".visible .entry k2(")
    edited = tmp_path / "bi_cuda_local_var.ptx"
    edited.write_text(text[:start])
    want = oracle.compile_ptx(edited, "sm_86", "def").read_bytes()
    assert b"$__internal_2_$__cuda_sm20_rcp_rn_f32_slowpath" in want
    module.remove_function("k2")
    assert module.to_cubin() == want
