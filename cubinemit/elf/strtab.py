"""String tables as ptxas keeps them.

ptxas's tables are append-only: a string is appended when its section or symbol is created, in
creation order; an identical string already present is shared (``_param``), a suffix never is;
a section that is later deleted leaves its name behind; a rename is done in place and the rest
of the old string's bytes are zero-filled (``.nv.constant.pic`` -> ``.nv.constant4\\0\\0\\0``); a
symbol that is deleted has its string zero-filled in place.

A :class:`StringTable` is that history: a list of :class:`StrSlot`, each one appended string.
Offsets and bytes are derived from the slots at layout time, never stored.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from ..errors import ModelError


def name_bytes(text: str) -> bytes:
    """A name's bytes: the names read from a cubin keep bytes that are not UTF-8 as surrogate
    escapes (:meth:`StringTable.parse`), and give them back here."""
    return text.encode("utf-8", "surrogateescape")


def _nbytes(text: str) -> int:
    """``len(text.encode("utf-8", "surrogateescape"))``, without encoding ASCII text (every
    table holds tens of thousands of names, and the slots are measured often)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogateescape"))


@attrs.define(eq=False)
class StrSlot:
    """One appended string. ``width`` (>= len(text)) is the byte count reserved before the
    terminating NUL: a rename done in place keeps the old width and zero-fills the tail."""

    text: str
    width: int = attrs.field(default=-1)

    def __attrs_post_init__(self) -> None:
        if self.width < 0:
            self.width = _nbytes(self.text)

    @property
    def encoded(self) -> bytes:
        return self.text.encode("utf-8", "surrogateescape")

    def rename_in_place(self, new: str) -> None:
        """Rename keeping the slot's place; the new text must fit the old width."""
        if len(new.encode("utf-8", "surrogateescape")) > self.width:
            raise ModelError(f"in-place rename {self.text!r} -> {new!r} does not fit {self.width} bytes")
        self.text = new

    def blank(self) -> None:
        """Zero-fill the string in place (ptxas does this to a deleted symbol's name)."""
        self.text = ""

    def render(self) -> bytes:
        """The slot's bytes; text longer than the reserved width (an edit, not an in-place
        rename) simply takes the room it needs."""
        data = self.encoded
        return data + bytes(max(self.width - len(data), 0) + 1)

    @property
    def size(self) -> int:
        return max(self.width, _nbytes(self.text)) + 1


@attrs.define(eq=False)
class StringTable:
    """An append-only string table. The first slot is always the empty string."""

    slots: list[StrSlot] = attrs.field(factory=lambda: [StrSlot("")])
    #: text -> first slot appended with it (a hint: slots can be renamed, so it is checked)
    _first: dict[str, StrSlot] = attrs.field(factory=dict, init=False, repr=False, eq=False)
    _indexed: int = attrs.field(default=0, init=False, repr=False, eq=False)

    def add(self, text: str, *, share: bool = True) -> StrSlot:
        """Append ``text``; with ``share``, return the first live slot holding exactly it.

        The lookup goes through an index of the first slot appended with each text, checked
        before use (a renamed or blanked slot falls back to a scan); a slot renamed *to* a text
        that a later slot was appended with is not preferred to it (ptxas never does that)."""
        if share:
            for slot in self.slots[self._indexed :]:  # slots appended directly (the reader)
                if slot.width == _nbytes(slot.text):
                    self._first.setdefault(slot.text, slot)
            self._indexed = len(self.slots)
            hint = self._first.get(text)
            if hint is not None and hint.text == text and hint.width == _nbytes(hint.text):
                return hint
            for slot in self.slots if hint is not None else ():  # stale hint: look again
                if slot.text == text and slot.width == _nbytes(slot.text):
                    self._first[text] = slot
                    return slot
        slot = StrSlot(text)
        self.slots.append(slot)
        self._first.setdefault(text, slot)
        if self._indexed == len(self.slots) - 1:
            self._indexed += 1
        return slot

    def layout(self) -> tuple[bytes, dict[int, int]]:
        """The table's bytes and each slot's offset, keyed by ``id(slot)`` (each slot rendered
        as :meth:`StrSlot.render` does, inline: tables hold tens of thousands of slots)."""
        parts: list[bytes] = []
        offsets: dict[int, int] = {}
        pos = 0
        for slot in self.slots:
            offsets[id(slot)] = pos
            data = slot.text.encode("utf-8", "surrogateescape")
            if slot.width > len(data):  # a rename in place: the old width, zero-filled
                data += bytes(slot.width - len(data))
            parts.append(data)
            pos += len(data) + 1
        # every slot ends in one NUL
        return b"\0".join(parts) + b"\0" if parts else b"", offsets

    def offsets(self) -> dict[int, int]:
        """Each slot's offset, keyed by ``id(slot)``, as :meth:`layout` gives them (without
        rendering the bytes)."""
        offsets: dict[int, int] = {}
        pos = 0
        for slot in self.slots:
            offsets[id(slot)] = pos
            pos += max(slot.width, _nbytes(slot.text)) + 1
        return offsets

    def __iter__(self) -> Iterator[StrSlot]:
        return iter(self.slots)


def split_table(data: bytes) -> list[tuple[int, str, int]]:
    """Split raw table bytes into (offset, text, width) slots, the inverse of rendering.

    A string followed by extra NULs is read as one slot whose tail was zero-filled by an
    in-place rename; a run of NULs with no text before it is a blanked slot. Both render to
    the same bytes, so the split is exact whichever reading is chosen.
    """
    slots: list[tuple[int, str, int]] = []
    pos = 0
    n = len(data)
    if n and data[0] == 0:
        slots.append((0, "", 0))
        pos = 1
    while pos < n:
        end = data.find(b"\0", pos)
        if end < 0:
            end = n  # unterminated tail; the reader reports it before calling us
        text = data[pos:end].decode("utf-8", "surrogateescape")
        stop = end + 1
        while stop < n and data[stop] == 0:
            stop += 1
        # a run of NULs after a string: the string's own zero-filled tail
        slots.append((pos, text, stop - pos - 1))
        pos = stop
    return slots
