"""Round trips: cubin -> model -> bytes, compared with the input.

The container level rebuilds every table, offset and header from the model with the ptxas
rules alone: the reader's quirks (a file's own values where it departs from the rules) are
dropped first, so a file only counts as byte-exact if the rules reproduce it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import attrs

from .elf.writer import write
from .errors import CubinemitError
from .inspect import where_in
from .reader import read_cubin

LEVELS = ("container", "semantic")


@attrs.define
class Result:
    path: str
    exact: bool
    first_diff: int | None = None
    where: str | None = None
    error: str | None = None

    def line(self) -> str:
        if self.error is not None:
            if self.error.startswith("not implemented"):
                return f"{self.path}: {self.error}"
            return f"{self.path}: unreadable: {self.error}"
        if self.first_diff is not None:
            return f"{self.path}: first difference at offset {self.first_diff:#x} ({self.where})"
        return f"{self.path}: byte-exact"


def first_difference(a: bytes, b: bytes) -> int | None:
    if a == b:
        return None
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def container_roundtrip(data: bytes) -> bytes:
    """Rebuild ``data`` at container level from the rules alone."""
    return write(read_cubin(data, quirks=False))


def semantic_roundtrip(data: bytes) -> bytes:
    """Decompose ``data`` into leaf data, through the JSON text of its spec, and build it again."""
    import json

    from .semantic.build import build
    from .semantic.decompose import decompose
    from .semantic.spec import from_spec, to_spec

    spec = json.loads(json.dumps(to_spec(decompose(read_cubin(data, quirks=False)))))
    return build(from_spec(spec))


def check_file(path: Path, level: str = "container") -> Result:
    try:
        data = path.read_bytes()
    except OSError as exc:
        return Result(str(path), False, error=exc.strerror or str(exc))
    try:
        rebuilt = container_roundtrip(data) if level == "container" else semantic_roundtrip(data)
    except NotImplementedError as exc:
        return Result(str(path), False, error=f"not implemented at the semantic level: {exc}")
    except CubinemitError as exc:
        return Result(str(path), False, error=str(exc))
    diff = first_difference(rebuilt, data)
    if diff is None:
        return Result(str(path), True)
    # name the place in the input: its own model, quirks kept, lays out exactly as the file
    return Result(str(path), False, diff, where_in(read_cubin(data), diff))


def expand(paths: Iterable[str]) -> Iterator[Path]:
    """Files as given; folders recursively for ``*.cubin``, sorted for a stable report."""
    for p in paths:
        path = Path(p)
        if path.is_dir():
            yield from sorted(q for q in path.rglob("*.cubin") if q.is_file())
        else:
            yield path
