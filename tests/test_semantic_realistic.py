"""Semantic round trip of the realistic nvcc-generated probes (tests/probes_rw: cooperative groups,
grid sync, warp shuffles, __constant__/__device__/__managed__ data, double math, half/bf16, assert,
atomics, a 1200-byte parameter; realistic_sm90: clusters, distributed shared memory,
cp.async.bulk with mbarriers), built by ptxas 13.0.88 on sm_75, sm_90, sm_100a and sm_120 in five
modes, plus the nvinfo builder's kitchen-sink probes (tests/nvinfo/probes/builder/kitchen80/90).

Every case goes decompose -> JSON text -> from_spec -> build and must come back byte for byte,
except the declined cases listed in :func:`_declined`, which must raise NotImplementedError with
the listed reason. No mismatch and no other error is allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle
from cubinemit.inspect import where_in
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import first_difference, semantic_roundtrip

PROBES = sorted((Path(__file__).resolve().parent / "probes_rw").glob("*.ptx"))
TARGETS = ("sm_75", "sm_90", "sm_100a", "sm_120")
MODES = ("def", "c", "g", "O0", "lineinfo")

def _declined(stem: str, mode: str) -> str | None:
    """The reason a case declines, or None when it must be exact (every case now: realistic_G
    -c, where the syscall __assertfail is declared after five weak functions, places it by its
    "#vllill" prototype string, decompose._place_externs)."""
    return None


def _cases() -> list[tuple[Path, str, str]]:
    # realistic_sm90 is compute_90 PTX
    return [(p, t, m) for p in PROBES for t in TARGETS for m in MODES if not (p.stem in ("realistic_sm90", "realistic_G80") and t == "sm_75")]


@pytest.fixture(scope="module")
def realistic(ptxas_ok: None) -> dict[tuple[str, str, str], Path]:
    return oracle.compile_many(_cases())


def test_probes_are_there():
    assert {p.stem for p in PROBES} == {"realistic", "realistic_G", "realistic_G80", "realistic_lineinfo", "realistic_rdc", "realistic_sm90"}
    # compute_80 cooperative_groups under -G read the reserved shared memory: RESERVED_SMEM_USED
    # on every target (nvinfo.gating._reserved_smem), placed before WMMA_USED below sm_90
    assert "%reserved_smem_offset_1" in (PROBES[0].parent / "realistic_G80.ptx").read_text()


_outcome = oracle.semantic_outcome


def _tally(corpus: dict[tuple[str, str, str], Path], reasons_for) -> tuple[int, list]:  # type: ignore[no-untyped-def]
    """(exact cases, unexpected outcomes): a case with no reasons (``reasons_for(stem, target,
    mode)`` is None) must be exact, any other must decline with one of its reasons."""
    unexpected = []
    exact = 0
    for (stem, target, mode), path in sorted(corpus.items()):
        kind, detail = _outcome(path.read_bytes())
        reasons = reasons_for(stem, target, mode)
        if reasons is None and kind == "exact":
            exact += 1
        elif reasons is None or kind != "declined" or not any(r in detail for r in reasons):
            unexpected.append((stem, target, mode, kind, detail[:200]))
    return exact, unexpected


def test_realistic_roundtrip(realistic):
    def reasons(stem: str, target: str, mode: str) -> tuple[str, ...] | None:
        reason = _declined(stem, mode)
        return None if reason is None else (reason,)

    exact, unexpected = _tally(realistic, reasons)
    assert not unexpected, unexpected
    assert exact == len(_cases()) == 110, exact  # every case


@pytest.mark.parametrize("target", ["sm_100a", "sm_120"])
def test_realistic_lineinfo_mercury_line_tables(realistic, target):
    """The Mercury line tables of -lineinfo code: a row on the same line is advance_pc + copy,
    never a special opcode, and an advance_pc before advance_line + advance_pc + copy is its own
    event (sm_100a/sm_120 .nv.merc.debug_line and .nv.merc.nv_debug_line_sass)."""
    for mode in ("def", "c", "O0", "lineinfo"):
        data = realistic[("realistic_lineinfo", target, mode)].read_bytes()
        off = first_difference(semantic_roundtrip(data), data)
        assert off is None, (target, mode, hex(off), where_in(read_cubin(data), off))


# --- the nvinfo builder's kitchen-sink probes ---------------------------------------------------

KITCHEN = ("kitchen80", "kitchen90")

#: mode -> why the kitchen probes decline there (every target of their header)
KITCHEN_DECLINED = {
    # -sanitize=memcheck (instrumentation functions, .nv.resolvedrela.text.<k>)
    "memcheck": ("-sanitize=memcheck output is not implemented yet", "decomposing .nv.resolvedrela.text."),
    # -ewp: extensible whole program (e_type 0xff00, shared sections below the reserved base)
    "ewp": ("-ewp (extensible whole program) output is not implemented yet",),
}


def _kitchen_declined(target: str, mode: str) -> tuple[str, ...] | None:
    """The reasons a kitchen case may decline with, or None when it must be exact (-g on every
    target: from sm_90 on the kernel's own mbarrier variables are named once both relocation
    sections are asked, before its jump-table bank; tests/probes_gshared/gsh_own_before_bank)."""
    return KITCHEN_DECLINED.get(mode)


@pytest.fixture(scope="module")
def kitchen(ptxas_ok: None) -> dict[tuple[str, str, str], Path]:
    from test_nvinfo_builder_corpus import BUILDER_PROBES, compile_jobs, nv_jobs

    return compile_jobs([job for probe in KITCHEN for job in nv_jobs(BUILDER_PROBES / f"{probe}.ptx")])


def test_kitchen_roundtrip(kitchen):
    """The nvinfo builder's kitchen sinks, every target and mode of their headers. Fixed with
    them: -c, a kernel with compiler constants names its function-scope .shared variables at
    their first relocation (`$__bar0__40 .rel.text.k_sink_c $__bar1__41`, was a ModelError);
    sm_100+, the Mercury bank clones come in creation order (.nv.constant.pic, then each
    kernel's optimizer bank before its texture-index bank; were wrong bytes)."""
    exact, unexpected = _tally(kitchen, lambda stem, target, mode: _kitchen_declined(target, mode))
    assert not unexpected, unexpected
    assert exact == 105, exact  # def, c, lineinfo, g, O0 on 13 + 8 targets
