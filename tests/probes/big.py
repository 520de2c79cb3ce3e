"""Generate a PTX module large enough that its relocatable cubin has more than
0xff00 (65280) sections, which forces ELF extended section numbering
(e_shnum == 0, the real count in section[0].sh_size, plus .symtab_shndx).

Every kernel stores %tid.x into one module-level .global, so under
``ptxas -c`` each kernel contributes four sections (.text.<k>, .rela.text.<k>,
.nv.info.<k>, .nv.constant0.<k>); the module adds a fixed 13 (12 below the
threshold, where there is no .symtab_shndx). Measured with
``ptxas -arch sm_90 -c``: 4*N + 13 sections, so the threshold is crossed at
N = 16317; N = 16500 gives 66013 sections in about 38 s (2-core x86_64 host,
~540 MB RSS). ptxas time grows faster than linearly with the kernel count, and
the four-section kernel is much cheaper than the bare ``ret`` kernel (three
sections: 22000 of those are needed, about 68 s).

Usage:  python tests/probes/big.py OUT.ptx [N_KERNELS]
"""

import sys

#: Kernel count used by the tests: 66013 sections under ``ptxas -c`` (> 0xff00 by 733).
DEFAULT_N_KERNELS = 16500

HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n\n.global .align 4 .u32 g_big;\n"

KERNEL = (
    "\n.visible .entry k{i:05d}()\n"
    "{{\n"
    "\t.reg .b32 \t%r<2>;\n"
    "\n"
    "\tmov.u32 \t%r1, %tid.x;\n"
    "\tst.global.u32 \t[g_big], %r1;\n"
    "\tret;\n"
    "}}\n"
)


def write_big_module(path, n_kernels=DEFAULT_N_KERNELS):
    """Write to ``path`` a PTX module with ``n_kernels`` tiny kernels k00000, k00001, ..."""
    n_kernels = int(n_kernels)
    if n_kernels < 0:
        raise ValueError("n_kernels must be >= 0")
    text = HEADER + "".join(KERNEL.format(i=i) for i in range(n_kernels))
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write(text)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (1, 2):
        print("usage: big.py OUT.ptx [N_KERNELS]", file=sys.stderr)
        return 2
    n = int(argv[1]) if len(argv) == 2 else DEFAULT_N_KERNELS
    write_big_module(argv[0], n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
