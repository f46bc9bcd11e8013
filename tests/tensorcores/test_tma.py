"""TMA, mbarriers and tensor maps without a GPU: the generated CUDA, what
NVRTC makes of it (sm_90a SASS: UTMALDG, SYNCS), the compile-time errors
(E835, E837-E840), the interpreter's refusal (E836, E362), the host-side
checks of kdsl.tensor_map (E841-E846), and the warp-specialised GEMM's hot
loop (examples/gemm_tma.py).  tests/gpu/test_tma_gpu.py runs them."""

import sys
from pathlib import Path

import numpy as np
import pytest

import kdsl
from kdsl import BFloat16, Float32, Int32, Pointer, Uint32, Uint64, thread_idx
from kdsl.runtime import tensormap
from kdsl.runtime.arrays import ArrayInfo

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import tma_kernels as T  # noqa: E402
from examples_index import example_modules  # noqa: E402
from sass import sass_of  # noqa: E402

G = example_modules()["gemm_tma"]
MM = example_modules()["matmul"]


# -- the generated code ------------------------------------------------------------
def test_a_tensor_map_is_a_grid_constant_parameter():
    inst = T.box_copy.dispatch("bf16")
    source = inst.source
    assert "const __grid_constant__ kdsl::TensorMap tmap," in source
    assert "struct alignas(64) TensorMap {" in source  # the prelude's tma.h
    for line in (
        "kdsl::mbarrier_init(&bar[0], 1);",
        "kdsl::fence_mbarrier_init();",
        "kdsl::mbarrier_arrive_expect_tx(&bar[0], 8192);",
        "kdsl::tma_load_2d(&box[0], &tmap, x, y, &bar[0]);",
        "kdsl::mbarrier_wait(&bar[0], 0u);",
    ):
        assert line in source
    # the box lands on the 128-byte swizzle's 1024-byte pattern
    assert "extern __shared__ __align__(1024) unsigned char" in source
    assert inst.lowered.arch == "sm_90a"


def test_the_copies_and_barriers_compile_to_tma_and_syncs():
    sass = sass_of(T.box_copy.dispatch("f16"))
    assert sass.count(r"^UTMALDG\.2D\b") == 1
    assert sass.count(r"^SYNCS\.ARRIVE\.TRANS64\b") == 1  # arrive.expect_tx
    assert sass.count(r"^SYNCS\.PHASECHK\.TRANS64\.TRYWAIT\b") >= 1  # try_wait
    sass = sass_of(T.box_move.dispatch("bf16"))
    assert sass.count(r"^UTMALDG\.2D\b") == sass.count(r"^UTMASTG\.2D\b") == 3


@kdsl.func
def wait_for(bars, i):
    kdsl.mbarrier_wait(bars, i, 0)


def test_a_device_function_that_only_waits_takes_the_barriers_writable():
    """kdsl::mbarrier_wait takes a uint64_t*: a function whose barrier array
    is only waited on must not declare it const (NVRTC refused that)."""

    @kdsl.kernel
    def k(p: Pointer[Float32]):
        bars = kdsl.shared_array(Uint64, (2,))
        if thread_idx.x == 0:
            kdsl.mbarrier_init(bars, 1, 1)
            kdsl.fence_mbarrier_init()
        kdsl.syncthreads()
        if thread_idx.x == 0:
            kdsl.mbarrier_arrive(bars, 1)
        wait_for(bars, 1)
        p[thread_idx.x] = 1.0

    inst = k.dispatch()
    assert "void wait_for__s2u64_c1(uint64_t (&bars)[2])" in inst.source
    assert sass_of(inst).count(r"^SYNCS\.PHASECHK\.TRANS64\.TRYWAIT\b") >= 1


def test_the_prelude_part_is_included_only_when_used():
    source = G.gemm_tma.dispatch("bf16").source
    assert source.count("#ifndef KDSL_TMA_H") == 1
    other = example_modules()["gemm_wgmma"].gemm_wgmma.dispatch("bf16").source
    assert "KDSL_TMA_H" not in other


# -- compile-time errors ---------------------------------------------------------------
def _kernel(body):
    """A kernel taking a tensor map ``tm``, a pointer ``p`` and an Int32 ``n``
    whose body is ``body(tm, p, n)``."""

    @kdsl.kernel
    def k(tm: kdsl.TensorMap, p: Pointer[BFloat16], n: Int32):
        bars = kdsl.shared_array(Uint64, (2,))
        words = kdsl.shared_array(Uint32, (2,))
        tile = kdsl.dynamic_shared_array(BFloat16.vec(8), 512)
        body(tm, p, n, bars, words, tile)

    return k


def _fails(kernel, code):
    with pytest.raises(kdsl.DSLError, match=code) as info:
        kernel.dispatch().source
    return str(info.value)


def test_a_barrier_must_be_a_64_bit_shared_element():
    @kdsl.kernel
    def k(p: Pointer[Uint64]):
        words = kdsl.shared_array(Uint32, (2,))
        kdsl.mbarrier_init(words, 0, 1)

    message = _fails(k, "E835")
    assert "kdsl.mbarrier_init(words, 0, 1)" in message  # located, with a caret
    assert "^" in message

    @kdsl.kernel
    def k2(p: Pointer[Uint64]):
        kdsl.mbarrier_arrive(p, 0)  # global memory

    _fails(k2, "E835")


def test_counts_and_parities_must_be_integers():
    @kdsl.kernel
    def k(x: Float32):
        bars = kdsl.shared_array(Uint64, (1,))
        kdsl.mbarrier_wait(bars, 0, x)

    assert "the parity" in _fails(k, "E837")


def test_a_copy_needs_a_tensor_map_parameter():
    @kdsl.kernel
    def k(p: Pointer[BFloat16]):
        bars = kdsl.shared_array(Uint64, (1,))
        tile = kdsl.dynamic_shared_array(BFloat16.vec(8), 512)
        kdsl.tma_load(tile, 0, p, (0, 0), bars, 0)

    assert "pointer 'p'" in _fails(k, "E838")


def test_a_box_goes_to_shared_memory():
    @kdsl.kernel
    def k(tm: kdsl.TensorMap, p: Pointer[BFloat16]):
        bars = kdsl.shared_array(Uint64, (1,))
        kdsl.tma_load(p, 0, tm, (0, 0), bars, 0)

    _fails(k, "E839")


def test_coordinates_are_a_pair():
    @kdsl.kernel
    def k(tm: kdsl.TensorMap, n: Int32):
        bars = kdsl.shared_array(Uint64, (1,))
        tile = kdsl.dynamic_shared_array(BFloat16.vec(8), 512)
        kdsl.tma_load(tile, 0, tm, n, bars, 0)

    _fails(k, "E840")


def test_store_wait_takes_a_compile_time_count():
    @kdsl.kernel
    def k(n: Int32):
        kdsl.tma_store_wait(n)

    _fails(k, "E806")


def test_the_annotation_is_not_a_host_constructor():
    with pytest.raises(kdsl.DSLError, match="E847.*kdsl.tensor_map"):
        kdsl.TensorMap()


# -- the interpreter ----------------------------------------------------------------------
def test_the_interpreter_refuses_a_tensor_map_parameter():
    out = np.zeros(512 * 8, np.float16)
    with pytest.raises(kdsl.DSLError, match="E836") as info:
        T.box_copy.interpret[1, 128](None, out, 0, 0, shared_mem=8192)
    assert "'tmap'" in str(info.value)


def test_the_interpreter_refuses_mbarriers():
    @kdsl.kernel
    def k(p: Pointer[Float32]):
        bars = kdsl.shared_array(Uint64, (1,))
        kdsl.mbarrier_init(bars, 0, 1)
        p[thread_idx.x] = 1.0

    with pytest.raises(kdsl.DSLError, match="E362"):
        k.interpret[1, 32](np.zeros(32, np.float32))


# -- the host side: kdsl.tensor_map's checks ------------------------------------------------
def _info(shape=(256, 128), dtype=BFloat16, strides=None, ptr=1 << 20, device=0):
    strides = strides if strides is not None else (shape[1], 1)
    return ArrayInfo(ptr, dtype, shape, strides, True, device, "cupy")


def test_the_encoding_is_innermost_first():
    enc = tensormap.plan(_info(), (64, 32), 64)
    assert enc == tensormap.Encoding("BFLOAT16", 1 << 20, (128, 256), 256, (32, 64), 64)
    enc = tensormap.plan(_info(strides=(200, 1), dtype=Float32), (16, 32), 128)
    assert enc.row_stride == 800 and enc.box == (32, 16) and enc.data_type == "FLOAT32"


@pytest.mark.parametrize(
    "info, box, swizzle, code",
    [
        (_info(device=None), (64, 64), 128, "E841"),
        (_info(shape=(4, 4, 4), strides=(16, 4, 1)), (4, 4), 0, "E841"),
        (_info(dtype=kdsl.Int8), (64, 64), 128, "E842"),
        (_info(), (64, 64), 96, "E843"),
        (_info(), (64, 64, 1), 128, "E843"),
        (_info(), (300, 64), 128, "E843"),
        (_info(), (64, 4), 0, "E843"),  # 8 bytes a row
        (_info(), (64, 128), 128, "E843"),  # 256 bytes: wider than the swizzle
        (_info(), (64.0, 64), 128, "E843"),
        (_info(strides=(128, 2)), (64, 64), 128, "E844"),
        (_info(shape=(256, 100), strides=(100, 1)), (64, 64), 128, "E844"),
        (_info(ptr=(1 << 20) + 8), (64, 64), 128, "E844"),
    ],
)
def test_bad_maps_are_refused(info, box, swizzle, code):
    with pytest.raises(kdsl.DSLError, match=code):
        tensormap.plan(info, box, swizzle)


def test_building_a_map_without_the_bindings_says_what_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "cuda.bindings", None)
    enc = tensormap.plan(_info(), (64, 64), 128)
    with pytest.raises(kdsl.DSLError, match="E845") as info:
        tensormap._encode(enc)
    assert "cuda-bindings" in str(info.value)


def test_a_launch_takes_only_a_built_map():
    with pytest.raises(kdsl.DSLError, match="E846"):
        tensormap.check_tensor_map("tmap", 0, np.zeros(16, np.uint64))


def test_a_built_map_passes_its_128_bytes_by_value():
    words = np.arange(16, dtype=np.uint64)
    param = words.view("V128")
    arg = tensormap.TensorMapArg(None, _info(), (64, 64), 128, param)
    got = tensormap.check_tensor_map("tmap", 0, arg)
    assert got.shape == (1,) and got.dtype.itemsize == 128
    assert got.tobytes() == words.tobytes()
    assert arg.box_bytes == 64 * 64 * 2
    with pytest.raises(kdsl.DSLError, match="device"):
        tensormap.check_tensor_map("tmap", 1, arg)


# -- the warp-specialised GEMM -----------------------------------------------------------
@pytest.mark.parametrize("edge", [False, True], ids=["whole", "edge"])
@pytest.mark.parametrize("dtype, hgmma", [("bf16", r"\.BF16"), ("f16", "")])
@pytest.mark.parametrize("shape", G.SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_the_tma_gemm_hot_loop(shape, dtype, hgmma, edge):
    bn, stages = shape
    inst = G.gemm_tma.dispatch(dtype, BN=bn, STAGES=stages, EDGE=edge)
    assert inst.lowered.arch == "sm_90a"
    sass = sass_of(inst)
    # the consumers: BK / 16 wgmma of m64nBNk16 a k tile, waiting for the one
    # before; the producer: one TMA box of 64 rows for each 64 rows of A and B^T
    assert sass.count(rf"^HGMMA\.64x{bn}x16\.F32{hgmma}\b") == G.BK // 16
    assert sass.count(r"^WARPGROUP\.DEPBAR\.LE gsb0, 0x1\b") == 1
    # ... and not serialised (ptxas waits after each wgmma when it cannot
    # follow the accumulator, e.g. a wgmma under an `if` inside the loop):
    # one wait for all of them, the tile's last
    assert sass.count(r"^WARPGROUP\.DEPBAR\.LE gsb0, 0x0\b") == 1
    assert sass.count(r"^UTMALDG\.2D\b") == (G.BM + bn) // G.BOX
    assert sass.count(r"^SYNCS\.ARRIVE\.TRANS64\b") >= 2  # expect_tx; the release
    assert sass.count(r"^USETMAXREG\b") == 2  # 40 for the producer, 232 the consumers
    # no copies through registers, nothing spilled
    assert sass.count(r"^LDGSTS\b") == 0
    assert sass.spills == 0


@pytest.mark.parametrize("bn", [128, 256])
def test_split_k_keeps_the_hot_loop_and_stores_float32_pairs(bn):
    # without `arrived`: the partial sums only, for split_sum
    inst = G.gemm_tma.dispatch(
        "bf16", BN=bn, STAGES=4, B_ROW_MAJOR=True, SPLIT=4, arrived=None
    )
    sass = sass_of(inst)
    assert sass.count(rf"^HGMMA\.64x{bn}x16\.F32\.BF16 .*\.tnspB, ") == G.BK // 16
    assert sass.count(r"^UTMALDG\.2D\b") == (G.BM + bn) // G.BOX
    # the unrounded partial sums: a pair of Float32 (8 bytes) for each pair
    # of bf16 the epilogue stores without split-K
    assert sass.count(r"\bSTG\.E\.64\b") == bn // 8 * 2
    assert sass.count(r"F2F|F2FP") == 0  # nothing rounded to bf16
    assert sass.spills == 0


@pytest.mark.parametrize("bn", [128, 256])
def test_split_k_adds_the_slices_in_the_kernel(bn):
    # with `arrived`: the partial pairs stored, one ticket a warp, and the
    # last warp's SPLIT loads of each pair it adds up, rounded once to bf16
    inst = G.gemm_tma.dispatch("bf16", BN=bn, STAGES=4, B_ROW_MAJOR=True, SPLIT=4)
    sass = sass_of(inst)
    assert sass.count(rf"^HGMMA\.64x{bn}x16\.F32\.BF16 .*\.tnspB, ") == G.BK // 16
    assert sass.count(r"\bSTG\.E\.64\b") == bn // 8 * 2
    assert sass.count(r"\bLDG\.E\.64\b") == bn // 8 * 2 * 4
    assert sass.count(r"^ATOMG?\.E\.ADD") == 1
    assert sass.spills == 0
    # the loads of 512 / BN column blocks go out together before their
    # stores (a store between loads keeps the next load from starting: one
    # round trip a pair made the in-kernel sum cost 14 us on the H200)
    ops = [ins.split()[1 if ins.startswith("@") else 0] for ins in sass.instructions]
    memory = [op[0] for op in ops if op.startswith(("LDG", "STG"))]  # L, S
    runs = "".join(memory[memory.index("L") :])
    assert set(runs.split("S")) - {""} == {"L" * (512 // bn * 2 * 4)}
    src = inst.source
    assert (
        src.count("__nv_atomic_fetch_add(&arrived[counter], 1, __NV_ATOMIC_ACQ_REL")
        == 1
    )
    assert "arrived[counter] = 0;" in src  # zero again for the next launch


def test_split_k_is_tried_for_few_tiles_only():
    # decoding: 32 tiles of 128 x 128 (16 of 128 x 256) on 132 SMs
    assert G.splits(16, 4096, 4096, 128, 132) == [1, 2, 3, 4]  # 32 tiles, 64 k tiles
    assert G.splits(16, 4096, 4096, 256, 132) == [1, 2, 3, 4, 6, 8]  # 16 tiles
    assert G.splits(16, 4096, 14336, 128, 132) == [1, 2, 3, 4]
    assert G.splits(1, 4096, 256, 256, 132) == [1]  # 4 k tiles: too few to slice
    assert G.splits(1, 4096, 512, 256, 132) == [1, 2]  # slices of 4 k tiles
    assert G.splits(64, 14336, 4096, 256, 132) == [1, 2]  # 56 tiles
    for shape in ((1009, 4104, 4104), (4096, 4096, 4096)):
        assert G.splits(*shape, 128, 132) == [1]  # a wave of tiles or more
    assert G.most_split(16, 4096, 4096, 132) == 8
    assert G.most_split(4096, 4096, 4096, 132) == 1
    a, b, c = np.zeros((128, 128)), np.zeros((128, 256)), np.zeros((128, 256))
    with pytest.raises(ValueError, match="split-K's split must be one of"):
        G.matmul(a, b, c, (None, None), split=5)
    with pytest.raises(ValueError, match="at most the 2 k tiles, got 3"):
        G.matmul(a, b, c, (None, None), split=3)  # a slice without a k tile


def _config(bn, split):
    return kdsl.Config(BN=bn, STAGES=4, EDGE=True, B_ROW_MAJOR=True, SPLIT=split)


def test_the_two_launch_candidates_are_the_fastest_tile_shape_of_each_split():
    timings = [
        (_config(256, 1), 0.010),  # unsplit: not a two-launch candidate
        (_config(128, 1), 0.009),
        (_config(256, 2), 0.030),
        (_config(128, 2), 0.020),
        (_config(256, 4), 0.015),
        (_config(128, 4), 0.015),  # a tie: the earlier
        (_config(128, 8), None),  # pruned or failed
    ]
    assert G.fastest_per_split(timings) == [_config(128, 2), _config(256, 4)]
    assert G.fastest_per_split(timings[:2]) == []
    assert G.faster([0.05, 0.04, 0.04]) == 1  # a tie: the earlier
    assert G.faster([0.04, 0.05]) == 0  # one launch first: it wins a tie


class _Launches:
    """Stands for gemm_tma and split_sum and the autotuned launch: records
    what would run, in order."""

    def __init__(self):
        self.log = []
        self.grid = lambda m: (m["SPLIT"] * 32,)  # as persistent_grid's

    def __call__(self, *args, **kw):
        self.log.append(("tuned", args[4] is not None, kw.get("shared_mem")))

    def instance_for(self, args, constexprs):  # an instance, then [grid, block]
        def launcher(config):
            def launch(*args, **kw):
                self.log.append((constexprs, config, args, kw))

            return launch

        return type("Instance", (), {"__getitem__": lambda _, cfg: launcher(cfg)})()

    def slice_adder(self, part, c, M, N, split):  # matmul.py's
        grid = (M * N + MM.SUM_THREADS - 1) // MM.SUM_THREADS
        return self.instance_for((part, c, M, N), {"SPLIT": split})[grid]


def test_the_plan_weighs_one_launch_against_each_splits_two(monkeypatch):
    """_faster_sum: both searches run, then one launch and, for each split,
    its fastest kernel followed by split_sum, each timed whole; a call
    costs the longer of its GPU and host times, the cheapest is the plan,
    and a plan of two launches launches the kernel that only stores its
    slices (arrived None), then split_sum."""
    import kdsl.runtime.benchmark as benchmark

    fake = _Launches()
    gpu = iter([0.050, 0.047, 0.046])  # one launch, split 2, split 4
    host = iter([0.020, 0.048, 0.060])  # split 4: the host is the slower

    class FakeTuned:
        def timings(self, *args):
            assert args[4] is None  # the search of the kernel without arrived
            return [(_config(128, 1), 0.01), (_config(128, 2), 0.03),
                    (_config(256, 4), 0.02), (_config(128, 4), 0.025)]  # fmt: skip

    class FakeBench:
        def __init__(self, *args):
            pass

        def time(self, run, warmup, reps):
            fake.log.append("timed")
            run()
            return next(gpu)

        def close(self):
            fake.log.append("closed")

    monkeypatch.setattr(benchmark, "Bench", FakeBench)
    monkeypatch.setattr(G, "host_ms", lambda call: next(host))
    monkeypatch.setattr(G, "gemm_tma", fake)
    monkeypatch.setattr(G, "slice_adder", fake.slice_adder)
    monkeypatch.setattr(G, "workspace", lambda c, f, n: ("part", "arrived"))
    launch, two = G._faster_sum(
        fake, FakeTuned(), ("ma", "mb"), "c", 64, 4096, 14336, 100, 10
    )
    assert two.config == _config(128, 2).constexprs
    sums = (64 * 4096 + MM.SUM_THREADS - 1) // MM.SUM_THREADS
    STORE = ("ma", "mb", "c", "part", None, 64, 4096, 14336)  # no arrived
    stores = [  # the split kernel's instance launch, then split_sum's
        (_config(128, 2).constexprs, ((64,), G.THREADS), STORE,
         {"shared_mem": G.shared_mem(128, 4)}),
        ({"SPLIT": 2}, sums, ("part", "c", 64, 4096), {}),
    ]  # fmt: skip
    assert fake.log == [
        ("tuned", True, G.config_shared_mem),  # the two searches
        ("tuned", False, G.config_shared_mem),
        "timed",
        ("tuned", True, G.config_shared_mem),
        "timed",
        *stores,
        "timed",
        (_config(256, 4).constexprs, ((128,), G.THREADS), STORE,
         {"shared_mem": G.shared_mem(256, 4)}),
        ({"SPLIT": 4}, sums, ("part", "c", 64, 4096), {}),
        "closed",
    ]  # fmt: skip
    # the plan of two launches: the kernel with part and no arrived, then split_sum
    fake.log.clear()
    a, b, c = np.zeros((64, 14336)), np.zeros((14336, 4096)), np.zeros((64, 4096))
    key = (a.shape, b.shape, c.shape, True, None)
    monkeypatch.setitem(G._PLANS, key, (132, launch, 64, 4096, 14336, 100, 10, two))
    monkeypatch.setattr(G, "multiprocessors", lambda: 132)
    G.matmul(a, b, c, maps=("ma", "mb"))
    assert fake.log == [
        (stores[0][0], stores[0][1], ("ma", "mb", c, "part", None, 64, 4096, 14336),
         stores[0][3]),
        ({"SPLIT": 2}, sums, ("part", c, 64, 4096), {}),
    ]  # fmt: skip


@pytest.mark.parametrize("dtype, hgmma", [("bf16", r"\.BF16"), ("f16", "")])
def test_a_row_major_b_is_read_mn_major(dtype, hgmma):
    inst = G.gemm_tma.dispatch(dtype, BN=128, STAGES=6, EDGE=True, B_ROW_MAJOR=True)
    sass = sass_of(inst)
    # B's descriptor transposed (.tnspB), its 64-column blocks 8 KB apart
    assert sass.count(rf"^HGMMA\.64x128x16\.F32{hgmma} .*gdesc\[UR\d+\]\.tnspB, ") == 4
    assert sass.count(r"^UTMALDG\.2D\b") == (G.BM + 128) // G.BOX
    assert sass.spills == 0
    assert "kdsl::wgmma_desc<1, 8192, 1024>(" in inst.source


def test_each_configuration_fits_in_shared_memory():
    for bn, stages in G.SHAPES:
        assert G.shared_mem(bn, stages) <= 227 * 1024 - 2 * 8 * stages


def test_the_launcher_checks_the_shapes():
    a, bt, c = np.zeros((128, 64)), np.zeros((256, 64)), np.zeros((128, 256))
    with pytest.raises(ValueError, match="K a multiple of 8"):
        G.check_shapes(np.zeros((128, 60)), np.zeros((256, 60)), c)
    with pytest.raises(ValueError, match="N even"):
        G.check_shapes(a, np.zeros((255, 64)), np.zeros((128, 255)))
    with pytest.raises(ValueError, match=r"c must be \(128, 256\)"):
        G.check_shapes(a, bt, np.zeros((128, 128)))
    assert G.check_shapes(a, bt, c) == (128, 256, 64)
    # ragged sizes are taken: the EDGE kernel (TMA reads zeros past the ends)
    assert G.check_shapes(
        np.zeros((100, 72)), np.zeros((130, 72)), np.zeros((100, 130))
    )
    assert G.whole_tiles(128, 256, 64) and not G.whole_tiles(100, 256, 64)
    assert not G.whole_tiles(128, 128, 64)  # BN = 256 configurations would not fit
    # b row-major (K, N): N a multiple of 8 (TMA's 16-byte rows of b)
    assert G.check_shapes(a, np.zeros((64, 256)), c, b_row_major=True) == (128, 256, 64)
    with pytest.raises(ValueError, match=r"N and K multiples of 8.*b \(64, 250\)"):
        G.check_shapes(a, np.zeros((64, 250)), np.zeros((128, 250)), b_row_major=True)


def test_the_edge_kernel_masks_its_stores_and_rounds_its_tiles_up():
    src = G.gemm_tma.dispatch("bf16", EDGE=True).source
    full = G.gemm_tma.dispatch("bf16").source
    guard = "if (row < M && col < N) {"  # one a pair of columns, BN / 8 of them
    assert src.count(guard) == 256 // 8 and full.count(guard) == 0
    assert G.tiles(200, 130, 256) == 2 and G.tiles(128, 256, 128) == 2
