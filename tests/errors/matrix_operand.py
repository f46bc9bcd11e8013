# expect: E801 line 9
import kdsl
from kdsl import BFloat16, Float32, Pointer, thread_idx


@kdsl.kernel
def bad(a: Pointer[BFloat16], d: Pointer[Float32]):
    lane = thread_idx.x
    fa = kdsl.ldmatrix(a.vec(8), lane)
    d[lane] = Float32(fa[0])
