"""Read a ptxas cubin, look inside, edit it through the model, write it back.

    python examples/inspect_and_edit.py examples/cubins/vadd.sm_90a.cubin /tmp/out.cubin

The container regenerates its tables: renaming a symbol moves every string and offset after it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cubinemit.elf.layout import layout
from cubinemit.elf.writer import write
from cubinemit.reader import read_cubin


def main(src: str, dst: str) -> int:
    data = Path(src).read_bytes()
    obj = read_cubin(data)
    lay = layout(obj)
    print(f"sm_{obj.sm}, {len(lay.order)} sections, {len(lay.symbols)} symbols")
    for section in lay.order:
        print(f"  [{lay.index_of(section):2}] {section.name:28} offset {lay.offset_of(section):#7x} size {section.size:#x}")

    assert write(obj) == data, "an unedited model writes the input back byte for byte"

    counter = next(s for s in obj.symbols if s.name == "calls")
    counter.name_slot.text = "vadd_call_counter"
    Path(dst).write_bytes(write(obj))
    print(f"renamed 'calls' to 'vadd_call_counter': wrote {dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
