"""The CUDA backend: C++ spellings (``cexpr``), emission of IR as readable
CUDA C++ (``emit``), line layout and rendering through the templates."""
