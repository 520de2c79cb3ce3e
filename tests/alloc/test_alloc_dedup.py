"""The opt-in constant deduplicator: rules and invariants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cubinemit.alloc import Constant, ConstReloc, deduplicate
from cubinemit.errors import ModelError


def c(name: str, data: bytes, align: int = 4, user: bool = False, relocs: tuple[ConstReloc, ...] = ()) -> Constant:
    return Constant(name, data, align, user, relocs)


def test_hashed_widths_alias() -> None:
    r = deduplicate([c("a", b"\1\0\0\0"), c("b", b"\2\0\0\0\0\0\0\0", 8), c("x", b"\1\0\0\0"), c("y", b"\2\0\0\0\0\0\0\0", 8)])
    assert not r.reverted and r.size == 16 and r.original_size == 32
    assert dict(r.aliases) == {"x": "a", "y": "b"}
    assert r.by_name() == {"a": 0, "b": 8, "x": 0, "y": 8} and r.offsets == (0, 8, 0, 8)


def test_compared_widths_and_others() -> None:
    big = bytes(range(1, 17))
    odd = b"\1\2\3"
    r = deduplicate([c("a", big), c("b", odd, 1), c("x", big), c("y", odd, 1), c("z", bytes(range(1, 66)), 1), c("w", bytes(range(1, 66)), 1)])
    assert list(r.aliases) == ["x"]  # 16 bytes compared; 3 and 65 bytes appended


def test_alignment_blocks_an_alias() -> None:
    r = deduplicate([c("p", b"\0", 1), c("a", b"\7\0\0\0", 1), c("b", b"\7\0\0\0", 4), c("q", b"\7\0\0\0", 1)])
    assert dict(r.aliases) == {"q": "a"}
    assert r.offset_of("b") % 4 == 0 and r.offset_of("b") != r.offset_of("a")


def test_zero_user_constants_are_never_aliased() -> None:
    zero = bytes(4)
    r = deduplicate([c("u1", zero, user=True), c("u2", zero, user=True), c("k", zero), c("k2", b"\1\0\0\0"), c("k3", b"\1\0\0\0")])
    assert dict(r.aliases) == {"k": "u1", "k3": "k2"}


def test_relocations_move_with_the_alias() -> None:
    ra, rb = ConstReloc(0, ("text", 0x40)), ConstReloc(0, ("text", 0x80))
    r = deduplicate([c("a", bytes(8), 8, relocs=(ra,)), c("b", bytes(8), 8, relocs=(rb,)), c("x", bytes(8), 8, relocs=(ra,)), c("pad", b"\5" * 8, 8)])
    assert dict(r.aliases) == {"x": "a"}  # b differs by its relocation
    assert r.reloc_offsets[("x", 0)] == 0 and r.reloc_offsets[("b", 0)] == 8
    assert [(m.constant, m.old_offset, m.new_offset) for m in r.moved] == [("x", 16, 0)]


def test_reverted_when_nothing_shrinks() -> None:
    r = deduplicate([c("a", b"\1\0\0\0"), c("b", b"\2\0\0\0")])
    assert r.reverted and not r.aliases and r.size == r.original_size == 8


@pytest.mark.parametrize(
    "consts, message",
    [
        (lambda: [c("a", b"")], "'a': data must be non-empty"),
        (lambda: [c("a", "text")], "'a': data must be non-empty bytes"),
        (lambda: [c("a", b"\0", 3)], "'a': alignment 3"),
        (lambda: [c("a", b"\0", 4.0)], "'a': alignment 4.0"),
        (lambda: [c("", b"\0")], "constant has no name"),
        (lambda: [c("a", b"\0"), c("a", b"\1")], "'a' is declared twice"),
        (lambda: [c("a", b"\0\0", relocs=(ConstReloc(2, "t"),))], "'a': relocation at 2"),
        (lambda: [c("a", b"\0\0", relocs=[ConstReloc(0, "t")])], "'a': relocations must be a tuple"),
        (lambda: [c("a", b"\0\0", relocs=(ConstReloc(0, ["t"]),))], "target \\['t'\\] is not hashable"),
        (lambda: [c("a", b"\0"), ("b", b"\0", 4)], "takes Constant objects, not tuple"),
    ],
)
def test_bad_constants(consts, message) -> None:  # type: ignore[no-untyped-def]
    """Each bad constant is refused with its name, when it is made or when the list is."""
    with pytest.raises(ModelError, match=message):
        deduplicate(consts())


values = st.sampled_from([b"\0\0\0\0", b"\1\0\0\0", b"\2\0\0\0", bytes(8), b"\1" * 8, bytes(range(12)), bytes(range(16)), b"\3", b"\4\5\6", bytes(range(70))])


@st.composite
def constant_lists(draw):  # type: ignore[no-untyped-def]
    out = []
    for i in range(draw(st.integers(0, 40))):
        data = draw(values)
        relocs = tuple(ConstReloc(o, draw(st.sampled_from(["t1", "t2"]))) for o in draw(st.sets(st.integers(0, len(data) - 1), max_size=2)))
        out.append(Constant(f"c{i}", data, draw(st.sampled_from([1, 2, 4, 8, 16])), draw(st.booleans()), relocs if draw(st.booleans()) else ()))
    return out


@settings(max_examples=200, deadline=None)
@given(constant_lists())
def test_dedup_invariants(consts) -> None:  # type: ignore[no-untyped-def]
    r = deduplicate(consts)
    offsets = r.by_name()
    assert r.size <= r.original_size and len(r.data) == r.size  # never grows
    plain = 0
    for k in consts:
        plain += -plain % k.align + len(k.data)
    assert r.original_size == plain  # read when asked, or known from the revert check
    assert r == deduplicate(list(consts))  # deterministic
    for k in consts:
        off = offsets[k.name]
        assert off % k.align == 0
        assert r.data[off : off + len(k.data)] == k.data  # every constant reads its bytes
        for i, rel in enumerate(k.relocs):
            assert r.reloc_offsets[(k.name, i)] == off + rel.offset  # relocations read the same bytes
        if k.is_user and not any(k.data):
            assert k.name not in r.aliases
        if k.name in r.aliases:
            target = next(x for x in consts if x.name == r.aliases[k.name])
            assert (target.data, target.relocs) == (k.data, k.relocs) and offsets[target.name] == off
    placed = sorted(((offsets[k.name], i), k) for i, k in enumerate(consts) if k.name not in r.aliases)
    again = deduplicate([k for _, k in placed])
    assert not again.aliases  # running it again changes nothing
    if not r.reverted:
        assert again.size == r.size and again.data == r.data
