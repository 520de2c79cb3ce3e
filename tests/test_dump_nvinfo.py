"""`dump --json` decodes every .nv.info / .nv.info.<f> / .nv.compat record; the sequence of
(attr, format) per section equals NVIDIA cuobjdump 13.2.51's on the probe corpus."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import probes_manifest
from cubinemit import toolchain
from cubinemit.inspect import describe
from cubinemit.reader import read_cubin

sys.path.insert(0, str(Path(__file__).resolve().parent / "nvinfo"))
from nvinfo_oracle import cuobjdump_records  # noqa: E402

# every probe and mode on one target per family member that changes the records
TARGETS = ("sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_103", "sm_110", "sm_120", "sm_121f")
CASES = [(p, t, m) for p, t, m in probes_manifest.matrix() if t in TARGETS]


def _cuobjdump(paths: list[Path]) -> dict[Path, str]:
    out = {}
    for path in paths:
        proc = subprocess.run([str(toolchain.cuobjdump()), "-elf", str(path)], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        out[path] = proc.stdout
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_nvinfo_sequence_equals_cuobjdump(corpus, oracles_ok, target):
    paths = [corpus[c] for c in CASES if c[1] == target]
    dumps = _cuobjdump(paths)
    checked = 0
    for path in paths:
        nvinfo = describe(read_cubin(path.read_bytes()))["nvinfo"]
        ours = {name: [(r["attr"], r["format"]) for r in records] for name, records in nvinfo.items()}
        assert ours == cuobjdump_records(dumps[path]), path.name
        assert not any(r.get("raw") for records in nvinfo.values() for r in records)
        checked += sum(len(v) for v in ours.values())
    assert checked > 0
