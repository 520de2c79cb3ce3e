"""Semantic round trip of the nvinfo probes (tests/nvinfo/probes and its builder/ probes: calls,
recursion, syscalls, clusters, mbarriers, texture queries, record-order and propagation probes)
in the five main modes on one target of each family and Mercury generation.

Each case comes back byte for byte or is declined with NotImplementedError; the mismatches
left are listed in :data:`KNOWN_MISMATCH` and must stay mismatched (a fixed one is removed)."""

from __future__ import annotations

import collections

import pytest
from test_nvinfo_builder_corpus import BUILDER_PROBES, NV_PROBES, _supports, compile_jobs, probe_modes

from cubinemit.inspect import where_in
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import first_difference, semantic_roundtrip

TARGETS = ("sm_75", "sm_86", "sm_89", "sm_90", "sm_100a", "sm_110a", "sm_120")
MODES = ("def", "c", "g", "lineinfo", "O0")
PROBES = sorted([*NV_PROBES.glob("*.ptx"), *BUILDER_PROBES.glob("*.ptx")])

#: (probe, target, mode) -> why
KNOWN_MISMATCH: dict[tuple[str, str, str], str] = {}
#: at least this many cases are exact (599 of 675 at the time of writing: cluster sm_120 -c, the
#: __cuda_syscall_cp_async_bulk_unicast signature's ABI suffix, is exact now)
MIN_EXACT = 596


def _jobs():
    out = []
    for p in PROBES:
        text = p.read_text()
        for t in TARGETS:
            if _supports(text, t):
                out += [(p, t, m) for m in MODES if m in probe_modes(p) or m in ("lineinfo", "O0") and "def" in probe_modes(p)]
    return out


@pytest.fixture(scope="module")
def corpus(ptxas_ok):
    return compile_jobs(_jobs())


def test_semantic_roundtrip_of_the_nvinfo_probes(corpus):
    counts: collections.Counter[str] = collections.Counter()
    bad = []
    for key, path in sorted(corpus.items()):
        data = path.read_bytes()
        try:
            off = first_difference(semantic_roundtrip(data), data)
        except NotImplementedError:
            counts["declined"] += 1
            continue
        except Exception as exc:  # noqa: BLE001 - reported with its type
            bad.append((key, f"{type(exc).__name__}: {exc}"))
            continue
        if off is None:
            counts["exact"] += 1
            assert key not in KNOWN_MISMATCH, (key, "is exact now: remove it from KNOWN_MISMATCH")
        elif key not in KNOWN_MISMATCH:
            bad.append((key, f"{off:#x} {where_in(read_cubin(data), off)}"))
    assert not bad, bad
    assert counts["exact"] >= MIN_EXACT, counts
