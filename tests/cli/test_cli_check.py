"""--check (NVRTC, no GPU needed) and the standalone .cu files under nvcc."""

import shutil
import subprocess

import pytest

from clirun import FIXTURES, GOOD_FILES, run_cli, tree

BREAK = "_KDSL_TRANSPILE_TEST_BREAK_AFTER"  # test-only: see transpile/cli_work.py
STATEMENT = "x[i] = x[i] * FACTOR"


def test_check_passes(tmp_path):
    result = run_cli("good", "--check", "-j", "2", "-o", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == (  # the summary, though stderr is not a terminal
        f"5 instance(s) of 3 kernel(s), all compile for sm_90; written to {tmp_path}\n"
    )
    assert set(tree(tmp_path)) == GOOD_FILES | {"manifest.json"}


def test_check_reports_a_compile_failure_at_the_python_line(tmp_path):
    result = run_cli(
        "good/kernels.py",
        "-k",
        "scale",
        "--dtypes",
        "f32",
        "--check",
        "-o",
        tmp_path,
        env={BREAK: STATEMENT},
    )
    assert result.returncode == 1, result.stderr
    lines = (FIXTURES / "good" / "kernels.py").read_text().splitlines()
    number = next(i for i, l in enumerate(lines, 1) if l.strip() == STATEMENT)
    err = result.stderr.splitlines()
    assert err[0].startswith(f"good/kernels.py:{number}:9: error[E502]: NVRTC rejected")
    assert "kdsl_test_undeclared_identifier" in err[0]
    assert err[1] == "    " + lines[number - 1]
    assert err[2] == " " * 12 + "^" * len(STATEMENT)
    assert err[3] == "in instance scale__f32__2p0__128"
    assert err[4].startswith("generated line kernels/scale__f32__2p0__128.cu:")
    assert err[5].strip() == "kdsl_test_undeclared_identifier;"
    assert "NVRTC log:" in err
    assert err[-1] == "1 of 1 instance(s) failed to compile for sm_90"
    # the generated line number is the line in the written file, which the
    # hook leaves alone: it is the line after the statement's comment there
    gen = int(err[4].rsplit(":", 2)[1])
    written = (tmp_path / "kernels" / "scale__f32__2p0__128.cu").read_text()
    assert written.splitlines()[gen - 2].strip() == f"// {STATEMENT}"
    assert "kdsl_test_undeclared_identifier" not in written


def test_check_failure_with_line_directives_names_the_python_line():
    result = run_cli(
        "good/kernels.py",
        "-k",
        "scale",
        "--dtypes",
        "f64",
        "--check",
        "--line-directives",
        env={BREAK: STATEMENT},
    )
    assert result.returncode == 1
    lines = (FIXTURES / "good" / "kernels.py").read_text().splitlines()
    number = next(i for i, l in enumerate(lines, 1) if l.strip() == STATEMENT)
    assert result.stderr.startswith(f"good/kernels.py:{number}:9: error[E502]: ")
    assert f"kernels.py({number}): error" in result.stderr


def test_check_with_another_arch():
    result = run_cli("good/other.py", "--check", "--arch", "sm_80", "-j", "1")
    assert result.returncode == 0, result.stderr


def test_check_rejects_an_arch_nvrtc_does_not_know():
    result = run_cli("good/other.py", "--check", "--arch", "sm_1")
    assert result.returncode == 2
    assert result.stderr.startswith("error[E614]: --arch sm_1: NVRTC cannot compile")


HOST = r"""
#include <cstdint>
#include <cstdio>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

// The generated kernels are extern "C": declare them and launch them.
extern "C" __global__ void scale__f32__2p0__128(float* x, int32_t n);
extern "C" __global__ void copy__bf16(const __nv_bfloat16* src, __nv_bfloat16* dst,
                                      int32_t n);

int main() {
    int32_t n = 1000;
    float* x = nullptr;
    cudaMalloc(&x, n * sizeof(float));
    scale__f32__2p0__128<<<(n + 127) / 128, 128>>>(x, n);
    copy__bf16<<<1, 128>>>(nullptr, nullptr, 0);
    std::printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    cudaFree(x);
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_generated_files_build_with_nvcc_into_a_cpp_program(tmp_path):
    """Standalone: nvcc compiles the .cu files with no kdsl around, and a C++
    program links against them and launches one with <<<grid, block>>>."""
    out = tmp_path / "kernels"
    assert (
        run_cli(
            "good", "-o", out, "-k", "scale,copy", "--dtypes", "f32,bf16"
        ).returncode
        == 0
    )
    host = tmp_path / "host.cu"
    host.write_text(HOST)
    # one nvcc run compiles the three files separately (-c per file would
    # pay nvcc's start three more times) and links them
    sources = [
        out / "kernels" / "scale__f32__2p0__128.cu",
        out / "other" / "copy__bf16.cu",
        host,
    ]
    subprocess.run(
        ["nvcc", "-arch=sm_90", "-fmad=false", *map(str, sources)]
        + ["-o", str(tmp_path / "host")],
        check=True,
        capture_output=True,
        timeout=300,
    )
    assert (tmp_path / "host").exists()
