"""Speed of the container and semantic round trips on a 1,000-kernel module (run by hand).

    .venv/bin/python benchmarks/roundtrip_bench.py [N_KERNELS] [TARGET]

(From a git worktree, prefix PYTHONPATH=. so that the worktree's package is measured, not the
one the virtual environment has installed.)

Compiles N copies of a small kernel with ptxas 13.0.88 once, then times, side by side in one
run: container read + write, and semantic decompose + build (target: well under a second for
1,000 kernels), in the default mode and, for information, under -c and -g. Then one edit of
each kind on the decomposed module, rebuilt (target: under 10 seconds each in every mode; the
reorder and removal checks try up to thousands of creation orders the cubin cannot tell
apart). Prints best-of-5 seconds (best-of-2 for edits) and the ratio to the target.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from cubinemit import toolchain
from cubinemit.elf.writer import write
from cubinemit.reader import read_cubin
from cubinemit.semantic.model import Module

KERNEL = """
.visible .entry k{i:04d}(.param .u64 p, .param .u32 n)
{{
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x; setp.ge.u32 %p1, %r2, %r1; @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1; mul.wide.u32 %rd3, %r2, 4; add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r2;
DONE:
  ret;
}}
"""


def best(fn, repeat: int = 5) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(n: int = 1000, target: str = "sm_90") -> None:
    work = Path(tempfile.mkdtemp())
    ptx = work / "bench.ptx"
    ptx.write_text(".version 9.0\n.target sm_75\n.address_size 64\n" + "".join(KERNEL.format(i=i) for i in range(n)))
    for flags in ([], ["-c"], ["-g"]):
        toolchain.run_ptxas(["-arch", target, *flags, "bench.ptx", "-o", "bench.cubin"], cwd=work)
        data = (work / "bench.cubin").read_bytes()
        assert write(read_cubin(data)) == data and Module.from_cubin(data).to_cubin() == data
        container = best(lambda: write(read_cubin(data)))
        semantic = best(lambda: Module.from_cubin(data).to_cubin())
        print(f"{n} kernels, {target} {' '.join(flags) or '(default)'}, {len(data)} bytes")
        print(f"  container read+write   {container:8.3f} s")
        if flags:  # the target is for the default mode; the others for information
            print(f"  semantic decompose+build {semantic:6.3f} s")
        else:
            print(f"  semantic decompose+build {semantic:6.3f} s   target < 1 s: {semantic / 1.0:5.2f}x of the budget")
        edits = {
            "rename_function": ("rename_function", "k0007", "k0007_renamed"),
            "remove_function": ("remove_function", "k0005"),
            "reorder_functions": ("reorder_functions", [f"k{n - 1:04d}", "k0003"]),
        }
        for label, (method, *args) in edits.items():

            def edit() -> None:
                module = Module.from_cubin(data)
                getattr(module, method)(*args)
                module.to_cubin()

            took = best(edit, repeat=2)
            print(f"  {label:22} {took:8.3f} s   target < 10 s: {took / 10.0:5.2f}x of the budget")


if __name__ == "__main__":
    main(*(int(a) if a.isdigit() else a for a in sys.argv[1:3]))  # type: ignore[arg-type]
