"""``kdsl.torch.op(replay=True)`` on the GPU: a replayed call launches the
recorded kernels through their generated packers on PyTorch's current
stream, equals the function's own result bit for bit, and is captured by a
CUDA graph (tests/pytorch/test_replay.py has the rules, on the CPU)."""

import pytest

torch = pytest.importorskip("torch")

from test_fast_path import example_ops, layer_gradients  # noqa: E402

gpu = pytest.mark.gpu


def learnt(op, *args):
    """``op``'s replay function for these arguments, after the calls that
    learn it."""
    op.forget()
    for _ in range(3):
        op(*args)
    (replay,) = op.replays.values()
    assert callable(replay), replay
    return replay


def cases(ops):
    x = torch.randn(64, 1024, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(1024, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(1024, device="cuda", dtype=torch.bfloat16)
    return [
        (ops.gelu, (x,)),
        (ops.softmax, (x,)),
        (ops.layer_norm, (x, w, b, 1e-5)),
        (ops.layer_norm, (x.view(8, 8, 1024), w, None, 1e-5)),
    ]


@gpu
def test_gpu_a_replay_launches_through_the_packers_and_equals_the_function():
    ops = example_ops()
    with torch.no_grad():
        for op, args in cases(ops):
            replay = learnt(op, *args)
            source = replay.__kdsl_source__
            assert "_launch0(" in source
            packer = replay.__globals__["_launch0"]
            assert packer.__code__.co_filename.startswith("<kdsl launch"), source
            for _ in range(3):
                fresh = [
                    torch.randn_like(a) if isinstance(a, torch.Tensor) else a
                    for a in args
                ]
                assert torch.equal(op(*fresh), op.fn(*fresh))
            assert op.replays[next(iter(op.replays))] is replay


@gpu
def test_gpu_a_replay_runs_compiled_where_the_host_can_build_it():
    """runtime/native.c: the call tests the signature and launches in C,
    with the function's result bit for bit (no_grad); a forward that needs a
    gradient gets it through the replay function."""
    from kdsl.runtime import native

    if native.module() is None:
        pytest.skip(f"no compiled replay: {native.why()}")
    ops = example_ops()
    with torch.no_grad():
        for op, args in cases(ops):
            replay = learnt(op, *args)
            assert "_native(inputs)" in replay.__kdsl_source__
            assert len(op.native) == 1
            called = []
            op.fn, fn = (lambda *a: called.append(a)), op.fn  # (must not run)
            try:
                fresh = [
                    [
                        torch.randn_like(a) if isinstance(a, torch.Tensor) else a
                        for a in args
                    ]
                    for _ in range(3)
                ]
                outs = [op(*f) for f in fresh]
            finally:
                op.fn = fn
            assert called == []
            for f, out in zip(fresh, outs):
                assert torch.equal(out, op.fn(*f))


@gpu
def test_gpu_a_replay_runs_on_the_current_stream_and_in_a_cuda_graph():
    ops = example_ops()
    x = torch.randn(64, 1024, device="cuda", dtype=torch.bfloat16)
    with torch.no_grad():
        learnt(ops.gelu, x)
        learnt(ops.softmax, ops.gelu(x))
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            y = ops.softmax(ops.gelu(x))
        stream.synchronize()
        assert torch.equal(y, ops.softmax.fn(ops.gelu.fn(x)))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):  # (a launch off the capture stream fails)
            y = ops.softmax(ops.gelu(x))
        for _ in range(2):
            x.copy_(torch.randn_like(x))
            graph.replay()
            torch.cuda.synchronize()
            assert torch.equal(y, ops.softmax.fn(ops.gelu.fn(x)))


@gpu
def test_gpu_replayed_forward_and_overwritten_gradients_equal_the_operators():
    ops = example_ops()
    x = torch.randn(32, 512, device="cuda", dtype=torch.float32, requires_grad=True)
    w = torch.randn(512, device="cuda", dtype=torch.float32, requires_grad=True)
    for op, args in (
        (ops.gelu, (x,)),
        (ops.softmax, (x,)),
        (ops.layer_norm, (x, w, None, 1e-5)),
    ):
        op.forget()
        g = torch.randn(32, 512, device="cuda")
        inputs = [a for a in args if isinstance(a, torch.Tensor)]
        slow = layer_gradients(op, args, inputs, g)
        for _ in range(5):  # learnt, then replayed
            fast = torch.autograd.grad(op(*args), inputs, g)
            for f, s in zip(fast, slow):  # (w's: sums by atomics, in any order)
                torch.testing.assert_close(f, s, rtol=1e-5, atol=1e-6)
        assert any(callable(v) for v in op.replays.values())
