"""The built-ins a kernel can call: one registry entry each (``registry``),
grouped by what they do.  Importing this package registers them all."""

from kdsl.transpile.builtins import (  # noqa: F401  (each module registers its entries)
    atomics,
    loops,
    math,
    memory,
    threads,
    warp,
)
from kdsl.transpile.builtins.registry import REGISTRY, Builtin, get, lower_call


def public() -> dict:
    """The entries installed as ``kdsl.<name>`` (``kdsl.math.*`` and the
    special registers are reached through ``kdsl.math`` and ``thread_idx``
    …; ``min``/``max`` are Python's)."""
    return {
        name: b
        for name, b in REGISTRY.items()
        if "." not in name and name not in ("min", "max")
    }


def math_functions() -> dict:
    """``kdsl.math``'s entries, by function name."""
    return {
        name.split(".", 1)[1]: b
        for name, b in REGISTRY.items()
        if name.startswith("math.")
    }


__all__ = ["REGISTRY", "Builtin", "get", "lower_call", "public", "math_functions"]
