"""Speed guards of the row-wise and reduction examples, read from the SASS
(tests/sass.py, no GPU): the properties that make them fast, so a refactor
that loses one fails here.

* every global access of the data is 128-bit (``x.vec(VEC)`` with 16-byte
  vectors) and there is no scalar load of it;
* the row (``CHUNKS`` vectors a thread) lives in registers: no local memory;
* a block reduction is five butterfly shuffles (``SHFL.BFLY``) per reduced
  value, and the reductions keep UNROLL loads in flight.
"""

import pytest

from examples_index import example_modules
from sass import registers_of, sass_of

EX = example_modules()
PRED = r"^(@!?P\d )?"  # an instruction may be predicated (a masked access)


def ldg128(s):
    return s.count(PRED + r"LDG\.E\.128")


def stg128(s):
    return s.count(PRED + r"STG\.E\.128")


def scalar_global(s):
    """32-bit and narrower global loads and stores."""
    return s.count(PRED + r"(LDG|STG)\.E(\.(U8|S8|U16|S16|CONSTANT))*\s")


@pytest.mark.parametrize(
    "dtype,vec,warps,chunks",
    [
        ("bf16", 8, 4, 2),
        ("f16", 8, 16, 8),
        ("f32", 4, 16, 8),
        ("f32", 4, 1, 8),
        ("f32", 4, 16, 16),  # softmax.WIDE_CONFIGS' widest: 64 values a thread
    ],
)
def test_softmax_rows_keeps_the_row_in_registers_with_128_bit_accesses(
    dtype, vec, warps, chunks
):
    inst = EX["softmax"].softmax_rows.dispatch(
        dtype, VEC=vec, WARPS=warps, ROWS=1, CHUNKS=chunks
    )
    s = sass_of(inst)
    # a block of 32 warps at most fits the registers (16 warps x 16 chunks:
    # 95 a thread, one block an SM)
    assert registers_of(inst) <= 65536 // (32 * warps)
    assert ldg128(s) == chunks and stg128(s) == chunks
    assert scalar_global(s) == 0
    assert s.spills == 0
    assert s.count(r"^SHFL\.BFLY") == 10  # the max and the sum
    # one warp a row: the reductions need no shared memory and no barrier
    assert (s.count(r"^BAR") == 0) == (warps == 1)


def test_softmax_online_reads_and_writes_16_bytes_and_caches_in_shared_memory():
    s = sass_of(EX["softmax"].softmax_online.dispatch("bf16", VEC=8, CACHE=True))
    assert ldg128(s) == 1 and stg128(s) == 1  # one loop each
    assert s.count(r"^STS\.128") == 1 and s.count(r"^LDS\.128") >= 1
    assert scalar_global(s) == 0 and s.spills == 0
    assert s.count(r"^SHFL\.BFLY") == 10


@pytest.mark.parametrize("cache", [True, False])
@pytest.mark.parametrize("dtype,vec", [("bf16", 8), ("f32", 4)])
def test_softmax_online_keeps_unroll_loads_in_flight(dtype, vec, cache):
    inst = EX["softmax"].softmax_online.dispatch(
        dtype, VEC=vec, WARPS=16, CACHE=cache, UNROLL=4
    )
    s = sass_of(inst)
    # UNROLL 128-bit loads a pass (the second pass reads x again uncached)
    assert ldg128(s) == (4 if cache else 8) and stg128(s) == 4
    assert scalar_global(s) == 0 and s.spills == 0
    assert s.count(r"^(LDL|STL)") == 0


@pytest.mark.parametrize("vec,cache", [(4, True), (4, False), (1, True)])
def test_softmax_online_fits_1024_threads_for_float32(vec, cache):
    """softmax.plan launches 32 warps a block for Float32 rows: 64
    registers a thread at most, or the launch fails."""
    mod = EX["softmax"]
    warps = mod.online_warps(4)
    assert warps == 32
    inst = mod.softmax_online.dispatch(
        "f32", VEC=vec, WARPS=warps, CACHE=cache, UNROLL=mod.unroll(vec, 4)
    )
    assert registers_of(inst) <= 65536 // (32 * warps)
    assert sass_of(inst).spills == 0


@pytest.mark.parametrize("dtype,vec", [("bf16", 8), ("f32", 4)])
def test_softmax_split_reads_its_chunk_once_into_shared_memory(dtype, vec):
    s = sass_of(EX["softmax"].softmax_split.dispatch(dtype, VEC=vec))
    assert ldg128(s) == 4  # UNROLL = 4 loads of x, no second read
    assert s.count(r"^(@!?P\d )?STS\.128") == 4 and s.count(r"LDS\.128") >= 1
    assert s.spills == 0 and s.count(r"^(LDL|STL)") == 0


@pytest.mark.parametrize("example", ["layer_norm", "rms_norm"])
@pytest.mark.parametrize("dtype,vec", [("bf16", 8), ("f32", 4)])
def test_wide_norms_read_x_once_into_shared_memory(example, dtype, vec):
    kernel = getattr(EX[example], f"{example}_wide")
    absent = (
        dict(weight=None, bias=None)
        if example == "layer_norm"
        else dict(residual=None, weight=None)
    )
    s = sass_of(kernel.dispatch(dtype, VEC=vec, CACHE=True, **absent))
    # every 128-bit load of x is stored to the cached row (ptxas may unroll
    # the UNROLL = 4 loop further): no second read of memory
    assert ldg128(s) % 4 == 0 and ldg128(s) == s.count(PRED + r"STS\.128")
    assert scalar_global(s) == 0 and s.spills == 0
    assert s.count(r"^(LDL|STL)") == 0


@pytest.mark.parametrize("dtype,vec", [("f16", 8), ("bf16", 8), ("f32", 4)])
def test_layer_norm_loads_x_weight_and_bias_as_vectors(dtype, vec):
    s = sass_of(EX["layer_norm"].layer_norm.dispatch(dtype, VEC=vec, CHUNKS=2))
    assert ldg128(s) == 6 and stg128(s) == 2  # x, weight, bias; y
    assert scalar_global(s) == 0 and s.spills == 0
    assert s.count(r"^SHFL\.BFLY") == 10  # the mean, then the variance


def test_layer_norm_without_weight_and_bias_loads_only_x():
    inst = EX["layer_norm"].layer_norm.dispatch(
        "bf16", weight=None, bias=None, VEC=8, CHUNKS=2
    )
    s = sass_of(inst)
    assert ldg128(s) == 2 and stg128(s) == 2


@pytest.mark.parametrize("residual", [True, False])
def test_rms_norm_is_one_block_sum_and_vector_accesses(residual):
    kwargs = {} if residual else {"residual": None}
    inst = EX["rms_norm"].rms_norm.dispatch("bf16", **kwargs, VEC=8, CHUNKS=2)
    s = sass_of(inst)
    # x (+ residual) and weight; y (+ the updated residual)
    assert ldg128(s) == (6 if residual else 4)
    assert stg128(s) == (4 if residual else 2)
    assert scalar_global(s) == 0 and s.spills == 0
    assert s.count(r"^SHFL\.BFLY") == 5


@pytest.mark.parametrize("name", ["reduce_sum", "reduce_max"])
@pytest.mark.parametrize("dtype,vec", [("f32", 4), ("bf16", 8)])
def test_reductions_keep_unroll_vector_loads_in_flight(name, dtype, vec):
    kernel = getattr(EX["reduce_sum"], name)
    s = sass_of(kernel.dispatch(dtype, VEC=vec, WARPS=8, UNROLL=4))
    # UNROLL loads in the main loop, one in the remainder loop (which ptxas
    # may unroll UNROLL times too: reduce_sum states no_overflow=True, and
    # the f32 remainder loop's bound is plain C++)
    assert ldg128(s) in (4 + 1, 4 + 4 + 1)
    assert s.spills == 0
    assert s.count(r"^SHFL\.BFLY") == 10  # the block's value, then the partials'
    assert s.count(r"^ATOM") == 1  # one counter per block, no atomic on data


@pytest.mark.parametrize("dtype,vec", [("bf16", 8), ("f32", 4), ("f64", 2)])
def test_softmax_backward_reads_y_and_dy_as_vectors_in_registers(dtype, vec):
    inst = EX["softmax"].softmax_rows_backward.dispatch(
        dtype, VEC=vec, WARPS=4, ROWS=1, CHUNKS=2
    )
    s = sass_of(inst)
    assert ldg128(s) == 4 and stg128(s) == 2  # y and dy; dx
    assert scalar_global(s) == 0 and s.spills == 0
    # one sum (a Float64 value moves as two 32-bit shuffles)
    assert s.count(r"^SHFL\.BFLY") == (10 if dtype == "f64" else 5)


@pytest.mark.parametrize("weight", [True, False])
def test_layer_norm_backward_vector_accesses_and_one_f64_atomic_per_sum(weight):
    kwargs = {} if weight else {"weight": None, "grad_weight": None}
    inst = EX["layer_norm"].layer_norm_backward.dispatch(
        "bf16", **kwargs, VEC=8, WARPS=4, ROWS=1, CHUNKS=2
    )
    s = sass_of(inst)
    # x and dy (and weight); dx
    assert ldg128(s) == (6 if weight else 4) and stg128(s) == 2
    assert scalar_global(s) == 0 and s.spills == 0
    assert s.count(r"^SHFL\.BFLY") == 20  # mean, variance, sum(g), sum(g*xhat)
    # each element's dy * xhat and dy: fire-and-forget Float64 reductions
    reds = s.count(PRED + r"REDG\.E\.ADD\.F64")
    assert reds == (2 if weight else 1) * 8 * 2
