"""``kdsl.math``: math functions for kernels, typed per dtype.

Float32 and Float64 call CUDA's ``expf``/``exp`` …; Float16 and BFloat16
compute in float and round the result to their type; integer arguments are
converted to Float32 first.  ``floor``, ``ceil``, ``sqrt``, ``fma``, ``trunc``
and ``round`` are exact (correctly rounded) and fold at compile time; the
transcendental functions are never folded, so a kernel gets the GPU's result
whether its argument is known at compile time or not.  On vectors every
function works lane by lane, each lane with the scalar rules
(``kdsl.math.exp(v)`` for a ``Float32x4`` ``v`` is a ``Float32x4``).  Each
function is its entry of the built-in registry
(``kdsl.transpile.builtins.math``).
"""

from kdsl.transpile.builtins import math_functions

globals().update(math_functions())

__all__ = sorted(math_functions())
