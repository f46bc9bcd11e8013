"""Port of NVIDIA/cuda-samples, ``Samples/5_Domain_Specific/nbody/bodysystemcuda.cu``,
``bodyBodyInteraction``, ``computeBodyAccel`` and ``integrateBodies`` (the
single-precision instance): one all-pairs n-body step.  Positions are
``float4`` (x, y, z, mass); each block stages a tile of positions in
dynamic shared memory, each thread sums the accelerations (``float3``) of
the tile's bodies on its own with ``rsqrtf``, and the thread integrates its
body's velocity and position.

Differences from the original: the softening is a kernel argument (the
sample's ``__constant__ softeningSquared``, set with
``cudaMemcpyToSymbol``); the sample requires the body count to be a
multiple of the block size (a thread past it returns before the tile loop's
barriers, and the last tile is read past the end), while here every thread
of the block takes part, a body past the end is staged as a zero-mass body
at the origin (it adds zero to every acceleration) and only threads with a
body store; the component-wise ``x/y/z`` statements are lane-wise vector
operations (``ai + r * s``) and a ``range_constexpr`` loop over the lanes,
which round the same; the ``#pragma unroll 128`` loop is
``kdsl.range(..., unroll=128)``; ``float`` only (the sample is also
instantiated for ``double``).
"""

import numpy as np

import kdsl
from kdsl import Float32, Float32x3, Float32x4, Int32, Pointer, block_dim, block_idx
from kdsl import thread_idx


@kdsl.func
def body_body_interaction(ai, bi, bj, softening_squared):
    r = Float32x3(bj[0] - bi[0], bj[1] - bi[1], bj[2] - bi[2])
    dist_sqr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2]
    dist_sqr += softening_squared
    inv_dist = kdsl.math.rsqrt(dist_sqr)
    inv_dist_cube = inv_dist * inv_dist * inv_dist
    s = bj[3] * inv_dist_cube
    return ai + r * s


@kdsl.func
def compute_body_accel(
    body_pos, positions, n, num_tiles, shared_pos, softening_squared
):
    acc = Float32x3(0.0)
    for tile in range(num_tiles):
        j = tile * block_dim.x + thread_idx.x
        shared_pos[thread_idx.x] = positions[j] if j < n else Float32x4(0.0)
        kdsl.syncthreads()
        for counter in kdsl.range(block_dim.x, unroll=128):
            acc = body_body_interaction(
                acc, body_pos, shared_pos[counter], softening_squared
            )
        kdsl.syncthreads()
    return acc


@kdsl.kernel
def integrate_bodies(
    new_pos: Pointer[Float32],
    old_pos: Pointer[Float32],
    vel: Pointer[Float32],
    n: Int32,
    delta_time: Float32,
    damping: Float32,
    softening_squared: Float32,
    num_tiles: Int32,
):
    shared_pos = kdsl.dynamic_shared_array(Float32x4)
    index = block_idx.x * block_dim.x + thread_idx.x
    position = old_pos.vec(4)[index] if index < n else Float32x4(0.0)
    accel = compute_body_accel(
        position, old_pos.vec(4), n, num_tiles, shared_pos, softening_squared
    )
    if index < n:
        velocity = vel.vec(4)[index]
        for k in kdsl.range_constexpr(3):
            velocity[k] = (velocity[k] + accel[k] * delta_time) * damping
            position[k] += velocity[k] * delta_time
        new_pos.vec(4)[index] = position
        vel.vec(4)[index] = velocity


# -- benchmark: benchmarks/ports.py against benchmarks/originals/nbody.cu --
BODIES, BLOCK = 16384, 256
STEP = dict(delta_time=0.016, damping=1.0, softening_squared=0.01)


def _bench_setup(cp):
    r = np.random.default_rng(26)
    pos = r.standard_normal((BODIES, 4), dtype=np.float32)
    pos[:, 3] = r.uniform(0.5, 1.5, BODIES)
    vel = r.standard_normal((BODIES, 4), dtype=np.float32)
    return dict(
        pos=cp.asarray(pos),
        vel=cp.asarray(vel),
        new_pos=cp.zeros((BODIES, 4), np.float32),
    )


def _bench_port(a):
    tiles = BODIES // BLOCK
    integrate_bodies[tiles, BLOCK](
        a["new_pos"],
        a["pos"],
        a["vel"],
        BODIES,
        *STEP.values(),
        tiles,
        shared_mem=16 * BLOCK,
    )


def _bench_original(o, a):
    tiles = BODIES // BLOCK
    step = (np.float32(STEP["delta_time"]), np.float32(STEP["damping"]))
    args = (a["new_pos"], a["pos"], a["vel"], np.uint32(0), np.uint32(BODIES))
    o("integrateBodies")(
        (tiles,), (BLOCK,), args + step + (np.int32(tiles),), shared_mem=16 * BLOCK
    )


BENCH = dict(
    source="nbody.cu",
    contract=False,
    size="16384 bodies, 1 step",
    kernels=[(lambda: integrate_bodies.dispatch(), "integrateBodies")],
    setup=_bench_setup,
    port=_bench_port,
    original=_bench_original,
    globals={"softeningSquared": np.float32(STEP["softening_squared"])},
    outputs=("new_pos", "vel"),
    tolerance=None,  # rsqrtf both, the same order, no FMA
)
