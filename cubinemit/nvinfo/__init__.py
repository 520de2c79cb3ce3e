"""CUDA metadata sections of a cubin: ``.nv.info*``, ``.nv.compat``, ``.nv.callgraph``,
``.nv.prototype`` and the ``.note.nv.tkinfo`` / ``.note.nv.cuinfo`` descriptors."""
