"""Line-table payloads under an edit of the PTX text.

With ``-lineinfo`` (and ``-g``) ptxas embeds the PTX text it compiled (``.nv_debug_ptx_txt``:
one NUL-terminated entry per PTX line, comments blanked, leading blanks dropped) and maps the
SASS to those lines (``.nv_debug_line_sass``), and to the source lines of the ``.loc``
directives (``.debug_line``), one sequence per ``.text`` section, relocated against its
function. Removing or moving a function's definition in the PTX therefore changes these
payloads in a way the payloads themselves tell: the text says where each definition sits, so
the rows of the other functions move with their lines, and the removed function's sequences
go. The edited PTX is the original with each definition — its header line to the line of the
brace that closes its body — deleted or moved as a block (measured: ptxas on nvcc -lineinfo
PTX with a kernel cut out that way, tests/probes_lines).
"""

from __future__ import annotations

import re
import struct
from typing import TYPE_CHECKING

from ..errors import CubinemitError, ModelError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from ..mercury import LineHeader
    from .model import DebugSection

#: a function definition's header: linkage, .entry/.func, an optional return parameter list,
#: the name (group 1). ptxas keeps the text's line breaks but drops leading blanks.
_HEAD = re.compile(rb"^(?:\.(?:visible|weak|extern)[ \t]+)?\.(?:entry|func)[ \t]+(?:\([^)]*\)[ \t]*)?([\w$]+)", re.M)


def definitions(text: bytes) -> dict[str, tuple[int, int]]:
    """Where each function is defined in an embedded PTX text: name -> (first line, last line),
    1-based and inclusive, from the header line to the line of the brace that closes the
    body (inner ``{ }`` blocks matched). Declarations (a ``;`` before any ``{``) are skipped."""
    flat = text.replace(b"\0", b"\n")
    out: dict[str, tuple[int, int]] = {}
    for m in _HEAD.finditer(flat):
        i = m.end()
        while i < len(flat) and flat[i] not in b"{;":
            i += 1
        if i >= len(flat) or flat[i] == ord(";"):
            continue
        depth = 0
        while i < len(flat):
            c = flat[i]
            if c == ord("{"):
                depth += 1
            elif c == ord("}"):
                depth -= 1
                if depth == 0:
                    break
            i += 1
        if depth:
            raise ModelError(f".nv_debug_ptx_txt: the body of {m.group(1).decode(errors='replace')!r} is not closed")
        name = m.group(1).decode()
        if name in out:
            raise ModelError(f".nv_debug_ptx_txt: {name!r} is defined twice")
        out[name] = (flat.count(b"\n", 0, m.start()) + 1, flat.count(b"\n", 0, i) + 1)
    return out


def rearranged(text: bytes, blocks: list[tuple[int, int]], order: list[int | None]) -> tuple[bytes, Callable[[int], int | None]]:
    """The text with its line ``blocks`` (sorted, disjoint, 1-based inclusive) refilled:
    slot ``i`` takes block ``order[i]``, or nothing where that is None; the lines between
    blocks stay. Returns the new text and the map old line -> new line (None for a line
    that went)."""
    lines = text.split(b"\0")
    tail = lines.pop()  # the text ends with a NUL: the last piece is empty
    pieces: list[list[int]] = []  # the old line numbers of each piece, in the new order
    at = 1
    for slot, src in enumerate(order):
        start, _ = blocks[slot]
        pieces.append(list(range(at, start)))
        if src is not None:
            s, e = blocks[src]
            pieces.append(list(range(s, e + 1)))
        at = blocks[slot][1] + 1
    pieces.append(list(range(at, len(lines) + 1)))
    new_lines = [n for piece in pieces for n in piece]
    # ptxas's text stops at the last line with something left after the comments go (the
    # .file directives nvcc writes after the functions go too: measured, trailing blank and
    # comment lines and a trailing .global kept); the blanks a removed last definition
    # leaves behind it go with it
    while new_lines and not lines[new_lines[-1] - 1]:
        new_lines.pop()
    where = {old: new for new, old in enumerate(new_lines, 1)}
    out = b"".join(lines[n - 1] + b"\0" for n in new_lines) + tail
    return out, where.get


#: NVIDIA's extended line opcode of the inlined-at rows (`.loc ..., inlined_at ...`)
INLINED_AT = 0x90


def _without_names_offset(hdr: LineHeader) -> LineHeader:
    """A .debug_line header without the 32-bit .debug_str offset ptxas appends to the file
    table while the program has inlined-at rows: ptxas writes none once the last of them
    goes (measured: nvcc -lineinfo PTX without its only kernel with an inlined call,
    tests/probes_lines)."""
    from ..mercury import LineHeader

    (hdr_len,) = struct.unpack_from("<I", hdr.raw, 2)
    raw = hdr.raw[:2] + struct.pack("<I", hdr_len - 4) + hdr.raw[6:-4]
    return LineHeader(raw, hdr.line_base, hdr.line_range, hdr.opcode_base, hdr.std_lengths)


def lost_names_offset(before: DebugSection, after: DebugSection) -> bool:
    """Whether an edit took the .debug_str offset out of a .debug_line header."""
    from ..mercury import _names_offset_in_header

    return _names_offset_in_header(before.data) and not _names_offset_in_header(after.data)


def _grouped(where: str, events: Iterable[tuple[object, ...]]) -> list[tuple[str, list[tuple[object, ...]]]]:
    """Line events whose ``("seq", function)`` name their function, as (function, its
    sequence's events)."""
    seqs: list[tuple[str, list[tuple[object, ...]]]] = []
    for ev in events:
        if ev[0] == "seq":
            seqs.append((str(ev[1]), [tuple(ev)]))
        elif not seqs:
            raise ModelError(f"{where}: line events before the first sequence")
        else:
            seqs[-1][1].append(tuple(ev))
    return seqs


def _arranged(where: str, seqs: list[tuple[str, list[tuple[object, ...]]]], arrange: Callable[[list[str]], list[str]], line_map: Callable[[int], int | None] | None) -> tuple[list[str], list[tuple[object, ...]]]:
    by_name = dict(seqs)
    if len(by_name) != len(seqs):
        raise ModelError(f"{where}: two line sequences of one function")
    names = arrange([n for n, _ in seqs])
    events: list[tuple[object, ...]] = []
    for name in names:
        for ev in by_name[name]:
            if ev[0] == "row" and line_map is not None:
                line = line_map(int(ev[2]))  # type: ignore[call-overload]
                if line is None:
                    raise ModelError(f"{where}: {name!r} has rows on PTX line {ev[2]}, which the edit removes")
                ev = (ev[0], ev[1], line)
            events.append(ev)
    return names, events


def edited_table(dbg: DebugSection, arrange: Callable[[list[str]], list[str]], line_map: Callable[[int], int | None] | None = None) -> DebugSection:
    """A line table with its sequences, named by function, put in the order ``arrange`` gives
    for their order (a function it leaves out loses its sequence) and, where ``line_map`` is
    given, each row's line mapped through it; the relocations follow their sequences."""
    from ..mercury import _names_offset_in_header, _set_address_positions, decode_line_events, encode_line_events, name_sequences
    from .model import DebugSection, Relocation

    positions = _set_address_positions(dbg.data)
    by_offset = {r.offset: r.symbol for r in dbg.relocations}
    if set(by_offset) != set(positions) or None in by_offset.values():
        raise ModelError(f"{dbg.name}: the relocations are not one per sequence's set_address operand, each against a function")
    try:
        hdr, decoded = decode_line_events(dbg.data)
        seqs = _grouped(dbg.name, name_sequences(dbg.name, decoded, [str(by_offset[p]) for p in positions]))
    except CubinemitError as e:
        raise ModelError(f"{dbg.name}: {e}") from None
    names, events = _arranged(dbg.name, seqs, arrange, line_map)
    if _names_offset_in_header(dbg.data) and not any(ev[0] == "ext" and ev[1] == INLINED_AT for ev in events):
        hdr = _without_names_offset(hdr)
    data = encode_line_events(hdr, events)
    old = {r.symbol: r for r in dbg.relocations}
    relocations = [Relocation(p, old[n].type, n, old[n].addend) for p, n in zip(_set_address_positions(data), names)]
    # ptxas lists them by offset: descending in REL sections (below sm_90), ascending in RELA
    # ones (measured on every -lineinfo cubin of the ggml and CUTLASS sweeps)
    relocations.sort(key=lambda r: r.offset, reverse=bool(relocations) and all(r.addend is None for r in relocations))
    return DebugSection(dbg.name, data, relocations, list(dbg.labels))


def edited_events(where: str, events: Iterable[tuple[object, ...]], arrange: Callable[[list[str]], list[str]], line_map: Callable[[int], int | None] | None) -> tuple[tuple[object, ...], ...]:
    """The same edit on line events whose ``("seq", function)`` name their function (the
    Mercury clones' rows, :attr:`cubinemit.mercury.MercuryFacts.lines`)."""
    return tuple(_arranged(where, _grouped(where, events), arrange, line_map)[1])

