"""What a launch says when it cannot happen: no GPU on this machine (issue
15, item 2), a kernel called like a function (item 5), a block size that
disagrees with the kernel's declared block (item 7)."""

import numpy as np
import pytest

import kdsl
from kdsl import Constexpr, Int32, Pointer, block_idx, thread_idx
from kdsl.runtime import launch

D = kdsl.TypeVar("D", bound=kdsl.Num)


@kdsl.kernel
def add_one(x: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 256):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        x[i] = x[i] + 1


class _NoDriver(RuntimeError):
    """What CuPy raises on a machine without a usable driver."""


@pytest.fixture
def no_gpu(monkeypatch):
    """The device query fails as CuPy's does without a CUDA driver (the real
    one on this machine too, where there is no GPU)."""
    cupy = pytest.importorskip("cupy")

    def get_device():
        raise _NoDriver(
            "cudaErrorInsufficientDriver: CUDA driver version is insufficient "
            "for CUDA runtime version"
        )

    monkeypatch.setattr(cupy.cuda.runtime, "getDevice", get_device)
    monkeypatch.setattr(launch, "_get_device", get_device)
    for attr in ("_instances", "_plans", "_launchers"):
        monkeypatch.setattr(add_one, attr, {})


def test_a_launch_without_a_gpu_points_to_the_interpreter(no_gpu):
    x = np.zeros(10, np.float32)
    with pytest.raises(kdsl.NoDeviceError) as info:
        add_one[1, 256](x, 10)
    assert info.value.code == "E503"
    assert str(info.value) == (
        "error[E503]: kernel 'add_one' cannot launch: no usable CUDA GPU "
        "(cudaErrorInsufficientDriver: CUDA driver version is insufficient for "
        "CUDA runtime version); run it on the CPU with "
        "add_one.interpret[grid, block](...), or set KDSL_INTERPRET=1 to run "
        "every launch there"
    )
    assert isinstance(info.value, RuntimeError)


def test_without_a_gpu_the_arguments_are_checked_first(no_gpu):
    x = np.zeros(10, np.float32)
    with pytest.raises(kdsl.DSLError) as info:
        add_one[1, 256](x)  # n is missing
    assert info.value.code != "E503" and "n" in str(info.value)
    with pytest.raises(kdsl.DSLError) as info:
        add_one[1, 256](x, 10, BLOK=128)
    assert "no constexpr 'BLOK'" in str(info.value)
    with pytest.raises(kdsl.DSLError) as info:
        add_one[1, 2048](x, 10)
    assert "2048 threads" in str(info.value)


def test_the_fast_path_without_a_gpu_says_the_same(no_gpu):
    x = np.zeros(10, np.float32)
    launcher = add_one[1, 256]
    for _ in range(2):
        with pytest.raises(kdsl.NoDeviceError):
            launcher(x, 10)


def test_without_a_gpu_the_interpreter_still_runs(no_gpu):
    x = np.zeros(10, np.float32)
    add_one.interpret[1, 256](x, 10)
    assert (x == 1).all()


@pytest.mark.parametrize(
    "call, how",
    [
        (lambda x: add_one(x, 10), "add_one[grid, block](...)"),
        (lambda x: add_one.interpret(x, 10), "add_one.interpret[grid, block](...)"),
        (
            lambda x: add_one.dispatch("f32")(x, 10),
            "instance[grid, block](...)",
        ),
        (
            lambda x: add_one.dispatch("f32").interpret(x, 10),
            "instance.interpret[grid, block](...)",
        ),
    ],
)
def test_calling_a_kernel_like_a_function_says_how_to_launch_it(call, how):
    x = np.zeros(10, np.float32)
    with pytest.raises(kdsl.LaunchError) as info:
        call(x)
    assert info.value.code == "E504"
    text = str(info.value)
    assert "is launched, not called" in text and how in text, text
    assert isinstance(info.value, TypeError)
