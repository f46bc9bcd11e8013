"""kdsl's examples as PyTorch operators (docs/pytorch.md): each is a plain
function that allocates its output and launches the example's kernel, made an
operator by ``kdsl.torch.op``; the gradient comes from the kernel's
``backward=`` pairing.

    import torch
    from examples.pytorch.ops import gelu
    y = torch.compile(lambda t: gelu(t) * 2, fullgraph=True)(x)

On CPU tensors the kernels run in kdsl's interpreter.
"""

import sys
from pathlib import Path

import torch

import kdsl.torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the examples
import gelu as _gelu  # noqa: E402


@kdsl.torch.op("kdsl_examples::gelu")
def gelu(x: torch.Tensor) -> torch.Tensor:
    """GELU (tanh approximation), tuned per size; backward: gelu_backward."""
    y = torch.empty_like(x)
    _gelu.launch_gelu(x.contiguous(), y)
    return y
