"""kdsl's typed IR: the nodes (``ir.BinOp``, ``ir.For`` …), their verifier and
a printer (``python -m kdsl.transpile.ir``)."""

from kdsl.transpile.ir.nodes import *  # noqa: F401,F403  (the nodes are the package)
