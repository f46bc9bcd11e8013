"""C++ names for Python names: kept when possible, renamed predictably."""

from __future__ import annotations

CPP_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char
    char8_t char16_t char32_t class compl concept const consteval constexpr constinit
    const_cast continue co_await co_return co_yield decltype default delete do double
    dynamic_cast else enum explicit export extern false float for friend goto if
    inline int long mutable namespace new noexcept not not_eq nullptr operator or
    or_eq private protected public register reinterpret_cast requires return short
    signed sizeof static static_assert static_cast struct switch template this
    thread_local throw true try typedef typeid typename union unsigned using virtual
    void volatile wchar_t while xor xor_eq""".split()
)
CUDA_NAMES = frozenset(
    """threadIdx blockIdx blockDim gridDim warpSize kdsl half float2 float4 int2 int4
    dim3 min max abs exp log sqrt sin cos printf malloc free memcpy memset
    atomicAdd kdsl_dynamic_smem""".split()
)


def _mangled(name: str) -> str:
    if name in CPP_KEYWORDS or name in CUDA_NAMES or name.startswith("__"):
        return name + "_"
    return name


def _first_free(base: str, taken) -> str:
    candidate, n = base, 1
    while taken(candidate):
        n += 1
        candidate = f"{base}_{n}"
    return candidate


class Symbols:
    """The C++ names of one generated file: device functions (file scope)
    and every variable of every function, so that neither hides the other
    (``int32_t lane = lane();`` would not compile)."""

    def __init__(self):
        self.functions: set[str] = set()
        self.variables: set[str] = set()

    def function(self, name: str) -> str:
        """A file-scope name for a device function called ``name``."""
        cname = _first_free(
            _mangled(name), lambda c: c in self.functions or c in self.variables
        )
        self.functions.add(cname)
        return cname


class NameTable:
    """Hands out unique C++ identifiers for one function.

    A Python name keeps its spelling unless it is a C++ keyword, a CUDA or
    kdsl name, or starts with an underscore pair; then ``_`` is appended.
    A second C++ variable for the same Python name (in a sibling scope it
    cannot share), or one named like a device function, gets ``_2``, ``_3``
    … — deterministic, by order of use.
    """

    def __init__(self, reserved=(), symbols: Symbols | None = None):
        self.used: set[str] = set(reserved)
        self.symbols = symbols if symbols is not None else Symbols()

    def declare(self, name: str) -> str:
        functions = self.symbols.functions
        candidate = _first_free(
            _mangled(name), lambda c: c in self.used or c in functions
        )
        self.used.add(candidate)
        self.symbols.variables.add(candidate)
        return candidate

    def release(self, cname: str | None) -> None:
        """``cname``'s C++ scope has ended: a later variable may reuse it."""
        self.used.discard(cname)
