"""The CUDA backend: C++ spellings (``cexpr``), emission of IR as readable
CUDA C++ (``emit``), the integer range analysis that lets it write plain C++
operators (``ranges``), line layout (``doc``, ``layout``) and rendering
through the templates."""
