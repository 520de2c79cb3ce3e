"""Exceptions raised by cubinemit.

Every error names the offending thing (file offset, section, symbol, attribute) so that a user
can find it in the input without a debugger.
"""

from __future__ import annotations


class CubinemitError(Exception):
    """Base class of every error cubinemit raises on purpose."""


class CubinFormatError(CubinemitError):
    """The input is not a well-formed cubin: truncated, inconsistent or not ELF64/CUDA.

    ``offset`` is the file offset of the problem when one is known; ``where`` names the
    section, table or record it was found in.
    """

    def __init__(self, message: str, *, offset: int | None = None, where: str | None = None):
        self.offset = offset
        self.where = where
        parts = []
        if where:
            parts.append(where)
        if offset is not None:
            parts.append(f"file offset {offset:#x}")
        prefix = f"{', '.join(parts)}: " if parts else ""
        super().__init__(prefix + message)


class ModelError(CubinemitError):
    """The in-memory model is inconsistent (dangling reference, duplicate name, bad value)."""


class ToolchainError(CubinemitError):
    """ptxas / cuobjdump / nvdisasm missing, of the wrong version, or failing."""
