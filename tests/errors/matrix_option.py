# expect: E802 line 10
import kdsl
from kdsl import BFloat16x8, Float32, Pointer, thread_idx


@kdsl.kernel
def bad(d: Pointer[Float32]):
    lane = thread_idx.x
    tile = kdsl.shared_array(BFloat16x8, (32,))
    fa = kdsl.ldmatrix(tile, lane, count=3)
    d[lane] = Float32(fa[0])
