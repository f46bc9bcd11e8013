"""Configurations checked in child processes, so that one that hangs the
GPU is killed and reported and the others are still checked: used by the
benchmarks whose kernels may deadlock on a bad configuration
(gemm_tma_sweep.py, fp8_bench.py).

The child is ``python -P SCRIPT --smoke-child REPR`` (REPR: the list of
configurations still to check); it prints ``START key``, then ``PASS key`` or
``FAIL key ...`` for each, ``key`` being the configuration's ``repr``."""

from __future__ import annotations

import subprocess
import sys


def checked(todo: list, script: str, timeout: float) -> list:
    """The configurations of ``todo`` that pass in children of ``script``;
    after a hang, the next child goes on with the ones not reported."""
    passed = []
    while todo:
        cmd = [sys.executable, "-P", script, "--smoke-child", repr(todo)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            out, hung = proc.stdout, False
            if proc.returncode:
                print(f"check child exited {proc.returncode}: {proc.stderr[-2000:]}")
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            hung = True
        started, done = None, set()
        for line in out.splitlines():
            kind, _, rest = line.partition(" ")
            key = rest[: rest.index(")") + 1] if ")" in rest else rest
            if kind == "START":
                started = key
            elif kind in ("PASS", "FAIL"):
                print(f"check {line}", flush=True)
                done.add(key)
                if kind == "PASS":
                    passed.append(eval(key))  # noqa: S307 - our own repr
        if hung and started is not None and started not in done:
            print(f"check HUNG {started}: killed after {timeout:.0f} s", flush=True)
            done.add(started)
        left = [c for c in todo if repr(c) not in done]
        if left == todo:  # nothing reported: give up rather than loop
            print(f"check: no result for {left}")
            break
        todo = left
    return passed
