"""Container round trip of nvcc-generated, realistic PTX (tests/probes_rw/README.md): cooperative
groups, math builtins, half/bf16, assert, managed and constant data, big parameters, clusters,
bulk copies with mbarriers; whole-program, relocatable, debug and line-info builds."""

from __future__ import annotations

from pathlib import Path

import pytest

import oracle
from cubinemit.inspect import where_in
from cubinemit.reader import read_cubin
from cubinemit.roundtrip import container_roundtrip, first_difference

PROBES = Path(__file__).resolve().parent / "probes_rw"
TARGETS = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103a", "sm_110", "sm_120", "sm_121")
JOBS = [
    ("realistic", ("def", "O0", "maxrreg32")),
    ("realistic_lineinfo", ("lineinfo", "lineinfo_c")),
    ("realistic_G", ("g",)),
    ("realistic_rdc", ("c", "g_c")),
]
CASES = [(p, t, m) for p, modes in JOBS for t in TARGETS for m in modes]
CASES += [("realistic_sm90", t, m) for t in TARGETS if int(t[3:6].rstrip("abf")) >= 90 for m in ("def", "c", "g", "lineinfo")]


@pytest.mark.parametrize("probe,target,mode", CASES, ids=["-".join(c) for c in CASES])
def test_realistic_roundtrip(ptxas_ok, probe, target, mode):
    data = oracle.compile_ptx(PROBES / f"{probe}.ptx", target, mode).read_bytes()
    obj = read_cubin(data)
    assert obj.quirks.used(obj.sections) == []
    off = first_difference(container_roundtrip(data), data)
    assert off is None, f"first difference at {off:#x} in {where_in(obj, off)}"
