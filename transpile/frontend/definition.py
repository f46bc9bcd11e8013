"""What the compiler takes of a kernel: a :class:`KernelDef`.

The runtime's ``@kdsl.kernel`` object holds one (its ``definition``) and
adds dispatch, launching and the interpreter; the pipeline reads nothing
else of it.  The front end recognises a kernel named inside another kernel's
body by it (:func:`definition_of`)."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Callable

from kdsl.transpile.errors import DSLError, error
from kdsl.transpile.frontend.options import KernelOptions, kernel_options
from kdsl.transpile.frontend.parse import parse_function
from kdsl.transpile.frontend.signature import Signature, read_signature
from kdsl.transpile.sites import DefSite


@dataclass(frozen=True, eq=False)
class KernelDef:
    """A kernel's Python function, where it is defined, its signature (dtype
    parameters, constexprs, run-time parameters), its options and whether it
    is a debug build (its assertions compiled in); the parsed function on
    first use (every instance shares it)."""

    fn: Callable
    name: str
    site: DefSite  # where decoration and dispatch errors point
    signature: Signature
    options: KernelOptions
    debug: bool = False

    @classmethod
    def of(
        cls,
        fn,
        *,
        debug: bool = False,
        launch_bounds=None,
        maxrregcount=None,
        contract=False,
        no_overflow=False,
    ) -> "KernelDef":
        """The definition of ``fn``, its options checked (an error points at
        the decorator keyword, else the ``def``)."""
        site, name = DefSite(fn), fn.__name__
        with located(site, "launch_bounds"):
            kernel_options(name, launch_bounds, None)
        with located(site, "contract"):
            kernel_options(name, contract=contract)
        with located(site, "no_overflow"):
            kernel_options(name, no_overflow=no_overflow)
        with located(site, "maxrregcount"):
            options = kernel_options(
                name, launch_bounds, maxrregcount, contract, no_overflow
            )
        signature = read_signature(fn, f"kernel '{name}'")
        bound = (options.launch_bounds or (None,))[0]
        ints = [c.name for c in signature.constexprs if c.spec.kind is int]
        if isinstance(bound, str) and bound not in ints:
            with located(site, "launch_bounds"):
                raise error(
                    "kernel-option",
                    option="launch_bounds",
                    kernel=name,
                    accepted="the name of a Constexpr[int] parameter (it has: "
                    f"{', '.join(ints) or 'none'}) or an int",
                    got=repr(launch_bounds),
                )
        return cls(fn, name, site, signature, options, bool(debug))

    @cached_property
    def parsed(self):
        """The parsed function (``frontend.parse``)."""
        return parse_function(self.fn)


@contextmanager
def located(site: DefSite, keyword=None, param=None):
    """Errors raised inside are located at the decorator's ``keyword=``,
    the parameter ``param``, else the ``def`` name."""
    try:
        yield
    except DSLError as exc:
        raise site.locate(exc, param=param, keyword=keyword) from None


def definition_of(value) -> KernelDef | None:
    """The :class:`KernelDef` that ``value`` holds if it is a kernel
    (``@kdsl.kernel``), else None."""
    definition = getattr(value, "definition", None)
    return definition if isinstance(definition, KernelDef) else None
