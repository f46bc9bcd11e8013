"""Kernels that contract ``a * b + c`` (``@kdsl.kernel(contract=True)``,
docs/language.md "Contraction"), shared by the golden, SASS and GPU tests
(``tests/golden/features/contract_kernels`` holds their goldens)."""

import kdsl
from kdsl import Constexpr, Float32, Int32, Pointer, block_idx, thread_idx


def nbody_forces(
    pos: Pointer[Float32],
    acc: Pointer[Float32],
    n: Int32,
    soft: Float32,
    BLOCK: Constexpr[int] = 128,
):
    """The acceleration of each body: the sum over every body j of
    ``m_j d / (|d|^2 + soft)^(3/2)``, d = p_j - p_i (pos holds x, y, z, m)."""
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        xi = pos[4 * i]
        yi = pos[4 * i + 1]
        zi = pos[4 * i + 2]
        ax = Float32(0.0)
        ay = Float32(0.0)
        az = Float32(0.0)
        for j in range(n):
            dx = pos[4 * j] - xi
            dy = pos[4 * j + 1] - yi
            dz = pos[4 * j + 2] - zi
            r2 = dx * dx + dy * dy + dz * dz + soft
            inv = kdsl.math.rsqrt(r2)
            s = pos[4 * j + 3] * inv * inv * inv
            ax += dx * s
            ay += dy * s
            az += dz * s
        acc[3 * i] = ax
        acc[3 * i + 1] = ay
        acc[3 * i + 2] = az


# the same function twice: exact, and contracted by kdsl's rule
nbody_exact = kdsl.kernel(block="BLOCK")(nbody_forces)
nbody_contracted = kdsl.kernel(block="BLOCK", contract=True)(nbody_forces)


@kdsl.kernel(contract=True)
def fused(
    x: Pointer[Float32], y: Pointer[Float32], z: Pointer[Float32], out: Pointer[Float32]
):
    """Each rule case, element by element (``out`` holds 4 a thread)."""
    i = thread_idx.x
    out[4 * i] = x[i] * y[i] + z[i]
    out[4 * i + 1] = x[i] * y[i] - z[i]
    out[4 * i + 2] = z[i] - x[i] * y[i]
    out[4 * i + 3] = x[i] * y[i] + z[i] * y[i] + x[i]
