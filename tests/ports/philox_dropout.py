"""Port of triton-lang/triton, python/tutorials/04-low-memory-dropout.py,
``_seeded_dropout``, with the random numbers of ``tl.rand`` written out as
Triton's python/triton/language/random.py computes them (``philox_impl``,
``philox``, ``randint``, ``uint_to_uniform_float``): Philox-4x32-10 keyed by
the 64-bit seed, counter (offset, 0, 0, 0), the first output word made a
float in [0, 1).  Each element is kept, scaled by 1 / (1 - p), when its
random number exceeds ``p``, else zeroed: the mask is never stored, since
(seed, offset) regenerate it.

One thread per element (Triton's program of BLOCK_SIZE offsets is a block
here, its ``mask=offsets < n`` a guard).
"""

import kdsl
from kdsl import Float32, Int32, Int64, Pointer, Uint32, block_dim, block_idx
from kdsl import thread_idx

PHILOX_KEY_A = Uint32(0x9E3779B9)
PHILOX_KEY_B = Uint32(0xBB67AE85)
PHILOX_ROUND_A = Uint32(0xD2511F53)
PHILOX_ROUND_B = Uint32(0xCD9E8D57)


@kdsl.func
def philox_first_word(c0, c1, c2, c3, k0, k1):
    """Ten Philox rounds on the counter (c0, c1, c2, c3) with key (k0, k1);
    the first word of the result."""
    for _ in kdsl.range_constexpr(10):
        prev_c0, prev_c2 = c0, c2
        c0 = kdsl.umulhi(PHILOX_ROUND_B, prev_c2) ^ c1 ^ k0
        c2 = kdsl.umulhi(PHILOX_ROUND_A, prev_c0) ^ c3 ^ k1
        c1 = PHILOX_ROUND_B * prev_c2
        c3 = PHILOX_ROUND_A * prev_c0
        k0 = k0 + PHILOX_KEY_A
        k1 = k1 + PHILOX_KEY_B
    return c0


@kdsl.func
def uniform(seed, offset):
    """``tl.rand(seed, offset)``: a Float32 in [0, 1)."""
    seed_lo = (seed & 0xFFFFFFFF).to(Uint32)
    seed_hi = ((seed >> 32) & 0xFFFFFFFF).to(Uint32)
    zero = Uint32(0)
    bits = philox_first_word(offset.to(Uint32), zero, zero, zero, seed_lo, seed_hi)
    x = bits.to(Int32)  # the same bits, read as signed
    x = -x - 1 if x < 0 else x
    return x.to(Float32) * Float32(4.6566127342e-10)


@kdsl.kernel
def seeded_dropout(
    x_ptr: Pointer[Float32],
    output_ptr: Pointer[Float32],
    n_elements: Int32,
    p: Float32,
    seed: Int64,
):
    offset = block_idx.x * block_dim.x + thread_idx.x
    if offset < n_elements:
        x = x_ptr[offset]
        random = uniform(seed, offset)
        x_keep = random > p
        output_ptr[offset] = x / (1 - p) if x_keep else Float32(0)
