"""Writes the -g handle-table probes (see README.md)."""

from __future__ import annotations

import sys
from pathlib import Path

HEADER = ".version 8.0\n.target sm_75{mode}\n.address_size 64\n"


def kernel(name: str, uses: list[tuple[str, ...]]) -> str:
    lines = [f".visible .entry {name}(.param .u64 p)", "{", " .reg .b32 %r<8>; .reg .b64 %rd<3>;",
             " ld.param.u64 %rd1, [p];", " mov.u32 %r1, %tid.x; mov.u32 %r2, 0;"]
    for use in uses:
        if use[0] == "tex":
            lines.append(f" tex.1d.v4.s32.s32 {{%r3, %r4, %r5, %r6}}, [{', '.join(use[1:])}, {{%r1}}]; add.u32 %r2, %r2, %r3;")
        elif use[0] == "txq":
            lines.append(f" txq.width.b32 %r6, [{use[1]}]; add.u32 %r2, %r2, %r6;")
        else:
            lines.append(f" suld.b.1d.b32.trap {{%r6}}, [{use[1]}, {{%r1}}]; add.u32 %r2, %r2, %r6;")
    lines += [" cvta.to.global.u64 %rd2, %rd1;", " st.global.u32 [%rd2], %r2;", " ret;", "}", ""]
    return "\n".join(lines)


def probe(decls: list[tuple[str, str]], kernels: list[tuple[str, list[tuple[str, ...]]]], independent: bool = False) -> str:
    spell = {"tex": ".texref", "surf": ".surfref", "sampler": ".samplerref"}
    out = HEADER.format(mode=", texmode_independent" if independent else "")
    for kind, name in decls:
        init = " = { filter_mode = nearest }" if kind == "sampler" else ""
        out += f".global {spell[kind]} {name}{init};\n"
    return out + "\n" + "".join(kernel(k, u) for k, u in kernels)


def probes() -> dict[str, str]:
    out = {}
    for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 17, 24):
        names = [f"t{i}" for i in range(n)]
        out[f"texg_n{n:02d}"] = probe([("tex", x) for x in names], [("k_a", [("tex", names[n // 2])])])
    out["texg_first_two"] = probe([("tex", f"t{i}") for i in range(5)], [("k_a", [("tex", "t3"), ("txq", "t1")]), ("k_b", [("tex", "t4")])])
    out["texg_first_none"] = probe([("tex", f"t{i}") for i in range(4)], [("k_a", []), ("k_b", [("tex", "t2")])])
    out["texg_mixed"] = probe([("tex", "t0"), ("surf", "s0"), ("tex", "t1"), ("surf", "s1"), ("tex", "t2")], [("k_a", [("tex", "t2"), ("surf", "s1")]), ("k_b", [("surf", "s0")])])
    out["texg_independent"] = probe(
        [("tex", "t0"), ("sampler", "m0"), ("tex", "t1"), ("sampler", "m1"), ("surf", "s0")],
        [("k_a", [("txq", "t0"), ("tex", "t1", "m1"), ("surf", "s0")]), ("k_b", [("tex", "t0", "m0")])],
        independent=True,
    )
    return out


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent)
    for name, text in probes().items():
        (folder / f"{name}.ptx").write_text(text)
