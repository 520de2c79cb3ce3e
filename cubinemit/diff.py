"""Structural diff of two cubins: header fields, sections and symbols, then the first byte."""

from __future__ import annotations

from typing import Any

from .elf.layout import layout
from .inspect import describe, where_in
from .reader import read_cubin
from .roundtrip import first_difference


def _keyed(rows: list[dict[str, Any]], what: str) -> dict[str, dict[str, Any]]:
    """Rows by name; repeated names (tombstones, clones) get a #n suffix."""
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        key = row["name"] or f"<{what} {row['index']}>"
        n = 2
        base = key
        while key in out:
            key = f"{base}#{n}"
            n += 1
        out[key] = row
    return out


def diff_cubins(a: bytes, b: bytes) -> list[str]:
    """Lines describing how ``b`` differs from ``a``; empty when identical."""
    if a == b:
        return []
    ma, mb = read_cubin(a), read_cubin(b)
    la, lb = layout(ma), layout(mb)
    da, db = describe(ma, la), describe(mb, lb)
    lines = []
    for field, va in da["header"].items():
        vb = db["header"][field]
        if va != vb:
            lines.append(f"header {field}: {va:#x} -> {vb:#x}" if isinstance(va, int) else f"header {field}: {va} -> {vb}")
    for what in ("sections", "symbols"):
        ka, kb = _keyed(da[what], what[:-1]), _keyed(db[what], what[:-1])
        for name in ka.keys() - kb.keys():
            lines.append(f"{what[:-1]} removed: {name}")
        for name in kb.keys() - ka.keys():
            lines.append(f"{what[:-1]} added: {name}")
        for name in sorted(ka.keys() & kb.keys(), key=lambda n: ka[n]["index"]):
            ra, rb = ka[name], kb[name]
            changed = [f"{k} {ra[k]!r} -> {rb[k]!r}" for k in ra if k != "name" and ra[k] != rb[k]]
            if what == "sections":
                pa, pb = la.order[ra["index"] - 1], lb.order[rb["index"] - 1]
                ca, cb = la.contents.get(id(pa), pa.data), lb.contents.get(id(pb), pb.data)
                if ca != cb:
                    off = first_difference(ca, cb)
                    changed.append(f"contents differ from byte {off:#x}")
            if changed:
                lines.append(f"{what[:-1]} {name}: " + ", ".join(changed))
    off = first_difference(a, b)
    assert off is not None
    lines.append(f"first differing byte: offset {off:#x} ({where_in(ma, off, la)} in A, {where_in(mb, off, lb)} in B)")
    return lines
