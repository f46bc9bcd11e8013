# expect: E800 line 10
import kdsl
from kdsl import BFloat16x8, Float32, Float32x4, Pointer, thread_idx


@kdsl.kernel
def bad(a: Pointer[Float32], d: Pointer[Float32]):
    lane = thread_idx.x
    fa = BFloat16x8(a[lane])
    d.vec(4)[lane] = kdsl.mma_m16n8k16(fa, fa, Float32x4(0.0))
