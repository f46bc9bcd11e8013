# expect: E803 line 10
import kdsl
from kdsl import BFloat16x8, Float32, Float32x4, Pointer, thread_idx


@kdsl.kernel
def bad(d: Pointer[Float32]):
    lane = thread_idx.x
    tile = kdsl.shared_array(BFloat16x8, (32,))
    kdsl.stmatrix(tile, lane, Float32x4(0.0))
