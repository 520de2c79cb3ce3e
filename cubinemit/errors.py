"""Exceptions raised by cubinemit.

Every error names the offending thing (file offset, section, symbol, attribute) so that a user
can find it in the input without a debugger.
"""

from __future__ import annotations


class CubinemitError(Exception):
    """Base class of every error cubinemit raises on purpose."""


class CubinFormatError(CubinemitError):
    """The input is not a well-formed cubin: truncated, inconsistent or not ELF64/CUDA.

    ``offset`` is the file offset of the problem when one is known (with ``in_section``, an
    offset within the section named by ``where``); ``where`` names the section, table or record
    it was found in.
    """

    def __init__(self, message: str, *, offset: int | None = None, where: str | None = None, in_section: bool = False):
        self.message = message
        self.offset = offset
        self.where = where
        self.in_section = in_section
        parts = []
        if where:
            parts.append(where)
        if offset is not None:
            parts.append(f"{'offset' if in_section else 'file offset'} {offset:#x}")
        prefix = f"{', '.join(parts)}: " if parts else ""
        super().__init__(prefix + message)


class ModelError(CubinemitError):
    """The in-memory model is inconsistent (dangling reference, duplicate name, bad value)."""


class ToolchainError(CubinemitError):
    """ptxas / cuobjdump / nvdisasm missing, of the wrong version, or failing."""


class SectionFormatError(CubinFormatError):
    """A CubinFormatError whose offset counts from the start of the section it names (raised by
    decoders that see one section's bytes; the container layer adds the section's file offset)."""

    def __init__(self, message: str, *, offset: int | None = None, where: str | None = None):
        super().__init__(message, offset=offset, where=where, in_section=True)
