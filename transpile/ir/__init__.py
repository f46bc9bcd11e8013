"""kdsl's typed IR: the nodes (``ir.BinOp``, ``ir.For`` …), what a backend of
them is (``backend``) and a printer (``python -m kdsl.transpile.ir``); the
verifier is a pass (``kdsl.transpile.passes.verify``)."""

from kdsl.transpile.ir.nodes import *  # noqa: F401,F403  (the nodes are the package)
