"""A kernel's compile options: ``@kdsl.kernel(launch_bounds=..., maxrregcount=...,
contract=..., no_overflow=...)``.

``launch_bounds`` becomes ``__launch_bounds__(threads, min_blocks)`` on the
kernel's signature (the launch then refuses larger blocks); ``threads`` may
name a ``Constexpr[int]`` parameter, each instance's value (a kernel whose
block size is a configuration's, e.g. a warp-specialised one that sets its
registers with ``setmaxnreg``); ``maxrregcount``
is passed to NVRTC as ``--maxrregcount=N`` and written in the generated
file's header, so that a C++ build can pass it too.
"""

from __future__ import annotations

from dataclasses import dataclass

from kdsl.transpile.errors import error

MAX_THREADS = 1024  # threads a block, every current GPU
MAX_REGISTERS = 255  # registers a thread, every current GPU


@dataclass(frozen=True)
class KernelOptions:
    # (threads,) or (threads, blocks); threads an int, or the name of a
    # Constexpr[int] parameter (each instance's value: ``bounds``)
    launch_bounds: tuple[int | str, ...] | None = None
    maxrregcount: int | None = None
    contract: bool = False  # fuse a * b + c into fma (passes/contract.py)
    # signed + - * never overflow: a stated precondition (passes/ranges.py)
    no_overflow: bool = False

    @property
    def max_threads(self) -> int | None:
        """The most threads a block may have, by ``launch_bounds``; None also
        when they name a constexpr (known per instance: ``bounds``)."""
        if self.launch_bounds is None or isinstance(self.launch_bounds[0], str):
            return None
        return self.launch_bounds[0]

    def bounds(self, constexprs: dict) -> tuple[int, ...] | None:
        """``launch_bounds`` of the instance whose constexprs are ``constexprs``
        (a named threads parameter replaced by its value)."""
        b = self.launch_bounds
        if b is None or not isinstance(b[0], str):
            return b
        return (constexprs[b[0]],) + b[1:]

    def nvrtc_options(self) -> tuple[str, ...]:
        """What NVRTC is passed beyond kdsl's exact options."""
        if self.maxrregcount is None:
            return ()
        return (f"--maxrregcount={self.maxrregcount}",)


def kernel_options(
    kernel: str,
    launch_bounds=None,
    maxrregcount=None,
    contract=False,
    no_overflow=False,
):
    """The options of the kernel ``kernel``, checked."""
    contract = flag_option(kernel, "contract", contract)
    no_overflow = flag_option(kernel, "no_overflow", no_overflow)
    bounds = None
    if launch_bounds is not None:
        bounds = launch_bounds if isinstance(launch_bounds, tuple) else (launch_bounds,)
        if not (
            1 <= len(bounds) <= 2
            and all(_positive_int(b) for b in bounds[1:])
            and (
                bounds[0].isidentifier()
                if isinstance(bounds[0], str)
                else _positive_int(bounds[0]) and bounds[0] <= MAX_THREADS
            )
        ):
            raise error(
                "kernel-option",
                option="launch_bounds",
                kernel=kernel,
                accepted=f"the most threads a block (1 to {MAX_THREADS}, or the "
                "name of a Constexpr[int] parameter) or (threads, min_blocks) "
                "with min_blocks a positive int",
                got=repr(launch_bounds),
            )
    if maxrregcount is not None and not (
        _positive_int(maxrregcount) and maxrregcount <= MAX_REGISTERS
    ):
        raise error(
            "kernel-option",
            option="maxrregcount",
            kernel=kernel,
            accepted=f"the most registers a thread, an int from 1 to {MAX_REGISTERS}",
            got=repr(maxrregcount),
        )
    return KernelOptions(bounds, maxrregcount, contract, no_overflow)


# the Boolean options of a kernel or device function: what True does
FLAGS = {
    "contract": "fuse a * b + c into fma, docs/language.md",
    "no_overflow": "signed + - * never overflow, checked by the interpreter: "
    "docs/language.md",
}


def flag_option(name: str, option: str, value) -> bool:
    """The Boolean option ``option=`` of the kernel or device function
    ``name`` (``FLAGS``)."""
    if not isinstance(value, bool):
        raise error(
            "kernel-option",
            option=option,
            kernel=name,
            accepted=f"True ({FLAGS[option]}) or False",
            got=repr(value),
        )
    return value


def _positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
