"""String tables as ptxas keeps them (unit level, no oracle)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cubinemit.elf.strtab import StringTable, StrSlot, split_table
from cubinemit.errors import ModelError

import pytest


def test_creation_order_and_identical_strings_shared():
    t = StringTable()
    a = t.add("_param")
    t.add(".text.k")
    b = t.add("_param")
    assert a is b
    data, off = t.layout()
    assert data == b"\0_param\0.text.k\0"
    assert off[id(a)] == 1


def test_suffix_is_never_shared():
    t = StringTable()
    t.add("abc")
    bc = t.add("bc")
    data, off = t.layout()
    assert data == b"\0abc\0bc\0"
    assert off[id(bc)] == 5


def test_section_names_are_never_shared_even_if_equal():
    t = StringTable()
    first = t.add(".rel.text.k", share=False)
    second = t.add(".rel.text.k", share=False)
    assert first is not second
    assert t.layout()[0] == b"\0.rel.text.k\0.rel.text.k\0"


def test_rename_in_place_zero_fills_the_tail():
    t = StringTable()
    s = t.add(".nv.constant.pic")
    t.add("x")
    s.rename_in_place(".nv.constant4")
    assert t.layout()[0] == b"\0.nv.constant4\0\0\0\0x\0"


def test_rename_that_does_not_fit_is_refused():
    s = StrSlot(".nv.constant4")
    with pytest.raises(ModelError, match="does not fit"):
        s.rename_in_place(".nv.constant.user")


def test_blank_keeps_the_width():
    t = StringTable()
    s = t.add(".nv.reservedSmem.cap")
    s.blank()
    assert t.layout()[0] == b"\0" + bytes(21)


@given(st.lists(st.text(alphabet=st.characters(min_codepoint=1, max_codepoint=0x7F), min_size=1, max_size=12), max_size=20))
def test_split_is_the_inverse_of_render(strings):
    t = StringTable()
    for s in strings:
        t.add(s, share=False)
    data, _ = t.layout()
    slots = split_table(data)
    rebuilt = b"".join(StrSlot(text, width).render() for _, text, width in slots)
    assert rebuilt == data


def test_strings_of_a_read_table_are_shared():
    """A table filled slot by slot (as the reader does) still shares identical strings."""
    t = StringTable(slots=[StrSlot(""), StrSlot("_param"), StrSlot(".text.k")])
    assert t.add("_param") is t.slots[1]
    assert t.add("new") is t.slots[3]
    assert t.add("new") is t.slots[3]
