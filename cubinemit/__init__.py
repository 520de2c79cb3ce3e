"""cubinemit: write NVIDIA CUDA cubins byte-for-byte as ptxas 13.0.88 writes them."""

from __future__ import annotations

from .errors import CubinemitError, CubinFormatError, ModelError, ToolchainError

__version__ = "0.1.0.dev0"

__all__ = ["CubinemitError", "CubinFormatError", "ModelError", "ToolchainError", "__version__"]
