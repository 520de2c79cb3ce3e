"""The semantic level: a cubin as the leaf data a compiler knows (issue "semantic builder").

:mod:`.model` holds the data, :mod:`.spec` its versioned JSON form. Building a cubin from it
and decomposing a cubin into it come with the builder.
"""

from .model import DataObject, DebugSection, Function, Module, Relocation, SPEC_VERSION

__all__ = ["DataObject", "DebugSection", "Function", "Module", "Relocation", "SPEC_VERSION"]
