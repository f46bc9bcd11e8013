"""kdsl's examples as PyTorch operators (docs/pytorch.md): each is a plain
function that allocates its output and launches the example's kernel, made an
operator by ``kdsl.torch.op``; the gradient comes from the kernel's
``backward=`` pairing.  gelu, softmax and layer norm say ``replay=True``
(their launches follow from the input shapes: a signature's launches are
replayed without the function) and ``overwrites="grad_x"`` (their backward
kernels write all of it: no zero fill).

    import torch
    from examples.pytorch.ops import attention, gelu, layer_norm, softmax
    y = torch.compile(lambda t: softmax(gelu(t)) * 2, fullgraph=True)(x)
    attention(q, k, v, causal).sum().backward()    # q.grad, k.grad, v.grad

On CPU tensors the kernels run in kdsl's interpreter (all but
``scaled_mm_fp8``: TMA and mbarriers run on an H100/H200 only).
"""

import sys
from pathlib import Path
from typing import Optional

import torch

import kdsl.torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the examples
import attention as _attention_mma  # noqa: E402
import attention_tma as _attention_tma  # noqa: E402
import gelu as _gelu  # noqa: E402
import gemm_fp8 as _gemm_fp8  # noqa: E402
import layer_norm as _layer_norm  # noqa: E402
import softmax as _softmax  # noqa: E402
from block_reduce import itemsize  # noqa: E402


@kdsl.torch.op("kdsl_examples::gelu", replay=True, overwrites="grad_x")
def gelu(x: torch.Tensor) -> torch.Tensor:
    """GELU (tanh approximation), tuned per size; backward: gelu_backward."""
    x = x.contiguous()  # (so is the output: empty_like keeps x's strides)
    y = torch.empty_like(x)
    _gelu.launch_gelu(x, y)
    return y


def _rows(x: torch.Tensor, what: str) -> tuple:
    """``(x as a (rows, cols) view, its output, the output's view)``: the row
    kernels keep a row in registers, up to 16 warps x 8 vectors of 16 bytes.
    A contiguous matrix is its own view (a view is a tensor made per call)."""
    shape = x.shape
    if not shape or x.numel() == 0:
        raise ValueError(f"{what}: expected at least one row, got shape {tuple(shape)}")
    cols = shape[-1]
    widest = _softmax.longest_in_registers(cols, itemsize(x))
    if cols > widest:
        raise ValueError(f"{what}: rows of {cols} elements, at most {widest} here")
    x = x.contiguous()
    y = torch.empty_like(x)  # contiguous, as x now is
    if len(shape) == 2:
        return x, y, y
    return x.view(-1, cols), y, y.view(-1, cols)


@kdsl.torch.op("kdsl_examples::softmax", replay=True, overwrites="grad_x")
def softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dimension (``softmax_rows``, tuned per row
    length); backward: softmax_rows_backward."""
    rows, y, out = _rows(x, "softmax")
    _softmax.softmax(rows, out, online=False)
    return y


@kdsl.torch.op("kdsl_examples::layer_norm", replay=True, overwrites="grad_x")
def layer_norm(
    x: torch.Tensor,
    weight: Optional[torch.Tensor],
    bias: Optional[torch.Tensor],
    eps: float = 1e-5,
) -> torch.Tensor:
    """Layer norm over the last dimension, ``weight``/``bias`` of that length
    or None (``layer_norm``, tuned per row length); backward:
    layer_norm_backward, whose weight and bias gradients, sums over the rows,
    are summed in Float64 and rounded to their dtype."""
    rows, y, out = _rows(x, "layer_norm")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != (x.shape[-1],):
            raise ValueError(
                f"layer_norm: {name} of shape {tuple(t.shape)}, expected ({x.shape[-1]},)"
            )
    _layer_norm.launch(rows, weight, bias, out, eps)
    return y


@kdsl.torch.op("kdsl_examples::attention_lse")
def attention_lse(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(o, lse)``: softmax(q k^T / sqrt(head_dim)) v for (batch, heads,
    seq, head_dim) bf16 or f16 tensors, head_dim 64 or 128, seq a multiple
    of 128, and each row's log-sum-exp (float32, log2 domain).  On CUDA
    tensors the TMA + wgmma forward (examples/attention_tma.py), on CPU
    tensors the mma.sync one (examples/attention.py: the interpreter cannot
    run TMA); backward: their host pairing, examples/attention_backward.py's
    three passes."""
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    o = torch.empty_like(q)
    lse = torch.empty(q.shape[:3], dtype=torch.float32, device=q.device)
    if q.shape[2] % _attention_tma.SEQ_MULTIPLE:  # both need it (the backward)
        raise ValueError(f"attention: seq must be a multiple of 128, got {q.shape[2]}")
    if q.device.type == "cuda":
        _attention_tma.attention(q, k, v, causal, out=o, lse=lse)
    else:
        _attention_mma.attention(q, k, v, causal, out=o, lse=lse)
    return o, lse


def attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False
) -> torch.Tensor:
    """Attention with autograd, like ``F.scaled_dot_product_attention(q, k,
    v, is_causal=causal)`` (attention_lse's output)."""
    return attention_lse(q, k, v, causal)[0]


@kdsl.torch.op("kdsl_examples::scaled_mm_fp8")
def scaled_mm_fp8(
    a: torch.Tensor,
    b: torch.Tensor,
    scale_a: torch.Tensor,
    scale_b: torch.Tensor,
    out_dtype: torch.dtype = torch.bfloat16,
) -> torch.Tensor:
    """``torch._scaled_mm(a, b, scale_a, scale_b, out_dtype=out_dtype)`` on
    an H100/H200 (examples/gemm_fp8.py's scaled_mm, autotuned): float8_e4m3fn
    a (M, K) row-major and b (K, N) column-major, one-element float32
    scales, a bfloat16 or float32 (M, N) result; forward only (fp8 inputs
    take no gradient)."""
    c = torch.empty((a.shape[0], b.shape[1]), dtype=out_dtype, device=a.device)
    # the tensor maps hold the tensors' addresses, which a fake tensor (the
    # operator's shape inference under torch.compile) has not
    if not isinstance(a, torch._subclasses.fake_tensor.FakeTensor):
        _gemm_fp8.scaled_mm(a, b, scale_a, scale_b, c)
    return c
