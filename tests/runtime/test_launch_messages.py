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


# -- item 7: a kernel that declares its block size ----------------------------------


@kdsl.kernel(block="BLOCK")
def tied(x: Pointer[D], n: Int32, BLOCK: Constexpr[int] = 64):
    i = block_idx.x * BLOCK + thread_idx.x
    if i < n:
        x[i] = x[i] + 1


@kdsl.kernel(block=32)
def strided(x: Pointer[D], n: Int32):
    i = block_idx.x * kdsl.block_dim.x + thread_idx.x
    while i < n:
        x[i] = x[i] + 1
        i += kdsl.block_dim.x * kdsl.grid_dim.x


def test_a_tied_kernel_launches_with_its_block_on_the_cpu():
    n = 300
    x = np.zeros(n, np.float32)
    tied.interpret[(n + 63) // 64](x, n)
    assert (x == 1).all()
    tied.interpret[(n + 127) // 128](x, n, BLOCK=128)  # the block follows BLOCK
    assert (x == 2).all()
    tied.dispatch("f32", 32).interpret[(n + 31) // 32](x, n)
    assert (x == 3).all()
    tied.interpret[(n + 63) // 64, 64](x, n)  # the same block, spelt out
    assert (x == 4).all()


def test_a_block_that_disagrees_with_the_declared_one_is_refused():
    x = np.zeros(300, np.float32)
    with pytest.raises(kdsl.LaunchError) as info:
        tied.interpret[3, 128](x, 300)
    assert info.value.code == "E506"
    assert info.value.message == (
        "kernel 'tied' is declared with block=\"BLOCK\": a block has BLOCK = 64 "
        "threads, got block (128, 1, 1) (128 threads); launch it as "
        "tied[grid](...) and the block follows BLOCK"
    )
    assert (x == 0).all()  # nothing ran
    with pytest.raises(kdsl.LaunchError, match="BLOCK = 128 threads"):
        tied.interpret[3, 64](x, 300, BLOCK=128)


def test_the_gpu_path_checks_the_block_before_saying_there_is_no_gpu(no_gpu):
    x = np.zeros(300, np.float32)
    with pytest.raises(kdsl.LaunchError) as info:
        tied[3, 128](x, 300)
    assert info.value.code == "E506"
    with pytest.raises(kdsl.NoDeviceError):
        tied[3](x, 300)
    with pytest.raises(kdsl.NoDeviceError):
        tied[3, 64](x, 300)


def test_a_default_block_is_used_by_grid_only_launches():
    n = 100
    x = np.zeros(n, np.float32)
    strided.interpret[2](x, n)
    assert (x == 1).all()
    strided.interpret[1, 8](x, n)  # any block: the kernel reads block_dim
    assert (x == 2).all()


def test_a_two_dimensional_grid_alone_is_written_as_a_one_tuple():
    x = np.zeros(300, np.float32)
    tied.interpret[(5, 1),](x, 300)
    assert (x == 1).all()


def test_a_grid_only_launch_of_a_kernel_without_a_declared_block():
    x = np.zeros(10, np.float32)
    with pytest.raises(kdsl.LaunchError) as info:
        add_one.interpret[1](x, 10)
    assert "add_one.interpret[grid, block](...)" in str(info.value)
    assert "@kdsl.kernel(block=" in str(info.value)


@pytest.mark.parametrize(
    "block, words",
    [
        (
            "BLOK",
            "'BLOK' is not a Constexpr[int] parameter of 'bad'; it has: BLOCK",
        ),
        (
            "FLAG",
            "'FLAG' is not a Constexpr[int] parameter of 'bad'; it has: BLOCK",
        ),
        (0, "got 0"),
        (2048, "got 2048"),
        (1.5, "got 1.5"),
    ],
)
def test_the_block_option_is_checked_at_decoration(block, words):
    with pytest.raises(kdsl.DSLError) as info:

        @kdsl.kernel(block=block)
        def bad(
            x: Pointer[D], BLOCK: Constexpr[int] = 64, FLAG: Constexpr[bool] = False
        ):
            x[0] = x[0]

    assert info.value.code == "E125"
    assert words in info.value.message, info.value.message
    assert "block=" in str(info.value).splitlines()[1]


def test_a_real_launch_with_no_visible_gpu(tmp_path):
    """CuPy's own failure, not a fake: no GPU is visible to the process (on
    this machine there is none; on a GPU machine CUDA_VISIBLE_DEVICES hides
    it)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("cupy")
    script = tmp_path / "launch.py"
    script.write_text(
        "import numpy as np, kdsl\n"
        "from vector_add import vector_add\n"
        "x = np.zeros(8, np.float32)\n"
        "try:\n"
        "    vector_add[1](x, x, x, 8)\n"
        "except kdsl.NoDeviceError as e:\n"
        "    print(e)\n"
    )
    examples = Path(__file__).resolve().parents[2] / "examples"
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONPATH=str(examples))
    env.pop("KDSL_INTERPRET", None)
    result = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert text.startswith("error[E503]: kernel 'vector_add' cannot launch"), text
    assert "vector_add.interpret[grid, block](...)" in text
    assert "KDSL_INTERPRET=1" in text
