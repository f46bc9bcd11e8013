"""The CUDA backend: C++ spellings (``cexpr``), emission of IR as readable
CUDA C++ (``emit``, given what the passes found: ``kdsl.transpile.passes``),
line layout (``doc``, ``layout``) and rendering through the templates."""
