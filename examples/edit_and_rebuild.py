"""Decompose a ptxas cubin into leaf data, edit it, and rebuild it.

    python examples/edit_and_rebuild.py IN.cubin OLD NEW OUT.cubin

Renaming a kernel through the model gives the cubin ptxas writes for the PTX with the kernel
renamed: every derived byte (string tables, symbol order, .nv.info, banks, offsets) follows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cubinemit.reader import read_cubin
from cubinemit.semantic.build import build
from cubinemit.semantic.decompose import decompose
from cubinemit.semantic.spec import from_spec, to_spec


def main(src: str, old: str, new: str, dst: str) -> int:
    module = decompose(read_cubin(Path(src).read_bytes()))
    spec = json.dumps(to_spec(module))  # leaf data only: this is what a tool would store
    module = from_spec(json.loads(spec))
    module.rename_function(old, new)
    Path(dst).write_bytes(build(module))
    print(f"{src}: {len(module.functions)} functions, spec {len(spec)} bytes; renamed {old} -> {new}: wrote {dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
