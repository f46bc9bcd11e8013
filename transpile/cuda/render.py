"""Rendering: the file skeleton (jinja2) around the emitted functions."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import jinja2

from kdsl.transpile.cuda.quote import comment


@lru_cache(maxsize=None)
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(
            lambda name: resources.files("kdsl.templates").joinpath(name).read_text()
        ),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["comment"] = comment  # text in a // comment: one line, escaped
    return env


@lru_cache(maxsize=None)
def prelude_part(name: str) -> str:
    """The text of ``templates/prelude/<name>``."""
    return resources.files("kdsl.templates.prelude").joinpath(name).read_text()


def render_file(**fields) -> str:
    return _environment().get_template("kernel.cu.j2").render(**fields)
