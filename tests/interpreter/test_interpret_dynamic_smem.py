"""Dynamic shared memory in the CPU interpreter: ``shared_mem`` bytes a
block, views that read them as their element type, every access checked
against the view and the launch's size (E407), races logged as for static
shared arrays; and the launch checks (E470, E471) the GPU makes too."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl import Float32, Int32, Pointer, block_dim, block_idx, thread_idx

sys.path.insert(0, str(Path(__file__).parents[1]))
import dynamic_smem_kernels as K  # noqa: E402

RNG = np.random.default_rng(11)
HERE = Path(__file__).name


def reverse_segments_reference(x, tags, seg, blocks, threads):
    out = x.reshape(blocks, seg)[:, ::-1].reshape(-1)
    out_tags = tags.reshape(blocks, seg)[:, ::-1].reshape(-1)
    sums = np.zeros(blocks)
    for b in range(blocks):  # each thread its share, then thread 0 in order
        part = [0.0] * threads
        for i in range(seg):
            part[i % threads] += float(x[b * seg + i])
        for p in part:
            sums[b] += p
    return out, out_tags, sums


@pytest.mark.parametrize("seg,threads", [(37, 8), (64, 32), (101, 16)])
def test_two_carved_views_and_the_rest(seg, threads):
    blocks = 3
    x = RNG.standard_normal(seg * blocks).astype(np.float32)
    tags = RNG.integers(-128, 128, seg * blocks).astype(np.int8)
    out = np.full_like(x, np.nan)
    out_tags = np.zeros_like(tags)
    sums = np.zeros(blocks)
    need = K.reverse_segments_bytes(seg, threads)
    K.reverse_segments.interpret[blocks, threads](
        x, tags, out, out_tags, sums, seg, shared_mem=need
    )
    want = reverse_segments_reference(x, tags, seg, blocks, threads)
    np.testing.assert_array_equal(out, want[0])
    np.testing.assert_array_equal(out_tags, want[1])
    np.testing.assert_array_equal(sums, want[2])  # the same order: the same bits


def test_one_byte_short_is_out_of_bounds_naming_the_view():
    seg, threads = 37, 8
    x, tags = np.zeros(seg, np.float32), np.zeros(seg, np.int8)
    need = K.reverse_segments_bytes(seg, threads)
    with pytest.raises(kdsl.InterpretError) as info:
        K.reverse_segments.interpret[1, threads](
            x, tags, x.copy(), tags.copy(), np.zeros(1), seg, shared_mem=need - 1
        )
    text = str(info.value)
    assert info.value.code == "E407"
    # partial starts at byte 192 (37 * 5 = 185, aligned up to 8): 7 doubles fit
    assert (
        "out-of-bounds store to partial[7] (partial has 7 elements from byte 192 of "
        "the launch's 255 bytes of dynamic shared memory) by thread (7, 0, 0)"
    ) in text
    assert "partial[t] = acc" in text and "dynamic_smem_kernels.py:" in text


@kdsl.kernel
def sized(x: Pointer[Float32], n: Int32, i: Int32):
    head = kdsl.dynamic_shared_array(Float32, n)
    head[i] = x[0]


def test_an_index_past_a_sized_view_is_out_of_bounds():
    x = np.ones(1, np.float32)
    sized.interpret[1, 1](x, 4, 3, shared_mem=16)
    with pytest.raises(kdsl.InterpretError, match=r"head\[4\] \(head has 4 elements\)"):
        sized.interpret[1, 1](x, 4, 4, shared_mem=64)  # the buffer has room
    with pytest.raises(kdsl.InterpretError, match=r"head\[-1\]"):
        sized.interpret[1, 1](x, 4, -1, shared_mem=64)
    with pytest.raises(
        kdsl.InterpretError,
        match=r"head\[2\] \(head has 4 elements from byte 0, but only 2 fit in the "
        r"launch's 8 bytes of dynamic shared memory\)",
    ):
        sized.interpret[1, 1](x, 4, 2, shared_mem=8)


def test_a_view_without_shared_mem_is_a_clear_error():
    x = np.ones(1, np.float32)
    with pytest.raises(kdsl.InterpretError) as info:
        sized.interpret[1, 1](x, 4, 0)
    text = str(info.value)
    assert info.value.code == "E407"
    assert (
        "head[0] (the launch has no dynamic shared memory: pass shared_mem=<bytes> to "
        "the launch)"
    ) in text
    assert text.startswith(f"{Path(__file__)}:")  # located at the store


@kdsl.kernel
def racy(x: Pointer[Float32], out: Pointer[Float32]):
    pad = kdsl.dynamic_shared_array(kdsl.Int8, 5)  # tile starts at byte 8
    tile = kdsl.dynamic_shared_array(Float32)
    t = thread_idx.x
    if t == 0:
        pad[0] = kdsl.Int8(0)
    tile[t] = x[t]
    out[t] = tile[(t + 1) % block_dim.x]  # no syncthreads() in between


def test_a_race_on_a_view_names_the_view_and_its_element():
    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    with pytest.raises(kdsl.InterpretError) as info:
        racy.interpret[1, 8](x, out, shared_mem=64)
    text = str(info.value)
    assert info.value.code == "E450"
    assert (
        "data race on shared array tile[1]: thread (0, 0, 0) of block (0, 0, 0) reads "
        "it and thread (1, 0, 0) of block (0, 0, 0) wrote it"
    ) in text


@kdsl.kernel
def mirrored(x: Pointer[Float32], out: Pointer[Float32]):
    tile = kdsl.dynamic_shared_array(Float32)
    t = thread_idx.x
    i = block_idx.x * block_dim.x + t
    tile[t] = x[i]
    kdsl.syncthreads()
    out[i] = tile[block_dim.x - 1 - t]


def test_blocks_have_their_own_copy_and_barriers_end_race_intervals():
    x = RNG.standard_normal(96).astype(np.float32)
    out = np.zeros_like(x)
    mirrored.interpret[3, 32](x, out, shared_mem=32 * 4)
    np.testing.assert_array_equal(out, x.reshape(3, 32)[:, ::-1].reshape(-1))


def test_a_vector_view_after_a_few_bytes_is_16_byte_aligned():
    x = RNG.standard_normal(256).astype(np.float32)
    out = np.zeros_like(x)
    K.swap_quads.interpret[1, 64](x, out, shared_mem=16 + 64 * 16)
    np.testing.assert_array_equal(out, x.reshape(64, 4)[::-1].reshape(-1))
    with pytest.raises(
        kdsl.InterpretError, match=r"quads\[63\] \(quads has 64 vectors from byte 16"
    ):
        K.swap_quads.interpret[1, 64](x, out, shared_mem=16 + 64 * 16 - 1)


@kdsl.kernel
def histogram(x: Pointer[Int32], counts: Pointer[Int32], n: Int32, bins: Int32):
    local = kdsl.dynamic_shared_array(Int32, bins)
    t = thread_idx.x
    if t < bins:
        local[t] = 0
    kdsl.syncthreads()
    i = block_idx.x * block_dim.x + t
    if i < n:
        kdsl.atomic_add(local, x[i] % bins, 1)
    kdsl.syncthreads()
    if t < bins:
        kdsl.atomic_add(counts, t, local[t])


def test_atomics_on_a_view():
    x = RNG.integers(0, 1000, 900).astype(np.int32)
    counts = np.zeros(12, np.int32)
    histogram.interpret[4, 256](x, counts, 900, 12, shared_mem=12 * 4)
    np.testing.assert_array_equal(counts, np.bincount(x % 12, minlength=12))


def test_the_shared_mem_keyword_reaches_the_interpreter_under_kdsl_interpret(
    monkeypatch,
):
    monkeypatch.setenv("KDSL_INTERPRET", "1")
    x = np.arange(32, dtype=np.float32)
    out = np.zeros_like(x)
    mirrored[1, 32](x, out, shared_mem=128)
    np.testing.assert_array_equal(out, x[::-1])


# -- the launch checks ---------------------------------------------------------------
@pytest.mark.parametrize("bad", [-1, 1.5, True, "64", None])
def test_shared_mem_is_a_non_negative_int(bad):
    x = np.zeros(32, np.float32)
    with pytest.raises(kdsl.LaunchError) as info:
        mirrored.interpret[1, 32](x, x.copy(), shared_mem=bad)
    assert info.value.code == "E470"
    assert f"got {bad!r}" in str(info.value)


def test_numpy_integers_are_sizes_too():
    x = np.arange(32, dtype=np.float32)
    out = np.zeros_like(x)
    mirrored.interpret[1, 32](x, out, shared_mem=np.int64(128))
    np.testing.assert_array_equal(out, x[::-1])


@kdsl.kernel
def with_static(x: Pointer[Float32]):
    fixed = kdsl.shared_array(Float32, 1024)
    extra = kdsl.dynamic_shared_array(Float32)
    fixed[thread_idx.x] = x[thread_idx.x]
    extra[thread_idx.x] = x[thread_idx.x]


def test_more_than_the_largest_gpus_allow_is_refused_before_running():
    x = np.zeros(32, np.float32)
    with_static.interpret[1, 32](x, shared_mem=227 * 1024 - 4096)
    with pytest.raises(kdsl.LaunchError) as info:
        with_static.interpret[1, 32](x, shared_mem=227 * 1024 - 4095)
    assert info.value.code == "E471"
    assert (
        "'with_static' asks for shared_mem=228353 bytes; the interpreter, like the "
        "largest GPUs, allows it at most 228352 bytes of dynamic shared memory "
        "(232448 a block, less 4096 of static shared arrays)"
    ) in str(info.value)
