"""``kdsl.math``: math functions for kernels, typed per dtype.

Float32 and Float64 call CUDA's ``expf``/``exp`` …; Float16 and BFloat16
compute in float and round the result to their type; integer arguments are
converted to Float32 first.  ``floor``, ``ceil``, ``sqrt``, ``fma``, ``trunc``
and ``round`` are exact (correctly rounded) and fold at compile time; the
transcendental functions are never folded, so a kernel gets the GPU's result
whether its argument is known at compile time or not.
"""

from kdsl.transpile.frontend.lang import Builtin
from kdsl.transpile.core.mathfns import MATH_FUNCTIONS

for _name, _doc in MATH_FUNCTIONS.items():
    globals()[_name] = Builtin(f"math.{_name}", _doc)

__all__ = sorted(MATH_FUNCTIONS)
