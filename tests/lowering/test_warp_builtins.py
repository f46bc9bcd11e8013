"""Warp collectives with masks (builtins/warp.py): what the generated CUDA
reads like, what each call accepts, and that NVRTC compiles every one."""

import pytest

import kdsl
import warp_kernels as W
from kdsl.runtime.nvrtc import compile_to_cubin
from kdsl.transpile import builtins
from snippets import make_kernel

INSTANCES = [
    (k, combination)
    for k in (
        W.shuffles,
        W.warp_scan,
        W.votes,
        W.active,
        W.matches,
        W.reductions,
        W.warp_exchange,
    )
    for combination in k.combinations()
]


def body(inst) -> str:
    return inst.source.split('extern "C"')[1]


@pytest.mark.parametrize(
    "kernel, combination", INSTANCES, ids=lambda v: getattr(v, "name", str(v))
)
def test_nvrtc_compiles_every_warp_collective(kernel, combination):
    inst = kernel.dispatch(*combination)
    compile_to_cubin(inst.source, inst.name)


def test_the_default_mask_is_the_full_warp_spelled_as_before():
    src = body(W.shuffles.dispatch(kdsl.Int32))
    assert "__shfl_up_sync(0xffffffffu, v, d, 32)" in src
    assert "__shfl_up_sync(0xffffffffu, v, d, 8)" in src
    assert "__shfl_down_sync(0xffffffffu, v, d, 16)" in src
    assert "__shfl_xor_sync(0xffffffffu, v, d, 4)" in src
    assert "__shfl_sync(0xffffffffu, v, d, 2)" in src


def test_a_static_mask_reads_in_hexadecimal():
    src = body(W.shuffles.dispatch(kdsl.Int32))
    assert "__shfl_up_sync(0xffffu, v, d, 32)" in src
    assert "__shfl_xor_sync(0xffffu, v, d & 15, 32)" in src
    assert "__shfl_sync(0xffffu, v, d & 15, 16)" in src
    assert "__shfl_down_sync(0xffff0000u, v, d, 32)" in src
    assert "__shfl_sync(0xffff0000u, v, 16 + (d & 15), 32)" in src


def test_votes_matches_and_reductions_read_like_cuda():
    votes = body(W.votes.dispatch())
    assert "__ballot_sync(0xffffffffu, p)" in votes
    assert "uint32_t(__any_sync(0xffffffffu, p) != 0)" in votes
    assert "uint32_t(__all_sync(0xffffffffu, x[i] > (-80)) != 0)" in votes
    assert "__ballot_sync(0x49249249u, p)" in votes
    assert "__activemask()" in body(W.active.dispatch())
    matches = body(W.matches.dispatch(kdsl.Float32))
    assert "__match_any_sync(0xffffffffu, v)" in matches
    assert "__match_any_sync(0xffffff00u, v)" in matches
    assert "uint32_t matched = kdsl::match_all(0xffffffffu, v);" in matches
    assert "uint32_t m = matched;" in matches and "bool ok = matched != 0u;" in matches
    reductions = body(W.reductions.dispatch(kdsl.Int32))
    assert "__reduce_add_sync(0xffffffffu, v)" in reductions
    assert "__reduce_add_sync(group, v)" in reductions
    assert "__reduce_and_sync(0xffffffffu, uint32_t(v))" in reductions  # unsigned
    assert "__reduce_max_sync(0xfff00000u, v)" in reductions


def test_syncwarp_of_the_full_warp_is_plain():
    src = body(W.warp_exchange.dispatch())
    assert "    __syncwarp();\n" in src
    assert "__syncwarp(0xffffu);" in src and "__syncwarp(0xffff0000u);" in src


def test_the_warp_prelude_comes_only_with_match_all():
    assert "KDSL_WARP_H" in W.matches.dispatch(kdsl.Int32).source
    assert "KDSL_WARP_H" not in W.reductions.dispatch(kdsl.Int32).source


@pytest.mark.parametrize(
    "mask, spelled",
    [("m", "m"), ("s", "uint32_t(s)"), ("kdsl.ballot(x[i] > 0)", "__ballot_sync")],
)
def test_a_run_time_mask(tmp_path, mask, spelled):
    k, _ = make_kernel(
        tmp_path,
        f"""
        i = thread_idx.x
        out[i] = kdsl.shfl_down(x[i], 1, mask={mask})
        """,
        params="x: Pointer[Int32], out: Pointer[Int32], m: kdsl.Uint32, s: Int32",
        dtypes="None",
    )
    src = body(k.dispatch())
    assert f"__shfl_down_sync({spelled}" in src
    compile_to_cubin(k.dispatch().source, k.dispatch().name)


# -- what the calls refuse -----------------------------------------------------------------
BAD = [
    ("v = kdsl.ballot(x[i] > 0, mask=1 << 40)", "E242", "0x10000000000"),
    ("v = kdsl.ballot(x[i] > 0, mask=True)", "E242", "got bool"),
    ("v = kdsl.ballot(x[i] > 0, mask=n.to(Int64))", "E242", "got Int64"),
    ("v = kdsl.reduce_add_sync(n, mask=0)", "E243", "mask=0 names no lane"),
    ("v = kdsl.all_sync(n)", "E244", "got Int32"),
    ("v = kdsl.ballot(1)", "E244", "got int"),
    ("v = kdsl.match_any(x[i].to(Float16))", "E245", "got Float16"),
    ("v = kdsl.match_any(x[i] > 0)", "E245", "got Boolean"),
    ("v = kdsl.reduce_min_sync(n.to(Int64))", "E246", "got Int64"),
    ("v = kdsl.reduce_xor_sync(x[i])", "E246", "got Float32"),
    ("v = kdsl.shfl_up(x[i], 1, width=0)", "E247", "got 0"),
    ("v = kdsl.shfl_idx(x[i], 1, width=64)", "E247", "got 64"),
    ("v = kdsl.shfl_up(x[i] > 0, 1)", "E234", "got Boolean"),
    ("v = kdsl.activemask(mask=1)", "E207", "'mask'"),
    ("v = kdsl.ballot()", "E203", "takes 1 argument"),
    ("kdsl.syncwarp(1, 2)", "E203", "takes 0 or 1 argument"),
    ("kdsl.syncwarp(1, mask=1)", "E203", "takes 0 argument"),
    ("ok = n > 0 and kdsl.match_all(n)[1]", "E248", "an operand of 'and'"),
    ("ok = n < 2 < kdsl.match_all(n)[0]", "E248", "a chained comparison"),
]


@pytest.mark.parametrize("line, code, says", BAD, ids=[b[0] for b in BAD])
def test_misuse_is_a_located_error(tmp_path, line, code, says):
    k, marked = make_kernel(tmp_path, f"i = thread_idx.x\n{line}  # <-\nout[i] = x[i]")
    with pytest.raises(kdsl.DSLError) as info:
        k.dispatch("f32").source
    assert info.value.code == code, str(info.value)
    assert says in str(info.value)
    assert info.value.span is not None and info.value.span.line == marked


def test_match_all_in_a_while_condition_is_refused(tmp_path):
    k, marked = make_kernel(
        tmp_path,
        """
        i = thread_idx.x
        while kdsl.match_all(n)[1]:  # <-
            n = n + 1
        """,
    )
    with pytest.raises(kdsl.DSLError, match="in a 'while' condition") as info:
        k.dispatch("f32").source
    assert info.value.code == "E248" and info.value.span.line == marked


def test_match_all_in_an_if_condition_is_computed_before_it(tmp_path):
    k, _ = make_kernel(
        tmp_path,
        """
        i = thread_idx.x
        if kdsl.match_all(n)[1]:
            out[i] = x[i]
        """,
    )
    src = body(k.dispatch("f32"))
    assert src.index("kdsl::match_all(0xffffffffu, n)") < src.index("if (matched")


def test_every_warp_collective_takes_a_mask():
    for name, entry in builtins.REGISTRY.items():
        if entry.collective == "warp":
            assert "mask" in entry.keywords, name
            assert "mask=0xffffffff" in entry.doc, name
    assert builtins.get("activemask").collective is None  # no barrier
