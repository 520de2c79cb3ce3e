"""Cubins from other producers are read losslessly: nvlink output (linked and -r)."""

from __future__ import annotations

import subprocess

import pytest

from cubinemit import toolchain
from cubinemit.elf.writer import write
from cubinemit.reader import read_cubin


@pytest.mark.parametrize("target", ["sm_75", "sm_90", "sm_100a", "sm_120"])
@pytest.mark.parametrize("relocatable", [False, True])
def test_nvlink_output_is_read_losslessly(cubin, tmp_path, target, relocatable):
    nvlink = toolchain.ptxas().parent / "nvlink"
    if not nvlink.exists():
        pytest.fail(f"nvlink is expected beside ptxas in the nvidia-cuda-nvcc wheel: {nvlink}")
    obj_file = tmp_path / "in.o"
    obj_file.write_bytes(cubin("func_calls", target, "c"))
    out = tmp_path / "linked.cubin"
    args = [str(nvlink), "-arch", target, *(["-r"] if relocatable else []), str(obj_file), "-o", str(out)]
    subprocess.run(args, check=True, capture_output=True)
    data = out.read_bytes()
    model = read_cubin(data)
    assert write(model) == data
