"""GELU (tanh approximation) forward and its backward kernel, paired.

Half-precision inputs are computed in Float32 and rounded once on store.
"""

import kdsl
from kdsl import Constexpr, Float32, Int32, Pointer, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Float)

SQRT_2_OVER_PI = 0.7978845608028654
COEFF = 0.044715


@kdsl.func
def tanh_inner(x):
    return SQRT_2_OVER_PI * (x + COEFF * x * x * x)


@kdsl.kernel
def gelu_backward(
    x: Pointer[D],
    grad_out: Pointer[D],
    grad_in: Pointer[D],
    n: Int32,
    BLOCK: Constexpr[int] = 256,
):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        v = x[i].to(Float32)
        t = kdsl.math.tanh(tanh_inner(v))
        dinner = SQRT_2_OVER_PI * (1.0 + 3.0 * COEFF * v * v)
        dy = 0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * dinner
        grad_in[i] = (grad_out[i].to(Float32) * dy).to(D)


@kdsl.kernel(backward=gelu_backward)
def gelu(x: Pointer[D], y: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 256):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        v = x[i].to(Float32)
        y[i] = (0.5 * v * (1.0 + kdsl.math.tanh(tanh_inner(v)))).to(D)


if __name__ == "__main__":
    inst = gelu.dispatch("bf16")
    print(inst.source)
    print(inst.backward.source)
