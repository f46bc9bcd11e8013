"""Run a GPU check in a process of its own, with a timeout: a kernel that
waits forever on an mbarrier (a wrong phase, arrival count or byte count)
cannot be interrupted in-process, and would hang the whole test group.
Used by test_tma_gpu.py and by example_checks.gemm_tma on the GPU."""

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(module: str, check: str, *args, timeout: float = 180) -> str | None:
    """``module.check(*args)`` in a fresh Python (``module`` in tests/gpu);
    None if it passed, else what went wrong (its output, or the hang)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    code = f"import {module} as C; C.{check}(*{args!r})"
    try:
        proc = subprocess.run(
            [sys.executable, "-P", "-c", code],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return (
            f"{check}{args} did not finish in {timeout} s: a kernel waits forever "
            "(an mbarrier phase that never completes: arrival counts, expect_tx "
            "bytes, parities, or a TMA copy that never lands)"
        )
    if proc.returncode != 0:
        return f"{check}{args} failed:\n{proc.stdout[-3000:]}{proc.stderr[-6000:]}"
    return None
