"""examples/attention_tma.py without a GPU: the SASS of its hot loop (HGMMA
with Q and K from shared memory, then with P from registers and V MN-major;
TMA boxes; no spills), its shared memory, the host function's checks and
the interpreter's refusal (E836).  On the GPU: tests/gpu/test_attention_tma_gpu.py."""

import re

import numpy as np
import pytest

import kdsl
from examples_index import example_modules
from sass import sass_of

A = example_modules()["attention_tma"]


@pytest.mark.parametrize(
    "dtype, hgmma, d, shape, causal",
    [
        ("bf16", r"\.BF16", 128, (128, 2, True, 384, False), False),
        ("bf16", r"\.BF16", 64, (128, 4, False, 384, False), True),
        ("bf16", r"\.BF16", 64, (128, 6, True, 384, False), False),
        ("f16", "", 128, (64, 4, True, 384, False), True),
        ("bf16", r"\.BF16", 64, (128, 4, False, 512, False), False),
        ("bf16", r"\.BF16", 64, (128, 6, True, 512, True), True),
        ("f16", "", 64, (192, 4, False, 512, True), False),
    ],
)
def test_the_hot_loop_is_hgmma_from_registers_without_spills(
    dtype, hgmma, d, shape, causal
):
    block_n, stages, overlap, threads, ordered = shape
    inst = A.attention_tma.dispatch(
        dtype, **dict(zip(A.NAMES, shape)), HEAD_DIM=d, CAUSAL=causal
    )
    assert inst.lowered.arch == "sm_90a"
    sass = sass_of(inst)
    # S = Q K^T: d / 16 wgmma, both operands through descriptors (OVERLAP:
    # tile 0's before the loop, then the loop's)
    s_pattern = rf"^HGMMA\.64x{block_n}x16\.F32{hgmma} R\d+, gdesc\[UR\d+\], "
    copies = 2 if overlap else 1
    assert sass.count(s_pattern) == copies * d // 16
    # O += P V: BLOCK_N / 16 wgmma, P from registers, V MN-major (.tnspB)
    # (OVERLAP: the loop's, then the last tile's)
    o_pattern = rf"^HGMMA\.64x{d}x16\.F32{hgmma} R\d+, R\d+, gdesc\[UR\d+\]\.tnspB, "
    assert sass.count(o_pattern) == copies * block_n // 16
    # ptxas kept the wgmma asynchronous (it serialises every one, a wait
    # after each, when registers of one in flight are touched): OVERLAP's
    # loop waits for S with P V of the tile before still in flight (0x1),
    # then for both; every other wait is for a group whole (and one before
    # the first, with none in flight, that keeps O's zeros before it)
    waits = r"^WARPGROUP\.DEPBAR\.LE gsb0, 0x{}\b"
    assert sass.count(waits.format(1)) == (1 if overlap else 0)
    assert sass.count(waits.format(0)) == (4 if overlap else 3)
    # the producer: Q's boxes once, then a K and a V box per 64 x 64
    bm = A.block_m(dict(THREADS=threads))
    boxes = (bm + 2 * block_n) * d // (64 * 64)
    assert sass.count(r"^UTMALDG\.2D\b") == boxes
    # the register split: 24 for the producer, the rest of the SM's 64 K in
    # steps of 8 for the consumers (two: 240, three: 160), none spilled
    consumer = 240 if threads == 384 else 160
    assert 128 * 24 + (threads - 128) * consumer <= 64 * 1024
    assert sass.count(r"^USETMAXREG\.DEALLOC\.CTAPOOL 0x18$") == 1
    assert sass.count(rf"^USETMAXREG\.TRY_ALLOC\.CTAPOOL UP\d, {consumer:#x}$") == 1
    assert sass.spills == 0
    # ORDERED: an mbarrier a consumer, its turn to issue wgmma (4 warps arrive)
    turns = inst.source.count("kdsl::mbarrier_init(&turns[")
    assert turns == (threads // 128 - 1 if ordered else 0)
    used = [int(r) for i in sass.instructions for r in re.findall(r"\bR(\d+)\b", i)]
    assert max(used) < consumer  # (R0 .. R<consumer - 1>)


def test_each_configuration_fits_in_shared_memory():
    for d, shapes in A.SHAPES.items():
        for shape in shapes:
            assert len(shape) == len(A.NAMES) and shape[3] in (384, 512)
            consumers = shape[3] // 128 - 1
            barriers = 8 * (1 + 2 * shape[1] + consumers * shape[4])
            assert A.shared_mem(d, shape) <= 227 * 1024 - barriers
            # every box starts on the 128-byte swizzle's 1024-byte pattern
            assert A.shared_mem(d, shape) % 1024 == 0


def test_the_host_function_checks_the_shapes():
    q = np.zeros((1, 2, 256, 64), np.float16)
    with pytest.raises(ValueError, match="a multiple of 128"):
        A.attention(*[np.zeros((1, 2, 192, 64), np.float16)] * 3)
    with pytest.raises(ValueError, match="head_dim 64 or 128"):
        A.attention(*[np.zeros((1, 2, 256, 96), np.float16)] * 3)
    with pytest.raises(ValueError, match="one shape"):
        A.attention(q, q, np.zeros((1, 2, 128, 64), np.float16))


def test_the_interpreter_refuses_its_tensor_maps():
    out = np.zeros((1, 1, 128, 64), np.float16)
    launch = A.attention_tma.interpret[A.grid(128, 1), A.THREADS]
    with pytest.raises(kdsl.DSLError, match="E836"):
        launch(None, None, None, out, None, 128, 0.125, HEAD_DIM=64, shared_mem=0)
    launch = A.attention_tma.interpret[A.grid(128, 1), 512]  # three consumers
    with pytest.raises(kdsl.DSLError, match="E836"):
        launch(None, None, None, out, None, 128, 0.125, HEAD_DIM=64, THREADS=512)
    # the block follows THREADS (launch_bounds name it)
    with pytest.raises(kdsl.LaunchError, match="E472"):
        launch(None, None, None, out, None, 128, 0.125, HEAD_DIM=64)


def test_the_grid_and_shared_memory_follow_the_consumers():
    three = A.constexprs(64, False, (128, 4, False, 512, False))
    two = A.constexprs(64, False, (128, 4, False, 384, False))
    assert (A.threads(two), A.block_m(two)) == (384, 128)
    assert (A.threads(three), A.block_m(three)) == (512, 192)
    # 1152 = 6 x 192; 1024 leaves a last block of 64 rows of 192
    assert A.grid(1152, 64)(three) == (6, 64) and A.grid(1152, 64)(two) == (9, 64)
    assert A.grid(1024, 96)(three) == (6, 96)
    assert A.config_shared_mem(three) == (192 + 2 * 4 * 128) * 64 * 2
