"""C++ names for Python names: kept when possible, renamed predictably.

This is the one place where a name that reaches C++ is spelled: kernels
(their entry), device functions, constant tables, parameters, variables,
shared and local arrays.  :func:`cpp_identifier` spells one name:

1. NFKC-normalised, as Python compares identifiers (``ｖ`` is ``v``; the
   parser already normalises the kernel's source, this keeps the rule here);
2. in ASCII: a letter with accents loses them (``é`` -> ``e``), a letter of
   another alphabet is spelled by its Unicode name (``π`` -> ``pi``, ``Δ`` ->
   ``Delta``), any other character is ``u`` and its code point in hex
   (``数`` -> ``u6570``) -- Unicode names never change, so neither does this;
3. with ``_`` appended if the result is reserved: a C++ keyword or
   alternative token, a name that NVRTC's headers declare at file scope
   (CUDA's math library, built-in variables, types, macros:
   ``cuda_names.DECLARED``), a namespace the generated code uses (``kdsl``,
   ``std``, ``cuda``, ``cooperative_groups``), kdsl's own macros and
   file-scope helpers (``KDSL_...``, ``kdsl_...``), or the implementation's
   space (``__x``, ``_Pragma``).

Two Python names with one spelling become two C++ names by :class:`Symbols`
and :class:`NameTable` (``_2``, ``_3``, ... in order of use).
"""

from __future__ import annotations

import re
import unicodedata

from kdsl.transpile.frontend.cuda_names import DECLARED

CPP_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char
    char8_t char16_t char32_t class compl concept const consteval constexpr constinit
    const_cast continue co_await co_return co_yield decltype default delete do double
    dynamic_cast else enum explicit export extern false float for friend goto if
    inline int long mutable namespace new noexcept not not_eq nullptr operator or
    or_eq private protected public register reinterpret_cast requires return short
    signed sizeof static static_assert static_cast struct switch template this
    thread_local throw true try typedef typeid typename union unsigned using virtual
    void volatile wchar_t while xor xor_eq restrict main""".split()
)
CUDA_NAMES = frozenset("""threadIdx blockIdx blockDim gridDim warpSize kdsl std cuda nv
    cooperative_groups cub half float2 float4 int2 int4 dim3 min max abs exp log
    sqrt sin cos printf malloc free memcpy memset assert atomicAdd NULL INFINITY NAN
    int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t
    ptrdiff_t intptr_t uintptr_t nullptr_t kdsl_dynamic_smem""".split())
_LETTER = re.compile(r"^[A-Z]+ (SMALL|CAPITAL) LETTER ([A-Z]+)$")


def reserved_names() -> frozenset:
    """Every listed name that :func:`cpp_identifier` renames (the rules for
    ``__``, ``_`` + capital and ``KDSL_`` come on top)."""
    return CPP_KEYWORDS | CUDA_NAMES | DECLARED


def _reserved(name: str) -> bool:
    return (
        name in CPP_KEYWORDS
        or name in CUDA_NAMES
        or name in DECLARED
        or name.startswith(("__", "KDSL_", "kdsl_"))
        or (name[:1] == "_" and name[1:2].isupper())
    )


def _ascii_char(c: str) -> str:
    if c.isascii():
        return c
    base = "".join(
        b for b in unicodedata.normalize("NFKD", c) if not unicodedata.combining(b)
    )
    if base and base.isascii() and (base.replace("_", "a").isalnum()):
        return base
    m = _LETTER.match(unicodedata.name(c, ""))
    if m:
        word = m.group(2).lower()
        return word.capitalize() if m.group(1) == "CAPITAL" else word
    return f"u{ord(c):04x}"


def cpp_identifier(name: str) -> str:
    """The C++ spelling of the Python identifier ``name`` (see the module)."""
    text = unicodedata.normalize("NFKC", name)
    if not text.isascii():
        text = "".join(_ascii_char(c) for c in text)
    if not text.isidentifier():  # cannot happen from a Python identifier
        text = "u" + re.sub(r"\W", "_", text)
    return text + "_" if _reserved(text) else text


def entry_name(instance: str) -> str:
    """The C++ name of a kernel instance's ``__global__`` function (what
    the runtime asks the loaded module for)."""
    return cpp_identifier(instance)


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

    def __init__(self, entry: str | None = None):
        self.entry = entry  # the kernel's own C++ name, a file-scope name too
        self.functions: set[str] = set()
        self.variables: set[str] = set()

    def function(self, name: str) -> str:
        """A file-scope name for a device function (or constant table)
        called ``name``."""
        cname = _first_free(
            cpp_identifier(name),
            lambda c: c in self.functions or c in self.variables or c == self.entry,
        )
        self.functions.add(cname)
        return cname


class NameTable:
    """Hands out unique C++ identifiers for one function.

    A Python name is spelled by :func:`cpp_identifier`.  A second C++ variable for the same Python name (in a sibling scope it
    cannot share), or one named like a device function, gets ``_2``, ``_3``
    … — deterministic, by order of use.
    """

    def __init__(self, reserved=(), symbols: Symbols | None = None):
        self.used: set[str] = set(reserved)
        self.symbols = symbols if symbols is not None else Symbols()

    def declare(self, name: str, own: bool = False) -> str:
        """A C++ name for the Python name ``name``, or with ``own`` for a
        variable of kdsl's own (``kdsl_assert``: spelled as it is)."""
        functions = self.symbols.functions
        candidate = _first_free(
            name if own else cpp_identifier(name),
            lambda c: c in self.used or c in functions,
        )
        self.used.add(candidate)
        self.symbols.variables.add(candidate)
        return candidate

    def release(self, cname: str | None) -> None:
        """``cname``'s C++ scope has ended: a later variable may reuse it."""
        self.used.discard(cname)
