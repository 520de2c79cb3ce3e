"""Benchmarks of the memory allocators (run by hand, not a test).

    PYTHONPATH=. python benchmarks/alloc_bench.py [--repeat N] [--seed S]

1. The ``-g`` interference allocator: 10,000 module shared objects used by 1,000 kernels (each
   object reached by 1-8 kernels, 5% by one kernel only, 2% unreferenced), each kernel with two
   function-scope variables. Target: under one second. For information, the whole module path
   (``layout_shared`` from a call graph, whole-program and -g) on a 10,000-variable module.
2. The constant deduplicator: 1,000,000 constants (4/8/16-byte and odd widths, about a third of
   them repeated values). Target: under one second.

Inputs are built before the clock starts; the best of ``--repeat`` runs is reported.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cubinemit.alloc import (  # noqa: E402
    Constant,
    DebugKernel,
    Mode,
    SharedFunction,
    SharedModule,
    SharedObject,
    SharedScope,
    SharedVar,
    allocate_debug_shared,
    deduplicate,
    layout_shared,
)


def shared_inputs(seed: int, n_objects: int = 10_000, n_kernels: int = 1_000) -> tuple[list[SharedObject], list[DebugKernel]]:
    r = random.Random(seed)
    kernels = [f"k{i}" for i in range(n_kernels)]
    objects = []
    for i in range(n_objects):
        roll = r.random()
        if roll < 0.02:
            users: frozenset[str] = frozenset()
            referenced = False
        elif roll < 0.07:
            users, referenced = frozenset([r.choice(kernels)]), True
        else:
            users, referenced = frozenset(r.sample(kernels, r.randint(2, 8))), True
        objects.append(SharedObject(f"s{i}", r.choice([4, 8, 16, 24, 64, 100, 256, 1024]), r.choice([1, 4, 8, 16, 128]), users, referenced))
    own = [DebugKernel(k, [SharedVar(f"{k}_a", r.choice([4, 64, 512]), 16), SharedVar(f"{k}_b", 12, 4)]) for k in kernels]
    return objects, own


def shared_module(seed: int, n_vars: int = 10_000, n_kernels: int = 1_000, n_funcs: int = 100) -> SharedModule:
    """A module of 10,000 module .shared variables, 100 device functions (30 variables each, a
    few calls) and 1,000 kernels (20 variables and 2 calls each)."""
    r = random.Random(seed)
    scopes = [SharedScope.INTERNAL] * 8 + [SharedScope.VISIBLE]
    mv = [SharedVar(f"s{i}", r.choice([4, 8, 16, 64, 256]), r.choice([1, 4, 8, 16]), r.choice(scopes)) for i in range(n_vars)]
    names = [v.name for v in mv]
    funcs = [
        SharedFunction(f"f{j}", False, [SharedVar(f"f{j}_v", 32, 8)], [*r.sample(names, 30), f"f{j}_v"], [f"f{x}" for x in r.sample(range(j + 1, n_funcs), min(2, n_funcs - j - 1))])
        for j in range(n_funcs)
    ]
    kernels = [
        SharedFunction(f"k{i}", True, [SharedVar(f"k{i}_v", 128, 16)], [*r.sample(names, 20), f"k{i}_v"], [f"f{x}" for x in r.sample(range(n_funcs), 2)])
        for i in range(n_kernels)
    ]
    return SharedModule(mv, funcs + kernels)


def constant_inputs(seed: int, n: int = 1_000_000) -> list[Constant]:
    r = random.Random(seed)
    pool4 = [r.getrandbits(32).to_bytes(4, "little") for _ in range(50_000)]
    pool8 = [r.getrandbits(64).to_bytes(8, "little") for _ in range(50_000)]
    pool16 = [r.getrandbits(128).to_bytes(16, "little") for _ in range(5_000)]
    out = []
    for i in range(n):
        roll = r.random()
        if roll < 0.45:
            data, align = (r.choice(pool4) if r.random() < 0.35 else r.getrandbits(32).to_bytes(4, "little")), 4
        elif roll < 0.85:
            data, align = (r.choice(pool8) if r.random() < 0.35 else r.getrandbits(64).to_bytes(8, "little")), 8
        elif roll < 0.95:
            data, align = r.choice(pool16), 16
        else:
            data, align = r.getrandbits(24).to_bytes(3, "little"), 1
        out.append(Constant(f"c{i}", data, align, i % 97 == 0))
    return out


def best_of(repeat: int, fn) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    objects, kernels = shared_inputs(args.seed)
    lay = allocate_debug_shared(objects, kernels, base=0x400)
    t_shared = best_of(args.repeat, lambda: allocate_debug_shared(objects, kernels, base=0x400))
    groups = len({v for s, v in lay.symbols.values() if s == ".nv_debug.shared"})

    module = shared_module(args.seed)
    t_whole = best_of(args.repeat, lambda: layout_shared(module, 90, Mode.WHOLE_PROGRAM))
    t_debug = best_of(args.repeat, lambda: layout_shared(module, 90, Mode.DEBUG))

    consts = constant_inputs(args.seed)
    res = deduplicate(consts)
    t_dedup = best_of(args.repeat, lambda: deduplicate(consts))

    print(f"{'benchmark':<58} {'measured':>10} {'target':>8}")
    print(f"{'-g shared: 10,000 objects x 1,000 kernels':<58} {t_shared:>9.3f}s {'< 1s':>8}")
    print(f"{'   (' + str(groups) + ' colour offsets, .nv_debug.shared ' + hex(lay.sections['.nv_debug.shared'].size) + ')':<58}")
    print(f"{'layout_shared whole program: 10,000 vars, 1,000 kernels':<58} {t_whole:>9.3f}s {'':>8}")
    print(f"{'layout_shared -g (call graph -> users -> colouring), same':<58} {t_debug:>9.3f}s {'':>8}")
    print(f"{'constant dedup: 1,000,000 constants':<58} {t_dedup:>9.3f}s {'< 1s':>8}")
    print(f"{'   (' + str(len(res.aliased)) + ' aliased, ' + str(res.original_size) + ' -> ' + str(res.size) + ' bytes)':<58}")
    # machine speed: the dedup's unavoidable core is one hash-table insert per constant
    keys = [c.data for c in consts]

    def calibrate() -> None:
        first = {}.setdefault
        for i in range(len(keys)):
            first(keys[i], i)

    t_cal = best_of(args.repeat, calibrate)
    print(f"{'calibration: 1,000,000 dict.setdefault in a Python loop':<58} {t_cal:>9.3f}s {'':>8}")
    print(f"python {sys.version.split()[0]}, best of {args.repeat}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
