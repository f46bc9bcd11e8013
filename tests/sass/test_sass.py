"""Speed guards read from the SASS (tests/sass.py), no GPU needed: the
properties that make the examples fast (docs in each example's docstring)."""

import re

import pytest

import kdsl
from examples_index import example_modules
from kdsl import Array, Constexpr, block_idx, thread_idx
from kdsl.transpile import ir
from kdsl.transpile.cuda.emit import Emitter
from kdsl.transpile.pipeline import _render
from sass import registers_of, sass_of, sass_of_source

D = kdsl.TypeVar("D", bound=kdsl.Float)

EX = example_modules()


def test_float32x4_add_uses_128_bit_global_accesses_and_no_spills():
    sass = sass_of(EX["vector_add"].vector_add_x4.dispatch("f32"))
    assert sass.count(r"^LDG\.E\.128") == 2
    assert sass.count(r"^STG\.E\.128") == 1
    assert sass.count(r"^LDG\.E(\.CONSTANT)?\s") == 0  # no 32-bit loads
    assert sass.spills == 0


def _instances(kernel):
    return [kernel.dispatch(t) for t in kernel.supported_dtypes]


@pytest.mark.parametrize("inst", _instances(EX["vector_add"].add), ids=lambda i: i.name)
def test_add_moves_16_bytes_per_access_for_every_dtype(inst):
    sass = sass_of(inst)
    unroll = inst.constexprs["UNROLL"]
    # UNROLL 16-byte loads of x and of y, UNROLL 16-byte stores
    assert sass.count(r"LDG\.E\.128") == 2 * unroll
    assert sass.count(r"STG\.E\.128") == unroll
    # narrower accesses only in the tail: one load of x, one of y, one store
    assert sass.count(r"LDG\.E(\.U8|\.S8|\.U16|\.S16|\.64)?\s") == 2
    assert sass.count(r"STG\.E(\.U8|\.S8|\.U16|\.S16|\.64)?\s") == 1
    assert sass.spills == 0


def test_add_issues_every_load_before_the_first_store():
    sass = sass_of(EX["vector_add"].add.dispatch("bf16"))
    ops = [i for i in sass.instructions if "LDG" in i or "STG" in i]
    first_store = next(k for k, i in enumerate(ops) if "STG" in i)
    assert sum("LDG.E.128" in i for i in ops[:first_store]) == 8


GELUS = _instances(EX["gelu"].gelu) + _instances(EX["gelu"].gelu_backward)


@pytest.mark.parametrize("inst", GELUS, ids=lambda i: i.name)
def test_gelu_moves_16_bytes_per_access_and_does_not_spill(inst):
    sass = sass_of(inst)
    unroll = inst.constexprs["UNROLL"]
    loads = 2 if inst.kernel.name == "gelu_backward" else 1
    assert sass.count(r"LDG\.E\.128") == loads * unroll
    assert sass.count(r"STG\.E\.128") == unroll
    assert sass.spills == 0


def test_bf16_gelu_stays_short():
    # The arithmetic bounds bf16 GELU: accurate tanhf (one EX2, one RCP per
    # element, 8 lanes x UNROLL 2 + the scalar tail) and no division
    # slow path. 456 instructions on CUDA 12.x; a formulation with a
    # division or a second transcendental is far above.
    sass = sass_of(EX["gelu"].gelu.dispatch("bf16"))
    assert sass.count(r"^MUFU\.EX2") == 17
    assert sass.count(r"^MUFU\.RCP") == 17
    assert sass.count(r"FCHK") == 0
    assert len(sass.instructions) < 520


# sgemm and sgemm_vec as launched: into c, and split-K into part's slices
PARTS = {"c": {"part": None}, "split-k": {}}


@pytest.mark.parametrize("part", PARTS)
def test_sgemm_is_register_tiled_with_128_bit_shared_reads_and_no_spills(part):
    sass = sass_of(EX["matmul"].sgemm.dispatch("f32", **PARTS[part]))
    # the unrolled BK = 8 loop: 8 x 8 x 8 fused multiply-adds fed by four
    # Float32x4 shared reads per k (two of a's column, two of b's row)
    assert sass.count(r"^FFMA\s") == 512
    assert sass.count(r"^LDS\.128") == 32
    # tile 0 and the double-buffered next tile: one 16-byte store each of a, b
    assert sass.count(r"^STS\.128") == 4
    assert sass.count(r"^(HMMA|IMMA|DMMA)") == 0  # exact Float32, no TF32
    assert sass.spills == 0
    # the 16-byte stores of c, 16 per thread, when N % 4 == 0
    assert sass.count(r"STG\.E\.128") == 16


@pytest.mark.parametrize("dtype", ["bf16", "f32", "f64"])
def test_histogram_reads_16_bytes_and_counts_in_shared_memory(dtype):
    inst = EX["histogram"].histogram.dispatch(dtype)
    sass = sass_of(inst)
    lanes = 128 // inst.dtypes[0].width
    vectors = sass.count(r"LDG\.E\.128")  # ptxas may unroll the loop
    assert vectors >= 1
    # one shared atomic per lane of each vector, one for the tail
    assert sass.count(r"\bATOMS\.") == lanes * vectors + 1
    # global atomics only in the merge (a few bins per thread, unrolled)
    assert sass.count(r"\b(REDG|ATOMG|RED|ATOM)\.") <= 8
    assert sass.spills == 0


@pytest.mark.parametrize("dtype", ["f32", "bf16", "f64"])
def test_transpose_goes_through_shared_memory_without_spills(dtype):
    sass = sass_of(EX["transpose"].transpose.dispatch(dtype))
    # TILE // ROWS = 4 global loads and stores a thread, each through the tile
    assert sass.count(r"\bLDG\.") == 4
    assert sass.count(r"\bSTG\.") == 4
    assert sass.count(r"\bSTS\b") == 4
    assert sass.count(r"\bLDS\b") == 4
    assert sass.spills == 0


@pytest.mark.parametrize("dtype", ["u8", "bf16", "f32", "f64"])
def test_transpose_tiled_issues_its_loads_unpredicated(dtype):
    sass = sass_of(EX["transpose"].transpose_tiled.dispatch(dtype, TILE=64))
    # (64 / 32) x (64 / 8) = 16 elements a thread each way; the loads read
    # clamped indices, so none waits on a predicate (edge tiles cost what
    # interior ones do) and only the stores of out are masked
    loads = [i for i in sass.instructions if re.search(r"\bLDG\.", i)]
    assert len(loads) == 16 and not any(i.startswith("@") for i in loads)
    assert sass.count(r"\bSTG\.") == 16
    assert sass.count(r"\bSTS") == 16 and sass.count(r"\bLDS") == 16
    assert sass.spills == 0 and sass.count(r"\b(LDL|STL)\b") == 0


@pytest.mark.parametrize("dtype", ["bf16", "u16"])
def test_transpose_odd_moves_16_bytes_per_access_at_any_offset(dtype):
    passes = 8
    sass = sass_of(EX["transpose"].transpose_odd.dispatch(dtype))
    # 16 threads a row of a's window, 16 rows a pass: one 128-bit load a
    # pass and thread, clamped (none predicated), the first three issued
    # before the first shared store (ptxas interleaves the rest with the
    # stores of the earlier ones)
    loads = [i for i in sass.instructions if re.search(r"\bLDG\.E\.128", i)]
    assert len(loads) == passes and not any(i.startswith("@") for i in loads)
    first_sts = next(
        n for n, i in enumerate(sass.instructions) if re.search(r"\bSTS", i)
    )
    before = [
        i for i in sass.instructions[:first_sts] if re.search(r"\bLDG\.E\.128", i)
    ]
    assert len(before) >= 3
    # the block owns out's aligned vectors: one 128-bit store a pass (and
    # one for the vector that wraps into out's next row); the only 2-byte
    # stores are out's last elements past its last whole vector (8 lanes),
    # the only 2-byte loads of a the tail's and the wrapping vector's lanes
    assert sass.count(r"\bSTG\.E\.128") == passes + 1
    assert sass.count(r"\bSTG\.") == passes + 1 + 8
    assert sass.count(r"\bLDG\.") == passes + 1 + 2 * 8
    # out's vector: L reads of one tile column at fixed offsets, a lane each
    assert sass.count(r"\bLDS") == passes * 8
    assert sass.count(r"\bBAR\.SYNC") == 2  # the tail's barrier: its tiles only
    assert sass.spills == 0


@pytest.mark.parametrize("dtype", ["f32", "i32"])
def test_transpose_odd4_moves_16_bytes_per_access_at_any_offset(dtype):
    passes = 4
    sass = sass_of(EX["transpose"].transpose_odd4.dispatch(dtype))
    # one 128-bit load of a's window a pass and thread, clamped (none
    # predicated), all of them issued before the first shared store
    loads = [i for i in sass.instructions if re.search(r"\bLDG\.E\.128", i)]
    assert len(loads) == passes and not any(i.startswith("@") for i in loads)
    first_sts = next(
        n for n, i in enumerate(sass.instructions) if re.search(r"\bSTS", i)
    )
    before = [
        i for i in sass.instructions[:first_sts] if re.search(r"\bLDG\.E\.128", i)
    ]
    assert len(before) == passes
    # each vector goes to the tile whole (its lanes rotated in registers),
    # the tail's elements one by one
    assert sass.count(r"\bSTS\.128") == passes
    assert sass.count(r"\bSTS\s") == 1
    # out's vectors: 4 reads of the tile a vector, at addresses worked out
    # once (the other passes at immediate offsets), one 128-bit store each
    # and one for the vector that wraps; 4-byte stores only for out's last
    # elements (past its last whole vector), 4-byte loads only for the
    # tail's and the wrapping vector's lanes
    assert sass.count(r"\bLDS\b") == passes * 4
    assert sass.count(r"\bLDS.*\+0x") >= passes * 4 // 2
    assert sass.count(r"\bSTG\.E\.128") == passes + 1
    assert sass.count(r"\bSTG\.") == passes + 1 + 4
    assert sass.count(r"\bLDG\.") == passes + 1 + 2 * 4
    assert sass.count(r"\bBAR\.SYNC") == 2  # the tail's barrier: its tiles only
    assert sass.spills == 0
    # launch_bounds (256, 8): 8 blocks an SM, all their loads in flight
    assert registers_of(EX["transpose"].transpose_odd4.dispatch(dtype)) <= 32


@pytest.mark.parametrize("tiles", [1, 4])
@pytest.mark.parametrize("dtype", ["f16", "bf16", "i16", "f32", "i32", "f64", "i64"])
def test_transpose_vec_moves_16_bytes_per_access(dtype, tiles):
    sass = sass_of(EX["transpose"].transpose_vec.dispatch(dtype, TILES=tiles))
    lanes = {"f16": 8, "bf16": 8, "i16": 8, "f32": 4, "i32": 4}.get(dtype, 2)
    # L = 16 / itemsize rows a thread: L 128-bit loads of a, L 128-bit stores
    # and loads of the swizzled tile, L 128-bit stores of out, nothing narrower
    for op in (r"LDG\.E", r"STG\.E", r"STS", r"LDS"):
        assert sass.count(rf"\b{op}\.128\b") == lanes, op
        assert sass.count(rf"\b{op}\b") == lanes, op
    # the L x L sub-block is transposed in registers: 16-bit lanes pair up
    # through byte permutes (one PRMT a 32-bit word of the result)
    assert sass.count(r"\bPRMT\b") == (32 if lanes == 8 else 0)
    assert sass.spills == 0
    assert sass.count(r"\b(LDL|STL)\b") == 0


def test_smooth_reads_its_taps_from_constant_memory():
    sass = sass_of(EX["smooth"].smooth.dispatch())
    # global loads only for the window (its body and right halo); the taps
    # come from the constant bank (c[0x3][...], in five 64-bit uniform loads)
    # into the unrolled multiply-adds
    assert sass.count(r"\bLDG\.") == 2
    assert sass.count(r"c\[0x3\]") == 5
    assert sass.count(r"^FFMA\s") == 9
    assert sass.spills == 0


@pytest.mark.parametrize("dtype", ["f16", "bf16", "f32", "f64"])
def test_saxpy_moves_16_bytes_per_access(dtype):
    sass = sass_of(EX["saxpy"].saxpy.dispatch(dtype))
    assert sass.count(r"LDG\.E\.128") >= 2  # x and y (ptxas may unroll)
    assert sass.count(r"STG\.E\.128") >= 1
    assert sass.spills == 0


@pytest.mark.parametrize("part", PARTS)
def test_sgemm_vec_loads_16_bytes_and_stores_a_transposed_whole(part):
    sass = sass_of(EX["matmul"].sgemm_vec.dispatch("f32", **PARTS[part]))
    # the unrolled BK = 16 loop: 16 x 8 x 8 fmas fed by four LDS.128 a k
    assert sass.count(r"^FFMA\s") == 1024
    assert sass.count(r"^LDS\.128") == 64
    assert sass.count(r"^LDS\b") == 64
    # four Float32x4 of a or of b a thread (a warp's role: two code paths),
    # in the one loop that also loads tile 0: every global load and shared
    # store is 128-bit (a is transposed in registers, not by 4-byte stores)
    assert sass.count(r"\bLDG\.E\.128\b") == 8
    assert sass.count(r"\bLDG\b") == 8
    assert sass.count(r"^STS\.128") == 8
    assert sass.count(r"^STS\b") == 8
    assert sass.count(r"^BAR\.SYNC") == 1  # one barrier a tile
    assert sass.count(r"^(HMMA|IMMA|DMMA)") == 0  # exact Float32, no TF32
    assert sass.spills == 0
    assert sass.count(r"STG\.E\.128") == 16


def test_split_sum_adds_the_slices_with_their_loads_in_flight():
    sass = sass_of(EX["matmul"].split_sum.dispatch("bf16", SPLIT=4))
    # four loads issued before the first add: one round trip, not four
    ins = sass.instructions
    loads = [k for k, i in enumerate(ins) if "LDG" in i]
    adds = [k for k, i in enumerate(ins) if i.startswith("FADD")]
    assert len(loads) == 4 and len(adds) == 3 and max(loads) < min(adds)
    assert sass.count(r"\bSTG\.E\.U16\b") == 1 and sass.spills == 0


@pytest.mark.parametrize("part", PARTS)
def test_sgemm_vec_prefetches_the_next_tile_during_the_multiply(part):
    ins = sass_of(EX["matmul"].sgemm_vec.dispatch("f32", **PARTS[part])).instructions
    bar = next(k for k, i in enumerate(ins) if i.startswith("BAR.SYNC"))
    loop = ins[:bar]  # the loads, the multiply and the stores of one tile
    loads = [k for k, i in enumerate(loop) if "LDG" in i]
    ffmas = [k for k, i in enumerate(loop) if i.startswith("FFMA")]
    stores = [k for k, i in enumerate(loop) if i.startswith("STS")]
    assert len(loads) == 8 and len(ffmas) == 1024
    # the next tile's loads are issued before most of the multiply-adds
    # (the compiler must not sink them to the shared stores after it)
    assert sum(k > max(loads) for k in ffmas) >= 768
    assert min(stores) > max(ffmas)


@pytest.mark.parametrize("part", PARTS)
def test_sgemm_prefetches_the_next_tile_during_the_multiply(part):
    ins = sass_of(EX["matmul"].sgemm.dispatch("f32", **PARTS[part])).instructions
    bars = [k for k, i in enumerate(ins) if i.startswith("BAR.SYNC")]
    body = ins[bars[0] + 1 : bars[1]]  # the main loop: one barrier a tile
    loads = [k for k, i in enumerate(body) if "LDG" in i]
    ffmas = [k for k, i in enumerate(body) if i.startswith("FFMA")]
    assert len(loads) == 8 and len(ffmas) == 512
    # the global loads of tile t + 1 are issued with many multiply-adds of
    # tile t still to come (the compiler must not sink them to their use)
    assert sum(k > max(loads) for k in ffmas) >= 128


WARP_SGEMMS = [
    EX["matmul"].sgemm_warp.dispatch(
        "f32", BM=bm, BK=bk, GROUP=group, UNROLL=unroll, **PARTS[part]
    )
    for bm, bk, group, unroll in EX["matmul"].WARP_CONFIGS
    for part in PARTS
]


@pytest.mark.parametrize("inst", WARP_SGEMMS, ids=lambda i: i.name)
def test_sgemm_warp_fits_128_registers_without_spills(inst):
    # launch_bounds=512: at most 128 registers, so two blocks of 256 threads
    # an SM (or one of 512); reaching the bound by spilling would put local
    # loads and stores in the loop
    assert registers_of(inst) <= 128
    sass = sass_of(inst)
    assert sass.spills == 0
    # the unrolled k loop, UNROLL tiles a pass: BK x 8 x 8 fmas a tile fed
    # by four LDS.128 a k, nothing narrower from shared memory
    tiles = inst.constexprs["UNROLL"]
    bk = inst.constexprs["BK"]
    assert sass.count(r"^FFMA\s") == 64 * bk * tiles
    assert sass.count(r"^LDS\.128") == 4 * bk * tiles
    assert sass.count(r"^LDS\b") == 4 * bk * tiles
    # a tile: four Float32x4 of a or of b a loading thread (two code paths),
    # all 128-bit, and four 128-bit shared stores each (a transposed in
    # registers), one barrier
    assert sass.count(r"\bLDG\.E\.128\b") == 8 * tiles
    assert sass.count(r"\bLDG\b") == 8 * tiles
    assert sass.count(r"^STS\.128") == 8 * tiles
    assert sass.count(r"^STS\b") == 8 * tiles
    assert sass.count(r"^BAR\.SYNC") == tiles
    assert sass.count(r"^(HMMA|IMMA|DMMA)") == 0  # exact Float32, no TF32
    # c: 16 Float32x4 a thread, unguarded (whole tiles)
    assert sass.count(r"STG\.E\.128") == 16
    assert sass.count(r"\bSTG\b") == 16


EDGE_SGEMMS = [
    EX["matmul"].sgemm_warp.dispatch(
        "f32",
        BM=bm,
        BK=bk,
        GROUP=group,
        UNROLL=unroll,
        EDGE=True,
        VEC=vec,
        SHORT=short,
        **PARTS[part],
    )
    for bm, bk, group, unroll in EX["matmul"].WARP_CONFIGS
    for vec in (True, False)
    for short in (False, True)
    for part in PARTS
    if not short or (bm, unroll) == (128, 2)  # launch_sgemm's SHORT configurations
]


@pytest.mark.parametrize("inst", EDGE_SGEMMS, ids=lambda i: i.name)
def test_sgemm_warp_with_edges_fits_128_registers_without_spills(inst):
    # ragged shapes (launch_sgemm's edge_path): the multiply of whole tiles,
    # the loads 128-bit (VEC) or 32-bit, all predicated on k >= 0
    assert registers_of(inst) <= 128
    sass = sass_of(inst)
    assert sass.spills == 0
    tiles = inst.constexprs["UNROLL"]
    bk = inst.constexprs["BK"]
    assert sass.count(r"^FFMA\s") == 64 * bk * tiles
    assert sass.count(r"^LDS\b") == sass.count(r"^LDS\.128") == 4 * bk * tiles
    width = 1 if inst.constexprs["VEC"] else 4
    assert sass.count(r"\bLDG\b") == 8 * tiles * width
    assert sass.count(r"^STS\b") == sass.count(r"^STS\.128") == 8 * tiles
    assert sass.count(r"^BAR\.SYNC") == tiles
    assert sass.count(r"^(HMMA|IMMA|DMMA)") == 0
    assert sass.count(r"\bSTG\b") == 16 * width


@pytest.mark.parametrize("inst", WARP_SGEMMS, ids=lambda i: i.name)
def test_sgemm_warp_prefetches_the_next_tile_during_the_multiply(inst):
    ins = sass_of(inst).instructions
    bars = [k for k, i in enumerate(ins) if i.startswith("BAR.SYNC")]
    # a tile's loads, multiply and stores end at its barrier
    starts = [0] + [k + 1 for k in bars[:-1]]
    for start, bar in zip(starts, bars):
        tile = ins[start:bar]
        loads = [k for k, i in enumerate(tile) if "LDG" in i]
        ffmas = [k for k, i in enumerate(tile) if i.startswith("FFMA")]
        stores = [k for k, i in enumerate(tile) if i.startswith("STS")]
        assert len(loads) == 8 and len(ffmas) == 64 * inst.constexprs["BK"]
        # the next tile's loads come before most of the multiply-adds
        assert sum(k > max(loads) for k in ffmas) >= len(ffmas) * 3 // 4
        assert min(stores) > max(ffmas)


@kdsl.kernel
def stencil5(u: Array[D, 2], out: Array[D, 2], BLOCK: Constexpr[int] = 16):
    i = block_idx.y * BLOCK + thread_idx.y + 1
    j = block_idx.x * BLOCK + thread_idx.x + 1
    if i < u.shape[0] - 1 and j < u.shape[1] - 1:
        out[i, j] = u[i, j] * D(0.5) + D(0.125) * (
            u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
        )


def test_array_elements_through_kdsl_offset_compile_as_the_spelled_out_sum(
    monkeypatch,
):
    """``u[kdsl::offset(i, u_stride0, j, u_stride1)]`` and the sum of products
    it stands for (``kdsl::add(kdsl::mul(int64_t(i), u_stride0), ...)``)
    give the same SASS: as many instructions, of the same kinds, no spills."""
    inst = stencil5.dispatch("f32")
    source = inst.source
    assert source.count("kdsl::offset(") == 6 and "kdsl::mul(int64_t(" not in source
    spell_out = lambda self, e: self.expr(e.flat)  # noqa: E731
    monkeypatch.setitem(Emitter.EXPR, ir.ArrayOffset, spell_out)
    c = inst.compilation
    spelled = _render(c, line_directives=False)
    assert "kdsl::offset(" not in spelled.split("end of kdsl prelude")[1]
    after, before = sass_of(inst), sass_of_source(spelled, inst.name)
    assert len(after.instructions) == len(before.instructions)
    opcodes = sorted(ins.split()[0] for ins in after.instructions)
    assert opcodes == sorted(ins.split()[0] for ins in before.instructions)
    assert after.spills == before.spills == 0


def test_stencil_lines_fit_in_100_columns():
    source = stencil5.dispatch("f32").source
    lines = source[source.index('extern "C"') :].splitlines()
    assert max(len(line) for line in lines if not line.lstrip().startswith("//")) <= 100


@kdsl.kernel
def neg16(x: kdsl.Pointer[kdsl.Int16], out: kdsl.Pointer[kdsl.Int64]):
    out[0] = (-x[0]).to(kdsl.Int64)
    out[1] = abs(x[1]).to(kdsl.Int64)
    out[2] = (x[2] * kdsl.Int16(-1)).to(kdsl.Int64)
    out[3] = (kdsl.Int16(0) - x[3]).to(kdsl.Int64)
    out[4] = (x[4] // kdsl.Int16(-1)).to(kdsl.Int64)


def test_int16_negations_are_sign_extended_again():
    """-x, abs, x * -1, 0 - x and x // -1 of an Int16, widened to Int64: NVRTC
    makes each a 16-bit negation (PTX neg.s16/abs.s16), which ptxas computes
    in a 32-bit register; without kdsl::i16 it then widened that register as
    it was, so Int16(-32768) negated read +32768 on an H200 (the GPU fuzzer,
    seed 700890). Each store must sign-extend from bit 15 after its
    negation."""
    ins = sass_of(neg16.dispatch()).instructions
    stores = [i for i, s in enumerate(ins) if s.startswith("STG")]
    assert len(stores) == 5
    start = 0
    for store in stores:
        part = ins[start:store]
        negations = [
            i for i, s in enumerate(part) if s.startswith("IABS") or ", -R" in s
        ]
        assert negations, "\n".join(part)
        after = part[negations[-1] + 1 :]
        assert any("PRMT" in s and "0x9910" in s for s in after), "\n".join(part)
        start = store + 1


@kdsl.kernel
def int_to_bf16_bits(
    xf: kdsl.Pointer[kdsl.Float64],
    xi: kdsl.Pointer[kdsl.Int64],
    out: kdsl.Pointer[kdsl.Uint64],
    n: kdsl.Int32,
):
    v = xf[0].to(kdsl.BFloat16)
    u = xi[1].to(kdsl.Uint8)
    if v >= u and n != 2:
        one = (v == v).to(kdsl.Int32).to(kdsl.BFloat16)
        out[0] = one.bitcast(kdsl.Uint16).to(kdsl.Uint64)
    else:
        out[0] = xi[2].to(kdsl.Int16).bitcast(kdsl.Uint16).to(kdsl.Uint64)


def test_an_int_to_bfloat16_conversion_stays_in_a_predicated_branch():
    """The reduced kernel of the GPU fuzzer's seed 700255: ptxas (CUDA 13.0)
    dropped CUDA's direct Int32 -> BFloat16 conversion (PTX cvt.rn.bf16.s32)
    of the 0/1 select in the predicated branch and stored the integer (the
    H200 stored 0x0001 for 1.0); kdsl converts through Float64 (exact, one
    rounding), and the conversion must be there between the comparison and
    the store."""
    ins = sass_of(int_to_bf16_bits.dispatch()).instructions
    compare = next(i for i, s in enumerate(ins) if "HSETP2" in s and ".NEU" in s)
    store = next(i for i, s in enumerate(ins) if s.startswith("STG"))
    converts = r"^(@!?P\d )?(I2F|F2F|F2FP)\.BF16"
    assert any(re.match(converts, s) for s in ins[compare:store]), "\n".join(ins)
