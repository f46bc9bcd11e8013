"""The built-ins a kernel can call: one registry entry each (``registry``),
grouped by what they do.  Importing this package registers them all."""

# Each module registers its entries, in the order the reference lists them.
from kdsl.transpile.builtins import threads  # noqa: F401  (isort: skip)
from kdsl.transpile.builtins import warp  # noqa: F401
from kdsl.transpile.builtins import mma  # noqa: F401
from kdsl.transpile.builtins import wgmma  # noqa: F401
from kdsl.transpile.builtins import tma  # noqa: F401
from kdsl.transpile.builtins import atomics  # noqa: F401
from kdsl.transpile.builtins import peers  # noqa: F401
from kdsl.transpile.builtins import bits  # noqa: F401
from kdsl.transpile.builtins import integers  # noqa: F401
from kdsl.transpile.builtins import dotprod  # noqa: F401
from kdsl.transpile.builtins import math  # noqa: F401
from kdsl.transpile.builtins import python  # noqa: F401
from kdsl.transpile.builtins import memory  # noqa: F401
from kdsl.transpile.builtins import cache  # noqa: F401
from kdsl.transpile.builtins import loops  # noqa: F401
from kdsl.transpile.builtins import printing  # noqa: F401
from kdsl.transpile.builtins import facts  # noqa: F401
from kdsl.transpile.builtins.registry import PYTHON_BUILTINS, REGISTRY, Builtin, get
from kdsl.transpile.builtins.lanewise import is_lanewise_call, lower_call, scalar_call


def public() -> dict:
    """The entries installed as ``kdsl.<name>`` (``kdsl.math.*`` and the
    special registers are reached through ``kdsl.math`` and ``thread_idx``
    …; ``min``/``max``/``print`` are Python's)."""
    return {
        name: b
        for name, b in REGISTRY.items()
        if "." not in name and name not in PYTHON_BUILTINS
    }


def math_functions() -> dict:
    """``kdsl.math``'s entries, by function name."""
    return {
        name.split(".", 1)[1]: b
        for name, b in REGISTRY.items()
        if name.startswith("math.")
    }


def reference() -> str:
    """The built-ins as docs/language.md lists them: one line per entry,
    from its doc line, in registration order (by module)."""
    lines = []
    for b in REGISTRY.values():
        if "." in b.name and b.name.split(".")[0] in REGISTRY:
            continue  # a variant of a listed entry (atomic_add.ordered)
        kind = {"special": " (special register)", "syntax": ""}.get(b.kind, "")
        collective = f" — {b.collective}-wide" if b.collective else ""
        lanewise = " (lane-wise on vectors)" if b.lanewise else ""
        lines.append(f"- {b.doc}{lanewise}{kind}{collective}")
    return "\n".join(lines) + "\n"


__all__ = [
    "REGISTRY",
    "Builtin",
    "get",
    "lower_call",
    "scalar_call",
    "is_lanewise_call",
    "public",
    "math_functions",
    "reference",
]
