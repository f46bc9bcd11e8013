"""Dynamic shared memory on the GPU: views cut from more than 48 KB of
dynamic shared memory give the interpreter's bytes (the function's maximum
raised by the launch), the device's maximum works, and one byte more is a
LaunchError with nothing launched."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl.runtime import launch

pytestmark = pytest.mark.gpu
cp = pytest.importorskip("cupy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import dynamic_smem_kernels as K  # noqa: E402

RNG = np.random.default_rng(3)


def _function(kernel):
    """The loaded CuPy function of a kernel launched once on device 0."""
    (plan,) = {id(p): p for p in kernel._plans.values()}.values()
    return plan.function


def _reverse_segments_both_ways(seg, threads, blocks):
    need = K.reverse_segments_bytes(seg, threads)
    x = RNG.standard_normal(seg * blocks).astype(np.float32)
    tags = RNG.integers(-128, 128, seg * blocks).astype(np.int8)
    host = [np.full_like(x, np.nan), np.zeros_like(tags), np.zeros(blocks)]
    K.reverse_segments.interpret[blocks, threads](x, tags, *host, seg, shared_mem=need)
    dev = [cp.asarray(h) for h in host]
    K.reverse_segments[blocks, threads](
        cp.asarray(x), cp.asarray(tags), *dev, seg, shared_mem=need
    )
    cp.cuda.Device().synchronize()
    for h, d in zip(host, dev):
        assert cp.asnumpy(d).tobytes() == h.tobytes()
    return need


def test_views_cut_from_more_than_64_kb_give_the_interpreters_bytes():
    need = _reverse_segments_both_ways(13001, 256, 6)
    assert need == 67056 > 64 * 1024  # Float32, Int8, then 8-aligned Float64
    maximum = launch.function_attribute(
        _function(K.reverse_segments), "MAX_DYNAMIC_SHARED_SIZE_BYTES"
    )
    assert maximum >= need  # raised from CUDA's 48 KB default


def test_smaller_then_larger_sizes_after_the_first():
    for seg in (4000, 20001):  # 22048 bytes, then 102056
        _reverse_segments_both_ways(seg, 256, 3)


def test_a_vector_view_after_a_few_bytes_gives_the_interpreters_bytes():
    x = RNG.standard_normal(256).astype(np.float32)
    host = np.zeros_like(x)
    K.swap_quads.interpret[1, 64](x, host, shared_mem=16 + 64 * 16)
    out = cp.zeros(256, np.float32)
    K.swap_quads[1, 64](cp.asarray(x), out, shared_mem=16 + 64 * 16)
    assert cp.asnumpy(out).tobytes() == host.tobytes()


def test_the_device_maximum_works_and_one_byte_more_is_a_launch_error():
    optin = cp.cuda.runtime.getDeviceProperties(0)["sharedMemPerBlockOptin"]
    x = cp.asarray(RNG.standard_normal(256).astype(np.float32))
    out = cp.zeros(256, np.float32)
    K.swap_quads[1, 64](x, out, shared_mem=16 + 64 * 16)
    static = launch.function_attribute(_function(K.swap_quads), "SHARED_SIZE_BYTES")
    most = optin - static
    out[:] = 0
    K.swap_quads[1, 64](x, out, shared_mem=most)
    cp.cuda.Device().synchronize()
    want = cp.asnumpy(x).reshape(64, 4)[::-1].reshape(-1)
    assert cp.asnumpy(out).tobytes() == want.tobytes()
    out[:] = np.nan
    with pytest.raises(kdsl.LaunchError) as info:
        K.swap_quads[1, 64](x, out, shared_mem=most + 1)
    assert info.value.code == "E471"
    assert f"device 0 allows it at most {most} bytes" in str(info.value)
    cp.cuda.Device().synchronize()
    assert bool(cp.isnan(out).all())  # nothing was launched
