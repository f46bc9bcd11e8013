"""transpose: out = a.T for a (rows, cols) array, for every dtype: a fast
path with 16-byte accesses (``transpose_vec``), 16-byte accesses at odd
sizes for 2- and 4-byte types (``transpose_odd``, ``transpose_odd4``), one
for contiguous arrays of any shape and element size (``transpose_tiled``)
and a general one (``transpose``: any strides); ``launch_transpose``
picks.

A transpose moves every byte once each way; the target is the speed of a
device-to-device copy. What that takes:

* coalesced reads of ``a`` and writes of ``out``: a warp's accesses cover
  whole 128-byte lines, which a shared-memory tile makes possible on both
  sides (read along a row of ``a``, write along a row of ``out``);
* wide accesses (``transpose_vec``): one 16-byte load or store moves 4
  Float32 or 8 BFloat16, so 2-byte types need a quarter of the memory
  instructions a scalar transpose issues for them; each thread transposes
  an L x L block in registers, so that the tile holds rows of ``out`` as
  whole vectors;
* several loads in flight per thread before the barrier (L of them in
  ``transpose_vec``, TILE // ROWS in ``transpose``);
* no shared-memory bank conflicts: a padding column in ``transpose``'s
  scalar tile, an XOR swizzle of ``transpose_vec``'s vector tile.

``transpose``: launch with block (TILE, ROWS) and grid (ceil(cols / TILE),
ceil(rows / TILE)); any shape (edges are guarded), any strides.
``transpose_tiled``: contiguous arrays of any shape, scalar accesses with 16
loads in flight a thread and edge tiles as cheap as interior ones (the
path for sizes no multiple of the vectors). ``transpose_vec``,
``transpose_odd``, ``transpose_odd4``: see their docstrings.
"""

import kdsl
from kdsl import Array, Constexpr, Int32, Pointer, Vector, block_idx, thread_idx

D = kdsl.TypeVar("D", bound=kdsl.Num)


@kdsl.kernel
def transpose(
    a: Array[D, 2],
    out: Array[D, 2],
    TILE: Constexpr[int] = 32,
    ROWS: Constexpr[int] = 8,
):
    # the padded tile: a column of it lies in 32 different banks
    tile = kdsl.shared_array(D, (TILE, TILE + 1))
    rows = a.shape[0]
    cols = a.shape[1]
    tx = thread_idx.x
    ty = thread_idx.y
    # read a TILE x TILE block of a, row by row (coalesced along cols)
    col = block_idx.x * TILE + tx
    for k in kdsl.range_constexpr(0, TILE, ROWS):
        row = block_idx.y * TILE + ty + k
        if row < rows and col < cols:
            tile[ty + k, tx] = a[row, col]
    kdsl.syncthreads()
    # write it to out transposed, row by row of out (coalesced along rows)
    out_col = block_idx.y * TILE + tx
    for k in kdsl.range_constexpr(0, TILE, ROWS):
        out_row = block_idx.x * TILE + ty + k
        if out_row < cols and out_col < rows:
            out[out_row, out_col] = tile[tx, ty + k]


# 2-, 4- and 8-byte elements (8-bit ones would need 16 x 16 byte blocks in
# registers: they take ``transpose``)
VEC_DTYPES = ["i16", "u16", "f16", "bf16", "i32", "u32", "f32", "i64", "u64", "f64"]


@kdsl.kernel(dtypes=VEC_DTYPES)
def transpose_vec(
    a: Pointer[D],
    out: Pointer[D],
    rows: Int32,
    cols: Int32,
    TILES: Constexpr[int] = 4,
):
    """``out = a.T`` for contiguous ``a`` (rows, cols) with rows and cols
    multiples of L = 16 bytes / element size, 16-byte aligned pointers.

    A block of 8 x 8 TILES threads moves TILES tiles of 8L x 8L (32 x 32
    Float32, 64 x 64 BFloat16) stacked down a's rows: thread (tx, ty) loads
    the L x L sub-block at rows ty L .. +L-1, vector column tx, in L 16-byte
    loads issued back to back, transposes it in registers (lane moves; byte
    permutes for 16-bit types), and stores its L rows of the transpose, one
    16-byte vector each, to the shared tile. After the barrier each thread
    reads whole 16-byte vectors of out's rows from the tile and stores them:
    every global access is 128-bit and 8 threads cover a full 128-byte line.
    Launch with block (8, 8 TILES), grid (ceil(cols / 8L), ceil(rows / 8L
    TILES)).
    """
    L = 128 // D.width  # lanes of a 16-byte vector
    av = a.vec(L)
    ov = out.vec(L)
    cv = cols // L  # vectors in a row of a
    rv = rows // L  # vectors in a row of out
    tx = thread_idx.x
    ty = thread_idx.y
    # tile[j, k]: lanes k L .. k L + L-1 of the block's out row j, stored at
    # chunk k ^ (j // L) (which flips the low 3 bits of k only): the 8
    # threads of a quarter warp, which share one 128-bit shared-memory
    # transaction, touch 8 different 16-byte bank groups in both phases (an
    # XOR swizzle instead of padding, which would break the 16-byte
    # alignment of the elements)
    tile = kdsl.shared_array(Vector[D, L], (8 * L, 8 * TILES))
    row0 = block_idx.y * (8 * L * TILES) + ty * L
    col = block_idx.x * 8 + tx
    if row0 < rows and col < cv:
        blk = kdsl.local_array(Vector[D, L], L)
        for q in kdsl.range_constexpr(L):
            blk[q] = av[(row0 + q) * cv + col]
        for p in kdsl.range_constexpr(L):
            t = blk[p]
            for q in kdsl.range_constexpr(L):
                t[q] = blk[q][p]
            tile[tx * L + p, ty ^ tx] = t
    kdsl.syncthreads()
    # out row block_idx.x * 8L + j, vector column block_idx.y * 8 TILES + k
    k = tx + 8 * (ty // 8)
    out_col = block_idx.y * (8 * TILES) + k
    for m in kdsl.range_constexpr(L):
        j = ty % 8 + 8 * m
        out_row = block_idx.x * (8 * L) + j
        if out_row < cols and out_col < rv:
            ov[out_row * rv + out_col] = tile[j, k ^ (j // L)]


@kdsl.kernel
def transpose_tiled(
    a: Pointer[D],
    out: Pointer[D],
    rows: Int32,
    cols: Int32,
    TILE: Constexpr[int] = 64,
):
    """``out = a.T`` for contiguous ``a`` (rows, cols) of any shape and
    alignment, fewer than 2**31 elements: the path for sizes that are no
    multiple of the 16-byte vectors (an odd width makes every row start
    unaligned, so no 16-byte access is possible) and for 1-byte types.

    A block of 32 x 8 threads moves one TILE x TILE tile: each thread issues
    its (TILE / 32) x (TILE / 8) loads back to back (16 at TILE 64: the bytes
    in flight that scalar accesses need), a warp reading 32 consecutive
    elements of a row of ``a`` and, after the barrier, writing 32 consecutive
    elements of a row of ``out``. Edge tiles are the same code: the loads
    read clamped indices (in bounds, never predicated: a predicate register
    each would split them into batches) and each store is predicated on its
    own row and column, so a partial tile costs what a whole one does; the
    index arithmetic is 32-bit. The tile's rows are
    padded to an odd number of 4-byte words (one element for 4- and 8-byte
    types, 2 for 2-byte, 4 for 1-byte ones): a column read touches 32
    different banks. Launch with block (32, 8), grid (ceil(cols / TILE),
    ceil(rows / TILE))."""
    PAD = max(1, 32 // D.width)
    tile = kdsl.shared_array(D, (TILE, TILE + PAD))
    tx = thread_idx.x
    ty = thread_idx.y
    r0 = block_idx.y * TILE  # the tile's first row and column of a
    c0 = block_idx.x * TILE
    # reads clamped to the last row and column: no load is predicated, so
    # all of them issue back to back (the tile's lanes past the edge hold a
    # copy of an edge element, which no store below writes out)
    for i in kdsl.range_constexpr(0, TILE, 8):
        row = min(r0 + ty + i, rows - 1)
        for c in kdsl.range_constexpr(0, TILE, 32):
            col = min(c0 + tx + c, cols - 1)
            tile[ty + i, tx + c] = a[row * cols + col]
    kdsl.syncthreads()
    # out's rows c0 .. c0 + TILE - 1, columns r0 .. r0 + TILE - 1
    for i2 in kdsl.range_constexpr(0, TILE, 8):
        out_row = c0 + ty + i2
        for c2 in kdsl.range_constexpr(0, TILE, 32):
            out_col = r0 + tx + c2
            if out_row < cols and out_col < rows:
                out[out_row * rows + out_col] = tile[tx + c2, ty + i2]


# 16-bit elements: where 16-byte accesses pay at odd sizes (measured on the
# H200: 1.1x transpose_tiled for BFloat16, none for Float32; RESULTS.md)
ODD_DTYPES = ["i16", "u16", "f16", "bf16"]


@kdsl.kernel(dtypes=ODD_DTYPES)
def transpose_odd(a: Pointer[D], out: Pointer[D], rows: Int32, cols: Int32):
    """``out = a.T`` for contiguous ``a`` (rows, cols) of 16-bit elements,
    any shape, 16-byte aligned pointers and fewer than 2**31 elements:
    16-byte global loads and stores where the rows start anywhere (an odd
    width), instead of the one 2-byte access an element of
    ``transpose_tiled``.

    A block of 256 threads owns, for out's rows c0 .. c0 + SIDE - 1 (SIDE =
    15 L = 120, L = 8 lanes of a 16-byte vector), the aligned 16-byte
    vectors of out whose first element lies in a's rows r0 .. r0 + SIDE - 1:
    15 of them an out row, wherever the row starts. Every store of out is
    one whole aligned vector (no partial vector, no 2-byte store: out's
    tail past its last whole vector aside); a vector's lanes reach up to 7
    rows past the block's, so the block reads a's rows r0 .. r0 + SIDE + 6
    (the next block reads those 7 rows again). Wherever a row of a starts,
    the 16 aligned vectors from the one holding its element c0 cover its
    SIDE columns: 16 threads load them (one 256-byte run a row, all the
    loads of a thread issued before the first is used) and put each
    element at its column in the tile, the row's offset ``s`` (0 .. L-1)
    taken off, so that out's vector is L reads of one tile column at fixed
    offsets. The vectors that wrap from one out row into the next (their
    lanes past a's last row) are read from a directly, lane by lane, by the
    blocks of a's last rows. Loads of the tile read clamped rows and
    vectors (never predicated); the last ``rows * cols % L`` elements, past
    a's last whole vector, are put into the tile from scalar loads by the
    block or blocks that hold them. Launch with 256 threads, grid (ceil(cols
    / SIDE), ceil(rows / SIDE))."""
    L = 8  # lanes of a 16-byte vector
    LOG = 3  # log2(L)
    SIDE = 15 * L
    PASSES = 8  # a block's 16 rows of 16 vectors a pass: 128 >= SIDE + L - 1
    # tile[r, M + j]: column c0 + j of a's row r0 + r; a window's elements
    # left of c0 fall into the margin M. Rows of an odd number of elements:
    # the L rows of a column that a thread reads, and the rows L apart that
    # the threads of a half warp read, start in different banks
    M = L
    W = 16 * L + M + 1
    tile = kdsl.shared_array(D, (16 * PASSES, W))
    av = a.vec(L)
    ov = out.vec(L)
    n = rows * cols
    last = n // L - 1  # a's last whole vector
    tid = thread_idx.x
    k = tid % 16  # this thread's vector of a window, and of an out row
    r0 = block_idx.y * SIDE  # the tile's first row and column of a
    c0 = block_idx.x * SIDE
    hv = min(SIDE, rows - r0)  # rows of a whose vectors the block owns
    wv = min(SIDE, cols - c0)  # columns (out's rows) of the tile in a

    # 1. the windows: every load issued first (clamped: none predicated),
    #    then each element to its column
    blk = kdsl.local_array(Vector[D, L], PASSES)
    for p in kdsl.range_constexpr(PASSES):
        f = min(r0 + tid // 16 + 16 * p, rows - 1) * cols + c0
        blk[p] = av[min((f >> LOG) + k, last)]
    for p2 in kdsl.range_constexpr(PASSES):
        r = tid // 16 + 16 * p2
        f = min(r0 + r, rows - 1) * cols + c0
        at = M + k * L - (f & (L - 1))  # the column of the vector's lane 0
        v = blk[p2]
        for lane in kdsl.range_constexpr(L):
            tile[r, at + lane] = v[lane]
    tail = n % L  # the elements past a's last whole vector
    if tail > 0 and r0 + 16 * PASSES > (n - tail) // cols:
        kdsl.syncthreads()  # (the block-wide condition: every thread here)
        if tid < tail:
            e = n - tail + tid
            r = e // cols - r0
            j = e % cols - c0
            if 0 <= r and r < 16 * PASSES and 0 <= j and j < SIDE:
                tile[r, M + j] = a[e]
    kdsl.syncthreads()

    # 2. thread (i, k) stores vector k of those out row c0 + i owns: lane 0
    #    is tile row r = lo + k L (lo: the first of the block's rows where
    #    a vector of out starts); every lane in a's rows, read from the tile
    for p3 in kdsl.range_constexpr(PASSES):
        i = tid // 16 + 16 * p3
        g = (c0 + i) * rows + r0  # out's element (c0 + i, r0)
        r = ((0 - g) & (L - 1)) + k * L
        if i < wv and r0 + r + L <= rows and r < hv:
            w = Vector[D, L].splat(0)
            for lane2 in kdsl.range_constexpr(L):
                w[lane2] = tile[r + lane2, M + i]
            ov[(g + r) >> LOG] = w

    # 3. the one vector an out row may own that wraps into out's next
    #    row(s), or ends out: its lanes read from a, one by one (the blocks
    #    at a's last rows only)
    if r0 + SIDE + L - 1 > rows and tid < wv:
        g = (c0 + tid) * rows + r0
        lo = (0 - g) & (L - 1)
        # (in two statements: one would pass the generated line width)
        whole = max(rows - r0 - (L - 1) - lo, 0)
        r = lo + (whole + L - 1) // L * L
        if r < hv:
            e0 = g + r
            if e0 + L <= n:
                w2 = Vector[D, L].splat(0)
                for lane3 in kdsl.range_constexpr(L):
                    e = e0 + lane3
                    w2[lane3] = a[e % rows * cols + e // rows]
                ov[e0 >> LOG] = w2
            else:  # out's last elements, past its last whole vector
                for lane4 in kdsl.range_constexpr(L):
                    e = e0 + lane4
                    if e < n:
                        out[e] = a[e % rows * cols + e // rows]


# 4-byte elements at odd sizes: ``transpose_tiled``'s scalar accesses issue
# 4 memory instructions an element; this kernel's 16-byte global accesses
# and conflict-free tile 2.5 (RESULTS.md, session 12)
ODD4_DTYPES = ["i32", "u32", "f32"]


# (256, 8): 8 blocks an SM (32 registers a thread at WIN 16, no spills):
# 128 KB of loads in flight an SM, against 96 KB at the 40 registers ptxas
# picks alone
@kdsl.kernel(dtypes=ODD4_DTYPES, launch_bounds=(256, 8))
def transpose_odd4(
    a: Pointer[D],
    out: Pointer[D],
    rows: Int32,
    cols: Int32,
    WIN: Constexpr[int] = 16,
    TROWS: Constexpr[int] = 64,
):
    """``out = a.T`` for contiguous ``a`` (rows, cols) of 4-byte elements,
    any shape, 16-byte aligned pointers and fewer than 2**31 elements:
    ``transpose_odd``'s plan for L = 4 lanes of a 16-byte vector, every
    global access of the tile 16 bytes wide and every shared one free of
    bank conflicts.

    A block of 256 threads owns, for out's rows c0 .. c0 + SIDE - 1 (SIDE =
    (WIN - 1) L: 60 at WIN 16), the aligned vectors of out whose first
    element lies in a's rows r0 .. r0 + HIGH - 1 (HIGH = TROWS - L: 60 at
    TROWS 64, HIGH / L an out row), and reads a's rows r0 .. r0 + TROWS - 1:
    the WIN aligned vectors of each row from the one holding its element c0
    (one run of 16 WIN bytes a row, WIN TROWS / 256 loads a thread, clamped,
    issued before the first is used).
    Each vector goes to the tile as it is (one 16-byte shared store), at
    16-byte chunk ``k ^ (r // 4) % 8`` of tile row r and its lanes rotated
    by ``r * (cols % 2) % 4``: element (r, c0 + j) lies at ``u = s_r + j``
    of the row's window (s_r its lane in a's vector). A thread then builds
    out's vector from L reads of one tile column, each at its row's ``u``.
    The chunk swizzle puts the 8 rows 4 apart that 8 threads of an out row
    read in 8 different 16-byte bank groups; the lane rotation makes 4
    consecutive out rows read 4 different banks of a group (without it,
    when rows * cols % 4 == 1, every lane q of every vector lies at the same
    lane of a's vectors: a 4-way conflict). The vectors that wrap from an
    out row into the next, and a's and out's elements past their last whole
    vectors, are ``transpose_odd``'s: from a, lane by lane. Launch with 256
    threads, grid (ceil(cols / SIDE), ceil(rows / HIGH)); WIN 16 or 32,
    TROWS 64 or 128 (the tile, WIN TROWS 16 bytes, at most 32 KB)."""
    L = 4  # lanes of a 16-byte vector
    LOG = 2  # log2(L)
    SIDE = (WIN - 1) * L
    HIGH = TROWS - L  # TROWS >= HIGH + L - 1: the last vector's lanes
    STEP = 256 // WIN  # a's rows a pass (16 or 8: a multiple of L)
    PASSES = TROWS // STEP
    GROUPS = WIN // 8  # 32 out rows a pass, 8 vectors each: WIN / 8 of each
    # tile[r, 4 chunk + lane]: chunk k ^ (r // 4) % 8 of row r holds the
    # window's vector k, its lanes rotated; rows of WIN L words, no padding
    tile = kdsl.shared_array(D, (TROWS, WIN * L))
    av = a.vec(L)
    ov = out.vec(L)
    n = rows * cols
    last = n // L - 1  # a's last whole vector
    odd = cols & 1  # the rotation a tile row: r * odd % L
    tid = thread_idx.x
    r0 = block_idx.y * HIGH  # the tile's first row and column of a
    c0 = block_idx.x * SIDE
    hv = min(HIGH, rows - r0)  # rows of a whose vectors the block owns
    wv = min(SIDE, cols - c0)  # columns (out's rows) of the tile in a

    # 1. the windows: thread (tid // WIN, k) loads vector k of rows STEP
    #    apart (clamped: none predicated), then stores each to the tile
    k = tid % WIN
    blk = kdsl.local_array(Vector[D, L], PASSES)
    for p in kdsl.range_constexpr(PASSES):
        f = min(r0 + tid // WIN + STEP * p, rows - 1) * cols + c0
        blk[p] = av[min((f >> LOG) + k, last)]
    rot = tid // WIN * odd  # rows STEP (0 mod L) apart: one rotation
    by1 = (rot & 1) != 0
    by2 = (rot & 2) != 0
    for p2 in kdsl.range_constexpr(PASSES):
        r = tid // WIN + STEP * p2
        v = blk[p2]
        h = Vector[D, L].splat(0)  # v rotated by rot & 1
        for q in kdsl.range_constexpr(L):
            h[q] = v[(q + L - 1) % L] if by1 else v[q]
        w = Vector[D, L].splat(0)  # and by rot & 2: w[(q + rot) % L] = v[q]
        for q2 in kdsl.range_constexpr(L):
            w[q2] = h[(q2 + 2) % L] if by2 else h[q2]
        at = (k ^ ((r >> LOG) & 7)) * L
        for q3 in kdsl.range_constexpr(L):
            tile[r, at + q3] = w[q3]
    # the elements past a's last whole vector: in a's last L - 1 rows (its
    # last row unless cols < L; no division on every block's path)
    tail = n % L
    if tail > 0 and r0 + TROWS + L - 1 > rows:
        kdsl.syncthreads()  # (the block-wide condition: every thread here)
        if tid < tail:
            e = n - tail + tid
            r = e // cols - r0
            j = e % cols - c0
            if 0 <= r and r < TROWS and 0 <= j and j < SIDE:
                u = (((r0 + r) * cols + c0) & (L - 1)) + j
                at = ((u >> LOG) ^ ((r >> LOG) & 7)) * L + ((u + r * odd) & (L - 1))
                tile[r, at] = a[e]
    kdsl.syncthreads()

    # 2. thread (ii, kk) stores vector kv = kk + 8 m of out row c0 + i, i =
    #    ii + 32 m': lane 0 is tile row r = lo + kv L (lo: the first of the
    #    block's rows where a vector of out starts); lane q is element (r +
    #    q, c0 + i) of the tile. A warp: 4 out rows, 8 vectors each. Out rows
    #    32 apart share lo, and rows 4 apart s_r (32 and 4 L: multiples of
    #    L), so where lane q lies is worked out once: (rq, cq) for m = m' =
    #    0, the others 32 m rows (kv + 8 m) and 8 m' chunks (i + 32 m') on
    kk = tid % 8
    ii = tid // 8
    g0 = (c0 + ii) * rows + r0  # out's element (c0 + ii, r0)
    lo = (0 - g0) & (L - 1)
    s0 = (r0 * cols + c0) & (L - 1)  # the lane of a's element (r0, c0)
    rq = kdsl.local_array(Int32, L)
    cq = kdsl.local_array(Int32, L)
    for q4 in kdsl.range_constexpr(L):
        rr = lo + q4 + kk * L
        u = ((s0 + rr * cols) & (L - 1)) + ii  # s_rr + ii
        rq[q4] = rr
        cq[q4] = ((u >> LOG) ^ ((rr >> LOG) & 7)) * L + ((u + rr * odd) & (L - 1))
    for p3 in kdsl.range_constexpr(PASSES):
        m = p3 // GROUPS
        m2 = p3 % GROUPS
        i = ii + 32 * m2
        kv = kk + 8 * m
        r = lo + kv * L
        if i < wv and r0 + r + L <= rows and r < hv:
            w2 = Vector[D, L].splat(0)
            for lane in kdsl.range_constexpr(L):
                w2[lane] = tile[rq[lane] + 32 * m, cq[lane] + 32 * m2]
            ov[((g0 + lo) >> LOG) + 8 * m2 * rows + kv] = w2

    # 3. the one vector an out row may own that wraps into out's next
    #    row(s), or ends out: its lanes read from a, one by one (the blocks
    #    at a's last rows only)
    if r0 + HIGH + L - 1 > rows and tid < wv:
        g = (c0 + tid) * rows + r0
        lo = (0 - g) & (L - 1)
        whole = max(rows - r0 - (L - 1) - lo, 0)
        r = lo + (whole + L - 1) // L * L
        if r < hv:
            e0 = g + r
            if e0 + L <= n:
                w3 = Vector[D, L].splat(0)
                for lane3 in kdsl.range_constexpr(L):
                    e = e0 + lane3
                    w3[lane3] = a[e % rows * cols + e // rows]
                ov[e0 >> LOG] = w3
            else:  # out's last elements, past its last whole vector
                for lane4 in kdsl.range_constexpr(L):
                    e = e0 + lane4
                    if e < n:
                        out[e] = a[e % rows * cols + e // rows]


# TILES 8L x 8L tiles a block: 64 to 256 threads (4 to 32 KiB of tile)
TRANSPOSE_CONFIGS = [kdsl.Config(TILES=t) for t in (1, 2, 4)]
# out is only written: nothing to save and restore around the search
transpose_vec_tuned = kdsl.autotune(
    configs=TRANSPOSE_CONFIGS, key=["rows", "cols"], restore=[]
)(transpose_vec)


def _ptr(x) -> int:
    if hasattr(x, "data_ptr"):  # PyTorch
        return x.data_ptr()
    if hasattr(x, "__cuda_array_interface__"):  # CuPy
        return x.__cuda_array_interface__["data"][0]
    return x.__array_interface__["data"][0]  # numpy (the interpreter)


def _contiguous(x) -> bool:
    if hasattr(x, "is_contiguous"):
        return x.is_contiguous()
    return x.flags.c_contiguous


def _itemsize(x) -> int:
    return x.element_size() if hasattr(x, "element_size") else x.itemsize


def vector_path(a, out) -> bool:
    """Whether ``transpose_vec`` can move ``a`` into ``out``: 2-, 4- or
    8-byte elements, both contiguous and 16-byte aligned, both dimensions
    multiples of the L = 16 / itemsize lanes of a 16-byte vector (and fewer
    than 2**31 vectors: it indexes in Int32)."""
    size = _itemsize(a)
    if size not in (2, 4, 8) or _itemsize(out) != size:
        return False
    lanes = 16 // size
    rows, cols = a.shape
    return (
        rows % lanes == 0
        and cols % lanes == 0
        and rows * cols // lanes < 2**31
        and _contiguous(a)
        and _contiguous(out)
        and _ptr(a) % 16 == 0
        and _ptr(out) % 16 == 0
    )


ODD_SIDE = 120  # transpose_odd's tile: 15 vectors of 8 lanes each way
ODD4_SIDE = 60  # transpose_odd4's tile: 15 vectors of 4 lanes each way


def odd_path(a, out) -> bool:
    """Whether ``launch_transpose`` takes ``transpose_odd`` (2-byte
    elements) or ``transpose_odd4`` (4-byte ones): both arrays contiguous
    and 16-byte aligned, fewer than 2**31 elements, and both sides at least
    4 tiles (a thin matrix makes few blocks of 120 x 120: ``transpose_tiled``'s
    64 x 64 tiles are faster there, 1.0x a copy against 0.44x at 31 x 4097
    for BFloat16)."""
    size = _itemsize(a)
    if size not in (2, 4) or _itemsize(out) != size:
        return False
    side = ODD_SIDE if size == 2 else ODD4_SIDE
    rows, cols = a.shape
    return (
        rows * cols < 2**31
        and min(rows, cols) >= 4 * side
        and -(-rows // side) <= 65535
        and _contiguous(a)
        and _contiguous(out)
        and _ptr(a) % 16 == 0
        and _ptr(out) % 16 == 0
    )


TILED_SIDE = 64  # transpose_tiled's TILE: 16 elements a thread each way


def tiled_path(a, out) -> bool:
    """Whether ``transpose_tiled`` can move ``a`` into ``out``: both
    contiguous, of one element size, fewer than 2**31 elements (any shape,
    any alignment) and at most 65535 tiles down ``a`` (the grid's y)."""
    rows, cols = a.shape
    return (
        _itemsize(out) == _itemsize(a)
        and rows * cols < 2**31
        and -(-rows // TILED_SIDE) <= 65535
        and _contiguous(a)
        and _contiguous(out)
    )


def launch_transpose(a, out, stream=None):
    """``out = a.T`` on the GPU (2-D CuPy arrays or PyTorch tensors):
    ``transpose_vec`` (16-byte accesses) where ``vector_path`` allows it,
    else ``transpose_odd`` or ``transpose_odd4`` (16-byte accesses at any
    offset, 2- and 4-byte types: ``odd_path``), else ``transpose_tiled`` (contiguous, any shape and
    alignment), else ``transpose`` (any strides, one element an access)."""
    rows, cols = a.shape
    if tuple(out.shape) != (cols, rows):
        raise ValueError(f"transpose: out is {tuple(out.shape)}, a.T is {(cols, rows)}")
    if vector_path(a, out):
        side = 8 * (16 // _itemsize(a))  # a tile: 8 vectors of L lanes
        launch = (
            lambda m: ((cols + side - 1) // side, -(-rows // (side * m["TILES"]))),
            lambda m: (8, 8 * m["TILES"]),
        )
        transpose_vec_tuned[launch](a, out, rows, cols, stream=stream)
        return
    if odd_path(a, out):
        wide = _itemsize(a) == 4
        t = ODD4_SIDE if wide else ODD_SIDE
        grid = ((cols + t - 1) // t, (rows + t - 1) // t)
        kernel = transpose_odd4 if wide else transpose_odd
        kernel[grid, 256](a, out, rows, cols, stream=stream)
        return
    if tiled_path(a, out):
        t = TILED_SIDE
        grid = ((cols + t - 1) // t, (rows + t - 1) // t)
        transpose_tiled[grid, (32, 8)](a, out, rows, cols, TILE=t, stream=stream)
        return
    grid = ((cols + 31) // 32, (rows + 31) // 32)
    transpose[grid, (32, 8)](a, out, stream=stream)


if __name__ == "__main__":
    print(transpose.dispatch("f32").source)
    print(transpose_vec.dispatch("bf16").source)
